//! One walk per algorithm and op: the algorithm's order carried out once on values that hold,
//! side by side, the twin's f32 partial sum with its running bound ([`Running`], §9.4) and
//! the a priori bound values ([`APrioriIn`], §9.1–§9.3). Each component is computed exactly
//! as it would be alone (the pair's addition is the two additions), so the replayed values
//! are the twin's bits and every bound is the one a walk of its own would give.

use super::*;
use crate::orders::Walker;
use crate::orders::contraction;
use crate::orders::tree;

/// What one walk of an order yields per node: the twin's f32 result (its additions replayed),
/// the running error bound of that replay, and the a priori bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Walked {
    /// The order's f32 additions replayed: the CPU twin's values, bit for bit.
    pub values: Vec<f32>,
    /// The running error bound of each replayed value (§9.4).
    pub running: Vec<f64>,
    /// (deterministic, sharp, probabilistic) a priori bounds (§9.1–§9.3).
    pub a_priori: APrioriBounds,
}

impl Walked {
    /// Zeros, to be set node by node ([`Walked::set`]): the tests' walks of one value alone.
    #[cfg(test)]
    pub(super) fn zeros(n: usize) -> Walked {
        Walked {
            values: vec![0.0; n],
            running: vec![0.0; n],
            a_priori: APrioriBounds {
                det: vec![0.0; n],
                sharp: vec![0.0; n],
                prob: vec![0.0; n],
            },
        }
    }

    /// Node v's results: its replayed value and running bound, then its a priori bounds.
    #[cfg(test)]
    pub(super) fn set(&mut self, v: usize, (value, running): (f32, f64), a: (f64, f64, f64)) {
        self.values[v] = value;
        self.running[v] = running;
        self.a_priori.det[v] = a.0;
        self.a_priori.sharp[v] = a.1;
        self.a_priori.prob[v] = a.2;
    }

    /// From per-node results whose four bounds are one value (vectorial-exact's half ulp).
    pub fn uniform((values, bounds): (Vec<f32>, Vec<f64>)) -> Walked {
        Walked {
            values,
            running: bounds.clone(),
            a_priori: APrioriBounds {
                det: bounds.clone(),
                sharp: bounds.clone(),
                prob: bounds,
            },
        }
    }
}

/// A replayed f32 sum and its a priori bound values, walked together.
type Both = (Running, APriori);

/// The tree orders (sequential, and parallel, which performs exactly the same additions one
/// level at a time, docs/design.md §5): rootfix `r[v] = r[parent] + w[v]` and leaffix
/// `((w[v] + l[c₁]) + l[c₂]) + …`, walked depth first (the path or the finished subtrees on
/// a stack), each node's bounds written as it is reached.
pub fn walk_tree(walker: &Walker, w: &[f32], op: Op, lambda: f64) -> Walked {
    walker.count_walk();
    let tree = walker.tree();
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let gammas = GammaTilde::new(lambda);
    let mut nodes = Node::pages(tree.len());
    let emit = |v: usize, (r, a): Both| {
        nodes[v] = Node::new((r.value, r.err_up()), gammas.bounds(&a));
    };
    match op {
        Op::Rootfix => tree::rootfix_sequential_each(tree, w, emit),
        Op::Leaffix => tree::leaffix_sequential_each(tree, w, emit),
    }
    Walked::from_pages(nodes, |x| x)
}

/// One node's walk results side by side. The walks reach the vertices in their order's
/// sequence, on a tree with random labels a cache miss each: one record per vertex costs one
/// miss where five arrays cost five. The records live in pages, each given back as soon as
/// the arrays have taken it, so the two are not both held whole.
#[derive(Debug, Clone, Copy, Default)]
// 36 bytes, as the five arrays' share: no padding after the f32.
#[repr(C, packed(4))]
struct Node {
    value: f32,
    running: f64,
    det: f64,
    sharp: f64,
    prob: f64,
}

impl Node {
    #[inline]
    fn new((value, running): (f32, f64), (det, sharp, prob): (f64, f64, f64)) -> Node {
        Node {
            value,
            running,
            det,
            sharp,
            prob,
        }
    }

    /// `n` records, to be written by vertex.
    fn pages(n: usize) -> Paged<Node> {
        Paged::new(std::iter::repeat(Node::default()), n)
    }
}

