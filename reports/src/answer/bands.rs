//! The advice per κ band: one worst case over every κ hides that an algorithm which fails at
//! κ = 1e10 may be the right choice below 1e4. Per band (and per topology where the bands'
//! choices differ), the cheapest algorithm within the threshold, else the most accurate;
//! neighbouring bands with the same choice are joined into one range.

use super::super::fmt::{fixed, sci};
use super::{Cell, OpAnswer, times};

/// The choice on a range of κ bands.
#[derive(Debug, Clone, PartialEq)]
pub struct BandPick {
    /// The smallest and largest target κ of the range.
    pub from: f64,
    pub to: f64,
    /// The algorithm chosen (index into [`OpAnswer::algorithms`]); `None`: none has results.
    pub pick: Option<usize>,
    /// Whether the pick is within the threshold (else it is only the most accurate).
    pub within: bool,
    /// The pick's largest loss over the range.
    pub bits: f64,
}

/// The cheapest algorithm within the threshold among `cells` (one per algorithm), by the
/// op's compared times; else, with no time to compare, the first within it; else the most
/// accurate.
pub fn choose(a: &OpAnswer, cells: &[Option<Cell>]) -> (Option<usize>, bool) {
    let within: Vec<usize> = (0..cells.len())
        .filter(|&i| cells[i].is_some_and(|c| c.bits <= a.threshold.bits))
        .collect();
    if within.is_empty() {
        let best = (0..cells.len())
            .filter(|&i| cells[i].is_some())
            .min_by(|&i, &j| cells[i].unwrap().bits.total_cmp(&cells[j].unwrap().bits));
        return (best, false);
    }
    let priced = within
        .iter()
        .copied()
        .filter(|&i| a.costs.relative(i).is_some())
        .min_by(|&i, &j| {
            let (x, y) = (a.costs.relative(i), a.costs.relative(j));
            x.unwrap().total_cmp(&y.unwrap())
        });
    (priced.or(within.first().copied()), true)
}

/// The bands of the lines whose topology passes `keep`, ascending in κ, each with the largest
/// loss per algorithm over those lines.
fn band_cells(a: &OpAnswer, keep: &dyn Fn(&str) -> bool) -> Vec<(f64, Vec<Option<Cell>>)> {
    let mut bands: Vec<(f64, Vec<Option<Cell>>)> = Vec::new();
    for l in a.lines.iter().filter(|l| keep(&l.topology)) {
        match bands
            .iter_mut()
            .find(|(t, _)| t.to_bits() == l.target.to_bits())
        {
            Some((_, cells)) => {
                for (c, n) in cells.iter_mut().zip(&l.cells) {
                    *c = match (*c, *n) {
                        (Some(x), Some(y)) => Some(Cell::max(x, y)),
                        (x, y) => x.or(y),
                    };
                }
            }
            None => bands.push((l.target, l.cells.clone())),
        }
    }
    bands.sort_by(|x, y| x.0.total_cmp(&y.0));
    bands
}

/// The choices per κ range over the lines whose topology passes `keep`.
fn picks(a: &OpAnswer, keep: &dyn Fn(&str) -> bool) -> Vec<BandPick> {
    let mut out: Vec<BandPick> = Vec::new();
    for (target, cells) in band_cells(a, keep) {
        let (pick, within) = choose(a, &cells);
        let bits = pick.and_then(|i| cells[i]).map_or(f64::NAN, |c| c.bits);
        match out.last_mut() {
            Some(last) if last.pick == pick && last.within == within => {
                last.to = target;
                last.bits = last.bits.max(bits);
            }
            _ => out.push(BandPick {
                from: target,
                to: target,
                pick,
                within,
                bits,
            }),
        }
    }
    out
}

/// The choices per κ range over every topology.
pub fn overall(a: &OpAnswer) -> Vec<BandPick> {
    picks(a, &|_| true)
}

/// Per topology, its choices per κ range, for the topologies whose choices differ from the
/// overall ones (none when every topology agrees, or there is only one).
pub fn per_topology(a: &OpAnswer, overall: &[BandPick]) -> Vec<(String, Vec<BandPick>)> {
    let mut names: Vec<&str> = Vec::new();
    for l in &a.lines {
        if !names.contains(&l.topology.as_str()) {
            names.push(&l.topology);
        }
    }
    if names.len() < 2 {
        return Vec::new();
    }
    let same = |x: &[BandPick], y: &[BandPick]| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|(p, q)| p.pick == q.pick && p.from == q.from && p.to == q.to)
    };
    names
        .into_iter()
        .map(|t| (t.to_string(), picks(a, &|x| x == t)))
        .filter(|(_, p)| !same(p, overall))
        .collect()
}

/// "κ ≤ 1e4" (the first range), "κ 1e5–1e7", "κ 1e10".
fn range(p: &BandPick, first: bool) -> String {
    if first {
        format!("κ ≤ {}", sci(p.to))
    } else if p.from == p.to {
        format!("κ {}", sci(p.to))
    } else {
        format!("κ {}–{}", sci(p.from), sci(p.to))
    }
}

/// "κ ≤ 1e4: parallel (21.0 bits, 1.0×); κ 1e5–1e10: vectorial-exact (0.0 bits, 2.9×)".
pub fn text(a: &OpAnswer, picks: &[BandPick]) -> String {
    picks
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let Some(i) = p.pick else {
                return format!("{}: no results", range(p, k == 0));
            };
            let bits = if p.bits.is_finite() {
                format!("{} bits", fixed(p.bits, 1))
            } else {
                "∞ bits".into()
            };
            let cost = a
                .costs
                .relative(i)
                .map(|r| format!(", {}", times(r)))
                .unwrap_or_default();
            let none = if p.within { "" } else { "none within; best " };
            format!(
                "{}: {none}{} ({bits}{cost})",
                range(p, k == 0),
                a.algorithms[i]
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
