//! The exact per-vertex values of a treefix, held on the weights' own [`Scale`] (1 to
//! [`MAX_LIMBS`] limbs of 64 bits, chosen by the weights) or, for weights that have no fixed
//! point (±∞, NaN), over the whole f32 range with IEEE's non-finite rules ([`ExactSum`]).

use generators::Precision;
use generators::exact_sum::ExactSum;
use generators::fixed::{Fixed, MAX_LIMBS, Scale};

/// The exact value of every vertex: k·2^unit on the weights' scale with L limbs, or
/// [`ExactSum`]s where a weight is not finite. The same values either way; fewer limbs to
/// add, store and round.
#[derive(Debug, Clone)]
pub enum ExactValues {
    Limbs1(Scale, Vec<Fixed<1>>),
    Limbs2(Scale, Vec<Fixed<2>>),
    Limbs3(Scale, Vec<Fixed<3>>),
    Limbs4(Scale, Vec<Fixed<4>>),
    Limbs5(Scale, Vec<Fixed<5>>),
    Full(Vec<ExactSum>),
}

const _: () = assert!(MAX_LIMBS == 5, "one variant per limb count");

/// `$body` with `$scale` and `$k` bound to a scaled variant's fields, or `$full` with the
/// full-range values bound to `$values`.
macro_rules! on_values {
    ($self:expr, |$scale:ident, $k:ident| $body:expr, |$values:ident| $full:expr) => {
        match $self {
            ExactValues::Limbs1($scale, $k) => $body,
            ExactValues::Limbs2($scale, $k) => $body,
            ExactValues::Limbs3($scale, $k) => $body,
            ExactValues::Limbs4($scale, $k) => $body,
            ExactValues::Limbs5($scale, $k) => $body,
            ExactValues::Full($values) => $full,
        }
    };
}

/// The variant that holds L-limb values.
pub(crate) trait Held: Sized {
    fn held(scale: Scale, values: Vec<Self>) -> ExactValues;
}

macro_rules! held {
    ($($l:literal => $variant:ident),*) => {$(
        impl Held for Fixed<$l> {
            fn held(scale: Scale, values: Vec<Self>) -> ExactValues {
                ExactValues::$variant(scale, values)
            }
        }
    )*};
}
held!(1 => Limbs1, 2 => Limbs2, 3 => Limbs3, 4 => Limbs4, 5 => Limbs5);

impl ExactValues {
    /// Vertex v's exact value.
    pub fn get(&self, v: usize) -> ExactSum {
        on_values!(self, |scale, k| scale.to_exact(k[v]), |values| values[v])
    }

    /// Vertex v's exact value rounded to the nearest f64, ties to even (+0 for zero).
    #[inline]
    pub fn to_f64(&self, v: usize) -> f64 {
        on_values!(self, |scale, k| scale.to_f64(k[v]), |values| values[v]
            .to_f64())
    }

    /// Vertex v's exact value rounded to the nearest f32, ties to even (±∞ beyond f32's
    /// range; +0 for zero).
    #[inline]
    pub fn to_f32(&self, v: usize) -> f32 {
        on_values!(self, |scale, k| scale.to_f32(k[v]), |values| values[v]
            .to_f32())
    }

    /// Vertex v's exact value rounded to the nearest f64 and to the nearest f32, ties to even
    /// (+0 for zero), from one normalisation.
    #[inline]
    pub fn roundings(&self, v: usize) -> (f64, f32) {
        on_values!(
            self,
            |scale, k| {
                let (x, x32, _) = scale.roundings(k[v]);
                (x, x32)
            },
            |values| (values[v].to_f64(), values[v].to_f32())
        )
    }

    /// Vertex v's exact value rounded to nearest in `p`, ties to even, as an f64 (±∞ beyond
    /// its range; +0 for zero): rounded to odd at 53 bits, then to nearest at p ≤ 24 (one
    /// rounding of the exact value), or to nearest at 53 for f64.
    #[inline]
    pub fn to_precision(&self, v: usize, p: Precision) -> f64 {
        on_values!(
            self,
            |scale, k| match p {
                Precision::F64 => scale.to_f64(k[v]),
                _ => p.round(k[v].to_f64_odd_at(scale.unit())),
            },
            |values| values[v].to_precision(p)
        )
    }

    /// `computed − x[v]` exactly, rounded to the nearest f64 (the sign of a zero aside).
    #[inline]
    pub fn diff_f64(&self, v: usize, computed: f32) -> f64 {
        on_values!(self, |scale, k| scale.diff_f64(computed, k[v]), |values| {
            (ExactSum::from_f32(computed) - values[v]).to_f64()
        })
    }

    /// Limbs of the scale in use (None: the full range, a weight not finite).
    pub fn limbs(&self) -> Option<usize> {
        on_values!(self, |scale, _k| Some(scale.limbs()), |_values| None)
    }

    /// The number of vertices.
    pub fn len(&self) -> usize {
        on_values!(self, |_scale, k| k.len(), |values| values.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
