//! One walk per algorithm and op: the algorithm's order carried out once on values that hold,
//! side by side, the twin's f32 partial sum with its running bound ([`Running`], §9.4) and
//! the a priori bound values ([`APrioriIn`], §9.1–§9.3). Each component is computed exactly
//! as it would be alone (the pair's addition is the two additions), so the replayed values
//! are the twin's bits and every bound is the one a walk of its own would give.

use super::*;
use crate::orders::Walker;
use crate::orders::contraction;
use crate::orders::tree;
use generators::Precision;

/// What one walk of an order yields per node: the twin's f32 result (its additions replayed)
/// and its four bounds side by side: the running error bound of that replay and the a
/// priori bounds (one record per node: the walks reach the vertices in their order's
/// sequence, on a tree with random labels a cache miss each, one per array written). The
/// buffers come from, and go back to, the evaluation's spares ([`super::keep_spares`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Walked {
    /// The order's f32 additions replayed: the CPU twin's values, bit for bit.
    pub values: Vec<f32>,
    /// The bounds of each replayed value: running (§9.4) and a priori (§9.1–§9.3).
    pub bounds: Vec<FourBounds>,
}

impl Walked {
    /// Zeros for `n` nodes, to be set node by node ([`Walked::set`]), in spare buffers.
    pub(super) fn zeros(n: usize) -> Walked {
        Walked {
            values: spare::take(n),
            bounds: spare::take(n),
        }
    }

    /// Node v's results: its replayed value and running bound, then its a priori bounds.
    #[inline]
    pub(super) fn set(&mut self, v: usize, (value, running): (f32, f64), a: (f64, f64, f64)) {
        self.values[v] = value;
        self.bounds[v] = FourBounds::new(running, a);
    }

    /// Fetches node v's slots into the cache, for a [`Walked::set`] a few nodes later: the
    /// tree orders reach the nodes in their sequence, on a tree with random labels a cache
    /// miss per write, which stalls the additions behind it. On a 2^22-vertex `profile` tree
    /// their walk took 3.0 times as long as with its writes made in sequence (a test
    /// build), and 1.1–1.2 times with the slots fetched [`orders::tree::AHEAD`] nodes
    /// ahead. The Euler-tour walks, whose reads do more arithmetic per write, gained nothing
    /// from it and do not.
    pub(super) fn ahead(&self) -> impl Fn(usize) + use<> {
        let (values, bounds) = (self.values.as_ptr(), self.bounds.as_ptr());
        move |v| {
            orders::prefetch(values.wrapping_add(v));
            orders::prefetch(bounds.wrapping_add(v));
        }
    }

    /// From each node's result and its one bound, which its four bounds are (vectorial-exact's
    /// half ulp), in one pass into the two arrays.
    pub fn uniform(nodes: impl ExactSizeIterator<Item = (f32, f64)>) -> Walked {
        let n = nodes.len();
        let mut out = Walked {
            values: spare::take_empty(n),
            bounds: spare::take_empty(n),
        };
        for (x, b) in nodes {
            out.values.push(x);
            out.bounds.push(FourBounds::new(b, (b, b, b)));
        }
        out
    }

    /// The a priori bounds, as arrays.
    pub fn a_priori(&self) -> APrioriBounds {
        APrioriBounds {
            det: column(&self.bounds, |b| b.det),
            sharp: column(&self.bounds, |b| b.sharp),
            prob: column(&self.bounds, |b| b.prob),
        }
    }

    /// The running bounds, as an array.
    pub fn running(&self) -> Vec<f64> {
        column(&self.bounds, |b| b.running)
    }
}

/// A replayed sum of the accumulation format `T` and the a priori bound values of its
/// additions `R`, walked together.
type Both<T, R> = (RunningIn<T>, APrioriIn<R>);

/// `$body` with `$store` the store of `$arith` ([`Kept`] where it adds in its storage
/// format, else [`StoreTo`]): one instance per kind of store.
macro_rules! in_store {
    ($arith:expr, $store:ident => $body:expr) => {{
        let arith: Arithmetic = $arith;
        match arith.is_mixed() {
            false => {
                let $store = Kept;
                $body
            }
            true => {
                let $store = StoreTo::new(arith);
                $body
            }
        }
    }};
}

/// `$body`, a walk generic over the accumulation format's values `$T`, its additions `$R`
/// and the store `$store`, instantiated for `$arith`.
macro_rules! in_accumulation {
    ($arith:expr, $T:ident, $R:ident, $store:ident => $body:expr) => {{
        let arith: Arithmetic = $arith;
        crate::in_accumulation_format!(arith.accumulate, $T => {
            type $R = <$T as Additions>::Add;
            in_store!(arith, $store => $body)
        })
    }};
}

/// The tree orders (sequential, and parallel, which performs exactly the same additions one
/// level at a time, docs/design.md §5): rootfix `r[v] = r[parent] + w[v]` and leaffix
/// `((w[v] + l[c₁]) + l[c₂]) + …`, walked depth first (the path or the finished subtrees on
/// a stack), each node's bounds written as it is reached; in `arith`, each result stored
/// once.
pub fn walk_tree(walker: &Walker, w: &[f32], op: Op, lambda: f64, arith: Arithmetic) -> Walked {
    in_accumulation!(arith, T, R, store => walk_tree_as::<T, R, _>(walker, w, op, lambda, store))
}

