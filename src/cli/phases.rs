//! `run`'s progress on a terminal: a bar over its phases (reading or generating the tree, then
//! per op the exact reference and each algorithm) with the time elapsed. On trees of
//! [`BIG`] vertices or more, where a run takes minutes, each finished phase also leaves a line
//! ("rootfix reference: done at 41.2 s"), so the phases stay on screen. Nothing is drawn when
//! stderr is not a terminal (indicatif hides the bar and drops its lines).

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
            self.bar.println(line(phase, self.bar.elapsed()));
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

/// The line a finished phase leaves on a big tree.
fn line(phase: &str, elapsed: Duration) -> String {
    format!("{phase}: done at {:.1} s", elapsed.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_trees_get_a_line_per_phase() {
        assert_eq!(
            line("rootfix reference", Duration::from_millis(41_234)),
            "rootfix reference: done at 41.2 s"
        );
        let p = Phases::start(2, "reading the tree");
        p.tree_ready("read", BIG - 1);
        assert!(!p.lines.load(Ordering::Relaxed));
        p.tree_ready("read", BIG);
        assert!(p.lines.load(Ordering::Relaxed));
    }
}
