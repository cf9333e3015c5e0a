//! `accuracy bench`: time per vertex of the GPU kernels, compute only and with transfers, the
//! ratio parallel / vectorial (the paper's regularity-versus-load-balancing question), and in
//! the same run the baselines they are judged against: a device copy kernel (`copy`) and plain
//! host↔device buffer copies (`upload`, `download`). Rows are
//! [`analysis::records::bench::BenchRecord`]s: medians over the repetitions with min and max.

use super::Gpu;
use super::types::VertexCount;
use crate::Error;
use crate::experiment::Backend;
use analysis::algorithms::PaperRole;
use analysis::records::bench::BenchRecord;
use analysis::report::sig3;
use analysis::{Algorithm, Op};
use generators::{ChildOrder, Topology, Tree, WeightModel};
use std::fmt::Write;
use std::time::Instant;

/// What to measure (saved in `bench.json` by `bench --out`, and compared on resume).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BenchParams {
    pub topologies: Vec<Topology>,
    /// Sizes 2^min_log2 ..= 2^max_log2.
    pub min_log2: u32,
    pub max_log2: u32,
    pub ops: Vec<Op>,
    /// GPU algorithms timed (sequential, the CPU baseline, always is).
    pub algos: Vec<Algorithm>,
    /// Timed repetitions after one warm-up call (fewer when one call takes long).
    pub reps: usize,
    pub seed: u64,
}

/// Stop repeating a measurement once it has used this much wall time.
const BUDGET_S: f64 = 15.0;

/// Busy time before each timed call (the clock governor reacts within a couple of hundred ms).
const WARM_S: f64 = 0.2;

/// Keeps the GPU's clocks up before each timed call. An idle H100 drops its SMs to 345 MHz
/// within seconds (measured with nvidia-smi during `bench`), and a short kernel timed after a
/// host pause (tree generation, the CPU twin check, transfers) ran at that clock: 3.4x slower,
/// depending on what ran before. 200 ms of copy kernels first make every timed call start at
/// the clock a busy GPU runs at.
struct Warmer {
    bind: wgpu::BindGroup,
    groups: (u32, u32),
    _buffers: Vec<wgpu::Buffer>,
}

impl Warmer {
    fn new(gpu: &Gpu) -> Result<Warmer, Error> {
        let ctx = &gpu.ctx;
        let words = 1usize << 22;
        let src = ctx.buffer("warm-up source", words, words, wgpu::BufferUsages::empty())?;
        let dst = ctx.buffer(
            "warm-up destination",
            words,
            words,
            wgpu::BufferUsages::empty(),
        )?;
        let count = ctx.uniform(
            "warm-up count",
            &VertexCount {
                n: words as u32,
                ..Default::default()
            },
        );
        Ok(Warmer {
            bind: ctx.kernels.copy.bind(
                &ctx.device,
                &[("count", &count), ("src", &src), ("dst", &dst)],
            ),
            groups: ctx.fold((words as u32).div_ceil(ctx.sizes.wg)),
            _buffers: vec![src, dst, count],
        })
    }

    fn run(&self, gpu: &Gpu) -> Result<(), Error> {
        let ctx = &gpu.ctx;
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < WARM_S {
            let mut rec = super::Recorder::new(ctx);
            {
                let mut pass = rec.encoder.begin_compute_pass(&Default::default());
                ctx.kernels.copy.set(&mut pass);
                pass.set_bind_group(0, &self.bind, &[]);
                for _ in 0..16 {
                    pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
                }
            }
            rec.submit();
            ctx.wait()?;
        }
        Ok(())
    }
}

/// `2^k` for a power of two, else the count itself (a tree file's size).
fn size(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// Median ([`analysis::stats::median`]: the lower middle of an even count), min and max of
/// some times.
fn stats(mut xs: Vec<f64>) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    let m = xs.len();
    let median = analysis::stats::median(&mut xs).unwrap_or(f64::NAN);
    (median, xs[0], xs[m - 1])
}

/// Bytes a kernel must move at least (each input read once, each output written once; a
/// parent's or child's value counted once), per stage: the model behind the GB/s figures, from
/// the algorithm's descriptor.
fn kernel_bytes(algo: Algorithm, op: Op, w: &[f32]) -> Vec<(&'static str, u64)> {
    algo.gpu().map_or_else(Vec::new, |k| (k.traffic)(op, w))
}

struct Samples {
    compute: Vec<f64>,
    transfer: Vec<f64>,
    stages: Vec<Vec<f64>>,
}

