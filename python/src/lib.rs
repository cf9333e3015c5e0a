//! `treefix_accuracy._core`: the Python face of the `treefix-accuracy` library API — trees,
//! ill-conditioned weights, every treefix algorithm on the CPU or the GPU, the correctly
//! rounded treefix and the accuracy oracle. A thin layer: arguments are converted
//! (`convert`), the library is called with the interpreter released, and its errors become
//! exceptions (`error`).

mod convert;
mod error;
mod files;
mod preflight;
mod scored;
mod spatial;
mod tree;

use analysis::{Algorithm, Op, ReferenceKind};
use error::{AccuracyError, input, to_py};
use generators::Precision;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::OnceLock;
use tree::Tree;
use treefix_accuracy::score::results::parse_op;
use treefix_accuracy::{Backend, Cpu, Device, Gpu, ScoreOptions};

/// A tree from parents[v], the parent of vertex v (-1 at the root): any 1-d integer array or
/// sequence. Raises TreeError when it is no tree (two roots, a cycle, a parent out of
/// range).
#[pyfunction]
fn tree_from_parents(py: Python<'_>, parents: &Bound<'_, PyAny>) -> PyResult<Tree> {
    let p = convert::parents(parents)?;
    let slice = p.as_slice();
    preflight::tree_from_parents(slice.len())?;
    let t = py
        .detach(|| treefix_accuracy::tree_from_parents(slice))
        .map_err(to_py)?;
    Ok(Tree::plain(t, None))
}

/// A tree file — Newick, NEXUS, Matrix Market (its BFS spanning tree), parent array; gzip
/// detected — read as `accuracy --tree FILE` reads it. Vertices of a Newick/NEXUS file are
/// numbered in the file's preorder (0: the root). The file's own weights are `tree.weights`.
/// Raises ReadError naming the file, line and column.
#[pyfunction]
#[pyo3(signature = (path, *, format=None, tree_index=0, root=None, forest="refuse", subnormal="refuse"))]
fn read_tree(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    tree_index: usize,
    root: Option<u64>,
    forest: &str,
    subnormal: &str,
) -> PyResult<Tree> {
    let options = treefix_accuracy::ReadOptions {
        format: format.map(str::parse).transpose().map_err(input)?,
        tree_index,
        root,
        forest: forest.parse().map_err(input)?,
        subnormal: subnormal.parse().map_err(input)?,
        // A file, or a gzip stream, larger than memory allows is an error, not an abort.
        memory_limit: preflight::reader_limit(),
    };
    let file = py
        .detach(|| treefix_accuracy::read_tree_with(&path, &options))
        .map_err(to_py)?;
    let (weights, weights_error) = match file.own_weights() {
        Ok(w) => (w.map(<[f32]>::to_vec), None),
        Err(e) => (None, Some(e.to_string())),
    };
    Ok(Tree {
        source: Some(path.display().to_string()),
        tree: file.tree,
        labels: file.labels,
        weights,
        weights_error,
    })
}

/// A generated tree of n vertices: "chain", "star", "random-recursive", "prufer",
/// "kary:4", "broom:0.5", "caterpillar-legs", "profile:20:2"; seeded (ChaCha20), so the
/// same seed gives the same tree on every platform.
#[pyfunction]
#[pyo3(signature = (topology, n, seed=1))]
fn generate_tree(py: Python<'_>, topology: &str, n: usize, seed: u64) -> PyResult<Tree> {
    let topo: treefix_accuracy::Topology = topology.parse().map_err(input)?;
    preflight::generate_tree(n)?;
    let t = py
        .detach(|| treefix_accuracy::generate_tree(&topo, n, seed))
        .map_err(to_py)?;
    Ok(Tree::plain(t, Some(topology.to_string())))
}

