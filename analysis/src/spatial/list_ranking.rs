//! List ranking by random mate (Anderson & Miller; the seed's Theorem 5), message by message:
//! what building a layout spends on its Euler tours (docs/design.md §12.11).
//!
//! A list of entries, each on a processor, knows only its successors. First every entry tells
//! its successor that it is the predecessor (1 word). Then, round after round, every entry
//! still in the list flips a coin and tells its successor the coin (1 word); an entry that shows
//! heads, whose predecessor shows tails, leaves: it sends its predecessor its successor and the
//! partial rank between them (`words` + 1 words), and its successor its new predecessor (1
//! word). No two neighbours leave together, so each leaving entry is spliced out alone, and
//! about a quarter of the list leaves per round. When only the head is left, the rounds are
//! undone in reverse: every entry that left receives its rank from the predecessor it left
//! (`words` words), which has its own by then. The coins of round k are the bits of
//! `generators::rng(derive_seed(SEED, k))`, 64 per draw, least significant first, in list
//! order of the entries left: the construction's own, the same on every platform.

use super::curve::Placement;
use super::messages::{Cost, Counter};
use rand::Rng as _;

/// The seed of the coin flips.
pub const SEED: u64 = 0x6c69_7374_2d72_616e;

/// No successor (the tail) or no predecessor (the head).
pub const NONE: u32 = u32::MAX;

/// A list ranked: every entry's rank, from the values the messages carried, and the cost.
pub struct Ranked {
    /// Σ of the weights of the entries before each one (the head's is 0).
    pub rank: Vec<u64>,
    pub cost: Cost,
    /// Rounds of random mate until only the head was left.
    pub rounds: u32,
}

/// Ranks the list `succ` (entry e's successor, [`NONE`] at the tail; one head) with entry e of
/// weight `weight(e)` on processor `at(e)`, among `processors` processors; a rank is `words`
/// words.
pub fn rank(
    succ: &[u32],
    weight: impl Fn(u32) -> u64,
    at: impl Fn(u32) -> u32,
    processors: usize,
    words: u32,
    placements: &[Placement],
) -> Ranked {
    let m = succ.len();
    let c = &mut Counter::new(placements, processors);
    let mut succ = succ.to_vec();
    let mut pred = vec![NONE; m];
    for (e, &s) in succ.iter().enumerate() {
        if s != NONE {
            pred[s as usize] = e as u32;
            c.send(at(e as u32), at(s), 1);
        }
    }
    c.end_phase();
    // The weight between each entry and its current successor.
    let mut gap: Vec<u64> = (0..m as u32).map(&weight).collect();
    let mut active: Vec<u32> = (0..m as u32).collect();
    let mut heads = vec![false; m];
    // Per round, the entries that left: (entry, its predecessor, the predecessor's gap then).
    let mut left: Vec<Vec<(u32, u32, u64)>> = Vec::new();
    while active.len() > 1 {
        let mut rng = generators::rng(generators::derive_seed(SEED, left.len() as u64));
        let mut bits = 0u64;
        for (i, &e) in active.iter().enumerate() {
            if i % 64 == 0 {
                bits = rng.next_u64();
            }
            heads[e as usize] = (bits >> (i % 64)) & 1 == 1;
            if succ[e as usize] != NONE {
                c.send(at(e), at(succ[e as usize]), 1);
            }
        }
        c.end_phase();
        let mut gone = Vec::new();
        for &e in &active {
            let p = pred[e as usize];
            if p != NONE && heads[e as usize] && !heads[p as usize] {
                gone.push((e, p, 0));
            }
        }
        for g in &mut gone {
            let (e, p) = (g.0 as usize, g.1 as usize);
            let s = succ[e];
            c.send(at(g.0), at(g.1), words + 1);
            if s != NONE {
                c.send(at(g.0), at(s), 1);
                pred[s as usize] = g.1;
            }
            succ[p] = s;
            g.2 = gap[p];
            gap[p] += gap[e];
            pred[e] = g.0;
        }
        c.end_phase();
        // An entry that left is its own predecessor now.
        active.retain(|&e| pred[e as usize] != e);
        left.push(gone);
    }
    let mut rank = vec![0u64; m];
    for gone in left.iter().rev() {
        for &(e, p, before) in gone {
            rank[e as usize] = rank[p as usize] + before;
            c.send(at(p), at(e), words);
        }
        c.end_phase();
    }
    Ranked {
        rank,
        cost: c.cost(),
        rounds: left.len() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::Curve;

    /// The ranks the messages carried are the list's prefix sums, on lists in scrambled
    /// order with weights; every entry but the head leaves once (its splice and its rank back:
    /// at least 2 messages each), and the rounds stay logarithmic.
    #[test]
    fn ranks_are_the_prefix_sums() {
        for m in [1usize, 2, 3, 10, 1000, 100_000] {
            // The list visits the entries in the order 0, k, 2k, … mod m (k coprime to m).
            let k = (1..m.max(2)).rev().find(|k| gcd(*k, m) == 1).unwrap_or(1) % m.max(1);
            let order: Vec<u32> = (0..m).map(|i| ((i * k.max(1)) % m) as u32).collect();
            let mut succ = vec![NONE; m];
            for w in order.windows(2) {
                succ[w[0] as usize] = w[1];
            }
            let weight = |e: u32| u64::from(e % 3);
            let p = [Placement::new(Curve::Hilbert, m).unwrap()];
            let r = rank(&succ, weight, |e| e, m, 1, &p);
            let mut want = 0;
            for &e in &order {
                assert_eq!(r.rank[e as usize], want, "m={m} entry {e}");
                want += weight(e);
            }
            assert!(r.cost.messages >= 3 * (m as u64).saturating_sub(1), "m={m}");
            if m >= 1000 {
                let bound = 4.0 * (m as f64).log2();
                assert!((r.rounds as f64) < bound, "m={m}: {} rounds", r.rounds);
            }
        }
    }

    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 { a } else { gcd(b, a % b) }
    }
}
