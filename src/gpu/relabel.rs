//! A kernel's labels against the tree's: the weights permuted into the kernel's labels on the
//! way in, the results permuted back on the way out (`permute.wgsl`), so that the kernels
//! themselves read and write coalesced whatever the topology. Skipped when the labels are the
//! tree's own (a natural-order star, chain or k-ary tree in breadth-first order, for example).

use super::context::Context;
use super::shaders::Kernel;
use super::types::VertexCount;
use crate::Error;

pub(crate) struct Relabel {
    n: u32,
    /// Weights in the kernel's labels (the forest's weight buffer when no permutation).
    pub input: wgpu::Buffer,
    /// Results in the kernel's labels (the forest's result buffer when no permutation).
    pub output: wgpu::Buffer,
    /// Gather and scatter bind groups, when the labels differ.
    passes: Option<(wgpu::BindGroup, wgpu::BindGroup)>,
    _buffers: Vec<wgpu::Buffer>,
}

impl Relabel {
    /// `orig[i]`: the tree's label of the kernel's vertex i; `w` and `out` in the tree's labels.
    pub fn new(
        ctx: &Context,
        what: &str,
        orig: &[u32],
        w: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) -> Result<Relabel, Error> {
        let n = orig.len();
        if orig.iter().enumerate().all(|(i, &g)| g as usize == i) {
            return Ok(Relabel {
                n: n as u32,
                input: w.clone(),
                output: out.clone(),
                passes: None,
                _buffers: Vec::new(),
            });
        }
        let labels = ctx.buffer_init(&format!("{what} labels"), orig, n)?;
        let input = ctx.buffer(
            &format!("{what} weights"),
            n,
            n,
            wgpu::BufferUsages::empty(),
        )?;
        let output = ctx.buffer(
            &format!("{what} results"),
            n,
            n,
            wgpu::BufferUsages::empty(),
        )?;
        let count = ctx.uniform(
            "relabel count",
            &VertexCount {
                n: n as u32,
                ..Default::default()
            },
        );
        let k = &ctx.kernels;
        let gather = k.gather.bind(
            &ctx.device,
            &[
                ("count", &count),
                ("orig", &labels),
                ("src", w),
                ("dst", &input),
            ],
        );
        let scatter = k.scatter.bind(
            &ctx.device,
            &[
                ("count", &count),
                ("orig", &labels),
                ("src", &output),
                ("dst", out),
            ],
        );
        Ok(Relabel {
            n: n as u32,
            input,
            output,
            passes: Some((gather, scatter)),
            _buffers: vec![labels, count],
        })
    }

    /// Records the gather of the weights into the kernel's labels (nothing if they agree).
    pub fn record_in(&self, ctx: &Context, encoder: &mut wgpu::CommandEncoder) {
        if let Some((gather, _)) = &self.passes {
            self.pass(ctx, encoder, &ctx.kernels.gather, gather);
        }
    }

    /// Records the scatter of the results back to the tree's labels (nothing if they agree).
    pub fn record_out(&self, ctx: &Context, encoder: &mut wgpu::CommandEncoder) {
        if let Some((_, scatter)) = &self.passes {
            self.pass(ctx, encoder, &ctx.kernels.scatter, scatter);
        }
    }

    fn pass(
        &self,
        ctx: &Context,
        encoder: &mut wgpu::CommandEncoder,
        kernel: &Kernel,
        bind: &wgpu::BindGroup,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("relabel"),
            timestamp_writes: None,
        });
        let (x, y) = ctx.fold(self.n.div_ceil(ctx.sizes.wg));
        kernel.set(&mut pass);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
}
