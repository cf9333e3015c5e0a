//! Every message pattern of one tree on one layout, counted on every curve at once
//! (docs/design.md §12): local messaging, the communication of each treefix algorithm that has
//! a spatial schedule, and batched LCA.

use super::contraction::contraction;
use super::curve::Placement;
use super::euler::euler_tour;
use super::layout::{Layout, LinearOrder};
use super::lca::BatchedLca;
use super::local::local_messaging;
use super::messages::Cost;
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
/// processor i, its children in the layout's sibling order), with its virtual tree and the
/// contraction schedule of the renamed tree — the schedule its twin runs on it.
pub struct Laid {
    /// Where each vertex of the given tree went.
    pub layout: Layout,
    /// The tree renamed by position.
    pub tree: Tree,
    vt: VirtualTree,
    schedule: Schedule,
}

impl Laid {
    pub fn new(tree: &Tree, order: LinearOrder) -> Laid {
        let layout = Layout::new(tree, order);
        let renamed = layout.renamed(tree);
        let (vt, schedule) = rayon::join(|| VirtualTree::new(&renamed), || Schedule::new(&renamed));
        Laid {
            layout,
            tree: renamed,
            vt,
            schedule,
        }
    }
}

/// Every pattern of `ops` on a laid-out tree, with the energy on each placement.
/// `limbs`: the words of `vectorial-exact`'s fixed point on this tree's weights.
pub fn count(laid: &Laid, placements: &[Placement], ops: &[Op], limbs: u32) -> Vec<Counted> {
    let Laid {
        layout,
        tree,
        vt,
        schedule,
    } = laid;
    let n = tree.len();
    let identity = Layout::identity(layout.order(), n);
    let pos = identity.pos();
    let lca = BatchedLca::new(tree, &identity);
    // The pieces, in parallel: local messaging, then per op parallel, the tour and contraction
    // (both ops of contraction: LCA runs them) and LCA's own steps, the longest first.
    enum Piece {
        Local(Cost),
        Parallel(Op, Cost),
        Tour(super::euler::TourCost),
        Contraction(Op, Cost),
        Lca(Option<Cost>),
        Pram(Cost),
    }
    let mut jobs: Vec<(u8, Op)> = vec![(4, Op::Rootfix), (5, Op::Rootfix), (0, Op::Rootfix)];
    for &op in ops {
        jobs.push((1, op));
        jobs.push((2, op));
    }
    jobs.extend(Op::ALL.iter().map(|&op| (3, op)));
    let pieces: Vec<Piece> = jobs
        .par_iter()
        .map(|&(kind, op)| match kind {
            0 => Piece::Local(local_messaging(vt, pos, placements)),
            1 => Piece::Parallel(op, parallel(tree, pos, op, placements)),
            2 => Piece::Tour(euler_tour(tree, pos, op, placements)),
            3 => Piece::Contraction(op, contraction(tree, schedule, pos, op, placements)),
            5 => Piece::Pram(pointer_jumping(tree, pos, placements)),
            _ => Piece::Lca(lca.as_ref().ok().map(|l| l.cost(vt, placements))),
        })
        .collect();
    let find = |want: Pattern| -> Option<Cost> {
        pieces.iter().find_map(|p| match (p, want) {
            (Piece::Local(c), Pattern::Local) => Some(c.clone()),
            (Piece::Pram(c), Pattern::PointerJumping) => Some(c.clone()),
            (Piece::Parallel(o, c), Pattern::Treefix(a, op))
                if a == Algorithm::PARALLEL && *o == op =>
            {
                Some(c.clone())
            }
            (Piece::Contraction(o, c), Pattern::Treefix(a, op))
                if a == Algorithm::CONTRACTION && *o == op =>
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
    let own = pieces.iter().find_map(|p| match p {
        Piece::Lca(c) => c.as_ref(),
        _ => None,
    });
    let contraction_of = |op| find(Pattern::Treefix(Algorithm::CONTRACTION, op));
    Pattern::all(ops)
        .into_iter()
        .map(|pattern| Counted {
            pattern,
            cost: match pattern {
                Pattern::Lca => match &lca {
                    Ok(_) => {
                        let sizes = contraction_of(Op::Leaffix).expect("counted above");
                        let layers = contraction_of(Op::Rootfix).expect("counted above");
                        Ok(sizes.then(&layers).then(own.expect("counted above")))
                    }
                    Err(e) => Err(e.to_string()),
                },
                _ => Ok(find(pattern).expect("every other pattern is counted above")),
            },
        })
        .collect()
}
