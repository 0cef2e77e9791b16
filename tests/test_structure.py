"""The core crate's structure (issue 21): components never reach for the simulator, and
the modules depend on each other without a circle.

The graph is built from the source: an import of `crate::a::b::Name` is an edge to the
file that defines `Name` (following `pub use` re-exports), an import of a module is an
edge to that module's file. A module's edges to the modules it declares (its children:
a family's registration list naming its mechanisms) are left out, since a parent listing
its children cannot close a circle through them; every other circle fails the test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "crates" / "hopsim-core" / "src"

DEFINES = re.compile(
    r"\bpub(?:\([^)]*\))?\s+(?:unsafe\s+)?(?:struct|enum|fn|type|trait|const|static|mod|union)\s+(\w+)"
)
USE = re.compile(r"\buse\s+([^;]+);")
PUB_USE = re.compile(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);")
PATH = re.compile(r"\b(?:crate|super)(?:::\w+)+")


def _strip(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    return re.split(r"#\[cfg\(test\)\]\s*mod tests", text)[0]


def _modpath(rel: str) -> tuple[str, ...]:
    parts = rel[:-3].split("/")
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def _expand(tree: str) -> list[str]:
    """A `use` tree as full paths (`a::{b, c::d}` -> `a::b`, `a::c::d`)."""
    out: list[str] = []

    def rec(prefix: list[str], t: str) -> None:
        t = t.strip()
        if not t:
            return
        if "{" in t:
            i = t.index("{")
            head = t[:i].rstrip(":").strip()
            inner = t[i + 1 : t.rindex("}")]
            parts, depth, cur = [], 0, ""
            for ch in inner:
                depth += ch == "{"
                depth -= ch == "}"
                if ch == "," and depth == 0:
                    parts.append(cur)
                    cur = ""
                else:
                    cur += ch
            parts.append(cur)
            base = prefix + ([head] if head else [])
            for part in parts:
                rec(base, part)
        else:
            t = re.sub(r"\s+as\s+\w+$", "", t)
            out.append("::".join([*prefix, t]))

    rec([], tree)
    return out


class Crate:
    def __init__(self, src: Path):
        self.files = {
            str(p.relative_to(src)): _strip(p.read_text()) for p in sorted(src.rglob("*.rs"))
        }
        self.mods = {_modpath(f): f for f in self.files}
        self.defs = {
            f: set(DEFINES.findall(t)) | set(re.findall(r"macro_rules!\s+(\w+)", t))
            for f, t in self.files.items()
        }
        self.reexports = {
            f: [
                (path.split("::")[-1], path)
                for m in PUB_USE.finditer(t)
                for path in _expand(m.group(1))
            ]
            for f, t in self.files.items()
        }
        self.edges: dict[str, dict[str, set[str]]] = {f: {} for f in self.files}
        for f, text in self.files.items():
            paths = [p for m in USE.finditer(text) for p in _expand(m.group(1))]
            paths += PATH.findall(text)
            parent = _modpath(f)
            declares = f.endswith(("mod.rs", "lib.rs"))
            for path in paths:
                target = self.resolve(f, path)
                if not target or target == f:
                    continue
                if declares and _modpath(target)[: len(parent)] == parent:
                    continue  # a module naming its own children
                self.edges[f].setdefault(target, set()).add(path)

    def _segments(self, cur: str, path: str) -> list[str] | None:
        segs = path.split("::")
        base = list(_modpath(cur))
        if segs[0] == "crate":
            return segs[1:]
        if segs[0] in ("super", "self"):
            m = base
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    m = m[:-1]
                segs = segs[1:]
            return m + segs
        if (*base, segs[0]) in self.mods:
            return base + segs
        return None

    def resolve(self, cur: str, path: str, depth: int = 0) -> str | None:
        segs = self._segments(cur, path)
        if segs is None or depth > 10:
            return None
        k = max(i for i in range(len(segs) + 1) if tuple(segs[:i]) in self.mods)
        f = self.mods[tuple(segs[:k])]
        rest = segs[k:]
        if not rest or rest[0] == "*":
            return f
        name = rest[0]
        if name in self.defs[f]:
            return f
        for n, src in self.reexports[f]:
            if n == name or n == "*":
                t = self.resolve(f, src if n == name else src[:-1] + name, depth + 1)
                if t:
                    return t
        return f

    def circles(self) -> list[list[str]]:
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on: set[str] = set()
        out: list[list[str]] = []
        counter = [0]

        def visit(v: str) -> None:
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in self.edges[v]:
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
                if len(comp) > 1:
                    out.append(sorted(comp))

        for v in sorted(self.files):
            if v not in index:
                visit(v)
        return out


@pytest.fixture(scope="module")
def crate() -> Crate:
    if not SRC.is_dir():
        pytest.skip(f"no Rust sources at {SRC}")
    return Crate(SRC)


def test_no_component_reaches_for_the_simulator(crate: Crate) -> None:
    offenders = {
        f: sorted(p for t, ps in crate.edges[f].items() if t.startswith("sim/") for p in ps)
        for f in crate.files
        if not f.startswith("sim/") and f != "lib.rs"
    }
    offenders = {f: ps for f, ps in offenders.items() if ps}
    assert not offenders, f"modules outside sim/ that import it: {offenders}"
    impls = [
        f for f, t in crate.files.items() if "impl Simulator" in t and not f.startswith("sim/")
    ]
    assert not impls, f"`impl Simulator` outside sim/: {impls}"


def test_the_module_graph_has_no_circle(crate: Crate) -> None:
    circles = crate.circles()
    detail = [
        "\n".join(
            f"  {a} -> {b} via {sorted(crate.edges[a][b])[:3]}"
            for a in c
            for b in crate.edges[a]
            if b in c
        )
        for c in circles
    ]
    assert not circles, "circles in the module graph:\n" + "\n\n".join(detail)


def test_the_checker_finds_a_planted_circle(tmp_path: Path) -> None:
    """The check itself works: two sibling modules importing each other form a circle,
    and a module importing the simulator is named."""
    (tmp_path / "sim").mkdir()
    (tmp_path / "lib.rs").write_text("pub mod a;\npub mod b;\npub mod sim;\n")
    (tmp_path / "a.rs").write_text("use crate::b::B;\npub struct A;\n")
    (tmp_path / "b.rs").write_text("use crate::a::A;\nuse crate::sim::Simulator;\npub struct B;\n")
    (tmp_path / "sim" / "mod.rs").write_text("pub struct Simulator;\n")
    planted = Crate(tmp_path)
    assert planted.circles() == [["a.rs", "b.rs"]]
    assert "sim/mod.rs" in planted.edges["b.rs"]
