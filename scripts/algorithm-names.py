#!/usr/bin/env python3
"""Where each algorithm is named in the workspace's production code.

An algorithm is named by its constant (`Algorithm::CONTRACTION`) or by its name as a whole
string literal (`"contraction"`): what code compares with or looks up. With --words, the name
as a word of any string counts too (`"vectorial-exact limbs={}"`, a caption's "the parallel
algorithm"): prose, shown for reading, no finding. Comments do not count, nor tests (inline `#[cfg(test)]` modules, `tests.rs` files, tests/
folders). The algorithms are read from the registry (analysis/src/algorithms/mod.rs and the
descriptor files), so a new one is counted without editing this script.

What differs between algorithms belongs in their descriptor's hooks; generic code asks the
descriptor. An algorithm named in more than MAX_FILES files is a finding.

Prints, per algorithm, the number of files and the files, then exits 1 if any algorithm is
named in more than MAX_FILES files, 0 otherwise (always 0 with --words). scripts/structure.py
reports the same findings.

    python3 scripts/algorithm-names.py [--quiet] [--words]
"""

import argparse
import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("import_cycles", ROOT / "scripts" / "import-cycles.py")
cycles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cycles)

FOLDERS = ["src", "analysis/src", "generators/src", "reports/src", "python/src"]
REGISTRY = ROOT / "analysis" / "src" / "algorithms"
MAX_FILES = 5

CONSTANT = re.compile(r"pub const (\w+): Algorithm = Algorithm\(&(\w+)::DESCRIPTOR\)")
NAME = re.compile(r'\bname:\s*"([^"]+)"')
LITERAL = re.compile(r'"(?:\\.|[^"\\])*"')


def algorithms():
    """(constant, name) of each algorithm of the registry, in its order."""
    out = []
    for const, module in CONSTANT.findall((REGISTRY / "mod.rs").read_text()):
        m = NAME.search((REGISTRY / f"{module}.rs").read_text())
        if not m:
            sys.exit(f"algorithm-names: {module}.rs has no `name: \"…\"`")
        out.append((const, m.group(1)))
    if not out:
        sys.exit("algorithm-names: no algorithm constant in analysis/src/algorithms/mod.rs")
    return out


def production_files():
    for folder in FOLDERS:
        for f in sorted((ROOT / folder).rglob("*.rs")):
            rel = f.relative_to(ROOT).as_posix()
            if "/tests/" in rel or f.stem == "tests" or "/target/" in rel:
                continue
            yield f


def code_with_strings(f: Path) -> str:
    return cycles.without_test_modules(cycles.strip_comments_and_strings(f.read_text(), keep_strings=True))


def naming_files(algos, words=False):
    """Per algorithm name, the sorted files that name it (`words`: in prose strings too)."""
    found = {name: [] for _, name in algos}
    for f in production_files():
        code = code_with_strings(f)
        literals = LITERAL.findall(code)
        for const, name in algos:
            word = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])" if words else "^" + re.escape(name) + "$")
            if re.search(r"\bAlgorithm::" + const + r"\b", code) or any(word.search(s[1:-1]) for s in literals):
                found[name].append(f.relative_to(ROOT).as_posix())
    return found


def findings():
    """`path: what` lines, one per algorithm over the limit."""
    out = []
    for name, files in naming_files(algorithms()).items():
        if len(files) > MAX_FILES:
            out.append(f"{files[0]}:1: algorithm {name} named in {len(files)} files, over {MAX_FILES}: "
                       f"{', '.join(files)} (move what differs into its descriptor's hooks)")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quiet", action="store_true", help="only the algorithms over the limit")
    ap.add_argument("--words", action="store_true", help="count the name in prose strings too")
    args = ap.parse_args()
    over = 0
    for name, files in naming_files(algorithms(), args.words).items():
        mark = " (over)" if len(files) > MAX_FILES and not args.words else ""
        over += bool(mark)
        if mark or not args.quiet:
            print(f"{name}: {len(files)} file(s){mark}")
            for f in files:
                print(f"  {f}")
    if args.words:
        print("algorithm-names: prose strings counted, no findings")
        return 0
    print(f"algorithm-names: {over} algorithm(s) named in more than {MAX_FILES} files")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
