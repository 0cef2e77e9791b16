"""The reproduction contract every paper follows.

A **paper** is a list of **experiments**. An experiment names a scenario file in
``scenarios/<paper>/``, the variants it runs (each a label and scenario overrides), the
overrides that size it for ``quick`` or ``full`` runs, an ``analyze`` function that turns
the finished runs into a metrics table (one row per run; see `stats.table`), a ``draw``
function that makes the experiment's figure from it (see `figures`), and its **claims
table**: `claims.Claim` rows, each what the paper states, a selector of hopsim's number
from the metrics table and how the two compare (see `claims`). A paper gives the analysis
and figure its experiments share; an experiment names its own only where it differs.

`run_paper` runs each experiment as a resumable sweep (``hopsim.sweep``: a process pool or
Ray; finished variants are not run again), or, for an experiment of many small runs that
names a `Batch`, in-process through the core in a process pool keeping only what the batch
keeps of each run's summary (no run directories; the rows are saved in
``runs/<experiment>/batch.json`` and reused while the variants are unchanged), then
writes, under the output directory, ``runs/<experiment>/`` (the sweeps),
``figures/<experiment>.png``, ``metrics/<experiment>.csv``, ``claims.csv``, ``claims.md``
and ``report.md``.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hopsim import bundled
from hopsim._core import ScenarioError
from hopsim.reproduce.claims import NOT_MEASURED, Claim, ClaimResult, count_line, evaluate
from hopsim.results import Result

__all__ = [
    "Batch",
    "Claim",
    "ClaimResult",
    "Experiment",
    "Paper",
    "Run",
    "Variant",
    "experiment",
    "find_scenarios",
    "run_paper",
]

MODES = ("quick", "full")


@dataclass(frozen=True)
class Variant:
    """One run of an experiment: a label (``"Pyrrha"``), the scenario overrides that make
    it, and the group it belongs to in figures and tables (``"memcached"``)."""

    label: str
    overrides: Mapping[str, Any]
    group: str = ""


@dataclass(frozen=True)
class Batch:
    """How an experiment of many small runs is run in-process (see `run_paper`).

    ``expand`` turns a variant's overrides into the scenario's (in the worker, so variants
    stay small: e.g. a trial's flow split becomes its flow list there); ``keep`` turns a
    run's summary (the core's ``summary()`` dict) into the values kept (`Run.values`).
    Both must be module-level functions (they are sent to worker processes)."""

    keep: Callable[[dict[str, Any]], dict[str, Any]]
    expand: Callable[[Mapping[str, Any]], Mapping[str, Any]] = dict


@dataclass
class Run:
    """A finished (or failed) variant: its status and, lazily, its `Result` (or, for a
    batch experiment, the values its `Batch` kept)."""

    variant: Variant
    status: str
    run_dir: Path | None
    error: str | None = None
    _result: Result | None = field(default=None, repr=False)
    values: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        kept = self.run_dir is not None or self.values is not None
        return kept and self.status in ("ok", "incomplete")

    @property
    def result(self) -> Result:
        if self._result is None:
            if self.run_dir is None:
                raise RuntimeError(f"{self.variant.label}: the run failed: {self.error}")
            self._result = Result.read(self.run_dir)
        return self._result


@dataclass
class Experiment:
    """One figure of a paper (see the module documentation)."""

    name: str
    figure: str
    section: str
    title: str
    #: What the paper's figure shows, in a sentence (printed beside ours in the report).
    description: str
    scenario: str
    variants: Callable[[str], list[Variant]]
    #: The claims table: what the paper states, checked against the metrics table.
    claims: Sequence[Claim]
    #: The runs' metrics table, and the figure drawn from it (None: the paper's default).
    analyze: Callable[[list[Run]], pd.DataFrame] | None = None
    draw: Callable[[pd.DataFrame, list[Run], Path], None] | None = None
    #: Overrides applied to every variant, per mode.
    sizes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Analyze the runs of this other experiment instead of running its own.
    shares: str | None = None
    #: Run the variants in-process, keeping only what this keeps (see `Batch`).
    batch: Batch | None = None

    def verdicts(self, metrics: pd.DataFrame) -> list[ClaimResult]:
        """Each claim of the table against `metrics`."""
        return [evaluate(self, c, metrics) for c in self.claims]


def experiment(
    name: str,
    figure: str,
    section: str,
    title: str,
    description: str,
    scenario: str,
    variants: Callable[[str], list[Variant]],
    claims: Sequence[Claim],
    draw: Callable[[pd.DataFrame, list[Run], Path], None] | None = None,
    analyze: Callable[[list[Run]], pd.DataFrame] | None = None,
    shares: str | None = None,
    batch: Batch | None = None,
) -> Experiment:
    """An `Experiment` from its parts in the order the papers' modules list them."""
    return Experiment(
        name=name,
        figure=figure,
        section=section,
        title=title,
        description=description,
        scenario=scenario,
        variants=variants,
        claims=claims,
        analyze=analyze,
        draw=draw,
        shares=shares,
        batch=batch,
    )