/// A row named `algorithm` for `op` on a tree of `n` vertices.
fn named(
    gpu: &Gpu,
    topology: &str,
    n: usize,
    height: u32,
    op: &str,
    algorithm: &str,
) -> BenchRecord {
    BenchRecord {
        topology: topology.to_string(),
        n,
        height,
        op: op.to_string(),
        algorithm: algorithm.to_string(),
        backend: gpu.describe(),
        compute_s: 0.0,
        compute_min_s: 0.0,
        compute_max_s: 0.0,
        transfer_s: 0.0,
        transfer_min_s: 0.0,
        transfer_max_s: 0.0,
        bytes_moved: 0,
        reps: 0,
    }
}

/// The sequential CPU twin on one core (the seed paper's speed-up baseline, its Fig. 5): wall
/// time of each repetition, backend `cpu`, no transfers.
fn sequential_row(
    gpu: &Gpu,
    name: &str,
    (tree, w): (&Tree, &[f32]),
    op: Op,
    reps: usize,
) -> BenchRecord {
    let baseline = Algorithm::with_role(PaperRole::Baseline);
    let mut row = named(
        gpu,
        name,
        tree.len(),
        tree.height(),
        op.name(),
        baseline.name(),
    );
    row.backend = "cpu".into();
    let start = Instant::now();
    let mut times = Vec::new();
    while times.len() < reps.max(1)
        && (times.is_empty() || start.elapsed().as_secs_f64() < BUDGET_S)
    {
        let t = Instant::now();
        std::hint::black_box(baseline.twin(tree, w, op));
        times.push(t.elapsed().as_secs_f64());
    }
    let zeros = vec![0.0; times.len()];
    // Each weight read once and each result written once.
    timed(row, times, zeros, 8 * tree.len() as u64)
}

/// `row` with the statistics of its repetitions and the bytes it moves.
fn timed(
    mut row: BenchRecord,
    compute: Vec<f64>,
    transfer: Vec<f64>,
    bytes_moved: u64,
) -> BenchRecord {
    row.reps = compute.len();
    (row.compute_s, row.compute_min_s, row.compute_max_s) = stats(compute);
    (row.transfer_s, row.transfer_min_s, row.transfer_max_s) = stats(transfer);
    row.bytes_moved = bytes_moved;
    row
}

/// One kernel on one tree: a warm-up call checked bit for bit against the CPU twin, then the
/// timed repetitions. Rows: the kernel, then (vectorial, with timestamps) each stage.
fn measure(
    gpu: &Gpu,
    warmer: &Warmer,
    name: &str,
    (tree, w): (&Tree, &[f32]),
    (algo, op): (Algorithm, Op),
    reps: usize,
) -> Result<Vec<BenchRecord>, Error> {
    let (values, _) = gpu.compute_timed(tree, w, algo, op)?;
    let twin = algo.twin(tree, w, op);
    if let Some(v) = (0..values.len()).find(|&v| values[v].to_bits() != twin[v].to_bits()) {
        return Err(Error::Gpu(format!(
            "{algo} {op}: GPU result {} differs from the CPU twin {} at vertex {v}",
            values[v], twin[v]
        )));
    }
    let mut s = Samples {
        compute: Vec::new(),
        transfer: Vec::new(),
        stages: Vec::new(),
    };
    let start = Instant::now();
    while s.compute.len() < reps.max(1) {
        warmer.run(gpu)?;
        let (_, t) = gpu.compute_timed(tree, w, algo, op)?;
        s.compute.push(t.compute_s);
        s.transfer.push(t.transfer_s());
        s.stages.resize(t.stages.len(), Vec::new());
        for (k, &(_, x)) in t.stages.iter().enumerate() {
            s.stages[k].push(x);
        }
        if start.elapsed().as_secs_f64() > BUDGET_S {
            break;
        }
    }
    let bytes = kernel_bytes(algo, op, w);
    let total: u64 = bytes.iter().map(|b| b.1).sum();
    let reps = s.compute.len();
    let row = |algorithm: &str| {
        named(
            gpu,
            name,
            tree.len(),
            tree.height(),
            &op.to_string(),
            algorithm,
        )
    };
    let mut rows = vec![timed(row(&algo.to_string()), s.compute, s.transfer, total)];
    if algo.is_vectorial() && s.stages.len() == bytes.len() {
        for (k, times) in s.stages.into_iter().enumerate() {
            let stage = row(&format!("{algo}/{}", bytes[k].0));
            rows.push(timed(stage, times, vec![0.0; reps], bytes[k].1));
        }
    }
    Ok(rows)
}

