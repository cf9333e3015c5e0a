//! The sweep's progress bar (on a terminal only) and its time estimate.
//!
//! indicatif's own ETA divides the trees left by a rate it estimates from position updates: a
//! sweep of big trees makes no update until its first trees finish, so it showed "eta 0s"
//! (indicatif's choice while the rate is unknown) for as long as the first trees took, and
//! without a steady tick the line only changed when a tree finished. Here the estimate is the
//! time this run has taken per vertex of the trees it finished, times the vertices left (trees
//! of one sweep can differ in size: files), redrawn every second; until a tree has finished it
//! says so instead of guessing.

use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pub(super) struct Progress {
    bar: ProgressBar,
    /// Vertices of the trees this run finished.
    done: Arc<AtomicU64>,
}

impl Progress {
    /// A bar over `trees` trees of which `resumed` are done, with `vertices` vertices in the
    /// trees left to do; hidden when `quiet` (and, by indicatif, when stderr is no terminal).
    pub fn new(trees: usize, resumed: usize, vertices: u64, quiet: bool) -> Progress {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let progress = Progress::with_target(target, trees, resumed, vertices);
        if !quiet {
            progress.bar.enable_steady_tick(Duration::from_secs(1));
        }
        progress
    }

    fn with_target(
        target: ProgressDrawTarget,
        trees: usize,
        resumed: usize,
        vertices: u64,
    ) -> Progress {
        let done = Arc::new(AtomicU64::new(0));
        let seen = Arc::clone(&done);
        let style = ProgressStyle::with_template(
            "{spinner} sweep [{bar:30}] {pos}/{len} trees, {elapsed} elapsed, {estimate}",
        )
        .expect("a valid template")
        .with_key(
            "estimate",
            move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&estimate(
                    state.elapsed(),
                    seen.load(Ordering::Relaxed),
                    vertices,
                ));
            },
        )
        .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(trees as u64), target).with_style(style);
        bar.set_position(resumed as u64);
        Progress { bar, done }
    }

    /// A tree of `vertices` vertices finished (trees finish in any order).
    pub fn tree_done(&self, vertices: usize) {
        self.done.fetch_add(vertices as u64, Ordering::Relaxed);
        self.bar.inc(1);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// "eta 3m" from the time taken for the `done` vertices of `total`; before any tree finished,
/// a statement that there is no estimate yet.
fn estimate(elapsed: Duration, done: u64, total: u64) -> String {
    if done == 0 {
        return "eta after the first tree".into();
    }
    let left = total.saturating_sub(done) as f64 / done as f64;
    format!("eta {:#}", HumanDuration(elapsed.mul_f64(left)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::TermLike;
    use std::sync::Mutex;

    /// A terminal that keeps the last bar line drawn.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            if s.contains("trees") {
                *self.0.lock().unwrap() = s.to_string();
            }
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn estimate_is_time_per_vertex_times_vertices_left() {
        let s = Duration::from_secs;
        assert_eq!(estimate(s(500), 0, 100), "eta after the first tree");
        assert_eq!(estimate(s(60), 10, 100), "eta 9m");
        assert_eq!(estimate(s(60), 100, 100), "eta 0s");
        // A big tree done: its size, not the count of trees, sets the pace.
        assert_eq!(estimate(s(100), 90, 100), "eta 11s");
    }

    /// Drawn: no "eta 0s" while the first tree runs, a real estimate once one finished (10
    /// trees of 1000 vertices, the first after 1 s: about 9 s left).
    #[test]
    fn the_bar_shows_an_estimate_after_the_first_tree() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let p = Progress::with_target(target, 10, 0, 10_000);
        p.bar.force_draw();
        let line = screen.0.lock().unwrap().clone();
        assert!(
            line.contains("0/10 trees") && line.contains("eta after the first tree"),
            "{line}"
        );
        std::thread::sleep(Duration::from_secs(1));
        p.tree_done(1000);
        p.bar.force_draw();
        let line = screen.0.lock().unwrap().clone();
        assert!(line.contains("1/10 trees"), "{line}");
        let eta = line.split("eta ").nth(1).unwrap_or("");
        assert!(["9s", "10s", "11s", "12s"].contains(&eta.trim()), "{line}");
    }
}
