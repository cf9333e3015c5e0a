//! Seeded tree topologies, as parent arrays.
//!
//! Vertex 0 is always the root. Each generator is deterministic given its `Rng`.

use crate::tree::NO_PARENT;
use crate::{ChildOrder, Rng, Tree, TreeError};
use rand::RngExt as _;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A family of trees. Parameters are written after a colon: `kary:4`, `broom:0.5`,
/// `profile:490:2`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Topology {
    /// The paper's caterpillar / linked list: parent(v) = v − 1.
    Chain,
    /// The root and n − 1 leaves.
    Star,
    /// parent(v) uniform in 0..v.
    RandomRecursive,
    /// Uniform random labelled tree (random Prüfer sequence), rooted at 0.
    Prufer,
    /// Complete k-ary tree in breadth-first numbering: parent(v) = (v − 1) / k.
    Kary { k: u32 },
    /// A path holding `handle` (a fraction of n) of the vertices, then a star at its end.
    Broom { handle: f64 },
    /// A path (the spine) with one leaf hanging from each spine vertex.
    CaterpillarLegs,
    /// `depth + 1` levels whose widths grow by `branching` per level until the remaining
    /// vertices fit evenly into the remaining levels; each vertex picks a random parent on the
    /// level above. Mimics the spanning trees of the paper's Table I (e.g. `profile:490:2`
    /// for af_shell9: 504 855 vertices, depth 490).
    Profile { depth: u32, branching: f64 },
}

impl Topology {
    /// One instance of every family, with default parameters (for tables and tests).
    pub fn all_defaults() -> Vec<Topology> {
        vec![
            Topology::Chain,
            Topology::Star,
            Topology::RandomRecursive,
            Topology::Prufer,
            Topology::Kary { k: 4 },
            Topology::Broom { handle: 0.5 },
            Topology::CaterpillarLegs,
            Topology::Profile {
                depth: 20,
                branching: 2.0,
            },
        ]
    }

    /// The family name without parameters.
    pub fn family(&self) -> &'static str {
        match self {
            Topology::Chain => "chain",
            Topology::Star => "star",
            Topology::RandomRecursive => "random-recursive",
            Topology::Prufer => "prufer",
            Topology::Kary { .. } => "kary",
            Topology::Broom { .. } => "broom",
            Topology::CaterpillarLegs => "caterpillar-legs",
            Topology::Profile { .. } => "profile",
        }
    }

    /// The parent array of a tree with `n` vertices (root 0).
    pub fn parents(&self, n: usize, rng: &mut Rng) -> Vec<u32> {
        assert!(n >= 1, "a tree needs at least one vertex");
        let mut parent = vec![NO_PARENT; n];
        match *self {
            Topology::Chain => (1..n).for_each(|v| parent[v] = v as u32 - 1),
            Topology::Star => (1..n).for_each(|v| parent[v] = 0),
            Topology::RandomRecursive => {
                (1..n).for_each(|v| parent[v] = rng.random_range(0..v as u32));
            }
            Topology::Prufer => prufer(&mut parent, rng),
            Topology::Kary { k } => (1..n).for_each(|v| parent[v] = ((v - 1) / k as usize) as u32),
            Topology::Broom { handle } => {
                let path = ((handle * n as f64).round() as usize).clamp(1, n);
                (1..path).for_each(|v| parent[v] = v as u32 - 1);
                (path..n).for_each(|v| parent[v] = path as u32 - 1);
            }
            Topology::CaterpillarLegs => {
                let spine = n.div_ceil(2);
                (1..spine).for_each(|v| parent[v] = v as u32 - 1);
                (spine..n).for_each(|v| parent[v] = (v - spine) as u32);
            }
            Topology::Profile { depth, branching } => profile(&mut parent, depth, branching, rng),
        }
        parent
    }

    /// A tree with `n` vertices and the given child order.
    pub fn generate(&self, n: usize, order: ChildOrder, rng: &mut Rng) -> Result<Tree, TreeError> {
        if n == 0 {
            return Err(TreeError::Empty);
        }
        Tree::from_parents(self.parents(n, rng), order)
    }
}

fn prufer(parent: &mut [u32], rng: &mut Rng) {
    let n = parent.len();
    if n <= 2 {
        (1..n).for_each(|v| parent[v] = 0);
        return;
    }
    let seq: Vec<usize> = (0..n - 2).map(|_| rng.random_range(0..n)).collect();
    // Linear-time Prüfer decoding into an undirected edge list.
    let mut degree = vec![1u32; n];
    seq.iter().for_each(|&s| degree[s] += 1);
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut ptr = degree.iter().position(|&d| d == 1).unwrap();
    let mut leaf = ptr;
    for &s in &seq {
        adj[leaf].push(s as u32);
        adj[s].push(leaf as u32);
        degree[s] -= 1;
        if degree[s] == 1 && s < ptr {
            leaf = s;
        } else {
            ptr += 1;
            while degree[ptr] != 1 {
                ptr += 1;
            }
            leaf = ptr;
        }
    }
    let last = n - 1;
    adj[leaf].push(last as u32);
    adj[last].push(leaf as u32);
    // Orient away from vertex 0.
    let mut stack = vec![0u32];
    let mut seen = vec![false; n];
    seen[0] = true;
    while let Some(v) = stack.pop() {
        for &c in &adj[v as usize] {
            if !seen[c as usize] {
                seen[c as usize] = true;
                parent[c as usize] = v;
                stack.push(c);
            }
        }
    }
}

