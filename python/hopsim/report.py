"""A report comparing runs: the run list, a side-by-side metric table, per-class,
per-size, QCT, queuing-delay and buffer tables, and the figures of `hopsim.plots`.

``write_report`` writes the figures as PNGs plus either a self-contained ``report.html``
(figures embedded as data URIs) or ``report.md`` (figures linked). Every number in its
tables is a value of the DataFrame the analysis API returns, printed with
`format_value`.
"""

from __future__ import annotations

import base64
import html
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import pandas as pd

import hopsim
from hopsim import analysis, plots
from hopsim.results import Result, check_outdir

__all__ = ["Table", "format_value", "load_runs", "report_tables", "write_report"]

RunSource = Union[str, os.PathLike, Result]
#: Run directories or Results, as a list or keyed by label.
ReportRuns = Union[Sequence[RunSource], Mapping[str, RunSource]]

_CAPTIONS = {
    "slowdown": "p50 and p99 FCT slowdown of finished flows per flow-size bucket (the buckets "
    "of the run summary), each point at its bucket's median flow size and labelled with its "
    "number of finished flows; both axes logarithmic.",
    "cdf": "CDF of the FCT of finished flows, over all flows and per flow class.",
    "throughput": "Delivered payload per flow class over time.",
    "queues": "Egress queue length of the busiest ports (largest mean occupancy); the "
    "legend gives node:port and the port's hop tier.",
    "buffers": "Peak shared-buffer occupancy per switch tier and peak egress queue per hop tier.",
    "pauses": "Number of (sending port, class) pauses in force at once, each run's own flow "
    "control's (PFC's priorities, BFC's queues, Pyrrha's roots...); the legend gives its name, "
    "maximum and time average.",
}

_STYLE = """
body { font-family: sans-serif; max-width: 72em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }
th, td { text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1em 0 2em; } figcaption { color: #555; font-size: 90%; }
img { max-width: 100%; } .note { color: #777; font-style: italic; }
.banner { background: #fff3cd; border: 1px solid #e0c36c; padding: 0.6em 1em; }
"""


def format_value(v: Any) -> str:
    """A table cell: integers in full, other numbers to four significant digits (one
    decimal from 100 on), ``–`` for missing values."""
    if v is None or v is pd.NA:
        return "–"
    if isinstance(v, str):
        return v
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return "yes" if v else "no"
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(x):
        return "–"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    if abs(x) >= 1e15 or abs(x) < 1e-3:
        return f"{x:.3e}"
    if abs(x) >= 100:
        return f"{x:.1f}"
    return f"{x:.4g}"


@dataclass(frozen=True)
class Table:
    """A report table: ``key`` (its HTML id), ``title`` and the ``frame`` it prints
    (with its index as the first column unless ``index=False``)."""

    key: str
    title: str
    frame: pd.DataFrame
    index: bool = True

    def numeric(self) -> list[bool]:
        """Which printed columns hold numbers (right-aligned)."""
        cols = [pd.api.types.is_numeric_dtype(self.frame[c]) for c in self.frame.columns]
        return ([False] if self.index else []) + cols

    def cells(self) -> tuple[list[str], list[list[str]]]:
        """Header and rows as strings."""
        df = self.frame
        head = [str(c) for c in df.columns]
        rows = [[format_value(v) for v in row] for row in df.itertuples(index=False)]
        if self.index:
            head = [str(df.index.name or "")] + head
            rows = [[format_value(i)] + r for i, r in zip(df.index, rows)]
        return head, rows


def load_runs(runs: ReportRuns, labels: Sequence[str] | None = None) -> dict[str, Result]:
    """Runs keyed by label: run directories are read (labelled by folder name), Results
    kept (labelled as in `analysis.labelled`); ``labels`` replaces the labels in order."""
    return _load_runs(runs, labels)[0]