/// One part of a bench run, measured and recorded as a whole: what `bench --out` resumes by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Part {
    /// The baselines for trees of 2^k vertices.
    Baselines(u32),
    /// A generated tree of 2^k vertices: every op and algorithm.
    Generated(Topology, u32),
    /// The i-th tree file: the baselines for its size, then every op and algorithm.
    File(usize),
}

impl Part {
    /// A name for the progress line and the resume record (`file_names`: the tree files').
    pub fn label(&self, file_names: &[String]) -> String {
        match *self {
            Part::Baselines(k) => format!("baselines n=2^{k}"),
            Part::Generated(t, k) => format!("{t} n=2^{k}"),
            // Numbered: two files may share a name.
            Part::File(i) => format!("file {}: {}", i + 1, file_names[i]),
        }
    }
}

/// The parts of a run in the order they are measured: the baselines for every size, then
/// every topology at every size, then the tree files.
pub fn parts(p: &BenchParams, files: usize) -> Vec<Part> {
    let sizes = p.min_log2..=p.max_log2;
    sizes
        .clone()
        .map(Part::Baselines)
        .chain(
            p.topologies
                .iter()
                .flat_map(|&t| sizes.clone().map(move |k| Part::Generated(t, k))),
        )
        .chain((0..files).map(Part::File))
        .collect()
}

/// Measures parts on one device, keeping its clocks up before each timed call.
pub struct Bench<'a> {
    gpu: &'a Gpu,
    params: &'a BenchParams,
    warmer: Warmer,
}

/// The tree and weights a bench times for a generated part of 2^`log2` vertices: the
/// topology's tree, then normal weights, from one generator seeded with `seed`.
pub fn generated_input(
    topology: Topology,
    log2: u32,
    seed: u64,
) -> Result<(Tree, Vec<f32>), Error> {
    let n = 1usize << log2;
    let mut rng = generators::rng(seed);
    let tree = topology.generate(n, ChildOrder::Natural, &mut rng)?;
    let w = WeightModel::Normal.weights(n, 1.0, &mut rng)?;
    Ok((tree, w))
}

impl<'a> Bench<'a> {
    pub fn new(gpu: &'a Gpu, params: &'a BenchParams) -> Result<Bench<'a>, Error> {
        Ok(Bench {
            gpu,
            params,
            warmer: Warmer::new(gpu)?,
        })
    }

    /// The rows of one part; `files` are the tree files (name, tree) that `Part::File` indexes.
    pub fn measure(&self, part: Part, files: &[(String, Tree)]) -> Result<Vec<BenchRecord>, Error> {
        let p = self.params;
        match part {
            Part::Baselines(k) => baselines_warm(self.gpu, &self.warmer, 1 << k, p.reps),
            Part::Generated(topology, k) => {
                let (tree, w) = generated_input(topology, k, p.seed)?;
                self.tree(&topology.to_string(), &tree, &w)
            }
            Part::File(i) => {
                let (name, tree) = &files[i];
                // Normal weights from the seed, as for a generated tree.
                let n = tree.len();
                let w = WeightModel::Normal.weights(n, 1.0, &mut generators::rng(p.seed))?;
                let mut rows = baselines_warm(self.gpu, &self.warmer, n, p.reps)?;
                rows.extend(self.tree(name, tree, &w)?);
                Ok(rows)
            }
        }
    }

    /// Every op on one tree: the sequential CPU baseline, then each algorithm.
    fn tree(&self, name: &str, tree: &Tree, w: &[f32]) -> Result<Vec<BenchRecord>, Error> {
        let p = self.params;
        let mut rows = Vec::new();
        for &op in &p.ops {
            rows.push(sequential_row(self.gpu, name, (tree, w), op, p.reps));
            for &algo in &p.algos {
                rows.extend(measure(
                    self.gpu,
                    &self.warmer,
                    name,
                    (tree, w),
                    (algo, op),
                    p.reps,
                )?);
            }
        }
        Ok(rows)
    }
}

