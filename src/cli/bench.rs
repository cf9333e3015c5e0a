//! `accuracy bench`: time per vertex of the GPU kernels, with the baselines of the same run;
//! `--out DIR` writes bench.csv and bench.html (the seed paper's Figs. 4, 5 and 7).

use super::ReadArgs;
use clap::Args;
use generators::Topology;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use treefix_accuracy::bench::BenchProgress;
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::{Error, gpu, inputs, memory, output};

#[derive(Args)]
pub struct BenchArgs {
    /// Topologies, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "star,chain")]
    topology: Vec<Topology>,
    /// Smallest size, as log2 of the vertex count.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(0..=30))]
    min_log2: u32,
    /// Largest size, as log2 of the vertex count.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=30))]
    max_log2: u32,
    /// Vertex counts, comma-separated, instead of the powers of two of --min-log2..--max-log2
    /// (a sweep's --nodes, to price the size it measured).
    #[arg(long, value_delimiter = ',', value_parser = super::parse_count, conflicts_with_all = ["min_log2", "max_log2"])]
    nodes: Vec<u64>,
    /// Tree files to time as well (e.g. Matrix Market spanning trees, as in the paper's Fig. 4).
    #[arg(long = "tree", value_name = "FILE")]
    trees: Vec<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    /// Operations, comma-separated: rootfix, leaffix.
    #[arg(long, value_delimiter = ',', default_value = "rootfix")]
    ops: Vec<analysis::Op>,
    /// GPU algorithms, comma-separated (any with a GPU kernel; default: the seed paper's two;
    /// the sequential CPU baseline is always timed).
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = super::algorithm_parser(),
        default_values_t = paper_kernels()
    )]
    algos: Vec<analysis::Algorithm>,
    /// Timed repetitions per kernel (medians reported, with min and max; fewer when one call
    /// takes long).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Seed of the generated trees and their weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write DIR/bench.csv (one row per tree × op × algorithm × backend, baselines included)
    /// and DIR/bench.html. Rows reach the disk part by part; a run stopped at any moment
    /// resumes when started again with the same parameters on the same device.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

pub fn run(a: BenchArgs) -> Result<(), Error> {
    if a.min_log2 > a.max_log2 {
        return Err(Error::Usage(format!(
            "--min-log2 {} is above --max-log2 {}",
            a.min_log2, a.max_log2
        )));
    }
    if let Some(a) = a.algos.iter().find(|a| !a.has_gpu_kernel()) {
        return Err(Error::Usage(format!("{a} has no GPU kernel to time")));
    }
    if let Some(dir) = &a.out {
        let trees: Vec<(&str, &std::path::Path)> = a
            .trees
            .iter()
            .map(|t| ("a tree file of --tree", t.as_path()))
            .collect();
        let names = ["bench.csv", "bench.csv.partial", "bench.json", "bench.html"];
        let out = output::Destination::Dir {
            flag: "--out",
            dir,
            names: &names,
        };
        output::check_outputs(&[out], &trees)?;
    }
    // Read every file first: a bad one fails before any GPU time is spent.
    inputs::refuse_stdin("bench", &a.trees)?;
    let opts = a.read.options();
    let files = a
        .trees
        .iter()
        .map(|p| inputs::load(p, &opts, None))
        .collect::<Result<Vec<_>, Error>>()?;
    let largest = a.nodes.iter().copied().max().unwrap_or(1 << a.max_log2);
    let file_vertices: usize = files.iter().map(|f| f.file.tree.len()).sum();
    memory::check("bench", &memory::bench(largest, file_vertices as u64))?;
    let gpu = gpu::Gpu::new()?;
    eprintln!("backend: {}", gpu.describe());
    let params = gpu::bench::BenchParams {
        topologies: a.topology,
        min_log2: a.min_log2,
        max_log2: a.max_log2,
        nodes: a.nodes.iter().map(|&n| n as usize).collect(),
        ops: a.ops,
        algos: a.algos,
        reps: a.reps,
        seed: a.seed,
    };
    let bar = Bar::new(a.out.as_deref());
    let rows =
        treefix_accuracy::bench::run(&gpu, &params, &files, a.out.as_deref(), &|p| bar.show(p))?;
    // The page before the table: a closed stdout ends the process at its first line.
    let written = match &a.out {
        Some(dir) => Some(reports::bench::write_bench_report(dir)?),
        None => None,
    };
    print!("{}", gpu::bench::table(&gpu, &rows));
    if let (Some(dir), Some(written)) = (a.out, written) {
        println!(
            "wrote {}",
            dir.join(analysis::records::bench::FILE).display()
        );
        println!("{}", super::report::describe(&written));
    }
    Ok(())
}

/// The seed paper's algorithms that have a GPU kernel (its Algorithms 1 and 2).
fn paper_kernels() -> Vec<analysis::Algorithm> {
    analysis::Algorithm::paper()
        .into_iter()
        .filter(|a| a.has_gpu_kernel())
        .collect()
}

/// The bench's progress on stderr: a bar on a terminal, a line per part without one (logs
/// stay informative).
struct Bar {
    bar: ProgressBar,
    dir: Option<std::path::PathBuf>,
}

impl Bar {
    fn new(dir: Option<&std::path::Path>) -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} bench [{bar:30}] {pos}/{len} parts, {elapsed} elapsed: {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        Bar {
            bar,
            dir: dir.map(Into::into),
        }
    }

    fn show(&self, p: BenchProgress) {
        match p {
            BenchProgress::Start { parts, resumed } => {
                self.bar.set_length(parts as u64);
                self.bar
                    .enable_steady_tick(std::time::Duration::from_millis(120));
                self.bar.set_position(resumed as u64);
                if resumed > 0 {
                    let dir = self.dir.as_deref().unwrap_or(std::path::Path::new(""));
                    self.bar.suspend(|| {
                        eprintln!(
                            "resuming {}: {resumed} of {parts} parts already done",
                            dir.display()
                        )
                    });
                }
            }
            BenchProgress::Part(label) => {
                if self.bar.is_hidden() {
                    eprintln!("bench: {label}");
                }
                self.bar.set_message(label);
            }
            BenchProgress::PartDone => self.bar.inc(1),
            BenchProgress::Finished => self.bar.finish_and_clear(),
        }
    }
}
