//! `score --json`'s document, one for the command line and the Python package
//! (`Score.to_json()`): the same fields in the same order, so a script reads either.

use super::{OpScore, Score};
use serde::Serialize;

/// The document.
#[derive(Serialize)]
pub struct Document<'a> {
    format_version: u32,
    tool: &'static str,
    version: &'static str,
    /// The tree file (the command line) or what Python was given.
    tree: String,
    /// The results files, or what Python was given.
    results: String,
    reference: &'static str,
    /// The storage format, `+` the accumulation format where wider (`bf16+f32`).
    arithmetic: String,
    n: usize,
    #[serde(serialize_with = "analysis::records::fields::number_or_string")]
    achieved_cond: f64,
    max_lost_bits_gate: Option<f64>,
    max_ulps_gate: Option<u64>,
    /// False when a gate failed (the command then exits with code 4).
    passed: bool,
    /// Values that are no exact decimal and the most significant digits among them; a
    /// warning when they look printed with too few digits. Absent for arrays, which hold the
    /// f32 values themselves.
    #[serde(skip_serializing_if = "Option::is_none")]
    precision: Option<Precision>,
    ops: &'a [OpScore],
}

/// How many digits the results were printed with (results read from text).
#[derive(Serialize)]
pub struct Precision {
    pub inexact: usize,
    pub max_digits: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// The document of `score`, its tree and results named as given.
pub fn document(
    score: &Score,
    tree: String,
    results: String,
    precision: Option<Precision>,
) -> Document<'_> {
    Document {
        format_version: crate::FORMAT_VERSION,
        tool: "treefix-accuracy",
        version: env!("CARGO_PKG_VERSION"),
        tree,
        results,
        reference: score.reference.name(),
        arithmetic: score.arithmetic.clone(),
        n: score.n,
        achieved_cond: score.achieved_cond,
        max_lost_bits_gate: score.max_lost_bits_gate,
        max_ulps_gate: score.max_ulps_gate,
        passed: score.passed(),
        precision,
        ops: &score.ops,
    }
}

/// The document as pretty-printed JSON, with a final newline.
pub fn to_json(doc: &Document<'_>) -> String {
    serde_json::to_string_pretty(doc).expect("a score serializes") + "\n"
}
