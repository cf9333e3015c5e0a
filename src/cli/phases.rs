//! `run`'s progress on a terminal: a bar over its phases (reading or generating the tree, then
//! per op the exact reference and each algorithm) with the time elapsed. On trees of
//! [`BIG`] vertices or more, where a run takes minutes, each finished phase also leaves a line
//! ("rootfix reference: done at 41.2 s"), so the phases stay on screen. Nothing is drawn when
//! stderr is not a terminal (indicatif hides the bar and drops its lines). The lines give the
//! peak memory so far, which on such trees is what decides where a run fits.

use generators::io::human_bytes;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Trees from this many vertices on get a line per phase.
pub const BIG: usize = 10_000_000;

pub struct Phases {
    bar: ProgressBar,
    /// Whether each finished phase gets a line (a big tree).
    lines: AtomicBool,
}

impl Phases {
    /// A bar over the tree's phase and `steps` evaluation steps; `first` names the tree's.
    pub fn start(steps: usize, first: &str) -> Phases {
        let bar = ProgressBar::new(steps as u64 + 1);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} run [{bar:30}] {pos}/{len} steps, {elapsed}: {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_message(first.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        Phases {
            bar,
            lines: AtomicBool::new(false),
        }
    }

    /// The tree is read (or generated) and has `n` vertices.
    pub fn tree_ready(&self, phase: &str, n: usize) {
        self.lines.store(n >= BIG, Ordering::Relaxed);
        self.done(phase);
    }

    /// A phase finished ("rootfix reference", "leaffix vectorial").
    pub fn done(&self, phase: &str) {
        if self.lines.load(Ordering::Relaxed) {
            self.bar
                .println(line(phase, self.bar.elapsed(), peak_resident_bytes()));
        }
        self.bar.set_message(format!("{phase} done"));
        self.bar.inc(1);
    }

    /// Runs `f` (which prints) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }
}

impl Drop for Phases {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The line a finished phase leaves on a big tree, with the process's peak resident memory
/// so far where the system says it.
fn line(phase: &str, elapsed: Duration, peak: Option<u64>) -> String {
    let at = format!("{phase}: done at {:.1} s", elapsed.as_secs_f64());
    match peak {
        Some(bytes) => format!("{at}, peak memory {}", human_bytes(bytes)),
        None => at,
    }
}

/// The peak resident set size of this process (Linux: VmHWM of /proc/self/status).
fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kb: u64 = kb.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_trees_get_a_line_per_phase() {
        assert_eq!(
            line("rootfix reference", Duration::from_millis(41_234), None),
            "rootfix reference: done at 41.2 s"
        );
        assert_eq!(
            line("read", Duration::from_secs(3), Some(1_400_000_000)),
            format!(
                "read: done at 3.0 s, peak memory {}",
                human_bytes(1_400_000_000)
            )
        );
        if cfg!(target_os = "linux") {
            // This process has touched at least its own binary's pages.
            assert!(peak_resident_bytes().is_some_and(|b| b > 1 << 20));
        }
        let p = Phases::start(2, "reading the tree");
        p.tree_ready("read", BIG - 1);
        assert!(!p.lines.load(Ordering::Relaxed));
        p.tree_ready("read", BIG);
        assert!(p.lines.load(Ordering::Relaxed));
    }
}
