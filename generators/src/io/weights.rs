//! Weights files: `key value` lines (whitespace or a comma between), `#` comments.
//!
//! A key is a vertex label (Newick/NEXUS), a file id (parent arrays, Matrix Market), or — for
//! Newick/NEXUS keys that are no label — a vertex id (preorder of the file). Vertices absent
//! from the file get weight 0 (per-sample counts are given for leaves only).

use super::error::{Fail, Reason, What};
use super::text::{Lines, data_part, fields, parse_f32, parse_u64, show};
use super::{Label, Labels};
use std::collections::HashMap;

enum Index<'a> {
    Names(HashMap<&'a str, (u32, u32)>),
    Other,
}

const NO_SECOND: u32 = u32::MAX;

pub(crate) fn parse(s: &[u8], labels: &Labels, n: usize) -> Result<Vec<f32>, Fail> {
    let index = match labels {
        Labels::Names { .. } => {
            let mut m: HashMap<&str, (u32, u32)> = HashMap::new();
            for v in 0..n as u32 {
                if let Some(Label::Name(name)) = labels.get(v) {
                    m.entry(name)
                        .and_modify(|e| {
                            if e.1 == NO_SECOND {
                                e.1 = v;
                            }
                        })
                        .or_insert((v, NO_SECOND));
                }
            }
            Index::Names(m)
        }
        _ => Index::Other,
    };
    let mut weight = vec![0.0f32; n];
    let mut line_of = vec![0u64; n];
    let mut f = Vec::with_capacity(3);
    for (line, start, text) in Lines::new(s) {
        let Some(data) = data_part(text) else {
            continue;
        };
        fields(data, &mut f);
        if f.len() != 2 {
            return Err(Fail::Line(line, Reason::WeightFields { found: f.len() }));
        }
        let (koff, key) = f[0];
        let (voff, value) = f[1];
        let unknown = |hint| {
            Fail::At(
                start + koff,
                Reason::UnknownKey {
                    key: show(key),
                    hint,
                },
            )
        };
        let as_id = |len: usize| parse_u64(key).filter(|&k| k < len as u64);
        let v: u32 = match (&index, labels) {
            (Index::Names(m), _) => {
                let name = std::str::from_utf8(key).ok();
                match name.and_then(|k| m.get(k)) {
                    Some(&(a, b)) if b != NO_SECOND => {
                        return Err(Fail::At(
                            start + koff,
                            Reason::AmbiguousLabel {
                                key: show(key),
                                first: a,
                                second: b,
                            },
                        ));
                    }
                    Some(&(a, _)) => a,
                    None => as_id(n).ok_or_else(|| {
                        unknown("neither a label nor a vertex id (0..n-1 in preorder of the file)")
                    })? as u32,
                }
            }
            (_, Labels::FileIds { base, len }) => match parse_u64(key) {
                Some(k) if k >= *base && k - base < *len as u64 => (k - base) as u32,
                _ => return Err(unknown("not a vertex id of the file")),
            },
            (_, Labels::Listed(ids)) => match parse_u64(key).map(|k| ids.binary_search(&k)) {
                Some(Ok(i)) => i as u32,
                _ => {
                    return Err(unknown(
                        "not a vertex of the tree (forest mode largest keeps only the largest \
                         component)",
                    ));
                }
            },
            _ => as_id(n).ok_or_else(|| {
                unknown("the tree has no labels, and this is no vertex id (0..n-1 in preorder)")
            })? as u32,
        };
        let x = parse_f32(value, What::Weight).map_err(|r| Fail::At(start + voff, r))?;
        if line_of[v as usize] != 0 {
            return Err(Fail::At(
                start + koff,
                Reason::DuplicateKey {
                    key: show(key),
                    first_line: line_of[v as usize],
                },
            ));
        }
        line_of[v as usize] = line;
        weight[v as usize] = x;
    }
    Ok(weight)
}
