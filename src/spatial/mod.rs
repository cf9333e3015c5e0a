//! `accuracy spatial`'s measurement (docs/design.md §12): trees laid out on a spatial computer
//! by every requested order and curve, every message pattern counted, and each algorithm's
//! lost bits from its own evaluation of the same tree and weights.
//!
//! Each layout counts the tree renamed by position (`analysis::spatial::Laid`): vertex i on
//! processor i, its children in the layout's sibling order (`LinearOrder::child_order`), so
//! the algorithms' Euler tour, their messages and their rounding are those of that child
//! order. Each layout's lost bits are evaluated on that same renamed tree with the same
//! weights, by the evaluation path of `run` ([`crate::experiment::evaluate_summaries`], exact
//! reference, CPU twins): every algorithm's results are those of `run --child-order` on the
//! original names but contraction's, whose random-mate coins are dealt in the order of the
//! names.

pub mod checkpoint;
pub mod memory;
pub mod queries;

use crate::Error;
use crate::experiment::{self, Cpu, InstanceSpec};
use crate::inputs::{self, WeightChoice};
use analysis::records::bench::BenchRecord;
use analysis::records::spatial::{
    FORMAT_VERSION, LayoutRecord, PatternRecord, PointRecord, SpatialRecord, TimeModelRecord,
    Timings, TreeRecord,
};
use analysis::spatial::{
    ALGORITHMS, Cost, Counted, Curve, Laid, LinearOrder, Pattern, Placement, TimeModel, count, fit,
};
use analysis::{Algorithm, Op, ReferenceKind};
use generators::fixed::Scale;
use generators::io::ReadOptions;
use generators::{ChildOrder, NO_PARENT, Topology, Tree};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

/// The trees: a topology at several sizes, or tree files.
#[derive(Debug, Clone)]
pub enum Source {
    Generated {
        topology: Topology,
        sizes: Vec<usize>,
    },
    Files {
        paths: Vec<PathBuf>,
        read: ReadOptions,
    },
}

/// Batched LCA's queries on the (one) tree: a file of vertex pairs ([`queries::read`]), or
/// K pairs drawn at random ([`queries::random`], from the run's seed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuerySpec {
    File(PathBuf),
    Random(usize),
}

impl QuerySpec {
    /// "q.csv", "random 1000 (seed 1)".
    pub fn describe(&self, seed: u64) -> String {
        match self {
            QuerySpec::File(p) => p.display().to_string(),
            QuerySpec::Random(k) => format!("random {k} (seed {seed})"),
        }
    }

    /// The pairs on a tree of `n` vertices.
    fn pairs(&self, n: usize, seed: u64) -> Result<Vec<(u32, u32)>, Error> {
        match self {
            QuerySpec::File(p) => queries::read(p, n),
            QuerySpec::Random(k) => Ok(queries::random(n, *k, seed)),
        }
    }
}

/// What `accuracy spatial` measures.
#[derive(Debug, Clone)]
pub struct Params {
    pub source: Source,
    pub orders: Vec<LinearOrder>,
    pub curves: Vec<Curve>,
    pub ops: Vec<Op>,
    pub weights: WeightChoice,
    pub cond: f64,
    pub seed: u64,
    /// A bench.csv's records (`accuracy bench`): the answer's GPU kernel times.
    pub bench: Option<Vec<BenchRecord>>,
    /// Where the trees finished so far are kept, and resumed from ([`checkpoint`]).
    pub checkpoint: Option<PathBuf>,
    /// The parameters of the time estimate.
    pub time_model: TimeModel,
    /// Queries for batched LCA (one tree only).
    pub queries: Option<QuerySpec>,
}

impl Params {
    /// What the measurement is, for its checkpoint: a rerun resumes only the same one.
    fn key(&self) -> String {
        format!(
            "{} format {FORMAT_VERSION} {:?} {:?} {:?} {:?} {} {} {} {:?}",
            env!("CARGO_PKG_VERSION"),
            self.source,
            self.orders,
            self.curves,
            self.ops,
            self.weights,
            self.cond,
            self.seed,
            self.time_model,
        )
    }
}

/// Batched LCA's queries (vertex pairs) and their answers, in the same order.
pub struct Answered {
    pub queries: Vec<(u32, u32)>,
    pub answers: Vec<u32>,
}

/// What [`measure`] gives: the record, and batched LCA's answers to the queries (vertices of
/// the tree), the same on every preorder layout.
pub struct Measured {
    pub record: SpatialRecord,
    pub lca: Option<Answered>,
}