fn walk_tree_as<T: Stored, R: Roundoff, S: Store>(
    walker: &Walker,
    w: &[f32],
    op: Op,
    lambda: f64,
    store: S,
) -> Walked {
    walker.count_walk();
    let tree = walker.tree();
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let gammas = GammaTilde::of::<R>(lambda);
    let mut out = Walked::zeros(tree.len());
    let ahead = out.ahead();
    let emit = |v: usize, (r, a): Both<T, R>| {
        out.set(
            v,
            store.running(r.value, r.err_up()),
            store.bounds(&gammas, &a),
        )
    };
    match op {
        Op::Rootfix => tree::rootfix_sequential_each_ahead(tree, w, ahead, emit),
        Op::Leaffix => tree::leaffix_sequential_each_ahead(tree, w, ahead, emit),
    }
    out
}

/// Contraction's order (docs/design.md §5) on the tree's schedule, built once per tree
/// ([`Walker::schedule`]). Its slots (64 bytes per vertex in f32) live in pages, each given
/// back as soon as its vertices' bounds are written, so the slots and the bounds (36 bytes
/// per vertex) are not both held whole.
pub fn walk_contraction(
    walker: &Walker,
    w: &[f32],
    op: Op,
    lambda: f64,
    arith: Arithmetic,
) -> Walked {
    in_accumulation!(arith, T, R, store => {
        walk_contraction_as::<T, R, _>(walker, w, op, lambda, store)
    })
}

fn walk_contraction_as<T: Stored, R: Roundoff, S: Store>(
    walker: &Walker,
    w: &[f32],
    op: Op,
    lambda: f64,
    store: S,
) -> Walked {
    walker.count_walk();
    let n = walker.tree().len();
    assert_eq!(n, w.len(), "one weight per vertex");
    let schedule = walker.schedule();
    let mut slots = Paged::new(w.iter().map(|&x| Both::<T, R>::term(x)), n);
    match op {
        Op::Rootfix => contraction::rootfix_in(schedule, |v| Both::<T, R>::term(w[v]), &mut slots),
        Op::Leaffix => contraction::leaffix_in(schedule, &mut slots),
    }
    let gammas = GammaTilde::of::<R>(lambda);
    let mut out = Walked {
        values: spare::take_empty(n),
        bounds: spare::take_empty(n),
    };
    // Each page given back once its vertices' bounds are written, before the output's pages
    // are touched further.
    for page in slots.pages {
        for (r, a) in page {
            let (value, running) = store.running(r.value, r.err_up());
            out.values.push(value);
            out.bounds
                .push(FourBounds::new(running, store.bounds(&gammas, &a)));
        }
    }
    out
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

/// An Euler-tour order: E written with the replayed sums of the accumulation format's
/// additions ([`RunningIn`]) and a priori values beside them, scanned with `plan`, read per
/// vertex; in `arith`, each result stored once.
pub fn walk_tour(
    walker: &Walker,
    w: &[f32],
    plan: Plan,
    op: Op,
    lambda: f64,
    arith: Arithmetic,
) -> Walked {
    let at = (plan, op);
    in_accumulation!(arith, T, R, store => {
        walk_tour_in::<R, RunningIn<T>, _>(walker, w, at, lambda, store)
    })
}

/// The float-float Euler-tour order (vectorial-compensated): the replayed float-float sums
/// ([`RunningDw`]) and a priori values of float-float additions, the read's rounding to f32
/// included, then the store's to `arith`'s storage (it adds f32 pairs only).
pub fn walk_tour_dw(
    walker: &Walker,
    w: &[f32],
    plan: Plan,
    op: Op,
    lambda: f64,
    arith: Arithmetic,
) -> Walked {
    let f32_result = Arithmetic {
        storage: arith.storage,
        accumulate: Precision::F32,
    };
    let at = (plan, op);
    in_store!(f32_result, store => {
        walk_tour_in::<DwAdd, RunningDw, _>(walker, w, at, lambda, store)
    })
}

fn walk_tour_in<R: Roundoff, V: Charged<Charge = f64> + Replayed, S: Store>(
    walker: &Walker,
    w: &[f32],
    (plan, op): (Plan, Op),
    lambda: f64,
    store: S,
) -> Walked
where
    ReadRunning: TourRead<V, Out = (V::Value, f64)>,
{
    walker.count_walk();
    let tree = walker.tree();
    assert_eq!(tree.len(), w.len(), "one weight per vertex");
    let tour = TourVertices::new(tree, w);
    let reader = TwoReads(
        ReadRunning,
        APrioriRead::<R>::new(&tour, op, GammaTilde::of::<R>(lambda)).stored(store),
    );
    let mut out = Walked::zeros(tree.len());
    read_tour::<(V, APrioriIn<R>), _>(
        (tree, &tour),
        (op, plan),
        &reader,
        batch_tiles(),
        |v, ((value, running), a)| out.set(v, store.running(value, running), a),
    );
    out
}

/// A replayed value as the read yields it: the accumulation format's value.
pub(super) trait Replayed {
    type Value: Stored;
}

impl<T: Stored> Replayed for RunningIn<T> {
    type Value = T;
}

impl Replayed for RunningDw {
    type Value = f32;
}
