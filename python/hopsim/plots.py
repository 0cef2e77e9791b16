"""Figures of one or several runs: FCT slowdown by flow size, FCT CDFs, throughput per
flow class, queue length, buffer occupancy per tier and the pause spread (of each run's
flow control).

Each figure function takes a `Result`, a list of them, or a mapping label → `Result`
(see `analysis.labelled`) and returns a matplotlib `Figure`, drawn off-screen with the
Agg renderer (pyplot and the display are never touched). A figure with nothing to draw
raises `NoData` saying why. `write_plots` saves them as PNGs with fixed names (`KINDS`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from hopsim import analysis
from hopsim.analysis import Runs
from hopsim.results import DEFAULT_SIZE_BUCKETS, check_outdir

__all__ = [
    "KINDS",
    "NoData",
    "Plot",
    "buffer_by_tier",
    "check_plot_dir",
    "congestion_trees",
    "fct_cdf",
    "pause_spread",
    "queue_length",
    "slowdown_vs_size",
    "throughput",
    "write_plots",
]

_DPI = 120
# Switch, node and hop tiers in one order, for bar charts.
_TIER_ORDER = ("host", "src_tor", "tor", "agg", "spine", "core", "dst_tor")


class NoData(ValueError):
    """A figure has nothing to draw; the message says why."""


def _figure(
    rows: int = 1, cols: int = 1, height: float = 3.6, share: bool = False
) -> tuple[Figure, list]:
    """A figure of ``rows × cols`` panels; ``share`` gives them one x and one y scale."""
    fig = Figure(figsize=(6.4 if cols == 1 else 3.4 * cols, height * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, sharex=share, sharey=share)
    return fig, [ax for row in axes for ax in row]


def _finished_note(runs) -> str:
    """``" (finished flows only: 85 of 100 in run A)"`` when a run is incomplete."""
    parts = []
    for label, r in runs.items():
        total = len(r.flows)
        done = int(r.flows["finish_ns"].notna().sum())
        if done < total:
            parts.append(f"{done} of {total} in {label}" if len(runs) > 1 else f"{done} of {total}")
    return f" (finished flows only: {'; '.join(parts)})" if parts else ""


def _curve(result, buckets: Sequence[float], percentiles: Sequence[float]):
    """Slowdown percentiles per size bucket, placed at the bucket's median flow size."""
    table = result.slowdown_by_size(buckets, percentiles)
    done = result.flows[result.flows["slowdown"].notna()]
    bucket = np.searchsorted(np.asarray(buckets, dtype="float64"), done["size_bytes"], "left")
    table["size_bytes"] = [
        float(np.median(done["size_bytes"][bucket == i])) if n else math.nan
        for i, n in enumerate(table["count"])
    ]
    return table[table["count"] > 0]


