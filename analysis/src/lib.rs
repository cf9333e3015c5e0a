//! Exact and double-double references, error metrics, condition numbers and error bounds.

pub mod algo;
pub mod bounds;
pub mod float_float;
pub mod metrics;
pub mod orders;
pub mod records;
pub mod reference;
pub mod report;
pub mod scan_plan;

pub use algo::{Algorithm, Op};
pub use reference::{ErrorClass, NodeError, Reference, ReferenceKind};