/// Baseline rows for trees of `n` vertices, measured now: `copy` (a device kernel copying the
/// 2n words of an Euler-tour vector; compute columns), `upload` and `download` (4n bytes with
/// wgpu's plain buffer copies: `Queue::write_buffer`, and a copy into a mapped buffer read
/// back into a `Vec`; transfer columns, each waited for).
fn baselines_warm(
    gpu: &Gpu,
    warmer: &Warmer,
    n: usize,
    reps: usize,
) -> Result<Vec<BenchRecord>, Error> {
    let ctx = &gpu.ctx;
    let words = 2 * n;
    use wgpu::BufferUsages as U;
    let src = ctx.buffer("copy source", words, n, U::COPY_DST)?;
    let dst = ctx.buffer("copy destination", words, n, U::COPY_SRC)?;
    let count = ctx.uniform(
        "copy count",
        &VertexCount {
            n: words as u32,
            ..Default::default()
        },
    );
    let bind = ctx.kernels.copy.bind(
        &ctx.device,
        &[("count", &count), ("src", &src), ("dst", &dst)],
    );
    let bytes = 4 * n as u64;
    let host: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
    let down = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("download baseline"),
        size: bytes,
        usage: U::MAP_READ | U::COPY_DST,
        mapped_at_creation: false,
    });
    let (mut copy, mut upload, mut download) = (Vec::new(), Vec::new(), Vec::new());
    let start = Instant::now();
    // One warm-up round, then the timed ones.
    for rep in 0..=reps.max(1) {
        warmer.run(gpu)?;
        let t = Instant::now();
        let mut rec = super::Recorder::new(ctx);
        {
            let mut pass = rec
                .encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("copy baseline"),
                    timestamp_writes: ctx.pass_timestamps(true, Some(1)),
                });
            let (x, y) = ctx.fold((words as u32).div_ceil(ctx.sizes.wg));
            ctx.kernels.copy.set(&mut pass);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        ctx.resolve_timestamps(&mut rec.encoder, 2);
        rec.submit();
        ctx.wait()?;
        let wall = t.elapsed().as_secs_f64();
        let kernel = ctx.read_timestamps(2)?.map_or(wall, |t| t[0]);

        let t = Instant::now();
        ctx.queue.write_buffer(&src, 0, &host);
        ctx.queue.submit([]);
        ctx.wait()?;
        let up_s = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let mut rec = super::Recorder::new(ctx);
        rec.encoder.copy_buffer_to_buffer(&dst, 0, &down, 0, bytes);
        rec.submit();
        let back = ctx.map_read(&down, bytes, |b| b.to_vec())?;
        let down_s = t.elapsed().as_secs_f64();
        if back.len() as u64 != bytes {
            return Err(Error::Gpu("download baseline: short read".into()));
        }
        if rep > 0 {
            copy.push(kernel);
            upload.push(up_s);
            download.push(down_s);
            if start.elapsed().as_secs_f64() > BUDGET_S {
                break;
            }
        }
    }
    let row = |algorithm: &str| named(gpu, "", n, 0, "", algorithm);
    let zeros = vec![0.0; copy.len()];
    Ok(vec![
        timed(row("copy"), copy, zeros.clone(), 2 * 4 * words as u64),
        timed(row("upload"), zeros.clone(), upload, bytes),
        timed(row("download"), zeros, download, bytes),
    ])
}

fn find<'a>(
    rows: &'a [BenchRecord],
    topology: &str,
    n: usize,
    op: &str,
    algo: &str,
) -> Option<&'a BenchRecord> {
    rows.iter()
        .find(|r| r.topology == topology && r.n == n && r.op == op && r.algorithm == algo)
}

