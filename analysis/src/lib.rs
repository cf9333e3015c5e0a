//! Exact and double-double references, error metrics, condition numbers and error bounds.
