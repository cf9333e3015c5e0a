//! `--shard K/N`: the K-th of N deterministic parts of a sweep, for running one sweep on
//! several machines. Tree (job) `i` belongs to part `i mod N + 1`: the parts interleave, so
//! each gets its share of every topology, target and file (trees of one target cost about the
//! same, trees of different topologies or files do not), and any N covers the same trees with
//! the same indices and seeds as the unsharded sweep. K counts from 1 (`1/4 … 4/4`).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Part `k` of `n` (1 ≤ k ≤ n); stored in sweep.json as `"k/n"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    /// The whole sweep, as a part: what an unsharded directory covers.
    pub const WHOLE: Shard = Shard { k: 1, n: 1 };

    /// Whether tree `index` belongs to this part.
    pub fn holds(self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let parsed = s
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        let Some((k, n)) = parsed else {
            return Err(format!(
                "invalid shard '{s}': expected K/N, part K of N counted from 1 (1/4 … 4/4)"
            ));
        };
        if n == 0 {
            return Err(format!("invalid shard '{s}': N must be at least 1"));
        }
        if k == 0 || k > n {
            return Err(format!(
                "invalid shard '{s}': K counts from 1 to N ({} … {n}/{n})",
                Shard { k: 1, n }
            ));
        }
        Ok(Shard { k, n })
    }
}

impl From<Shard> for String {
    fn from(s: Shard) -> String {
        s.to_string()
    }
}

impl TryFrom<String> for Shard {
    type Error = String;
    fn try_from(s: String) -> Result<Shard, String> {
        s.parse()
    }
}

/// Tree indices for a message: the first few, then how many more.
pub fn list_trees(trees: &[usize]) -> String {
    const SHOWN: usize = 6;
    let mut s: Vec<String> = trees.iter().take(SHOWN).map(|t| t.to_string()).collect();
    if trees.len() > SHOWN {
        s.push(format!("… {} in all", trees.len()));
    }
    match trees.len() {
        1 => format!("tree {}", s[0]),
        _ => format!("trees {}", s.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_every_tree_once() {
        for n in 1..=7 {
            for i in 0..50 {
                let owners: Vec<usize> = (1..=n).filter(|&k| Shard { k, n }.holds(i)).collect();
                assert_eq!(owners.len(), 1, "tree {i} in {n} parts");
            }
        }
    }

    #[test]
    fn specs() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { k: 2, n: 4 }));
        assert_eq!("1/1".parse::<Shard>(), Ok(Shard::WHOLE));
        for bad in ["0/4", "5/4", "a/b", "1/0", "2", "", "-1/4", "1/4/2"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.starts_with(&format!("invalid shard '{bad}'")), "{e}");
        }
        assert_eq!(list_trees(&[3]), "tree 3");
        assert_eq!(
            list_trees(&(0..20).collect::<Vec<_>>()),
            "trees 0, 1, 2, 3, 4, 5, … 20 in all"
        );
    }
}
