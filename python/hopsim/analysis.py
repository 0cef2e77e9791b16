"""Analysis of runs: per-class and per-size statistics, CDFs, query completion, PFC pause
spread, throughput, queue and buffer occupancy, and several runs side by side.

Every function takes a `Result` (or, for `compare`, several) and returns pandas objects.
Tables a run did not record (queue samples, throughput bins, ...) give empty frames, so
callers can test ``.empty`` instead of catching errors. The same functions are methods of
`Result` (``result.class_summary()`` is ``class_summary(result)``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from hopsim.results import Result

__all__ = [
    "CLASSES",
    "HOP_TIERS",
    "SWITCH_TIERS",
    "PauseSpread",
    "buffer_by_tier",
    "class_summary",
    "compare",
    "fct_cdf",
    "flow_control_of",
    "labelled",
    "pause_frames_sent",
    "pause_spread",
    "paused_port_time_ns",
    "port_label",
    "port_tiers",
    "qct_summary",
    "queue_delay_summary",
    "queue_timeline",
    "table",
    "throughput_by_class",
]

#: Flow classes, in display order (see docs/model.md, "Class").
CLASSES: tuple[str, ...] = ("congested", "vulnerable", "background")
#: Tiers of switches (``Result.switches.tier``, ``Result.buffers.tier``).
SWITCH_TIERS: tuple[str, ...] = ("tor", "agg", "spine", "core")
#: Roles of egress ports along a path (``hop_tier`` columns), in path order (a
#: leaf-spine's spine sends on the ``agg`` hop, between the two ToRs).
HOP_TIERS: tuple[str, ...] = ("host", "src_tor", "agg", "core", "dst_tor")
# Tiers of the node owning a port (``Result.ports.tier``), for runs without ``hop_tier``.
_NODE_TIERS: tuple[str, ...] = ("host", "tor", "agg", "spine", "core")

#: One run, several runs (labelled by scenario name) or runs keyed by label.
Runs = Union["Result", Sequence["Result"], Mapping[str, "Result"]]


# ------------------------------------------------------------ helpers


def table(result: Result, name: str) -> pd.DataFrame:
    """The run's table ``name`` (``"queues"``, ``"throughput"``, ...), or an empty frame
    when the run, or the hopsim that wrote it, has no such table."""
    df = getattr(result, name, None)
    return df if isinstance(df, pd.DataFrame) else pd.DataFrame()


def labelled(runs: Runs) -> dict[str, Result]:
    """Runs keyed by label. A mapping is kept as is; a single `Result` or a list is
    labelled by scenario name, made unique with the seed and then the position."""
    if isinstance(runs, Mapping):
        return {str(k): v for k, v in runs.items()}
    items = [runs] if hasattr(runs, "flows") else list(runs)
    names = [str(r.summary.get("scenario_name") or "run") for r in items]
    if len(set(names)) < len(names):
        names = [f"{n} (seed {r.summary.get('seed')})" for n, r in zip(names, items)]
    if len(set(names)) < len(names):
        names = [f"{n} #{i + 1}" for i, n in enumerate(names)]
    return dict(zip(names, items))


def port_label(node: int, port: int) -> str:
    """The column label of a port in `queue_timeline`, e.g. ``"8:3"``."""
    return f"{int(node)}:{int(port)}"


def _ordered(values: Iterable[Any], known: Sequence[str]) -> list[str]:
    """``values`` as strings, the ``known`` ones first in their order, then the rest sorted."""
    present = {str(v) for v in values if not pd.isna(v)}
    return [k for k in known if k in present] + sorted(present - set(known))


def _pcol(p: float) -> str:
    return f"p{p:g}"


def _quantile(s: pd.Series, p: float) -> float:
    return float(s.quantile(p / 100)) if len(s) else math.nan


def _end_ns(result: Result) -> float:
    """Simulated duration of the run (0 when unknown)."""
    return float(result.summary.get("sim_time_ns") or 0.0)


def _finished(flows: pd.DataFrame) -> pd.DataFrame:
    return flows[flows["slowdown"].notna()]


def _size_bucket(sizes: pd.Series, buckets: Sequence[float] | None) -> pd.Series:
    from hopsim.results import DEFAULT_SIZE_BUCKETS, _bucket_labels

    edges = [float(b) for b in (DEFAULT_SIZE_BUCKETS if buckets is None else buckets)]
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"buckets must be increasing, got {edges}")
    bins = [-math.inf, *edges, math.inf]
    return pd.cut(sizes, bins=bins, labels=_bucket_labels(edges), right=True)


# ------------------------------------------------------------ flows


def class_summary(result: Result, percentiles: Sequence[float] = (50, 99, 99.9)) -> pd.DataFrame:
    """Slowdown and FCT per flow class, plus an ``all`` row.

    One row per class (``congested``, ``vulnerable``, ``background`` always, other
    classes when present) with ``flows``, ``finished``, ``mean`` and ``pNN`` (slowdown of
    finished flows) and ``mean_fct_ns``. Statistics of a class without finished flows are
    NaN.
    """
    flows = result.flows
    if "class" in flows.columns:
        classes = list(CLASSES) + [c for c in _ordered(flows["class"], CLASSES) if c not in CLASSES]
        groups = [(c, flows[flows["class"] == c]) for c in classes]
    else:
        groups = []
    groups.append(("all", flows))
    rows = []
    for name, f in groups:
        done = _finished(f)
        slowdown = done["slowdown"].astype("float64")
        row: dict[str, Any] = {
            "class": name,
            "flows": len(f),
            "finished": len(done),
            "mean": slowdown.mean() if len(done) else math.nan,
        }
        for p in percentiles:
            row[_pcol(p)] = _quantile(slowdown, p)
        row["mean_fct_ns"] = done["fct_ns"].astype("float64").mean() if len(done) else math.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("class")


def fct_cdf(
    result: Result,
    by: str | None = None,
    *,
    metric: str = "fct_ns",
    buckets: Sequence[float] | None = None,
) -> pd.DataFrame:
    """Empirical CDF of a flow metric over finished flows.

    ``metric`` is ``"fct_ns"`` (default) or ``"slowdown"``; ``by`` is ``None`` (one
    group, ``"all"``), ``"class"`` or ``"size"`` (the size buckets of
    `Result.slowdown_by_size`, ``buckets`` as there). Returns columns ``group``,
    ``<metric>`` and ``fraction``: per group, the values sorted ascending and the share
    of the group's finished flows at or below each (the last row of a group is 1).
    """
    if metric not in ("fct_ns", "slowdown"):
        raise ValueError(f"metric must be 'fct_ns' or 'slowdown', got {metric!r}")
    done = _finished(result.flows)
    values = done[metric].astype("float64")
    if by is None:
        keys = pd.Series("all", index=done.index)
        order = ["all"]
    elif by == "class":
        keys = done["class"].astype(str)
        order = _ordered(keys, CLASSES)
    elif by == "size":
        keys = _size_bucket(done["size_bytes"], buckets)
        order = [str(c) for c in keys.cat.categories if (keys == c).any()]
        keys = keys.astype(str)
    else:
        raise ValueError(f"by must be None, 'class' or 'size', got {by!r}")
    parts = []
    for group in order:
        v = np.sort(values[keys == group].to_numpy())
        parts.append(
            pd.DataFrame(
                {
                    "group": group,
                    metric: v,
                    "fraction": np.arange(1, len(v) + 1) / len(v),
                }
            )
        )
    if not parts:
        return pd.DataFrame({"group": [], metric: [], "fraction": []})
    return pd.concat(parts, ignore_index=True)


def qct_summary(result: Result, percentiles: Sequence[float] = (50, 99)) -> pd.Series:
    """Query completion times (from `Result.qct`): ``queries``, ``finished``,
    ``mean_ns`` and ``pNN_ns`` over finished queries (NaN without any)."""
    qct = result.qct()
    done = pd.Series(dtype="float64")
    if len(qct):
        done = qct.loc[qct["finished"].astype(bool), "qct_ns"].astype("float64")
    out: dict[str, float] = {
        "queries": float(len(qct)),
        "finished": float(len(done)),
        "mean_ns": done.mean() if len(done) else math.nan,
    }
    for p in percentiles:
        out[f"{_pcol(p)}_ns"] = _quantile(done, p)
    return pd.Series(out, name="qct")


# ------------------------------------------------------------ PFC


@dataclass(frozen=True)
class PauseSpread:
    """How many (sending port, class) pauses of the run's flow control were in force at
    once over a run: PFC's priorities, per-flow's flows, BFC's queues, Pyrrha's roots.

    ``timeline`` has columns ``time_ns, paused``: from ``time_ns`` on (until the next
    row) ``paused`` pauses were in force; it starts at 0 ns. ``max`` is its largest
    value, ``mean`` its average over ``[0, end_ns]`` (``end_ns`` = the simulated time).
    ``policy`` names the flow control whose pauses these are (the summary's
    ``flow_control``: ``pfc``, ``bfc``, ``pyrrha``, ...) and ``frames`` the PAUSE frames
    it sent. ``recorded`` is false when the run sent PAUSE frames but did not list
    them: the timeline is then empty, ``max``/``mean`` NaN and ``missing`` names the
    ``[output]`` setting that records them.
    """

    timeline: pd.DataFrame
    max: float
    mean: float
    end_ns: float
    recorded: bool = True
    policy: str = "pfc"
    frames: int = 0
    missing: str = ""


def flow_control_of(result: Result) -> str:
    """The name of the run's flow control (``pfc``, ``pyrrha``, ``none``, ...): the
    summary's ``flow_control``, else ``pfc`` when it sent or recorded PFC frames."""
    name = result.summary.get("flow_control")
    if name:
        return str(name)
    if result.summary.get("pfc_pause_frames") or not table(result, "pfc_events").empty:
        return "pfc"
    return "none"