/// n float32 weights (precision="f64": float64 ones of 53 bits, drawn in f64) whose sum has
/// condition number close to cond (Ogita-Rump-Oishi's GenSum, refined to hit the target),
/// seeded: returns (weights, exact_sum, achieved_cond)
/// as accupy's generate_ill_conditioned_sum does; exact_sum is the exact sum rounded once to
/// float64.
#[pyfunction]
#[pyo3(signature = (n, cond, seed=1, precision="f32"))]
fn gensum<'py>(
    py: Python<'py>,
    n: usize,
    cond: f64,
    seed: u64,
    precision: &str,
) -> PyResult<(Bound<'py, PyAny>, f64, f64)> {
    preflight::gensum(n)?;
    match precision.parse::<Precision>().map_err(input)? {
        Precision::F32 => {
            let g = py
                .detach(|| treefix_accuracy::gensum(n, cond, seed))
                .map_err(to_py)?;
            Ok((
                convert::array(py, g.weights).into_any(),
                g.exact_sum,
                g.cond,
            ))
        }
        Precision::F64 => {
            let g = py
                .detach(|| treefix_accuracy::gensum_f64(n, cond, seed))
                .map_err(to_py)?;
            Ok((
                convert::array(py, g.weights).into_any(),
                g.exact_sum,
                g.cond,
            ))
        }
        p => Err(input(format!(
            "precision {p}: gensum draws f32 or f64 values (f16 and bf16 weights: round f32 \
             ones with .astype, and read the κ score reports)"
        ))),
    }
}

