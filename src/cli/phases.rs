//! `run`'s progress on a terminal: a bar over its phases (reading or generating the tree, then
//! per op the exact reference and each algorithm), each phase weighted by the time model's
//! estimate (`memory::model`, the descriptors' seconds per vertex), so that the bar moves as
//! the work does, not by equal steps; it shows the model's estimate of the time left until a
//! phase of the evaluation has finished, then the time this run has taken per unit of
//! estimated work times the estimated work left. On trees of [`BIG`] vertices or more, where a
//! run takes minutes, each finished phase also leaves a line ("rootfix reference: done at
//! 41.2 s"), so the phases stay on screen. Nothing is drawn when stderr is not a terminal
//! (indicatif hides the bar and drops its lines). The lines give the peak memory so far, which
//! on such trees is what decides where a run fits.

use analysis::Algorithm;
use analysis::format::duration;
use generators::io::human_bytes;
use indicatif::{HumanDuration, ProgressBar, ProgressState, ProgressStyle};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use treefix_accuracy::memory::model;

/// Trees from this many vertices on get a line per phase.
pub const BIG: usize = 10_000_000;
/// Trees from this many vertices on get the estimated time printed before the evaluation.
pub const ESTIMATED: usize = 1 << 20;
/// The bar's length: thousandths of the estimated evaluation.
const UNITS: u64 = 1000;

/// The estimated evaluation and how much of it is done.
#[derive(Debug, Default)]
struct Work {
    /// Estimated seconds of the whole evaluation (0: not known yet).
    total: f64,
    /// Estimated seconds of the phases done.
    done: f64,
    /// Vertices per thread: a phase's estimate is its seconds per vertex times this.
    scale: f64,
    /// When the evaluation started (the tree ready), and when its last phase finished.
    start: Option<Instant>,
    last: Option<Instant>,
    /// Whether each finished phase gets a line (a big tree).
    lines: bool,
}

pub struct Phases {
    bar: ProgressBar,
    work: Arc<Mutex<Work>>,
}

/// The model's seconds per vertex of one phase on one thread: "rootfix reference" or
/// "leaffix vectorial" (its algorithm's descriptor); 0 for a phase it does not know.
fn per_vertex(phase: &str) -> f64 {
    match phase.rsplit(' ').next() {
        Some("reference") => model::SECONDS_PER_VERTEX_REFERENCE,
        Some(name) => name
            .parse::<Algorithm>()
            .map_or(0.0, |a| a.descriptor().cost.seconds),
        None => 0.0,
    }
}

/// The estimated seconds of evaluating `algos` on `ops` ops of a tree of `n` vertices on
/// `threads` threads (the sweep's model: one reference and each algorithm per op).
pub fn estimate(n: usize, algos: &[Algorithm], ops: usize, threads: usize) -> f64 {
    let per_op = model::SECONDS_PER_VERTEX_REFERENCE
        + algos
            .iter()
            .map(|a| a.descriptor().cost.seconds)
            .sum::<f64>();
    n as f64 * ops as f64 * per_op / threads.max(1) as f64
}

impl Phases {
    /// A bar over the run; `first` names the tree's phase.
    pub fn start(first: &str) -> Phases {
        Phases::with_bar(first, ProgressBar::new(UNITS))
    }

    /// No bar and no lines (`run --quiet`).
    pub fn hidden(first: &str) -> Phases {
        Phases::with_bar(first, ProgressBar::hidden())
    }

    fn with_bar(first: &str, bar: ProgressBar) -> Phases {
        let work = Arc::new(Mutex::new(Work::default()));
        let seen = Arc::clone(&work);
        bar.set_length(UNITS);
        bar.set_style(
            ProgressStyle::with_template("{spinner} run [{bar:30}] {elapsed}, {left}: {msg}")
                .expect("a valid template")
                .with_key(
                    "left",
                    move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let work = seen.lock().unwrap_or_else(|e| e.into_inner());
                        let _ = w.write_str(&left(&work));
                    },
                )
                .progress_chars("=> "),
        );
        bar.set_message(first.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        Phases { bar, work }
    }

