//! `accuracy spatial`: a tree laid out on a spatial computer (seed 002; docs/design.md §12) —
//! per layout (linear order × space-filling curve) and message pattern, the energy, the energy
//! per vertex, the depth (under the model's per-round limit, and without it), the congestion,
//! the estimated cycles and the algorithm's lost bits; over several sizes, the fitted exponent
//! of energy against n; batched LCA's answers to given queries.

mod table;

use super::{OpsArgs, ReadArgs, allocator, parse_single_cond};
use analysis::records::spatial::LcaQueriesRecord;
use analysis::spatial::{Curve, LinearOrder, TimeModel};
use clap::Args;
use generators::Topology;
use std::io::Write;
use std::path::PathBuf;
use treefix_accuracy::inputs::WeightChoice;
use treefix_accuracy::lock::FileLock;
use treefix_accuracy::spatial::{Params, QuerySpec, Source, checkpoint, measure, memory};
use treefix_accuracy::{Error, output};

#[derive(Args)]
pub struct SpatialArgs {
    /// Topology (see `sweep --help`).
    #[arg(long, required_unless_present = "tree", conflicts_with = "tree")]
    topology: Option<Topology>,
    /// Vertices, comma-separated: each an integer, 1e6 or 2^20; 2^10..2^22 is every power of
    /// two from 2^10 to 2^22. Several sizes fit the exponent of energy against n.
    #[arg(long, value_delimiter = ',', value_parser = parse_sizes,
          required_unless_present = "tree", conflicts_with = "tree")]
    nodes: Vec<Sizes>,
    /// A tree file instead of a topology (Newick, NEXUS, Matrix Market, parent array); repeat
    /// it for several, and the exponent is fitted across them.
    #[arg(long, value_name = "FILE")]
    tree: Vec<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    /// Linear orders, comma-separated: breadth-first, depth-first (natural child order),
    /// light-first, heavy-first.
    #[arg(long, value_delimiter = ',', default_value = "light-first")]
    order: Vec<LinearOrder>,
    /// Space-filling curves, comma-separated: row-major, z, hilbert, peano.
    #[arg(long, value_delimiter = ',', default_value = "hilbert")]
    curve: Vec<Curve>,
    #[command(flatten)]
    ops: OpsArgs,
    /// Weights of the lost bits: gensum, uniform, normal, lognormal, integers, ones, or file
    /// (the tree file's own).
    #[arg(long, default_value = "gensum")]
    weights: WeightChoice,
    /// Target condition number (gensum weights).
    #[arg(long, default_value = "1e5", value_parser = parse_single_cond, allow_hyphen_values = true)]
    cond: f64,
    /// Seed of the portable generator (ChaCha20): the trees, the weights and random LCA
    /// queries.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Batched LCA on these queries: a file of vertex pairs, one `u,v` per line (ids as the
    /// tree numbers them); one tree only. The answers go to --lca-out.
    #[arg(
        long,
        value_name = "QUERIES",
        conflicts_with = "lca_random",
        requires = "lca_out"
    )]
    lca: Option<PathBuf>,
    /// Batched LCA on K pairs of vertices drawn at random (from --seed); one tree only.
    #[arg(long, value_name = "K", value_parser = parse_queries, requires = "lca_out")]
    lca_random: Option<usize>,
    /// Where batched LCA's answers go: CSV `u,v,lca`, one line per query in the order given.
    #[arg(long, value_name = "FILE")]
    lca_out: Option<PathBuf>,
    /// The time estimate's T_R: cycles from a processor onto its router (and back off);
    /// T = max(C, E/N + L) + (2·T_R + 1)·D (docs/design.md §12.10).
    #[arg(long, value_name = "CYCLES", default_value_t = TimeModel::default().ramp_latency)]
    ramp_latency: f64,
    /// The time estimate's N, as the share (0 to 1] of the grid's links between processors
    /// that hold a vertex that carry words at once.
    #[arg(long, value_name = "SHARE", default_value_t = TimeModel::default().active_links)]
    active_links: f64,
    /// Write every measurement as JSON: per layout and pattern, energy and depth at each n and
    /// the fitted exponent. FILE.partial keeps the trees finished so far: the same command,
    /// rerun after an interruption, resumes after them.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a self-contained HTML page: energy per vertex and depth against n on log–log
    /// axes, one line per layout, the table and the answer.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// A bench.csv (`accuracy bench --out DIR`) whose GPU kernel times the answer gives beside
    /// energy and depth (without it: the CPU twins' times of this run, said so).
    #[arg(long, value_name = "FILE")]
    bench: Option<PathBuf>,
}

