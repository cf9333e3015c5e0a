//! The top of the main job's report, as a reader first sees it. A small sweep with the main
//! job's defaults (every default but the sizes, so the algorithms are `sweep`'s default).
//!
//! - Structure: the answer names `vectorial-exact`, every time in the answer says whether it is
//!   a GPU kernel's or a CPU twin's, and the Pareto figure has one point per algorithm.
//! - Screenshot: headless Chromium renders the top of the page at 1,400 px
//!   (`scripts/screenshot.sh`), and the picture is not blank. Without Chromium that test is
//!   reported as ignored, with the reason; with TREEFIX_REQUIRE_CHROMIUM=1 (CI) that is a
//!   failure.
//!
//! A custom harness (libtest-mimic): the built-in one cannot decide at run time to ignore.

mod common;
use common::html::{parse, sel, text_of};
use common::{accuracy, scratch};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        Trial::test("answer_names_vectorial_exact", answer_names_vectorial_exact),
        Trial::test("every_time_says_gpu_or_cpu", every_time_says_gpu_or_cpu),
        Trial::test(
            "pareto_figure_has_one_point_per_algorithm",
            pareto_figure_has_one_point_per_algorithm,
        ),
        Trial::ignorable_test("screenshot_of_the_top_at_1400_px", screenshot),
    ];
    libtest_mimic::run(&args, trials).exit();
}

/// The main job's sweep, small: 3 targets × 2 chains of 2,000 vertices.
fn report() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("main-job").join("s");
        let o = accuracy(&[
            "sweep",
            "--points",
            "3",
            "--trees",
            "2",
            "--nodes",
            "2000",
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
    .as_path()
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if ok { Ok(()) } else { Err(what().into()) }
}

fn answer_names_vectorial_exact() -> Result<(), Failed> {
    let (_, doc) = parse(&report().join("report.html"));
    let sentences: Vec<String> = doc
        .select(&sel("#answer-sentences > li > .choice"))
        .map(text_of)
        .collect();
    check(sentences.len() == 2, || format!("{sentences:#?}"))?;
    for s in &sentences {
        check(s.contains(": use vectorial-exact — "), || {
            format!("the answer does not name vectorial-exact: {s}")
        })?;
        // The choice and its price first, in a line a reader takes in at once.
        check(s.chars().count() <= 160, || {
            format!("{} characters: {s}", s.chars().count())
        })?;
    }
    // `B` is the number of bits of --max-lost-bits, never a directory.
    let all = text_of(doc.select(&sel("#answer")).next().ok_or("no answer")?);
    check(
        !all.contains("--out B") && !all.contains("B/bench.csv"),
        || format!("B names a directory: {all}"),
    )?;
    Ok(())
}

fn every_time_says_gpu_or_cpu() -> Result<(), Failed> {
    let (_, doc) = parse(&report().join("report.html"));
    let mut times = 0;
    for td in doc.select(&sel("table.answer tfoot td.time")) {
        let place = td.select(&sel(".place")).next().map(text_of);
        check(
            matches!(place.as_deref(), Some("GPU kernel" | "CPU twin")),
            || format!("a time without its place: {}", text_of(td)),
        )?;
        times += 1;
    }
    // Four algorithms, two ops, all timed by the sweep.
    check(times == 8, || {
        format!("{times} times in the answer's tables")
    })?;
    for s in doc.select(&sel("#answer-sentences li")).map(text_of) {
        check(
            !s.contains("ns per vertex") || s.contains("CPU twin") || s.contains("GPU kernel"),
            || format!("a sentence quotes a time without its place: {s}"),
        )?;
    }
    for caption in doc.select(&sel("table.answer caption")).map(text_of) {
        check(
            caption.contains("fastest CPU twin") || caption.contains("fastest GPU kernel"),
            || format!("a caption without the kind of its ratios: {caption}"),
        )?;
    }
    Ok(())
}

fn pareto_figure_has_one_point_per_algorithm() -> Result<(), Failed> {
    let (_, doc) = parse(&report().join("report.html"));
    for op in ["rootfix", "leaffix"] {
        let header: Vec<String> = doc
            .select(&sel(&format!("#answer-{op} thead th.num")))
            .map(text_of)
            .skip(1) // the κ band
            .collect();
        let panel = doc
            .select(&sel(&format!("#pareto-{op}")))
            .next()
            .ok_or("no Pareto panel")?;
        let points: Vec<String> = panel
            .select(&sel(".legend li.series"))
            .map(text_of)
            .filter(|l| !l.starts_with("the answer: "))
            .collect();
        check(points.len() == header.len(), || {
            format!("{op}: points {points:?} for algorithms {header:?}")
        })?;
        for (p, a) in points.iter().zip(&header) {
            check(p.starts_with(&format!("{a} (")), || {
                format!("{p} is not {a}")
            })?;
        }
        let marked: Vec<String> = panel
            .select(&sel(".legend li.series"))
            .map(text_of)
            .filter(|l| l.starts_with("the answer: "))
            .collect();
        check(marked == ["the answer: vectorial-exact"], || {
            format!("{op}: answer marked {marked:?}")
        })?;
        check(
            panel
                .select(&sel(".legend li.line"))
                .any(|l| text_of(l) == "Pareto front"),
            || format!("{op}: no Pareto front"),
        )?;
    }
    Ok(())
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|c| std::env::split_paths(&path).map(move |d| d.join(c)))
        .find(|p| p.is_file())
}

fn screenshot() -> Result<Completion, Failed> {
    let required = std::env::var("TREEFIX_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1");
    if chromium().is_none() {
        let reason = "chromium not installed (apt-get install chromium)";
        return if required {
            Err(format!("TREEFIX_REQUIRE_CHROMIUM=1, but {reason}").into())
        } else {
            Ok(Completion::ignored_with(reason))
        };
    }
    let page = report().join("report.html");
    let png = report().join("report-top.png");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new(root.join("scripts/screenshot.sh"))
        .args([page.as_os_str(), png.as_os_str()])
        .args(["1400", "1200"])
        .output()
        .map_err(|e| format!("screenshot.sh: {e}"))?;
    check(o.status.success(), || {
        format!(
            "screenshot.sh failed: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    })?;
    let bytes = std::fs::read(&png).map_err(|e| format!("{}: {e}", png.display()))?;
    // A PNG: the signature, then the IHDR chunk with the width and height.
    check(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 24,
        || "not a PNG".into(),
    )?;
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    check((be(16), be(20)) == (1400, 1200), || {
        format!("{} × {} pixels", be(16), be(20))
    })?;
    // A blank (or nearly blank) page compresses to a few kilobytes; the answer's text, the
    // Pareto panels and the shaded table do not.
    check(bytes.len() > 40_000, || {
        format!("{} bytes: a blank page?", bytes.len())
    })?;
    Ok(Completion::Completed)
}
