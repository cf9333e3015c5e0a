//! The communication of `parallel` (Defour & Marin's Algorithm 1; docs/design.md §5, §12.3)
//! as its own schedule sends it: level by level along the tree's edges. Rootfix: for
//! d = 0 … height − 1, every vertex of level d sends its r to each child; leaffix: deepest level
//! first, every vertex sends its l to its parent. One word per message, one phase per level, so
//! the depth is the height. The messages go straight along the edges (the algorithm has no
//! virtual tree): a vertex of k children sends or receives k messages in one phase.

use super::curve::Placement;
use super::messages::{Cost, Counter, Processors};
use crate::Op;
use generators::Tree;

/// The messages of `parallel` `op` on `tree`, vertex v on processor `pos.of(v)`.
pub fn parallel(tree: &Tree, pos: impl Processors, op: Op, placements: &[Placement]) -> Cost {
    let c = &mut Counter::new(placements, tree.len());
    let levels = tree.num_levels();
    let level = |d: usize, c: &mut Counter| {
        for &v in tree.level(d) {
            for &k in tree.children(v) {
                let (a, b) = (pos.of(v), pos.of(k));
                match op {
                    Op::Rootfix => c.send(a, b, 1),
                    Op::Leaffix => c.send(b, a, 1),
                }
            }
        }
        c.end_phase();
    };
    match op {
        Op::Rootfix => (0..levels.saturating_sub(1)).for_each(|d| level(d, c)),
        Op::Leaffix => (0..levels.saturating_sub(1))
            .rev()
            .for_each(|d| level(d, c)),
    }
    c.cost()
}
