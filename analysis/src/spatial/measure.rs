//! Every message pattern of one tree on one layout, counted on every curve at once
//! (docs/design.md §12): local messaging, the communication of each treefix algorithm that has
//! a spatial schedule, and batched LCA.

use super::contraction::contraction_ops;
use super::curve::Placement;
use super::euler::euler_tour;
use super::layout::{Layout, LinearOrder};
use super::lca::BatchedLca;
use super::local::local_messaging;
use super::messages::{Cost, Renamed};
use super::parallel::parallel;
use super::pram::pointer_jumping;
use super::virtual_tree::VirtualTree;
use crate::algorithms::{Family, GpuLayout};
use crate::orders::contraction::Schedule;
use crate::{Algorithm, Op};
use generators::Tree;
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
    /// The patterns of `ops`, in table order: local messaging, each algorithm's ops, pointer
    /// jumping, LCA.
    pub fn all(ops: &[Op]) -> Vec<Pattern> {
        std::iter::once(Pattern::Local)
            .chain(
                ALGORITHMS
                    .iter()
                    .flat_map(|&a| ops.iter().map(move |&op| Pattern::Treefix(a, op))),
            )
            .chain([Pattern::PointerJumping, Pattern::Lca])
            .collect()
    }

    /// `local`, `pointer-jumping`, `lca`, or the algorithm's name.
    pub fn name(self) -> &'static str {
        match self {
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
/// processor i, its children in the layout's sibling order). Its virtual tree and the
/// contraction schedule of the renamed tree (the schedule its twin runs on it) are built by
/// [`count`], beside the patterns that do not need them.
pub struct Laid {
    /// Where each vertex of the given tree went.
    pub layout: Layout,
    /// The tree renamed by position.
    pub tree: Tree,
}

impl Laid {
    pub fn new(tree: &Tree, order: LinearOrder) -> Laid {
        let layout = Layout::new(tree, order);
        let renamed = layout.renamed(tree);
        Laid {
            layout,
            tree: renamed,
        }
    }
}

/// Every pattern of `ops` on a laid-out tree, with the energy on each placement.
/// `limbs`: the words of `vectorial-exact`'s fixed point on this tree's weights.
pub fn count(laid: &Laid, placements: &[Placement], ops: &[Op], limbs: u32) -> Vec<Counted> {
    let Laid { layout, tree } = laid;
    let n = tree.len();
    // LCA's ranges are positions of a layout; every other count names processors by vertex.
    let identity = Layout::identity(layout.order(), n);
    let pos = Renamed;
    // The pieces, in parallel. Contraction (both ops, in one replay: LCA runs them) waits for
    // its schedule, the longest chain: it starts at once, and the other pieces fill the other
    // threads — the virtual tree first, then local messaging and LCA on it, pointer jumping,
    // and per op parallel and the tour.
    enum Piece {
        Local(Cost),
        Parallel(Op, Cost),
        Tour(super::euler::TourCost),
        Lca(Result<Cost, String>),
        Pram(Cost),
    }
    let (contracted, pieces) = rayon::join(
        || {
            let schedule = Schedule::new(tree);
            contraction_ops(tree, &schedule, pos, [Op::Leaffix, Op::Rootfix], placements)
        },
        || {
            let vt = VirtualTree::new(tree);
            let mut jobs: Vec<(u8, Op)> =
                vec![(3, Op::Rootfix), (4, Op::Rootfix), (0, Op::Rootfix)];
            for &op in ops {
                jobs.push((2, op));
                jobs.push((1, op));
            }
            jobs.par_iter()
                .map(|&(kind, op)| match kind {
                    0 => Piece::Local(local_messaging(&vt, pos, placements)),
                    1 => Piece::Parallel(op, parallel(tree, pos, op, placements)),
                    2 => Piece::Tour(euler_tour(tree, pos, op, placements)),
                    4 => Piece::Pram(pointer_jumping(tree, pos, placements)),
                    _ => Piece::Lca(
                        BatchedLca::new(tree, &identity)
                            .map(|l| l.cost(&vt, placements))
                            .map_err(|e| e.to_string()),
                    ),
                })
                .collect::<Vec<Piece>>()
        },
    );
    let [sizes, layers] = contracted;
    let contraction_of = |op| match op {
        Op::Leaffix => sizes.clone(),
        Op::Rootfix => layers.clone(),
    };
    let find = |want: Pattern| -> Option<Cost> {
        if let Pattern::Treefix(a, op) = want
            && a == Algorithm::CONTRACTION
        {
            return Some(contraction_of(op));
        }
        pieces.iter().find_map(|p| match (p, want) {
            (Piece::Local(c), Pattern::Local) => Some(c.clone()),
            (Piece::Pram(c), Pattern::PointerJumping) => Some(c.clone()),
            (Piece::Parallel(o, c), Pattern::Treefix(a, op))
                if a == Algorithm::PARALLEL && *o == op =>
            {
                Some(c.clone())
            }
            (Piece::Tour(t), Pattern::Treefix(a, op))
                if a.family() == Family::EulerTour && t.op == op =>
            {
                Some(t.with_words(scan_words(a, limbs)))
            }
            _ => None,
        })
    };
    let lca = pieces
        .iter()
        .find_map(|p| match p {
            Piece::Lca(c) => Some(c),
            _ => None,
        })
        .expect("counted above");
    Pattern::all(ops)
        .into_iter()
        .map(|pattern| Counted {
            pattern,
            cost: match pattern {
                // LCA: sizes by contraction leaffix, layers by contraction rootfix, then its own
                // steps.
                Pattern::Lca => lca
                    .as_ref()
                    .map(|own| sizes.clone().then(&layers).then(own))
                    .map_err(Clone::clone),
                _ => Ok(find(pattern).expect("every other pattern is counted above")),
            },
        })
        .collect()
}
