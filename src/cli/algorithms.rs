//! `accuracy algorithms`: the registry, for people (a table) and for scripts (`--names`).

use super::write_stdout;
use clap::Args;
use treefix_accuracy::{Algorithm, Error};

#[derive(Args)]
pub struct AlgorithmsArgs {
    /// Only the names, comma-separated on one line (for scripts: `--algos "$(accuracy
    /// algorithms --names --gpu)"`).
    #[arg(long)]
    names: bool,
    /// Only the algorithms with a GPU kernel.
    #[arg(long)]
    gpu: bool,
    /// Only the correctly rounded ones.
    #[arg(long)]
    correctly_rounded: bool,
}

pub fn run(a: AlgorithmsArgs) -> Result<(), Error> {
    let chosen: Vec<Algorithm> = Algorithm::ALL
        .into_iter()
        .filter(|x| !a.gpu || x.has_gpu_kernel())
        .filter(|x| !a.correctly_rounded || x.correctly_rounded())
        .collect();
    let text = if a.names {
        let names: Vec<&str> = chosen.iter().map(|x| x.name()).collect();
        format!("{}\n", names.join(","))
    } else {
        table(&chosen)
    };
    write_stdout(text.as_bytes())
}

/// One line per algorithm: its name, short name, whether it has a GPU kernel and is correctly
/// rounded, the formats it can add in, and what it adds.
fn table(algos: &[Algorithm]) -> String {
    let mut out = format!(
        "{:<22} {:<5} {:<4} {:<9} {:<16} what it adds\n",
        "algorithm", "short", "gpu", "rounded", "adds in"
    );
    for a in algos {
        let adds_in: Vec<String> = a
            .hooks()
            .accumulates_in
            .iter()
            .map(|p| p.to_string())
            .collect();
        out += &format!(
            "{:<22} {:<5} {:<4} {:<9} {:<16} {}\n",
            a.name(),
            a.short(),
            if a.has_gpu_kernel() { "f32" } else { "-" },
            if a.correctly_rounded() {
                "correctly"
            } else {
                "-"
            },
            adds_in.join(","),
            a.summary_text()
        );
    }
    out
}
