//! The exact reference on the GPU: the scan of the kernel whose variant's unrounded read is
//! exact (the variants table says which), left unrounded, its 32-bit words read back and made
//! the CPU's fixed point — of one tree, or of every tree of a forest already uploaded for its
//! kernels (a sweep's batch), in one scan per weight vector.

use super::engine::Part;
use super::layout::Forest;
use super::recording::Request;
use super::resident::Made;
use super::variants::{Read, exact_reference_kernel};
use super::{Gpu, State};
use crate::Error;
use analysis::algorithms::GpuKernel;
use analysis::{Op, Reference};
use generators::Tree;
use generators::fixed::Scale;

/// Whether `w` holds a −0, whose sign rules the CPU reference keeps (the GPU's fixed point
/// has one zero).
fn has_negative_zero(w: &[f32]) -> bool {
    w.iter().any(|x| x.to_bits() == 0x8000_0000)
}

/// |w|, for the scan of Σ|terms|.
fn magnitudes(w: &[f32]) -> Vec<f32> {
    w.iter().map(|x| x.abs()).collect()
}

/// The kernel whose unrounded read is the exact reference.
fn reference_kernel() -> Result<&'static GpuKernel, Error> {
    exact_reference_kernel()
        .ok_or_else(|| Error::Gpu("no GPU kernel gives the exact reference".into()))
}

impl Gpu {
    /// The exact reference of `op`: every vertex's exact rootfix or leaffix and its
    /// Σ|terms|, from the exact scan left unrounded (its 32-bit words read back and
    /// made the CPU's fixed point here), the second over |w|. `None` where the weights hold a
    /// −0 (whose sign rules the CPU reference keeps) or a non-finite value.
    pub fn exact_reference_of(
        &self,
        tree: &Tree,
        w: &[f32],
        op: Op,
    ) -> Result<Option<Reference>, Error> {
        if has_negative_zero(w) {
            return Ok(None);
        }
        let Some(scale) = Scale::for_weights(w) else {
            return Ok(None);
        };
        let abs = magnitudes(w);
        let values = self.exact_words(&[tree], &[w], op, scale)?;
        let abs_sums = self.exact_words(&[tree], &[&abs], op, scale)?;
        Ok(Reference::exact_from_words(
            w,
            scale.unit(),
            scale.gpu_words(),
            &values,
            &abs_sums,
        ))
    }

    /// [`Gpu::exact_reference_of`] for every job, in job order, from the forests of
    /// [`Backend::compute_many`](crate::experiment::Backend::compute_many) with the kernel
    /// that gives the reference: those forests, already uploaded for it, are scanned whole
    /// (one scan of the weights and one of their magnitudes per forest) at the forest's scale,
    /// and each tree's words are read at its own. A forest with a non-finite weight has no
    /// scale: its trees go one by one.
    pub fn exact_references_of(
        &self,
        jobs: &[(&Tree, &[f32])],
        op: Op,
    ) -> Result<Vec<Option<Reference>>, Error> {
        let mut out = Vec::with_capacity(jobs.len());
        let words_per_vertex = reference_kernel()?.words_per_vertex;
        for forest in self.batches(jobs, words_per_vertex) {
            let (trees, parts): (Vec<&Tree>, Vec<&[f32]>) = forest.iter().copied().unzip();
            let Some(scale) = Scale::for_parts(&parts) else {
                for &(tree, w) in forest {
                    out.push(self.exact_reference_of(tree, w, op)?);
                }
                continue;
            };
            let abs: Vec<Vec<f32>> = parts.iter().map(|w| magnitudes(w)).collect();
            let abs: Vec<&[f32]> = abs.iter().map(Vec::as_slice).collect();
            let values = self.exact_words(&trees, &parts, op, scale)?;
            let abs_sums = self.exact_words(&trees, &abs, op, scale)?;
            let per_vertex = scale.gpu_words();
            let mut start = 0;
            for w in parts {
                let words = start..start + per_vertex * w.len();
                start = words.end;
                out.push(match has_negative_zero(w) {
                    true => None,
                    false => Reference::exact_from_words(
                        w,
                        scale.unit(),
                        per_vertex,
                        &values[words.clone()],
                        &abs_sums[words],
                    ),
                });
            }
        }
        Ok(out)
    }

    /// One unrounded exact scan of the weights `parts` (of scale `scale`) on the forest of
    /// `trees` (uploaded if not resident yet): each vertex's words, trees end to end, each in
    /// its tree's labels.
    fn exact_words(
        &self,
        trees: &[&Tree],
        parts: &[&[f32]],
        op: Op,
        scale: Scale,
    ) -> Result<Vec<u32>, Error> {
        for (tree, w) in trees.iter().zip(parts) {
            assert_eq!(tree.len(), w.len(), "one weight per vertex");
        }
        let kernel = reference_kernel()?;
        let ctx = &self.ctx;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let State {
            residents,
            staging,
            uploads,
        } = &mut *state;
        let index = Self::resident_index(ctx, residents, uploads, trees)?;
        let res = &mut residents[index];
        let w = res.w.clone();
        let made = Made {
            scale: Some(scale),
            unrounded: true,
        };
        let up = res.uploaded(ctx, &Forest::new(trees.to_vec()), kernel.layout, made)?;
        let req = Request::f32(op, Read::Unrounded);
        let run = up.prepare(ctx, kernel.recipe, req)?;
        let run = up.run(run);
        let (limbs, orig) = up
            .read_words()
            .ok_or_else(|| Error::Gpu("no buffer for the unrounded read".into()))?;
        let n: usize = parts.iter().map(|w| w.len()).sum();
        let mut rec = ctx.recorder();
        rec.encoder
            .copy_buffer_to_buffer(staging.write(ctx, parts)?, 0, &w, 0, 4 * n as u64);
        ctx.encode(run, Part::Input, &mut rec);
        ctx.encode(run, Part::Compute, &mut rec);
        let per_vertex = scale.gpu_words();
        let words = per_vertex * n;
        let down = staging.down(ctx, 4 * words as u64);
        rec.encoder
            .copy_buffer_to_buffer(up.buffer(limbs), 0, down, 0, 4 * words as u64);
        rec.submit();
        staging.remap();
        // The words travel as f32 bit patterns (a byte copy, never an f32 operation).
        let raw = staging.read(ctx, &[words])?.pop().expect("one vector");
        let mut out = vec![0u32; words];
        for (label, k) in raw.chunks_exact(per_vertex).enumerate() {
            let at = per_vertex * orig[label] as usize;
            for (o, x) in out[at..at + per_vertex].iter_mut().zip(k) {
                *o = x.to_bits();
            }
        }
        Ok(out)
    }
}
