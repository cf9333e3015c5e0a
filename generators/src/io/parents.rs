//! Parent arrays: one line per vertex, `vertex parent [weight]`.
//!
//! Fields are separated by commas (empty fields allowed) or by whitespace; the root's parent is
//! `-1` or empty (`3,,` or `3` alone); `#` starts a comment. Vertex ids run 0..n−1 or 1..n
//! (the base is the smallest id); a vertex's tree id is its file id minus the base.
//!
//! Checks run in phases, each reporting its first offending line: syntax and values, and
//! duplicate vertices (in file order); missing vertices; parents out of range; self-loops;
//! several roots / no root; cycles.

use super::error::{Fail, Reason, What};
use super::own_weights::{Refused, weight_value};
use super::text::{Lines, data_part, fields, parse_i64, parse_u64, show};
use crate::{ChildOrder, NO_PARENT, Tree, TreeError};

pub(crate) struct ParentArray {
    pub tree: Tree,
    pub weights: Option<Vec<f32>>,
    /// Weights that are numbers but no valid f32 weights (an error only if used).
    pub refused: Refused,
    /// The smallest file id (0 or 1).
    pub base: u64,
}

/// What the lines say, in slots indexed by file id, before the checks across lines.
struct Slots {
    /// Parent per file id (−1 = root).
    parent_raw: Vec<i64>,
    weight: Vec<f32>,
    /// Line per file id (0 = no such vertex yet).
    line_of: Vec<u32>,
    n: usize,
    min_id: u64,
    min_line: u64,
    max_id: u64,
    /// The first line with a weight, if any.
    with_weight: Option<u64>,
    refused: Refused,
}

pub(crate) fn parse(s: &[u8]) -> Result<ParentArray, Fail> {
    let Slots {
        parent_raw,
        mut weight,
        line_of,
        n,
        min_id,
        min_line,
        max_id,
        with_weight,
        refused,
    } = read_lines(s)?;
    if n == 0 {
        return Err(Fail::File(Reason::NoTree));
    }
    if n > 1 << 31 {
        return Err(Fail::File(Reason::TooManyVertices));
    }
    let base = min_id;
    if base > 1 {
        return Err(Fail::Line(min_line, Reason::BadBase { min: base }));
    }
    let last = base + n as u64 - 1;
    if max_id > last {
        // No duplicates and n ids, one beyond the range: some id in range is missing.
        let missing = (base..=last)
            .find(|&k| line_of[k as usize] == 0)
            .expect("pigeonhole: n distinct ids, one outside base..=last");
        let (line, seen) = first_beyond(s, last);
        return Err(Fail::Line(
            line,
            Reason::MissingVertex {
                missing,
                first: base,
                last,
                seen,
            },
        ));
    }
    let b = base as usize;
    let line = |v: usize| line_of[v + b] as u64;
    let parent = link_parents(&parent_raw[b..b + n], base, &line)?;
    let weights = with_weight.map(|_| {
        weight.truncate(b + n);
        weight.drain(..b);
        weight
    });
    drop(parent_raw);
    // A copy for the cycle message only (cheap next to parsing).
    let copy = parent.clone();
    match Tree::from_parents(parent, ChildOrder::Natural) {
        Ok(tree) => Ok(ParentArray {
            tree,
            weights,
            refused,
            base,
        }),
        Err(TreeError::Cycle { vertex, .. }) => {
            let (v, len) = on_cycle(&copy, vertex);
            Err(Fail::Line(
                line(v as usize),
                Reason::Cycle {
                    vertex: v as u64 + base,
                    len,
                },
            ))
        }
        Err(e) => Err(Fail::File(Reason::Tree(e))),
    }
}