/// The GPU, started once per process on first use.
fn gpu(py: Python<'_>) -> Result<&'static Gpu, String> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    if GPU.get().is_none() {
        quiet_mesa(py).map_err(|e| e.to_string())?;
    }
    GPU.get_or_init(|| Gpu::new().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

/// Before the first GPU: XDG_RUNTIME_DIR pointed at a private directory where it is unset, as
/// the binary does, so that Mesa's driver does not print its complaint on every device it
/// creates; set through `os.environ`, which Python and C both read.
fn quiet_mesa(py: Python<'_>) -> PyResult<()> {
    if let Some(dir) = treefix_accuracy::gpu::missing_runtime_dir() {
        let environ = py.import("os")?.getattr("environ")?;
        environ.set_item("XDG_RUNTIME_DIR", dir.to_string_lossy().as_ref())?;
    }
    Ok(())
}

/// "cpu" (the CPU twins), "gpu" (the kernels; GpuError without an adapter) or "auto", in any
/// case: the library's one selector ([`Device::select`]). `auto` without an adapter runs the
/// CPU twins and says so with a RuntimeWarning, as the CLI says so on stderr.
fn backend(py: Python<'_>, name: &str) -> PyResult<&'static dyn Backend> {
    let device: Device = name.parse().map_err(input)?;
    let selected = device
        .select(
            || &Cpu as &'static dyn Backend,
            || {
                gpu(py)
                    .map(|g| g as &'static dyn Backend)
                    .map_err(treefix_accuracy::Error::Gpu)
            },
        )
        .map_err(to_py)?;
    if let Some(notice) = &selected.notice {
        error::warn(py, notice)?;
    }
    Ok(selected.backend)
}

fn algorithm(name: &str) -> PyResult<Algorithm> {
    name.to_ascii_lowercase().parse().map_err(input)
}

fn treefix<'py>(
    py: Python<'py>,
    tree: &Bound<'py, Tree>,
    w: &Bound<'py, PyAny>,
    op: Op,
    algo: &str,
    on: &str,
    accumulate: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let t = &tree.get().tree;
    preflight::treefix(op.name(), t.len(), algorithm(algo)?)?;
    let (w, storage) = convert::values(w, "w")?;
    let arith = arithmetic(storage, accumulate)?;
    let algo = algorithm(algo)?;
    if let Some(w) = w.as_f64() {
        if on.eq_ignore_ascii_case("gpu") {
            return Err(input(
                "WGSL has no f64: float64 weights run on backend='cpu'",
            ));
        }
        let out = py
            .detach(|| treefix_accuracy::treefix_f64(t, w, op, algo))
            .map_err(to_py)?;
        return Ok(convert::array(py, out).into_any());
    }
    let slice = w.as_slice();
    let on = backend(py, on)?;
    if arith != generators::Arithmetic::F32 {
        // f16 and bf16 on the GPU too: its kernels compiled for the arithmetic.
        let out = py
            .detach(|| treefix_accuracy::treefix_in(t, slice, (op, arith), algo, on))
            .map_err(to_py)?;
        return convert::stored(py, out, storage);
    }
    let out = py
        .detach(|| treefix_accuracy::treefix(t, slice, op, algo, on))
        .map_err(to_py)?;
    Ok(convert::array(py, out).into_any())
}

/// Rootfix (the sum along the path root -> v, v included) of every vertex, as float32, by
/// one of our algorithms ("sequential", "parallel", "vectorial", "vectorial-seqscan",
/// "vectorial-chained", "vectorial-compensated", "contraction", "vectorial-exact") on
/// backend "cpu", "gpu" or "auto". The GPU kernels give their CPU twins' bits.
#[pyfunction]
#[pyo3(signature = (tree, w, algorithm="sequential", backend="cpu", accumulate=None))]
fn rootfix<'py>(
    py: Python<'py>,
    tree: &Bound<'py, Tree>,
    w: &Bound<'py, PyAny>,
    algorithm: &str,
    backend: &str,
    accumulate: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    treefix(py, tree, w, Op::Rootfix, algorithm, backend, accumulate)
}

/// Leaffix (the sum over v's subtree, v included) of every vertex; as rootfix.
#[pyfunction]
#[pyo3(signature = (tree, w, algorithm="sequential", backend="cpu", accumulate=None))]
fn leaffix<'py>(
    py: Python<'py>,
    tree: &Bound<'py, Tree>,
    w: &Bound<'py, PyAny>,
    algorithm: &str,
    backend: &str,
    accumulate: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    treefix(py, tree, w, Op::Leaffix, algorithm, backend, accumulate)
}

/// The correctly rounded treefix: every vertex's exact rootfix or leaffix (op, any case),
/// rounded once to the nearest value of w's dtype (float32, float64, float16, ml_dtypes
/// bfloat16), and returned in that dtype.
#[pyfunction]
fn exact<'py>(
    py: Python<'py>,
    tree: &Bound<'py, Tree>,
    w: &Bound<'py, PyAny>,
    op: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let op = parse_op(op).map_err(input)?;
    let t = &tree.get().tree;
    preflight::exact(t.len())?;
    let (w, storage) = convert::values(w, "w")?;
    if let Some(w) = w.as_f64() {
        let out = py
            .detach(|| treefix_accuracy::exact_f64(t, w, op))
            .map_err(to_py)?;
        return Ok(convert::array(py, out).into_any());
    }
    let slice = w.as_slice();
    let out = py
        .detach(|| treefix_accuracy::exact_in(t, slice, op, storage))
        .map_err(to_py)?;
    convert::stored(py, out, storage)
}

/// The arithmetic of values stored as `storage` and added in `accumulate` (a format's name;
/// None: the storage's own).
fn arithmetic(storage: Precision, accumulate: Option<&str>) -> PyResult<generators::Arithmetic> {
    let acc = match accumulate {
        Some(a) => a.parse::<Precision>().map_err(input)?,
        None => storage,
    };
    generators::Arithmetic::new(storage, acc).map_err(input)
}

/// Results and options, as score and assert_accurate take them.
struct Judged {
    score: treefix_accuracy::Score,
    tree: Py<Tree>,
    /// What the JSON document names as its tree and results.
    names: (String, String),
}

