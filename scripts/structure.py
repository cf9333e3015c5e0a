#!/usr/bin/env python3
"""Checks of the code's structure that the compiler does not make, over the workspace's
production code (inline `#[cfg(test)]` modules and `tests.rs` files left out):

- dead public items: a `pub` fn, struct, enum, trait, type, const or static whose name appears
  nowhere else in the workspace (sources, tests, benches, examples; comments do not count) nor
  in a Rust example of the documentation (README.md, docs/*.md: the API a user is shown);
- a library that prints: `print!`, `println!`, `eprint!`, `eprintln!` or `dbg!` outside the
  binary (src/main.rs, src/cli/) and the Python layer (python/src): a library returns what it
  has to say (crate::notice), its callers decide what to show;
- sizes: no function longer than 120 lines, no file longer than 600 lines;
- an algorithm named (its constant, or its name as a string) in more than 5 production files
  (scripts/algorithm-names.py lists the files): what differs belongs in its descriptor.

Prints each finding as `path:line: what`, then exits 1 if there is any, 0 otherwise.

    python3 scripts/structure.py
"""

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("import_cycles", ROOT / "scripts" / "import-cycles.py")
cycles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cycles)
_spec = importlib.util.spec_from_file_location("algorithm_names", ROOT / "scripts" / "algorithm-names.py")
algorithm_names = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(algorithm_names)

# Where the production code is; the binary and the Python layer may print.
LIBRARIES = ["src", "generators/src", "analysis/src", "reports/src"]
PRINTERS = ["src/main.rs", "src/cli/", "python/src/"]
EVERYWHERE = ["src", "generators", "analysis", "reports", "python/src", "tests", "benches", "examples"]
MAX_FUNCTION = 120
MAX_FILE = 600

DEFINITION = re.compile(
    r"\bpub(?:\([^)]*\))?\s+(?:(?:const|unsafe|async|extern\s+\"\w+\")\s+)*"
    r"(fn|struct|enum|trait|type|const|static)\s+([A-Za-z_]\w*)"
)
PRINT = re.compile(r"\b(print|println|eprint|eprintln|dbg)!\s*\(")
FUNCTION = re.compile(r"^[ \t]*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|unsafe|async)\s+)*fn\s+(\w+)", re.M)


def production_files(folders):
    for folder in folders:
        for f in sorted((ROOT / folder).rglob("*.rs")):
            rel = f.relative_to(ROOT).as_posix()
            if "/tests/" in rel or f.stem == "tests" or "/target/" in rel:
                continue
            yield f


def code_of(f: Path) -> str:
    """The file without comments, string literals or test modules, lines kept in place."""
    code = cycles.strip_comments_and_strings(f.read_text())
    return blank_test_modules(code)


def blank_test_modules(code: str) -> str:
    """`cycles.without_test_modules`, but with the module's lines left as blank lines, so line
    numbers still match the file."""
    while m := cycles.TEST_MOD.search(code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        code = code[: m.start()] + "\n" * code[m.start() : i].count("\n") + code[i:]
    return code


def line_of(code: str, pos: int) -> int:
    return code.count("\n", 0, pos) + 1


def dead_items(findings):
    uses = {}
    for folder in EVERYWHERE:
        for f in (ROOT / folder).rglob("*.rs"):
            if "target" in f.parts:
                continue
            # Comments out, strings kept: a name in an attribute's string (serde's
            # `deserialize_with`) is a use.
            text = re.sub(r"//[^\n]*", "", f.read_text())
            for w in re.findall(r"[A-Za-z_]\w*", text):
                uses[w] = uses.get(w, 0) + 1
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```rust\n(.*?)```", page.read_text(), re.S):
            for w in re.findall(r"[A-Za-z_]\w*", block):
                uses[w] = uses.get(w, 0) + 1
    for f in production_files(LIBRARIES + ["python/src"]):
        code = code_of(f)
        for m in DEFINITION.finditer(code):
            if uses.get(m.group(2), 0) <= 1:
                findings.append(f"{rel(f)}:{line_of(code, m.start())}: dead public {m.group(1)} {m.group(2)}: nothing uses it")


def library_prints(findings):
    for f in production_files(LIBRARIES):
        if any(rel(f).startswith(p) for p in PRINTERS):
            continue
        code = code_of(f)
        for m in PRINT.finditer(code):
            findings.append(f"{rel(f)}:{line_of(code, m.start())}: {m.group(1)}! in a library: return it (crate::notice) and let the caller show it")


def sizes(findings):
    for f in production_files(LIBRARIES + ["python/src"]):
        lines = f.read_text().count("\n")
        if lines > MAX_FILE:
            findings.append(f"{rel(f)}:1: {lines} lines, over {MAX_FILE}: one concept per file")
        code = code_of(f)
        for m in FUNCTION.finditer(code):
            body = code.find("{", m.end())
            semicolon = code.find(";", m.end())
            if body < 0 or (0 <= semicolon < body):
                continue  # a declaration without a body (a trait's)
            depth, i = 1, body + 1
            while i < len(code) and depth:
                depth += {"{": 1, "}": -1}.get(code[i], 0)
                i += 1
            n = line_of(code, i) - line_of(code, m.start()) + 1
            if n > MAX_FUNCTION:
                findings.append(f"{rel(f)}:{line_of(code, m.start())}: fn {m.group(1)} is {n} lines, over {MAX_FUNCTION}")


def rel(f: Path) -> str:
    return f.relative_to(ROOT).as_posix()


def main() -> int:
    findings = []
    dead_items(findings)
    library_prints(findings)
    sizes(findings)
    findings.extend(algorithm_names.findings())
    for line in findings:
        print(line)
    print(f"structure: {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