@dataclass
class Paper:
    name: str
    title: str
    #: The paper's citation (authors, venue, year), as the report names it.
    source: str
    experiments: list[Experiment]
    #: The analysis of an experiment that names none, and its figure (called with the
    #: experiment's ``"<figure>: <title>"`` as ``title``).
    analyze: Callable[[list[Run]], pd.DataFrame] | None = None
    draw: Callable[..., None] | None = None

    def __post_init__(self) -> None:
        for e in self.experiments:
            e.analyze = e.analyze or self.analyze
            if e.draw is None and self.draw is not None:
                e.draw = functools.partial(self.draw, title=f"{e.figure}: {e.title}")
            if e.analyze is None or e.draw is None:
                raise ScenarioError(f"{self.name}/{e.name}: no analysis or figure")

    def experiment(self, name: str) -> Experiment:
        for e in self.experiments:
            if e.name == name:
                return e
        known = ", ".join(e.name for e in self.experiments)
        raise ScenarioError(f"no experiment {name!r} in {self.name}; expected one of {known}")


def find_scenarios(paper: str) -> Path:
    """``<paper>/`` of the scenarios to run: the package's own, or under
    ``$HOPSIM_SCENARIOS`` when set (see :mod:`hopsim.bundled`)."""
    return bundled.find(paper)


def _sweep_spec(
    paper: Paper, exp: Experiment, mode: str, scenarios: Path
) -> tuple[dict, list[Variant], list[int]]:
    """The sweep of `exp`'s variants, each distinct setting once (two panels of one figure
    may share a point, e.g. Fig 27's K_pause 10 with K_resume 1), and each variant's point."""
    variants = exp.variants(mode)
    labels = [(v.group, v.label) for v in variants]
    if len(set(labels)) != len(labels):
        raise ScenarioError(f"{paper.name}/{exp.name}: variant labels repeat")
    size = dict(exp.sizes.get(mode, {}))
    points: list[dict] = []
    point_of: list[int] = []
    for v in variants:
        point = {**size, **dict(v.overrides)}
        if point not in points:
            points.append(point)
        point_of.append(points.index(point))
    spec = {"name": exp.name, "scenario": str(scenarios / exp.scenario), "point": points}
    return spec, variants, point_of


def _runs_of(
    table: pd.DataFrame, variants: list[Variant], point_of: list[int], outdir: Path
) -> list[Run]:
    rows = [row for _, row in table.sort_values("point").iterrows()]
    runs = []
    for variant, i in zip(variants, point_of):
        row = rows[i]
        run_dir = outdir / row["run_dir"] if isinstance(row.get("run_dir"), str) else None
        error = row.get("error") if isinstance(row.get("error"), str) else None
        runs.append(Run(variant, str(row["status"]), run_dir, error))
    return runs


# ---------------------------------------------------------------- batch experiments

_BATCH_FILE = "batch.json"
#: Variants per task sent to a worker (a run of a batch takes milliseconds).
_BATCH_CHUNK = 50


def _batch_one(
    base: Mapping[str, Any], base_dir: str, batch: Batch, overrides: Mapping[str, Any]
) -> dict[str, Any]:
    from hopsim import _core
    from hopsim.scenario import core_json, load_scenario

    o = dict(batch.expand(overrides))
    # A top-level table an override replaces whole need not be copied first.
    light = {k: v for k, v in base.items() if k not in o}
    doc, b = load_scenario(light, o, base_dir)
    with core_json(doc, b) as text:
        sim = _core.Simulation(text, b)
    sim.run()
    return batch.keep(sim.summary())


def _batch_chunk(
    scenario: str, batch: Batch, chunk: list[Mapping[str, Any]]
) -> list[tuple[str, dict[str, Any] | None, str | None]]:
    """Run `chunk`'s variants (their overrides) one after another: (status, kept, error).
    The scenario file is read once per chunk."""
    from hopsim.scenario import load_toml

    base = load_toml(Path(scenario))
    base_dir = str(Path(scenario).parent)
    out: list[tuple[str, dict[str, Any] | None, str | None]] = []
    for overrides in chunk:
        try:
            out.append(("ok", _batch_one(base, base_dir, batch, overrides), None))
        except Exception as exc:  # a failing run is recorded; the others go on
            out.append(("failed", None, f"{type(exc).__name__}: {exc}"))
    return out