#[allow(clippy::too_many_arguments)]
fn judge(
    py: Python<'_>,
    tree: &Bound<'_, Tree>,
    w: &Bound<'_, PyAny>,
    rootfix: Option<&Bound<'_, PyAny>>,
    leaffix: Option<&Bound<'_, PyAny>>,
    reference: &str,
    max_lost_bits: Option<f64>,
    max_ulps: Option<u64>,
    algorithms: Option<Vec<String>>,
    accumulate: Option<&str>,
) -> PyResult<Judged> {
    let reference: ReferenceKind = reference.to_ascii_lowercase().parse().map_err(input)?;
    // Only the bounds asked for: each is a replay of its algorithm over the whole tree.
    let algorithms = match algorithms {
        Some(names) if names.iter().any(|a| a.eq_ignore_ascii_case("all")) => {
            Algorithm::ALL.to_vec()
        }
        Some(names) => names
            .iter()
            .map(|a| algorithm(a))
            .collect::<PyResult<Vec<_>>>()?,
        None => Vec::new(),
    };
    let (w, storage) = convert::values(w, "w")?;
    let r = rootfix.map(|r| convert::values(r, "rootfix")).transpose()?;
    let l = leaffix.map(|l| convert::values(l, "leaffix")).transpose()?;
    for (what, given) in [("rootfix", &r), ("leaffix", &l)] {
        if let Some((_, p)) = given
            && *p != storage
        {
            return Err(input(format!(
                "w holds {storage} values and {what} {p} ones: give both as the kernel stores them"
            )));
        }
    }
    let r = r.map(|(v, _)| v);
    let l = l.map(|(v, _)| v);
    let options = ScoreOptions {
        reference,
        max_lost_bits,
        max_ulps,
        algorithms,
        arithmetic: arithmetic(storage, accumulate)?,
    };
    let given: Vec<(Op, &convert::Values)> = [(Op::Rootfix, &r), (Op::Leaffix, &l)]
        .into_iter()
        .filter_map(|(op, v)| v.as_ref().map(|v| (op, v)))
        .collect();
    if given.is_empty() {
        return Err(input("no results: give rootfix=..., leaffix=... or both"));
    }
    let t = tree.get();
    preflight::score(t.tree.len(), given.len(), reference)?;
    let label = |v: usize| t.label_of(v);
    let score = match w.as_f64() {
        Some(w) => {
            let results: Vec<(Op, &[f64])> = given
                .iter()
                .map(|(op, v)| (*op, v.as_f64().expect("checked: the same format as w")))
                .collect();
            py.detach(|| treefix_accuracy::score_f64(&t.tree, w, &results, &options, &label))
        }
        None => {
            let results: Vec<(Op, &[f32])> =
                given.iter().map(|(op, v)| (*op, v.as_slice())).collect();
            let w = w.as_slice();
            py.detach(|| treefix_accuracy::score(&t.tree, w, &results, &options, &label))
        }
    }
    .map_err(to_py)?;
    let given: Vec<String> = given
        .iter()
        .map(|(op, _)| format!("{op}=<array>"))
        .collect();
    let tree_name = t
        .source
        .clone()
        .unwrap_or_else(|| format!("<Tree of {} vertices>", t.tree.len()));
    Ok(Judged {
        score,
        tree: tree.clone().unbind(),
        names: (tree_name, given.join(", ")),
    })
}