def pause_frames_sent(result: Result) -> int:
    """PAUSE frames the run's flow control sent, whatever its kind (``Result.ports``'s
    ``pause_sent`` summed; the summary's ``pfc_pause_frames`` for runs without it)."""
    ports = result.ports
    if "pause_sent" in ports.columns and len(ports):
        return int(ports["pause_sent"].sum())
    return int(result.summary.get("pfc_pause_frames", 0) or 0)


def paused_port_time_ns(result: Result) -> float:
    """Time ports spent with a paused queue, summed over ports (``Result.ports``'s
    ``paused_time_ns``; recorded by every run, whatever pauses them)."""
    ports = result.ports
    if "paused_time_ns" in ports.columns and len(ports):
        return float(ports["paused_time_ns"].astype("float64").sum())
    return math.nan


def _pause_events(result: Result) -> pd.DataFrame | None:
    """Pause state changes ``time_ns, node, port, subject, state`` (1: paused, 0: resumed)
    from ``control_frames`` (any flow control) or ``pfc_events`` (PFC); None when the
    run recorded neither."""
    frames = table(result, "control_frames")
    if not frames.empty:
        pauses = frames[frames["pause"].astype(bool)]
        if "resumes" in frames.columns:
            ends = frames[frames["resumes"].notna()]
            ended = ends["resumes"]
        else:  # written before the column: a frame that does not pause resumes its subject
            ends = frames[~frames["pause"].astype(bool)]
            ended = ends["subject"]
        cols = ["time_ns", "node", "port"]
        return pd.concat(
            [
                pauses[cols].assign(subject=pauses["subject"].astype("int64"), state=1),
                ends[cols].assign(subject=ended.astype("int64"), state=0),
            ],
            ignore_index=True,
        )
    ev = table(result, "pfc_events")
    if not ev.empty:
        return ev[["time_ns", "node", "port"]].assign(
            subject=ev["priority"].astype("int64"), state=ev["pause"].astype(bool).astype("int64")
        )
    return None


