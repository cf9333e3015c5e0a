//! The backend of a request (`--backend`, `--exact-on`): the GPU's options for it, and the
//! one selector of [`Device::select`].

use super::{Gpu, GpuOptions};
use crate::Error;
use crate::device::{Device, Selected};
use crate::experiment::{Backend, Cpu};

/// The backend for `device`, with its notice when `auto` found no adapter. `exact_on`
/// [`Device::Gpu`]: the GPU computes the exact reference too ([`Gpu::exact_reference_of`]).
pub fn select_backend(
    device: Device,
    exact_on: Device,
) -> Result<Selected<Box<dyn Backend>>, Error> {
    device.select(
        || Box::new(Cpu) as Box<dyn Backend>,
        || {
            let gpu = Gpu::with_options(GpuOptions {
                exact_reference: exact_on == Device::Gpu,
                ..GpuOptions::default()
            })?;
            Ok(Box::new(gpu) as Box<dyn Backend>)
        },
    )
}
