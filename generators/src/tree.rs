//! The rooted, ordered tree every part of the toolkit consumes (docs/design.md §3).
//!
//! Built once from a parent array; everything downstream (children in CSR, depth, levels,
//! pre/postorder, Euler tour) is derived here so that kernels, references and bounds agree.

mod preorder;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Marks the root in a parent array.
pub const NO_PARENT: u32 = u32::MAX;

/// Why a parent array is not a tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    #[error("a tree needs at least one vertex")]
    Empty,
    #[error("{0} vertices do not fit the 32-bit vertex ids (at most 2^31)")]
    TooLarge(usize),
    #[error("no root: every vertex has a parent")]
    NoRoot,
    #[error("two roots: vertices {first} and {second} both have no parent")]
    MultipleRoots { first: u32, second: u32 },
    #[error("vertex {vertex} has parent {parent}, outside 0..{n} (the root's parent is -1)")]
    ParentOutOfRange { vertex: u32, parent: i64, n: usize },
    #[error("vertex {vertex} is its own parent")]
    SelfLoop { vertex: u32 },
    #[error("vertex {vertex} lies on a cycle (it is not reachable from root {root})")]
    Cycle { vertex: u32, root: u32 },
    #[error("the renaming is no preorder of the tree: {0}")]
    NotPreorder(String),
}

/// The order of the children of every vertex. It fixes the Euler tour and so the rounding of
/// the vectorial algorithm; exact results never depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChildOrder {
    /// Ascending vertex id.
    #[default]
    Natural,
    /// Ascending subtree size, ties by id (seed 002's light-first order).
    LightFirst,
    /// Descending subtree size, ties by id.
    HeavyFirst,
}

impl ChildOrder {
    pub const ALL: [ChildOrder; 3] = [Self::Natural, Self::LightFirst, Self::HeavyFirst];

    pub fn name(self) -> &'static str {
        match self {
            Self::Natural => "natural",
            Self::LightFirst => "light-first",
            Self::HeavyFirst => "heavy-first",
        }
    }
}

impl fmt::Display for ChildOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ChildOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| {
                format!("unknown child order '{s}' (expected natural, light-first or heavy-first)")
            })
    }
}

/// A rooted tree with ordered children.
#[derive(Debug, Clone)]
pub struct Tree {
    parent: Vec<u32>,
    root: u32,
    order: ChildOrder,
    /// CSR: the children of v are `children[child_start[v]..child_start[v + 1]]`, in child order.
    child_start: Vec<u32>,
    children: Vec<u32>,
    depth: Vec<u32>,
    subtree_size: Vec<u32>,
    /// Vertices in depth-first preorder (children in child order).
    preorder: Vec<u32>,
    postorder: Vec<u32>,
    /// Euler-tour positions: `open[v]` of "(v", `close[v]` of "v)" in a vector of length 2n.
    open: Vec<u32>,
    close: Vec<u32>,
    /// Vertices grouped by depth: level d is `level_vertices[level_start[d]..level_start[d + 1]]`,
    /// in breadth-first (frontier) order.
    level_start: Vec<u32>,
    level_vertices: Vec<u32>,
}

impl Tree {
    /// Builds a tree from `parent[v]` (with [`NO_PARENT`] at the root), validating it.
    pub fn from_parents(parent: Vec<u32>, order: ChildOrder) -> Result<Tree, TreeError> {
        let root = root_of(&parent)?;
        let n = parent.len();

        let (child_start, mut children) = children_of(&parent);

        // Breadth-first levels from the root; a vertex never reached sits on a cycle.
        let mut depth = vec![u32::MAX; n];
        let mut level_vertices = Vec::with_capacity(n);
        let mut level_start = vec![0u32];
        depth[root as usize] = 0;
        level_vertices.push(root);
        let mut begin = 0;
        while begin < level_vertices.len() {
            let end = level_vertices.len();
            level_start.push(end as u32);
            for i in begin..end {
                let v = level_vertices[i] as usize;
                for &c in &children[child_start[v] as usize..child_start[v + 1] as usize] {
                    depth[c as usize] = depth[v] + 1;
                    level_vertices.push(c);
                }
            }
            begin = end;
        }
        // The loop pushed one empty level at the end; drop its start marker.
        if level_start.len() >= 2
            && level_start[level_start.len() - 1] == level_start[level_start.len() - 2]
        {
            level_start.pop();
        }
        if level_vertices.len() < n {
            let vertex = depth.iter().position(|&d| d == u32::MAX).unwrap() as u32;
            return Err(TreeError::Cycle { vertex, root });
        }

        // Subtree sizes bottom-up over the BFS order.
        let mut subtree_size = vec![1u32; n];
        for &v in level_vertices.iter().rev() {
            let p = parent[v as usize];
            if p != NO_PARENT {
                subtree_size[p as usize] += subtree_size[v as usize];
            }
        }

        if order != ChildOrder::Natural {
            for v in 0..n {
                let slice = &mut children[child_start[v] as usize..child_start[v + 1] as usize];
                match order {
                    ChildOrder::LightFirst => slice.sort_by_key(|&c| (subtree_size[c as usize], c)),
                    ChildOrder::HeavyFirst => {
                        slice.sort_by_key(|&c| (std::cmp::Reverse(subtree_size[c as usize]), c))
                    }
                    ChildOrder::Natural => unreachable!(),
                }
            }
            // Levels keep frontier order, which follows child order.
            level_vertices.clear();
            level_vertices.push(root);
            let mut begin = 0;
            while begin < level_vertices.len() {
                let end = level_vertices.len();
                for i in begin..end {
                    let v = level_vertices[i] as usize;
                    level_vertices.extend_from_slice(
                        &children[child_start[v] as usize..child_start[v + 1] as usize],
                    );
                }
                begin = end;
            }
        }

        let (open, close, preorder, postorder) = euler_tour(root, &child_start, &children);

        Ok(Tree {
            parent,
            root,
            order,
            child_start,
            children,
            depth,
            subtree_size,
            preorder,
            postorder,
            open,
            close,
            level_start,
            level_vertices,
        })
    }

