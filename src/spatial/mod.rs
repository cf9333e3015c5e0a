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

use crate::Error;
use crate::experiment::{self, Cpu, InstanceSpec};
use crate::inputs::{self, WeightChoice};
use analysis::records::bench::BenchRecord;
use analysis::records::spatial::{
    FORMAT_VERSION, LayoutRecord, PatternRecord, PointRecord, SpatialRecord, Timings, TreeRecord,
};
use analysis::spatial::{ALGORITHMS, Curve, Laid, LinearOrder, Pattern, Placement, count, fit};
use analysis::{Algorithm, Op, ReferenceKind};
use generators::fixed::Scale;
use generators::io::ReadOptions;
use generators::{ChildOrder, Topology, Tree};
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
}

impl Params {
    /// What the measurement is, for its checkpoint: a rerun resumes only the same one.
    fn key(&self) -> String {
        format!(
            "{} {:?} {:?} {:?} {:?} {} {} {}",
            env!("CARGO_PKG_VERSION"),
            self.source,
            self.orders,
            self.curves,
            self.ops,
            self.weights,
            self.cond,
            self.seed
        )
    }
}

/// One tree to lay out, with its weights.
struct Subject {
    name: String,
    sha256: Option<String>,
    tree: Tree,
    weights: Vec<f32>,
}

fn subject(p: &Params, index: usize) -> Result<Subject, Error> {
    match &p.source {
        Source::Generated { topology, sizes } => {
            let WeightChoice::Model(weights) = p.weights else {
                return Err(Error::Usage(
                    "--weights file needs tree files (--tree FILE)".into(),
                ));
            };
            let instance = InstanceSpec {
                topology: *topology,
                n: sizes[index],
                weights,
                target_cond: p.cond,
                child_order: ChildOrder::Natural,
                seed: p.seed,
            }
            .generate()?;
            Ok(Subject {
                name: topology.to_string(),
                sha256: None,
                tree: instance.tree,
                weights: instance.weights,
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
                weights,
            })
        }
    }
}