def pause_spread(result: Result) -> PauseSpread:
    """The number of pauses of the run's flow control in force over time, from
    ``Result.control_frames`` (any flow control) or ``Result.pfc_events`` (PFC).

    A PAUSE sent by (node, port) about a class (PFC priority, flow, BFC queue, Pyrrha
    root) pauses that class at the port's peer until a frame from the same (node, port)
    ends it (a RESUME, or a Pyrrha MERGE for the root it replaces: the ``resumes``
    column); a repeated PAUSE or a RESUME without a pause changes nothing.
    """
    policy = flow_control_of(result)
    frames = pause_frames_sent(result)
    ev = _pause_events(result)
    end = _end_ns(result)
    if ev is None or ev.empty:
        if frames:
            where = (
                "[output] pfc_events = true"
                if result.summary.get("pfc_pause_frames")
                else "[output] control_frames = true"
            )
            empty = pd.DataFrame({"time_ns": pd.Series(dtype="float64"), "paused": []})
            return PauseSpread(empty, math.nan, math.nan, end, False, policy, frames, missing=where)
        zero = pd.DataFrame({"time_ns": [0.0], "paused": [0]})
        return PauseSpread(zero, 0.0, 0.0, end, policy=policy, frames=frames)
    ev = ev.sort_values("time_ns", kind="stable").reset_index(drop=True)
    state = ev["state"].astype("int64")
    before = state.groupby([ev["node"], ev["port"], ev["subject"]]).shift(1, fill_value=0)
    paused = (state - before).cumsum()
    steps = pd.DataFrame({"time_ns": ev["time_ns"].astype("float64"), "paused": paused})
    steps = steps.groupby("time_ns", sort=True, as_index=False)["paused"].last()
    if steps["time_ns"].iloc[0] > 0:
        steps = pd.concat(
            [pd.DataFrame({"time_ns": [0.0], "paused": [0]}), steps], ignore_index=True
        )
    # Keep only the changes.
    steps = steps[steps["paused"].diff().ne(0)].reset_index(drop=True)
    steps["paused"] = steps["paused"].astype("int64")
    end = max(end, float(steps["time_ns"].iloc[-1]))
    lengths = np.diff(np.append(steps["time_ns"].to_numpy(), end))
    mean = float((lengths * steps["paused"].to_numpy()).sum() / end) if end > 0 else 0.0
    return PauseSpread(steps, float(steps["paused"].max()), mean, end, True, policy, frames)


