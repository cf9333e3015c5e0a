//! Weights files: `key value` lines (whitespace or a comma between), `#` comments.
//!
//! A key is a vertex label (Newick/NEXUS), a file id (parent arrays, Matrix Market), or — for
//! Newick/NEXUS keys that are no label — a vertex id (preorder of the file). A key that reads
//! both ways, as the label of one vertex and the id of another, is refused: which one the
//! file means cannot be told, and a silent guess would put counts on the wrong vertices.
//! Vertices absent from the file get weight 0 (per-sample counts are given for leaves only).

use super::error::{Fail, Reason, What};
use super::own_weights::Subnormal;
use super::text::{Lines, TextFloat, data_part, fields, parse_float, parse_u64, show};
use super::{Label, Labels};
use std::collections::HashMap;

/// A weights file read for a tree, and how its keys were matched; its weights in f32 (the
/// kernels' default) or f64.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightsFile<W = f32> {
    /// One weight per vertex of the tree; 0 for vertices the file does not name.
    pub weights: Vec<W>,
    /// Keys matched as a vertex label (Newick/NEXUS).
    pub by_label: usize,
    /// Keys matched as a vertex id: the preorder id (Newick/NEXUS keys that are no label) or
    /// the file id (parent arrays, Matrix Market).
    pub by_id: usize,
    /// Subnormal values flushed to zero ([`Subnormal::Flush`]).
    pub flushed: usize,
}

enum Index<'a> {
    Names(HashMap<&'a str, (u32, u32)>),
    Other,
}

const NO_SECOND: u32 = u32::MAX;

pub(crate) fn parse<W: TextFloat>(
    s: &[u8],
    labels: &Labels,
    n: usize,
    subnormal: Subnormal,
) -> Result<WeightsFile<W>, Fail> {
    let index = index_of(labels, n);
    let mut out = WeightsFile {
        weights: vec![W::default(); n],
        by_label: 0,
        by_id: 0,
        flushed: 0,
    };
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
        let (v, by_label) = vertex_of(key, start + koff, &index, labels, n)?;
        let x = match parse_float::<W>(value, What::Weight) {
            Ok(x) => x,
            Err(Reason::Subnormal { text, .. }) if subnormal == Subnormal::Flush => {
                out.flushed += 1;
                match text.starts_with('-') {
                    true => W::negative_zero(),
                    false => W::default(),
                }
            }
            Err(r) => return Err(Fail::At(start + voff, r)),
        };
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
        out.weights[v as usize] = x;
        if by_label {
            out.by_label += 1;
        } else {
            out.by_id += 1;
        }
    }
    Ok(out)
}

/// Labels to vertices, with the second vertex of a label given twice (an ambiguous key).
fn index_of(labels: &Labels, n: usize) -> Index<'_> {
    match labels {
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
    }
}

/// The vertex a key names, and whether by its label (else by its id).
fn vertex_of(
    key: &[u8],
    at: usize,
    index: &Index<'_>,
    labels: &Labels,
    n: usize,
) -> Result<(u32, bool), Fail> {
    let unknown = |hint| {
        Fail::At(
            at,
            Reason::UnknownKey {
                key: show(key),
                hint,
            },
        )
    };
    let as_id = |len: usize| parse_u64(key).filter(|&k| k < len as u64);
    Ok(match (index, labels) {
        (Index::Names(m), _) => {
            let name = std::str::from_utf8(key).ok();
            match (name.and_then(|k| m.get(k)), as_id(n)) {
                (Some(&(a, b)), _) if b != NO_SECOND => {
                    return Err(Fail::At(
                        at,
                        Reason::AmbiguousLabel {
                            key: show(key),
                            first: a,
                            second: b,
                        },
                    ));
                }
                (Some(&(a, _)), Some(id)) if id != a as u64 => {
                    return Err(Fail::At(
                        at,
                        Reason::AmbiguousKey {
                            key: show(key),
                            label_vertex: a,
                            id_vertex: id as u32,
                        },
                    ));
                }
                (Some(&(a, _)), _) => (a, true),
                (None, Some(id)) => (id as u32, false),
                (None, None) => {
                    return Err(unknown(
                        "neither a label nor a vertex id (0..n-1 in preorder of the file)",
                    ));
                }
            }
        }
        (_, Labels::FileIds { base, len }) => match parse_u64(key) {
            Some(k) if k >= *base && k - base < *len as u64 => ((k - base) as u32, false),
            _ => return Err(unknown("not a vertex id of the file")),
        },
        (_, Labels::Listed(ids)) => match parse_u64(key).map(|k| ids.binary_search(&k)) {
            Some(Ok(i)) => (i as u32, false),
            _ => {
                return Err(unknown(
                    "not a vertex of the tree (forest mode largest keeps only the largest \
                     component)",
                ));
            }
        },
        _ => (
            as_id(n).ok_or_else(|| {
                unknown("the tree has no labels, and this is no vertex id (0..n-1 in preorder)")
            })? as u32,
            false,
        ),
    })
}