def _batch_key(scenario: Path, variants: list[Variant]) -> str:
    """What a saved batch must match to be reused: the scenario file, every variant and
    the core's version."""
    from hopsim import _core

    h = hashlib.sha256(scenario.read_bytes())
    h.update(_core.__version__.encode())
    for v in variants:
        h.update(json.dumps([v.label, v.group, v.overrides], sort_keys=True, default=str).encode())
    return h.hexdigest()


def _run_batch(
    exp: Experiment,
    mode: str,
    scenarios: Path,
    outdir: Path,
    jobs: int | None,
    log: Callable[[str], None],
) -> list[Run]:
    """`exp`'s variants run through its `Batch` (see `run_paper`)."""
    from concurrent.futures import ProcessPoolExecutor

    from hopsim.sweep import _ignore_sigint, _pool_context

    assert exp.batch is not None
    size = dict(exp.sizes.get(mode, {}))
    variants = exp.variants(mode)
    scenario = scenarios / exp.scenario
    key = _batch_key(scenario, variants)
    saved = outdir / _BATCH_FILE
    if saved.exists():
        doc = json.loads(saved.read_text(encoding="utf-8"))
        if doc.get("key") == key:
            log(f"{exp.name}: {len(variants)} runs reused from {saved}")
            return [
                Run(v, st, None, err, values=val)
                for v, (st, val, err) in zip(variants, doc["rows"])
            ]
    outdir.mkdir(parents=True, exist_ok=True)
    tasks = [{**size, **dict(v.overrides)} for v in variants]
    chunks = [tasks[i : i + _BATCH_CHUNK] for i in range(0, len(tasks), _BATCH_CHUNK)]
    workers = min(jobs or os.cpu_count() or 1, len(chunks)) if chunks else 1
    rows: list[tuple[str, dict[str, Any] | None, str | None]] = []
    if workers <= 1:
        for c in chunks:
            rows += _batch_chunk(str(scenario), exp.batch, c)
    else:
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=_pool_context(), initializer=_ignore_sigint
        ) as pool:
            for part in pool.map(
                _batch_chunk,
                [str(scenario)] * len(chunks),
                [exp.batch] * len(chunks),
                chunks,
            ):
                rows += part
    saved.write_text(json.dumps({"key": key, "rows": rows}), encoding="utf-8")
    return [Run(v, st, None, err, values=val) for v, (st, val, err) in zip(variants, rows)]