# ------------------------------------------------------------ time series


def _grid(interval: float, end: float, seen: np.ndarray) -> np.ndarray:
    """Bin / sample start times ``0, interval, ...`` covering the run and ``seen``."""
    last = max(end, float(seen.max()) if len(seen) else 0.0)
    n = int(math.floor(last / interval + 1e-9)) + 1
    return np.arange(n) * float(interval)


def throughput_by_class(result: Result) -> pd.DataFrame:
    """Delivered payload in Gb/s per time bin (index ``time_ns``, the bin start) and
    flow class (one column per class, ``congested, vulnerable, background`` always).

    Bins without deliveries are 0. Empty when the run has no throughput table or no
    ``throughput_interval_ns`` in its summary.
    """
    tp = table(result, "throughput")
    interval = float(result.summary.get("throughput_interval_ns") or 0.0)
    classes = list(CLASSES)
    if "class" in result.flows.columns:
        classes += [c for c in _ordered(result.flows["class"], CLASSES) if c not in CLASSES]
    if interval <= 0 or "time_ns" not in tp.columns:
        return pd.DataFrame(columns=classes, index=pd.Index([], name="time_ns"), dtype="float64")
    grid = _grid(interval, _end_ns(result), tp["time_ns"].to_numpy(dtype="float64"))
    flows = result.flows
    if "class" in flows.columns:
        cls = flows.set_index("flow_id")["class"].astype(str)
    else:
        cls = pd.Series("unclassified", index=flows["flow_id"])
    rows = pd.DataFrame(
        {
            "bin": np.rint(tp["time_ns"].to_numpy(dtype="float64") / interval).astype("int64"),
            "class": tp["flow_id"].map(cls).fillna("unknown").to_numpy(),
            "bytes": tp["bytes"].to_numpy(dtype="float64"),
        }
    )
    classes += [c for c in _ordered(rows["class"], ()) if c not in classes]
    sums = rows.pivot_table(index="bin", columns="class", values="bytes", aggfunc="sum")
    sums = sums.reindex(index=np.arange(len(grid)), columns=classes).fillna(0.0)
    out = sums * 8.0 / interval  # bits per ns = Gb/s
    out.index = pd.Index(grid, name="time_ns")
    out.columns = pd.Index(classes, name="class")
    return out.astype("float64")


