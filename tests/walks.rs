//! How often an evaluation walks each summation order and runs each kernel, and what an
//! algorithm whose order another has walked already gets from that walk.

use analysis::{Algorithm, Op, ReferenceKind};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use treefix_accuracy::experiment::{self, Backend, Cpu, Instance, InstanceSpec, Measured};

/// Results computed elsewhere, as a GPU's would be: the twins, each on its own tree, with
/// `corrupt` algorithms' results one bit off their twin's at one node.
struct Elsewhere {
    corrupt: Vec<Algorithm>,
}

impl Backend for Elsewhere {
    fn describe(&self) -> String {
        "elsewhere".into()
    }
    fn device(&self) -> treefix_accuracy::Device {
        treefix_accuracy::Device::Gpu
    }
    fn compute(
        &self,
        tree: &Tree,
        w: &[f32],
        algo: Algorithm,
        op: Op,
    ) -> Result<Vec<f32>, treefix_accuracy::Error> {
        let mut values = algo.twin(tree, w, op);
        if self.corrupt.contains(&algo) {
            let x = &mut values[tree.len() / 2];
            *x = f32::from_bits(x.to_bits() ^ 1);
        }
        Ok(values)
    }
}

fn instance() -> Instance {
    InstanceSpec {
        topology: Topology::RandomRecursive,
        n: 5000,
        weights: WeightModel::Gensum,
        target_cond: 1e8,
        child_order: ChildOrder::Natural,
        seed: 9,
    }
    .generate()
    .unwrap()
}

/// `algos` evaluated on `backend`: what each (algorithm, op) measured, and the walker.
fn evaluate<'i>(
    inst: &'i Instance,
    algos: &[Algorithm],
    backend: &dyn Backend,
) -> (Vec<Measured>, analysis::orders::Walker<'i>) {
    let mut walker = analysis::orders::Walker::new(&inst.tree);
    let mut sink = experiment::Summaries::default();
    experiment::evaluate_walked(
        &mut walker,
        &inst.weights,
        &Op::ALL,
        algos,
        ReferenceKind::Exact,
        backend,
        &mut experiment::Computed::default(),
        &|_| {},
        &mut sink,
    )
    .unwrap();
    (sink.measured, walker)
}

/// An evaluation walks each order once per op and runs each kernel once: on the CPU, the 8
/// algorithms' 16 twins run and 14 walks are made (parallel's order is sequential's, walked
/// once for both), and contraction's schedule is built once for the tree; on another backend
/// only the CPU-only algorithms run a twin, and the walks are the same.
#[test]
fn one_walk_per_order_and_op() {
    let inst = instance();
    let (algos, ops) = (Algorithm::ALL, Op::ALL);
    let evaluations = algos.len() * ops.len();
    let shared = algos.windows(2).filter(|p| p[0].same_walk(p[1])).count() * ops.len();
    assert_eq!(
        shared, 2,
        "parallel follows sequential, whose order it shares"
    );
    let cpu_only = algos.iter().filter(|a| !a.has_gpu_kernel()).count() * ops.len();
    let elsewhere = Elsewhere { corrupt: vec![] };
    for (backend, twins) in [(&Cpu as &dyn Backend, evaluations), (&elsewhere, cpu_only)] {
        let (measured, walker) = evaluate(&inst, &algos, backend);
        assert_eq!(measured.len(), evaluations);
        let what = backend.describe();
        assert_eq!(walker.walks(), evaluations - shared, "{what}");
        assert_eq!(walker.twins(), twins, "{what}");
        assert_eq!(walker.schedules_built(), 1, "{what}");
        assert!(measured.iter().all(|m| m.gpu_mismatches.unwrap_or(0) == 0));
    }
}

/// What an algorithm measures does not depend on whether its order was walked for it or for
/// the algorithm before it: parallel after sequential equals parallel alone, every figure
/// but the time. A result off the twin's bits is walked again and its mismatch found.
#[test]
fn a_shared_walk_measures_what_a_walk_of_its_own_does() {
    let inst = instance();
    let (seq, par) = (Algorithm::SEQUENTIAL, Algorithm::PARALLEL);
    assert!(seq.same_walk(par) && !par.same_walk(Algorithm::VECTORIAL));
    let figures = |m: &Measured| {
        let m = Measured {
            compute_s: 0.0,
            ..m.clone()
        };
        format!("{m:?}")
    };
    let (alone, _) = evaluate(&inst, &[par], &Cpu);
    let (after, walker) = evaluate(&inst, &[seq, par], &Cpu);
    assert_eq!(walker.walks(), 2, "one walk per op for both");
    for op in Op::ALL {
        let alone = alone.iter().find(|m| m.op == op).unwrap();
        let after = after
            .iter()
            .find(|m| m.op == op && m.algorithm == par)
            .unwrap();
        assert_eq!(figures(alone), figures(after), "{op}");
    }
    let corrupt = Elsewhere { corrupt: vec![par] };
    let (measured, walker) = evaluate(&inst, &[seq, par], &corrupt);
    assert_eq!(
        walker.walks(),
        4,
        "the corrupted results are walked on their own"
    );
    for m in &measured {
        let expected = (m.algorithm == par).then_some(1);
        assert_eq!(m.gpu_mismatches, expected, "{} {}", m.op, m.algorithm);
    }
}
