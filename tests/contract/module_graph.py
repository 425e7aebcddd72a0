#!/usr/bin/env python3
"""Fails if any two modules of src/ import each other, directly or in a circle.

Every `use crate::…` / `use super::…` / `use self::…` in a file is an edge from that file's module
to the module the path names (the longest prefix that is a module; an item re-exported by a
`mod.rs` counts as an import of that folder's module), and so is every such path written inline
in code (`super::views::origin_of(…)`, `crate::metrics::X.inc()`): a path needs no `use` line to
make a dependency. Comments, string literals, `pub(in …)` visibilities and macros' `$crate::` are
not paths to a dependency. Unit-test modules (`mod tests { … }`, `tests.rs`) are left out.

For each edge the two modules are lifted to their ancestors just below their common ancestor, so a
file in `browser/page/` importing `browser/chromium/` is the edge page → chromium, and circles are
searched among siblings: between files of a folder and between folders of a parent. Only `pub use`
lines of a `mod.rs` count from a folder to its children (re-exports); `mod x;` declarations are
not imports.

Usage: module_graph.py SRC_DIR   (prints the circles found; exit status 1 if there are any)
"""
import pathlib
import re
import sys
from collections import defaultdict

src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src").resolve()


def module_of(path):
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


modules = {module_of(p) for p in src.rglob("*.rs")}
modules |= {m[:i] for m in modules for i in range(len(m))}

USE = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
# A path written inline: `super::a::b`, `crate::a`, `self::a` (not `$crate::`, not part of a longer name).
INLINE = re.compile(r"(?<![\w$:])((?:crate|super|self)(?:::(?:super|\w+))+)")
VISIBILITY = re.compile(r"pub\(\s*in\s+[^)]*\)")
# Comments and string literals (raw strings included), replaced before paths are read.
NOISE = re.compile(r"""//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|"(?:\\.|[^"\\])*"|'(?:\\[^']{1,8}|[^'\\])'""", re.S)


def code_of(text):
    """The file without its unit tests, comments and string literals, `use` lines kept."""
    text = re.sub(r"#\[cfg\(test\)\]\s*mod tests \{.*", "", text, flags=re.S)
    text = NOISE.sub(lambda m: "" if m.group(0).startswith("/") else '""', text)
    return VISIBILITY.sub("pub", text)


def paths_of(tree, prefix=""):
    """Expands `a::{b, c::{d, e}}` into full paths (only what is needed to name modules)."""
    tree = tree.strip()
    brace = tree.find("{")
    if brace < 0:
        return [prefix + tree.split(" as ")[0].strip()]
    head = prefix + tree[:brace]
    body = tree[brace + 1:tree.rfind("}")]
    parts, depth, current = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current += ch
    parts.append(current)
    return [p for part in parts if part.strip() for p in paths_of(part, head)]


def resolve(module, path):
    segments = [s for s in path.split("::") if s]
    if not segments:
        return None
    if segments[0] == "crate":
        base, rest = (), segments[1:]
    elif segments[0] == "super":
        base, rest = module, segments
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
    elif segments[0] == "self":
        base, rest = module, segments[1:]
    else:
        return None  # another crate
    target = base
    for segment in rest:
        if segment == "self" or target + (segment,) not in modules:
            break
        target = target + (segment,)
    return target


edges = defaultdict(set)


def add_edge(module, path, public_folder_use):
    target = resolve(module, path)
    if target is None or target == module:
        return
    if target[: len(module)] == module and not public_folder_use:
        return  # a folder reaching into its own children privately is no import edge
    edges[module].add(target)


for file in src.rglob("*.rs"):
    if file.name == "tests.rs":
        continue
    module = module_of(file)
    is_folder = file.name in ("mod.rs", "lib.rs", "main.rs")
    text = code_of(file.read_text())
    for match in USE.finditer(text):
        for path in paths_of(match.group(3)):
            add_edge(module, path, is_folder and bool(match.group(1)))
    for match in INLINE.finditer(USE.sub("", text)):
        add_edge(module, match.group(1), False)

# Lift each edge to siblings under the lowest common ancestor.
siblings = defaultdict(lambda: defaultdict(set))
for a, targets in edges.items():
    for b in targets:
        i = 0
        while i < min(len(a), len(b)) and a[i] == b[i]:
            i += 1
        if i == len(a) or i == len(b):
            # One is an ancestor of the other: parent ↔ child.
            parent = a[:i]
            x = a[: i + 1] if len(a) > i else ("<" + "::".join(parent) + ">",)
            y = b[: i + 1] if len(b) > i else ("<" + "::".join(parent) + ">",)
        else:
            parent, x, y = a[:i], a[: i + 1], b[: i + 1]
        siblings[parent][x].add(y)

circles = []
for parent, graph in siblings.items():
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == "open":
                circles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in list(graph):
        if node not in state:
            visit(node, [])

for circle in circles:
    print("module circle: " + " → ".join("::".join(m) for m in circle))
sys.exit(1 if circles else 0)
