//! The arithmetic a kernel runs in, as WGSL put in front of every stage: `acc_add`, the
//! addition of the accumulation format, and `store_round`, the rounding to the storage format
//! at the store. f16 and bf16 travel as the f32 words that hold them (`round_narrow.wgsl`):
//! each addition is the f32 sum rounded to the format, the format's own sum, so every kernel
//! computes in every arithmetic its twin does ([`Algorithm::twin_in`]), bit for bit, on any
//! adapter. f64 has no WGSL type: the GPU refuses it, here.
//!
//! [`Algorithm::twin_in`]: analysis::Algorithm::twin_in

use crate::Error;
use generators::{Arithmetic, Precision};

/// The WGSL function that rounds an f32 to `p` (`""`: it holds every f32 sum as it is).
fn rounding(p: Precision) -> &'static str {
    match p {
        Precision::F16 => "round_f16",
        Precision::Bf16 => "round_bf16",
        Precision::F32 | Precision::F64 => "",
    }
}

/// Whether the GPU kernels compute in `arith` (every format but f64, which WGSL lacks).
pub fn check(arith: Arithmetic) -> Result<(), Error> {
    match arith.accumulate {
        Precision::F64 => Err(Error::Usage(format!(
            "{}: the GPU kernels add in f16, bf16 or f32 (WGSL has no f64); f64 runs on the CPU",
            arith.describe()
        ))),
        _ => Ok(()),
    }
}

/// Whether the store rounds what the additions leave (storage narrower than accumulation).
pub(crate) fn stores_narrower(arith: Arithmetic) -> bool {
    arith.storage != arith.accumulate
}

/// The prelude of every stage compiled for `arith`: the roundings, `acc_add`, `store_round`,
/// and `STORE_NARROW` (whether `store_round` rounds, so that an exact sum goes to it rounded
/// to odd in f32 first: nearest of odd at p + 2 bits or more is nearest).
pub(crate) fn prelude(arith: Arithmetic) -> String {
    let narrow = super::shaders::file("round_narrow").unwrap_or_default();
    let (acc, store) = (rounding(arith.accumulate), rounding(arith.storage));
    format!(
        "{narrow}\nconst STORE_NARROW: bool = {};\n\
         fn acc_add(a: f32, b: f32) -> f32 {{ return {acc}(a + b); }}\n\
         fn store_round(x: f32) -> f32 {{ return {store}(x); }}\n",
        !store.is_empty()
    )
}
