//! Where the time of one GPU call went, and how it was measured.

use std::fmt;

/// How [`Timing::compute_s`] was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimingMethod {
    /// GPU timestamp queries around all compute passes of the call.
    Timestamps,
    /// Wall clock from the first submit to the device going idle (no timestamp support).
    WallClock,
}

impl fmt::Display for TimingMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Timestamps => "GPU timestamp queries",
            Self::WallClock => "wall clock around submit + wait",
        })
    }
}

/// Where the time of one call went (seconds).
#[derive(Debug, Clone)]
pub struct Timing {
    /// Relabeling the tree's structure, uploading it and creating its buffers (0 when it was
    /// cached).
    pub tree_upload_s: f64,
    /// Weights into the staging buffer, copied to the device and into the kernel's labels
    /// (wall clock, waited for).
    pub upload_s: f64,
    /// The kernels alone, measured by `method`.
    pub compute_s: f64,
    /// Recording, submitting and waiting for the kernels (wall clock).
    pub compute_wall_s: f64,
    /// Results back to the tree's labels, copied to the staging buffer, mapped and copied out
    /// (wall clock).
    pub download_s: f64,
    pub method: TimingMethod,
    /// The time of each timed phase of the kernel's recipe (vectorial: scan, read), with GPU
    /// timestamps and more than one phase only.
    pub stages: Vec<(&'static str, f64)>,
}

/// The kernels' time and each phase's, from the timestamps at the end of each phase
/// (`ticks`: seconds since the first phase began), or `wall` without timestamps.
pub(crate) fn kernel_times(
    phases: &[&'static str],
    ticks: Option<Vec<f64>>,
    wall: f64,
) -> (f64, Vec<(&'static str, f64)>) {
    let Some(ticks) = ticks else {
        return (wall, Vec::new());
    };
    let total = ticks.last().copied().unwrap_or(wall);
    if phases.len() < 2 {
        return (total, Vec::new());
    }
    let mut before = 0.0;
    let stages = phases
        .iter()
        .zip(&ticks)
        .map(|(&name, &at)| {
            let d = at - before;
            before = at;
            (name, d)
        })
        .collect();
    (total, stages)
}

impl Timing {
    /// Weights up plus results down.
    pub fn transfer_s(&self) -> f64 {
        self.upload_s + self.download_s
    }
}
