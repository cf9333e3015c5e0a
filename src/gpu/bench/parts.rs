//! The parts of a bench run: what is measured and recorded as a whole, in order.

use super::BenchParams;
use generators::Topology;

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
