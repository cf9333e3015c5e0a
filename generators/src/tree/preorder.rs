//! Preorders without a depth-first walk: a tree's preorder positions in any child order, and
//! the tree renamed by a preorder — what a spatial layout needs (docs/design.md §12.2) on trees
//! of millions of vertices, where a walk is one long chain of dependent cache misses and runs
//! on one core.
//!
//! A child's preorder position is its parent's + 1 + the subtree sizes of the siblings before
//! it. So every vertex gives its children these offsets, all vertices independently, and the
//! levels from the root add each vertex's offset to its parent's position: parallel over the
//! vertices, then over each wide level, and on one thread the independent misses of a pass
//! overlap where a walk's wait one after another. And once the vertices are named by a
//! preorder with ascending children, every array of [`Tree`] is a local formula: the preorder
//! is the identity, `open[i] = 2i − depth(i)`, `close[i] = open[i] + 2·size(i) − 1`, i's
//! children are i + 1, then each next sibling one subtree later, a level is its vertices in
//! ascending order.
//!
//! The results equal the sequential construction's ([`Tree::from_parents`]) array for array;
//! the tests compare them on every topology, on one thread and on several.
//!
//! Tasks write disjoint cells of one array: `AtomicU32` with relaxed stores (plain moves)
//! makes that sharing expressible without `unsafe`; rayon's joins order the passes.

use super::{ChildOrder, NO_PARENT, Tree, TreeError};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Vertices per task.
const TASK_LEN: usize = 4096;

/// Levels of at least this many vertices are placed in parallel.
const WIDE_LEVEL: usize = 1 << 14;

/// Vertices per block of the levels' counting sort.
const BLOCK: usize = 1 << 14;

/// Lists longer than this are sorted in parallel (a star's children).
const WIDE: usize = 1 << 16;

fn not_preorder<T>(why: String) -> Result<T, TreeError> {
    Err(TreeError::NotPreorder(why))
}

/// `n` cells holding `value`.
fn cells(n: usize, value: u32) -> Vec<AtomicU32> {
    (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(value))
        .collect()
}

fn into_vec(cells: Vec<AtomicU32>) -> Vec<u32> {
    // In place: the same allocation, one pass.
    cells.into_iter().map(AtomicU32::into_inner).collect()
}

/// Child `c` of subtree size `s` as a key whose ascending order is `order`'s: (size, id),
/// (−size, id) or (id, size).
#[inline]
fn key(order: ChildOrder, c: u32, s: u32) -> u64 {
    let (hi, lo) = match order {
        ChildOrder::LightFirst => (s, c),
        ChildOrder::HeavyFirst => (!s, c),
        ChildOrder::Natural => (c, s),
    };
    (hi as u64) << 32 | lo as u64
}

/// The child and its size back from [`key`].
#[inline]
fn unkey(order: ChildOrder, k: u64) -> (u32, u32) {
    let (hi, lo) = ((k >> 32) as u32, k as u32);
    match order {
        ChildOrder::LightFirst => (lo, hi),
        ChildOrder::HeavyFirst => (lo, !hi),
        ChildOrder::Natural => (hi, lo),
    }
}

impl Tree {
    /// `pos[v]`: v's position in the preorder of this tree with its children in `order`
    /// (ascending id; ascending or descending subtree size, ties by ascending id) — the
    /// preorder of `self.with_order(order)`. Two passes without a walk: every vertex gives
    /// its children their offsets from it (1 + the sizes of the siblings before), in
    /// parallel over the vertices; then the levels from the root add each vertex's offset
    /// to its parent's position, a wide level in parallel.
    pub fn preorder_positions(&self, order: ChildOrder) -> Vec<u32> {
        let n = self.len();
        if order == self.order {
            // open[v] = 2·pre(v) − depth(v).
            return (0..n)
                .into_par_iter()
                .map(|v| (self.open[v] + self.depth[v]) / 2)
                .collect();
        }
        let size = &self.subtree_size;
        let offset = cells(n, 0);
        (0..n as u32)
            .into_par_iter()
            .with_min_len(TASK_LEN)
            .for_each_init(Vec::new, |keys, v| match self.children(v) {
                [] => {}
                &[c] => offset[c as usize].store(1, Relaxed),
                kids => {
                    // The sort key holds the size, read once per child.
                    keys.clear();
                    keys.extend(kids.iter().map(|&c| key(order, c, size[c as usize])));
                    if keys.len() > WIDE {
                        keys.par_sort_unstable();
                    } else {
                        keys.sort_unstable();
                    }
                    let mut next = 1;
                    for &k in keys.iter() {
                        let (c, s) = unkey(order, k);
                        offset[c as usize].store(next, Relaxed);
                        next += s;
                    }
                }
            });
        let offset = into_vec(offset);
        // Every level's vertices are independent: their parents' positions are known.
        let pos = cells(n, 0);
        let place = |&v: &u32| {
            let p = self.parent[v as usize] as usize;
            pos[v as usize].store(pos[p].load(Relaxed) + offset[v as usize], Relaxed);
        };
        for d in 1..self.num_levels() {
            let level = self.level(d);
            if level.len() < WIDE_LEVEL {
                level.iter().for_each(place);
            } else {
                level.par_iter().with_min_len(TASK_LEN).for_each(place);
            }
        }
        into_vec(pos)
    }