    /// The same tree with another child order.
    pub fn with_order(&self, order: ChildOrder) -> Tree {
        Tree::from_parents(self.parent.clone(), order).expect("a valid tree stays valid")
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    pub fn root(&self) -> u32 {
        self.root
    }

    pub fn child_order(&self) -> ChildOrder {
        self.order
    }

    /// `parent[v]`, [`NO_PARENT`] at the root.
    pub fn parents(&self) -> &[u32] {
        &self.parent
    }

    pub fn parent(&self, v: u32) -> Option<u32> {
        let p = self.parent[v as usize];
        (p != NO_PARENT).then_some(p)
    }

    /// Children of `v` in child order.
    #[inline]
    pub fn children(&self, v: u32) -> &[u32] {
        &self.children
            [self.child_start[v as usize] as usize..self.child_start[v as usize + 1] as usize]
    }

    /// CSR offsets (length n + 1) and the children array (length n − 1).
    pub fn csr(&self) -> (&[u32], &[u32]) {
        (&self.child_start, &self.children)
    }

    pub fn depth(&self, v: u32) -> u32 {
        self.depth[v as usize]
    }

    #[inline]
    pub fn depths(&self) -> &[u32] {
        &self.depth
    }

    /// Height of the tree: the largest depth (0 for a single vertex).
    pub fn height(&self) -> u32 {
        (self.level_start.len() - 2) as u32
    }

    pub fn subtree_size(&self, v: u32) -> u32 {
        self.subtree_size[v as usize]
    }

    pub fn subtree_sizes(&self) -> &[u32] {
        &self.subtree_size
    }

    #[inline]
    pub fn preorder(&self) -> &[u32] {
        &self.preorder
    }

    /// Vertices in postorder (children before parents, children in child order).
    #[inline]
    pub fn postorder(&self) -> &[u32] {
        &self.postorder
    }

    pub fn open(&self) -> &[u32] {
        &self.open
    }

    pub fn close(&self) -> &[u32] {
        &self.close
    }

    /// Number of levels (height + 1).
    pub fn num_levels(&self) -> usize {
        self.level_start.len() - 1
    }

    /// Vertices of depth `d`, in frontier order.
    pub fn level(&self, d: usize) -> &[u32] {
        &self.level_vertices[self.level_start[d] as usize..self.level_start[d + 1] as usize]
    }

    pub fn max_out_degree(&self) -> u32 {
        (0..self.len())
            .map(|v| self.child_start[v + 1] - self.child_start[v])
            .max()
            .unwrap_or(0)
    }

    /// Mean branching factor as the paper's Table I defines it: vertices per level.
    pub fn mean_branching(&self) -> f64 {
        self.len() as f64 / self.num_levels() as f64
    }
}

/// The root of `parent`, after the checks that need no walk: a size that fits, parents in
/// range, no self-loop, exactly one root.
fn root_of(parent: &[u32]) -> Result<u32, TreeError> {
    let n = parent.len();
    if n == 0 {
        return Err(TreeError::Empty);
    }
    if n > (1 << 31) {
        return Err(TreeError::TooLarge(n));
    }
    let mut root = None;
    for (v, &p) in parent.iter().enumerate() {
        let v = v as u32;
        if p == NO_PARENT {
            if let Some(first) = root {
                return Err(TreeError::MultipleRoots { first, second: v });
            }
            root = Some(v);
        } else if p as usize >= n {
            return Err(TreeError::ParentOutOfRange {
                vertex: v,
                parent: i64::from(p),
                n,
            });
        } else if p == v {
            return Err(TreeError::SelfLoop { vertex: v });
        }
    }
    root.ok_or(TreeError::NoRoot)
}

/// Children in natural order (counting sort by parent keeps ascending ids): per vertex `v`,
/// `children[child_start[v]..child_start[v + 1]]`.
fn children_of(parent: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = parent.len();
    let mut child_start = vec![0u32; n + 1];
    for &p in parent {
        if p != NO_PARENT {
            child_start[p as usize + 1] += 1;
        }
    }
    for v in 0..n {
        child_start[v + 1] += child_start[v];
    }
    let mut fill = child_start.clone();
    let mut children = vec![0u32; n - 1];
    for (v, &p) in parent.iter().enumerate() {
        if p != NO_PARENT {
            children[fill[p as usize] as usize] = v as u32;
            fill[p as usize] += 1;
        }
    }
    (child_start, children)
}

/// Euler tour, iteratively (chains of 2^24 vertices would overflow a recursive walk): each
/// vertex's open and close positions, the preorder and the postorder.
fn euler_tour(
    root: u32,
    child_start: &[u32],
    children: &[u32],
) -> (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = children.len() + 1;
    let mut open = vec![0u32; n];
    let mut close = vec![0u32; n];
    let mut preorder = Vec::with_capacity(n);
    let mut postorder = Vec::with_capacity(n);
    let mut stack: Vec<(u32, u32)> = vec![(root, child_start[root as usize])];
    let mut pos = 0u32;
    open[root as usize] = pos;
    preorder.push(root);
    pos += 1;
    while let Some(top) = stack.last_mut() {
        let (v, next) = *top;
        if next < child_start[v as usize + 1] {
            top.1 += 1;
            let c = children[next as usize];
            open[c as usize] = pos;
            pos += 1;
            preorder.push(c);
            stack.push((c, child_start[c as usize]));
        } else {
            close[v as usize] = pos;
            postorder.push(v);
            pos += 1;
            stack.pop();
        }
    }
    debug_assert_eq!(pos as usize, 2 * n);
    (open, close, preorder, postorder)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's Fig. 2 tree a(b(c,d,e),f) with ids a=0..f=5.
    fn fig2() -> Tree {
        Tree::from_parents(vec![NO_PARENT, 0, 1, 1, 1, 0], ChildOrder::Natural).unwrap()
    }

    #[test]
    fn fig2_euler_tour() {
        let t = fig2();
        assert_eq!(t.open(), &[0, 1, 2, 4, 6, 9]);
        assert_eq!(t.close(), &[11, 8, 3, 5, 7, 10]);
        assert_eq!(t.preorder(), &[0, 1, 2, 3, 4, 5]);
        assert_eq!(t.postorder(), &[2, 3, 4, 1, 5, 0]);
        assert_eq!(t.depths(), &[0, 1, 2, 2, 2, 1]);
        assert_eq!(t.subtree_sizes(), &[6, 4, 1, 1, 1, 1]);
        assert_eq!(t.num_levels(), 3);
        assert_eq!(t.level(1), &[1, 5]);
        assert_eq!(t.height(), 2);
    }

    #[test]
    fn light_and_heavy_first() {
        let t = fig2().with_order(ChildOrder::LightFirst);
        assert_eq!(t.children(0), &[5, 1]);
        assert_eq!(t.open(), &[0, 3, 4, 6, 8, 1]);
        assert_eq!(t.postorder(), &[5, 2, 3, 4, 1, 0]);
        let h = fig2().with_order(ChildOrder::HeavyFirst);
        assert_eq!(h.children(0), &[1, 5]);
    }

    #[test]
    fn rejects_bad_parent_arrays() {
        use TreeError::*;
        let o = ChildOrder::Natural;
        assert_eq!(Tree::from_parents(vec![], o).unwrap_err(), Empty);
        assert_eq!(Tree::from_parents(vec![1, 0], o).unwrap_err(), NoRoot);
        assert_eq!(
            Tree::from_parents(vec![NO_PARENT, NO_PARENT], o).unwrap_err(),
            MultipleRoots {
                first: 0,
                second: 1
            }
        );
        assert_eq!(
            Tree::from_parents(vec![NO_PARENT, 7], o).unwrap_err(),
            ParentOutOfRange {
                vertex: 1,
                parent: 7,
                n: 2
            }
        );
        assert_eq!(
            Tree::from_parents(vec![NO_PARENT, 1], o).unwrap_err(),
            SelfLoop { vertex: 1 }
        );
        assert_eq!(
            Tree::from_parents(vec![NO_PARENT, 2, 1], o).unwrap_err(),
            Cycle { vertex: 1, root: 0 }
        );
    }

    #[test]
    fn single_vertex() {
        let t = Tree::from_parents(vec![NO_PARENT], ChildOrder::Natural).unwrap();
        assert_eq!(t.open(), &[0]);
        assert_eq!(t.close(), &[1]);
        assert_eq!(t.height(), 0);
        assert_eq!(t.num_levels(), 1);
    }
}