def slowdown_vs_size(
    runs: Runs,
    *,
    percentiles: Sequence[float] = (50, 99),
    buckets: Sequence[float] | None = None,
) -> Figure:
    """FCT slowdown against flow size, both axes logarithmic: one line per percentile and
    run, each point a size bucket (by default the buckets of the summary `hopsim run`
    prints, `DEFAULT_SIZE_BUCKETS`) at its median flow size, labelled with its number of
    finished flows."""
    runs = analysis.labelled(runs)
    edges = list(DEFAULT_SIZE_BUCKETS if buckets is None else buckets)
    curves = {label: _curve(r, edges, percentiles) for label, r in runs.items()}
    if all(c.empty for c in curves.values()):
        raise NoData("no finished flows")
    fig, (ax,) = _figure()
    styles = ("-", "--", ":", "-.")
    for i, (label, c) in enumerate(curves.items()):
        for j, p in enumerate(percentiles):
            ax.plot(
                c["size_bytes"],
                c[f"p{p:g}"],
                styles[j % len(styles)],
                marker="o",
                markersize=3,
                color=f"C{i}",
                label=f"{label} p{p:g}",
            )
        top = c[f"p{max(percentiles):g}"]
        for x, y, n in zip(c["size_bytes"], top, c["count"]):
            ax.annotate(
                f"n={int(n)}",
                (x, y),
                textcoords="offset points",
                xytext=(0, 4 + 9 * i),
                ha="center",
                fontsize="x-small",
                color=f"C{i}",
            )
    ax.set_xscale("log")
    lo, hi = ax.dataLim.intervaly
    if lo > 0 and hi / lo > 10:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.margins(x=0.08, y=0.15)  # room for the n= labels
    ax.set_xlabel("flow size (bytes; bucket median)")
    ax.set_ylabel("FCT slowdown")
    ax.set_title("FCT slowdown by flow size" + _finished_note(runs), fontsize="medium")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def fct_cdf(runs: Runs, *, metric: str = "fct_ns") -> Figure:
    """CDFs of FCT (or ``metric="slowdown"``) of finished flows: one panel for all flows
    and one per flow class, one line per run."""
    runs = analysis.labelled(runs)
    cdfs = {label: analysis.fct_cdf(r, metric=metric) for label, r in runs.items()}
    by_class = {label: analysis.fct_cdf(r, "class", metric=metric) for label, r in runs.items()}
    if all(c.empty for c in cdfs.values()):
        raise NoData("no finished flows")
    groups = analysis._ordered(
        (g for c in by_class.values() for g in c["group"].unique()), analysis.CLASSES
    )
    fig, axes = _figure(1, 1 + len(groups), height=3.4)
    fig.suptitle(("FCT" if metric == "fct_ns" else "Slowdown") + " CDF" + _finished_note(runs))
    scale, unit = (1e3, "FCT (us)") if metric == "fct_ns" else (1.0, "FCT slowdown")
    for ax, group in zip(axes, ["all", *groups]):
        for i, label in enumerate(runs):
            c = cdfs[label] if group == "all" else by_class[label]
            c = c[c["group"] == group]
            if len(c):
                ax.plot(
                    c[metric] / scale,
                    c["fraction"],
                    drawstyle="steps-post",
                    color=f"C{i}",
                    label=label,
                )
        _log_x_if_wide(ax)
        ax.set_xlabel(unit)
        ax.set_title(f"{group} flows" if group == "all" else group)
        ax.set_ylim(0, 1.02)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("fraction of flows")
    axes[0].legend(fontsize="small")
    return fig


def _per_run_panels(data: dict, what: str, setting: str) -> tuple[Figure, list, list[str]]:
    """One panel per run that has data, all on one x and one y scale; the runs without
    data are named in the title with the scenario ``setting`` that records ``what``
    (``"output.queues.interval=10us"``)."""
    drawn = [label for label, d in data.items() if not d.empty]
    how = f"add --set {setting} to hopsim run, or [{setting.rsplit('.', 1)[0]}] to the scenario"
    if not drawn:
        runs = "the run" if len(data) == 1 else "any run"
        raise NoData(f"{what} not recorded in {runs} ({how})")
    fig, axes = _figure(len(drawn), 1, height=2.6, share=True)
    missing = [label for label in data if label not in drawn]
    if missing:
        fig.suptitle(
            f"{what} not recorded in: {', '.join(missing)} ({how})", fontsize="small", color="0.4"
        )
    return fig, axes, drawn


def throughput(runs: Runs) -> Figure:
    """Delivered throughput (Gb/s) per flow class over time, one panel per run that
    recorded it (``[output.throughput]``), all panels on one scale."""
    runs = analysis.labelled(runs)
    data = {label: analysis.throughput_by_class(r) for label, r in runs.items()}
    fig, axes, drawn = _per_run_panels(data, "throughput", "output.throughput.interval=10us")
    for ax, label in zip(axes, drawn):
        tp = data[label]
        for j, cls in enumerate(tp.columns):
            ax.plot(tp.index / 1e3, tp[cls], drawstyle="steps-post", color=f"C{j}", label=str(cls))
        ax.set_title(label)
        ax.set_ylabel("Gb/s")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    axes[-1].set_xlabel("time (us)")
    return fig


