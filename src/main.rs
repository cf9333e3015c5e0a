//! `accuracy`: the command-line front end. Parses and dispatches; each command is a module of
//! `cli/`.

// The CLI's doc comments are its `--help` text (clap), written for a terminal, not rustdoc.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use treefix_accuracy::gpu;

#[derive(Parser)]
#[command(
    name = "accuracy",
    version,
    about = "Measures, bounds and explains the bits f32 treefix computations lose"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    // In the order a user meets them: the main job and its report, one tree, grading
    // another program's results, GPU prices, then the rest.
    /// The paper's accuracy experiment (Fig. 10) over a range of condition numbers.
    Sweep(cli::sweep::SweepArgs),
    /// Re-render DIR/report.html from a sweep directory's files, without recomputing.
    Report(cli::report::ReportArgs),
    /// One tree, every algorithm: per-node results and errors.
    Run(cli::run::RunArgs),
    /// Score another program's per-vertex rootfix/leaffix results on a tree file: errors, lost
    /// bits, condition numbers, and whose of our algorithms' bounds they stay within.
    Score(cli::score::ScoreArgs),
    /// Time per vertex of the GPU kernels on generated trees and tree files, with the copy and
    /// host↔device baselines of the same run (resumable with --out).
    Bench(cli::bench::BenchArgs),
    /// Lost-bits regression suite against the committed baseline (exit 3: a bound violated,
    /// exit 4: a regression).
    Check(cli::check::CheckArgs),
    /// Print generated weights, one per line (achieved condition number on stderr).
    Gen(cli::generate::GenArgs),
    /// Table I of the seed paper for tree files: vertices, leaves, height, mean branching
    /// factor, max degree, and the reading time.
    Stats(cli::stats::StatsArgs),
    /// Per topology, op and algorithm: max lost bits measured and allowed by the error bound,
    /// bound tightness, and predicted vs measured extra bits of vectorial over parallel.
    BoundsTable(cli::bounds_table::BoundsTableArgs),
    /// Join the shard directories of one sweep (`sweep --shard K/N`) into OUT: the whole
    /// sweep's results.csv and nodes-sample.csv (the bytes of an unsharded run), summary.json
    /// and report.html.
    Merge(cli::merge::MergeArgs),
    /// A tree laid out on a spatial computer (a grid of processors): per layout and message
    /// pattern, energy, depth, estimated cycles and the algorithm's lost bits; the exponent
    /// over sizes; batched LCA's answers.
    Spatial(cli::spatial::SpatialArgs),
    /// The algorithms of the registry: name, GPU kernel, correctly rounded, what each adds
    /// (`--names` for scripts).
    Algorithms(cli::algorithms::AlgorithmsArgs),
    /// GPU adapters and their limits.
    Info,
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell), e.g.
    /// `accuracy completions bash > /etc/bash_completion.d/accuracy`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    end_quietly_on_a_closed_pipe();
    stdout_errors_are_one_line();
    quiet_mesa();
    let result = match Cli::parse().command {
        Command::Sweep(a) => cli::sweep::run(a),
        Command::Merge(a) => cli::merge::run(a),
        Command::Run(a) => cli::run::run(a),
        Command::Gen(a) => cli::generate::run(a),
        Command::Report(a) => cli::report::run(a),
        Command::BoundsTable(a) => cli::bounds_table::run(a),
        Command::Check(a) => cli::check::run(a),
        Command::Stats(a) => cli::stats::run(a),
        Command::Score(a) => cli::score::run(a),
        Command::Algorithms(a) => cli::algorithms::run(a),
        Command::Info => {
            print!("{}", gpu::info_text());
            Ok(())
        }
        Command::Bench(a) => cli::bench::run(a),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "accuracy",
                &mut std::io::stdout(),
            );
            Ok(())
        }
        Command::Spatial(a) => cli::spatial::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some((heading, lines)) = e.listing() {
                eprintln!("{heading}");
                for line in lines {
                    eprintln!("  {line}");
                }
            }
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// `accuracy run | head -1`: once the reader has gone, the next write to stdout ends the
/// process as it ends `cat` or `seq` (SIGPIPE, exit status 141 in a shell), instead of Rust's
/// default of a "failed printing to stdout" panic. Every command writes its files before it
/// prints its tables, so the files it promised are complete by then.
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// `accuracy run > /dev/full`: a failed write to stdout (a full disk, an I/O error) is a
/// one-line error with exit code 2, like a failed output file, instead of `println!`'s panic
/// and backtrace. Any other panic keeps the default report: it is a bug.
fn stdout_errors_are_one_line() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            eprintln!("error: stdout: write failed: {why}");
            std::process::exit(2);
        }
        default(info);
    }));
}

/// Mesa's Vulkan driver complains on every device creation without XDG_RUNTIME_DIR (as in
/// containers and CI): point it at a private directory instead.
fn quiet_mesa() {
    if let Some(dir) = treefix_accuracy::gpu::missing_runtime_dir() {
        // SAFETY: called first thing in main, before any other thread exists.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}