/// One element of `--nodes`: a size, or a range of powers of two.
#[derive(Debug, Clone)]
pub struct Sizes(Vec<usize>);

/// `--nodes`' parser: `N` or `2^A..2^B`.
fn parse_sizes(s: &str) -> Result<Sizes, String> {
    let s = s.trim();
    let Some((a, b)) = s.split_once("..") else {
        return Ok(Sizes(vec![super::parse_count(s)? as usize]));
    };
    let (a, b) = (super::parse_count(a)?, super::parse_count(b)?);
    if !a.is_power_of_two() || !b.is_power_of_two() || a > b {
        return Err(format!(
            "invalid range '{s}': expected powers of two, the smaller first (2^10..2^22)"
        ));
    }
    Ok(Sizes(
        (a.trailing_zeros()..=b.trailing_zeros())
            .map(|k| 1usize << k)
            .collect(),
    ))
}

/// `--lca-random`'s parser: 1 to [`treefix_accuracy::spatial::queries::MAX_QUERIES`].
fn parse_queries(s: &str) -> Result<usize, String> {
    let k = super::parse_len(s)?;
    let max = treefix_accuracy::spatial::queries::MAX_QUERIES as u64;
    match (1..=max).contains(&k) {
        true => Ok(k as usize),
        false => Err(format!("invalid query count '{s}': expected 1 to {max}")),
    }
}

/// The outputs, as (flag, path).
fn outputs(a: &SpatialArgs) -> Vec<(&'static str, PathBuf)> {
    let checkpoint = a.json.as_deref().map(checkpoint::path_of);
    [
        ("--json", a.json.clone()),
        ("--html", a.html.clone()),
        ("--lca-out", a.lca_out.clone()),
        ("--json's checkpoint", checkpoint),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.map(|p| (flag, p)))
    .collect()
}

/// Refuses outputs that would replace an input or each other.
fn check_outputs(a: &SpatialArgs) -> Result<(), Error> {
    let inputs: Vec<(&str, &std::path::Path)> = a
        .tree
        .iter()
        .map(|t| ("a tree file of --tree", t.as_path()))
        .chain(
            a.bench
                .iter()
                .map(|b| ("the bench.csv of --bench", b.as_path())),
        )
        .chain(a.lca.iter().map(|q| ("the queries of --lca", q.as_path())))
        .collect();
    let outs = outputs(a);
    let files: Vec<(&str, Option<&std::path::Path>)> =
        outs.iter().map(|(f, p)| (*f, Some(p.as_path()))).collect();
    output::check_outputs(&output::given_files(&files), &inputs)
}

/// The parameters of the measurement.
fn params(a: &SpatialArgs) -> Result<Params, Error> {
    let source = match a.topology {
        Some(topology) => Source::Generated {
            topology,
            sizes: a.nodes.iter().flat_map(|s| s.0.iter().copied()).collect(),
        },
        None => Source::Files {
            paths: a.tree.clone(),
            read: a.read.options(),
        },
    };
    let queries = match (&a.lca, a.lca_random) {
        (Some(f), _) => Some(QuerySpec::File(f.clone())),
        (None, Some(k)) => Some(QuerySpec::Random(k)),
        (None, None) => None,
    };
    if queries.is_some() {
        if treefix_accuracy::spatial::tree_count(&source) != 1 {
            return Err(Error::Usage(
                "--lca and --lca-random answer queries on one tree: give one size or one --tree"
                    .into(),
            ));
        }
        if !a.order.iter().any(|o| o.is_preorder()) {
            return Err(Error::Usage(
                "batched LCA needs a preorder layout: add --order light-first (or depth-first, heavy-first)"
                    .into(),
            ));
        }
    }
    let time_model = TimeModel {
        ramp_latency: a.ramp_latency,
        active_links: a.active_links,
    };
    time_model.check().map_err(Error::Usage)?;
    Ok(Params {
        source,
        orders: dedup(&a.order),
        curves: dedup(&a.curve),
        ops: dedup(&a.ops.ops),
        weights: a.weights,
        cond: a.cond,
        seed: a.seed,
        bench: a
            .bench
            .as_deref()
            .map(reports::data::read_bench)
            .transpose()?,
        // Queries are answered on one tree: once it is counted there is nothing to resume.
        checkpoint: match queries {
            None => a.json.as_deref().map(checkpoint::path_of),
            Some(_) => None,
        },
        time_model,
        queries,
    })
}