def _load_runs(
    runs: ReportRuns, labels: Sequence[str] | None
) -> tuple[dict[str, Result], list[str]]:
    """The runs keyed by label, and where each came from (a directory or ``""``)."""
    items = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    if not items:
        raise ValueError("no runs to report")
    loaded = [r if isinstance(r, Result) else _read(r) for r in items]
    sources = ["" if isinstance(r, Result) else str(r) for r in items]
    if isinstance(runs, Mapping):
        names = [str(k) for k in runs]
    else:
        auto = list(analysis.labelled(loaded))
        names = [Path(s).resolve().name if s else a for s, a in zip(sources, auto)]
        if len(set(names)) < len(names):
            names = [f"{n} #{i + 1}" for i, n in enumerate(names)]
    if labels is not None:
        names = [str(x) for x in labels]
        if len(names) != len(loaded):
            runs_word = "run" if len(loaded) == 1 else "runs"
            raise ValueError(f"got {len(names)} labels for {len(loaded)} {runs_word}")
        if len(set(names)) < len(names):
            raise ValueError(f"labels must be distinct, got {', '.join(names)}")
    return dict(zip(names, loaded)), sources


def _read(run: str | os.PathLike[str]) -> Result:
    path = Path(run)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such directory")
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: not a directory, expected a hopsim output directory")
    return Result.read(path)


def _runs_table(runs: Mapping[str, Result], sources: Sequence[str]) -> pd.DataFrame:
    rows = []
    for (label, r), source in zip(runs.items(), sources):
        s, sc = r.summary, r.scenario
        topology = sc.get("topology", {}) if isinstance(sc, dict) else {}
        rows.append(
            {
                "run": label,
                "scenario": str(s.get("scenario_name", "")),
                "seed": s.get("seed"),
                "topology": str(topology.get("kind", "")),
                "flow control": analysis.flow_control_of(r),
                "simulated (ms)": (s.get("sim_time_ns") or math.nan) / 1e6,
                "flows": s.get("flows_total"),
                "finished": s.get("flows_finished"),
                "status": r.status,
                "hopsim": str(s.get("hopsim_version", "")),
                "source": source,
            }
        )
    return pd.DataFrame(rows).set_index("run")


def report_tables(runs: Mapping[str, Result], sources: Sequence[str] = ()) -> list[Table]:
    """The tables of the report, in order, each from the analysis API; ``sources``
    names where each run came from."""
    sources = list(sources) + [""] * (len(runs) - len(sources))
    tables = [
        Table("runs", "Runs", _runs_table(runs, sources)),
        Table("compare", "Comparison", analysis.compare(runs)),
    ]
    numbered = list(enumerate(runs.items(), start=1))
    for i, (label, r) in numbered:
        tables.append(
            Table(f"classes-{i}", f"Slowdown per flow class: {label}", analysis.class_summary(r))
        )
    for i, (label, r) in numbered:
        tables.append(
            Table(f"slowdown-{i}", f"Slowdown by flow size: {label}", r.slowdown_by_size())
        )
    if any(len(r.qct()) for r in runs.values()):
        qct = pd.DataFrame({label: analysis.qct_summary(r) for label, r in runs.items()}).T
        qct.index.name = "run"
        tables.append(Table("qct", "Query completion time", qct))
    for i, (label, r) in numbered:
        delay = analysis.queue_delay_summary(r)
        if not delay.empty:
            tables.append(Table(f"queue-delay-{i}", f"Queuing delay per hop tier: {label}", delay))
    for i, (label, r) in numbered:
        peaks = analysis.buffer_by_tier(r)
        if not peaks.empty:
            tables.append(
                Table(f"buffers-{i}", f"Peak buffer and queue per tier: {label}", peaks, False)
            )
    return tables


