"""A report of a sweep's output directory: every metric against every swept parameter.

For each swept field (a column of ``results.parquet`` before ``seed``) one figure has a
panel per metric (`METRICS`); its x axis is that field's values and each line one
combination of the other swept fields, named by their values (``enabled=false``). With
several seeds per point, a line shows the mean over seeds and error bars the standard
deviation. Points that did not run are left out; points whose run left flows unfinished
(status ``incomplete``) are drawn hollow and listed in a banner.
"""

from __future__ import annotations

import base64
import html
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from hopsim import plots
from hopsim.report import Table, format_value
from hopsim.results import check_outdir

__all__ = ["METRICS", "is_sweep_dir", "read_sweep_table", "swept_fields", "write_sweep_report"]

#: Metrics drawn against each swept field: column → axis label.
METRICS: dict[str, str] = {
    "slowdown_p50": "slowdown p50",
    "slowdown_p99": "slowdown p99",
    "finished_share": "flows finished (share)",
    "drops": "drops",
    "pause_frames": "PAUSE frames (each run's flow control)",
    "pfc_pause_frames": "PFC pause frames",
    "timeouts": "timeouts",
}
# Counts: drawn with integer ticks.
_COUNTS = ("drops", "pause_frames", "pfc_pause_frames", "timeouts")
# One marker and line style per line, so lines that coincide stay visible (the first
# lines' markers are the largest, drawn underneath).
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINES = ("-", "--", "-.", ":")

_STYLE = """
body { font-family: sans-serif; max-width: 72em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
td.num { text-align: right; } img { max-width: 100%; }
.banner { background: #fff3cd; border: 1px solid #e0c36c; padding: 0.6em 1em; }
"""


