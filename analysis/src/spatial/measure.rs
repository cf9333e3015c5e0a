//! Every message pattern of one tree on one layout, counted on every curve at once
//! (docs/design.md §12): the layout's construction and the virtual tree's, local messaging, the
//! communication of each treefix algorithm that has a spatial schedule, and batched LCA.

use super::construction;
use super::contraction::contraction_ops;
use super::curve::Placement;
use super::euler::euler_tour;
use super::layout::{Layout, LinearOrder};
use super::lca::{BatchedLca, LcaRun};
use super::local::local_messaging;
use super::messages::{Cost, Renamed};
use super::parallel::parallel;
use super::pram::pointer_jumping;
use super::virtual_tree::{VirtualTree, build_cost};
use crate::algorithms::{Family, GpuLayout};
use crate::orders::contraction::Schedule;
use crate::{Algorithm, Op};
use generators::{NO_PARENT, Tree};
use rayon::prelude::*;

/// The treefix algorithms whose communication is counted: `parallel`, the Euler-tour family
/// by its scan word (f32, float-float, exact limbs), and `contraction`. The other Euler-tour
/// algorithms send what `vectorial` sends (the chained and sequential scans differ in the
/// order of their additions only).
pub const ALGORITHMS: [Algorithm; 5] = [
    Algorithm::PARALLEL,
    Algorithm::VECTORIAL,
    Algorithm::VECTORIAL_COMPENSATED,
    Algorithm::VECTORIAL_EXACT,
    Algorithm::CONTRACTION,
];

/// A message pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Building the layout from the input (Theorem 4: list ranking, subtree sizes, placement).
    Layout,
    /// Building the virtual tree on the layout (Theorem 3).
    VirtualTree,
    /// Every parent to its children and back, along the virtual tree (Theorems 1–3).
    Local,
    /// One op of a treefix algorithm, as its schedule sends it.
    Treefix(Algorithm, Op),
    /// A PRAM rootfix simulated: pointer jumping, every read a message (the seed's n^1.5).
    PointerJumping,
    /// Batched lowest common ancestors (§VI).
    Lca,
}

impl Pattern {
    /// The patterns of `ops`, in table order: the layout's construction and the virtual
    /// tree's, local messaging, each algorithm's ops, pointer jumping, LCA.
    pub fn all(ops: &[Op]) -> Vec<Pattern> {
        [Pattern::Layout, Pattern::VirtualTree, Pattern::Local]
            .into_iter()
            .chain(
                ALGORITHMS
                    .iter()
                    .flat_map(|&a| ops.iter().map(move |&op| Pattern::Treefix(a, op))),
            )
            .chain([Pattern::PointerJumping, Pattern::Lca])
            .collect()
    }

    /// `layout`, `virtual-tree`, `local`, `pointer-jumping`, `lca`, or the algorithm's name.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Layout => "layout",
            Pattern::VirtualTree => "virtual-tree",
            Pattern::Local => "local",
            Pattern::PointerJumping => "pointer-jumping",
            Pattern::Treefix(a, _) => a.name(),
            Pattern::Lca => "lca",
        }
    }

    pub fn op(self) -> Option<Op> {
        match self {
            Pattern::Treefix(_, op) => Some(op),
            _ => None,
        }
    }

    /// `local`, `parallel rootfix`, `lca`.
    pub fn label(self) -> String {
        match self.op() {
            Some(op) => format!("{} {op}", self.name()),
            None => self.name().to_string(),
        }
    }
}

/// Words per scan value of an Euler-tour algorithm with exact limbs of `limbs` words.
pub fn scan_words(a: Algorithm, limbs: u32) -> u64 {
    match a.gpu().map(|k| k.layout) {
        Some(GpuLayout::Scan { word, .. }) => word.words(limbs as usize) as u64,
        _ => 1,
    }
}