/// Judges another program's results on tree with weights w: rootfix and/or leaffix, one
/// float32 per vertex (numpy, a CPU torch tensor, anything with __array__ or __dlpack__).
/// Returns a Score: s.rootfix and s.leaffix (None when not given) hold max_lost_bits,
/// max_ulps, the per-node lost_bits, ulps and flags as arrays, and which bounds the results
/// stay within: the order-independent ones ("any-order", "balanced") and those of our
/// algorithms named by algorithms (["all"] for every one; none by default, as `accuracy
/// score` without --algos); s.summary is the table `accuracy score` prints. Gates (max_lost_bits,
/// max_ulps) only set s.passed; assert_accurate raises.
#[pyfunction]
#[pyo3(signature = (tree, w, *, rootfix=None, leaffix=None, reference="exact", max_lost_bits=None, max_ulps=None, algorithms=None, accumulate=None))]
#[allow(clippy::too_many_arguments)]
fn score(
    py: Python<'_>,
    tree: &Bound<'_, Tree>,
    w: &Bound<'_, PyAny>,
    rootfix: Option<&Bound<'_, PyAny>>,
    leaffix: Option<&Bound<'_, PyAny>>,
    reference: &str,
    max_lost_bits: Option<f64>,
    max_ulps: Option<u64>,
    algorithms: Option<Vec<String>>,
    accumulate: Option<&str>,
) -> PyResult<scored::Score> {
    let j = judge(
        py,
        tree,
        w,
        rootfix,
        leaffix,
        reference,
        max_lost_bits,
        max_ulps,
        algorithms,
        accumulate,
    )?;
    scored::to_py(py, &j.score, j.names)
}

/// The vertex an AccuracyError names: the one furthest above the order-independent bound
/// `within` names when that failed, else the one losing the most bits.
fn worst_vertex(o: &treefix_accuracy::score::OpScore, within: Option<&str>) -> usize {
    within
        .and_then(|b| b.parse::<treefix_accuracy::OrderBound>().ok())
        .and_then(|b| {
            let i = treefix_accuracy::OrderBound::ALL
                .iter()
                .position(|&x| x == b)?;
            let bounds = &o.nodes.order_bounds[i];
            (0..o.nodes.abs_error.len())
                .filter(|&v| o.nodes.abs_error[v] > bounds[v])
                .max_by(|&x, &y| {
                    (o.nodes.abs_error[x] / bounds[x])
                        .total_cmp(&(o.nodes.abs_error[y] / bounds[y]))
                        .then(y.cmp(&x))
                })
        })
        .unwrap_or(o.worst.vertex)
}

