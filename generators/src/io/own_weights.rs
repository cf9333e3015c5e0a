//! The weights a tree file brings (branch lengths, matrix values, parent-array weights) and
//! their check.
//!
//! A number that is no valid f32 weight (NaN, infinite, overflowing f32, nonzero but
//! subnormal or zero in f32) does not stop the read: the tree, its statistics and generated
//! weights do not depend on it. It is an error only where these weights are used
//! ([`OwnWeights::get`]), naming the earliest such number in the file. Subnormal weights can
//! instead be flushed to zero ([`Subnormal::Flush`]), as GPUs do, and counted.

use super::error::{Fail, ReadError, Reason, What, line_col};
use super::text::parse_f32;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// What to do with a weight that is nonzero but whose f32 rounding is subnormal or zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Subnormal {
    /// An error naming the value (GPUs flush subnormals to zero, so the CPU and GPU twins
    /// would compute with different weights).
    #[default]
    Refuse,
    /// The weight becomes the zero of its sign (what a GPU's flush-to-zero makes of it);
    /// how many were flushed is reported.
    Flush,
}

impl Subnormal {
    pub fn name(self) -> &'static str {
        match self {
            Subnormal::Refuse => "refuse",
            Subnormal::Flush => "flush",
        }
    }
}

impl fmt::Display for Subnormal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Subnormal {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "refuse" => Ok(Subnormal::Refuse),
            "flush" => Ok(Subnormal::Flush),
            _ => Err(format!(
                "unknown subnormal mode '{s}' (expected refuse or flush)"
            )),
        }
    }
}

/// The weights of a tree file, one per vertex, checked when used.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnWeights {
    values: Vec<f32>,
    flushed: usize,
    invalid: Option<Located>,
}

/// A reader's complaint about one value, kept until the weights are used.
#[derive(Debug, Clone, PartialEq)]
struct Located {
    path: PathBuf,
    line: u64,
    col: u64,
    reason: Reason,
}

impl OwnWeights {
    /// The weights, or the error of the earliest number in the file that is not a valid
    /// weight (subnormal ones count only under [`Subnormal::Refuse`]).
    pub fn get(&self) -> Result<&[f32], ReadError> {
        match &self.invalid {
            None => Ok(&self.values),
            Some(l) => Err(ReadError::At {
                path: l.path.clone(),
                line: l.line,
                col: l.col,
                reason: l.reason.clone(),
            }),
        }
    }

    /// How many weights were subnormal and flushed to zero ([`Subnormal::Flush`]).
    pub fn flushed(&self) -> usize {
        self.flushed
    }

    /// Number of weights (= vertices of the tree).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Builds the weights from a reader's values and complaints, located in `text`.
    pub(crate) fn new(
        values: Vec<f32>,
        refused: Refused,
        mode: Subnormal,
        path: &Path,
        text: &[u8],
    ) -> OwnWeights {
        let (first, flushed) = refused.under(mode);
        let invalid = first.map(|(offset, reason)| {
            let (line, col) = line_col(text, offset);
            Located {
                path: path.to_path_buf(),
                line,
                col,
                reason,
            }
        });
        OwnWeights {
            values,
            flushed,
            invalid,
        }
    }
}

/// The values a reader found invalid as weights, while it reads: the earliest subnormal one,
/// the earliest other one (byte offsets in the text) and the number of subnormal ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Refused {
    subnormal: usize,
    first_subnormal: Option<(usize, Reason)>,
    first_other: Option<(usize, Reason)>,
}

impl Refused {
    pub(crate) fn clear(&mut self) {
        *self = Refused::default();
    }

    /// Records that the value at byte `offset` became a weight although `parse_f32` refused
    /// it with `reason`; returns what stands for it: the zero of its sign for a subnormal
    /// (flushing), 0 otherwise (never used: such weights are an error).
    pub(crate) fn note(&mut self, offset: usize, reason: Reason) -> f32 {
        let earliest = |slot: &mut Option<(usize, Reason)>, reason| {
            if slot.as_ref().is_none_or(|(o, _)| offset < *o) {
                *slot = Some((offset, reason));
            }
        };
        match reason {
            Reason::Subnormal { ref text, .. } => {
                self.subnormal += 1;
                let zero = if text.starts_with('-') { -0.0 } else { 0.0 };
                earliest(&mut self.first_subnormal, reason);
                zero
            }
            _ => {
                earliest(&mut self.first_other, reason);
                0.0
            }
        }
    }

    /// The complaint that stands under `mode` (the earliest in the file), and how many
    /// subnormal values were flushed.
    pub(crate) fn under(self, mode: Subnormal) -> (Option<(usize, Reason)>, usize) {
        match mode {
            Subnormal::Flush => (self.first_other, self.subnormal),
            Subnormal::Refuse => {
                let first = match (self.first_subnormal, self.first_other) {
                    (Some(s), Some(o)) => Some(if s.0 < o.0 { s } else { o }),
                    (s, o) => s.or(o),
                };
                (first, 0)
            }
        }
    }
}

/// A value that becomes a weight: its f32, or (noted in `refused`) what stands for a number
/// that is not a valid weight. Only text that is no number at all is an error here.
pub(crate) fn weight_value(
    tok: &[u8],
    what: What,
    offset: usize,
    refused: &mut Refused,
) -> Result<f32, Fail> {
    match parse_f32(tok, what) {
        Ok(x) => Ok(x),
        Err(r @ Reason::NotANumber { .. }) => Err(Fail::At(offset, r)),
        Err(r) => Ok(refused.note(offset, r)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(text: &str) -> Reason {
        Reason::Subnormal {
            what: What::Weight,
            text: text.into(),
        }
    }

    #[test]
    fn earliest_complaint_under_each_mode() {
        let mut r = Refused::default();
        assert_eq!(r.note(20, sub("-1e-40")).to_bits(), (-0.0f32).to_bits());
        let nan = Reason::Nan {
            what: What::Weight,
            text: "nan".into(),
        };
        assert_eq!(r.note(30, nan.clone()), 0.0);
        assert_eq!(r.note(5, sub("1e-45")).to_bits(), 0.0f32.to_bits());
        assert_eq!(
            r.clone().under(Subnormal::Refuse),
            (Some((5, sub("1e-45"))), 0)
        );
        assert_eq!(r.under(Subnormal::Flush), (Some((30, nan)), 2));
        assert_eq!(Refused::default().under(Subnormal::Flush), (None, 0));
    }
}
