//! Every GPU kernel's recording against its recipe, on the CPU (no device): the host runs
//! what the recipe says, in its order, with the timestamp slots of its phases.

use super::layout::{BfsLayout, Forest, LevelPlan, Planned};
use super::recording::{Dispatch, Recording, Request, record};
use super::resident::{Made, lay_out};
use super::shaders::Sizes;
use super::variants::{Read, Variant, exact_reference_kernel};
use crate::Error;
use analysis::algorithms::{GpuKernel, Over, Stage, Step};
use analysis::{Algorithm, Op};
use generators::fixed::Scale;
use generators::{ChildOrder, Topology, Tree, WeightModel};
use std::collections::BTreeSet;

/// The sizes of a software adapter with WebGPU's default limits.
fn sizes() -> Sizes {
    Sizes::for_device(&wgpu::Limits::default(), true)
}

fn tree(topology: Topology, n: usize, seed: u64) -> Tree {
    topology
        .generate(n, ChildOrder::Natural, &mut generators::rng(seed))
        .unwrap()
}

/// The recording of `kernel` for `op` and `read` on the forest of `trees` (normal weights).
fn recording(
    kernel: &GpuKernel,
    trees: &[&Tree],
    op: Op,
    read: Read,
    sizes: &Sizes,
) -> Result<Recording, Error> {
    let forest = Forest::new(trees.to_vec());
    let mut rng = generators::rng(7);
    let w = WeightModel::Normal.weights(forest.len(), 1.0, &mut rng)?;
    let fixed = Variant::of(kernel.layout)
        .and_then(|v| v.row())
        .is_some_and(|r| r.fixed_point);
    let made = Made {
        scale: fixed.then(|| Scale::for_weights(&w).unwrap()),
        unrounded: read == Read::Unrounded,
    };
    let mut plan = super::recording::BufferPlan::new();
    let layout = lay_out(&forest, kernel.layout, made, sizes, &mut plan)?;
    record(&*layout, kernel.recipe, Request::f32(op, read))
}

/// The recipe's kernel steps for `op`, phase by phase: (step index, stage, entry, over).
fn phase_steps(recipe: &[Step], op: Op) -> Vec<Vec<(usize, Stage, &'static str, Over)>> {
    let mut phases = vec![Vec::new()];
    for (i, step) in recipe.iter().enumerate() {
        match *step {
            Step::Phase(_) => phases.push(Vec::new()),
            Step::Run { stage, entry, over } => {
                let around = matches!(over, Over::LabelsIn | Over::LabelsOut | Over::ResultSlots);
                if let (Some(entry), false) = (entry.for_op(op), around) {
                    phases.last_mut().unwrap().push((i, stage, entry, over));
                }
            }
        }
    }
    phases.pop();
    phases
}

