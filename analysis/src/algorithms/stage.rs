//! A GPU kernel's recipe as data: the stage files of `shaders/` it dispatches, which entry
//! point of each, over what part of its layout, and where its timed phases end. The host
//! (`src/gpu/`) expands a recipe over an uploaded forest into a recording, the list of its
//! dispatches, and runs that list; it names no algorithm and no plan.
//!
//! A stage is a WGSL file by its name, so a kernel with a stage file of its own names it here
//! ([`Stage::named`]) and nothing else lists it: the host compiles every file of `shaders/`.
//! The scan word's prelude (`sum_*.wgsl`) is not a stage: the host's table of variants puts
//! it in front of a scan kernel's stages.

use crate::Op;
use std::fmt;

/// One WGSL stage file of `shaders/`, by its name without `.wgsl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stage(&'static str);

impl Stage {
    /// One wide level of the level-synchronous rootfix.
    pub const ROOTFIX_LEVEL: Stage = Stage("rootfix_level");
    /// A run of narrow rootfix levels in one workgroup.
    pub const ROOTFIX_NARROW: Stage = Stage("rootfix_narrow");
    /// One wide level of the level-synchronous leaffix.
    pub const LEAFFIX_LEVEL: Stage = Stage("leaffix_level");
    /// A run of narrow leaffix levels in one workgroup.
    pub const LEAFFIX_NARROW: Stage = Stage("leaffix_narrow");
    /// The scan plan's tile scan (level 0 built from the Euler tour), on f32 or float-float.
    pub const SCAN_TILE: Stage = Stage("scan_tile");
    /// The tile scan on fixed-point sums (items in registers).
    pub const SCAN_TILE_EXACT: Stage = Stage("scan_tile_exact");
    /// The scan plan's uniform add.
    pub const SCAN_ADD: Stage = Stage("scan_add");
    /// The chained plan's tile totals scanned left to right.
    pub const SCAN_CHAIN: Stage = Stage("scan_chain");
    /// Every vertex's answer read from the scanned Euler tour.
    pub const VECTORIAL_READ: Stage = Stage("vectorial_read");
    /// One level of a traced addition program (contraction).
    pub const ADDITION_LEVEL: Stage = Stage("addition_level");
    /// Weights into a kernel's labels, results back (gather and scatter).
    pub const PERMUTE: Stage = Stage("permute");
    /// A plain copy (bench's bandwidth reference).
    pub const COPY: Stage = Stage("copy");
    /// Results rounded to the storage format in place, where no scatter stores them (a
    /// narrower storage than accumulation, the labels the tree's own).
    pub const STORE: Stage = Stage("store");

    /// The stage of `shaders/{name}.wgsl`.
    pub const fn named(name: &'static str) -> Stage {
        Stage(name)
    }

    /// Its file's name without `.wgsl` (pipeline labels, messages).
    pub fn name(self) -> &'static str {
        self.0
    }

    /// Its file in `shaders/`.
    pub fn file(self) -> String {
        format!("{}.wgsl", self.0)
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.wgsl", self.0)
    }
}