/// The memory check `measure` runs once a tree's size (and its queries') is known: `Err`
/// refuses the run before the tree is laid out.
pub type Preflight<'a> = &'a dyn Fn(u64, &str, u64) -> Result<(), Error>;

/// One tree to lay out, with its weights (none where the weight model cannot make them for
/// so few vertices: the counts do not need them).
struct Subject {
    name: String,
    sha256: Option<String>,
    tree: Tree,
    weights: Option<Vec<f32>>,
}

fn subject(p: &Params, index: usize) -> Result<Subject, Error> {
    match &p.source {
        Source::Generated { topology, sizes } => {
            let WeightChoice::Model(weights) = p.weights else {
                return Err(Error::Usage(
                    "--weights file needs tree files (--tree FILE)".into(),
                ));
            };
            let n = sizes[index];
            let spec = InstanceSpec {
                topology: *topology,
                n,
                weights,
                target_cond: p.cond,
                child_order: ChildOrder::Natural,
                seed: p.seed,
            };
            let (tree, weights) = match spec.generate() {
                Ok(instance) => (instance.tree, Some(instance.weights)),
                // One vertex: every topology is a root alone.
                Err(Error::Generate(_)) if n < 2 => (
                    Tree::from_parents(vec![NO_PARENT; n.min(1)], ChildOrder::Natural)?,
                    None,
                ),
                Err(e) => return Err(e),
            };
            Ok(Subject {
                name: topology.to_string(),
                sha256: None,
                tree,
                weights,
            })
        }
        Source::Files { paths, read } => {
            let file = inputs::load(&paths[index], read, None)?;
            let tree = file.tree(ChildOrder::Natural);
            let weights = match p.weights {
                WeightChoice::File => file.own_weights()?.to_vec(),
                WeightChoice::Model(m) => {
                    file.model_weights(m, tree.len(), p.cond, &mut generators::rng(p.seed))?
                }
            };
            Ok(Subject {
                name: file.name(),
                sha256: Some(file.input.sha256.clone()),
                tree,
                weights: Some(weights),
            })
        }
    }
}

/// The number of trees of a source.
pub fn tree_count(source: &Source) -> usize {
    match source {
        Source::Generated { sizes, .. } => sizes.len(),
        Source::Files { paths, .. } => paths.len(),
    }
}

/// Per (algorithm, op): the largest lost bits and the CPU twin's seconds.
type BitsAndTime = HashMap<(Algorithm, Op), (f64, f64)>;

/// Each algorithm's largest lost bits per op on `tree` (in its child order), and its CPU
/// twin's seconds.
fn lost_bits(tree: &Tree, w: &[f32], ops: &[Op]) -> Result<BitsAndTime, Error> {
    Ok(
        experiment::evaluate_summaries(tree, w, ops, &ALGORITHMS, ReferenceKind::Exact, &Cpu)?
            .iter()
            .map(|m| ((m.algorithm, m.op), (m.summary.max_lost_bits, m.compute_s)))
            .collect(),
    )
}

/// Every layout's records, with no point yet.
fn empty_layouts(p: &Params) -> Vec<LayoutRecord> {
    let patterns = Pattern::all(&p.ops);
    p.orders
        .iter()
        .flat_map(|&order| {
            p.curves.iter().map(move |&curve| LayoutRecord {
                order,
                curve,
                patterns: Vec::new(),
            })
        })
        .map(|mut l| {
            l.patterns = patterns
                .iter()
                .map(|pat| PatternRecord {
                    pattern: pat.name().to_string(),
                    op: pat.op(),
                    points: Vec::new(),
                    exponent: None,
                    r2: None,
                    not_applicable: None,
                })
                .collect();
            l
        })
        .collect()
}

/// One pattern's point on placement `ci` of `links` directed links.
fn point(
    c: &Cost,
    ci: usize,
    n: usize,
    links: u64,
    model: &TimeModel,
    bits: Option<f64>,
) -> PointRecord {
    PointRecord {
        n: n as u64,
        energy: c.energy[ci],
        energy_per_vertex: c.energy[ci] as f64 / n as f64,
        depth: c.depth,
        chain_depth: c.chain_depth,
        congestion: c.congestion,
        contention: c.contention(),
        longest: c.longest()[ci],
        cycles: model.cycles(c, &vec![links; c.energy.len()])[ci],
        messages: c.messages,
        lost_bits: bits,
    }
}

