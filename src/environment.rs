//! Where a sweep ran, for summary.json and the report.

use serde::Serialize;

/// The machine and build that produced a sweep's numbers.
#[derive(Debug, Clone, Serialize)]
pub struct Environment {
    pub os: String,
    pub arch: String,
    pub cpu: String,
    pub logical_cpus: usize,
    pub build: &'static str,
    pub started_utc: String,
}

impl Environment {
    pub fn capture() -> Environment {
        Environment {
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            cpu: cpu_model().unwrap_or_else(|| "unknown".into()),
            logical_cpus: std::thread::available_parallelism().map_or(0, |n| n.get()),
            build: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
            started_utc: chrono::Utc::now()
                .format("%Y-%m-%d %H:%M:%S UTC")
                .to_string(),
        }
    }
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}