/// Which step of `steps` a dispatch is: the level plan's two steps count as one (their
/// dispatches interleave in the plan's order).
fn step_of(d: &Dispatch, steps: &[(usize, Stage, &'static str, Over)]) -> Option<usize> {
    let (i, .., over) = steps
        .iter()
        .find(|(_, s, e, _)| *s == d.stage && *e == d.entry)?;
    let planned = |o: &Over| matches!(o, Over::NarrowRuns | Over::WideLevels);
    match planned(over) {
        true => steps.iter().find(|(.., o)| planned(o)).map(|(i, ..)| *i),
        false => Some(*i),
    }
}

/// Each kernel, on a single tree, on one large enough for three scan levels, and on a
/// forest, for both ops: its phases are the recipe's (so are its timestamp slots), every
/// dispatch of a phase is a step of that phase in the recipe's order, and the stages it
/// dispatches over all these forests are exactly its recipe's.
#[test]
fn recordings_dispatch_their_recipes() {
    let sizes = sizes();
    let small = tree(Topology::RandomRecursive, 5000, 3);
    let other = tree(Topology::Prufer, 3000, 4);
    let big = tree(Topology::RandomRecursive, (1 << 19) + 7, 5);
    for algo in Algorithm::ALL {
        let Some(kernel) = algo.gpu() else { continue };
        let scan = Variant::of(kernel.layout).is_some();
        let mut forests: Vec<Vec<&Tree>> = vec![vec![&small], vec![&small, &other, &small]];
        if scan {
            forests.push(vec![&big]);
        }
        let mut seen = BTreeSet::new();
        for trees in &forests {
            for op in Op::ALL {
                let rec = recording(kernel, trees, op, Read::Rounded, &sizes).unwrap();
                assert_eq!(rec.phases(), kernel.phases(), "{algo}");
                let phases = phase_steps(kernel.recipe, op);
                for (pass, steps) in rec.compute.iter().zip(&phases) {
                    let mut last = 0;
                    for d in &pass.dispatches {
                        let i = step_of(d, steps)
                            .unwrap_or_else(|| panic!("{algo} {op}: {d:?} is no step here"));
                        assert!(i >= last, "{algo} {op}: {d:?} out of the recipe's order");
                        last = i;
                    }
                }
                seen.extend(rec.stages());
            }
        }
        let recipe: BTreeSet<Stage> = kernel.stages().into_iter().collect();
        assert_eq!(seen, recipe, "{algo}: stages recorded vs its recipe");
    }
}

/// The tiled plan on three scan levels: level 0's tile scan, the two block levels scanned
/// up, the middle one uniform-added down, then one read; the chained plan has its chain in
/// place of the block levels.
#[test]
fn scan_recordings_cover_the_plan() {
    let sizes = sizes();
    let big = tree(Topology::RandomRecursive, (1 << 19) + 7, 5);
    let entries = |rec: &Recording, phase: usize| -> Vec<&str> {
        rec.compute[phase]
            .dispatches
            .iter()
            .map(|d| d.entry)
            .collect()
    };
    let vectorial = Algorithm::VECTORIAL.gpu().unwrap();
    let rec = recording(vectorial, &[&big], Op::Leaffix, Read::Rounded, &sizes).unwrap();
    let scan = ["scan_tour_leaffix", "scan_tile", "scan_tile", "scan_add"];
    assert_eq!(entries(&rec, 0), scan);
    assert_eq!(entries(&rec, 1), ["read_leaffix"]);
    assert!(rec.input.len() == 1 && rec.output.len() == 1, "relabelled");
    let chained = Algorithm::VECTORIAL_CHAINED.gpu().unwrap();
    let rec = recording(chained, &[&big], Op::Rootfix, Read::Rounded, &sizes).unwrap();
    assert_eq!(entries(&rec, 0), ["scan_tour_rootfix", "scan_chain"]);
}

/// The parallel kernel's dispatches are its level plan's, in its order: runs of narrow levels
/// and wide levels interleaved, each reading its own entry of its per-dispatch uniform.
#[test]
fn level_recordings_follow_the_level_plan() {
    let sizes = sizes();
    let t = tree(Topology::RandomRecursive, 20_000, 9);
    let forest = Forest::new(vec![&t]);
    let bfs = BfsLayout::new(&forest);
    let parallel = Algorithm::PARALLEL.gpu().unwrap();
    for op in Op::ALL {
        let plan = match op {
            Op::Rootfix => LevelPlan::rootfix(&bfs, &sizes),
            Op::Leaffix => LevelPlan::leaffix(&bfs, &sizes),
        };
        let rec = recording(parallel, &[&t], op, Read::Rounded, &sizes).unwrap();
        let got: Vec<(bool, u32, u32)> = rec.compute[0]
            .dispatches
            .iter()
            .map(|d| {
                let narrow = d.stage.name().ends_with("_narrow");
                (narrow, d.uniform_entry.unwrap(), d.groups)
            })
            .collect();
        let want: Vec<(bool, u32, u32)> = plan
            .order
            .iter()
            .map(|p| match *p {
                Planned::Narrow(k) => (true, k as u32, 1),
                Planned::Wide { index, groups } => (false, index as u32, groups),
            })
            .collect();
        assert!(got.iter().any(|g| g.0) && got.iter().any(|g| !g.0), "{op}");
        assert_eq!(got, want, "{op}");
    }
}

/// The exact reference's recording: the variants table's kernel, its read unrounded into the
/// words buffer, nothing scattered back; refused on buffers made without that buffer.
#[test]
fn exact_reference_records_the_unrounded_read() {
    let sizes = sizes();
    let t = tree(Topology::RandomRecursive, 3000, 2);
    let kernel = exact_reference_kernel().unwrap();
    let rec = recording(kernel, &[&t], Op::Leaffix, Read::Unrounded, &sizes).unwrap();
    let read = &rec.compute.last().unwrap().dispatches[0];
    assert_eq!(read.variant.unwrap().read, Read::Unrounded);
    assert!(rec.output.is_empty());
    let scans = rec.compute[0].dispatches.iter();
    assert!(
        scans
            .clone()
            .all(|d| d.variant.unwrap().read == Read::Rounded)
    );
    let forest = Forest::new(vec![&t]);
    let mut plan = super::recording::BufferPlan::new();
    let made = Made {
        scale: Some(Scale::for_weights(&[1.0, 0.5]).unwrap()),
        unrounded: false,
    };
    let layout = lay_out(&forest, kernel.layout, made, &sizes, &mut plan).unwrap();
    let req = Request::f32(Op::Rootfix, Read::Unrounded);
    assert!(record(&*layout, kernel.recipe, req).is_err());
}

/// Past the adapter's loop budget the chained plan is refused with a limit error that names
/// the chain; the tiled plan records on the same forest.
#[test]
fn a_chain_past_the_loop_budget_is_refused() {
    let sizes = Sizes {
        loop_budget: 100,
        ..sizes()
    };
    let t = tree(Topology::RandomRecursive, 40_000, 3);
    let chained = Algorithm::VECTORIAL_CHAINED.gpu().unwrap();
    let e = recording(chained, &[&t], Op::Leaffix, Read::Rounded, &sizes).unwrap_err();
    assert!(matches!(e, Error::GpuLimit(_)), "{e}");
    assert!(e.to_string().contains("79 tile totals"), "{e}");
    let vectorial = Algorithm::VECTORIAL.gpu().unwrap();
    assert!(recording(vectorial, &[&t], Op::Leaffix, Read::Rounded, &sizes).is_ok());
}