/// The state `measure` carries from tree to tree.
struct Progress {
    trees: Vec<TreeRecord>,
    layouts: Vec<LayoutRecord>,
    /// The CPU twins' seconds per vertex on the last tree (the fastest of its layouts).
    twin_s: HashMap<(String, Op), f64>,
    count_s: f64,
    bits_s: f64,
    queries: Vec<(u32, u32)>,
    answers: Option<Vec<u32>>,
}

/// Lays out, counts and evaluates tree `index` into `st`.
fn measure_tree(
    p: &Params,
    index: usize,
    st: &mut Progress,
    preflight: Preflight,
) -> Result<String, Error> {
    st.twin_s.clear();
    let s = subject(p, index)?;
    let n = s.tree.len();
    if let Some(q) = &p.queries {
        st.queries = q.pairs(n, p.seed)?;
    }
    preflight(n as u64, &s.name, st.queries.len() as u64)?;
    let limbs = s
        .weights
        .as_deref()
        .and_then(Scale::for_weights)
        .map_or(1, |e| e.gpu_words() as u32);
    let t0 = Instant::now();
    let placements = p
        .curves
        .iter()
        .map(|&c| Placement::new(c, n))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Usage(format!("{} n={n}: {e}", s.name)))?;
    let links: Vec<u64> = placements.iter().map(Placement::links).collect();
    let mut tree_count_s = t0.elapsed().as_secs_f64();
    let mut tree_bits_s = 0.0;
    let queries = std::mem::take(&mut st.queries);
    for (oi, &order) in p.orders.iter().enumerate() {
        let t1 = Instant::now();
        let laid = Laid::new(&s.tree, order);
        tree_count_s += t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let bits = match &s.weights {
            Some(w) => lost_bits(&laid.tree, &laid.layout.by_position(w), &p.ops)?,
            None => BitsAndTime::new(),
        };
        tree_bits_s += t2.elapsed().as_secs_f64();
        for (&(a, op), &(_, seconds)) in &bits {
            let t = st
                .twin_s
                .entry((a.name().to_string(), op))
                .or_insert(f64::INFINITY);
            *t = t.min(seconds / n as f64);
        }
        let t3 = Instant::now();
        let (counted, answers) = count(&laid, &placements, &p.ops, limbs, &queries);
        drop(laid);
        if p.queries.is_some()
            && let Ok(a) = answers
        {
            check_answers(&mut st.answers, a, order)?;
        }
        for (ci, _) in p.curves.iter().enumerate() {
            let record = &mut st.layouts[oi * p.curves.len() + ci];
            record_points(record, &counted, ci, n, links[ci], &p.time_model, &bits);
        }
        tree_count_s += t3.elapsed().as_secs_f64();
    }
    st.queries = queries;
    st.count_s += tree_count_s;
    st.bits_s += tree_bits_s;
    let note = match s.weights {
        Some(_) => String::new(),
        None => format!(
            " (no {} weights for {n} vertex: lost bits not measured)",
            p.weights
        ),
    };
    st.trees.push(TreeRecord {
        name: s.name.clone(),
        n: n as u64,
        height: s.tree.height(),
        max_degree: s.tree.max_out_degree(),
        sha256: s.sha256,
        limbs,
        sides: placements.iter().map(|pl| pl.grid().side()).collect(),
        links,
        curves: p.curves.clone(),
    });
    Ok(format!(
        "{} n={n}: {} layout(s) counted in {tree_count_s:.2} s, lost bits in {tree_bits_s:.2} s{note}",
        s.name,
        st.layouts.len()
    ))
}

/// Every preorder layout's replay answers the queries alike (LCA does not depend on the
/// layout): the first kept, any other refused as the bug it would be.
fn check_answers(
    kept: &mut Option<Vec<u32>>,
    a: Vec<u32>,
    order: LinearOrder,
) -> Result<(), Error> {
    if a.contains(&NO_PARENT) {
        return Err(Error::Internal(format!(
            "batched LCA left a query unanswered on the {order} layout"
        )));
    }
    match kept {
        Some(k) if *k != a => Err(Error::Internal(format!(
            "batched LCA's answers on the {order} layout differ from another layout's"
        ))),
        Some(_) => Ok(()),
        None => {
            *kept = Some(a);
            Ok(())
        }
    }
}

/// Adds the points of one tree on placement `ci` to a layout's records.
fn record_points(
    record: &mut LayoutRecord,
    counted: &[Counted],
    ci: usize,
    n: usize,
    links: u64,
    model: &TimeModel,
    bits: &BitsAndTime,
) {
    for (k, c) in counted.iter().enumerate() {
        let pr = &mut record.patterns[k];
        match &c.cost {
            Ok(cost) => {
                let b = match c.pattern {
                    Pattern::Treefix(a, op) => bits.get(&(a, op)).map(|b| b.0),
                    _ => None,
                };
                pr.points.push(point(cost, ci, n, links, model, b));
            }
            Err(why) => pr.not_applicable = Some(why.clone()),
        }
    }
}

