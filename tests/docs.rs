//! No forwarding references: every Rust path and every file of the project that the shaders'
//! comments and the `code spans` of docs/design.md and docs/gpu.md name still exists, and so
//! does every project path and Rust path that README.md, docs/cli.md, docs/findings.md and
//! docs/python.md name.
//!
//! A name is checked as follows (see `dangling`):
//! - a file (`src/gpu/mod.rs`, `leaffix_level.wgsl`, `shaders/`): it exists, under the root
//!   or under a crate's directory, and a bare file name anywhere in the project;
//! - a Rust path (`analysis::scan_plan::TILE`, `gpu::layout`, `Algorithm::ALL`): its
//!   leading segments are modules of one of the crates (a `name.rs` or `name/mod.rs`), and
//!   the first segment that is not a module is named in that module's code, the later ones
//!   somewhere in the project's code; a path that starts with a type instead needs that type
//!   defined somewhere; `file.rs::item` needs the file and the item in it. Paths into other
//!   crates (std, wgpu, …) are not checked.
//!
//! Deliberately simple: names are found by words in the code (comments left out), not by
//! resolving Rust; it catches what a rename or a removal leaves behind.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The crates' source directories, the root crate first.
const CRATES: [(&str, &str); 4] = [
    ("treefix_accuracy", "src"),
    ("reports", "reports/src"),
    ("analysis", "analysis/src"),
    ("generators", "generators/src"),
];

/// Top-level directories of the project: a name that starts with one is a path (and
/// `reports/src/`, `reports/assets/`: not the outputs that go to `reports/` by default).
const TOP: [&str; 10] = [
    "src",
    "analysis",
    "generators",
    "shaders",
    "scripts",
    "tests",
    "docs",
    "benches",
    "examples",
    ".github",
];

/// Extensions of the project's own files (results.csv, report.html are outputs, not files).
const EXTENSIONS: [&str; 5] = ["rs", "wgsl", "md", "sh", "toml"];

/// Every file of the project, but the build's and git's.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap_or("");
        if p.is_dir() {
            if !matches!(name, "target" | ".git") {
                files(&p, out);
            }
        } else {
            out.push(p);
        }
    }
}

/// A Rust file's code, comments left out.
fn code(p: &Path) -> String {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn has_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(is_ident)
            && !text[i + word.len()..].chars().next().is_some_and(is_ident)
    })
}

struct Project {
    files: Vec<PathBuf>,
    /// Code of every Rust file.
    rust: Vec<(PathBuf, String)>,
    /// Crates the project depends on (their paths are not checked), std's among them.
    external: BTreeSet<String>,
}

impl Project {
    fn load() -> Project {
        let mut all = Vec::new();
        files(root(), &mut all);
        let rust = all
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .map(|p| (p.clone(), code(p)))
            .collect();
        // The standard library, and the primitive types (`u32::MAX`).
        let mut external: BTreeSet<String> = [
            "std", "core", "alloc", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
            "i64", "i128", "isize", "f32", "f64", "bool", "char", "str",
        ]
        .map(String::from)
        .into();
        for manifest in all.iter().filter(|p| p.ends_with("Cargo.toml")) {
            let mut in_deps = false;
            for line in std::fs::read_to_string(manifest).unwrap().lines() {
                let line = line.trim();
                if line.starts_with('[') {
                    in_deps = line.contains("dependencies");
                } else if in_deps && let Some((key, _)) = line.split_once('=') {
                    external.insert(key.trim().replace('-', "_"));
                }
            }
        }
        for (name, _) in CRATES {
            external.remove(name);
        }
        Project {
            files: all,
            rust,
            external,
        }
    }

    /// Why `name` (a file or a Rust path) names nothing, or None when it names something.
    fn dangling(&self, name: &str) -> Option<String> {
        if name.contains("::") {
            self.dangling_path(name)
        } else {
            self.dangling_file(name)
        }
    }

    fn dangling_file(&self, name: &str) -> Option<String> {
        let found = if name.contains('/') {
            [".", "analysis", "generators"]
                .iter()
                .any(|base| root().join(base).join(name).exists())
        } else {
            self.files.iter().any(|p| p.ends_with(name))
        };
        (!found).then(|| format!("no file {name}"))
    }

