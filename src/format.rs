//! Number formatting shared by CSV files and terminal tables: the round-trip decimals are
//! analysis's (the report uses the same), so both crates print a number one way.

pub use analysis::format::{f32_shortest, f64_shortest};

/// A compact scientific form for tables: `1.2e-7`, `3e6`, `1.1`, `inf` (the report's, with
/// `inf` for +∞).
pub use reports::sci_text as sci;