    /// This tree with vertex v renamed `pos[v]`, in natural child order, where `pos` is a
    /// preorder of the tree in some child order (a layout's positions,
    /// [`Tree::preorder_positions`]). The renamed tree's preorder is then the identity, and
    /// every array but the depths and sizes (one pass each, in position order) follows from
    /// them in parallel. Refused
    /// ([`TreeError::NotPreorder`]) when `pos` is not such a preorder: not a permutation, or
    /// a subtree not on the range right after its parent's earlier children.
    pub fn renamed_in_preorder(&self, pos: &[u32]) -> Result<Tree, TreeError> {
        let n = self.len();
        if pos.len() != n {
            return not_preorder(format!("{} positions for {n} vertices", pos.len()));
        }
        if let Some((v, &i)) = pos
            .par_iter()
            .enumerate()
            .find_any(|(_, i)| **i as usize >= n)
        {
            return not_preorder(format!("vertex {v} at position {i}, outside 0..{n}"));
        }
        // The parent by position (a vertex left without one is a position no vertex took,
        // or the root's: the check below refuses all but one).
        let parent = cells(n, NO_PARENT);
        pos.par_iter().enumerate().for_each(|(v, &i)| {
            if let Some(p) = self.parent(v as u32) {
                parent[i as usize].store(pos[p as usize], Relaxed);
            }
        });
        let parent = into_vec(parent);
        if let Some(i) = (1..n)
            .into_par_iter()
            .find_any(|&i| parent[i] as usize >= i)
        {
            return not_preorder(format!("position {i} before its parent"));
        }
        // Depths forward and sizes backward, parents before children: one pass each over
        // arrays in position order, where a parent is mostly near its children (a preorder
        // keeps subtrees together), so they wait on memory less than a gather from the old
        // names would.
        let mut depth = vec![0u32; n];
        for i in 1..n {
            depth[i] = depth[parent[i] as usize] + 1;
        }
        let mut size = vec![1u32; n];
        for i in (1..n).rev() {
            size[parent[i] as usize] += size[i];
        }
        check_preorder(&parent, &size)?;

        // Children: i + 1, then each next sibling one subtree later, up to i's end.
        let sizes = &size[..];
        let children_of = |i: usize| {
            let (mut c, end) = (i + 1, i + sizes[i] as usize);
            std::iter::from_fn(move || {
                let this = c;
                (this < end).then(|| {
                    c += sizes[this] as usize;
                    this as u32
                })
            })
        };
        let mut child_start: Vec<u32> = Vec::with_capacity(n + 1);
        child_start.push(0);
        child_start.par_extend(
            (0..n)
                .into_par_iter()
                .map(|i| children_of(i).count() as u32),
        );
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        let children = cells(n - 1, 0);
        (0..n).into_par_iter().for_each(|i| {
            for (slot, c) in (child_start[i] as usize..).zip(children_of(i)) {
                children[slot].store(c, Relaxed);
            }
        });

        let open: Vec<u32> = (0..n)
            .into_par_iter()
            .map(|i| 2 * i as u32 - depth[i])
            .collect();
        let close: Vec<u32> = (0..n)
            .into_par_iter()
            .map(|i| open[i] + 2 * size[i] - 1)
            .collect();
        // Postorder: i comes after its descendants and after every earlier vertex but its
        // ancestors, at i − depth(i) + size(i) − 1.
        let post = cells(n, 0);
        (0..n).into_par_iter().for_each(|i| {
            post[i - depth[i] as usize + size[i] as usize - 1].store(i as u32, Relaxed)
        });

        let level_start = self.level_start.clone();
        let level_vertices = levels(&depth, &level_start, BLOCK);
        Ok(Tree {
            parent,
            root: 0,
            order: ChildOrder::Natural,
            child_start,
            children: into_vec(children),
            depth,
            subtree_size: size,
            preorder: (0..n as u32).into_par_iter().collect(),
            postorder: into_vec(post),
            open,
            close,
            level_start,
            level_vertices,
        })
    }
}

