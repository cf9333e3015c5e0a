//! What an algorithm's values cost, and where that time was measured: a GPU kernel or a CPU
//! twin, from this run's own timings or from a `bench.csv`. Times are compared only with times
//! of the same kind — a CPU twin's time says nothing about a GPU kernel's — so the fastest of
//! a GPU comparison is always a GPU kernel.

use super::super::data::ReportData;
use serde_json::Value;

/// Where a time was measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A GPU kernel, on this adapter (`gpu: …` as results.csv and bench.csv name it).
    GpuKernel(String),
    /// The algorithm's CPU twin (its order on the CPU).
    CpuTwin,
}

impl Place {
    /// `cpu` for the CPU twin, anything else names the adapter that ran the kernel.
    pub fn of_backend(backend: &str) -> Place {
        if analysis::records::bench::is_cpu_backend(backend) {
            Place::CpuTwin
        } else {
            Place::GpuKernel(backend.to_string())
        }
    }
    pub fn is_gpu(&self) -> bool {
        matches!(self, Place::GpuKernel(_))
    }
    /// "GPU kernel" or "CPU twin".
    pub fn label(&self) -> &'static str {
        match self {
            Place::GpuKernel(_) => "GPU kernel",
            Place::CpuTwin => "CPU twin",
        }
    }
}

/// One algorithm's measured time on one op.
#[derive(Debug, Clone, PartialEq)]
pub struct Time {
    /// Seconds per vertex (its kernel or CPU twin, without reference, errors and bounds).
    pub per_vertex_s: f64,
    pub place: Place,
    /// Whether it comes from the `bench.csv` given to the report (else from this run).
    pub from_bench: bool,
}

/// A time and its ratio to the fastest time of the same place kind (`None`: not ranked, as a
/// CPU twin's time in a comparison of GPU kernels).
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    pub time: Time,
    pub relative: Option<f64>,
}

/// The times of one op's algorithms and what they are compared on.
#[derive(Debug, Clone, PartialEq)]
pub struct Costs {
    /// Per algorithm of the op, in its order.
    pub costs: Vec<Option<Cost>>,
    /// Whether the ratios compare GPU kernels (else CPU twins).
    pub gpu: bool,
    /// Where the times come from, in words, for the table's caption.
    pub source: String,
    /// The sweep's trees of this op, (topology, n): the only ones whose bench times count.
    pub trees: Vec<(String, usize)>,
    /// With a bench.csv: what it lacks to price this op on the sweep's trees, one phrase per
    /// lack ("no rootfix time on the sweep's chain at n=100"); empty without one.
    pub bench_lacks: Vec<String>,
}

impl Costs {
    /// The algorithm the ratios are taken against.
    pub fn fastest(&self) -> Option<usize> {
        (0..self.costs.len())
            .filter(|&i| self.relative(i).is_some())
            .min_by(|&i, &j| {
                self.relative(i)
                    .unwrap()
                    .total_cmp(&self.relative(j).unwrap())
            })
    }
    pub fn relative(&self, i: usize) -> Option<f64> {
        self.costs.get(i)?.as_ref()?.relative
    }
    /// Whether every algorithm has a time of the compared kind.
    pub fn complete(&self) -> bool {
        !self.costs.is_empty() && (0..self.costs.len()).all(|i| self.relative(i).is_some())
    }
    /// "GPU kernels" or "CPU twins".
    pub fn kind(&self) -> &'static str {
        if self.gpu { "GPU kernels" } else { "CPU twins" }
    }
}

/// The sweep's trees of `op`: (topology or file name, n), in order of first appearance.
pub fn trees(data: &ReportData, op: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for r in data.rows.iter().filter(|r| r.op == op) {
        let t = r.source.as_deref().unwrap_or(&r.topology);
        if !out.iter().any(|(x, n)| x == t && *n == r.n) {
            out.push((t.to_string(), r.n));
        }
    }
    out
}

