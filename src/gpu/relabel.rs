//! A layout's labels against the tree's: the weights permuted into the layout's labels on the
//! way in, the results permuted back on the way out (`permute.wgsl`, a recipe's
//! [`Over::LabelsIn`] and [`Over::LabelsOut`] steps), so that the kernels themselves read and
//! write coalesced whatever the topology. Nothing is dispatched when the labels are the tree's
//! own (a natural-order star, chain or k-ary tree in breadth-first order, for example); then a
//! kernel whose sums are of a wider accumulation format has them stored in place
//! (`store.wgsl`) instead of on the scatter.

use super::recording::{BufId, BufferPlan, Builder, RESULTS, Run, WEIGHTS};
use super::types::VertexCount;
use analysis::algorithms::{Over, Stage};

pub(crate) struct Labels {
    n: u32,
    /// Threads per workgroup.
    wg: u32,
    /// Weights in the layout's labels (the forest's weights when they agree).
    pub input: BufId,
    /// Results in the layout's labels (the forest's results when they agree).
    pub output: BufId,
    /// The vertex count (a uniform).
    count: BufId,
    /// The label map, when the labels differ.
    permute: Option<BufId>,
}

impl Labels {
    /// `orig[i]`: the tree's label of the layout's vertex i; `what` names the labels.
    pub fn new(plan: &mut BufferPlan, what: &str, orig: &[u32], wg: u32) -> Labels {
        let n = orig.len() as u32;
        let count = plan.uniform(
            "relabel count",
            VertexCount {
                n,
                ..Default::default()
            },
        );
        if orig.iter().enumerate().all(|(i, &g)| g as usize == i) {
            return Labels {
                n,
                wg,
                input: WEIGHTS,
                output: RESULTS,
                count,
                permute: None,
            };
        }
        let empty = wgpu::BufferUsages::empty();
        Labels {
            n,
            wg,
            input: plan.zeroed(&format!("{what} weights"), n as usize, empty),
            output: plan.zeroed(&format!("{what} results"), n as usize, empty),
            count,
            permute: Some(plan.data(&format!("{what} labels"), orig.to_vec())),
        }
    }

    /// The gather into the layout's labels ([`Over::LabelsIn`]) or the scatter back
    /// ([`Over::LabelsOut`]), a thread per vertex; where the labels agree, nothing, or on the
    /// way out the store in place if `store` (the results are sums of a wider accumulation
    /// format: the scatter would have stored them).
    pub fn expand(&self, b: &mut Builder, run: Run, over: Over, store: bool) {
        let groups = self.n.div_ceil(self.wg);
        let Some(orig) = self.permute else {
            if store && over == Over::LabelsOut {
                let binding = b.bind(vec![("count", self.count), ("values", RESULTS)]);
                let store = Run {
                    stage: Stage::STORE,
                    entry: "store",
                };
                b.dispatch(store, None, groups, binding, None, None);
            }
            return;
        };
        let (src, dst) = match over {
            Over::LabelsIn => (WEIGHTS, self.input),
            _ => (self.output, RESULTS),
        };
        let binding = b.bind(vec![
            ("count", self.count),
            ("orig", orig),
            ("src", src),
            ("dst", dst),
        ]);
        b.dispatch(run, None, groups, binding, None, None);
    }
}
