//! Exact and double-double references, error metrics, condition numbers and error bounds.

pub mod accumulate;
pub mod algorithms;
pub mod bounds;
pub mod directed;
pub mod exact;
pub mod f32_format;
pub mod float_float;
pub mod format;
pub mod measure;
pub mod measure_in;
pub mod metrics;
pub mod node_error;
pub mod op;
pub mod orders;
pub mod records;
pub mod reference;
pub mod scan_plan;
pub mod scan_value;
pub mod spatial;
pub mod stats;

pub use algorithms::Algorithm;
pub use op::Op;
pub use reference::{ErrorClass, NodeError, Reference, ReferenceKind};
