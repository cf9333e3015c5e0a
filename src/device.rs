//! Where a computation runs — the CPU (the twins) or the GPU (the kernels) — and the one
//! selector that turns a request (`--backend`, `--exact-on`, Python's `on=`) into a backend.
//! A sweep records the device it resolved to (`sweep.json`), so a resume runs where the sweep
//! began.

use crate::Error;
use crate::notice::Notice;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A device, or the request to take the GPU when an adapter exists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// The GPU when an adapter exists, else the CPU: a request, which [`Device::select`]
    /// resolves; nothing runs on `Auto`.
    Auto,
    /// The CPU twins.
    #[default]
    Cpu,
    /// The GPU kernels; no adapter is an error.
    Gpu,
}

impl Device {
    /// Every spelling, in the order of help texts.
    pub const NAMES: [&'static str; 3] = ["auto", "cpu", "gpu"];

    pub fn name(self) -> &'static str {
        match self {
            Device::Auto => "auto",
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
        }
    }

    /// The backend this request resolves to: `cpu()` for [`Device::Cpu`], `gpu()` for
    /// [`Device::Gpu`] (its error is the caller's), and for [`Device::Auto`] the GPU when
    /// `gpu()` succeeds, else the CPU with a notice saying why. The one place that decides
    /// where things run; the binary and the Python package only show the notice.
    pub fn select<B>(
        self,
        cpu: impl FnOnce() -> B,
        gpu: impl FnOnce() -> Result<B, Error>,
    ) -> Result<Selected<B>, Error> {
        let on = |backend, device| Selected {
            backend,
            device,
            notice: None,
        };
        Ok(match self {
            Device::Cpu => on(cpu(), Device::Cpu),
            Device::Gpu => on(gpu()?, Device::Gpu),
            Device::Auto => match gpu() {
                Ok(backend) => on(backend, Device::Gpu),
                Err(e) => Selected {
                    backend: cpu(),
                    device: Device::Cpu,
                    notice: Some(Notice::info(format!(
                        "backend auto: no usable GPU adapter ({e}); using the CPU twins"
                    ))),
                },
            },
        })
    }
}

/// A backend chosen by [`Device::select`].
#[derive(Debug)]
pub struct Selected<B> {
    pub backend: B,
    /// Where it runs: [`Device::Cpu`] or [`Device::Gpu`], never `Auto`.
    pub device: Device,
    /// Why it is not what was asked for, if it is not (`auto` without an adapter).
    pub notice: Option<Notice>,
}

/// `auto`, `cpu` or `gpu`, in any case.
impl FromStr for Device {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            "gpu" => Ok(Device::Gpu),
            _ => Err(format!(
                "unknown backend '{s}' (expected {})",
                Device::NAMES.join(", ")
            )),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_in_any_case() {
        for name in Device::NAMES {
            let d: Device = name.parse().unwrap();
            assert_eq!(d.name(), name);
            assert_eq!(name.to_uppercase().parse::<Device>(), Ok(d));
        }
        assert!(
            "cuda"
                .parse::<Device>()
                .unwrap_err()
                .contains("auto, cpu, gpu")
        );
    }

    #[test]
    fn auto_falls_back_to_the_cpu_with_a_notice_and_gpu_fails() {
        let no_adapter = || Err(Error::Gpu("no adapter".into()));
        let auto = Device::Auto.select(|| "cpu", no_adapter).unwrap();
        assert_eq!((auto.backend, auto.device), ("cpu", Device::Cpu));
        assert!(auto.notice.unwrap().head.contains("no adapter"));
        assert!(Device::Gpu.select(|| "cpu", no_adapter).is_err());
        let cpu = Device::Cpu
            .select(|| "cpu", || panic!("no GPU is started"))
            .unwrap();
        assert_eq!((cpu.device, cpu.notice), (Device::Cpu, None));
        let gpu = Device::Auto.select(|| "cpu", || Ok("gpu")).unwrap();
        assert_eq!(
            (gpu.backend, gpu.device, gpu.notice),
            ("gpu", Device::Gpu, None)
        );
    }
}