    fn dangling_path(&self, name: &str) -> Option<String> {
        let segs: Vec<&str> = name.split("::").collect();
        if let Some(file) = segs[0].strip_suffix(".rs") {
            let file = format!("{file}.rs");
            let Some((_, text)) = self.rust.iter().find(|(p, _)| p.ends_with(&file)) else {
                return Some(format!("no file {file}"));
            };
            return segs[1..]
                .iter()
                .find(|s| !has_word(text, s))
                .map(|s| format!("no {s} in {file}"));
        }
        if self.external.contains(segs[0]) {
            return None;
        }
        let crates: Vec<&str> = match CRATES.iter().find(|(c, _)| *c == segs[0]) {
            Some(&(_, dir)) => vec![dir],
            None if matches!(segs[0], "crate" | "self" | "super") => {
                CRATES.iter().map(|&(_, d)| d).collect()
            }
            None => {
                let why = CRATES.iter().map(|&(_, dir)| self.in_crate(dir, &segs));
                let why: Vec<String> = why.collect::<Option<_>>()?;
                // Not a path from a crate's root: one that starts with a type of ours.
                let is_type = segs[0].starts_with(|c: char| c.is_ascii_uppercase());
                return if is_type && self.defines_type(segs[0]) {
                    segs[1..]
                        .iter()
                        .find(|s| !self.rust.iter().any(|(_, t)| has_word(t, s)))
                        .map(|s| format!("no {s} in the code"))
                } else {
                    Some(why.join("; "))
                };
            }
        };
        let skip = usize::from(!matches!(segs[0], "self" | "super"));
        let mut why = Vec::new();
        for dir in crates {
            match self.in_module(&root().join(dir), &segs[skip..], true) {
                None => return None,
                Some(w) => why.push(w),
            }
        }
        Some(why.join("; "))
    }

    /// None when `segs` names something from the crate in `dir`, from its root or, when the
    /// first segment is not a module of the root, from any module of that name in the crate
    /// (`contraction::SEED`).
    fn in_crate(&self, dir: &str, segs: &[&str]) -> Option<String> {
        let dir = root().join(dir);
        let why = self.in_module(&dir, segs, true)?;
        let mut subdirs = Vec::new();
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p.clone());
                    subdirs.push(p);
                }
            }
        }
        match subdirs
            .iter()
            .map(|d| self.in_module(d, segs, false))
            .find(|w| w.is_none())
        {
            Some(None) => None,
            _ => Some(why),
        }
    }

    /// None when `segs` names something from the module directory `dir`: modules (files),
    /// then an item named in the last module's code (or in the files of its directory: glob
    /// re-exports), then names found anywhere in the code. The crate root's modules may be
    /// inline; elsewhere the first segment must be a module file.
    fn in_module(&self, dir: &Path, segs: &[&str], crate_root: bool) -> Option<String> {
        let mut dir = dir.to_path_buf();
        let mut files: Vec<PathBuf> = ["lib.rs", "main.rs"]
            .iter()
            .map(|f| dir.join(f))
            .filter(|f| f.exists())
            .collect();
        let mut rest = segs;
        while let Some((first, tail)) = rest.split_first() {
            let flat = dir.join(format!("{first}.rs"));
            let nested = dir.join(first).join("mod.rs");
            let Some(next) = [flat, nested].into_iter().find(|f| f.exists()) else {
                break;
            };
            dir = dir.join(first);
            files = vec![next];
            if let Ok(entries) = std::fs::read_dir(&dir) {
                files.extend(entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()));
            }
            rest = tail;
        }
        let (item, tail) = rest.split_first()?;
        if !crate_root && rest.len() == segs.len() {
            return Some(format!("no module {item} in {}", rel(&dir)));
        }
        // A lower-case name followed by more is a module: an inline one, if not a file.
        let module = !tail.is_empty() && item.starts_with(|c: char| c.is_ascii_lowercase());
        let named = |word: &str| files.iter().any(|f| has_word(&code(f), word));
        if module && !named(&format!("mod {item}")) {
            return Some(format!("no module {item} in {}", rel(&dir)));
        }
        if !named(item) {
            return Some(format!("no {item} in {}", rel(&dir)));
        }
        tail.iter()
            .find(|s| !self.rust.iter().any(|(_, t)| has_word(t, s)))
            .map(|s| format!("no {s} in the code"))
    }

    /// Whether some Rust file defines `name` as a type or a trait.
    fn defines_type(&self, name: &str) -> bool {
        let kinds = ["struct", "enum", "trait", "type", "union"];
        self.rust
            .iter()
            .any(|(_, t)| kinds.iter().any(|k| has_word(t, &format!("{k} {name}"))))
    }
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The names a piece of text holds: Rust paths (`a::b`), project files and directories.
fn names(text: &str) -> Vec<String> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || "_:./-".contains(c);
    text.split(|c: char| !is_name(c))
        .map(|t| t.trim_start_matches([':', '.', '-']))
        .map(|t| t.trim_end_matches([':', '.', ',', '-']))
        .filter(|t| {
            let ext = t.rsplit_once('.');
            let file = ext.is_some_and(|(stem, e)| {
                !stem.is_empty() && !stem.ends_with('/') && EXTENSIONS.contains(&e)
            });
            let dir = t.split_once('/').is_some_and(|(top, _)| TOP.contains(&top))
                || t.starts_with("reports/src/")
                || t.starts_with("reports/assets/");
            let path = t.contains("::") && !t.starts_with("::") && !t.contains("..");
            (path || file || dir) && !t.contains("://")
        })
        .map(String::from)
        .collect()
}

