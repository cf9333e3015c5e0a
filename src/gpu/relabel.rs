//! A layout's labels against the tree's: the weights permuted into the layout's labels on the
//! way in, the results permuted back on the way out (`permute.wgsl`, a recipe's
//! [`Over::LabelsIn`] and [`Over::LabelsOut`] steps), so that the kernels themselves read and
//! write coalesced whatever the topology. Nothing is dispatched when the labels are the tree's
//! own (a natural-order star, chain or k-ary tree in breadth-first order, for example).

use super::recording::{BufId, BufferPlan, Builder, RESULTS, Run, WEIGHTS};
use super::types::VertexCount;
use analysis::algorithms::Over;

pub(crate) struct Labels {
    n: u32,
    /// Threads per workgroup.
    wg: u32,
    /// Weights in the layout's labels (the forest's weights when they agree).
    pub input: BufId,
    /// Results in the layout's labels (the forest's results when they agree).
    pub output: BufId,
    /// The label map and the vertex count, when the labels differ.
    permute: Option<(BufId, BufId)>,
}

impl Labels {
    /// `orig[i]`: the tree's label of the layout's vertex i; `what` names the labels.
    pub fn new(plan: &mut BufferPlan, what: &str, orig: &[u32], wg: u32) -> Labels {
        let n = orig.len() as u32;
        if orig.iter().enumerate().all(|(i, &g)| g as usize == i) {
            return Labels {
                n,
                wg,
                input: WEIGHTS,
                output: RESULTS,
                permute: None,
            };
        }
        let empty = wgpu::BufferUsages::empty();
        Labels {
            n,
            wg,
            input: plan.zeroed(&format!("{what} weights"), n as usize, empty),
            output: plan.zeroed(&format!("{what} results"), n as usize, empty),
            permute: Some((
                plan.data(&format!("{what} labels"), orig.to_vec()),
                plan.uniform(
                    "relabel count",
                    VertexCount {
                        n,
                        ..Default::default()
                    },
                ),
            )),
        }
    }

    /// The gather into the layout's labels ([`Over::LabelsIn`]) or the scatter back
    /// ([`Over::LabelsOut`]), a thread per vertex; nothing where the labels agree.
    pub fn expand(&self, b: &mut Builder, run: Run, over: Over) {
        let Some((orig, count)) = self.permute else {
            return;
        };
        let (src, dst) = match over {
            Over::LabelsIn => (WEIGHTS, self.input),
            _ => (self.output, RESULTS),
        };
        let binding = b.bind(vec![
            ("count", count),
            ("orig", orig),
            ("src", src),
            ("dst", dst),
        ]);
        b.dispatch(run, None, self.n.div_ceil(self.wg), binding, None, None);
    }
}
