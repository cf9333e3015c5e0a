//! The one table of scan variants: for each storage format, scan word and read, the WGSL put
//! in front of a scan kernel's stage files. The scan stages are written over a `Sum` type and
//! its operations (`sum_zero`, `sum_term`, `sum_add`, `sum_neg`, `sum_round`), which the word's
//! prelude (`sum_*.wgsl`) defines, and the read writes `ReadOut` through `finish_read`, which the
//! row defines: the sum rounded to the storage format (an algorithm's results), or the sum
//! itself (the exact reference's words). Every row is compiled with every scan stage of the
//! registry by a unit test (naga), on the CPU.

use analysis::algorithms::{Algorithm, GpuKernel, GpuLayout, ScanWord, Storage};
use analysis::scan_plan;
use std::fmt::Write;

/// How the read leaves the sum it forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Read {
    /// Rounded once to the storage format: the kernel's results.
    Rounded,
    /// The sum as it is: its words, read back to the host.
    Unrounded,
}

/// One row of [`VARIANTS`].
#[derive(Debug)]
pub(crate) struct Row {
    pub storage: Storage,
    pub word: ScanWord,
    pub read: Read,
    /// The prelude that defines `Sum` and its operations (a file of `shaders/`, without `.wgsl`).
    prelude: &'static str,
    /// `ReadOut` and `finish_read`.
    read_out: &'static str,
    /// Whether the sums are fixed-point integers at the weights' scale: the prelude gets the
    /// scale's limb count (`LIMBS`), and the buffers are made again for another scale.
    pub fixed_point: bool,
    /// Whether the read's output is the exact reference's words (every prefix and difference
    /// exact, unrounded).
    pub exact_reference: bool,
}

/// The sum rounded to f32, then stored (`store_round`, `crate::gpu::arithmetic`): what the
/// twin's read and store do.
const ROUND_TO_F32: &str =
    "alias ReadOut = f32;\nfn finish_read(s: Sum) -> f32 { return store_round(sum_round(s)); }";
/// An exact sum rounded once to the storage format: to nearest in f32, or to odd in f32 and
/// then to nearest in a narrower one (`sum_exact.wgsl`).
const ROUND_EXACT: &str = "alias ReadOut = f32;\nfn finish_read(s: Sum) -> f32 {\n    \
    if STORE_NARROW { return store_round(sum_round_odd(s)); }\n    return sum_round(s);\n}";
const AS_IS: &str = "alias ReadOut = Sum;\nfn finish_read(s: Sum) -> Sum { return s; }";

/// Every variant the host compiles.
pub(crate) const VARIANTS: [Row; 4] = [
    Row {
        storage: Storage::F32,
        word: ScanWord::F32,
        read: Read::Rounded,
        prelude: "sum_f32",
        read_out: ROUND_TO_F32,
        fixed_point: false,
        exact_reference: false,
    },
    Row {
        storage: Storage::F32,
        word: ScanWord::FloatFloat,
        read: Read::Rounded,
        prelude: "sum_float_float",
        read_out: ROUND_TO_F32,
        fixed_point: false,
        exact_reference: false,
    },
    Row {
        storage: Storage::F32,
        word: ScanWord::Exact,
        read: Read::Rounded,
        prelude: "sum_exact",
        read_out: ROUND_EXACT,
        fixed_point: true,
        exact_reference: false,
    },
    Row {
        storage: Storage::F32,
        word: ScanWord::Exact,
        read: Read::Unrounded,
        prelude: "sum_exact",
        read_out: AS_IS,
        fixed_point: true,
        exact_reference: true,
    },
];

/// What a scan stage is compiled for: a key of [`VARIANTS`], and the limb count of a
/// fixed-point word (0 for the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Variant {
    pub storage: Storage,
    pub word: ScanWord,
    pub read: Read,
    pub limbs: u32,
}

impl Variant {
    /// The rounded variant of a scan layout (`None` for the others).
    pub fn of(layout: GpuLayout) -> Option<Variant> {
        match layout {
            GpuLayout::Scan { storage, word, .. } => Some(Variant {
                storage,
                word,
                read: Read::Rounded,
                limbs: 0,
            }),
            GpuLayout::Levels | GpuLayout::Program => None,
        }
    }

    /// Its row, if the table has one.
    pub fn row(self) -> Option<&'static Row> {
        VARIANTS
            .iter()
            .find(|r| (r.storage, r.word, r.read) == (self.storage, self.word, self.read))
    }

    /// This variant with the read `read`.
    pub fn with_read(self, read: Read) -> Variant {
        Variant { read, ..self }
    }

    /// The WGSL in front of a stage file compiled for this variant (`None`: not in the table).
    pub fn prelude(self) -> Option<String> {
        let row = self.row()?;
        let sum = super::shaders::file(row.prelude)?;
        // The scan plan's items per invocation, for arrays that need a constant size.
        let items = scan_plan::ITEMS_PER_THREAD;
        let mut s = format!("const THREAD_ITEMS: u32 = {items}u;\n");
        if row.fixed_point {
            let _ = writeln!(s, "const LIMBS: u32 = {}u;", self.limbs);
        }
        let _ = write!(s, "{sum}\n{}", row.read_out);
        Some(s)
    }
}

/// The registry's kernel whose unrounded read gives the exact reference (its variant's row
/// says so).
pub(crate) fn exact_reference_kernel() -> Option<&'static GpuKernel> {
    Algorithm::ALL.into_iter().find_map(|a| {
        let kernel = a.gpu()?;
        let variant = Variant::of(kernel.layout)?.with_read(Read::Unrounded);
        variant
            .row()
            .is_some_and(|r| r.exact_reference)
            .then_some(kernel)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each key once, and every scan kernel of the registry has its rounded row.
    #[test]
    fn one_row_per_key_and_one_per_kernel() {
        for (i, r) in VARIANTS.iter().enumerate() {
            assert!(
                VARIANTS[..i]
                    .iter()
                    .all(|o| (o.storage, o.word, o.read) != (r.storage, r.word, r.read)),
                "{r:?} twice"
            );
        }
        for a in Algorithm::ALL {
            if let Some(v) = a.gpu().and_then(|k| Variant::of(k.layout)) {
                assert!(v.row().is_some(), "{a}: no variant {v:?}");
            }
        }
        assert!(exact_reference_kernel().is_some());
    }
}
