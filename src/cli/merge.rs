//! `accuracy merge OUT DIR…`: the shards of a sweep joined into the whole sweep's files.

use clap::Args;
use std::path::PathBuf;
use treefix_accuracy::Error;
use treefix_accuracy::sweep::{self, merge};

#[derive(Args)]
pub struct MergeArgs {
    /// Where to write the merged results.csv, nodes-sample.csv, summary.json and report.html
    /// (created if needed; not one of the shard directories).
    out: PathBuf,
    /// The shard directories (`sweep --shard K/N --out DIR`), each finished, every part of the
    /// sweep exactly once, in any order.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// No table.
    #[arg(long)]
    quiet: bool,
}

pub fn run(a: MergeArgs) -> Result<(), Error> {
    let merged = merge::merge(&a.out, &a.dirs)?;
    if !a.quiet {
        print!("{}", sweep::table(&merged.params, &merged.rows));
        println!(
            "merged {} shards ({} trees) into {}/results.csv, nodes-sample.csv and summary.json",
            merged.shards,
            merged.params.jobs_len(),
            a.out.display()
        );
    }
    // As after a sweep: the report shows bound violations too.
    let verdict = merge::verdicts(&merged);
    if let Ok(Some(warning)) = &verdict {
        super::show([warning]);
    }
    if matches!(verdict, Ok(_) | Err(Error::BoundViolation(_))) {
        let written = sweep::files::write_report(&a.out, None)?;
        if !a.quiet {
            println!("{}", super::report::describe(&written));
            super::report::print_answers(&written);
        }
    }
    verdict.map(|_| ())
}