def _port_queue_rows(result: Result, queue: int | None) -> pd.DataFrame:
    """Queue samples of whole ports (``queue=None``) or of one queue index."""
    q = table(result, "queues")
    if q.empty:
        return q
    if queue is None:
        whole = q[q["queue"] == -1]
        if len(whole):
            return whole
        return q.groupby(["time_ns", "node", "port"], as_index=False)["bytes"].sum()
    return q[q["queue"] == queue]


def queue_timeline(
    result: Result,
    ports: Sequence[tuple[int, int]] | None = None,
    *,
    top: int = 5,
    queue: int | None = None,
) -> pd.DataFrame:
    """Sampled egress queue occupancy in bytes over time (index ``time_ns``), one column
    per port labelled ``"node:port"`` (`port_label`).

    ``ports`` chooses the ports as ``(node, port)`` pairs; by default the ``top`` ports
    with the largest mean occupancy. ``queue`` selects one data queue; by default the
    whole port (its ``queue = -1`` samples, or the sum over queues). The samples are
    sparse: times of the sampling grid (``summary["queue_sample_interval_ns"]``) without
    a row are 0 bytes.
    """
    rows = _port_queue_rows(result, queue)
    if rows.empty:
        return pd.DataFrame(index=pd.Index([], name="time_ns", dtype="float64"))
    if ports is None:
        load = rows.groupby(["node", "port"])["bytes"].sum()
        load = load.reset_index().sort_values(
            ["bytes", "node", "port"], ascending=[False, True, True], kind="stable"
        )
        chosen = list(zip(load["node"].head(top), load["port"].head(top)))
    else:
        chosen = [(int(n), int(p)) for n, p in ports]
    times = rows["time_ns"].to_numpy(dtype="float64")
    interval = float(result.summary.get("queue_sample_interval_ns") or 0.0)
    grid = _grid(interval, _end_ns(result), times) if interval > 0 else np.unique(times)
    grid = np.union1d(grid, times)
    labels = [port_label(n, p) for n, p in chosen]
    key = [port_label(n, p) for n, p in zip(rows["node"], rows["port"])]
    wide = (
        pd.DataFrame({"time_ns": times, "port": key, "bytes": rows["bytes"].to_numpy()})
        .pivot_table(index="time_ns", columns="port", values="bytes", aggfunc="sum")
        .reindex(index=grid, columns=labels)
        .fillna(0)
        .astype("int64")
    )
    wide.index = pd.Index(grid, name="time_ns")
    wide.columns = pd.Index(labels, name="port")
    return wide


def port_tiers(result: Result) -> dict[str, str]:
    """``"node:port"`` → hop tier (or, without one, the node's tier) of every port."""
    ports = result.ports
    col = "hop_tier" if "hop_tier" in ports.columns else "tier"
    return {port_label(n, p): str(t) for n, p, t in zip(ports["node"], ports["port"], ports[col])}


# ------------------------------------------------------------ buffers and delay


def buffer_by_tier(result: Result) -> pd.DataFrame:
    """Peak occupancy per tier.

    Rows with ``measure = "switch_buffer"`` give, per switch tier, the shared buffer
    peak of its switches (``Result.switches.max_buffer_bytes``, or the largest sample of
    ``Result.buffers``); rows with ``measure =
    "egress_queue"`` the egress-queue peak of ports per hop tier
    (``Result.ports.max_queue_bytes`` by ``hop_tier``, or by the node's ``tier`` for
    runs without it). Columns: ``measure, tier, units`` (switches or ports),
    ``max_bytes`` (the largest peak) and ``mean_max_bytes`` (the peaks' mean).
    """
    parts = []
    sw = table(result, "switches")
    samples = table(result, "buffers")
    if sw.empty and not samples.empty:
        # No per-switch peaks: take the largest sample of each switch.
        sw = samples.groupby("node", as_index=False).agg(
            tier=("tier", "first"), max_buffer_bytes=("bytes", "max")
        )
    if not sw.empty:
        parts.append(_peaks(sw, "tier", "max_buffer_bytes", "switch_buffer", SWITCH_TIERS))
    ports = result.ports
    if len(ports):
        col, order = (
            ("hop_tier", HOP_TIERS) if "hop_tier" in ports.columns else ("tier", _NODE_TIERS)
        )
        parts.append(_peaks(ports, col, "max_queue_bytes", "egress_queue", order))
    if not parts:
        cols = ["measure", "tier", "units", "max_bytes", "mean_max_bytes"]
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)


