//! The on-disk record types: one definition per file format, used by its writer and its
//! readers alike. Columns added later are `Option` fields with `#[serde(default)]`, so files
//! written by an older version still read.

pub mod bench;
