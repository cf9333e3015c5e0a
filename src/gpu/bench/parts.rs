//! The parts of a bench run: what is measured and recorded as a whole, in order.

use super::BenchParams;
use generators::Topology;

/// One part of a bench run, measured and recorded as a whole: what `bench --out` resumes by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Part {
    /// The baselines for trees of n vertices.
    Baselines(usize),
    /// A generated tree of n vertices: every op and algorithm.
    Generated(Topology, usize),
    /// The i-th tree file: the baselines for its size, then every op and algorithm.
    File(usize),
}

impl Part {
    /// A name for the progress line and the resume record (`file_names`: the tree files').
    pub fn label(&self, file_names: &[String]) -> String {
        match *self {
            Part::Baselines(n) => format!("baselines n={}", size(n)),
            Part::Generated(t, n) => format!("{t} n={}", size(n)),
            // Numbered: two files may share a name.
            Part::File(i) => format!("file {}: {}", i + 1, file_names[i]),
        }
    }
}

/// `2^k` for a power of two (the names of earlier runs' parts, which resume by them), else
/// the count.
fn size(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// The parts of a run in the order they are measured: the baselines for every size, then
/// every topology at every size, then the tree files.
pub fn parts(p: &BenchParams, files: usize) -> Vec<Part> {
    let sizes = p.sizes();
    sizes
        .iter()
        .map(|&n| Part::Baselines(n))
        .chain(
            p.topologies
                .iter()
                .flat_map(|&t| sizes.iter().map(move |&n| Part::Generated(t, n))),
        )
        .chain((0..files).map(Part::File))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(nodes: Vec<usize>) -> BenchParams {
        BenchParams {
            topologies: vec![Topology::Chain],
            min_log2: 3,
            max_log2: 4,
            nodes,
            ops: vec![analysis::Op::Rootfix],
            algos: vec![],
            reps: 1,
            seed: 1,
        }
    }

    #[test]
    fn sizes_are_powers_of_two_or_the_counts_given() {
        let labels =
            |p: &BenchParams| -> Vec<String> { parts(p, 0).iter().map(|x| x.label(&[])).collect() };
        assert_eq!(
            labels(&params(vec![])),
            [
                "baselines n=2^3",
                "baselines n=2^4",
                "chain n=2^3",
                "chain n=2^4"
            ]
        );
        assert_eq!(
            labels(&params(vec![10_000, 64])),
            [
                "baselines n=10000",
                "baselines n=2^6",
                "chain n=10000",
                "chain n=2^6"
            ]
        );
    }
}
