//! README.md, docs/cli.md and docs/measurements.md against the command line itself: every
//! `accuracy COMMAND --flag` they show names a command and flags that `accuracy COMMAND --help`
//! lists, and docs/cli.md has a section per command that names every flag of its `--help`.
//! What a rename or a removed flag leaves behind in the docs fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args(args)
        .arg("--help")
        .output()
        .expect("the accuracy binary runs");
    assert!(out.status.success(), "accuracy {args:?} --help failed");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The subcommands listed under "Commands:" in `accuracy --help` (but `help`).
fn commands() -> Vec<String> {
    let top = help(&[]);
    let mut in_commands = false;
    let mut out = Vec::new();
    for line in top.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            if !line.starts_with("  ") {
                break;
            }
            // "  sweep         The paper's …"; wrapped descriptions are indented further.
            if line.starts_with("   ") {
                continue;
            }
            let name = line.split_whitespace().next().unwrap_or("");
            if !name.is_empty() && name != "help" {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// The long flags a help text declares: an option line starts with `-x, --flag` or `--flag`.
fn declared_flags(help: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for line in help.lines() {
        let t = line.trim_start();
        let t = match t.strip_prefix('-') {
            Some(rest) if !rest.starts_with('-') => {
                // "-q, --quiet"
                match rest.split_once(", ") {
                    Some((_, long)) => long,
                    None => continue,
                }
            }
            _ => t,
        };
        if let Some(rest) = t.strip_prefix("--") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if !name.is_empty() {
                flags.insert(format!("--{name}"));
            }
        }
    }
    flags
}

/// The long flags named in a piece of text.
fn named_flags(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before_ok =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'-');
        let name: String = text[start + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if before_ok && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            out.push(format!("--{name}"));
        }
        i = start + 2 + name.len();
    }
    out
}

/// The code of a Markdown file: its inline code spans and its fenced blocks' lines (a line
/// ending in `\` joined with the next), each with its line number.
fn code(md: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in md.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let (at, mut text) = pending.take().unwrap_or((i + 1, String::new()));
            text.push_str(line.trim_end_matches('\\'));
            text.push(' ');
            if line.ends_with('\\') {
                pending = Some((at, text));
            } else {
                out.push((at, text));
            }
            continue;
        }
        let parts: Vec<&str> = line.split('`').collect();
        for span in parts.iter().skip(1).step_by(2).take((parts.len() - 1) / 2) {
            out.push((i + 1, span.to_string()));
        }
    }
    out
}

/// Every `accuracy COMMAND …` in a piece of code: the command and the text after it up to the
/// end of the shell command (`|`, `;`, `&&`, `&`, `>`).
fn invocations(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("accuracy ") {
        let before = rest[..at].chars().next_back();
        let tail = &rest[at + "accuracy ".len()..];
        rest = tail;
        if before.is_some_and(|c| {
            c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '/' || c == '.'
        }) {
            continue;
        }
        let command: String = tail
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if command.is_empty() || command.starts_with('-') {
            continue;
        }
        // The shell command ends at an operator, or where prose names the next command.
        let end = tail
            .find(['|', ';', '&', '>'])
            .into_iter()
            .chain(tail.find(" accuracy "))
            .min()
            .unwrap_or(tail.len());
        out.push((command, tail[..end].to_string()));
    }
    out
}

struct Cli {
    flags: BTreeMap<String, BTreeSet<String>>,
}

impl Cli {
    fn load() -> Cli {
        let mut flags = BTreeMap::new();
        for command in commands() {
            let declared = declared_flags(&help(&[&command]));
            flags.insert(command, declared);
        }
        assert!(
            flags.len() >= 10,
            "too few commands found: {:?}",
            flags.keys()
        );
        Cli { flags }
    }

    /// What is wrong with `accuracy COMMAND ARGS`, if anything.
    fn check(&self, command: &str, args: &str) -> Vec<String> {
        let Some(declared) = self.flags.get(command) else {
            return vec![format!("no command `accuracy {command}`")];
        };
        named_flags(args)
            .into_iter()
            .filter(|f| f != "--help" && f != "--version" && !declared.contains(f))
            .map(|f| format!("`accuracy {command}` has no {f}"))
            .collect()
    }
}

#[test]
fn readme_and_cli_reference_show_only_real_commands_and_flags() {
    let cli = Cli::load();
    let mut problems = Vec::new();
    let mut seen = 0;
    for doc in ["README.md", "docs/cli.md", "docs/measurements.md"] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for (line, code) in code(&text) {
            for (command, args) in invocations(&code) {
                seen += 1;
                for why in cli.check(&command, &args) {
                    problems.push(format!("{doc}:{line}: {why}"));
                }
            }
        }
    }
    assert!(seen > 20, "too few invocations found ({seen})");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// docs/cli.md: a `## accuracy COMMAND` section per command, naming each of its flags.
#[test]
fn cli_reference_names_every_flag_of_every_command() {
    let cli = Cli::load();
    let text = std::fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let mut sections: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            current = title
                .trim_matches('`')
                .strip_prefix("accuracy ")
                .map(|c| c.split_whitespace().next().unwrap_or("").to_string());
            continue;
        }
        if let Some(c) = &current {
            sections.entry(c.clone()).or_default().push_str(line);
            sections.entry(c.clone()).or_default().push('\n');
        }
    }
    let mut problems = Vec::new();
    for (command, declared) in &cli.flags {
        let Some(section) = sections.get(command) else {
            problems.push(format!(
                "docs/cli.md has no section `## accuracy {command}`"
            ));
            continue;
        };
        let named: BTreeSet<String> = named_flags(section).into_iter().collect();
        for flag in declared {
            if flag != "--help" && flag != "--version" && !named.contains(flag) {
                problems.push(format!(
                    "docs/cli.md, accuracy {command}: {flag} not described"
                ));
            }
        }
    }
    for command in sections.keys() {
        if !cli.flags.contains_key(command) {
            problems.push(format!(
                "docs/cli.md describes `accuracy {command}`, which does not exist"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checker itself: it finds commands and flags, and tells real ones from others.
#[test]
fn the_checker_tells_real_flags_from_others() {
    let cli = Cli::load();
    assert!(
        cli.check("sweep", "--cond 1e1..1e10 --nodes 1e6")
            .is_empty()
    );
    assert_eq!(cli.check("sweep", "--no-such-flag 3").len(), 1);
    assert_eq!(cli.check("no-such-command", "").len(), 1);
    assert_eq!(
        invocations("cargo install --path . && accuracy run --topology chain | head"),
        [("run".to_string(), "run --topology chain ".to_string())]
    );
    assert!(invocations("treefix-accuracy score").is_empty());
    assert_eq!(
        invocations("accuracy bench --out B then accuracy report DIR --bench B").len(),
        2
    );
    assert!(cli.check("bench", "bench --out B then").is_empty());
    assert_eq!(
        invocations("accuracy bench --out B then accuracy report DIR --bench B").len(),
        2
    );
    assert!(cli.check("bench", "bench --out B then").is_empty());
    assert_eq!(
        named_flags("a --json -, b--c, --max-lost-bits 12"),
        ["--json", "--max-lost-bits"]
    );
    let joined = code("```sh\naccuracy sweep --cond 1e2 \\\n  --nodes 5\n```\n");
    assert_eq!(joined.len(), 1);
    assert!(joined[0].1.contains("--nodes 5"));
}
