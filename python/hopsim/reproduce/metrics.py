"""Per-run figures the reproduction experiments share: FCT statistics per flow class and
size, peak queues per hop tier, isolation-queue usage, throughput per class over time."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from hopsim.results import Result

#: Flows below this size are "small" (the papers' 100 KB split).
SMALL_BYTES = 100_000

#: Hop tiers in path order (the ports table's ``hop_tier``).
TIERS = ("src_tor", "agg", "core", "dst_tor")


def _stats(fct_ns: pd.Series) -> tuple[float, float, int]:
    x = fct_ns.dropna().astype("float64") / 1e3
    if x.empty:
        return math.nan, math.nan, 0
    return float(x.mean()), float(x.quantile(0.99)), int(len(x))


def fct_summary(result: Result) -> dict[str, Any]:
    """Mean and p99 FCT (µs) of the uncongested (vulnerable + background), vulnerable,
    background and congested (incast) flows, overall and for small uncongested flows; how
    many flows did not finish; drops, PFC pause frames, flow-control pause frames of any
    kind (PFC, BFC, Pyrrha, per-flow), timeouts and resent MB; the peak switch buffer and
    Pyrrha's IQs and merges."""
    f = result.flows
    cls = f["class"].astype(str)
    groups = {
        "uncongested": cls != "congested",
        "vulnerable": cls == "vulnerable",
        "background": cls == "background",
        "incast": cls == "congested",
        "small": (cls != "congested") & (f["size_bytes"] < SMALL_BYTES),
        "large": (cls != "congested") & (f["size_bytes"] >= SMALL_BYTES),
        "all": cls == cls,
    }
    out: dict[str, Any] = {}
    for name, mask in groups.items():
        mean, p99, n = _stats(f.loc[mask, "fct_ns"])
        out[f"{name}_avg_us"] = mean
        out[f"{name}_p99_us"] = p99
        out[f"{name}_flows"] = n
    out["unfinished"] = int(f["finish_ns"].isna().sum())
    s = result.summary
    out["drops"] = int(s.get("drops", 0))
    out["pfc_pauses"] = int(s.get("pfc_pause_frames", 0))
    out["max_switch_buffer_kb"] = s.get("max_switch_buffer_bytes", 0) / 1e3
    fc = s.get("flow_control_counters") or {}
    out["max_iqs_per_port"] = int(fc.get("pyrrha_max_iqs_per_port", 0))
    out["merges"] = int(fc.get("pyrrha_merges", 0))
    frames = s.get("control_frames_sent") or {}
    out["pause_frames"] = int(sum(v for k, v in frames.items() if k.endswith("_pause")))
    out["timeouts"] = int(s.get("timeouts", 0))
    out["retransmitted_mb"] = s.get("retransmitted_bytes", 0) / 1e6
    return out


def peak_queue_by_tier(result: Result) -> dict[str, float]:
    """Largest egress backlog (KB) seen at any port of each hop tier (Pyrrha Fig 14's
    SrcToR / Core / DstToR split; a leaf-spine's spines are ``agg``, merged into core)."""
    p = result.ports
    out = {}
    for tier in TIERS:
        mask = p["hop_tier"] == tier
        out[f"max_queue_{tier}_kb"] = (
            float(p.loc[mask, "max_queue_bytes"].max() / 1e3) if mask.any() else 0.0
        )
    out["max_queue_core_kb"] = max(out.pop("max_queue_agg_kb"), out["max_queue_core_kb"])
    return out


def throughput_by_class(result: Result) -> pd.DataFrame:
    """Delivered Gb/s per time bin and class (``time_us``, ``class``, ``gbps``)."""
    t = result.throughput
    if t.empty:
        return pd.DataFrame(columns=["time_us", "class", "gbps"])
    interval = result.summary.get("throughput_interval_ns") or 100_000.0
    cls = result.flows.set_index("flow_id")["class"]
    df = (
        t.assign(cls=t["flow_id"].map(cls)).groupby(["time_ns", "cls"])["bytes"].sum().reset_index()
    )
    df["gbps"] = df["bytes"] * 8 / interval
    df["time_us"] = df["time_ns"] / 1e3
    return df.rename(columns={"cls": "class"})[["time_us", "class", "gbps"]]


def iq_usage(result: Result) -> dict[str, float]:
    """Most isolation queues a port held at once, and the mean over ports that held any."""
    u = result.iq_usage
    if u.empty:
        return {"max_iqs": 0.0, "mean_peak_iqs": 0.0}
    peaks = u.groupby(["node", "port"])["iqs"].max()
    return {"max_iqs": float(peaks.max()), "mean_peak_iqs": float(peaks.mean())}
