#!/usr/bin/env python3
"""Import circles between the source files of each crate of the workspace.

An edge A -> B means that file A names a path into file B's module: a `use crate::…`,
`use super::…` or `use self::…` (groups `{…}` expanded), or such a path written inline
(`crate::x::f()`, `super::Y`). A path goes to the file of its longest prefix that is a module
of the crate; `mod x;` declarations are not edges (a parent owning a child is not a use), and
inline `#[cfg(test)]` modules are left out (a test may build its inputs with anything; files of
tests, `mod tests;`, only use their parent).
The binary and the library of the root crate share `src/`: they are graphed apart (the
binary is main.rs and src/cli/).

Prints every strongly connected component of more than one file, and every elementary
cycle in it (up to --max-cycles per component), then exits 1 if there is any, 0 otherwise.

    python3 scripts/import-cycles.py [--max-cycles N] [--edges] [--root DIR]

--root reads another workspace laid out the same way (crates whose folder is missing there
are skipped): the test of this script gives it one with a circle.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (name, source folder, root file, files of another crate in that folder). The root crate's
# binary (main.rs and its cli/) uses the library only by its name, `treefix_accuracy::…`,
# and a crate can never depend on its dependant: those paths make no circle and are left out.
CRATES = [
    ("treefix-accuracy (lib)", "src", "lib.rs", ["main.rs", "cli"]),
    ("accuracy (bin)", "src", "main.rs", None),
    ("generators", "generators/src", "lib.rs", []),
    ("analysis", "analysis/src", "lib.rs", []),
    ("reports", "reports/src", "lib.rs", []),
]


def module_of(src: Path, file: Path) -> tuple:
    """The module path of `file` inside the crate rooted at `src`."""
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


RAW = re.compile(r'r(#*)"')
CHAR = re.compile(r"'(?:\\[^']*|[^'\\])'")


def strip_comments_and_strings(text: str, keep_strings: bool = False) -> str:
    """The code with comments (doc comments included) and string and char literals blanked:
    paths in them are prose, not uses. One pass, so a `"` inside a char literal or a `//`
    inside a string is read as Rust reads it. With `keep_strings`, string literals stay as
    written (only comments go)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif c == "r" and RAW.match(text, i) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = RAW.match(text, i).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            start, i = i, n if end < 0 else end + 1 + len(hashes)
            out.append(text[start:i] if keep_strings else '""')
        elif c == '"':
            start, i = i, i + 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append(text[start:i] if keep_strings else '""')
        elif c == "'":
            # A char literal ('x', '\n', '\u{..}') or a lifetime ('a): only the former ends
            # with a quote.
            m = CHAR.match(text, i)
            if m:
                i = m.end()
                out.append("' '")
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")


def without_test_modules(code: str) -> str:
    """`code` less its inline `#[cfg(test)] mod … { … }` blocks: a test may build its inputs
    with any part of the crate, and such a use is no part of the crate's own structure."""
    while m := TEST_MOD.search(code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        code = code[: m.start()] + code[i:]
    return code


def expand_use_tree(tree: str, keep_alias: bool = False) -> list:
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]; with `keep_alias`, pairs of the
    path and the name it is bound to (`a::b as c` -> ("a::b", "c"), `a::{self}` -> ("a", "a"))."""
    tree = re.sub(r"\s+as\s+", "@", tree)
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix: str, s: str):
        # Split s at top-level commas.
        depth, start, items = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append(s[start:i])
                start = i + 1
        items.append(s[start:])
        for item in filter(None, items):
            brace = item.find("{")
            if brace >= 0 and item.endswith("}"):
                walk(prefix + item[:brace], item[brace + 1 : -1])
                continue
            path, _, alias = (prefix + item).partition("@")
            if path.endswith("::self"):
                path = path[: -len("::self")]
            if keep_alias:
                out.append((path, alias or path.split("::")[-1]))
            else:
                out.append(path)

    walk("", tree)
    return out


def paths_in(code: str, aliases: list) -> list:
    """Every crate-relative path the file names, as written (`crate::a::b`, `super::c`)."""
    starts = ["crate", "super", "self"] + aliases
    found = []
    for m in re.finditer(r"\buse\s+([^;]*);", code):
        found.extend(expand_use_tree(m.group(1)))
    head = "|".join(starts)
    for m in re.finditer(rf"(?<![\w:])((?:{head})(?:::\w+)+)", code):
        found.append(m.group(1))
    return [p for p in found if p.split("::")[0] in starts]


def resolve(path: str, here: tuple, aliases: list, modules: dict, exports: dict, seen=frozenset()):
    """The file that `path`, written in module `here`, points into (or None). A name that the
    module re-exports (`pub use a::b::Name;`) is followed to the module that defines it, so
    `crate::Name` is a use of `a/b.rs`, not of `lib.rs`."""
    parts = [p for p in path.split("::") if p]
    if parts[0] == "crate" or parts[0] in aliases:
        base, parts = (), parts[1:]
    else:
        base = here
        while parts and parts[0] in ("self", "super"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
    for k in range(len(parts), -1, -1):
        target = base + tuple(parts[:k])
        if target not in modules:
            continue
        rest = parts[k:]
        if rest:
            found = follow(target, rest, aliases, modules, exports, seen)
            if found is not False:
                return found
        return modules[target]
    return None


def follow(module: tuple, rest: list, aliases: list, modules: dict, exports: dict, seen):
    """Where `module::rest` leads through `module`'s re-exports: a file, None (another crate),
    or False when `rest[0]` is not re-exported there (then it is defined in `module`)."""
    named, globs = exports.get(module, ({}, []))
    targets = [named[rest[0]] + "::" + "::".join(rest[1:])] if rest[0] in named else []
    targets += [g + "::" + "::".join(rest) for g in globs]
    for t in targets:
        key = (module, t)
        if key in seen:
            continue
        first = t.split("::")[0]
        if first not in ("crate", "super", "self") and first not in aliases:
            if module + (first,) not in modules:
                # Another crate's item, re-exported: no edge inside this crate.
                if rest[0] in named:
                    return None
                continue
            t = "self::" + t
        found = resolve(t.rstrip(":"), module, aliases, modules, exports, seen | {key})
        if found is not None or rest[0] in named:
            return found
    return False


def reexports(code: str) -> tuple:
    """A module's `pub use` declarations: {name: path} and the paths of its glob re-exports."""
    named, globs = {}, []
    for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);", code):
        for path, name in expand_use_tree(m.group(1), keep_alias=True):
            if path.endswith("::*"):
                globs.append(path[:-3])
            else:
                named[name] = path
    return named, globs


