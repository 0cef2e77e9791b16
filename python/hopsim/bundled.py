"""The scenarios shipped with the package: the quick start, the sweep example and the
papers' experiments (``hopsim/scenarios/``, package data, so ``hopsim reproduce`` works from a
pip install). ``hopsim scenarios`` lists them and copies them out for editing; a copy is used
by ``hopsim reproduce`` when ``$HOPSIM_SCENARIOS`` names the folder holding it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .scenario import ScenarioError

ENV = "HOPSIM_SCENARIOS"


def root() -> Path:
    """The package's own scenarios folder."""
    return Path(__file__).resolve().parent / "scenarios"


@dataclass(frozen=True)
class Shipped:
    """One shipped scenario (or input) file."""

    path: Path
    """Relative to :func:`root`, e.g. ``pyrrha/moe.toml``."""
    about: str
    """Its first comment line."""


def listing() -> list[Shipped]:
    """Every shipped file, in path order, with the first line of its leading comment."""
    base = root()
    out = []
    for p in sorted(base.rglob("*")):
        if p.is_file() and not p.name.startswith("."):
            out.append(Shipped(p.relative_to(base), _first_comment(p)))
    return out


def _first_comment(p: Path) -> str:
    if p.suffix != ".toml":
        return "input file"
    with p.open(encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if s.startswith("#") and s.strip("# "):
                return s.lstrip("# ").strip()
            if s and not s.startswith("#"):
                break
    return ""


def find(paper: str) -> Path:
    """``<paper>/`` of the scenarios to run: under ``$HOPSIM_SCENARIOS`` (the folder holding
    ``<paper>/``, or its parent's ``scenarios/``) when set, else the package's own."""
    env = os.environ.get(ENV)
    if env:
        base = Path(env)
        for candidate in (base / paper, base / "scenarios" / paper):
            if candidate.is_dir() and any(candidate.glob("*.toml")):
                return candidate
        raise ScenarioError(
            f"${ENV}={env}: neither {base / paper} nor {base / 'scenarios' / paper} holds "
            f"scenario files; unset {ENV} to use the shipped ones, or copy them there with "
            f"`hopsim scenarios copy {paper} -o {base}`"
        )
    shipped = root() / paper
    if shipped.is_dir() and any(shipped.glob("*.toml")):
        return shipped
    papers = sorted(p.name for p in root().iterdir() if p.is_dir())
    raise ScenarioError(f"no shipped scenarios for {paper!r}; expected one of {', '.join(papers)}")


def copy(names: Sequence[str], dest: Path, force: bool = False) -> list[Path]:
    """Copy shipped files or folders (``pyrrha``, ``pyrrha/moe.toml``, ``quickstart.toml``; none
    means all) under ``dest``, keeping their relative paths. Refuses to replace an existing
    file unless ``force``; checks every target before writing any."""
    base = root()
    chosen: list[Path] = []
    for name in names or ["."]:
        src = (base / name).resolve()
        if base not in (src, *src.parents) or not src.exists():
            known = ", ".join(sorted({str(s.path).split("/")[0] for s in listing()}))
            raise ScenarioError(f"no shipped scenario {name!r}; expected one of {known}")
        files = sorted(p for p in src.rglob("*") if p.is_file()) if src.is_dir() else [src]
        chosen += [p.relative_to(base) for p in files]
    targets = [dest / rel for rel in dict.fromkeys(chosen)]
    clash = [t for t in targets if t.exists()]
    if clash and not force:
        more = f" and {len(clash) - 1} more" if len(clash) > 1 else ""
        raise ScenarioError(f"{clash[0]}{more} exists; pass --force to replace")
    for rel, t in zip(dict.fromkeys(chosen), targets):
        t.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base / rel, t)
    return targets