/// For a test suite: score the results and raise AccuracyError, naming the worst vertex (the
/// one losing the most bits; for an order-independent bound, the one furthest above it), when a node loses more than max_lost_bits, lies more than max_ulps from the correctly
/// rounded result, or when the results leave the bound named by within ("any-order",
/// "balanced", or one of our algorithms' names). With none of the three, within="any-order":
/// the results must be what f32 additions of each node's own terms, in some order, can give.
/// Returns the Score when all hold.
#[pyfunction]
#[pyo3(signature = (tree, w, *, rootfix=None, leaffix=None, max_lost_bits=None, max_ulps=None, within=None, reference="exact", accumulate=None))]
#[allow(clippy::too_many_arguments)]
fn assert_accurate(
    py: Python<'_>,
    tree: &Bound<'_, Tree>,
    w: &Bound<'_, PyAny>,
    rootfix: Option<&Bound<'_, PyAny>>,
    leaffix: Option<&Bound<'_, PyAny>>,
    max_lost_bits: Option<f64>,
    max_ulps: Option<u64>,
    within: Option<&str>,
    reference: &str,
    accumulate: Option<&str>,
) -> PyResult<scored::Score> {
    let within = match (within, max_lost_bits, max_ulps) {
        (Some(b), _, _) => Some(b.to_ascii_lowercase()),
        (None, None, None) => Some("any-order".to_string()),
        _ => None,
    };
    if let Some(b) = &within
        && b.parse::<treefix_accuracy::OrderBound>().is_err()
        && b.parse::<Algorithm>().is_err()
    {
        return Err(input(format!(
            "within={b:?}: expected any-order, balanced or one of our algorithms: {}",
            Algorithm::names().join(", ")
        )));
    }
    // Only the algorithm named, if any: the others' bounds are not asked for.
    let algorithms = within
        .as_deref()
        .filter(|b| b.parse::<treefix_accuracy::OrderBound>().is_err())
        .map(|b| vec![b.to_string()])
        .or(Some(Vec::new()));
    let j = judge(
        py,
        tree,
        w,
        rootfix,
        leaffix,
        reference,
        max_lost_bits,
        max_ulps,
        algorithms,
        accumulate,
    )?;
    let t = j.tree.get();
    let mut problems = Vec::new();
    for o in &j.score.ops {
        let mut why = Vec::new();
        if let (Some(b), Some(k)) = (max_lost_bits, o.nodes_over_max_lost_bits)
            && k > 0
        {
            why.push(format!(
                "{k} node(s) lose more than max_lost_bits={b} (max {:.2})",
                o.max_lost_bits
            ));
        }
        if let (Some(u), Some(k)) = (max_ulps, o.nodes_over_max_ulps)
            && k > 0
        {
            why.push(format!(
                "{k} node(s) lie more than max_ulps={u} from the correctly rounded result \
                 (max {})",
                treefix_accuracy::score::print::ulps_text(o.max_ulps)
            ));
        }
        if let Some(b) = &within {
            let outside = o
                .order_bounds
                .iter()
                .find(|v| v.bound.name() == b)
                .map(|v| (v.within, v.violations))
                .or_else(|| {
                    o.algorithms
                        .iter()
                        .find(|v| v.algorithm.name() == b)
                        .map(|v| (v.within, v.a_priori_violations.max(v.sharp_violations)))
                });
            if let Some((false, k)) = outside {
                why.push(format!("{k} node(s) outside the {b} bound"));
            }
        }
        if !why.is_empty() {
            let v = worst_vertex(o, within.as_deref());
            let label = t
                .label_of(v)
                .map(|l| format!(" ('{l}')"))
                .unwrap_or_default();
            problems.push(format!(
                "{}: {}; worst vertex {v}{label}: result {}, correctly rounded {}, {:.2} bits \
                 lost, {} ulps",
                o.op,
                why.join(", "),
                shown(o.arithmetic.storage, o.nodes.values[v]),
                shown(o.arithmetic.storage, o.nodes.reference[v]),
                o.nodes.lost_bits[v],
                treefix_accuracy::score::print::ulps_text(o.nodes.ulps[v])
            ));
        }
    }
    if problems.is_empty() {
        scored::to_py(py, &j.score, j.names.clone())
    } else {
        Err(AccuracyError::new_err(problems.join("; ")))
    }
}

/// A value of `storage` as Python would print its float (f32 ones as the f32 they are).
fn shown(storage: Precision, x: f64) -> String {
    match storage {
        Precision::F64 => x.to_string(),
        _ => (x as f32).to_string(),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Tree>()?;
    m.add_class::<scored::Score>()?;
    m.add_class::<scored::OpScore>()?;
    m.add_class::<spatial::SpatialLca>()?;
    m.add_function(wrap_pyfunction!(tree_from_parents, m)?)?;
    m.add_function(wrap_pyfunction!(files::tree_from_edges, m)?)?;
    m.add_function(wrap_pyfunction!(files::write_weights, m)?)?;
    m.add_function(wrap_pyfunction!(files::write_results, m)?)?;
    m.add_function(wrap_pyfunction!(read_tree, m)?)?;
    m.add_function(wrap_pyfunction!(generate_tree, m)?)?;
    m.add_function(wrap_pyfunction!(gensum, m)?)?;
    m.add_function(wrap_pyfunction!(rootfix, m)?)?;
    m.add_function(wrap_pyfunction!(leaffix, m)?)?;
    m.add_function(wrap_pyfunction!(exact, m)?)?;
    m.add_function(wrap_pyfunction!(score, m)?)?;
    m.add_function(wrap_pyfunction!(assert_accurate, m)?)?;
    m.add_function(wrap_pyfunction!(spatial::spatial_lca, m)?)?;
    m.add("ALGORITHMS", treefix_accuracy::Algorithm::names())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    error::register(m)?;
    Ok(())
}