def queue_length(
    runs: Runs, *, top: int = 5, ports: Sequence[tuple[int, int]] | None = None
) -> Figure:
    """Egress queue length (KB) over time of the ``top`` busiest ports (or ``ports``),
    one panel per run that sampled queues, all panels on one scale; the legend gives
    ``node:port`` and the port's hop tier."""
    runs = analysis.labelled(runs)
    data = {label: analysis.queue_timeline(r, ports, top=top) for label, r in runs.items()}
    fig, axes, drawn = _per_run_panels(data, "queue samples", "output.queues.interval=10us")
    for ax, label in zip(axes, drawn):
        q = data[label]
        tiers = analysis.port_tiers(runs[label])
        for j, port in enumerate(q.columns):
            ax.plot(
                q.index / 1e3,
                q[port] / 1e3,
                drawstyle="steps-post",
                color=f"C{j}",
                label=f"{port} ({_hop_label(tiers.get(port, '?'), {label: runs[label]})})",
            )
        ax.set_title(label)
        ax.set_ylabel("queue (KB)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    axes[-1].set_xlabel("time (us)")
    return fig


def buffer_by_tier(runs: Runs) -> Figure:
    """Peak shared-buffer occupancy per switch tier and peak egress queue per hop tier,
    bars grouped by run (see `analysis.buffer_by_tier`). The hosts' NIC queues are left
    out when they never held a byte in any run (a host sends as its link frees)."""
    runs = analysis.labelled(runs)
    data = {label: analysis.buffer_by_tier(r) for label, r in runs.items()}
    panels = [
        (measure, title)
        for measure, title in (
            ("switch_buffer", "shared buffer per switch tier"),
            ("egress_queue", "egress queue per hop tier"),
        )
        if any((d["measure"] == measure).any() for d in data.values())
    ]
    if not panels:
        raise NoData(
            "no switch or port occupancy in any run (the ports and switches tables are empty)"
        )
    fig, axes = _figure(1, len(panels), height=3.4)
    width = 0.8 / len(runs)
    for ax, (measure, title) in zip(axes, panels):
        tiers = analysis._ordered(
            (t for d in data.values() for t in d.loc[d["measure"] == measure, "tier"]),
            _TIER_ORDER,
        )
        if measure == "egress_queue":
            tiers = [t for t in tiers if t != "host" or _peak(data, measure, t) > 0]
        x = np.arange(len(tiers))
        for i, (label, d) in enumerate(data.items()):
            peak = d[d["measure"] == measure].set_index("tier")["max_bytes"]
            heights = [peak.get(t, 0.0) / 1e3 for t in tiers]
            ax.bar(
                x + (i - (len(runs) - 1) / 2) * width, heights, width, color=f"C{i}", label=label
            )
        labels = [_hop_label(t, runs) for t in tiers] if measure == "egress_queue" else tiers
        ax.set_xticks(x, labels)
        ax.set_ylabel("peak (KB)")
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize="small")
    return fig


def _pause_note(label: str, s: analysis.PauseSpread) -> str:
    """What run ``label`` has, or lacks, for the pause-spread figure."""
    if not s.recorded:
        return (
            f"{label}: {s.frames:,} {s.policy} PAUSE frames sent but not recorded (set {s.missing})"
        )
    if s.policy == "none":
        return f"{label}: no flow control (nothing pauses)"
    if s.max == 0:
        return f"{label}: {s.policy} sent no PAUSE frames"
    return ""


def _hop_label(tier: str, runs) -> str:
    """A hop tier as figures name it: the ``agg`` hop of a two-tier fabric (every run's
    switches ToRs and spines) is its spines' hop, ``spine``."""
    if tier != "agg":
        return tier
    node_tiers = {str(t) for r in runs.values() for t in r.ports.get("tier", [])}
    return "spine" if "spine" in node_tiers and "agg" not in node_tiers else tier


def _peak(data: dict, measure: str, tier: str) -> float:
    """The largest ``max_bytes`` of ``measure`` at ``tier`` over the runs' tables."""
    peaks = [
        float(d.loc[(d["measure"] == measure) & (d["tier"] == tier), "max_bytes"].max())
        for d in data.values()
        if ((d["measure"] == measure) & (d["tier"] == tier)).any()
    ]
    return max(peaks, default=0.0)


