"""Figures the papers' experiments share, drawn from a metrics table (see `stats`): bars per
scheme clustered by group, and lines per scheme against a setting, faceted."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from hopsim.reproduce.stats import get

__all__ = ["bars", "by_x", "palette"]

#: A scheme's colour in every figure of a paper (see `palette`).
Colors = Callable[[str], str]


def palette(order: Sequence[str]) -> Colors:
    """One fixed colour per scheme, in `order` (others get a colour from their name)."""
    fixed = list(order)

    def color(scheme: str) -> str:
        i = fixed.index(scheme) if scheme in fixed else len(fixed) + sum(map(ord, scheme))
        return f"C{i % 10}" if i < 10 else ("#8c564b", "#17becf", "#bcbd22", "#7f7f7f")[i % 4]

    return color


def bars(
    metrics: pd.DataFrame,
    path: Path,
    cols: list[tuple[str, str]],
    title: str,
    log: bool = True,
    colors: Colors | None = None,
) -> None:
    """One panel per (column, label); a bar per scheme, clustered by group."""
    from matplotlib.figure import Figure

    groups = list(dict.fromkeys(metrics["group"]))
    schemes = list(dict.fromkeys(metrics["scheme"]))
    fig = Figure(figsize=(3.6 * len(cols), 3.4), layout="constrained")
    axes = fig.subplots(1, len(cols), squeeze=False)[0]
    width = 0.8 / max(len(schemes), 1)
    for ax, (col, label) in zip(axes, cols):
        for i, s in enumerate(schemes):
            ys = [get(metrics, s, col, group=g) for g in groups]
            xs = [gi + (i - (len(schemes) - 1) / 2) * width for gi in range(len(groups))]
            color = colors(s) if colors else None
            ax.bar(xs, [0 if math.isnan(y) else y for y in ys], width, label=s, color=color)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, fontsize=8)
        ax.set_ylabel(label, fontsize=8)
        if log:
            ax.set_yscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.savefig(path, dpi=110, metadata={"Software": None})


def by_x(
    metrics: pd.DataFrame,
    path: Path,
    x: str,
    cols: list[tuple[str, str]],
    title: str,
    facet: str | None = None,
    log: bool = True,
    xlabel: str | None = None,
    colors: Colors | None = None,
) -> None:
    """A grid: one row per (column, label), one column per `facet` value; a line per
    scheme against `x` (runs that failed left out)."""
    from matplotlib.figure import Figure

    m = metrics[metrics["status"].isin(["ok", "incomplete"])] if "status" in metrics else metrics
    facets = list(dict.fromkeys(m[facet])) if facet and facet in m else [None]
    fig = Figure(figsize=(3.3 * len(facets) + 0.6, 2.7 * len(cols)), layout="constrained")
    axes = fig.subplots(len(cols), len(facets), squeeze=False)
    for j, fv in enumerate(facets):
        d = m if fv is None else m[m[facet] == fv]
        for i, (col, label) in enumerate(cols):
            ax = axes[i][j]
            for s, ds in d.groupby("scheme", sort=False):
                ds = ds.sort_values(x)
                if col in ds:
                    color = colors(s) if colors else None
                    ax.plot(ds[x], ds[col], marker="o", ms=3, label=s, color=color)
            if i == 0 and fv is not None:
                ax.set_title(str(fv), fontsize=9)
            if j == 0:
                ax.set_ylabel(label, fontsize=8)
            if i == len(cols) - 1:
                ax.set_xlabel(xlabel or x, fontsize=8)
            if log:
                ax.set_yscale("log")
            ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=6)
    fig.suptitle(title, fontsize=9)
    fig.savefig(path, dpi=110, metadata={"Software": None})