pub fn run(a: SpatialArgs) -> Result<(), Error> {
    check_outputs(&a)?;
    // One process per output: a second run on the same files is refused, not interleaved.
    let _locks = outputs(&a)
        .iter()
        .filter(|(flag, _)| !flag.ends_with("checkpoint"))
        .map(|(_, p)| FileLock::acquire(p, "spatial"))
        .collect::<Result<Vec<_>, _>>()?;
    let params = params(&a)?;
    let (curves, ops) = (params.curves.len(), params.ops.len());
    let preflight = |n: u64, name: &str, queries: u64| {
        allocator::preflight("spatial", &memory::estimate(n, name, curves, ops, queries))
    };
    // Generated trees are refused before the first is generated.
    if let (Some(t), Some(&n)) = (a.topology, a.nodes.iter().flat_map(|s| s.0.iter()).max()) {
        preflight(n as u64, &t.to_string(), a.lca_random.unwrap_or(0) as u64)?;
    }
    // The outputs are opened (as temporary files beside their names) before the measurement,
    // so that a directory that is missing or not writable is refused before a long sweep runs,
    // not after it.
    let json_out = a
        .json
        .as_deref()
        .map(output::OutputFile::create)
        .transpose()?;
    let html_out = a
        .html
        .as_deref()
        .map(output::OutputFile::create)
        .transpose()?;
    let measured = measure(&params, &|line| eprintln!("{line}"), &preflight)?;
    let mut record = measured.record;
    if let (Some(out), Some(lca)) = (&a.lca_out, &measured.lca) {
        let queries = &lca.queries;
        treefix_accuracy::spatial::queries::write_answers(out, queries, &lca.answers)?;
        record.lca_queries = Some(LcaQueriesRecord {
            source: params
                .queries
                .as_ref()
                .map_or(String::new(), |q| q.describe(a.seed)),
            queries: queries.len() as u64,
            answers: out.display().to_string(),
        });
    }
    // The files first: the tables may meet a closed pipe (`| head`).
    if let Some(mut f) = json_out {
        let path = f.path().to_path_buf();
        let json = serde_json::to_string_pretty(&record).map_err(Error::json(&path))?;
        f.write_all((json + "\n").as_bytes())
            .map_err(Error::write(&path))?;
        f.commit()?;
        // The measurement is in its file: nothing is left to resume.
        if let Some(c) = a.json.as_deref().map(checkpoint::path_of) {
            match std::fs::remove_file(&c) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::output(&c)(e));
                }
                _ => {}
            }
        }
    }
    if let Some(mut f) = html_out {
        let path = f.path().to_path_buf();
        let page = reports::spatial::render(&record)?;
        f.write_all(page.as_bytes()).map_err(Error::write(&path))?;
        f.commit()?;
    }
    print!("{}", table::table(&record, a.json.is_some()));
    print!("{}", table::answer_table(&record));
    if let Some(q) = &record.lca_queries {
        println!(
            "batched LCA: {} queries ({}) answered by the replay that counts its messages (the lca rows), written to {}",
            q.queries, q.source, q.answers
        );
    }
    eprintln!(
        "laid out and counted in {:.2} s, lost bits in {:.2} s (wall {:.2} s)",
        record.timings.count_s, record.timings.bits_s, record.timings.wall_s
    );
    for (flag, path) in [
        ("json", &a.json),
        ("html", &a.html),
        ("lca-out", &a.lca_out),
    ] {
        if let Some(p) = path {
            eprintln!("wrote {} ({flag})", p.display());
        }
    }
    Ok(())
}

fn dedup<T: PartialEq + Copy>(items: &[T]) -> Vec<T> {
    let mut out = Vec::new();
    for &x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let one = |s| parse_sizes(s).map(|s| s.0);
        assert_eq!(one("1000").unwrap(), [1000]);
        assert_eq!(one("1e6").unwrap(), [1_000_000]);
        assert_eq!(one("2^20").unwrap(), [1 << 20]);
        assert_eq!(one("2^2..2^5").unwrap(), [4, 8, 16, 32]);
        for bad in [
            "0", "-3", "1.5e3x", "1e40", "2^32", "2^5..2^2", "3..8", "abc", "1.5",
        ] {
            assert!(one(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_queries("1e6").unwrap(), 1_000_000);
        assert!(parse_queries("0").is_err() && parse_queries("2^40").is_err());
    }
}