/// The entry point a step dispatches, per op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// The same entry point for both ops.
    Both(&'static str),
    /// Rootfix's, then leaffix's.
    Each([&'static str; 2]),
    /// Only for this op: the other op skips the step.
    Only(Op, &'static str),
}

impl Entry {
    /// The entry point `op` runs, if any.
    pub fn for_op(self, op: Op) -> Option<&'static str> {
        match self {
            Entry::Both(e) => Some(e),
            Entry::Each([rootfix, leaffix]) => Some(match op {
                Op::Rootfix => rootfix,
                Op::Leaffix => leaffix,
            }),
            Entry::Only(o, e) => (o == op).then_some(e),
        }
    }
}

/// What a step's dispatches cover, in the terms of the kernel's layout: the host expands each
/// into dispatches (workgroups, buffers) over the uploaded forest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Over {
    /// Before the kernels, a thread per vertex: the weights into the layout's labels
    /// (nothing where they are the tree's own).
    LabelsIn,
    /// After the kernels, a thread per vertex: the results back into the tree's labels.
    LabelsOut,
    /// Level 0 of the scan plan, a workgroup per tile of the Euler tour.
    Tour,
    /// The scan plan's block-sum levels, bottom up, a workgroup per tile.
    BlockLevelsUp,
    /// The block-sum levels below the top one, top down, a workgroup per tile.
    BlockLevelsDown,
    /// The chained plan's segments (one per tree of more than one tile), a workgroup each.
    ChainSegments,
    /// A thread per vertex.
    Vertices,
    /// The level plan's runs of narrow levels, one workgroup each, in the plan's order.
    NarrowRuns,
    /// The level plan's wide levels, in the plan's order.
    WideLevels,
    /// A traced addition program's levels, in order.
    ProgramLevels,
    /// After the kernels, a thread per vertex: each result gathered from its program slot.
    ResultSlots,
}

/// One step of a recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Dispatches of `entry` in `stage` over `over`.
    Run {
        stage: Stage,
        entry: Entry,
        over: Over,
    },
    /// The end of a timed phase: the kernel steps since the previous phase run in one compute
    /// pass, whose time is reported under this name (the GPU timestamp slots are these ends).
    Phase(&'static str),
}

impl Step {
    /// `entry` of `stage` for both ops, over `over`.
    pub const fn run(stage: Stage, entry: &'static str, over: Over) -> Step {
        Step::Run {
            stage,
            entry: Entry::Both(entry),
            over,
        }
    }

    /// Rootfix's and leaffix's entries of `stage`, over `over`.
    pub const fn each(stage: Stage, entries: [&'static str; 2], over: Over) -> Step {
        Step::Run {
            stage,
            entry: Entry::Each(entries),
            over,
        }
    }

    /// `entry` of `stage` for `op` only, over `over`.
    pub const fn only(op: Op, stage: Stage, entry: &'static str, over: Over) -> Step {
        Step::Run {
            stage,
            entry: Entry::Only(op, entry),
            over,
        }
    }
}

/// The weights permuted into a layout's labels on the way in, the results back on the way out.
pub const RELABEL: [Step; 2] = [
    Step::run(Stage::PERMUTE, "gather", Over::LabelsIn),
    Step::run(Stage::PERMUTE, "scatter", Over::LabelsOut),
];

/// The Euler tour scanned with the scan plan on an f32 or float-float word: level 0's tile
/// scan builds E from the tour, the block levels are tile-scanned up and uniform-added down,
/// then each vertex reads its answer (level 0's uniform add done on the elements read).
pub const SCAN_TILED: &[Step] = &[
    RELABEL[0],
    Step::each(
        Stage::SCAN_TILE,
        ["scan_tour_rootfix", "scan_tour_leaffix"],
        Over::Tour,
    ),
    Step::run(Stage::SCAN_TILE, "scan_tile", Over::BlockLevelsUp),
    Step::run(Stage::SCAN_ADD, "scan_add", Over::BlockLevelsDown),
    Step::Phase("scan"),
    Step::each(
        Stage::VECTORIAL_READ,
        ["read_rootfix", "read_leaffix"],
        Over::Vertices,
    ),
    Step::Phase("read"),
    RELABEL[1],
];

/// The stages a recipe dispatches, each once, sorted.
pub fn stages(recipe: &[Step]) -> Vec<Stage> {
    let mut stages: Vec<Stage> = recipe
        .iter()
        .filter_map(|s| match *s {
            Step::Run { stage, .. } => Some(stage),
            Step::Phase(_) => None,
        })
        .collect();
    stages.sort();
    stages.dedup();
    stages
}

/// A recipe's timed phases, in order.
pub fn phases(recipe: &[Step]) -> Vec<&'static str> {
    recipe
        .iter()
        .filter_map(|s| match *s {
            Step::Phase(name) => Some(name),
            Step::Run { .. } => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::{Algorithm, GpuLayout};
    use crate::scan_plan::Plan;

    /// What a step covers, for the steps that dispatch.
    fn overs(recipe: &[Step]) -> Vec<Over> {
        recipe
            .iter()
            .filter_map(|s| match *s {
                Step::Run { over, .. } => Some(over),
                Step::Phase(_) => None,
            })
            .collect()
    }

    /// Every kernel step of a recipe lies in a timed phase, both ops dispatch something, and
    /// a recipe covers what its layout has: a scan's block levels are its plan's (tile scans
    /// up and uniform adds down for the tiled plan, the chain for the chained one, and no GPU
    /// kernel scans sequentially).
    #[test]
    fn recipes_follow_their_layouts() {
        use Over::*;
        let mut kernels = 0;
        for a in Algorithm::ALL {
            let Some(k) = a.gpu() else { continue };
            kernels += 1;
            let around = |o: &Over| matches!(o, LabelsIn | LabelsOut | ResultSlots);
            let last_kernel = k
                .recipe
                .iter()
                .rposition(|s| matches!(s, Step::Run { over, .. } if !around(over)));
            let last_phase = k.recipe.iter().rposition(|s| matches!(s, Step::Phase(_)));
            assert!(
                last_kernel < last_phase,
                "{a}: a kernel step after the last phase"
            );
            for op in Op::ALL {
                assert!(
                    k.recipe.iter().any(|s| matches!(s,
                        Step::Run { entry, over, .. } if !around(over) && entry.for_op(op).is_some())),
                    "{a}: nothing for {op}"
                );
            }
            let overs = overs(k.recipe);
            let has = |o: Over| overs.contains(&o);
            match k.layout {
                GpuLayout::Scan { plan, .. } => {
                    assert_ne!(
                        plan,
                        Plan::Sequential,
                        "{a}: no GPU kernel scans sequentially"
                    );
                    assert!(has(Tour) && has(Vertices), "{a}");
                    let tiled = has(BlockLevelsUp) && has(BlockLevelsDown);
                    assert_eq!(tiled, plan == Plan::Tiled, "{a}: {plan:?}");
                    assert_eq!(has(ChainSegments), plan == Plan::Chained, "{a}: {plan:?}");
                    let own = [LabelsIn, LabelsOut, Tour, BlockLevelsUp, BlockLevelsDown];
                    let own = [&own[..], &[ChainSegments, Vertices]].concat();
                    assert!(overs.iter().all(|o| own.contains(o)), "{a}: {overs:?}");
                }
                GpuLayout::Levels => {
                    assert!(has(NarrowRuns) && has(WideLevels), "{a}");
                    let own = [LabelsIn, LabelsOut, NarrowRuns, WideLevels];
                    assert!(overs.iter().all(|o| own.contains(o)), "{a}: {overs:?}");
                }
                GpuLayout::Program => {
                    assert!(has(ProgramLevels) && has(ResultSlots), "{a}");
                    let own = [ProgramLevels, ResultSlots];
                    assert!(overs.iter().all(|o| own.contains(o)), "{a}: {overs:?}");
                }
            }
        }
        assert!(kernels > 0);
    }

    #[test]
    fn entries_by_op() {
        assert_eq!(Entry::Both("x").for_op(Op::Leaffix), Some("x"));
        assert_eq!(Entry::Each(["r", "l"]).for_op(Op::Rootfix), Some("r"));
        assert_eq!(Entry::Each(["r", "l"]).for_op(Op::Leaffix), Some("l"));
        assert_eq!(Entry::Only(Op::Rootfix, "r").for_op(Op::Leaffix), None);
        assert_eq!(stages(SCAN_TILED).len(), 4);
        assert_eq!(phases(SCAN_TILED), ["scan", "read"]);
    }
}