def is_sweep_dir(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a sweep's output directory (``sweep.json`` and a results table)."""
    p = Path(path)
    return (p / "sweep.json").is_file() and (
        (p / "results.parquet").is_file() or (p / "results.csv").is_file()
    )


def read_sweep_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The results table of a sweep directory, with ``finished_share`` added."""
    p = Path(path)
    table = (
        pd.read_parquet(p / "results.parquet")
        if (p / "results.parquet").is_file()
        else pd.read_csv(p / "results.csv")
    )
    total = pd.to_numeric(table["flows_total"], errors="coerce").astype("float64")
    done = pd.to_numeric(table["flows_finished"], errors="coerce").astype("float64")
    table["finished_share"] = done / total.where(total > 0)
    return table


def swept_fields(table: pd.DataFrame) -> list[str]:
    """The swept fields: the columns between ``point`` and ``seed`` that take more than
    one value."""
    cols = list(table.columns[1 : table.columns.get_loc("seed")])
    return [c for c in cols if table[c].astype(str).nunique() > 1]


def _short(field: str, fields: Sequence[str]) -> str:
    """The last part of a dotted field that tells it apart from the other fields."""
    parts = field.split(".")
    for n in range(1, len(parts) + 1):
        tail = ".".join(parts[-n:])
        if not any(f != field and (f == tail or f.endswith("." + tail)) for f in fields):
            return tail
    return field


def _text(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _x_positions(values: pd.Series) -> tuple[np.ndarray, list[str] | None]:
    """Numeric x for numeric values; otherwise category positions and their labels."""
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.notna().all() and not values.map(lambda v: isinstance(v, bool)).any():
        return numeric.to_numpy(dtype="float64"), None
    labels = list(dict.fromkeys(_text(v) for v in values))
    return np.array([labels.index(_text(v)) for v in values], dtype="float64"), labels


def figure_for(table: pd.DataFrame, field: str, fields: Sequence[str]) -> Figure:
    """Every metric against ``field``: a line per combination of the other swept fields."""
    ran = table[table["status"].isin(["ok", "incomplete"])]
    if ran.empty:
        raise plots.NoData("no point of the sweep ran")
    others = [f for f in fields if f != field]
    metrics = [m for m in METRICS if m in ran.columns and ran[m].notna().any()]
    if "pause_frames" in metrics and "pfc_pause_frames" in metrics:
        metrics.remove("pfc_pause_frames")  # the PFC frames are among them
    cols = 3 if len(metrics) > 4 else 2
    rows = math.ceil(len(metrics) / cols)
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    x_all, categories = _x_positions(ran[field])
    ran = ran.assign(_x=x_all)
    groups = (
        list(ran.groupby([ran[o].map(_text) for o in others], sort=False))
        if others
        else [((), ran)]
    )
    for ax, metric in zip(axes, metrics):
        for i, (key, g) in enumerate(groups):
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{_short(o, fields)}={v}" for o, v in zip(others, key)) or "all"
            stats = g.groupby("_x")[metric].agg(["mean", "std", "count"]).sort_index()
            incomplete = g.groupby("_x")["status"].apply(lambda s: (s == "incomplete").any())
            err = stats["std"].where(stats["count"] > 1)
            ax.errorbar(
                stats.index,
                stats["mean"],
                yerr=None if err.isna().all() else err.fillna(0).to_numpy(),
                marker=_MARKERS[i % len(_MARKERS)],
                markersize=max(9 - 1.5 * i, 3.5),
                linestyle=_LINES[i % len(_LINES)],
                capsize=3,
                color=f"C{i}",
                label=label,
                zorder=2 + i,
            )
            hollow = incomplete.reindex(stats.index).fillna(False).to_numpy(dtype=bool)
            if hollow.any():
                ax.plot(
                    stats.index[hollow],
                    stats["mean"][hollow],
                    "o",
                    markersize=8,
                    markerfacecolor="white",
                    color=f"C{i}",
                )
        values = pd.to_numeric(ran[metric], errors="coerce").dropna()
        if metric == "finished_share":
            ax.set_ylim(0, 1.05)
        elif len(values) and (values == 0).all():
            # Nothing to scale on: an axis from 0 that says so (not a ±0.04 band).
            ax.set_ylim(-0.05, 1)
            ax.set_yticks([0])
            ax.text(
                0.5,
                0.5,
                "0 at every point",
                transform=ax.transAxes,
                ha="center",
                va="center",
                color="0.4",
                fontsize="small",
            )
        elif metric in _COUNTS:
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(METRICS[metric], fontsize="medium")
        ax.set_xlabel(_short(field, fields))
        if categories is not None:
            ax.set_xticks(range(len(categories)), categories)
        ax.grid(True, alpha=0.3)
    for ax in axes[len(metrics) :]:
        ax.set_visible(False)
    axes[0].legend(fontsize="small")
    seeds = table["seed"].nunique()
    note = f"mean ± std over {seeds} seeds; " if seeds > 1 else ""
    fig.suptitle(
        f"Metrics against {field} ({note}hollow: flows left unfinished)", fontsize="medium"
    )
    return fig


def _file_name(field: str) -> str:
    return "sweep_" + re.sub(r"[^A-Za-z0-9_.-]+", "-", field) + ".png"


def write_sweep_report(
    sweep_dir: str | os.PathLike[str],
    outdir: str | os.PathLike[str],
    fmt: str = "html",
    *,
    force: bool = False,
    title: str | None = None,
) -> Path:
    """Write the report of the sweep in ``sweep_dir`` into ``outdir`` (``report.html``,
    self-contained, or ``report.md`` beside the PNGs); return its path."""
    if fmt not in ("html", "md"):
        raise ValueError(f"format must be 'html' or 'md', got {fmt!r}")
    if not is_sweep_dir(sweep_dir):
        raise FileNotFoundError(f"{sweep_dir}: not a sweep output directory (no sweep.json)")
    table = read_sweep_table(sweep_dir)
    fields = swept_fields(table)
    path = check_outdir(outdir, force)
    path.mkdir(parents=True, exist_ok=True)
    figures: list[tuple[str, Path | None, str]] = []
    for field in fields:
        try:
            fig = figure_for(table, field, fields)
        except plots.NoData as exc:
            figures.append((field, None, str(exc)))
            continue
        figures.append((field, plots.save(fig, path / _file_name(field)), ""))
    shown = ["point", *fields, "seed", "status", "flows_finished", "flows_total"]
    shown += [m for m in METRICS if m in table.columns and m not in shown]
    points = Table("points", "Points", table[shown].set_index("point"))
    name = title or f"hopsim sweep report: {Path(sweep_dir).resolve().name}"
    incomplete = table.loc[table["status"] == "incomplete", "point"].tolist()
    failed = table.loc[table["status"].isin(["failed", "pending"]), "point"].tolist()
    banner = []
    if incomplete:
        banner.append(
            f"{len(incomplete)} of {len(table)} points ended with unfinished flows (points "
            f"{', '.join(map(str, incomplete))}): their slowdowns cover finished flows only."
        )
    if failed:
        banner.append(f"{len(failed)} points did not run (points {', '.join(map(str, failed))}).")
    render = _html if fmt == "html" else _markdown
    out = path / f"report.{fmt}"
    out.write_text(render(name, fields, banner, points, figures), encoding="utf-8")
    return out


def _html(title, fields, banner, points: Table, figures) -> str:
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        f"<p>Swept: {e(', '.join(fields) or 'nothing (one point)')}.</p>",
    ]
    parts += [f'<p class="banner">{e(b)}</p>' for b in banner]
    head, rows = points.cells()
    parts.append(f'<h2>{e(points.title)}</h2><table id="{points.key}">')
    parts.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>")
    parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows]
    parts.append("</table><h2>Figures</h2>")
    for field, fig, note in figures:
        if fig is None:
            parts.append(f"<h3>{e(field)}</h3><p>Not drawn: {e(note)}.</p>")
            continue
        data = base64.b64encode(fig.read_bytes()).decode("ascii")
        parts.append(
            f'<figure><h3>{e(field)}</h3><img alt="{e(field)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{e(fig.name)}</figcaption></figure>'
        )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _markdown(title, fields, banner, points: Table, figures) -> str:
    lines = [f"# {title}", "", f"Swept: {', '.join(fields) or 'nothing (one point)'}.", ""]
    lines += [f"> **Warning:** {b}" for b in banner] + ([""] if banner else [])
    head, rows = points.cells()
    lines += [f"## {points.title}", "", "| " + " | ".join(head) + " |"]
    lines.append("|" + "|".join("---" for _ in head) + "|")
    lines += ["| " + " | ".join(format_value(c) for c in row) + " |" for row in rows]
    lines += ["", "## Figures", ""]
    for field, fig, note in figures:
        lines += [f"### {field}", ""]
        lines += [f"*Not drawn: {note}.*" if fig is None else f"![{field}]({fig.name})", ""]
    return "\n".join(lines)
