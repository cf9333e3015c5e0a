//! `accuracy stats`: the seed paper's Table I for tree files.

use super::ReadArgs;
use clap::Args;
use generators::io::TreeStats;
use std::path::PathBuf;
use treefix_accuracy::inputs::display_name;
use treefix_accuracy::{Error, inputs};

#[derive(Args)]
pub struct StatsArgs {
    /// Tree files (Newick, NEXUS, Matrix Market, parent arrays; gzipped or not).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
}

pub fn run(a: StatsArgs) -> Result<(), Error> {
    println!(
        "{:<48} {:>7} {:>10} {:>10} {:>8} {:>8} {:>10} {:>8} {:>9} {:>9} {:>8}",
        "file",
        "format",
        "vertices",
        "leaves",
        "height",
        "levels",
        "mean br.",
        "max deg",
        "read ms",
        "MB/s",
        "weights"
    );
    let opts = a.read.options();
    let mut failed = 0;
    for path in &a.files {
        // One bad file does not hide the others: its error is printed and counted.
        let t = match inputs::load(path, &opts, None) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
                continue;
            }
        };
        let s = TreeStats::of(&t.file.tree);
        println!(
            "{:<48} {:>7} {:>10} {:>10} {:>8} {:>8} {:>10.1} {:>8} {:>9.2} {:>9.1} {:>8}",
            display_name(path),
            t.file.format.name(),
            s.vertices,
            s.leaves,
            s.height,
            s.levels,
            s.mean_branching,
            s.max_degree,
            t.file.read_s * 1e3,
            t.file.bytes as f64 / 1e6 / t.file.read_s.max(1e-9),
            if t.file.weights.is_some() {
                "own"
            } else {
                "none"
            }
        );
    }
    println!(
        "mean br. = vertices / levels (the seed paper's average branching factor, Table I); \
         levels = height + 1; MB/s of the file as stored"
    );
    if failed > 0 {
        return Err(Error::Usage(format!(
            "{failed} of {} file(s) could not be read (above)",
            a.files.len()
        )));
    }
    Ok(())
}