/// The levels of a tree named by a preorder with ascending children, in frontier order:
/// each level ascending (the children of earlier vertices come first, each vertex's in
/// ascending order), so the vertices sorted by depth, stably — a counting sort, in blocks of
/// consecutive vertices. A block of k vertices spans at most k depths (a preorder goes down
/// one level at a time), so its counts take no more room than the block.
fn levels(depth: &[u32], level_start: &[u32], block: usize) -> Vec<u32> {
    let n = depth.len();
    let blocks: Vec<(usize, usize)> = (0..n)
        .step_by(block)
        .map(|b| (b, (b + block).min(n)))
        .collect();
    // Per block: its least depth and how many of its vertices sit at each depth from there.
    let counts: Vec<(u32, Vec<u32>)> = blocks
        .par_iter()
        .map(|&(b, e)| {
            let d = &depth[b..e];
            let low = *d.iter().min().expect("blocks are not empty");
            let high = *d.iter().max().expect("blocks are not empty");
            let mut count = vec![0u32; (high - low + 1) as usize];
            d.iter().for_each(|&x| count[(x - low) as usize] += 1);
            (low, count)
        })
        .collect();
    // Where each block's vertices of each depth start: after the level's start and the
    // earlier blocks' vertices of that depth.
    let mut next: Vec<u32> = level_start[..level_start.len() - 1].to_vec();
    let starts: Vec<Vec<u32>> = counts
        .iter()
        .map(|(low, count)| {
            let next = &mut next[*low as usize..*low as usize + count.len()];
            let start = next.to_vec();
            next.iter_mut().zip(count).for_each(|(x, &c)| *x += c);
            start
        })
        .collect();
    let out = cells(n, 0);
    blocks
        .into_par_iter()
        .zip(counts.par_iter().zip(starts))
        .for_each(|((b, e), ((low, _), mut start))| {
            for (i, &d) in (b..e).zip(&depth[b..e]) {
                let slot = &mut start[(d - low) as usize];
                out[*slot as usize].store(i as u32, Relaxed);
                *slot += 1;
            }
        });
    into_vec(out)
}

