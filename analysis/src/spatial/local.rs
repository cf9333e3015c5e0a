//! Local messaging (seed 002 §III-D, docs/design.md §12.4): every vertex sends one message to
//! all its children (a local broadcast), and every parent receives the reduction of its
//! children's messages (a local reduce), both along the degree ≤ 4 virtual tree
//! ([`super::virtual_tree`]). Theorems 1–3 bound this pattern's energy by O(n) on a
//! light-first layout; its depth is 1 + ⌈log₂ Δ⌉ each way (Δ the largest degree).

use super::curve::Placement;
use super::messages::{Cost, Counter, Processors};
use super::virtual_tree::VirtualTree;

/// A local broadcast of `words` words: the real parents send to their current children
/// (phase 0), then each sibling forwards to its appended children, one phase per hop.
pub fn broadcast(vt: &VirtualTree, pos: impl Processors, c: &mut Counter, words: u32) {
    for h in 0..vt.hops() {
        for &v in vt.at_hop(h) {
            c.send(pos.of(vt.parents()[v as usize]), pos.of(v), words);
        }
        c.end_phase();
    }
}

/// A local reduce of `words` words: the mirror of [`broadcast`], deepest hop first.
pub fn reduce(vt: &VirtualTree, pos: impl Processors, c: &mut Counter, words: u32) {
    for h in (0..vt.hops()).rev() {
        for &v in vt.at_hop(h) {
            c.send(pos.of(v), pos.of(vt.parents()[v as usize]), words);
        }
        c.end_phase();
    }
}

/// Local messaging: every parent to its children, and back (one word each way).
pub fn local_messaging(vt: &VirtualTree, pos: impl Processors, placements: &[Placement]) -> Cost {
    let c = &mut Counter::new(placements, vt.parents().len());
    broadcast(vt, pos, c, 1);
    reduce(vt, pos, c, 1);
    c.cost()
}
