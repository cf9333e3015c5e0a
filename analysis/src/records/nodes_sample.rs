//! `nodes-sample.csv`: a bounded per-node sample of a sweep, for the report's per-node
//! figures (written by the sweep's sampler; every column has been there since the first
//! version, so none is optional yet).

use super::fields::field_names;
use serde::{Deserialize, Serialize};

/// The file name inside a sweep directory.
pub const FILE: &str = "nodes-sample.csv";

/// One sampled node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeRecord {
    pub tree: usize,
    pub algorithm: String,
    pub op: String,
    pub vertex: u32,
    /// κ_v = Σ|terms| / |Σ terms| of the node's own sum (`inf` when the exact value is 0).
    pub cond: f64,
    pub rel_error: f64,
    pub lost_bits: f64,
    /// The a priori deterministic bound on the node's relative error (analysis::bounds, `det`
    /// divided by |x_v|); empty when the exact value is 0 or the run had no bounds.
    pub bound_rel: Option<f64>,
    /// 1 for the node with the largest relative error of its tree × algorithm × op, else 0.
    pub worst: u8,
}

impl NodeRecord {
    /// Every column of `nodes-sample.csv`, in file order.
    pub fn columns() -> &'static [&'static str] {
        field_names::<NodeRecord>()
    }

    /// Whether this is the worst node of its tree × algorithm × op.
    pub fn is_worst(&self) -> bool {
        self.worst == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_round_trip() {
        let r = NodeRecord {
            tree: 2,
            algorithm: "parallel".into(),
            op: "rootfix".into(),
            vertex: 17,
            cond: f64::INFINITY,
            rel_error: 0.25,
            lost_bits: 22.0,
            bound_rel: None,
            worst: 1,
        };
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(&r).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(
            text,
            "tree,algorithm,op,vertex,cond,rel_error,lost_bits,bound_rel,worst\n2,parallel,rootfix,17,inf,0.25,22.0,,1\n"
        );
        assert_eq!(
            NodeRecord::columns().join(","),
            text.lines().next().unwrap()
        );
        let back: Vec<NodeRecord> = csv::Reader::from_reader(text.as_bytes())
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back, [r]);
        assert!(back[0].is_worst());
    }
}
