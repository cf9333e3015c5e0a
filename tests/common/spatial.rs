//! Spatial-computer helpers shared by tests/spatial.rs and tests/spatial_lca.rs.

use analysis::Op;
use analysis::spatial::{Cost, Curve, Laid, LinearOrder, Pattern, Placement, count};
use generators::Tree;
use generators::io::{ReadOptions, read_tree};
use std::path::Path;

/// Every pattern of `tree` in `order` on one curve: (pattern, cost), `limbs` for
/// vectorial-exact.
pub fn costs(tree: &Tree, order: LinearOrder, curve: Curve, limbs: u32) -> Vec<(Pattern, Cost)> {
    let placements = [Placement::new(curve, tree.len()).unwrap()];
    count(&Laid::new(tree, order), &placements, &Op::ALL, limbs, &[])
        .0
        .into_iter()
        .filter_map(|c| c.cost.ok().map(|cost| (c.pattern, cost)))
        .collect()
}

/// (energy, chain depth, messages) of `p` among `costs`.
pub fn find(costs: &[(Pattern, Cost)], p: Pattern) -> (u64, u64, u64) {
    let c = cost(costs, p);
    (c.energy[0], c.chain_depth, c.messages)
}

/// The cost of `p` among `costs`.
pub fn cost(costs: &[(Pattern, Cost)], p: Pattern) -> &Cost {
    &costs.iter().find(|(q, _)| *q == p).expect("counted").1
}

/// The real trees of the test data, by path.
pub fn real_trees() -> Vec<(String, Tree)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("generators/tests/data");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "md") {
            continue;
        }
        let file = read_tree(&path, &ReadOptions::default()).unwrap();
        out.push((path.display().to_string(), file.tree));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