def _write_claims(rows: Sequence[ClaimResult], outdir: Path) -> None:
    """``claims.csv`` (every field) and ``claims.md`` (the counts, the table, and each
    tolerance's reason once, as a footnote)."""
    fields = list(ClaimResult.__dataclass_fields__)
    with open(outdir / "claims.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: getattr(r, k) for k in fields})
    lines = [
        "| figure | section | claim | paper | hopsim | direction | ratio | effect | tolerance "
        "| verdict | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    reasons: list[str] = []
    for r in rows:
        direction = {True: "same", False: "opposite", None: "-"}[r.direction_agrees]
        tolerance = "-"
        if r.tolerance != "-":
            factor, reason = r.tolerance.split(": ", 1)
            if reason not in reasons:
                reasons.append(reason)
            tolerance = f"{factor} [T{reasons.index(reason) + 1}]"
        cells = [
            r.figure,
            r.section,
            r.claim,
            r.paper,
            r.measured,
            direction,
            "-" if r.ratio is None else f"{r.ratio:.2f}",
            "-" if r.effect is None else f"{r.effect:.2f}",
            tolerance,
            f"**{r.verdict}**",
            r.note,
        ]
        lines.append(
            "| " + " | ".join(c.replace("|", "/").replace("\n", " ") for c in cells) + " |"
        )
    notes = "\n".join(f"- T{i}: {reason}" for i, reason in enumerate(reasons, 1))
    head = (
        f"# Claims\n\n{count_line(rows)}.\n\n"
        "Verdicts (see `docs/reproduce.md`): *agrees*: the paper's direction and its number "
        "within the tolerance; *direction only*: the direction, not the number; *direction; "
        "no number*: the paper gives no number and only the direction was tested; *differs*: "
        "not the paper's direction (a tie included), or outside the tolerance of an "
        '"about the same", "at most" or absolute claim. *ratio*: hopsim\'s fold change '
        "(or value) over the paper's; *effect*: the same on a log scale.\n\n"
    )
    body = "\n".join(lines) + "\n"
    tail = f"\nTolerances:\n\n{notes}\n" if reasons else ""
    (outdir / "claims.md").write_text(head + body + tail, encoding="utf-8")


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.4g}"
    return str(v)


def _markdown(df: pd.DataFrame) -> str:
    """A metrics table as Markdown (no extra dependency)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines)


def _write_report(
    paper: Paper,
    mode: str,
    done: list[tuple[Experiment, pd.DataFrame | None, str]],
    outdir: Path,
    scenarios: Path,
) -> None:
    parts = [
        f"# {paper.title}: hopsim reproduction ({mode})\n",
        f"Paper: {paper.source}. Scenarios: `{scenarios}`. "
        "Claims: [claims.md](claims.md). Each experiment ran as a sweep under `runs/`.\n",
    ]
    for exp, metrics, note in done:
        parts.append(f"## {exp.figure} ({exp.section}): {exp.title}\n")
        parts.append(f"*The paper:* {exp.description}\n")
        if note:
            parts.append(f"*Not drawn:* {note}\n")
        else:
            parts.append(f"![{exp.figure}](figures/{exp.name}.png)\n")
        if metrics is not None and len(metrics):
            parts.append(_markdown(metrics) + "\n")
    (outdir / "report.md").write_text("\n".join(parts), encoding="utf-8")


def run_paper(
    paper: Paper,
    outdir: str | os.PathLike[str],
    mode: str = "quick",
    jobs: int | None = None,
    ray_address: str | None = None,
    only: Sequence[str] | None = None,
    progress: bool = False,
    log: Callable[[str], None] = lambda _: None,
) -> list[ClaimResult]:
    """Run `paper`'s experiments (all, or those named in ``only``) at ``mode`` size into
    ``outdir``; return the claims. Finished runs in ``outdir`` are reused."""
    from hopsim.sweep import run_sweep

    if mode not in MODES:
        raise ScenarioError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    chosen = [paper.experiment(n) for n in only] if only else list(paper.experiments)
    needed = {e.shares for e in chosen if e.shares} - {e.name for e in chosen}
    to_run = [paper.experiment(n) for n in sorted(needed)] + [e for e in chosen if not e.shares]
    scenarios = find_scenarios(paper.name)
    out = Path(outdir)
    for sub in ("runs", "figures", "metrics"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    runs_by_exp: dict[str, list[Run]] = {}
    for exp in to_run:
        if exp.batch is not None:
            t0 = time.perf_counter()
            log(
                f"{exp.name}: {len(exp.variants(mode))} runs in-process ({exp.figure}, {exp.title})"
            )
            runs_by_exp[exp.name] = _run_batch(
                exp, mode, scenarios, out / "runs" / exp.name, jobs, log
            )
            failed = [r for r in runs_by_exp[exp.name] if not r.ok]
            log(
                f"{exp.name}: done in {time.perf_counter() - t0:.0f} s"
                + (f", {len(failed)} failed" if failed else "")
            )
            continue
        spec, variants, point_of = _sweep_spec(paper, exp, mode, scenarios)
        t0 = time.perf_counter()
        log(f"{exp.name}: {len(variants)} runs ({exp.figure}, {exp.title})")
        table = run_sweep(
            spec,
            outdir=out / "runs" / exp.name,
            jobs=jobs,
            ray_address=ray_address,
            progress=progress,
        )
        runs_by_exp[exp.name] = _runs_of(table, variants, point_of, out / "runs" / exp.name)
        failed = [r for r in runs_by_exp[exp.name] if not r.ok]
        log(
            f"{exp.name}: done in {time.perf_counter() - t0:.0f} s"
            + (f", {len(failed)} failed" if failed else "")
        )
    claims: list[ClaimResult] = []
    done = []
    for exp in chosen:
        runs = runs_by_exp[exp.shares or exp.name]
        note = ""
        try:
            metrics = exp.analyze(runs)
            metrics.to_csv(out / "metrics" / f"{exp.name}.csv", index=False)
        except Exception as exc:  # an experiment whose runs failed still gets its row
            metrics, note = None, f"{type(exc).__name__}: {exc}"
            claims.append(
                ClaimResult(
                    experiment=exp.name,
                    figure=exp.figure,
                    section=exp.section,
                    claim=f"{exp.figure}: the experiment ran",
                    paper="-",
                    measured="not measured",
                    direction_agrees=None,
                    ratio=None,
                    effect=None,
                    tolerance="-",
                    verdict=NOT_MEASURED,
                    note=note,
                )
            )
        if metrics is not None:
            try:
                exp.draw(metrics, runs, out / "figures" / f"{exp.name}.png")
            except Exception as exc:
                note = f"{type(exc).__name__}: {exc}"
            claims += exp.verdicts(metrics)
        done.append((exp, metrics, note))
    _write_claims(claims, out)
    _write_report(paper, mode, done, out, scenarios)
    return claims
