//! `spatial_lca`: batched lowest common ancestors on a spatial computer (docs/design.md §12.7),
//! the answers of the replay that counts the algorithm's messages, with their cost — what
//! `accuracy spatial --lca` writes.

use crate::convert::{self, Owned};
use crate::error::input;
use crate::tree::Tree;
use analysis::spatial::{Curve, LinearOrder, Placement, TimeModel, lca_on_layout};
use pyo3::prelude::*;

/// Batched LCA's answers and what its messages cost on one layout.
#[pyclass(module = "treefix_accuracy", frozen, get_all)]
pub struct SpatialLca {
    /// Per query (u[i], v[i]): the lowest common ancestor (int64).
    pub answers: Owned<i64>,
    /// The layout: a linear order and a space-filling curve.
    pub order: String,
    pub curve: String,
    /// Σ words × Manhattan distance over every message (contraction's sizes and layers, the
    /// ranges, the layers' broadcasts and barriers).
    pub energy: u64,
    pub energy_per_vertex: f64,
    /// Rounds when a processor sends and receives one message per round.
    pub depth: u64,
    /// The longest chain of dependent messages, without that limit.
    pub chain_depth: u64,
    pub messages: u64,
    /// The most messages one processor sends or receives in one phase.
    pub congestion: u64,
    /// Luczynski et al.'s estimate T = max(C, E/N + L) + (2·T_R + 1)·D, cycles.
    pub cycles: f64,
}

#[pymethods]
impl SpatialLca {
    fn __repr__(&self) -> String {
        format!(
            "SpatialLca(order={:?}, curve={:?}, energy={}, depth={}, chain_depth={}, messages={})",
            self.order, self.curve, self.energy, self.depth, self.chain_depth, self.messages
        )
    }
}

/// The queries (u[i], v[i]) as pairs of vertices of a tree of `n` vertices.
fn pairs(u: &[i64], v: &[i64], n: usize) -> PyResult<Vec<(u32, u32)>> {
    if u.len() != v.len() {
        return Err(input(format!(
            "u and v: {} and {} queries; expected as many of each",
            u.len(),
            v.len()
        )));
    }
    let id = |x: i64, what: &str, i: usize| -> PyResult<u32> {
        match (0..n as i64).contains(&x) {
            true => Ok(x as u32),
            false => Err(input(format!(
                "{what}[{i}] = {x} is not a vertex of the tree (0..{n})"
            ))),
        }
    };
    u.iter()
        .zip(v)
        .enumerate()
        .map(|(i, (&a, &b))| Ok((id(a, "u", i)?, id(b, "v", i)?)))
        .collect()
}

/// The lowest common ancestor of every pair (u[i], v[i]) by the seed's batched LCA on a
/// spatial computer, laid out in `order` ("light-first", "depth-first", "heavy-first") on
/// `curve` ("hilbert", "z", "peano", "row-major"): the answers of the replay that counts its
/// messages, and their energy, depth and estimated cycles (`ramp_latency` = T_R,
/// `active_links` = the share of the grid's links N counts). Raises InputError for an id
/// outside the tree, arrays of different lengths, or a breadth-first layout (no subtree is a
/// range of it).
#[pyfunction]
#[pyo3(signature = (tree, u, v, *, order="light-first", curve="hilbert", ramp_latency=2.0, active_links=1.0))]
#[allow(clippy::too_many_arguments)]
pub fn spatial_lca(
    py: Python<'_>,
    tree: &Bound<'_, Tree>,
    u: &Bound<'_, PyAny>,
    v: &Bound<'_, PyAny>,
    order: &str,
    curve: &str,
    ramp_latency: f64,
    active_links: f64,
) -> PyResult<SpatialLca> {
    let t = &tree.get().tree;
    let (order, curve): (LinearOrder, Curve) =
        (order.parse().map_err(input)?, curve.parse().map_err(input)?);
    let model = TimeModel {
        ramp_latency,
        active_links,
    };
    model.check().map_err(input)?;
    let (u, v) = (convert::ids(u, "u")?, convert::ids(v, "v")?);
    let queries = pairs(u.as_slice(), v.as_slice(), t.len())?;
    let placement = Placement::new(curve, t.len()).map_err(|e| input(e.to_string()))?;
    let (answers, cost) = py
        .detach(|| lca_on_layout(t, order, &placement, &queries))
        .map_err(input)?;
    let links = placement.links();
    Ok(SpatialLca {
        answers: convert::owned(py, answers.into_iter().map(i64::from).collect()),
        order: order.name().to_string(),
        curve: curve.name().to_string(),
        energy: cost.energy[0],
        energy_per_vertex: cost.energy[0] as f64 / t.len() as f64,
        depth: cost.depth,
        chain_depth: cost.chain_depth,
        messages: cost.messages,
        congestion: cost.congestion,
        cycles: model.cycles(&cost, &[links])[0],
    })
}
