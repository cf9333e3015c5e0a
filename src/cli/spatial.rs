//! `accuracy spatial`: a tree laid out on a spatial computer (seed 002; docs/design.md §12) —
//! per layout (linear order × space-filling curve) and message pattern, the energy, the energy
//! per vertex, the depth and the algorithm's lost bits; over several sizes, the fitted exponent
//! of energy against n.

use super::{OpsArgs, ReadArgs, parse_single_cond};
use analysis::records::spatial::SpatialRecord;
use analysis::spatial::{Curve, LinearOrder};
use clap::Args;
use generators::Topology;
use std::io::Write;
use std::path::PathBuf;
use treefix_accuracy::inputs::WeightChoice;
use treefix_accuracy::spatial::{Params, Source, checkpoint, measure};
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
    /// Seed of the portable generator (ChaCha20): the trees and the weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write every measurement as JSON: per layout and pattern, energy and depth at each n and
    /// the fitted exponent. FILE.partial keeps the trees finished so far: the same command,
    /// rerun after an interruption, resumes after them.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a self-contained HTML page: energy per vertex against n on log–log axes, one
    /// line per layout, the table and the answer.
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

pub fn run(a: SpatialArgs) -> Result<(), Error> {
    let inputs: Vec<(&str, &std::path::Path)> = a
        .tree
        .iter()
        .map(|t| ("a tree file of --tree", t.as_path()))
        .chain(
            a.bench
                .iter()
                .map(|b| ("the bench.csv of --bench", b.as_path())),
        )
        .collect();
    let checkpoint = a.json.as_deref().map(checkpoint::path_of);
    for (flag, out) in [
        ("--json", &a.json),
        ("--html", &a.html),
        ("--json's checkpoint", &checkpoint),
    ] {
        if let Some(out) = out {
            output::refuse_overwriting_inputs((flag, out), &inputs)?;
        }
    }
    if let (Some(j), Some(h)) = (&a.json, &a.html)
        && (j == h || output::same_file(j, h))
    {
        return Err(Error::Usage(
            "--json and --html name the same file; choose two".into(),
        ));
    }
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
    let params = Params {
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
        checkpoint: checkpoint.clone(),
    };
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
    let record = measure(&params, &|line| eprintln!("{line}"))?;
    // The files first: the tables may meet a closed pipe (`| head`).
    if let Some(mut f) = json_out {
        let path = f.path().to_path_buf();
        let json = serde_json::to_string_pretty(&record).map_err(Error::json(&path))?;
        f.write_all((json + "\n").as_bytes())
            .map_err(Error::write(&path))?;
        f.commit()?;
        // The measurement is in its file: nothing is left to resume.
        if let Some(c) = &checkpoint {
            match std::fs::remove_file(c) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::output(c)(e));
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
    print!("{}", table(&record));
    print!("{}", answer_table(&record));
    eprintln!(
        "laid out and counted in {:.2} s, lost bits in {:.2} s (wall {:.2} s)",
        record.timings.count_s, record.timings.bits_s, record.timings.wall_s
    );
    for (flag, path) in [("json", &a.json), ("html", &a.html)] {
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

/// Lost bits as printed: `–` where the pattern is no algorithm.
fn bits(b: Option<f64>) -> String {
    b.map_or("–".into(), |b| format!("{b:.2}"))
}

/// The printed table: one tree, every point; several, the first and last E/n, the exponent,
/// and the depth and lost bits at the largest.
pub fn table(r: &SpatialRecord) -> String {
    let mut s = String::new();
    let same = r.trees.iter().all(|t| t.name == r.trees[0].name);
    match (&r.trees[..], same) {
        ([t], _) => {
            let sides: Vec<String> = t
                .curves
                .iter()
                .zip(&t.sides)
                .map(|(c, side)| format!("{c} {side}×{side}"))
                .collect();
            s += &format!(
                "{} n={} height={} max degree={} weights={} seed={} vectorial-exact limbs={} grid: {}\n",
                t.name,
                t.n,
                t.height,
                t.max_degree,
                r.weights,
                r.seed,
                t.limbs,
                sides.join(", ")
            );
        }
        (trees, true) => {
            let sizes: Vec<String> = trees.iter().map(|t| t.n.to_string()).collect();
            s += &format!(
                "{} n={} weights={} seed={}\n",
                trees[0].name,
                sizes.join(","),
                r.weights,
                r.seed
            );
        }
        (trees, false) => {
            let all: Vec<String> = trees
                .iter()
                .map(|t| format!("{} n={}", t.name, t.n))
                .collect();
            s += &format!("{} weights={} seed={}\n", all.join(", "), r.weights, r.seed);
        }
    }
    let one = r.trees.len() == 1;
    if one {
        s += &format!(
            "{:<13} {:<9} {:<30} {:>14} {:>9} {:>7} {:>9}\n",
            "order", "curve", "pattern", "energy", "E/n", "depth", "lost bits"
        );
    } else {
        let (first, last) = (r.trees[0].n, r.trees[r.trees.len() - 1].n);
        s += &format!(
            "{:<13} {:<9} {:<30} {:>11} {:>11} {:>8} {:>9} {:>9}\n",
            "order",
            "curve",
            "pattern",
            format!("E/n@{first}"),
            format!("E/n@{last}"),
            "exponent",
            "depth@max",
            "bits@max"
        );
    }
    for l in &r.layouts {
        for p in &l.patterns {
            let label = p.label();
            let (order, curve) = (l.order.name(), l.curve.name());
            if let Some(why) = &p.not_applicable {
                let short = why.split(';').next().unwrap_or(why);
                s += &format!("{order:<13} {curve:<9} {label:<30} not applicable: {short}\n");
                continue;
            }
            if one {
                let q = &p.points[0];
                s += &format!(
                    "{order:<13} {curve:<9} {label:<30} {:>14} {:>9.2} {:>7} {:>9}\n",
                    q.energy,
                    q.energy_per_vertex,
                    q.depth,
                    bits(q.lost_bits)
                );
            } else {
                let (a, b) = (&p.points[0], &p.points[p.points.len() - 1]);
                let exponent = p.exponent.map_or("–".into(), |e| format!("{e:.3}"));
                s += &format!(
                    "{order:<13} {curve:<9} {label:<30} {:>11.2} {:>11.2} {exponent:>8} {:>9} {:>9}\n",
                    a.energy_per_vertex,
                    b.energy_per_vertex,
                    b.depth,
                    bits(b.lost_bits)
                );
            }
        }
    }
    if !one {
        s += "exponent: least-squares slope of ln energy against ln n over every size (1: energy per vertex flat)\n";
    }
    s
}

/// The answer: per op and algorithm at the last tree, lost bits, time per vertex (and where
/// it was measured), energy per vertex and depth on its cheapest layout; then a sentence per op.
pub fn answer_table(r: &SpatialRecord) -> String {
    let Some(first) = r.answer.first() else {
        return String::new();
    };
    let mut s = format!(
        "answer at n={}: each algorithm's lost bits, time and, on its least-energy layout, energy and depth\n",
        first.n
    );
    s += &format!(
        "{:<8} {:<22} {:>9} {:>13} {:<11} {:>9} {:>7} {:>8}  {}\n",
        "op",
        "algorithm",
        "lost bits",
        "ns per vertex",
        "timed as",
        "E/n",
        "depth",
        "exponent",
        "layout"
    );
    for a in &r.answer {
        let ns = a
            .time_per_vertex_s
            .map_or("–".into(), |t| format!("{:.2}", t * 1e9));
        let place = if a.time_source.starts_with("GPU") {
            "GPU kernel"
        } else {
            "CPU twin"
        };
        s += &format!(
            "{:<8} {:<22} {:>9} {ns:>13} {place:<11} {:>9.2} {:>7} {:>8}  {} {}\n",
            a.op.name(),
            a.algorithm,
            bits(a.lost_bits),
            a.energy_per_vertex,
            a.depth,
            a.exponent.map_or("–".into(), |e| format!("{e:.3}")),
            a.order.name(),
            a.curve.name()
        );
    }
    if let Some(gpu) = r.answer.iter().find(|a| a.time_source.starts_with("GPU")) {
        s += &format!("GPU times: {}\n", gpu.time_source);
    } else {
        s += "times: CPU twins of this run, not GPU kernels (`--bench B/bench.csv` from `accuracy bench --out B` gives GPU prices)\n";
    }
    for line in analysis::spatial::answer::sentences(&r.answer, &r.ops) {
        s += &line;
        s += "\n";
    }
    s
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
    }
}
