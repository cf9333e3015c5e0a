//! Trees on a spatial computer (seed 002, "Low-Depth Spatial Tree Algorithms"; docs/design.md
//! §12): a √n × √n grid of processors with O(1) words each, where a message costs its
//! Manhattan distance (its *energy*) and *depth* is the longest chain of dependent messages.
//!
//! - [`curve`]: space-filling curves, position ↔ cell (no tree types);
//! - [`layout`]: a linear order of the vertices (breadth-first, depth-first, light-first,
//!   heavy-first), which a curve puts on the grid;
//! - [`messages`]: the exact count of a pattern's energy and depth, message by message;
//! - [`virtual_tree`]: the degree ≤ 4 transformation (§III-D) local messaging goes through, and
//!   its construction's messages;
//! - [`construction`]: what the layout costs to build (Theorem 4), by [`list_ranking`];
//! - one file per communication pattern: [`local`] messaging, [`parallel`], the Euler-tour
//!   family ([`euler`] around the grid [`scan`]), [`contraction`], batched [`lca`] (with its
//!   reference, binary [`lifting`]), and a PRAM treefix simulated, [`pram`]'s pointer jumping;
//! - [`measure`]: every pattern of a tree on a layout; [`fit`]: the exponent of energy vs n;
//! - [`time_model`]: cycles from energy, depth and contention (Luczynski et al.'s model).
//!
//! The answer that sets bits, time, energy and depth side by side is made from the records,
//! `crate::records::spatial_answer`.

pub mod construction;
pub mod contraction;
pub mod curve;
pub mod euler;
pub mod fit;
pub mod layout;
pub mod lca;
pub mod lifting;
pub mod list_ranking;
pub mod local;
pub mod measure;
pub mod messages;
pub mod parallel;
pub mod pram;
pub mod scan;
pub mod time_model;
pub mod virtual_tree;

pub use curve::{Curve, CurveError, Grid, Placement, Point};
pub use layout::{Layout, LinearOrder};
pub use measure::{ALGORITHMS, Counted, Laid, Pattern, count, lca_on_layout};
pub use messages::{Cost, Processors, Renamed, Step};
pub use time_model::TimeModel;