/// Whether naming the vertices 0 … n − 1 is a preorder with ascending children, given each
/// vertex's parent and subtree size. Local checks, in parallel: the root is 0; a vertex i
/// with descendants has i + 1 as its first child; a vertex's range i … i + size(i) − 1 ends
/// within its parent's, and where it ends before its parent's, the next vertex is its next
/// sibling. From the root down, each vertex's children then tile its range exactly, so every
/// vertex is reached once and its parent is the one given.
fn check_preorder(parent: &[u32], size: &[u32]) -> Result<(), TreeError> {
    let n = parent.len();
    let bad = |i: usize, why: &str| not_preorder(format!("position {i} {why}"));
    if parent[0] != NO_PARENT {
        return bad(0, "is not the root");
    }
    (0..n).into_par_iter().try_for_each(|i| {
        let end = i + size[i] as usize;
        if size[i] == 0 || end > n {
            return bad(i, "has a subtree past the last position");
        }
        if size[i] > 1 && parent[i + 1] != i as u32 {
            return bad(i + 1, "does not follow its parent");
        }
        if i == 0 {
            return Ok(());
        }
        let p = parent[i] as usize;
        if p >= i || end > p + size[p] as usize {
            return bad(i, "has a subtree outside its parent's");
        }
        if end < p + size[p] as usize && parent[end] as usize != p {
            return bad(end, "is not the next sibling of the subtree before it");
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Topology;

    /// The sequential construction: the tree renamed by `pos` through `from_parents`.
    fn renamed_by_parents(t: &Tree, pos: &[u32]) -> Tree {
        let mut parent = vec![NO_PARENT; t.len()];
        for (v, &p) in t.parents().iter().enumerate() {
            if p != NO_PARENT {
                parent[pos[v] as usize] = pos[p as usize];
            }
        }
        Tree::from_parents(parent, ChildOrder::Natural).unwrap()
    }

    fn assert_same(a: &Tree, b: &Tree, what: &str) {
        assert_eq!(a.parents(), b.parents(), "{what}: parents");
        assert_eq!(a.root(), b.root(), "{what}: root");
        assert_eq!(a.child_order(), b.child_order(), "{what}: child order");
        assert_eq!(a.csr(), b.csr(), "{what}: children");
        assert_eq!(a.depths(), b.depths(), "{what}: depths");
        assert_eq!(a.subtree_sizes(), b.subtree_sizes(), "{what}: sizes");
        assert_eq!(a.preorder(), b.preorder(), "{what}: preorder");
        assert_eq!(a.postorder(), b.postorder(), "{what}: postorder");
        assert_eq!(a.open(), b.open(), "{what}: open");
        assert_eq!(a.close(), b.close(), "{what}: close");
        assert_eq!(a.level_start, b.level_start, "{what}: level starts");
        assert_eq!(a.level_vertices, b.level_vertices, "{what}: levels");
    }

    /// Every topology at sizes of several tasks and blocks (20 000 vertices; a star of
    /// 70 000, whose centre's children are sorted and its level placed in parallel), every
    /// child order of the tree and of the preorder, on one thread and on four: positions
    /// equal the sequential preorder's, and the renamed tree equals `from_parents`' array
    /// for array.
    #[test]
    fn equal_the_sequential_construction() {
        let pools = [1, 4].map(|k| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(k)
                .build()
                .unwrap()
        });
        for topo in Topology::all_defaults() {
            let large = if topo == Topology::Star {
                70_000
            } else {
                20_000
            };
            for n in [1, 2, 7, 300, large] {
                let natural = topo
                    .generate(n, ChildOrder::Natural, &mut crate::rng(n as u64))
                    .unwrap();
                for tree_order in ChildOrder::ALL {
                    let t = natural.with_order(tree_order);
                    for order in ChildOrder::ALL {
                        let what = format!("{topo} n={n} tree {tree_order} preorder {order}");
                        let sequential = t.with_order(order);
                        let mut want = vec![0u32; n];
                        for (i, &v) in sequential.preorder().iter().enumerate() {
                            want[v as usize] = i as u32;
                        }
                        let reference = renamed_by_parents(&t, &want);
                        for pool in &pools {
                            let (pos, renamed) = pool.install(|| {
                                let pos = t.preorder_positions(order);
                                let renamed = t.renamed_in_preorder(&pos);
                                (pos, renamed)
                            });
                            assert_eq!(pos, want, "{what}");
                            assert_same(&renamed.unwrap(), &reference, &what);
                        }
                    }
                }
            }
        }
    }

    /// The levels' counting sort gives the sequential breadth-first levels whatever its
    /// blocks (one vertex each, a few, one for all).
    #[test]
    fn levels_in_any_blocks() {
        for topo in Topology::all_defaults() {
            let t = topo
                .generate(3000, ChildOrder::LightFirst, &mut crate::rng(5))
                .unwrap();
            let mut pos = vec![0u32; t.len()];
            for (i, &v) in t.preorder().iter().enumerate() {
                pos[v as usize] = i as u32;
            }
            let r = renamed_by_parents(&t, &pos);
            for block in [1, 3, 64, 1000, 5000] {
                let got = levels(r.depths(), &r.level_start, block);
                assert_eq!(got, r.level_vertices, "{topo} blocks of {block}");
            }
        }
    }

    /// Renamings that are no preorder are refused, whatever breaks: a breadth-first order,
    /// a repeated or out-of-range position, a wrong length, two subtrees swapped inside.
    #[test]
    fn refuses_what_is_no_preorder() {
        // a(b(c, d, e), f), ids a = 0 … f = 5.
        let t = Tree::from_parents(vec![NO_PARENT, 0, 1, 1, 1, 0], ChildOrder::Natural).unwrap();
        assert!(t.renamed_in_preorder(&[0, 1, 2, 3, 4, 5]).is_ok());
        assert!(
            t.renamed_in_preorder(&[0, 5, 1, 2, 3, 4]).is_err(),
            "c before its parent"
        );
        assert!(
            t.renamed_in_preorder(&[0, 2, 3, 4, 5, 1]).is_ok(),
            "light-first"
        );
        for bad in [
            &[0, 1, 3, 4, 5, 2][..], // breadth-first
            &[0, 1, 2, 3, 4, 4],
            &[0, 1, 2, 3, 4, 6],
            &[0, 1, 2, 3, 4],
            &[1, 0, 2, 3, 4, 5],
            &[0, 2, 1, 3, 4, 5],
        ] {
            assert!(
                matches!(t.renamed_in_preorder(bad), Err(TreeError::NotPreorder(_))),
                "{bad:?}"
            );
        }
    }
}