/// The number of trees of a source.
fn tree_count(source: &Source) -> usize {
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

/// Lays out and counts every tree of `p`, with lost bits; `progress` gets a line per tree.
pub fn measure(p: &Params, progress: &dyn Fn(&str)) -> Result<SpatialRecord, Error> {
    let wall = Instant::now();
    let patterns = Pattern::all(&p.ops);
    let mut layouts: Vec<LayoutRecord> = p
        .orders
        .iter()
        .flat_map(|&order| {
            p.curves.iter().map(move |&curve| LayoutRecord {
                order,
                curve,
                patterns: Vec::new(),
            })
        })
        .collect();
    for l in &mut layouts {
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
    }
    let (mut count_s, mut bits_s) = (0.0, 0.0);
    let mut trees = Vec::new();
    // The CPU twins' seconds per vertex on the last tree (the fastest of its layouts).
    let mut twin_s: HashMap<(String, Op), f64> = HashMap::new();
    let key = p.key();
    if let Some(path) = &p.checkpoint
        && let Some(c) = checkpoint::load(path, &key)?
    {
        progress(&format!(
            "resuming after {} of {} trees, from {}",
            c.trees.len(),
            tree_count(&p.source),
            path.display()
        ));
        (trees, layouts, count_s, bits_s) = (c.trees, c.layouts, c.count_s, c.bits_s);
        twin_s = c
            .twin_s
            .into_iter()
            .map(|(a, op, t)| ((a, op), t))
            .collect();
        // A tree file changed since it was counted is not the tree counted.
        if matches!(p.source, Source::Files { .. }) {
            for (index, done) in trees.iter().enumerate() {
                if subject(p, index)?.sha256 != done.sha256 {
                    return Err(Error::Usage(format!(
                        "{}: {} has changed since it was counted; remove the checkpoint to start again",
                        path.display(),
                        done.name
                    )));
                }
            }
        }
    }
    for index in trees.len()..tree_count(&p.source) {
        twin_s.clear();
        let s = subject(p, index)?;
        let n = s.tree.len();
        let limbs = Scale::for_weights(&s.weights).map_or(1, |e| e.gpu_words() as u32);
        let t0 = Instant::now();
        let placements = p
            .curves
            .iter()
            .map(|&c| Placement::new(c, n))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::Usage(format!("{} n={n}: {e}", s.name)))?;
        let mut tree_count_s = t0.elapsed().as_secs_f64();
        let mut tree_bits_s = 0.0;
        for (oi, &order) in p.orders.iter().enumerate() {
            let t1 = Instant::now();
            let laid = Laid::new(&s.tree, order);
            tree_count_s += t1.elapsed().as_secs_f64();
            let t2 = Instant::now();
            let weights = laid.layout.by_position(&s.weights);
            let bits = lost_bits(&laid.tree, &weights, &p.ops)?;
            tree_bits_s += t2.elapsed().as_secs_f64();
            for (&(a, op), &(_, seconds)) in &bits {
                let t = twin_s
                    .entry((a.name().to_string(), op))
                    .or_insert(f64::INFINITY);
                *t = t.min(seconds / n as f64);
            }
            let t3 = Instant::now();
            let counted = count(&laid, &placements, &p.ops, limbs);
            drop(laid);
            for (ci, _) in p.curves.iter().enumerate() {
                let record = &mut layouts[oi * p.curves.len() + ci];
                for (k, c) in counted.iter().enumerate() {
                    let pr = &mut record.patterns[k];
                    match &c.cost {
                        Ok(cost) => pr.points.push(PointRecord {
                            n: n as u64,
                            energy: cost.energy[ci],
                            energy_per_vertex: cost.energy[ci] as f64 / n as f64,
                            depth: cost.depth,
                            messages: cost.messages,
                            lost_bits: match c.pattern {
                                Pattern::Treefix(a, op) => bits.get(&(a, op)).map(|b| b.0),
                                _ => None,
                            },
                        }),
                        Err(why) => pr.not_applicable = Some(why.clone()),
                    }
                }
            }
            tree_count_s += t3.elapsed().as_secs_f64();
        }
        count_s += tree_count_s;
        bits_s += tree_bits_s;
        progress(&format!(
            "{} n={n}: {} layout(s) counted in {tree_count_s:.2} s, lost bits in {tree_bits_s:.2} s",
            s.name,
            layouts.len()
        ));
        trees.push(TreeRecord {
            name: s.name,
            n: n as u64,
            height: s.tree.height(),
            max_degree: s.tree.max_out_degree(),
            sha256: s.sha256,
            limbs,
            sides: placements.iter().map(|pl| pl.grid().side()).collect(),
            curves: p.curves.clone(),
        });
        if let Some(path) = &p.checkpoint {
            checkpoint::save(
                path,
                &checkpoint::Checkpoint {
                    key: key.clone(),
                    trees: trees.clone(),
                    layouts: layouts.clone(),
                    twin_s: {
                        let mut t: Vec<_> = twin_s
                            .iter()
                            .map(|((a, op), &t)| (a.clone(), *op, t))
                            .collect();
                        t.sort_by(|x, y| (&x.0, x.1.name()).cmp(&(&y.0, y.1.name())));
                        t
                    },
                    count_s,
                    bits_s,
                },
            )?;
        }
    }
    for l in &mut layouts {
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
    let answer = analysis::spatial::answer::answer(&layouts, &p.ops, &twin_s, p.bench.as_deref());
    Ok(SpatialRecord {
        format_version: FORMAT_VERSION,
        tool: "treefix-accuracy".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        weights: p.weights.to_string(),
        target_cond: p.cond,
        seed: p.seed,
        ops: p.ops.clone(),
        trees,
        layouts,
        answer,
        timings: Timings {
            count_s,
            bits_s,
            wall_s: wall.elapsed().as_secs_f64(),
        },
    })
}