def crate_files(src: Path, root: str, others) -> list:
    """The crate's files: all under `src` but `others`; None: `root` and the modules it
    declares (the binary's)."""
    # Test files (`mod tests;`) only use what they test: no part of the crate's structure.
    files = sorted(f for f in src.rglob("*.rs") if f.stem != "tests" and "tests" not in f.relative_to(src).parts[:-1])
    if others is None:
        mods = re.findall(r"^\s*(?:pub\s+)?mod\s+(\w+)\s*;", (src / root).read_text(), re.M)
        keep = lambda f: f.relative_to(src).parts[0] in [root, *mods, *(m + ".rs" for m in mods)]
    else:
        keep = lambda f: f.relative_to(src).parts[0] not in others
    return [f for f in files if keep(f)]


def graph(src: Path, files: list, aliases: list) -> dict:
    modules = {module_of(src, f): f for f in files}
    codes = {f: without_test_modules(strip_comments_and_strings(f.read_text())) for f in files}
    exports = {module_of(src, f): reexports(code) for f, code in codes.items()}
    edges = {f: set() for f in files}
    for f, code in codes.items():
        here = module_of(src, f)
        for p in paths_in(code, aliases):
            t = resolve(p, here, aliases, modules, exports)
            if t is not None and t != f:
                edges[f].add(t)
    return edges


def top_of(src: Path, file: Path) -> str:
    """The crate's top-level module a file belongs to (`bounds` for bounds/walk.rs); the crate
    root's own file is `crate`."""
    m = module_of(src, file)
    return m[0] if m else "crate"


def top_level(src: Path, edges: dict) -> dict:
    """The file graph folded onto the crate's top-level modules: A -> B when a file of A uses
    a file of B. A circle here is two parts of the crate that each need the other, even where
    no two files do (algorithms' descriptors name bounds' walks, and bounds dispatches on the
    registry's algorithms). The crate root is left out: it declares every module."""
    out = {}
    for f, ts in edges.items():
        a = top_of(src, f)
        if a == "crate":
            continue
        out.setdefault(a, set())
        for t in ts:
            b = top_of(src, t)
            if b not in ("crate", a):
                out[a].add(b)
                out.setdefault(b, set())
    return out


def components(edges: dict) -> list:
    """Tarjan's strongly connected components."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def cycles(edges: dict, comp: list, limit: int) -> list:
    """Elementary cycles inside one component, each from its smallest file, shortest first."""
    nodes = sorted(comp)
    inside = set(nodes)
    found = []
    for i, start in enumerate(nodes):
        allowed = set(nodes[i:])
        path = [start]

        def dfs(v):
            for w in sorted(edges[v] & inside & allowed):
                if w == start:
                    found.append(list(path))
                elif w not in path:
                    path.append(w)
                    dfs(w)
                    path.pop()
                if len(found) >= limit:
                    return

        dfs(start)
        if len(found) >= limit:
            break
    return sorted(found, key=len)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-cycles", type=int, default=50)
    ap.add_argument("--edges", action="store_true", help="print every edge too")
    ap.add_argument("--root", type=Path, default=ROOT, help="the workspace (default: this one)")
    args = ap.parse_args()
    base = args.root.resolve()
    any_cycle = False
    for name, folder, root, others in CRATES:
        src = base / folder
        if not (src / root).is_file():
            if base == ROOT:
                print(f"{name}: no {folder}/{root}", file=sys.stderr)
                return 2
            continue
        aliases = []
        edges = graph(src, crate_files(src, root, others), aliases)
        rel = lambda f: str(f.relative_to(base))
        if args.edges:
            for f, ts in edges.items():
                for t in sorted(ts):
                    print(f"{rel(f)} -> {rel(t)}")
        comps = components(edges)
        tops = top_level(src, edges)
        top_comps = components(tops)
        print(f"{name}: {len(edges)} files, {sum(map(len, edges.values()))} edges, "
              f"{len(comps)} circle(s) between files, {len(top_comps)} between its top-level modules")
        for comp in comps:
            any_cycle = True
            print(f"  component of {len(comp)} files: {', '.join(sorted(map(rel, comp)))}")
            for c in cycles(edges, comp, args.max_cycles):
                print("    " + " -> ".join(map(rel, c + [c[0]])))
        for comp in top_comps:
            any_cycle = True
            print(f"  component of {len(comp)} modules: {', '.join(sorted(comp))}")
            for c in cycles(tops, comp, args.max_cycles):
                print("    " + " -> ".join(c + [c[0]]))
                for a, b in zip(c, c[1:] + [c[0]]):
                    for f, ts in sorted(edges.items()):
                        for t in sorted(ts):
                            if top_of(src, f) == a and top_of(src, t) == b:
                                print(f"      {rel(f)} -> {rel(t)}")
    return 1 if any_cycle else 0


if __name__ == "__main__":
    sys.exit(main())