/// Lays out and counts every tree of `p`, with lost bits; `progress` gets a line per tree, and
/// `preflight` each tree's size first.
pub fn measure(
    p: &Params,
    progress: &dyn Fn(&str),
    preflight: Preflight,
) -> Result<Measured, Error> {
    let wall = Instant::now();
    let mut st = Progress {
        trees: Vec::new(),
        layouts: empty_layouts(p),
        twin_s: HashMap::new(),
        count_s: 0.0,
        bits_s: 0.0,
        queries: Vec::new(),
        answers: None,
    };
    let key = p.key();
    if let Some(path) = &p.checkpoint {
        resume(p, path, &key, &mut st, progress)?;
    }
    for index in st.trees.len()..tree_count(&p.source) {
        let line = measure_tree(p, index, &mut st, preflight)?;
        progress(&line);
        if let Some(path) = &p.checkpoint {
            save(path, &key, &st)?;
        }
    }
    for l in &mut st.layouts {
        for pr in &mut l.patterns {
            let pts: Vec<(f64, f64)> = pr
                .points
                .iter()
                .map(|q| (q.n as f64, q.energy as f64))
                .collect();
            if let Some((b, r2)) = fit::exponent(&pts) {
                pr.exponent = Some(b);
                pr.r2 = Some(r2);
            }
        }
    }
    let answer = analysis::records::spatial_answer::answer(
        &st.layouts,
        &p.ops,
        &st.twin_s,
        p.bench.as_deref(),
    );
    let record = SpatialRecord {
        format_version: FORMAT_VERSION,
        tool: "treefix-accuracy".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        weights: p.weights.to_string(),
        target_cond: p.cond,
        seed: p.seed,
        ops: p.ops.clone(),
        trees: st.trees,
        time_model: TimeModelRecord {
            ramp_latency: p.time_model.ramp_latency,
            active_links: p.time_model.active_links,
        },
        layouts: st.layouts,
        lca_queries: None,
        answer,
        timings: Timings {
            count_s: st.count_s,
            bits_s: st.bits_s,
            wall_s: wall.elapsed().as_secs_f64(),
        },
    };
    let lca = match (&p.queries, st.answers) {
        (Some(_), Some(answers)) => Some(Answered {
            queries: st.queries,
            answers,
        }),
        _ => None,
    };
    Ok(Measured { record, lca })
}

/// Resumes from the checkpoint at `path`, if there is one of this measurement.
fn resume(
    p: &Params,
    path: &std::path::Path,
    key: &str,
    st: &mut Progress,
    progress: &dyn Fn(&str),
) -> Result<(), Error> {
    let Some(c) = checkpoint::load(path, key)? else {
        return Ok(());
    };
    progress(&format!(
        "resuming after {} of {} trees, from {}",
        c.trees.len(),
        tree_count(&p.source),
        path.display()
    ));
    (st.trees, st.layouts, st.count_s, st.bits_s) = (c.trees, c.layouts, c.count_s, c.bits_s);
    st.twin_s = c
        .twin_s
        .into_iter()
        .map(|(a, op, t)| ((a, op), t))
        .collect();
    // A tree file changed since it was counted is not the tree counted.
    if matches!(p.source, Source::Files { .. }) {
        for (index, done) in st.trees.iter().enumerate() {
            if subject(p, index)?.sha256 != done.sha256 {
                return Err(Error::Usage(format!(
                    "{}: {} has changed since it was counted; remove the checkpoint to start again",
                    path.display(),
                    done.name
                )));
            }
        }
    }
    Ok(())
}

/// Keeps the trees finished so far at `path`.
fn save(path: &std::path::Path, key: &str, st: &Progress) -> Result<(), Error> {
    let mut twin_s: Vec<_> = st
        .twin_s
        .iter()
        .map(|((a, op), &t)| (a.clone(), *op, t))
        .collect();
    twin_s.sort_by(|x, y| (&x.0, x.1.name()).cmp(&(&y.0, y.1.name())));
    checkpoint::save(
        path,
        &checkpoint::Checkpoint {
            key: key.to_string(),
            trees: st.trees.clone(),
            layouts: st.layouts.clone(),
            twin_s,
            count_s: st.count_s,
            bits_s: st.bits_s,
        },
    )
}