    /// The tree is read (or generated) and has `n` vertices; `total` is the estimated seconds
    /// of its evaluation on `threads` threads.
    pub fn tree_ready(&self, phase: &str, n: usize, total: f64, threads: usize) {
        {
            let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
            work.lines = n >= BIG;
            work.total = total;
            work.scale = n as f64 / threads.max(1) as f64;
            work.start = Some(Instant::now());
        }
        self.line(phase);
        self.bar.set_message(format!("{phase} done"));
    }

    /// A phase finished ("rootfix reference", "leaffix vectorial").
    pub fn done(&self, phase: &str) {
        let position = {
            let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
            work.done += per_vertex(phase) * work.scale;
            work.last = Some(Instant::now());
            if work.total > 0.0 {
                ((work.done / work.total).min(1.0) * UNITS as f64) as u64
            } else {
                0
            }
        };
        self.line(phase);
        self.bar.set_message(format!("{phase} done"));
        self.bar.set_position(position);
    }

    /// The line a finished phase leaves on a big tree.
    fn line(&self, phase: &str) {
        let lines = self.work.lock().is_ok_and(|w| w.lines);
        if lines {
            self.bar
                .println(line(phase, self.bar.elapsed(), peak_resident_bytes()));
        }
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

/// "about 2.0 min left (estimate)" until a phase of the evaluation is done, then "eta 1m 10s":
/// the estimated work left at this run's own pace (seconds per estimated second, as of the
/// last finished phase), counting down while a phase runs.
fn left(work: &Work) -> String {
    let (Some(start), Some(last)) = (work.start, work.last) else {
        return match work.start {
            Some(_) => format!("about {} left (estimate)", duration(work.total)),
            None => "estimate after the tree".into(),
        };
    };
    if work.done <= 0.0 || work.total <= 0.0 {
        return format!("about {} left (estimate)", duration(work.total));
    }
    let pace = last.duration_since(start).as_secs_f64() / work.done;
    let rest = (work.total - work.done).max(0.0) * pace - last.elapsed().as_secs_f64();
    format!(
        "eta {}",
        HumanDuration(Duration::from_secs_f64(rest.max(0.0)))
    )
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
        let p = Phases::start("reading the tree");
        p.tree_ready("read", BIG - 1, 1.0, 1);
        assert!(!p.work.lock().unwrap().lines);
        p.tree_ready("read", BIG, 1.0, 1);
        assert!(p.work.lock().unwrap().lines);
    }

    #[test]
    fn the_bar_moves_by_estimated_work_and_the_time_left_follows_the_pace() {
        let algos = [Algorithm::SEQUENTIAL, Algorithm::VECTORIAL_EXACT];
        let total = estimate(1000, &algos, 2, 2);
        let expected = 1000.0 * 2.0 / 2.0
            * (model::SECONDS_PER_VERTEX_REFERENCE
                + Algorithm::SEQUENTIAL.descriptor().cost.seconds
                + Algorithm::VECTORIAL_EXACT.descriptor().cost.seconds);
        assert!((total - expected).abs() < 1e-15);
        let p = Phases::start("generating the tree");
        assert_eq!(left(&p.work.lock().unwrap()), "estimate after the tree");
        p.tree_ready("generate", 1000, total, 2);
        // The model's estimate, in the one form of a duration shown (the report's).
        assert_eq!(
            left(&p.work.lock().unwrap()),
            format!("about {} left (estimate)", duration(total))
        );
        p.done("rootfix reference");
        p.done("rootfix vectorial-exact");
        let done = p.work.lock().unwrap().done;
        let share = (model::SECONDS_PER_VERTEX_REFERENCE
            + Algorithm::VECTORIAL_EXACT.descriptor().cost.seconds)
            * 500.0;
        assert!((done - share).abs() < 1e-15);
        // Unequal phases: the position is the estimated share, not a count of steps.
        assert_eq!(p.bar.position(), ((share / total) * UNITS as f64) as u64);
        assert!(left(&p.work.lock().unwrap()).starts_with("eta "));
    }
}
