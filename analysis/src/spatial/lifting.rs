//! The plain reference of batched LCA: binary lifting (every vertex's ancestors 2^k up), one
//! query in O(log n) — nothing shared with the layered algorithm of [`super::lca`] but the
//! tree's parent array and depths.

use generators::Tree;

/// Ancestors 2^k up of every vertex, k = 0 … ⌈log₂ (height + 1)⌉.
pub struct BinaryLifting<'a> {
    tree: &'a Tree,
    /// `up[k][v]`: the ancestor 2^k above v, the root where there is none.
    up: Vec<Vec<u32>>,
}

impl<'a> BinaryLifting<'a> {
    pub fn new(tree: &'a Tree) -> BinaryLifting<'a> {
        let root = tree.root();
        let first: Vec<u32> = tree
            .parents()
            .iter()
            .map(|&p| if p == generators::NO_PARENT { root } else { p })
            .collect();
        let mut up = vec![first];
        while (1u64 << up.len()) <= tree.height() as u64 {
            let prev = up.last().expect("one level at least");
            let next = prev.iter().map(|&a| prev[a as usize]).collect();
            up.push(next);
        }
        BinaryLifting { tree, up }
    }

    /// The ancestor of `v` that is `d` levels up.
    fn climb(&self, mut v: u32, mut d: u32) -> u32 {
        let mut k = 0;
        while d > 0 {
            if d & 1 == 1 {
                v = self.up[k][v as usize];
            }
            d >>= 1;
            k += 1;
        }
        v
    }

    /// The lowest common ancestor of `u` and `v`.
    pub fn lca(&self, u: u32, v: u32) -> u32 {
        let (du, dv) = (self.tree.depth(u), self.tree.depth(v));
        let (mut u, mut v) = match du >= dv {
            true => (self.climb(u, du - dv), v),
            false => (u, self.climb(v, dv - du)),
        };
        if u == v {
            return u;
        }
        for k in (0..self.up.len()).rev() {
            let (a, b) = (self.up[k][u as usize], self.up[k][v as usize]);
            if a != b {
                u = a;
                v = b;
            }
        }
        self.up[0][u as usize]
    }
}