/// The costs of `algorithms` on `op`: GPU kernel times where there are any (the price on the
/// device the reader runs; bench.csv's, on the sweep's own trees, before this run's), else
/// CPU twins' times.
pub fn costs(data: &ReportData, op: &str, algorithms: &[String]) -> Costs {
    let own = own_times(data, op);
    let trees = trees(data, op);
    let matched = data
        .bench
        .as_ref()
        .map(|(_, records)| analysis::records::bench::times_on(records, algorithms, op, &trees));
    let bench: Vec<Option<Time>> = match &matched {
        Some(m) => m
            .times
            .iter()
            .map(|t| {
                t.as_ref().map(|(s, backend)| Time {
                    per_vertex_s: *s,
                    place: Place::of_backend(backend),
                    from_bench: true,
                })
            })
            .collect(),
        None => vec![None; algorithms.len()],
    };
    let bench_lacks = matched.map(|m| lacks(&m, op)).unwrap_or_default();
    // A GPU kernel's time first (bench.csv's, then this run's), else this run's CPU twin's,
    // else bench.csv's.
    let times: Vec<Option<Time>> = algorithms
        .iter()
        .zip(bench)
        .map(|(a, b)| {
            let o = own
                .iter()
                .find(|(name, _)| name == a)
                .map(|(_, t)| t.clone());
            match (b, o) {
                (Some(b), _) if b.place.is_gpu() => Some(b),
                (_, Some(o)) => Some(o),
                (b, None) => b,
            }
        })
        .collect();
    let gpu = times.iter().flatten().any(|t| t.place.is_gpu());
    let fastest = times
        .iter()
        .flatten()
        .filter(|t| t.place.is_gpu() == gpu && t.per_vertex_s > 0.0)
        .map(|t| t.per_vertex_s)
        .reduce(f64::min);
    let costs = times
        .into_iter()
        .map(|t| {
            t.map(|time| Cost {
                relative: fastest
                    .filter(|_| time.place.is_gpu() == gpu)
                    .map(|f| time.per_vertex_s / f),
                time,
            })
        })
        .collect::<Vec<_>>();
    let mut source = source(data, op, algorithms, &costs, gpu);
    if !bench_lacks.is_empty() {
        source.push_str(&format!("; bench.csv has {}", bench_lacks.join("; ")));
    }
    Costs {
        costs,
        gpu,
        source,
        trees,
        bench_lacks,
    }
}

/// "no rootfix time on the sweep's chain at n=10000", "no rootfix time of vectorial-exact
/// on the sweep's trees".
fn lacks(m: &analysis::records::bench::Matched, op: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !m.missing_trees.is_empty() {
        let trees: Vec<String> = m
            .missing_trees
            .iter()
            .map(|(t, n)| format!("{t} at n={n}"))
            .collect();
        out.push(format!("no {op} time on the sweep's {}", trees.join(", ")));
    }
    // With no time at all, the trees say it; else the algorithms left out of the comparison.
    if !m.missing_algorithms.is_empty() && m.missing_algorithms.len() < m.times.len() {
        out.push(format!(
            "no {op} time of {} on the sweep's trees",
            super::few(&m.missing_algorithms)
        ));
    }
    out
}

/// The caption's words: which file the times come from, and what was not timed.
fn source(
    data: &ReportData,
    op: &str,
    algorithms: &[String],
    costs: &[Option<Cost>],
    gpu: bool,
) -> String {
    if costs.iter().all(Option::is_none) {
        return "no times: this run has no per-algorithm timings".into();
    }
    let bench_name = data.bench.as_ref().map(|(path, _)| {
        path.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    });
    let from_bench = costs.iter().flatten().any(|c| c.time.from_bench);
    let mut s = match (&bench_name, from_bench) {
        (Some(name), true) => format!(
            "times from {name} (each algorithm's median compute time per vertex on the sweep's own topologies and sizes) and, where it has none, from this run"
        ),
        _ => "times from this run's own timings".to_string(),
    };
    s.push_str(if gpu {
        "; ratios against the fastest GPU kernel"
    } else {
        "; ratios against the fastest CPU twin"
    });
    let untimed: Vec<String> = algorithms
        .iter()
        .zip(costs)
        .filter(|(_, c)| c.is_none())
        .map(|(a, _)| a.clone())
        .collect();
    if !untimed.is_empty() {
        let missing = super::few(&untimed);
        match &bench_name {
            Some(name) => s.push_str(&format!(
                " ({name} and this run have no {op} time for {missing})"
            )),
            None => s.push_str(&format!(" (no {op} time for {missing})")),
        }
    }
    s
}

/// (algorithm, time) of `op` from summary.json's `timings.kernels`, per vertex.
fn own_times(data: &ReportData, op: &str) -> Vec<(String, Time)> {
    let Some(list) = data
        .summary_field("timings")
        .and_then(|t| t.get("kernels"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    // (algorithm, backend, seconds, vertices), summed over entries.
    let mut sums: Vec<(String, String, f64, f64)> = Vec::new();
    for k in list {
        let (Some(a), Some(o), Some(s), Some(v)) = (
            k.get("algorithm").and_then(Value::as_str),
            k.get("op").and_then(Value::as_str),
            k.get("compute_s").and_then(Value::as_f64),
            k.get("vertices").and_then(Value::as_f64),
        ) else {
            continue;
        };
        if o != op {
            continue;
        }
        let backend = k.get("backend").and_then(Value::as_str).unwrap_or("cpu");
        match sums.iter_mut().find(|x| x.0 == a && x.1 == backend) {
            Some(x) => {
                x.2 += s;
                x.3 += v;
            }
            None => sums.push((a.to_string(), backend.to_string(), s, v)),
        }
    }
    sums.into_iter()
        .filter(|x| x.3 > 0.0)
        .map(|(a, backend, s, v)| {
            (
                a,
                Time {
                    per_vertex_s: s / v,
                    place: Place::of_backend(&backend),
                    from_bench: false,
                },
            )
        })
        .collect()
}
