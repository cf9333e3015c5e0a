//! The HTML report: a report from a small sweep parses as HTML, holds every figure and
//! table, shows exactly the numbers of results.csv, needs no network, no script and no installed
//! font; `accuracy report DIR` re-renders it from the files alone. The bench report's tests are
//! in report_bench.rs.
//!
//! One module per concept: `page` (the page of a small sweep), `command` (`accuracy report`),
//! `bounds` and `fixture` (the checked-in sweep directory); the sweeps they share are here.

mod bounds;
mod command;
#[path = "../common/mod.rs"]
mod common;
mod fixture;
mod page;

use common::{accuracy, scratch};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One small sweep shared by the tests: 2 topologies × 2 targets × 2 trees × 150 vertices,
/// gensum weights.
fn sweep_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("sweep").join("s");
        let o = accuracy(&[
            "sweep",
            "--nodes",
            "150",
            "--trees",
            "2",
            "--cond",
            "1e2,1e6",
            "--topology",
            "chain,random-recursive",
            "--algos",
            "sequential,parallel,vectorial,vectorial-seqscan",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(
            o.status.success(),
            "sweep failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        dir
    })
}

/// results.csv as (header, records).
fn read_results(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(dir.join("results.csv")).unwrap();
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

/// A sweep directory checked in with the tests: `accuracy sweep --nodes 40 --trees 1 --cond
/// 1e2,1e6 --topology chain,star --algos sequential,parallel,vectorial --seed 5` and
/// `accuracy bounds-table --nodes 40 --trees 1 --cond 1e3 --topology chain,star` of commit
/// 79b15a8 (results.csv in its 25-column form, without the GPU and source columns).
fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report-sweep")
}