def pause_spread(runs: Runs) -> Figure:
    """Number of pauses in force over time, one line per run, each run's own flow
    control's (PFC's priorities, BFC's queues, Pyrrha's roots...; see
    `analysis.pause_spread`), labelled with its name. Runs with nothing to draw are
    named in the title with the reason (no flow control, no PAUSE frames, or frames sent
    but not recorded and the ``[output]`` setting that records them)."""
    runs = analysis.labelled(runs)
    spreads = {label: analysis.pause_spread(r) for label, r in runs.items()}
    notes = {label: _pause_note(label, s) for label, s in spreads.items()}
    drawn = {k: s for k, s in spreads.items() if not notes[k]}
    if not drawn:
        raise NoData("; ".join(notes.values()))
    fig, (ax,) = _figure()
    for i, (label, s) in enumerate(spreads.items()):
        if label not in drawn:
            continue
        t = np.append(s.timeline["time_ns"].to_numpy(), s.end_ns)
        n = np.append(s.timeline["paused"].to_numpy(), s.timeline["paused"].iloc[-1])
        ax.plot(
            t / 1e3,
            n,
            drawstyle="steps-post",
            color=f"C{i}",
            label=f"{label}: {s.policy} (max {s.max:g}, mean {s.mean:.3g})",
        )
    policies = sorted({s.policy for s in drawn.values()})
    title = f"{', '.join(policies)} pauses in force"
    missing = [n for n in notes.values() if n]
    if missing:
        title += "\n" + "\n".join(missing)
    ax.set_title(title, fontsize="medium" if not missing else "small")
    ax.set_xlabel("time (us)")
    ax.set_ylabel("paused (port, class)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


#: Vertical position of each node tier in a topology drawing.
_TIER_ROW = {"host": 0, "tor": 1, "agg": 2, "spine": 2, "core": 3}


def _layout(ports) -> dict[int, tuple[float, float]]:
    """(x, y) of every node: one row per tier, nodes spread evenly in id order."""
    tiers = ports.drop_duplicates("node").set_index("node")["tier"].astype(str)
    pos = {}
    for tier, nodes in tiers.groupby(tiers):
        ids = sorted(nodes.index)
        for i, n in enumerate(ids):
            pos[int(n)] = ((i + 0.5) / len(ids), _TIER_ROW.get(tier, 4))
    return pos


def congestion_trees(result, times: Sequence[float] | None = None, panels: int = 4) -> Figure:
    """Pyrrha's congestion trees drawn on the topology at snapshot instants
    (``[output.congestion_trees]``): hosts at the bottom, then ToRs, aggregation and core
    switches; each tree in its own colour — its root a star, the links whose sending port
    holds an isolation queue for it drawn thick (solid: paused, dashed: resumed, dotted:
    soft-merging), the hosts told to stop its traffic ringed. ``times`` (ns) picks the
    instants (the nearest snapshots); by default the ``panels`` with the most ports in
    trees."""
    trees = result.congestion_trees
    if trees.empty:
        raise NoData(
            "no congestion trees (a Pyrrha run with --set output.congestion_trees.interval=20us, "
            "or [output.congestion_trees] in the scenario)"
        )
    instants = sorted(trees["time_ns"].unique())
    if times is None:
        sizes = trees.groupby("time_ns").size()
        chosen = sorted(sizes.sort_values(ascending=False, kind="stable").index[:panels])
    else:
        chosen = sorted({min(instants, key=lambda t, want=want: abs(t - want)) for want in times})
    ports = result.ports
    pos = _layout(ports)
    present = set(ports["tier"].astype(str))
    tier_rows = {
        y: "/".join(n for n, r in _TIER_ROW.items() if r == y and n in present)
        for y in sorted({y for _, y in pos.values()})
    }
    peer = {(int(r.node), int(r.port)): int(r.peer_node) for r in ports.itertuples()}
    fig, axes = _figure(1, len(chosen), height=3.4)
    palette = [
        "tab:red",
        "tab:blue",
        "tab:green",
        "tab:orange",
        "tab:purple",
        "tab:brown",
        "tab:pink",
    ]
    style = {"paused": "-", "resumed": "--", "merging": ":", "root": "-"}
    for ax, t in zip(axes, chosen):
        for r in ports.itertuples():
            if r.node < r.peer_node:
                (x0, y0), (x1, y1) = pos[int(r.node)], pos[int(r.peer_node)]
                ax.plot([x0, x1], [y0, y1], color="0.85", lw=0.4, zorder=1)
        snap = trees[trees["time_ns"] == t]
        roots = sorted({(int(a), int(b)) for a, b in zip(snap["root_node"], snap["root_port"])})
        for k, root in enumerate(roots):
            color = palette[k % len(palette)]
            rows = snap[(snap["root_node"] == root[0]) & (snap["root_port"] == root[1])]
            for r in rows.itertuples():
                node = int(r.node)
                if r.role == "host":
                    ax.scatter(*pos[node], s=40, facecolors="none", edgecolors=color, zorder=4)
                    continue
                other = peer.get((node, int(r.port)))
                if other is None:
                    continue
                (x0, y0), (x1, y1) = pos[node], pos[other]
                ax.plot(
                    [x0, x1], [y0, y1], color=color, lw=2.2, ls=style.get(r.state, "-"), zorder=3
                )
                if r.role == "root":
                    ax.scatter(
                        (x0 + x1) / 2, (y0 + y1) / 2, marker="*", s=160, color=color, zorder=5
                    )
        ax.set_title(f"{t / 1e3:.1f} us: {len(roots)} root{'s' * (len(roots) != 1)}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks(list(tier_rows), list(tier_rows.values()), fontsize=7)
        ax.set_xlim(-0.02, 1.02)
    fig.suptitle(
        "Congestion trees (star: root; thick: IQ paused, dashed: resumed, dotted: merging)",
        fontsize=9,
    )
    return fig


def _log_x_if_wide(ax) -> None:
    """Log x axis with plain tick labels when the data span more than a decade."""
    lo, hi = ax.dataLim.intervalx
    if lo > 0 and hi / lo > 10:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())


def _note(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")


#: Figure kinds: name → (file name, figure function, title).
KINDS: dict[str, tuple[str, Callable[[Runs], Figure], str]] = {
    "slowdown": ("slowdown_vs_size.png", slowdown_vs_size, "FCT slowdown by flow size"),
    "cdf": ("fct_cdf.png", fct_cdf, "FCT CDF"),
    "throughput": ("throughput_by_class.png", throughput, "Throughput per flow class"),
    "queues": ("queue_length.png", queue_length, "Queue length of the busiest ports"),
    "buffers": ("buffer_by_tier.png", buffer_by_tier, "Peak buffer and queue per tier"),
    "pauses": ("pause_spread.png", pause_spread, "Pause spread (each run's flow control)"),
}


@dataclass(frozen=True)
class Plot:
    """One figure of `write_plots`: its ``kind``, ``title`` and the ``path`` written, or
    ``path=None`` and the ``note`` saying why it was not drawn."""

    kind: str
    title: str
    path: Path | None
    note: str = ""


def save(fig: Figure, path: str | os.PathLike[str]) -> Path:
    """Write ``fig`` as a PNG (no timestamp or version in the file)."""
    path = Path(path)
    fig.savefig(path, dpi=_DPI, format="png", metadata={"Software": None})
    return path


def check_plot_dir(
    outdir: str | os.PathLike[str], force: bool = False, hint: str = "pass force=True"
) -> Path:
    """Like `check_outdir`, but a directory holding only figures hopsim draws (a
    previous ``hopsim plot`` into it) may be drawn into again without ``force``."""
    path = Path(outdir)
    figures = {name for name, _, _ in KINDS.values()}
    if path.is_dir() and all(p.name in figures for p in path.iterdir()):
        return path
    return check_outdir(path, force, hint)


def write_plots(
    runs: Runs,
    outdir: str | os.PathLike[str],
    kinds: Iterable[str] | None = None,
    *,
    force: bool = False,
    **options: dict,
) -> list[Plot]:
    """Draw the figures ``kinds`` (default: all of `KINDS`) of ``runs`` into ``outdir``
    as ``<name>.png``; ``options`` gives keyword arguments per kind (``cdf={"metric":
    "slowdown"}``). Refuses (`FileExistsError`) a directory holding other files than
    hopsim's figures without ``force``. Figures without data are listed with a note
    instead of a path."""
    kinds = list(KINDS) if kinds is None else list(kinds)
    unknown = [k for k in [*kinds, *options] if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown plot kind {unknown[0]!r} (expected one of {', '.join(KINDS)})")
    runs = analysis.labelled(runs)
    path = check_plot_dir(outdir, force)
    path.mkdir(parents=True, exist_ok=True)
    out = []
    for kind in kinds:
        name, draw, title = KINDS[kind]
        try:
            fig = draw(runs, **options.get(kind, {}))
        except NoData as exc:
            if (path / name).is_file():
                (path / name).unlink()  # a stale figure of an earlier call
            out.append(Plot(kind, title, None, str(exc)))
            continue
        out.append(Plot(kind, title, save(fig, path / name)))
    return out
