//! The exact reference on the GPU: vectorial-exact's scan left unrounded, its 32-bit words
//! read back and made the CPU's fixed point.

use super::context::Recorder;
use super::layout::Forest;
use super::resident::{Buffers, Uploaded};
use super::vectorial::VectorialTree;
use super::{Gpu, State};
use crate::Error;
use analysis::algorithms::ScanWord;
use analysis::scan_plan::Plan;
use analysis::{Op, Reference};
use generators::Tree;
use generators::fixed::Scale;

impl Gpu {
    /// The exact reference of `op`: every vertex's exact rootfix or leaffix and its
    /// Σ|terms|, from vectorial-exact's scan left unrounded (its 32-bit words read back and
    /// made the CPU's fixed point here), the second over |w|. `None` where the weights hold a −0 (whose sign rules the
    /// CPU reference keeps) or a non-finite value.
    pub fn exact_reference_of(
        &self,
        tree: &Tree,
        w: &[f32],
        op: Op,
    ) -> Result<Option<Reference>, Error> {
        if w.iter().any(|x| x.to_bits() == 0x8000_0000) {
            return Ok(None);
        }
        let Some(scale) = Scale::for_weights(w) else {
            return Ok(None);
        };
        let abs: Vec<f32> = w.iter().map(|x| x.abs()).collect();
        let values = self.exact_words(tree, w, op, scale)?;
        let abs_sums = self.exact_words(tree, &abs, op, scale)?;
        Ok(Reference::exact_from_words(
            w,
            scale.unit(),
            scale.gpu_words(),
            &values,
            &abs_sums,
        ))
    }

    /// One unrounded exact scan of `w` (of scale `scale`) on `tree`: each vertex's words, in
    /// the tree's labels.
    fn exact_words(&self, tree: &Tree, w: &[f32], op: Op, scale: Scale) -> Result<Vec<u32>, Error> {
        assert_eq!(tree.len(), w.len(), "one weight per vertex");
        let ctx = &self.ctx;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let State { residents, staging } = &mut *state;
        let index = Self::resident_index(ctx, residents, &[tree])?;
        let res = &mut residents[index];
        let reusable = res
            .exact()
            .is_some_and(|v| v.scale() == Some(scale) && v.has_unrounded_read());
        if !reusable {
            let forest = Forest::new(vec![tree]);
            let exact = VectorialTree::new(
                ctx,
                &forest,
                &res.w,
                &res.out,
                ScanWord::Exact,
                Some(scale),
                true,
            )?;
            res.put(Buffers::Scan(ScanWord::Exact), Uploaded::Scan(exact));
        }
        let kernel = res.exact().expect("made above");
        let n = tree.len();
        let mut rec = Recorder::new(ctx);
        rec.encoder
            .copy_buffer_to_buffer(staging.write(ctx, &[w])?, 0, &res.w, 0, 4 * n as u64);
        kernel.labels.record_in(ctx, &mut rec.encoder);
        kernel.record_scan(ctx, op, Plan::Tiled, &mut rec);
        let (limbs, orig) = kernel
            .record_read_limbs(ctx, op, &mut rec)
            .expect("an exact scan has its unrounded read");
        let per_vertex = scale.gpu_words();
        let words = per_vertex * n;
        let down = staging.down(ctx, 4 * words as u64);
        rec.encoder
            .copy_buffer_to_buffer(limbs, 0, down, 0, 4 * words as u64);
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