/// One pattern's cost, or why it does not apply to the layout.
#[derive(Debug, Clone)]
pub struct Counted {
    pub pattern: Pattern,
    pub cost: Result<Cost, String>,
}

/// A tree laid out and ready to count: renamed by position ([`Layout::renamed`]: vertex i on
/// processor i, its children in the layout's sibling order), with the tree as input (its
/// vertex v on processor v, where the layout's construction starts). Its virtual tree and the
/// contraction schedule of the renamed tree (the schedule its twin runs on it) are built by
/// [`count`], beside the patterns that do not need them.
pub struct Laid<'a> {
    /// The tree as given.
    pub source: &'a Tree,
    /// Where each vertex of the given tree went.
    pub layout: Layout,
    /// The tree renamed by position.
    pub tree: Tree,
}

impl<'a> Laid<'a> {
    pub fn new(tree: &'a Tree, order: LinearOrder) -> Laid<'a> {
        let layout = Layout::new(tree, order);
        let renamed = layout.renamed(tree);
        Laid {
            source: tree,
            layout,
            tree: renamed,
        }
    }

    /// Queries on the given tree's vertices as pairs of positions.
    fn by_position(&self, queries: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let pos = self.layout.pos();
        queries
            .iter()
            .map(|&(u, v)| (pos[u as usize], pos[v as usize]))
            .collect()
    }

    /// Answers given as positions, as the given tree's vertices.
    fn by_vertex(&self, answers: &mut [u32]) {
        let mut at = vec![0u32; self.layout.len()];
        for (v, &p) in self.layout.pos().iter().enumerate() {
            at[p as usize] = v as u32;
        }
        for a in answers.iter_mut().filter(|a| **a != NO_PARENT) {
            *a = at[*a as usize];
        }
    }
}

/// Every pattern of `ops` on a laid-out tree, with the energy on each placement; and batched
/// LCA's answers to `queries` (vertices of the given tree; empty: none), from the replay that
/// counts its messages (`Err` where LCA does not apply to the layout).
/// `limbs`: the words of `vectorial-exact`'s fixed point on this tree's weights.
pub fn count(
    laid: &Laid,
    placements: &[Placement],
    ops: &[Op],
    limbs: u32,
    queries: &[(u32, u32)],
) -> (Vec<Counted>, Result<Vec<u32>, String>) {
    let Laid { layout, tree, .. } = laid;
    let n = tree.len();
    // LCA's ranges are positions of a layout; every other count names processors by vertex.
    let identity = Layout::identity(layout.order(), n);
    let pos = Renamed;
    let words: Vec<u64> = ALGORITHMS
        .iter()
        .filter(|a| a.family() == Family::EulerTour)
        .map(|&a| scan_words(a, limbs))
        .collect();
    let renamed_queries = laid.by_position(queries);
    // The pieces, in parallel. Contraction (both ops, in one replay: LCA runs them) waits for
    // its schedule, the longest chain: it starts at once, and the other pieces fill the other
    // threads — the virtual tree first, then local messaging and LCA on it, the construction,
    // pointer jumping, and per op parallel and the tour.
    enum Piece {
        Local(Cost),
        Build(Cost),
        Layout(Result<Cost, String>),
        Parallel(Op, Cost),
        Tour(super::euler::TourCost),
        Lca(Result<LcaRun, String>),
        Pram(Cost),
    }
    let (contracted, pieces) = rayon::join(
        || {
            let schedule = Schedule::new(tree);
            contraction_ops(tree, &schedule, pos, [Op::Leaffix, Op::Rootfix], placements)
        },
        || {
            let vt = VirtualTree::new(tree);
            let mut jobs: Vec<(u8, Op)> = [3, 4, 0, 5, 6].map(|k| (k, Op::Rootfix)).to_vec();
            for &op in ops {
                jobs.push((2, op));
                jobs.push((1, op));
            }
            jobs.par_iter()
                .map(|&(kind, op)| match kind {
                    0 => Piece::Local(local_messaging(&vt, pos, placements)),
                    1 => Piece::Parallel(op, parallel(tree, pos, op, placements)),
                    2 => Piece::Tour(euler_tour(tree, pos, op, placements, &words)),
                    4 => Piece::Pram(pointer_jumping(tree, pos, placements)),
                    5 => Piece::Build(build_cost(tree, pos, placements)),
                    6 => Piece::Layout(
                        construction::build(laid.source, layout, tree, placements).map(|b| b.cost),
                    ),
                    _ => Piece::Lca(
                        BatchedLca::new(tree, &identity)
                            .map(|l| l.run(&vt, placements, &renamed_queries))
                            .map_err(|e| e.to_string()),
                    ),
                })
                .collect::<Vec<Piece>>()
        },
    );
    let [sizes, layers] = contracted;
    let find = |want: Pattern| -> Option<Result<Cost, String>> {
        if let Pattern::Treefix(a, op) = want
            && a == Algorithm::CONTRACTION
        {
            return Some(Ok(match op {
                Op::Leaffix => sizes.clone(),
                Op::Rootfix => layers.clone(),
            }));
        }
        pieces.iter().find_map(|p| match (p, want) {
            (Piece::Local(c), Pattern::Local)
            | (Piece::Build(c), Pattern::VirtualTree)
            | (Piece::Pram(c), Pattern::PointerJumping) => Some(Ok(c.clone())),
            (Piece::Layout(c), Pattern::Layout) => Some(c.clone()),
            (Piece::Parallel(o, c), Pattern::Treefix(a, op))
                if a == Algorithm::PARALLEL && *o == op =>
            {
                Some(Ok(c.clone()))
            }
            (Piece::Tour(t), Pattern::Treefix(a, op))
                if a.family() == Family::EulerTour && t.op == op =>
            {
                Some(Ok(t.with_words(scan_words(a, limbs))))
            }
            // LCA: sizes by contraction leaffix, layers by contraction rootfix, then its own
            // steps.
            (Piece::Lca(run), Pattern::Lca) => Some(
                run.as_ref()
                    .map(|r| sizes.clone().then(&layers).then(&r.cost))
                    .map_err(Clone::clone),
            ),
            _ => None,
        })
    };
    let counted = Pattern::all(ops)
        .into_iter()
        .map(|pattern| Counted {
            pattern,
            cost: find(pattern).expect("every pattern is counted above"),
        })
        .collect();
    let answers = pieces
        .into_iter()
        .find_map(|p| match p {
            Piece::Lca(run) => Some(run.map(|r| r.answers)),
            _ => None,
        })
        .expect("counted above")
        .map(|mut a| {
            laid.by_vertex(&mut a);
            a
        });
    (counted, answers)
}

/// Batched LCA alone on one layout: the answers to `queries` (vertices of `tree`) from the
/// replay that counts its messages, and its cost (contraction's sizes and layers, then its
/// own steps) on `placement`.
pub fn lca_on_layout(
    tree: &Tree,
    order: LinearOrder,
    placement: &Placement,
    queries: &[(u32, u32)],
) -> Result<(Vec<u32>, Cost), String> {
    let laid = Laid::new(tree, order);
    let renamed = &laid.tree;
    let identity = Layout::identity(order, renamed.len());
    let lca = BatchedLca::new(renamed, &identity).map_err(|e| e.to_string())?;
    let placements = std::slice::from_ref(placement);
    let schedule = Schedule::new(renamed);
    let [sizes, layers] = contraction_ops(
        renamed,
        &schedule,
        Renamed,
        [Op::Leaffix, Op::Rootfix],
        placements,
    );
    let vt = VirtualTree::new(renamed);
    let mut run = lca.run(&vt, placements, &laid.by_position(queries));
    laid.by_vertex(&mut run.answers);
    Ok((run.answers, sizes.then(&layers).then(&run.cost)))
}
