//! What a sweep computes (`SweepParams`, saved as `DIR/sweep.json`) and the trees it consists
//! of (`Job`s, in the order their rows are written).

use super::locate::SweepFile;
use super::shard::Shard;
use crate::inputs::{LoadedTree, WeightChoice};
use crate::{Device, Error};
use analysis::{Algorithm, Op, ReferenceKind};
use generators::{ChildOrder, Topology};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What a sweep computes; saved as `DIR/sweep.json` and compared on resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepParams {
    pub targets: Vec<f64>,
    pub trees_per_target: usize,
    pub nodes: usize,
    /// Generated topologies (ignored when `files` is not empty).
    pub topologies: Vec<Topology>,
    pub weights: WeightChoice,
    pub ops: Vec<Op>,
    pub algos: Vec<Algorithm>,
    pub reference: ReferenceKind,
    /// Every tree is evaluated in each of these child orders (same shape, same weights).
    /// `child_order` in sweeps written before several orders could be compared.
    #[serde(alias = "child_order", deserialize_with = "one_or_many")]
    pub child_orders: Vec<ChildOrder>,
    pub seed: u64,
    /// Tree files (`--tree`), instead of generated topologies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<SweepFile>,
    /// The part of the sweep this directory holds (`--shard K/N`); absent: all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Where the algorithms with a GPU kernel run (`--backend`, `auto` as it resolved): it
    /// names the rows' `backend` and decides whether each tree is checked against its CPU
    /// twin, so a resumed sweep keeps it. Absent in sweeps recorded before it was kept: cpu.
    #[serde(default)]
    pub backend: Device,
    /// Where the exact reference is computed (`--exact-on`).
    #[serde(default)]
    pub exact_on: Device,
}

/// Where a job's tree comes from.
#[derive(Debug, Clone, Copy)]
pub(super) enum Source {
    Generated(Topology),
    /// Index into the sweep's loaded files.
    File(usize),
}

/// One value or a list of them (sweep.json's `child_order` became a list).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ChildOrder>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(ChildOrder),
        Many(Vec<ChildOrder>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(x) => vec![x],
        OneOrMany::Many(v) => v,
    })
}

/// One tree to build and evaluate.
#[derive(Debug, Clone)]
pub(super) struct Job {
    pub index: usize,
    pub source: Source,
    pub child_order: ChildOrder,
    /// The weights' target condition number; 0 when the weights are the input's own.
    pub target_cond: f64,
    pub seed: u64,
}

impl Job {
    /// The vertices of the job's tree (known before it is built).
    pub fn vertices(&self, params: &SweepParams, files: &[LoadedTree]) -> usize {
        match self.source {
            Source::Generated(_) => params.nodes,
            Source::File(i) => files[i].file.tree.len(),
        }
    }
}

impl SweepParams {
    /// Every tree of the sweep, in the order its rows are written. A file with its own weights
    /// is one tree; otherwise each file or topology gets `trees_per_target` seeded weight draws
    /// per target.
    pub(super) fn jobs(&self) -> Vec<Job> {
        let sources: Vec<Source> = if self.files.is_empty() {
            self.topologies
                .iter()
                .map(|&t| Source::Generated(t))
                .collect()
        } else {
            (0..self.files.len()).map(Source::File).collect()
        };
        let mut jobs = Vec::new();
        let mut draw = 0usize;
        for source in sources {
            let draws: Vec<f64> = match (source, self.weights) {
                (Source::File(_), WeightChoice::File) => vec![0.0],
                _ => self
                    .targets
                    .iter()
                    .flat_map(|&t| std::iter::repeat_n(t, self.trees_per_target))
                    .collect(),
            };
            for target_cond in draws {
                // One draw, one seed: the child orders of a draw share its tree and weights
                // (with one order, draw = job index, as in sweeps of a single order).
                let seed = generators::derive_seed(self.seed, draw as u64);
                draw += 1;
                for &child_order in &self.child_orders {
                    jobs.push(Job {
                        index: jobs.len(),
                        source,
                        child_order,
                        target_cond,
                        seed,
                    });
                }
            }
        }
        jobs
    }

    /// How many trees the whole sweep has.
    pub fn jobs_len(&self) -> usize {
        self.jobs().len()
    }

    /// The trees this directory holds: every tree, or those of its shard.
    pub(super) fn part_jobs(&self) -> Vec<Job> {
        let part = self.part();
        self.jobs()
            .into_iter()
            .filter(|j| part.holds(j.index))
            .collect()
    }

    /// The part of the sweep these parameters describe ([`Shard::WHOLE`] when unsharded).
    pub fn part(&self) -> Shard {
        self.shard.unwrap_or(Shard::WHOLE)
    }

    pub(super) fn rows_per_tree(&self) -> usize {
        self.ops.len() * self.algos.len()
    }

    /// Reads the sweep's tree files, from wherever they are found (checking that none changed
    /// since `sweep.json` was written).
    pub fn load_files(&self, dir: &Path) -> Result<Vec<LoadedTree>, Error> {
        self.files.iter().map(|f| f.reload(dir)).collect()
    }

    /// The parameters with every tree file's location recorded relative to `dir` (an existing
    /// directory), as `sweep.json` holds them.
    pub(super) fn located(&self, dir: &Path) -> Result<SweepParams, Error> {
        let files = self
            .files
            .iter()
            .map(|f| f.located(dir))
            .collect::<Result<_, _>>()?;
        Ok(SweepParams {
            files,
            ..self.clone()
        })
    }

    /// What the sweep computes, without where its files lie: two runs with equal identities
    /// write the same rows.
    pub(super) fn identity(&self) -> SweepParams {
        SweepParams {
            files: self.files.iter().map(SweepFile::unlocated).collect(),
            ..self.clone()
        }
    }
}