def _peaks(
    df: pd.DataFrame, tier_col: str, value_col: str, measure: str, order: Sequence[str]
) -> pd.DataFrame:
    g = df.groupby(df[tier_col].astype(str))[value_col]
    tiers = _ordered(g.groups.keys(), order)
    return pd.DataFrame(
        {
            "measure": measure,
            "tier": tiers,
            "units": [int(g.size()[t]) for t in tiers],
            "max_bytes": [float(g.max()[t]) for t in tiers],
            "mean_max_bytes": [float(g.mean()[t]) for t in tiers],
        }
    )


def queue_delay_summary(result: Result, percentiles: Sequence[float] = (50, 99)) -> pd.DataFrame:
    """Per-packet queuing delay per hop tier, from the ``Result.queue_delay`` histogram.

    Index ``hop_tier``; columns ``packets``, ``mean_ns``, ``pNN_ns`` and ``max_ns``.
    Percentiles are bucket-upper-edge estimates: the upper edge of the bucket holding
    the percentile (at most one bucket width, 1/8 of the value, above it; ``inf`` in an
    open last bucket), capped at ``max_ns``; below 16 ns buckets are 1 ns wide and exact,
    so packets that never waited give 0. ``mean_ns`` and ``max_ns`` are exact when
    the summary has ``queue_delay_ns`` (hopsim writes it); otherwise the mean weights
    each bucket by its upper edge (an open bucket by its lower edge) and the max is the
    last bucket's upper edge.
    """
    hist = table(result, "queue_delay")
    cols = ["packets", "mean_ns"] + [f"{_pcol(p)}_ns" for p in percentiles] + ["max_ns"]
    if hist.empty:
        return pd.DataFrame(columns=cols, index=pd.Index([], name="hop_tier"), dtype="float64")
    exact = result.summary.get("queue_delay_ns") or {}
    rows = []
    for tier in _ordered(hist["hop_tier"], HOP_TIERS):
        h = hist[hist["hop_tier"].astype(str) == tier].sort_values("upper_ns")
        h = h[h["packets"] > 0]
        upper = h["upper_ns"].to_numpy(dtype="float64")
        packets = h["packets"].to_numpy(dtype="float64")
        total = packets.sum()
        row: dict[str, Any] = {"hop_tier": tier, "packets": total}
        if total <= 0:
            rows.append(row)
            continue
        if "lower_ns" in h.columns:
            lower = h["lower_ns"].to_numpy(dtype="float64")
        else:
            lower = np.concatenate([[0.0], upper[:-1]])
        weight = np.where(np.isinf(upper), lower, upper)
        row["mean_ns"] = float((weight * packets).sum() / total)
        row["max_ns"] = float(upper[-1])
        known = exact.get(tier)
        if isinstance(known, Mapping) and known.get("packets") == total:
            row["mean_ns"] = float(known.get("mean_ns", row["mean_ns"]))
            row["max_ns"] = float(known.get("max_ns", row["max_ns"]))
        cum = np.cumsum(packets)
        # A bucket one nanosecond wide holds exactly its lower edge (delays are whole ns).
        estimate = np.where(upper - lower <= 1, lower, upper)
        for p in percentiles:
            i = int(np.searchsorted(cum, p / 100 * total * (1 - 1e-12), side="left"))
            row[f"{_pcol(p)}_ns"] = min(float(estimate[min(i, len(upper) - 1)]), row["max_ns"])
        rows.append(row)
    return pd.DataFrame(rows).set_index("hop_tier").reindex(columns=cols).astype("float64")


# ------------------------------------------------------------ several runs


def _utilisation(result: Result) -> tuple[float, float]:
    """Mean and max busy share of switch egress ports (all ports if there are none)."""
    end = _end_ns(result)
    ports = result.ports
    if end <= 0 or ports.empty:
        return math.nan, math.nan
    switch_ports = ports[ports["tier"].astype(str) != "host"]
    busy = (switch_ports if len(switch_ports) else ports)["busy_time_ns"].astype("float64")
    return float(busy.mean() / end), float(busy.max() / end)