/// The first phase: each line's syntax and values, and duplicate vertices, in file order.
fn read_lines(s: &[u8]) -> Result<Slots, Fail> {
    // Upper bound on the vertex count: ids beyond it are certainly gaps and need no slot.
    let bound = s.iter().filter(|&&b| b == b'\n').count() + 1;
    let mut o = Slots {
        parent_raw: vec![0; bound + 1],
        weight: vec![0.0; bound + 1],
        line_of: vec![0; bound + 1],
        n: 0,
        min_id: u64::MAX,
        min_line: 0,
        max_id: 0,
        with_weight: None,
        refused: Refused::default(),
    };
    let mut without_weight: Option<u64> = None;
    let mut f = Vec::with_capacity(4);

    for (line, start, text) in Lines::new(s) {
        let Some(data) = data_part(text) else {
            continue;
        };
        if line > u32::MAX as u64 {
            return Err(Fail::Line(line, Reason::TooManyVertices));
        }
        fields(data, &mut f);
        if f.is_empty() || f.len() > 3 {
            return Err(Fail::Line(line, Reason::ParentFields { found: f.len() }));
        }
        let at = |k: usize| start + f[k].0;
        let id = parse_u64(f[0].1)
            .ok_or_else(|| Fail::At(at(0), Reason::NotAVertexId { text: show(f[0].1) }))?;
        let parent = match f.get(1) {
            None => -1,
            Some((_, [])) => -1,
            Some((_, t)) => parse_i64(t).ok_or_else(|| {
                Fail::At(
                    at(1),
                    Reason::NotAnInteger {
                        what: What::Parent,
                        text: show(t),
                    },
                )
            })?,
        };
        let w = match f.get(2) {
            Some((_, t)) if !t.is_empty() => {
                Some(weight_value(t, What::Weight, at(2), &mut o.refused)?)
            }
            _ => None,
        };
        match w {
            Some(_) => {
                o.with_weight.get_or_insert(line);
            }
            None => {
                without_weight.get_or_insert(line);
            }
        }
        if let (Some(with), Some(without)) = (o.with_weight, without_weight) {
            return Err(Fail::Line(without, Reason::MixedWeights { with }));
        }
        o.n += 1;
        if id < o.min_id {
            (o.min_id, o.min_line) = (id, line);
        }
        o.max_id = o.max_id.max(id);
        if id as usize > bound {
            continue; // a gap for sure; reported below
        }
        let slot = id as usize;
        if o.line_of[slot] != 0 {
            return Err(Fail::At(
                at(0),
                Reason::DuplicateVertex {
                    vertex: id,
                    first_line: o.line_of[slot] as u64,
                },
            ));
        }
        o.line_of[slot] = line as u32;
        o.parent_raw[slot] = parent;
        o.weight[slot] = w.unwrap_or(0.0);
    }
    Ok(o)
}

/// Tree parents from the file's (`raw`, by tree id): parents in range, self-loops, roots, each
/// check reporting its first line.
fn link_parents(raw: &[i64], base: u64, line: &dyn Fn(usize) -> u64) -> Result<Vec<u32>, Fail> {
    let last = base + raw.len() as u64 - 1;
    let mut parent = vec![NO_PARENT; raw.len()];
    let mut bad_range: Option<(u64, i64)> = None;
    let mut self_loop: Option<(u64, usize)> = None;
    let mut roots: Vec<(u64, usize)> = Vec::new();
    for (v, p) in parent.iter_mut().enumerate() {
        let raw = raw[v];
        let l = line(v);
        if raw == -1 {
            roots.push((l, v));
            // Keep only the two earliest roots.
            if roots.len() > 2 {
                roots.sort_unstable();
                roots.pop();
            }
        } else if raw < base as i64 || raw > last as i64 {
            if bad_range.is_none_or(|(bl, _)| l < bl) {
                bad_range = Some((l, raw));
            }
        } else {
            *p = (raw - base as i64) as u32;
            if *p as usize == v && self_loop.is_none_or(|(sl, _)| l < sl) {
                self_loop = Some((l, v));
            }
        }
    }
    if let Some((l, raw)) = bad_range {
        return Err(Fail::Line(
            l,
            Reason::ParentOutOfRange {
                parent: raw,
                first: base,
                last,
            },
        ));
    }
    if let Some((l, v)) = self_loop {
        return Err(Fail::Line(
            l,
            Reason::SelfLoop {
                vertex: v as u64 + base,
            },
        ));
    }
    roots.sort_unstable();
    match roots.as_slice() {
        [] => Err(Fail::File(Reason::NoRoot)),
        [_] => Ok(parent),
        [(l1, r1), (l2, r2), ..] => Err(Fail::Line(
            *l2,
            Reason::SeveralRoots {
                first: *r1 as u64 + base,
                first_line: *l1,
                second: *r2 as u64 + base,
            },
        )),
    }
}

/// The first line, in file order, whose vertex id exceeds `last`, and that id: the first
/// line a user must change when the ids leave gaps (sparse ids such as taxonomy ids). Not
/// the line of the largest id: in a file sorted by id that is the last line, however early
/// the ids left the range. Runs again over a text that parsed (error path only).
fn first_beyond(s: &[u8], last: u64) -> (u64, u64) {
    let mut f = Vec::with_capacity(4);
    for (line, _, text) in Lines::new(s) {
        let Some(data) = data_part(text) else {
            continue;
        };
        fields(data, &mut f);
        if let Some(id) = f.first().and_then(|(_, t)| parse_u64(t)) {
            if id > last {
                return (line, id);
            }
        }
    }
    unreachable!("the caller saw an id beyond {last}")
}