def write_report(
    runs: ReportRuns,
    outdir: str | os.PathLike[str],
    fmt: str = "html",
    *,
    labels: Sequence[str] | None = None,
    figures: Iterable[str] | None = None,
    force: bool = False,
    title: str = "hopsim report",
) -> Path:
    """Write a report comparing ``runs`` (run directories or Results, a list or a
    mapping label → run) into ``outdir``; returns the path of ``report.html`` (``fmt=
    "html"``, self-contained) or ``report.md`` (``fmt="md"``, next to the PNGs).
    ``figures`` names the figure kinds to draw (`plots.KINDS`; default all).

    Refuses (`FileExistsError`) a non-empty ``outdir`` unless ``force`` is true.
    """
    if fmt not in ("html", "md"):
        raise ValueError(f"format must be 'html' or 'md', got {fmt!r}")
    keyed, sources = _load_runs(runs, labels)
    path = check_outdir(outdir, force)
    tables = report_tables(keyed, sources)
    drawn = plots.write_plots(keyed, path, figures, force=True)
    render = _html if fmt == "html" else _markdown
    out = path / f"report.{fmt}"
    out.write_text(render(title, keyed, tables, drawn), encoding="utf-8")
    # Files of an earlier report here (force=True) that this one does not include.
    kept = {p.path.name for p in drawn if p.path is not None}
    stale = [name for name, _, _ in plots.KINDS.values() if name not in kept]
    stale.append("report.md" if fmt == "html" else "report.html")
    for name in stale:
        if (path / name).is_file():
            (path / name).unlink()
    return out


def _intro(runs: Mapping[str, Result]) -> str:
    return (
        f"{len(runs)} run{'s' if len(runs) != 1 else ''} ({', '.join(runs)}), "
        f"written by hopsim {hopsim.__version__}. Slowdown is FCT / ideal FCT of finished "
        "flows; pNN are percentiles; times in ns unless stated; sizes in bytes."
    )


def banner(runs: Mapping[str, Result]) -> list[str]:
    """Warnings a reader must not miss: runs whose flows did not all finish."""
    out = []
    for label, r in runs.items():
        if r.status != "complete":
            total = len(r.flows)
            done = int(r.flows["finish_ns"].notna().sum())
            out.append(
                f"Run {label} is incomplete: {total - done:,} of {total:,} flows did not "
                "finish, so its FCT and slowdown figures cover the finished flows only."
            )
    return out


def _html(title: str, runs, tables: list[Table], figures: list[plots.Plot]) -> str:
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        f"<p>{e(_intro(runs))}</p>",
    ]
    parts += [f'<p class="banner" id="banner">{e(b)}</p>' for b in banner(runs)]
    for t in tables:
        head, rows = t.cells()
        parts.append(f'<h2>{e(t.title)}</h2>\n<table id="{e(t.key)}">')
        parts.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>")
        numeric = t.numeric()
        for row in rows:
            cells = [f"<th>{e(row[0])}</th>"] if t.index else []
            cells += [
                f'<td class="num">{e(c)}</td>' if n else f"<td>{e(c)}</td>"
                for c, n in zip(row[len(cells) :], numeric[len(cells) :])
            ]
            parts.append("<tr>" + "".join(cells) + "</tr>")
        parts.append("</table>")
    parts.append("<h2>Figures</h2>")
    for f in figures:
        if f.path is None:
            parts.append(f'<h3>{e(f.title)}</h3>\n<p class="note">Not drawn: {e(f.note)}.</p>')
            continue
        data = base64.b64encode(f.path.read_bytes()).decode("ascii")
        parts.append(
            f'<figure id="fig-{e(f.kind)}"><h3>{e(f.title)}</h3>'
            f'<img alt="{e(f.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{e(_CAPTIONS.get(f.kind, ''))} ({e(f.path.name)})</figcaption>"
            "</figure>"
        )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown(title: str, runs, tables: list[Table], figures: list[plots.Plot]) -> str:
    lines = [f"# {title}", "", _intro(runs), ""]
    lines += [f"> **Warning:** {b}\n" for b in banner(runs)]
    for t in tables:
        head, rows = t.cells()
        lines += [f"## {t.title}", "", f"<!-- table: {t.key} -->"]
        lines.append("| " + " | ".join(_md_cell(h) for h in head) + " |")
        lines.append("|" + "|".join("---:" if n else "---" for n in t.numeric()) + "|")
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
        lines.append("")
    lines += ["## Figures", ""]
    for f in figures:
        lines += [f"### {f.title}", ""]
        if f.path is None:
            lines += [f"*Not drawn: {f.note}.*", ""]
        else:
            lines += [f"![{f.title}]({f.path.name})", "", _CAPTIONS.get(f.kind, ""), ""]
    return "\n".join(lines)