def compare(
    runs: Runs,
    *,
    buckets: Sequence[float] | None = None,
    percentiles: Sequence[float] = (50, 99),
) -> pd.DataFrame:
    """Key metrics of several runs side by side: one row per metric, one column per run.

    Rows: flows and finished flows; slowdown ``pNN`` per size bucket (as in
    `Result.slowdown_by_size`) and p99 per flow class (`class_summary`); QCT
    percentiles when a run has queries; drops; for each flow control among the runs
    (``pfc``, ``bfc``, ``pyrrha``, ...; not ``none``), under its name: the PAUSE frames it
    sent, its pause spread (`pause_spread`, NaN when PAUSE frames were not recorded) and
    the time ports spent paused (0 in runs of another flow control); peak egress queue and
    shared buffer; mean and max utilisation (busy time / simulated time) of switch
    ports; ECN marks, retransmitted bytes, timeouts; p99 queuing delay per hop tier
    (`queue_delay_summary`) and the reordering ratio when known. All values are floats
    (NaN where not applicable).
    """
    runs = labelled(runs)
    columns: dict[str, dict[str, float]] = {}
    policies = [p for p in dict.fromkeys(flow_control_of(r) for r in runs.values()) if p != "none"]
    any_queries = any(
        r.flows["query_id"].notna().any() for r in runs.values() if "query_id" in r.flows
    )
    for label, r in runs.items():
        s = r.summary
        m: dict[str, float] = {
            "flows": s.get("flows_total", len(r.flows)),
            "flows finished": s.get("flows_finished", int(r.flows["finish_ns"].notna().sum())),
        }
        by_size = r.slowdown_by_size(buckets, percentiles)
        for size, row in by_size.iterrows():
            for p in percentiles:
                m[f"slowdown {_pcol(p)} {size}"] = row[_pcol(p)]
        classes = class_summary(r, (99,))
        for cls, row in classes.iterrows():
            m[f"slowdown p99 {cls}"] = row["p99"]
        if any_queries:
            q = qct_summary(r, percentiles)
            for p in percentiles:
                m[f"QCT {_pcol(p)} (ns)"] = q[f"{_pcol(p)}_ns"]
        m["drops"] = s.get("drops", math.nan)
        # Every flow control's pauses under its own name (0 for runs of another one).
        spread = pause_spread(r)
        for policy in policies:
            mine = policy == spread.policy
            m[f"{policy} PAUSE frames"] = spread.frames if mine else 0
            m[f"{policy} pauses in force max"] = spread.max if mine else 0
            m[f"{policy} pauses in force mean"] = spread.mean if mine else 0
            m[f"{policy} paused port time (us)"] = paused_port_time_ns(r) / 1e3 if mine else 0
        m["max egress queue (B)"] = (
            float(r.ports["max_queue_bytes"].max()) if len(r.ports) else math.nan
        )
        m["max switch buffer (B)"] = s.get("max_switch_buffer_bytes", math.nan)
        util_mean, util_max = _utilisation(r)
        m["utilisation mean"] = util_mean
        m["utilisation max"] = util_max
        m["ECN marks"] = s.get("ecn_marks", math.nan)
        m["retransmitted bytes"] = s.get("retransmitted_bytes", math.nan)
        m["timeouts"] = s.get("timeouts", math.nan)
        delay = queue_delay_summary(r, (99,))
        for tier, row in delay.iterrows():
            m[f"queuing delay p99 {tier} (ns)"] = row["p99_ns"]
        if "reordering_ratio" in s:
            m["reordering ratio"] = s["reordering_ratio"]
        if "hol_blocked_ratio" in s:
            m["HoL-blocked flows ratio"] = s["hol_blocked_ratio"]
        columns[label] = m
    metrics: list[str] = []
    for m in columns.values():
        metrics += [k for k in m if k not in metrics]
    out = pd.DataFrame(
        {label: [_float(m.get(k)) for k in metrics] for label, m in columns.items()},
        index=pd.Index(metrics, name="metric"),
    )
    return out


def _float(v: Any) -> float:
    if v is None or v is pd.NA:
        return math.nan
    return float(v)