/// A vertex on the cycle that `start` (a vertex unreachable from the root) leads to, and the
/// cycle's length. Following parents from an unreachable vertex never meets the root.
fn on_cycle(parent: &[u32], start: u32) -> (u32, u64) {
    let mut seen = vec![false; parent.len()];
    let mut v = start;
    while !seen[v as usize] {
        seen[v as usize] = true;
        v = parent[v as usize];
    }
    let mut len = 1;
    let mut u = parent[v as usize];
    while u != v {
        u = parent[u as usize];
        len += 1;
    }
    (v, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> (Option<u64>, Reason) {
        match parse(s.as_bytes()).err().unwrap() {
            Fail::Line(l, r) => (Some(l), r),
            Fail::At(o, r) => (Some(super::super::error::line_col(s.as_bytes(), o).0), r),
            Fail::File(r) => (None, r),
        }
    }

    #[test]
    fn forms() {
        let p = parse(b"# fig 2\n0 -1\n1 0\n2,1\n3 1\n\n4\t1\n5 0 # leaf f\n").unwrap();
        assert_eq!(p.tree.parents(), &[NO_PARENT, 0, 1, 1, 1, 0]);
        assert!(p.weights.is_none());
        assert_eq!(p.base, 0);
        let q = parse(b"3,1,0.5\r\n1,,2\r\n2,1,-1.5\r\n").unwrap();
        assert_eq!(q.base, 1);
        assert_eq!(q.tree.parents(), &[NO_PARENT, 0, 0]);
        assert_eq!(q.weights.unwrap(), vec![2.0, -1.5, 0.5]);
        let r = parse(b"1\n").unwrap();
        assert_eq!(r.tree.len(), 1);
    }

    #[test]
    fn errors() {
        assert_eq!(
            err("0 -1\n2 0\n"),
            (
                Some(2),
                Reason::MissingVertex {
                    missing: 1,
                    first: 0,
                    last: 1,
                    seen: 2
                }
            )
        );
        assert_eq!(
            err("0 -1\n9999999999 0\n"),
            (
                Some(2),
                Reason::MissingVertex {
                    missing: 1,
                    first: 0,
                    last: 1,
                    seen: 9999999999
                }
            )
        );
        // Sparse ids sorted (taxonomy ids): the first line beyond the range, not the last
        // line (the largest id).
        assert_eq!(
            err("1 -1\n2 1\n6 1\n7 1\n9 1\n"),
            (
                Some(3),
                Reason::MissingVertex {
                    missing: 3,
                    first: 1,
                    last: 5,
                    seen: 6
                }
            )
        );
        assert_eq!(
            err("0 -1\n1 0\n1 0\n"),
            (
                Some(3),
                Reason::DuplicateVertex {
                    vertex: 1,
                    first_line: 2
                }
            )
        );
        assert_eq!(
            err("0 -1\n1 5\n"),
            (
                Some(2),
                Reason::ParentOutOfRange {
                    parent: 5,
                    first: 0,
                    last: 1
                }
            )
        );
        assert_eq!(
            err("1 0\n2 1\n"),
            (
                Some(1),
                Reason::ParentOutOfRange {
                    parent: 0,
                    first: 1,
                    last: 2
                }
            )
        );
        assert_eq!(
            err("0 -1\n1 1\n"),
            (Some(2), Reason::SelfLoop { vertex: 1 })
        );
        assert_eq!(
            err("0 -1\n1 0\n2\n"),
            (
                Some(3),
                Reason::SeveralRoots {
                    first: 0,
                    first_line: 1,
                    second: 2
                }
            )
        );
        assert_eq!(err("0 1\n1 0\n"), (None, Reason::NoRoot));
        assert_eq!(
            err("0 -1\n1 3\n2 1\n3 2\n4 2\n"),
            (Some(2), Reason::Cycle { vertex: 1, len: 3 })
        );
        assert_eq!(
            err("0 -1 1\n1 0\n2 0 3\n"),
            (Some(2), Reason::MixedWeights { with: 1 })
        );
        assert_eq!(
            err("0 -1\n1 0 1\n"),
            (Some(1), Reason::MixedWeights { with: 2 })
        );
        assert_eq!(err("5 -1\n6 5\n"), (Some(1), Reason::BadBase { min: 5 }));
        assert_eq!(err("# nothing\n\n"), (None, Reason::NoTree));
        assert_eq!(
            err("0 -1 1 2\n"),
            (Some(1), Reason::ParentFields { found: 4 })
        );
        assert!(matches!(
            err("0 -1\nx 0\n"),
            (Some(2), Reason::NotAVertexId { .. })
        ));
        assert!(matches!(
            err("0 -1\n1 0.5\n"),
            (Some(2), Reason::NotAnInteger { .. })
        ));
        // A weight that is no valid f32 is noted, an error only when the weights are used.
        let p = parse(b"0 -1 inf\n1 0 2\n").unwrap();
        assert!(matches!(
            p.refused.under(crate::io::Subnormal::Refuse).0,
            Some((5, Reason::Infinite { .. }))
        ));
    }
}
