//! One algorithm, one look: in every panel of every page (the sweep's report.html with every
//! algorithm of the registry, and bench.html with every GPU kernel), an algorithm's legend
//! glyph has the same colour and the same shape. A panel that holds two series of one
//! algorithm (its two ops, or a kernel and its CPU twin) draws the second in the open variant
//! of the shape, or, for a shape that is open already, in a lighter tint of the colour. And
//! runs correctly rounded at every node (0 ulps) are named so in their Fig. 10 panel's title:
//! their markers near the log axis's floor are the rounding's own error, not a lost ulp.
//!
//! The pages are read as headless Chromium renders them (`--dump-dom`): what a reader's
//! browser shows, not only the bytes written. Without Chromium the test is reported as
//! ignored, with the reason; with TREEFIX_REQUIRE_CHROMIUM=1 (CI) that is a failure.
//!
//! A custom harness (libtest-mimic): the built-in one cannot decide at run time to ignore.

mod common;
use common::html::{sel, text_of};
use common::{accuracy, scratch};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use scraper::{ElementRef, Html};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let args = Arguments::from_args();
    let trials = vec![Trial::ignorable_test(
        "one_marker_and_colour_per_algorithm_on_every_page",
        one_look,
    )];
    libtest_mimic::run(&args, trials).exit();
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|c| std::env::split_paths(&path).map(move |d| d.join(c)))
        .find(|p| p.is_file())
}

/// The DOM of `page` as headless Chromium renders it.
fn rendered(browser: &Path, page: &Path) -> Result<Html, Failed> {
    let profile = scratch("looks-profile");
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .output()
        .map_err(|e| format!("chromium: {e}"))?;
    let dom = String::from_utf8_lossy(&o.stdout).into_owned();
    if !o.status.success() || !dom.contains("</html>") {
        return Err(format!("chromium: {}", String::from_utf8_lossy(&o.stderr)).into());
    }
    Ok(Html::parse_document(&dom))
}

/// A legend glyph: its colour, its geometry (the element and its coordinates, without fill
/// or stroke), and whether it is drawn open (an outline on white).
#[derive(Debug, Clone, PartialEq)]
struct Glyph {
    color: String,
    geometry: String,
    open: bool,
}

fn glyph(li: ElementRef) -> Option<Glyph> {
    let shape = li.select(&sel("svg > *")).last()?;
    let e = shape.value();
    let fill = e.attr("fill").unwrap_or("");
    let stroke = e.attr("stroke").unwrap_or("");
    let color = if fill.starts_with('#') && fill != "#fff" {
        fill
    } else {
        stroke
    };
    let geometry: Vec<String> = ["d", "cx", "cy", "r", "x", "y", "width", "height"]
        .iter()
        .filter_map(|k| e.attr(k).map(|v| format!("{k}={v}")))
        .collect();
    Some(Glyph {
        color: color.to_ascii_lowercase(),
        geometry: format!("{} {}", e.name(), geometry.join(" ")),
        open: fill == "#fff",
    })
}

/// The registry name a legend label starts with (the longest: `vectorial-exact`, not
/// `vectorial`), else the panel's title when the label names an op.
fn algorithm_of(label: &str, title: &str, names: &[String]) -> Option<String> {
    let starts = |s: &str| {
        names
            .iter()
            .filter(|n| s == n.as_str() || s.starts_with(&format!("{n} ")))
            .max_by_key(|n| n.len())
            .cloned()
    };
    starts(label).or_else(|| {
        ["rootfix", "leaffix", "GPU kernel", "CPU twin"]
            .iter()
            .any(|op| label.starts_with(op))
            .then(|| starts(title))
            .flatten()
    })
}

/// `#rrggbb` mixed half with white, as the lighter tint of a second series.
fn lighter(hex: &str) -> String {
    let c = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    let mix = |x: u8| (f64::from(x) * 0.5 + 255.0 * 0.5).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(c(1)), mix(c(3)), mix(c(5)))
}

/// Every (page, panel, algorithm, label, glyph) of the pages' panels.
fn glyphs(pages: &[(&str, &Html)], names: &[String]) -> Vec<(String, String, Glyph)> {
    let mut out = Vec::new();
    for (page, doc) in pages {
        for panel in doc.select(&sel("div.panel")) {
            let title = panel
                .select(&sel("h4"))
                .next()
                .map(text_of)
                .unwrap_or_default();
            for li in panel.select(&sel("ul.legend li.series")) {
                let label = text_of(li);
                if label.starts_with("the answer") {
                    continue;
                }
                if let (Some(a), Some(g)) = (algorithm_of(&label, &title, names), glyph(li)) {
                    out.push((a, format!("{page}: {title}: {label}"), g));
                }
            }
        }
    }
    out
}