impl Walked {
    /// The per-vertex arrays of the values in `pages`, each made a record by `record` and
    /// each page given back once taken.
    fn from_pages<T>(pages: Paged<T>, record: impl Fn(T) -> Node) -> Walked {
        let n = pages.len();
        let mut out = Walked {
            values: Vec::with_capacity(n),
            running: Vec::with_capacity(n),
            a_priori: APrioriBounds {
                det: Vec::with_capacity(n),
                sharp: Vec::with_capacity(n),
                prob: Vec::with_capacity(n),
            },
        };
        for page in pages.pages {
            for x in page.into_iter().map(&record) {
                out.values.push(x.value);
                out.running.push(x.running);
                out.a_priori.det.push(x.det);
                out.a_priori.sharp.push(x.sharp);
                out.a_priori.prob.push(x.prob);
            }
        }
        out
    }
}

/// Contraction's order (docs/design.md §5) on the tree's schedule, built once per tree
/// ([`Walker::schedule`]). Its slots (64 bytes per vertex) live in pages, each given back as
/// soon as its vertices' bounds are written, so the slots and the bounds (36 bytes per vertex)
/// are not both held whole.
pub fn walk_contraction(walker: &Walker, w: &[f32], op: Op, lambda: f64) -> Walked {
    walker.count_walk();
    let n = walker.tree().len();
    assert_eq!(n, w.len(), "one weight per vertex");
    let schedule = walker.schedule();
    let mut slots = Paged::new(w.iter().map(|&x| Both::term(x)), n);
    match op {
        Op::Rootfix => contraction::rootfix_in(schedule, w, &mut slots),
        Op::Leaffix => contraction::leaffix_in(schedule, &mut slots),
    }
    let gammas = GammaTilde::new(lambda);
    Walked::from_pages(slots, |(r, a): Both| {
        Node::new((r.value, r.err_up()), gammas.bounds(&a))
    })
}

/// One value per vertex in pages of [`Paged::PAGE`], indexed like a slice.
struct Paged<T> {
    pages: Vec<Vec<T>>,
}

impl<T> Paged<T> {
    const PAGE: usize = 1 << 14;

    /// The `n` values of `values`, in order.
    fn new(mut values: impl Iterator<Item = T>, n: usize) -> Paged<T> {
        let pages = (0..n.div_ceil(Self::PAGE))
            .map(|k| {
                let len = Self::PAGE.min(n - k * Self::PAGE);
                values.by_ref().take(len).collect()
            })
            .collect();
        Paged { pages }
    }

    /// How many values.
    fn len(&self) -> usize {
        self.pages.iter().map(Vec::len).sum()
    }
}

impl<T> std::ops::Index<usize> for Paged<T> {
    type Output = T;
    #[inline]
    fn index(&self, v: usize) -> &T {
        &self.pages[v / Self::PAGE][v % Self::PAGE]
    }
}

impl<T> std::ops::IndexMut<usize> for Paged<T> {
    #[inline]
    fn index_mut(&mut self, v: usize) -> &mut T {
        &mut self.pages[v / Self::PAGE][v % Self::PAGE]
    }
}

/// An Euler-tour order: E written with the replayed sums of f32 additions ([`Running`]) and
/// a priori values beside them, scanned with `plan`, read per vertex.
pub fn walk_tour(walker: &Walker, w: &[f32], plan: Plan, op: Op, lambda: f64) -> Walked {
    walk_tour_in::<F32Add, Running>(walker, w, plan, op, lambda)
}

/// The float-float Euler-tour order (vectorial-compensated): the replayed float-float sums
/// ([`RunningDw`]) and a priori values of float-float additions, the read's rounding to f32
/// included.
pub fn walk_tour_dw(walker: &Walker, w: &[f32], plan: Plan, op: Op, lambda: f64) -> Walked {
    walk_tour_in::<DwAdd, RunningDw>(walker, w, plan, op, lambda)
}

fn walk_tour_in<R: Roundoff, V: Charged<Charge = f64>>(
    walker: &Walker,
    w: &[f32],
    plan: Plan,
    op: Op,
    lambda: f64,
) -> Walked
where
    ReadRunning: TourRead<V, Out = (f32, f64)>,
{
    walker.count_walk();
    let tree = walker.tree();
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let reader = TwoReads(
        ReadRunning,
        APrioriRead::<R>::new(tree, w, op, GammaTilde::new(lambda)),
    );
    let mut nodes = Node::pages(tree.len());
    read_tour::<(V, APrioriIn<R>), _>(
        (tree, &TourVertices::new(tree, w)),
        (op, plan),
        &reader,
        batch_tiles(),
        |v, (running, a)| nodes[v] = Node::new(running, a),
    );
    Walked::from_pages(nodes, |x| x)
}
