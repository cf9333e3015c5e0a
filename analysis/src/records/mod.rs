//! The on-disk record types: one definition per file format, used by its writer and its
//! readers alike. Columns added later are `Option` fields with `#[serde(default)]`, so files
//! written by an older version still read; the column lists derive from the types
//! ([`field_names`]).

pub mod bench;
pub mod bounds_table;
pub mod dump;
pub mod fields;
pub mod nodes_sample;
pub mod results;
pub mod spatial;
pub mod spatial_answer;

pub use fields::field_names;