/// Inline code spans of a Markdown file, fenced blocks left out, with their line numbers.
fn code_spans(md: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for (i, line) in md.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let parts: Vec<&str> = line.split('`').collect();
        for span in parts.iter().skip(1).step_by(2).take((parts.len() - 1) / 2) {
            spans.push((i + 1, span.to_string()));
        }
    }
    spans
}

/// Every (where, name) to check: the comments of every shader, the code spans of the docs.
fn references() -> Vec<(String, String)> {
    let mut refs = Vec::new();
    let mut shaders: Vec<PathBuf> = std::fs::read_dir(root().join("shaders"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    shaders.sort();
    for shader in shaders {
        let text = std::fs::read_to_string(&shader).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some((_, comment)) = line.split_once("//") {
                for name in names(comment) {
                    refs.push((format!("{}:{}", rel(&shader), i + 1), name));
                }
            }
        }
    }
    for doc in ["docs/design.md", "docs/gpu.md"] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for (line, span) in code_spans(&text) {
            for name in names(&span) {
                refs.push((format!("{doc}:{line}"), name));
            }
        }
    }
    // The user's docs also name files the user makes (`results.csv`, `accuracy.json`): of
    // theirs, only paths into the project and Rust paths are checked.
    for doc in [
        "README.md",
        "docs/cli.md",
        "docs/findings.md",
        "docs/python.md",
    ] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for (line, span) in code_spans(&text) {
            for name in names(&span) {
                if name.contains('/') || name.contains("::") {
                    refs.push((format!("{doc}:{line}"), name));
                }
            }
        }
    }
    refs
}

#[test]
fn shaders_and_docs_name_only_what_exists() {
    let project = Project::load();
    let refs = references();
    assert!(refs.len() > 20, "too few names found: {refs:?}");
    let dangling: Vec<String> = refs
        .iter()
        .filter_map(|(at, name)| {
            project
                .dangling(name)
                .map(|why| format!("{at}: `{name}`: {why}"))
        })
        .collect();
    assert!(
        dangling.is_empty(),
        "{} dangling names:\n{}",
        dangling.len(),
        dangling.join("\n")
    );
}

/// The checker itself: what exists passes, what does not fails.
#[test]
fn the_checker_tells_names_that_exist_from_others() {
    let p = Project::load();
    for good in [
        "analysis::scan_plan::TILE",
        "scan_plan::TILE",
        "analysis::orders::program::AdditionProgram::eval",
        "crate::gpu::Gpu",
        "Algorithm::ALL",
        "std::f32::EPSILON",
        "shaders/leaffix_level.wgsl",
        "leaffix_level.wgsl",
        "src/cli/",
        "analysis/src/bounds/",
        "src/gpu/mod.rs",
    ] {
        assert_eq!(p.dangling(good), None, "{good}");
    }
    for bad in [
        "kernels::sequential::gather",
        "analysis::scan_plan::NO_SUCH_ITEM",
        "analysis::no_such_module::TILE",
        "NoSuchType::new",
        "bounds.rs::euler",
        "shaders/vectorial_write.wgsl",
        "src/kernels/",
        "no_such_shader.wgsl",
    ] {
        assert!(p.dangling(bad).is_some(), "{bad}");
    }
    assert_eq!(
        names("CPU twin: kernels::parallel::leaffix (sequential::gather), see src/gpu/"),
        [
            "kernels::parallel::leaffix",
            "sequential::gather",
            "src/gpu/"
        ]
    );
}
