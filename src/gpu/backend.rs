//! Which backend `sweep` and `run` use: the GPU, the CPU twins, or the GPU when an adapter
//! exists.

use super::{Gpu, GpuOptions};
use crate::Error;
use crate::experiment::{Backend, Cpu};
use std::fmt;
use std::str::FromStr;

/// Which backend `sweep` and `run` use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when an adapter exists, else the CPU twins.
    Auto,
    /// The GPU; no adapter is an error.
    Gpu,
    /// The CPU twins.
    Cpu,
}

impl FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "gpu" => Ok(Self::Gpu),
            "cpu" => Ok(Self::Cpu),
            _ => Err(format!("unknown backend '{s}' (expected auto, gpu or cpu)")),
        }
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Auto => "auto",
            Self::Gpu => "gpu",
            Self::Cpu => "cpu",
        })
    }
}

/// The backend for `choice`. `Auto` without an adapter says so on stderr and returns the CPU
/// twins; `Gpu` without one is an error.
/// `exact_on_gpu`: the GPU computes the exact reference too ([`Gpu::exact_reference_of`]).
pub fn select_backend(
    choice: BackendChoice,
    exact_on_gpu: bool,
) -> Result<Box<dyn Backend>, Error> {
    let gpu = || {
        Gpu::with_options(GpuOptions {
            exact_reference: exact_on_gpu,
            ..GpuOptions::default()
        })
    };
    match choice {
        BackendChoice::Cpu => Ok(Box::new(Cpu)),
        BackendChoice::Gpu => Ok(Box::new(gpu()?)),
        BackendChoice::Auto => match gpu() {
            Ok(gpu) => Ok(Box::new(gpu)),
            Err(e) => {
                eprintln!("backend auto: no usable GPU adapter ({e}); using the CPU twins");
                Ok(Box::new(Cpu))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_choice_parses() {
        assert_eq!("auto".parse(), Ok(BackendChoice::Auto));
        assert_eq!("gpu".parse(), Ok(BackendChoice::Gpu));
        assert_eq!("cpu".parse(), Ok(BackendChoice::Cpu));
        assert!("cuda".parse::<BackendChoice>().is_err());
    }
}