/// The other GPU kernels (chained, compensated, contraction) against `vectorial` on the same
/// trees: compute ns per vertex and the ratio to vectorial, measured in the same run.
fn variants_table(s: &mut String, rows: &[BenchRecord]) {
    let (par, vec) = (
        Algorithm::with_role(PaperRole::Algorithm1),
        Algorithm::with_role(PaperRole::Algorithm2),
    );
    let variants: Vec<String> = Algorithm::ALL
        .iter()
        .filter(|&&a| a.has_gpu_kernel() && a != vec && a != par)
        .map(|a| a.to_string())
        .filter(|a| rows.iter().any(|r| &r.algorithm == a))
        .collect();
    if variants.is_empty() {
        return;
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "The other kernels: compute ns per vertex (medians) and the ratio to vectorial in the same run"
    );
    let _ = writeln!(s);
    let heads: Vec<String> = variants.iter().map(|v| format!("{v} | ratio")).collect();
    let _ = writeln!(
        s,
        "| topology | n | op | vectorial | {} |",
        heads.join(" | ")
    );
    let _ = writeln!(
        s,
        "|---|---:|---|---:|{}",
        "---:|---:|".repeat(variants.len())
    );
    for v in rows.iter().filter(|r| r.algorithm == vec.name()) {
        let per = |x: f64| sig3(x / v.n as f64 * 1e9);
        let cells: Vec<String> = variants
            .iter()
            .map(|a| match find(rows, &v.topology, v.n, &v.op, a) {
                Some(r) => format!("{} | {}", per(r.compute_s), sig3(r.compute_s / v.compute_s)),
                None => "- | -".into(),
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            v.topology,
            size(v.n),
            v.op,
            per(v.compute_s),
            cells.join(" | ")
        );
    }
}

/// Markdown tables: ns per vertex of each kernel (medians; compute only and with weights up
/// and results down), the ratio parallel / vectorial, then the baselines and how close the
/// vectorial stages and the transfers come to them.
pub fn table(gpu: &Gpu, rows: &[BenchRecord]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}; compute time by {}; medians of the repetitions, each after 200 ms of GPU work (clocks up); ns per vertex",
        gpu.describe(),
        gpu.timing_method()
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| topology | n | height | op | parallel compute | vectorial compute | par/vec | parallel + transfers | vectorial + transfers | par/vec |"
    );
    let _ = writeln!(s, "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    let par = Algorithm::with_role(PaperRole::Algorithm1).to_string();
    let vec = Algorithm::with_role(PaperRole::Algorithm2).to_string();
    for p in rows.iter().filter(|r| r.algorithm == par) {
        let Some(v) = find(rows, &p.topology, p.n, &p.op, &vec) else {
            continue;
        };
        let per = |x: f64| sig3(x / p.n as f64 * 1e9);
        let (pc, vc) = (p.compute_s, v.compute_s);
        let (pt, vt) = (pc + p.transfer_s, vc + v.transfer_s);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.topology,
            size(p.n),
            p.height,
            p.op,
            per(pc),
            per(vc),
            sig3(pc / vc),
            per(pt),
            per(vt),
            sig3(pt / vt),
        );
    }
    variants_table(&mut s, rows);
    let base: Vec<&BenchRecord> = rows.iter().filter(|r| r.algorithm == "copy").collect();
    if base.is_empty() {
        return s;
    }
    let gbs = |bytes: u64, t: f64| bytes as f64 / t / 1e9;
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Baselines (GB/s, medians): copy kernel (bytes read + written), upload and download (plain buffer copies: Queue::write_buffer; copy into a mapped buffer, read back into a Vec)"
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "| n | copy | upload | download |");
    let _ = writeln!(s, "|---:|---:|---:|---:|");
    for c in &base {
        let up = find(rows, "", c.n, "", "upload");
        let down = find(rows, "", c.n, "", "download");
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            size(c.n),
            sig3(gbs(c.bytes_moved, c.compute_s)),
            up.map_or("-".into(), |r| sig3(gbs(r.bytes_moved, r.transfer_s))),
            down.map_or("-".into(), |r| sig3(gbs(r.bytes_moved, r.transfer_s))),
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Effective bandwidth against the baselines of the same size (% of copy kernel; transfers: weights up + results down, % of upload + download)"
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| topology | n | op | vectorial write + scan | vectorial read | parallel transfers | vectorial transfers |"
    );
    let _ = writeln!(s, "|---|---:|---|---:|---:|---:|---:|");
    for v in rows.iter().filter(|r| r.algorithm == vec) {
        let Some(c) = find(rows, "", v.n, "", "copy") else {
            continue;
        };
        let copy_bw = gbs(c.bytes_moved, c.compute_s);
        let stage = |name: &str| {
            find(rows, &v.topology, v.n, &v.op, &format!("{vec}/{name}")).map_or("-".into(), |r| {
                let bw = gbs(r.bytes_moved, r.compute_s);
                format!("{} GB/s ({}%)", sig3(bw), sig3(100.0 * bw / copy_bw))
            })
        };
        let bus = match (
            find(rows, "", v.n, "", "upload"),
            find(rows, "", v.n, "", "download"),
        ) {
            (Some(u), Some(d)) => u.transfer_s + d.transfer_s,
            _ => f64::NAN,
        };
        let transfers = |r: Option<&BenchRecord>| {
            r.map_or("-".into(), |r| {
                format!(
                    "{} GB/s ({}%)",
                    sig3(gbs(8 * r.n as u64, r.transfer_s)),
                    sig3(100.0 * bus / r.transfer_s)
                )
            })
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            v.topology,
            size(v.n),
            v.op,
            stage("scan"),
            stage("read"),
            transfers(find(rows, &v.topology, v.n, &v.op, &par)),
            transfers(Some(v)),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(stats(vec![3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(stats(vec![4.0, 1.0, 2.0, 3.0]), (2.0, 1.0, 4.0));
    }
}
