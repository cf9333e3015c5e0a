//! A backend whose result differs from its CPU twin is reported, never hidden: counted per op ×
//! algorithm, and the command exits with code 3 after writing its results.

use analysis::{Algorithm, Op, ReferenceKind};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use treefix_accuracy::experiment::{self, Backend, Cpu, InstanceSpec};
use treefix_accuracy::inputs::WeightChoice;
use treefix_accuracy::{Device, Error, sweep};

/// The CPU twins, with the last bit of vertex 7's parallel result flipped.
struct OneBitOff;

impl Backend for OneBitOff {
    fn describe(&self) -> String {
        "one-bit-off".into()
    }
    fn device(&self) -> Device {
        Device::Gpu
    }
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error> {
        let mut v = algo.twin(tree, w, op);
        if algo == Algorithm::PARALLEL {
            v[7] = f32::from_bits(v[7].to_bits() ^ 1);
        }
        Ok(v)
    }
}

fn spec() -> InstanceSpec {
    InstanceSpec {
        topology: Topology::RandomRecursive,
        n: 500,
        weights: WeightModel::Gensum,
        target_cond: 1e6,
        child_order: ChildOrder::Natural,
        seed: 3,
    }
}

#[test]
fn mismatches_are_counted_per_algorithm() {
    let instance = spec().generate().unwrap();
    let algos = [
        Algorithm::SEQUENTIAL,
        Algorithm::PARALLEL,
        Algorithm::VECTORIAL,
    ];
    let ops = [Op::Rootfix, Op::Leaffix];
    let bad =
        experiment::evaluate(&instance, &ops, &algos, ReferenceKind::Exact, &OneBitOff).unwrap();
    for r in &bad {
        let counts: Vec<Option<usize>> = r.outcomes.iter().map(|o| o.gpu_mismatches).collect();
        // sequential never runs on a backend; parallel has the flipped bit; vectorial agrees.
        assert_eq!(counts, [None, Some(1), Some(0)], "{}", r.op);
    }
    assert_eq!(
        experiment::mismatch_report("t", experiment::measured(&bad)).0,
        2
    );
    let good = experiment::evaluate(&instance, &ops, &algos, ReferenceKind::Exact, &Cpu).unwrap();
    assert!(
        good.iter()
            .flat_map(|r| &r.outcomes)
            .all(|o| o.gpu_mismatches.is_none())
    );
}

#[test]
fn a_sweep_with_mismatches_writes_its_results_and_exits_3() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mismatch-sweep");
    let _ = std::fs::remove_dir_all(&dir);
    let params = sweep::SweepParams {
        targets: vec![1e3, 1e6],
        trees_per_target: 2,
        nodes: 300,
        topologies: vec![Topology::Chain],
        weights: WeightChoice::Model(WeightModel::Gensum),
        ops: vec![Op::Rootfix],
        algos: vec![Algorithm::PARALLEL, Algorithm::VECTORIAL],
        reference: ReferenceKind::Exact,
        child_orders: vec![ChildOrder::Natural],
        seed: 1,
        files: Vec::new(),
        shard: None,
        backend: Device::Gpu,
        exact_on: Device::Cpu,
    };
    let lock = treefix_accuracy::lock::DirLock::acquire(&dir, "sweep").unwrap();
    let err = sweep::run(&params, &[], &lock, &OneBitOff, true, &|_| {}).unwrap_err();
    assert!(
        matches!(&err, Error::GpuMismatch(f) if f.count == 4),
        "{err}"
    );
    assert_eq!(err.exit_code(), 3);
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4 * 2);
    // The count is in results.csv (parallel: 1 node per tree; vectorial: 0) and summary.json.
    let rows: Vec<analysis::records::results::ResultRow> = csv::Reader::from_reader(csv.as_bytes())
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap();
    for r in &rows {
        let expected = if r.algorithm == "parallel" { 1 } else { 0 };
        assert_eq!(r.gpu_mismatches, Some(expected), "{r:?}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let worst = summary["worst"].as_array().unwrap();
    assert!(
        worst
            .iter()
            .any(|w| w["algorithm"] == "parallel" && w["gpu_mismatches"] == 4)
    );
}

/// A backend that returns one value too few: a clear error, not a panic.
struct OneShort;

impl Backend for OneShort {
    fn describe(&self) -> String {
        "one-short".into()
    }
    fn device(&self) -> Device {
        Device::Gpu
    }
    fn compute(&self, tree: &Tree, w: &[f32], algo: Algorithm, op: Op) -> Result<Vec<f32>, Error> {
        let mut v = algo.twin(tree, w, op);
        v.pop();
        Ok(v)
    }
}

#[test]
fn a_result_of_the_wrong_length_is_an_error() {
    let instance = spec().generate().unwrap();
    let err = experiment::evaluate(
        &instance,
        &[Op::Leaffix],
        &[Algorithm::VECTORIAL],
        ReferenceKind::Exact,
        &OneShort,
    )
    .err()
    .expect("an error");
    assert_eq!(err.to_string().lines().count(), 1, "one line: {err}");
    assert!(
        err.to_string()
            .contains("one-short returned 499 values of vectorial leaffix for 500 vertices"),
        "{err}"
    );
}