fn sweep_report() -> PathBuf {
    let dir = scratch("looks").join("s");
    let names = analysis::Algorithm::names().join(",");
    let o = accuracy(&[
        "sweep",
        "--cond",
        "1e2,1e7",
        "--trees",
        "1",
        "--nodes",
        "300",
        "--topology",
        "chain,star",
        "--algos",
        &names,
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir.join("report.html")
}

/// bench.html of a synthetic bench.csv: every GPU kernel on chains of two sizes, both ops,
/// and the sequential CPU baseline.
fn bench_report() -> PathBuf {
    let dir = scratch("looks-bench");
    let mut csv = analysis::records::bench::BenchRecord::columns().join(",") + "\n";
    let mut algorithms = vec!["sequential"];
    algorithms.extend(
        analysis::Algorithm::ALL
            .iter()
            .filter(|a| a.has_gpu_kernel())
            .map(|a| a.name()),
    );
    for n in [1024usize, 4096] {
        for op in ["rootfix", "leaffix"] {
            for (i, a) in algorithms.iter().enumerate() {
                let backend = if *a == "sequential" {
                    "cpu"
                } else {
                    "gpu: test"
                };
                let s = (1.0 + i as f64) * 1e-9 * n as f64;
                csv += &format!(
                    "chain,{n},{},{op},{a},{backend},{s},{s},{s},0,0,0,0,3\n",
                    n - 1
                );
            }
        }
    }
    std::fs::write(dir.join("bench.csv"), csv).unwrap();
    reports::write_bench_report(&dir).unwrap().path
}

fn one_look() -> Result<Completion, Failed> {
    let Some(browser) = chromium() else {
        let reason = "chromium not installed (apt-get install chromium)";
        return if std::env::var("TREEFIX_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1") {
            Err(format!("TREEFIX_REQUIRE_CHROMIUM=1, but {reason}").into())
        } else {
            Ok(Completion::ignored_with(reason))
        };
    };
    let names: Vec<String> = analysis::Algorithm::names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let report = rendered(&browser, &sweep_report())?;
    let bench = rendered(&browser, &bench_report())?;
    // Exact zeros are said, not drawn on the log axis's floor: vectorial-exact's Fig. 10 panel.
    let exact_panel = report
        .select(&sel("#fig-max-rel div.panel h4"))
        .map(text_of)
        .find(|t| t.starts_with("vectorial-exact"));
    if !exact_panel
        .as_deref()
        .is_some_and(|t| t.starts_with("vectorial-exact — correctly rounded on every tree (0 ulps"))
    {
        return Err(format!("vectorial-exact's Fig. 10 panel: {exact_panel:?}").into());
    }
    let all = glyphs(&[("report.html", &report), ("bench.html", &bench)], &names);
    // Every algorithm in several panels (the Pareto panels, Fig. 10, the per-node figures, …).
    if all.len() < 3 * names.len() {
        return Err(format!("only {} legend glyphs of algorithms", all.len()).into());
    }
    // The first look of each algorithm: filled (or its own open shape) in its colour.
    let mut looks: BTreeMap<String, (String, Glyph)> = BTreeMap::new();
    for (a, where_, g) in &all {
        looks
            .entry(a.clone())
            .or_insert((where_.clone(), g.clone()));
    }
    if looks.len() != names.len() {
        return Err(format!("drawn: {:?}, registry: {names:?}", looks.keys()).into());
    }
    for (a, where_, g) in &all {
        let (first_at, first) = &looks[a];
        let same_shape = g.geometry == first.geometry;
        let same_colour =
            g.color == first.color || (g.open == first.open && g.color == lighter(&first.color));
        if !(same_shape && same_colour) {
            return Err(
                format!("{a} looks two ways: {first:?} at {first_at}, {g:?} at {where_}").into(),
            );
        }
    }
    // No two algorithms look alike.
    let firsts: Vec<(&String, &Glyph)> = looks.iter().map(|(a, (_, g))| (a, g)).collect();
    for (i, (a, x)) in firsts.iter().enumerate() {
        for (b, y) in &firsts[i + 1..] {
            if x.geometry == y.geometry && x.open == y.open && x.color == y.color {
                return Err(format!("{a} and {b} look alike: {x:?}").into());
            }
        }
    }
    Ok(Completion::Completed)
}