fn profile(parent: &mut [u32], depth: u32, branching: f64, rng: &mut Rng) {
    let n = parent.len();
    let levels = (depth as usize + 1).min(n);
    // Level widths: geometric growth, then an even spread of what is left.
    let mut widths = vec![1usize];
    let mut placed = 1usize;
    for level in 1..levels {
        let remaining_levels = levels - level;
        let left = n - placed;
        let even = left.div_ceil(remaining_levels);
        let grown = ((*widths.last().unwrap() as f64) * branching.max(1.0)).ceil() as usize;
        let w = grown.min(even).max(1).min(left - (remaining_levels - 1));
        widths.push(w);
        placed += w;
    }
    *widths.last_mut().unwrap() += n - placed;
    let mut level_begin = 0usize;
    let mut v = 1usize;
    for pair in widths.windows(2) {
        let (above, width) = (pair[0], pair[1]);
        for _ in 0..width {
            parent[v] = (level_begin + rng.random_range(0..above)) as u32;
            v += 1;
        }
        level_begin += above;
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Topology::Kary { k } => write!(f, "kary:{k}"),
            Topology::Broom { handle } => write!(f, "broom:{handle}"),
            Topology::Profile { depth, branching } => write!(f, "profile:{depth}:{branching}"),
            other => f.write_str(other.family()),
        }
    }
}

impl From<Topology> for String {
    fn from(t: Topology) -> String {
        t.to_string()
    }
}

impl TryFrom<String> for Topology {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl FromStr for Topology {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut parts = s.split(':');
        let family = parts.next().unwrap_or_default();
        let args: Vec<&str> = parts.collect();
        let arg = |i: usize, what: &str| -> Result<Option<f64>, String> {
            match args.get(i) {
                None => Ok(None),
                Some(a) => a
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .map(Some)
                    .ok_or_else(|| format!("topology '{s}': {what} '{a}' is not a number")),
            }
        };
        let max_args = match family {
            "kary" | "broom" => 1,
            "profile" => 2,
            _ => 0,
        };
        if args.len() > max_args {
            return Err(format!("topology '{s}': too many parameters"));
        }
        Ok(match family {
            "chain" => Topology::Chain,
            "star" => Topology::Star,
            "random-recursive" => Topology::RandomRecursive,
            "prufer" => Topology::Prufer,
            "kary" => {
                let k = arg(0, "k")?.unwrap_or(4.0);
                if k < 1.0 || k.fract() != 0.0 || k > u32::MAX as f64 {
                    return Err(format!("topology '{s}': k must be a positive integer"));
                }
                Topology::Kary { k: k as u32 }
            }
            "broom" => {
                let handle = arg(0, "handle fraction")?.unwrap_or(0.5);
                if !(0.0..=1.0).contains(&handle) {
                    return Err(format!(
                        "topology '{s}': the handle fraction must lie in [0, 1]"
                    ));
                }
                Topology::Broom { handle }
            }
            "caterpillar-legs" => Topology::CaterpillarLegs,
            "profile" => {
                let depth = arg(0, "depth")?.unwrap_or(20.0);
                let branching = arg(1, "branching")?.unwrap_or(2.0);
                if depth < 0.0 || depth.fract() != 0.0 || depth > u32::MAX as f64 {
                    return Err(format!(
                        "topology '{s}': depth must be a non-negative integer"
                    ));
                }
                if branching < 1.0 {
                    return Err(format!("topology '{s}': branching must be ≥ 1"));
                }
                Topology::Profile {
                    depth: depth as u32,
                    branching,
                }
            }
            _ => {
                return Err(format!(
                    "unknown topology '{family}' (expected chain, star, random-recursive, prufer, kary[:k], \
                     broom[:fraction], caterpillar-legs, profile[:depth[:branching]])"
                ));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_topology_gives_a_valid_tree_of_every_small_size() {
        for topo in Topology::all_defaults() {
            for n in 1..40 {
                let t = topo
                    .generate(n, ChildOrder::Natural, &mut crate::rng(n as u64))
                    .unwrap();
                assert_eq!(t.len(), n, "{topo}");
            }
        }
    }

    #[test]
    fn shapes() {
        let r = &mut crate::rng(1);
        let o = ChildOrder::Natural;
        assert_eq!(Topology::Chain.generate(100, o, r).unwrap().height(), 99);
        assert_eq!(
            Topology::Star.generate(100, o, r).unwrap().max_out_degree(),
            99
        );
        assert_eq!(
            Topology::Kary { k: 2 }
                .generate(127, o, r)
                .unwrap()
                .height(),
            6
        );
        let cat = Topology::CaterpillarLegs.generate(100, o, r).unwrap();
        assert_eq!(cat.height(), 50);
        assert_eq!(cat.max_out_degree(), 2);
        let broom = Topology::Broom { handle: 0.25 }
            .generate(100, o, r)
            .unwrap();
        assert_eq!(broom.height(), 25);
        assert_eq!(broom.max_out_degree(), 75);
        let p = Topology::Profile {
            depth: 30,
            branching: 2.0,
        }
        .generate(10_000, o, r)
        .unwrap();
        assert_eq!(p.height(), 30);
    }

    #[test]
    fn seeded_topologies_repeat() {
        for topo in [
            Topology::RandomRecursive,
            Topology::Prufer,
            Topology::Profile {
                depth: 9,
                branching: 3.0,
            },
        ] {
            let a = topo.parents(500, &mut crate::rng(7));
            let b = topo.parents(500, &mut crate::rng(7));
            let c = topo.parents(500, &mut crate::rng(8));
            assert_eq!(a, b);
            assert_ne!(a, c);
        }
    }

    #[test]
    fn names_round_trip() {
        for topo in Topology::all_defaults() {
            assert_eq!(topo.to_string().parse::<Topology>().unwrap(), topo);
        }
        assert!("kary:0".parse::<Topology>().is_err());
        assert!("tree".parse::<Topology>().is_err());
        assert!("chain:3".parse::<Topology>().is_err());
    }
}
