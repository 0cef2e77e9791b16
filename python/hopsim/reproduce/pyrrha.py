"""The Pyrrha paper's evaluation (``../shared/papers/pyrrha.md``), experiment by experiment.

Every experiment runs variants of a scenario in ``scenarios/pyrrha/``. ``full`` uses the
paper's sizes where it gives them and otherwise those of the authors' simulator (Pyrrha-NS3:
50,000 Memcached flows, about 23,500 Web Server flows, a 720-to-1 incast of 30-40 MTU flows
in one round); ``quick`` keeps each setting and shortens the Poisson arrival window (and
the sweeps) so that all experiments finish in a few minutes on two cores.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from hopsim.reproduce.claims import (
    ABOUT,
    AT_LEAST,
    AT_MOST,
    FLAT,
    GAIN,
    HIGHER,
    LOWER,
    Claim,
    Measure,
    Selector,
    ratio,
    reduction,
)
from hopsim.reproduce.figures import bars, by_x
from hopsim.reproduce.framework import Paper, Run, Variant, experiment
from hopsim.reproduce.metrics import fct_summary, iq_usage, peak_queue_by_tier, throughput_by_class
from hopsim.reproduce.stats import div, fmt_range, get, gmean, ratios, table

# ---------------------------------------------------------------- variants

#: The one-hop-BDP unit of §6 (64 KB base BDP).
BDP = 64_000

#: Flow control alone (Fig 11, 22): the kind tables.
FC: dict[str, dict[str, Any]] = {
    "PFC": {"kind": "pfc"},
    "BFC-32": {"kind": "bfc", "queues": 32},
    "BFC-128": {"kind": "bfc", "queues": 128},
    "Pyrrha": {"kind": "pyrrha"},
    "Per-flow": {"kind": "per_flow"},
}

#: With host congestion control (§6.2): DCQCN and HPCC over PFC, with Pyrrha instead of
#: PFC (DCQCN then with Kmin 50 KB / Kmax 200 KB, §6.2.1), and DCQCN with IRN and no PFC.
#: All with the per-flow sending window of §6.2 (one BDP).
_ECN_PYRRHA = {"switch.ecn.kmin": "50KB", "switch.ecn.kmax": "200KB"}
CC: dict[str, dict[str, Any]] = {
    "DCQCN": {"transport.cc": "dcqcn", "switch.ecn.enabled": True},
    "DCQCN+Pyrrha": {
        "transport.cc": "dcqcn",
        "switch.ecn.enabled": True,
        **_ECN_PYRRHA,
        "switch.flow_control": FC["Pyrrha"],
    },
    "DCQCN+IRN": {
        "transport.cc": "dcqcn",
        "switch.ecn.enabled": True,
        "switch.flow_control": {"kind": "none"},
        "transport.loss_recovery": "irn",
    },
    "HPCC": {"transport.cc": "hpcc"},
    "HPCC+Pyrrha": {"transport.cc": "hpcc", "switch.flow_control": FC["Pyrrha"]},
    "TIMELY": {"transport.cc": "timely"},
    "TIMELY+Pyrrha": {"transport.cc": "timely", "switch.flow_control": FC["Pyrrha"]},
}
_WINDOW = {"transport.window": "bdp"}

#: Poisson arrival windows giving the authors' flow counts (full) or fewer (quick).
WINDOW = {
    "full": {"memcached": "5.9us", "webserver": "980us", "websearch": "2ms"},
    "quick": {"memcached": "5.9us", "webserver": "300us", "websearch": "400us"},
}


def _fc(label: str) -> dict[str, Any]:
    return {"switch.flow_control": FC[label]}


def _workload(mode: str, dist: str) -> dict[str, Any]:
    return {"workload.0.size_dist": dist, "workload.0.stop": WINDOW[mode][dist]}


def _incast_bdp(k: float) -> dict[str, Any]:
    """Incast flows of about `k` BDPs (uniform within ±12.5 %)."""
    return {
        "workload.1.size_min": int(k * BDP * 0.875),
        "workload.1.size_max": int(k * BDP * 1.125),
    }


# ---------------------------------------------------------------- analysis


def _metrics(run: Run) -> dict[str, Any]:
    return {**fct_summary(run.result), **peak_queue_by_tier(run.result)}


def _table(runs: list[Run]) -> pd.DataFrame:
    return table(runs, _metrics)


def _fct_bars(metrics: pd.DataFrame, runs: list[Run], path: Path, title: str) -> None:
    """The default figure: uncongested average and p99 and incast average FCT."""
    cols = [
        ("uncongested_avg_us", "uncongested avg FCT (µs)"),
        ("uncongested_p99_us", "uncongested p99 FCT (µs)"),
        ("incast_avg_us", "incast avg FCT (µs)"),
    ]
    bars(metrics, path, cols, title)


def _avg_and_p99(num: str, den: str) -> Selector:
    """Uncongested average and p99 FCT of `num` over `den`, per workload: both geometric
    means below 1."""

    def measure(m: pd.DataFrame) -> Measure:
        avg = ratios(m, num, den, "uncongested_avg_us")
        p99 = ratios(m, num, den, "uncongested_p99_us")
        text = f"avg {fmt_range(avg, '{:.2f}×')}, p99 {fmt_range(p99, '{:.2f}×')} ({num} / {den})"
        return Measure(gmean(avg) if avg else None, text, (gmean(avg), gmean(p99)))

    return measure


# ---------------------------------------------------------------- Fig 2: HOL blocking


def _fig2_variants(mode: str) -> list[Variant]:
    base = {**_workload(mode, "webserver"), **_incast_bdp(4)}
    return [Variant(s, {**base, **_fc(s)}, "webserver") for s in ("PFC", "BFC-32", "Per-flow")]


def _fig2_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.5, 3.2), layout="constrained")
    axes = fig.subplots(1, len(runs), squeeze=False, sharey=True)[0]
    for ax, r in zip(axes, runs):
        if not r.ok:
            continue
        t = throughput_by_class(r.result)
        for cls, d in t.groupby("class"):
            ax.plot(d["time_us"] / 1e3, d["gbps"], label=cls)
        ax.set_title(r.variant.label, fontsize=9)
        ax.set_xlabel("time (ms)", fontsize=8)
    axes[0].set_ylabel("throughput (Gb/s)", fontsize=8)
    axes[0].legend(fontsize=7)
    fig.suptitle(
        "Fig 2: incast mixed with Web Server flows — throughput per flow class", fontsize=9
    )
    fig.savefig(path, dpi=110, metadata={"Software": None})


_FIG2_CLAIMS = [
    Claim(
        "BFC's tail latency is about 6× the per-flow queue scheme's (incast flows hold queues)",
        "6×",
        6.0,
        ratio("BFC-32", "Per-flow", "uncongested_p99_us", "uncongested p99, BFC-32 / per-flow"),
        HIGHER,
        why="hopsim's per-flow baseline pauses each incast flow at K_pause = 2 one-hop BDPs per "
        "queue (the paper gives it no thresholds); with 720 flows the buffer fills and it "
        "drops, so its tail is not the ideal the paper assumes",
    ),
    Claim(
        "PFC spreads the incast's congestion: background flows lose throughput",
        "lower",
        None,
        ratio("PFC", "Per-flow", "background_avg_us", "background avg FCT, PFC / per-flow"),
        HIGHER,
    ),
]


# ---------------------------------------------------------------- Fig 11: flow control


_FIG11_SCHEMES = ("PFC", "BFC-32", "BFC-128", "Pyrrha")
_WORKLOADS = ("memcached", "webserver", "websearch")
_TREE_AT = {"output.congestion_trees": {"at": ["20us", "200us", "600us", "1ms"]}}


def _fig11_variants(mode: str) -> list[Variant]:
    out = []
    for w in _WORKLOADS:
        for s in _FIG11_SCHEMES:
            extra = _TREE_AT if (s == "Pyrrha" and w == "webserver") else {}
            out.append(Variant(s, {**_workload(mode, w), **_fc(s), **extra}, w))
    return out


def _fig11_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    title = "Fig 11: flow control alone (no host CC) — PFC, BFC-32, BFC-128, Pyrrha"
    _fct_bars(metrics, runs, path, title)
    from hopsim import plots

    for r in runs:
        if r.ok and r.variant.label == "Pyrrha" and not r.result.congestion_trees.empty:
            plots.save(plots.congestion_trees(r.result), path.with_name("congestion_trees.png"))


_WHY_MEMCACHED = (
    "on Memcached all 50,000 flows arrive within the first 6 µs (as in the authors' "
    "simulator), before PFC's dynamic threshold (a quarter of the free 20 MB buffer at a "
    "100 Gb/s port) is reached: PFC barely pauses them, leaving Pyrrha little to win"
)


def _fig11_gains(base: str, w: str) -> list[Claim]:
    why = _WHY_MEMCACHED if (w == "memcached" and base == "PFC") else ""
    return [
        Claim(
            f"{w}: Pyrrha lowers the uncongested flows' average FCT by 42.8–98.2 % vs {base} "
            "(abstract, §1)",
            "42.8–98.2 %",
            (42.8, 98.2),
            reduction("Pyrrha", base, "uncongested_avg_us", group=w),
            GAIN,
            why=why,
        ),
        Claim(
            f"{w}: Pyrrha's uncongested p99 FCT is 1.6–215× lower than {base}'s",
            "1.6–215×",
            (1.6, 215.0),
            ratio("Pyrrha", base, "uncongested_p99_us", "", invert=True, group=w),
            HIGHER,
            why=why,
        ),
    ]


_FIG11_CLAIMS = [
    *[c for base in ("PFC", "BFC-32") for w in _WORKLOADS for c in _fig11_gains(base, w)],
    Claim(
        "Pyrrha does not compromise incast flows compared with PFC (§6.1.2)",
        "≈1× (no worse)",
        1.0,
        ratio("Pyrrha", "PFC", "incast_avg_us", "incast avg FCT, Pyrrha / PFC", pick="max"),
        AT_MOST,
        1.1,
    ),
    Claim(
        "BFC improves with more queues: BFC-128 beats BFC-32 (§6.1.2)",
        "lower",
        None,
        ratio(
            "BFC-128",
            "BFC-32",
            "uncongested_avg_us",
            "uncongested avg FCT, BFC-128 / BFC-32",
            pick="gmean",
        ),
        LOWER,
    ),
    Claim(
        "BFC reduces the incast flows' average FCT vs PFC (incast flows use several queues)",
        "lower",
        None,
        ratio("BFC-32", "PFC", "incast_avg_us", "incast avg FCT, BFC-32 / PFC", pick="gmean"),
        LOWER,
    ),
    *[
        Claim(
            f"{w}: BFC partially alleviates HOL blocking: uncongested flows do better than "
            "under PFC (§6.1.2)",
            "lower",
            None,
            ratio(
                "BFC-32", "PFC", "uncongested_avg_us", "uncongested avg FCT, BFC-32 / PFC", group=w
            ),
            LOWER,
            why="BFC pauses a queue above one-hop BDP / N_active — a few KB once tens of "
            "queues are active — so queues that short flows share with incast flows are "
            "paused at once, while PFC's dynamic threshold lets the 20 MB buffer absorb "
            "the burst; BFC wins only where PFC's pauses spread (storms)",
        )
        for w in _WORKLOADS
    ],
]


# ---------------------------------------------------------------- Fig 12 / 13 / 14: with CC


_FIG12_SCHEMES = ("DCQCN", "DCQCN+Pyrrha", "DCQCN+IRN", "HPCC", "HPCC+Pyrrha")


def _fig12_variants(mode: str) -> list[Variant]:
    return [
        Variant(s, {**_workload(mode, w), **CC[s], **_WINDOW}, w)
        for w in ("memcached", "webserver")
        for s in _FIG12_SCHEMES
    ]


def _fig12_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    cols = [
        ("small_avg_us", "<100 KB uncongested avg FCT (µs)"),
        ("small_p99_us", "<100 KB uncongested p99 FCT (µs)"),
        ("large_avg_us", "≥100 KB uncongested avg FCT (µs)"),
    ]
    bars(metrics, path, cols, "Fig 12/13: with congestion control (window 1 BDP)")


def _small_vs_large(m: pd.DataFrame) -> Measure:
    gs = gmean(ratios(m, "DCQCN+Pyrrha", "DCQCN", "small_avg_us"))
    gl = gmean(ratios(m, "DCQCN+Pyrrha", "DCQCN", "large_avg_us"))
    text = f"<100 KB {gs:.2f}×, ≥100 KB {gl:.2f}× (DCQCN+Pyrrha / DCQCN)"
    return Measure(gs / gl if math.isfinite(gs) and math.isfinite(gl) else None, text)


def _irn(m: pd.DataFrame) -> Measure:
    s = ratios(m, "DCQCN+IRN", "DCQCN", "small_avg_us")
    lg = ratios(m, "DCQCN+IRN", "DCQCN", "large_avg_us")
    text = f"<100 KB {fmt_range(s, '{:.2f}×')}, ≥100 KB {fmt_range(lg, '{:.2f}×')} (IRN / PFC)"
    return Measure(gmean(s), text, (gmean(s), 1 / gmean(lg)) if s and lg else ())


_FIG12_CLAIMS = [
    *[
        Claim(
            f"Adding Pyrrha to {cc} lowers the uncongested flows' FCT (§6.2)",
            "lower",
            None,
            _avg_and_p99(f"{cc}+Pyrrha", cc),
            LOWER,
        )
        for cc in ("DCQCN", "HPCC")
    ],
    Claim(
        "Pyrrha's gain with DCQCN is largest for small flows (§6.2.1)",
        "small-flow gain > large-flow gain",
        None,
        _small_vs_large,
        LOWER,
    ),
    Claim(
        "DCQCN with IRN (no PFC) shortens small flows but prolongs large ones vs DCQCN + PFC "
        "(§6.2.1)",
        "small lower, large higher",
        None,
        _irn,
        LOWER,
        why="with the 20 MB buffer and the one-BDP window few packets are lost without PFC, so "
        "IRN's retransmissions cost large flows little",
    ),
]

_TIERS = ("max_queue_src_tor_kb", "max_queue_core_kb", "max_queue_dst_tor_kb")


def _fig14_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    sub = metrics[metrics["scheme"].isin(["DCQCN", "DCQCN+Pyrrha"])]
    labels = ("SrcToR max queue (KB)", "Core max queue (KB)", "DstToR max queue (KB)")
    title = "Fig 14: peak queue per hop, DCQCN vs DCQCN + Pyrrha"
    bars(sub, path, list(zip(_TIERS, labels)), title)


def _peak_buffer(m: pd.DataFrame) -> Measure:
    peak = [
        max(get(m, "DCQCN", c, group=g) for c in _TIERS)
        / max(get(m, "DCQCN+Pyrrha", c, group=g) for c in _TIERS)
        for g in m["group"].unique()
    ]
    text = fmt_range(peak, "{:.2f}×") + " (largest peak queue of any hop, DCQCN / DCQCN+Pyrrha)"
    return Measure(gmean(peak) if peak else None, text, tuple(peak))


_FIG14_CLAIMS = [
    Claim(
        "Pyrrha lowers the maximum buffer occupancy 1.8–6.2× (abstract; DCQCN, Fig 14)",
        "1.8–6.2×",
        (1.8, 6.2),
        _peak_buffer,
        HIGHER,
    ),
    Claim(
        "The congestion root's (DstToR) buffer shrinks most (§6.2.1)",
        "lower",
        None,
        ratio(
            "DCQCN+Pyrrha",
            "DCQCN",
            "max_queue_dst_tor_kb",
            "DstToR peak, DCQCN+Pyrrha / DCQCN",
            pick="gmean",
        ),
        LOWER,
    ),
    Claim(
        "Pyrrha pushes congested traffic back: the SrcToR buffer grows (§6.2.1)",
        "higher",
        None,
        ratio(
            "DCQCN+Pyrrha",
            "DCQCN",
            "max_queue_src_tor_kb",
            "SrcToR peak, DCQCN+Pyrrha / DCQCN",
            pick="gmean",
        ),
        HIGHER,
    ),
]


# ---------------------------------------------------------------- Fig 15: k=16 fat-tree


_FIG15_SCHEMES = {
    "PFC": _fc("PFC"),
    "BFC-32": _fc("BFC-32"),
    "Pyrrha": _fc("Pyrrha"),
    "DCQCN": {**CC["DCQCN"], **_WINDOW},
    "DCQCN+Pyrrha": {**CC["DCQCN+Pyrrha"], **_WINDOW},
}


def _fig15_variants(mode: str) -> list[Variant]:
    stop = {"full": "300us", "quick": "60us"}[mode]
    return [
        Variant(s, {"workload.0.stop": stop, **o}, "webserver k=16")
        for s, o in _FIG15_SCHEMES.items()
    ]


def _fine_vs_coarse(m: pd.DataFrame) -> Measure:
    g = m["group"].iloc[0]
    fine = min(get(m, s, "small_avg_us", group=g) for s in ("BFC-32", "Pyrrha"))
    coarse = min(get(m, s, "small_avg_us", group=g) for s in ("PFC", "DCQCN"))
    text = f"{fine / coarse:.2f}× (best of BFC/Pyrrha over best of PFC/DCQCN, <100 KB avg FCT)"
    return Measure(fine / coarse, text)


def _lowest(m: pd.DataFrame) -> Measure:
    best = m.loc[m["small_avg_us"].idxmin(), "scheme"] if m["small_avg_us"].notna().any() else "-"
    ours = get(m, "DCQCN+Pyrrha", "small_avg_us")
    others = min(get(m, s, "small_avg_us") for s in m["scheme"] if s != "DCQCN+Pyrrha")
    return Measure(div(ours, others), f"lowest <100 KB avg FCT: {best}")


_FIG15_CLAIMS = [
    Claim(
        "On the k=16 fat-tree, fine-grained FC (BFC, Pyrrha) beats PFC and CC "
        "for flows < 100 KB (§6.3)",
        "lower",
        None,
        _fine_vs_coarse,
        LOWER,
    ),
    Claim(
        "Pyrrha with CC gives small flows the lowest latency (§6.3)",
        "DCQCN+Pyrrha lowest",
        None,
        _lowest,
        LOWER,
        why="Pyrrha alone and Pyrrha + DCQCN are within a few percent of each other here",
    ),
]


# ---------------------------------------------------------------- Fig 7: IQ usage


def _iq_workload(m: int, flows_per_host: int, k: int = 12) -> list[dict[str, Any]]:
    """(m−1) of m ToRs send to the hosts under the other 1/m of the ToRs (§4.5): each
    sending host `flows_per_host` one-BDP flows at once, spread evenly over the receivers."""
    half = k // 2
    hosts_per_tor, tors = half, k * half
    dst_tors = [t for t in range(tors) if t % m == 0]
    receivers = [t * hosts_per_tor + i for t in dst_tors for i in range(hosts_per_tor)]
    senders = [h for h in range(tors * hosts_per_tor) if (h // hosts_per_tor) % m != 0]
    per_receiver = max(1, round(len(senders) * flows_per_host / len(receivers)))
    return [
        {
            "kind": "incast",
            "receiver": r,
            "fan_in": per_receiver,
            "senders": senders,
            "size_min": BDP,
            "size_max": BDP,
            "period": "1s",
            "stop": "1ns",
            "tag": "burst",
        }
        for r in receivers
    ]


def _fig7_variants(mode: str) -> list[Variant]:
    ms, flows = {"full": ((2, 3, 4, 6), 40), "quick": ((2, 4), 10)}[mode]
    return [
        Variant(
            f"{m - 1}/{m} of ToRs send", {"workload": _iq_workload(m, flows)}, f"{(m - 1) / m:.2f}"
        )
        for m in ms
    ]


def _fig7_analyze(runs: list[Run]) -> pd.DataFrame:
    m = table(runs, lambda r: iq_usage(r.result), lambda g: {"fraction": float(g)})
    m["scheme"] = "Pyrrha"
    return m


def _fig7_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    by_x(
        metrics,
        path,
        "fraction",
        [("max_iqs", "most IQs on one port"), ("mean_peak_iqs", "mean peak IQs per port")],
        "Fig 7: isolation-queue usage, k=12 fat-tree, fraction of ToRs sending",
        log=False,
    )


def _iq_peaks(m: pd.DataFrame) -> Measure:
    peaks = list(m.get("max_iqs", pd.Series(dtype=float)).dropna())
    text = fmt_range(peaks, "{:.0f}") + " (most IQs on one port, per sender fraction)"
    return Measure(max(peaks) if peaks else None, text)


_FIG7_CLAIMS = [
    Claim(
        "IQ usage on a k=12 fat-tree ranges from 6 to 20 per port, roughly proportional to k "
        "(§4.5)",
        "6–20",
        (6.0, 20.0),
        _iq_peaks,
        AT_MOST,
        100,
        why="hopsim's roots are the receivers' ToR ports and the ports above them that the "
        "bursts congest; with hash-aware matching a port only needs IQs for roots its "
        "flows cross",
    )
]


# ---------------------------------------------------------------- Fig 17: incast size


def _fig17_variants(mode: str) -> list[Variant]:
    sizes = {"full": (1, 2, 4, 8), "quick": (1, 4)}[mode]
    schemes = {
        "BFC-32": _fc("BFC-32"),
        "DCQCN": {**CC["DCQCN"], **_WINDOW},
        "Pyrrha": _fc("Pyrrha"),
    }
    return [
        Variant(s, {**_workload(mode, "webserver"), **_incast_bdp(k), **o}, str(k))
        for k in sizes
        for s, o in schemes.items()
    ]


def _size_analyze(runs: list[Run]) -> pd.DataFrame:
    m = _table(runs)
    m["incast_bdp"] = m["group"].astype(float)
    return m


def _fig17_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    by_x(
        metrics,
        path,
        "incast_bdp",
        [
            ("uncongested_avg_us", "uncongested avg FCT (µs)"),
            ("uncongested_p99_us", "uncongested p99 FCT (µs)"),
        ],
        "Fig 17: incast flow size (BDPs) vs uncongested FCT",
    )


def _growth(m: pd.DataFrame, scheme: str, col: str) -> float:
    d = m[m["scheme"] == scheme].sort_values("incast_bdp")
    if len(d) < 2:
        return math.nan
    return float(d[col].iloc[-1] / d[col].iloc[0])


def _incast_growth(m: pd.DataFrame) -> Measure:
    p, b = _growth(m, "Pyrrha", "uncongested_avg_us"), _growth(m, "BFC-32", "uncongested_avg_us")
    text = f"uncongested avg FCT, largest / smallest incast: Pyrrha {p:.2f}×, BFC-32 {b:.2f}×"
    return Measure(p, text, (p / b,))


_FIG17_CLAIMS = [
    Claim(
        "Pyrrha stays stable as incast flows grow; BFC degrades a lot (Appendix B)",
        "Pyrrha flat, BFC grows",
        None,
        _incast_growth,
        LOWER,
    )
]


# ---------------------------------------------------------------- Fig 19: hash polarization


def _fig19_variants(mode: str) -> list[Variant]:
    schemes = {
        "DCQCN": {**CC["DCQCN"], **_WINDOW},
        "HPCC": {**CC["HPCC"], **_WINDOW},
        "DCQCN+Pyrrha": {**CC["DCQCN+Pyrrha"], **_WINDOW},
    }
    return [
        Variant(s, {**_workload(mode, "webserver"), **o}, "polarized") for s, o in schemes.items()
    ]


_FIG19_CLAIMS = [
    Claim(
        "Under hash polarization (multiple roots), Pyrrha lowers non-incast average and tail "
        "FCT vs CC (Appendix B)",
        "lower",
        None,
        _avg_and_p99("DCQCN+Pyrrha", "DCQCN"),
        LOWER,
    )
]


# ---------------------------------------------------------------- Fig 3 / 21: MoE


def _moe_variants(mode: str) -> list[Variant]:
    stop = {"full": "3ms", "quick": "2ms"}[mode]
    out = []
    for phase, shift in (("collided", "0us"), ("interleaved", "500us")):
        base = {"workload.0.stop": stop, "workload.1.stop": stop, "workload.1.start": shift}
        out.append(Variant("DCQCN+PFC", {**base, **_WINDOW}, phase))
        out.append(
            Variant(
                "DCQCN+Pyrrha",
                {**base, **_WINDOW, **_ECN_PYRRHA, "switch.flow_control": FC["Pyrrha"]},
                phase,
            )
        )
    return out


_MOE_CLAIMS = [
    Claim(
        "MoE all-to-all, collided phase: Pyrrha speeds up the tail 1.46× over DCQCN + PFC "
        "(§2.2, Fig 3)",
        "1.46×",
        1.46,
        ratio(
            "DCQCN+PFC",
            "DCQCN+Pyrrha",
            "all_p99_us",
            "p99 FCT, DCQCN+PFC / DCQCN+Pyrrha",
            group="collided",
        ),
        HIGHER,
    ),
    Claim(
        "Interleaved phase: still an improvement (Appendix B, Fig 21)",
        "faster",
        None,
        ratio(
            "DCQCN+PFC",
            "DCQCN+Pyrrha",
            "all_p99_us",
            "p99 FCT, DCQCN+PFC / DCQCN+Pyrrha",
            group="interleaved",
        ),
        HIGHER,
    ),
]


# ---------------------------------------------------------------- Fig 22: per-flow queues


def _fig22_variants(mode: str) -> list[Variant]:
    return [
        Variant(s, {**_workload(mode, "memcached"), **_fc(s)}, "memcached")
        for s in ("PFC", "BFC-32", "Pyrrha", "Per-flow")
    ]


_FIG22_CLAIMS = [
    Claim(
        "Per-flow queues match Pyrrha for background flows (Memcached, Appendix B)",
        "≈1×",
        1.0,
        ratio("Per-flow", "Pyrrha", "background_avg_us", "background avg FCT, per-flow / Pyrrha"),
        ABOUT,
        2.0,
    ),
    Claim(
        "…but cannot cut vulnerable flows' tail as Pyrrha does (it controls congested flows "
        "only at the bottleneck)",
        "higher",
        None,
        ratio("Per-flow", "Pyrrha", "vulnerable_p99_us", "vulnerable p99 FCT, per-flow / Pyrrha"),
        HIGHER,
    ),
    Claim(
        "Per-flow queues lower the incast flows' average FCT (Fig 18)",
        "lower",
        None,
        ratio("Per-flow", "Pyrrha", "incast_avg_us", "incast avg FCT, per-flow / Pyrrha"),
        LOWER,
        why="hopsim's per-flow baseline holds K_pause = 2 one-hop BDPs per flow per hop; 720 "
        "incast flows then exhaust the 20 MB buffer and packets are dropped and resent",
    ),
]


# ---------------------------------------------------------------- Fig 26: no window


def _fig26_variants(mode: str) -> list[Variant]:
    out = []
    for window in ("bdp", "none"):
        for s in ("DCQCN", "HPCC", "DCQCN+Pyrrha"):
            # Web Server, not Memcached: a Memcached flow is a packet or two, below any window.
            out.append(
                Variant(
                    s, {**_workload(mode, "webserver"), **CC[s], "transport.window": window}, window
                )
            )
    return out


def _no_window_growth(m: pd.DataFrame) -> Measure:
    def growth(s: str) -> float:
        a = get(m, s, "uncongested_avg_us", group="none")
        b = get(m, s, "uncongested_avg_us", group="bdp")
        return a / b if b else math.nan

    p, h = growth("DCQCN+Pyrrha"), growth("HPCC")
    text = f"uncongested avg FCT, no window / window: DCQCN+Pyrrha {p:.2f}×, HPCC {h:.2f}×"
    return Measure(p, text, (p / h,))


_FIG26_CLAIMS = [
    Claim(
        "Without the sending window Pyrrha's latency rises only slightly; HPCC degrades more "
        "(Appendix B)",
        "Pyrrha's growth < HPCC's",
        None,
        _no_window_growth,
        LOWER,
        why='`transport.window = "none"` removes HPCC\'s window too; where Pyrrha grows more, '
        "its uncongested flows lost more to the traffic the sources inject without a window "
        "(see the SrcToR queue in the metrics)",
    )
]


# ---------------------------------------------------------------- Fig 27 / 28: parameters


def _fig27_variants(mode: str) -> list[Variant]:
    out = []
    for merge in (True, False):
        name = "merge on" if merge else "merge off"
        for k in (2, 5, 10, 20, 35, 50):
            fc = {"kind": "pyrrha", "k_pause": k, "k_resume": 1, "merge": merge}
            out.append(
                Variant(
                    name,
                    {**_workload(mode, "memcached"), "switch.flow_control": fc},
                    f"K_pause={k}",
                )
            )
        for k in (0.5, 1, 2, 5):
            fc = {"kind": "pyrrha", "k_pause": 10, "k_resume": k, "merge": merge}
            out.append(
                Variant(
                    name,
                    {**_workload(mode, "memcached"), "switch.flow_control": fc},
                    f"K_resume={k}",
                )
            )
    return out


def _fig27_analyze(runs: list[Run]) -> pd.DataFrame:
    m = _table(runs)
    m["parameter"] = m["group"].str.split("=").str[0]
    m["value"] = m["group"].str.split("=").str[1].astype(float)
    return m


def _fig27_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 3.4), layout="constrained")
    axes = fig.subplots(1, 2, squeeze=False)[0]
    for ax, param in zip(axes, ("K_pause", "K_resume")):
        d = metrics[metrics["parameter"] == param]
        for s, dd in d.groupby("scheme"):
            dd = dd.sort_values("value")
            ax.plot(dd["value"], dd["vulnerable_p99_us"], marker="o", label=s)
        ax.set_xlabel(
            param + (" (K_resume 1)" if param == "K_pause" else " (K_pause 10)"), fontsize=8
        )
        ax.set_ylabel("vulnerable p99 FCT (µs)", fontsize=8)
    axes[0].legend(fontsize=7)
    fig.suptitle("Fig 27/28: Pyrrha's parameters, with and without MERGE (Memcached)", fontsize=9)
    fig.savefig(path, dpi=110, metadata={"Software": None})


def _spread(m: pd.DataFrame, param: str, scheme: str, lo: float, hi: float) -> float:
    d = m[(m["parameter"] == param) & (m["scheme"] == scheme) & m["value"].between(lo, hi)]
    x = d["vulnerable_p99_us"].dropna()
    return float(x.max() / x.min()) if len(x) > 1 and x.min() > 0 else math.nan


def _k_pause(m: pd.DataFrame) -> Measure:
    on, off = _spread(m, "K_pause", "merge on", 2, 35), _spread(m, "K_pause", "merge off", 2, 35)
    return Measure(on, f"max/min over K_pause 2–35: {on:.2f}× with merging, {off:.2f}× without")


def _merge_off(m: pd.DataFrame) -> Measure:
    on, off = _spread(m, "K_pause", "merge on", 2, 35), _spread(m, "K_pause", "merge off", 2, 35)
    if not (math.isfinite(off) and math.isfinite(on)):
        return Measure(
            None,
            f"spread without / with merging: {off / on:.2f}"
            if math.isfinite(on)
            else "not measured",
        )
    return Measure(off / on, f"spread without / with merging: {off / on:.2f}")


def _k_resume(m: pd.DataFrame) -> Measure:
    ron = _spread(m, "K_resume", "merge on", 0, 10)
    return Measure(ron, f"max/min over K_resume 0.5–5: {ron:.2f}×")


_FIG27_CLAIMS = [
    Claim(
        "With merging, Pyrrha is insensitive to K_pause between 2 and 35 (vulnerable p99, Fig 27a)",
        "flat (max/min ≈ 1)",
        1.0,
        _k_pause,
        FLAT,
        1.5,
    ),
    Claim(
        "Without merging, false-positive roots make the tail worse across K_pause (Fig 27a, 28a/b)",
        "merge off ≥ merge on",
        None,
        _merge_off,
        AT_LEAST,
        1.0,
        why="the Memcached flows arrive within 6 µs: few false positives form before the "
        "real roots' PAUSEs arrive, so merging has little to correct here",
    ),
    Claim(
        "With merging, K_resume does not change the tail (Fig 27b, 28d)",
        "flat (max/min ≈ 1)",
        1.0,
        _k_resume,
        FLAT,
        1.5,
    ),
]


# ---------------------------------------------------------------- Fig 16: with DRILL


def _fig16_variants(mode: str) -> list[Variant]:
    stop = {"full": "1ms", "quick": "250us"}[mode]
    schemes = {
        "Pyrrha": _fc("Pyrrha"),
        "Pyrrha+DRILL": {**_fc("Pyrrha"), "routing.load_balancer": "drill"},
    }
    return [Variant(s, {"workload.0.stop": stop, **o}, "k=8") for s, o in schemes.items()]


_FIG16_CLAIMS = [
    Claim(
        "DRILL + Pyrrha lowers the Poisson flows' tail by 18.3 % vs pure Pyrrha (§4.2, §6.3)",
        "18.3 %",
        18.3,
        reduction("Pyrrha+DRILL", "Pyrrha", "uncongested_p99_us", "uncongested p99 reduction"),
        GAIN,
        why="with DRILL the onward path is known only at its last hop, so Pyrrha isolates "
        "incast at the receivers' ToRs only; DRILL's reordering costs go-back-N resends",
    ),
    Claim(
        "…at the cost of higher incast-flow latency (§6.3)",
        "higher",
        None,
        ratio("Pyrrha+DRILL", "Pyrrha", "incast_avg_us", "incast avg FCT, Pyrrha+DRILL / Pyrrha"),
        HIGHER,
    ),
]


# ---------------------------------------------------------------- Fig 29: single-tier IQs


def _fig29_variants(mode: str) -> list[Variant]:
    stop = {"full": "1ms", "quick": "250us"}[mode]
    single = {
        **CC["DCQCN+Pyrrha"],
        "switch.flow_control": {"kind": "pyrrha", "isolation_queues": "single_tier"},
    }
    schemes = {
        "DCQCN": {**CC["DCQCN"], **_WINDOW},
        "DCQCN+Pyrrha": {**CC["DCQCN+Pyrrha"], **_WINDOW},
        "DCQCN+Pyrrha single-tier": {**single, **_WINDOW},
    }
    return [Variant(s, {"workload.0.stop": stop, **o}, "k=8") for s, o in schemes.items()]


_FIG29_CLAIMS = [
    Claim(
        "Single-tier IQs raise small-flow latency a little over hierarchical IQs… (Appendix C.2)",
        "≥ 1×",
        None,
        ratio(
            "DCQCN+Pyrrha single-tier",
            "DCQCN+Pyrrha",
            "small_avg_us",
            "<100 KB avg FCT, single-tier / hierarchical",
        ),
        AT_LEAST,
        0.95,
        why="hopsim's single tier keeps an IQ per set of roots crossed (not only the two "
        "downstream levels of the paper's prototype), so it isolates as precisely as the "
        "hierarchy; the order marks cost little",
    ),
    Claim(
        "…yet stay far below pure DCQCN's",
        "lower",
        None,
        ratio(
            "DCQCN+Pyrrha single-tier",
            "DCQCN",
            "small_avg_us",
            "<100 KB avg FCT, single-tier Pyrrha / DCQCN",
        ),
        LOWER,
    ),
]


# ---------------------------------------------------------------- the paper


PAPER = Paper(
    name="pyrrha",
    title=(
        "Pyrrha: Congestion-Root-Based Flow Control to Eliminate Head-of-Line Blocking in "
        "Datacenter"
    ),
    source="shared/papers/pyrrha.md",
    analyze=_table,
    draw=_fct_bars,
    experiments=[
        experiment(
            "fig2_hol",
            "Fig 2",
            "§2.3",
            "HOL blocking under PFC, BFC and per-flow queues",
            "720-to-1 incast of 4-BDP flows mixed with load-0.8 Poisson flows: under PFC "
            "vulnerable and background flows lose throughput (pause storm); per-flow queues keep "
            "them at line rate; BFC's tail is 6× the per-flow scheme's.",
            "incast_mix.toml",
            _fig2_variants,
            _FIG2_CLAIMS,
            _fig2_draw,
        ),
        experiment(
            "fig11_fc",
            "Fig 11",
            "§6.1",
            "flow control alone: PFC, BFC-32, BFC-128, Pyrrha",
            "Average and p99 FCT of uncongested and incast flows on Memcached, Web Server and "
            "Web Search; Pyrrha cuts uncongested FCT the most and leaves incast flows no worse "
            "than PFC.",
            "incast_mix.toml",
            _fig11_variants,
            _FIG11_CLAIMS,
            _fig11_draw,
        ),
        experiment(
            "fig12_cc",
            "Fig 12/13",
            "§6.2",
            "with DCQCN and HPCC (and DCQCN + IRN without PFC)",
            "FCT by flow size with a per-flow window; Pyrrha improves DCQCN and HPCC, most for "
            "small flows.",
            "incast_mix.toml",
            _fig12_variants,
            _FIG12_CLAIMS,
            _fig12_draw,
        ),
        experiment(
            "fig14_buffer",
            "Fig 14",
            "§6.2.1",
            "peak queue per hop (SrcToR, core, DstToR)",
            "Pyrrha empties the congestion root (DstToR), pushes congested traffic back to the "
            "SrcToR; maximum buffer 1.8–6.2× lower.",
            "incast_mix.toml",
            _fig12_variants,
            _FIG14_CLAIMS,
            _fig14_draw,
            shares="fig12_cc",
        ),
        experiment(
            "fig15_k16",
            "Fig 15",
            "§6.3",
            "k=16 fat-tree (1,024 hosts), Web Server",
            "The same trends at scale: fine-grained FC beats PFC and CC for flows < 100 KB; "
            "Pyrrha + CC lowest.",
            "fattree_k16.toml",
            _fig15_variants,
            _FIG15_CLAIMS,
        ),
        experiment(
            "fig7_iq_usage",
            "Fig 7",
            "§4.5",
            "isolation-queue usage, k=12 fat-tree",
            "(m−1)/m of the ToRs burst 40 one-BDP flows per host to the rest; IQs per port stay "
            "at 6–20.",
            "iq_usage_k12.toml",
            _fig7_variants,
            _FIG7_CLAIMS,
            _fig7_draw,
            analyze=_fig7_analyze,
        ),
        experiment(
            "fig17_incast_size",
            "Fig 17",
            "App. B",
            "incast flow size",
            "Pyrrha's uncongested FCT stays flat as incast flows grow; BFC degrades; CC settles "
            "after ~3 BDPs.",
            "incast_mix.toml",
            _fig17_variants,
            _FIG17_CLAIMS,
            _fig17_draw,
            analyze=_size_analyze,
        ),
        experiment(
            "fig19_polarization",
            "Fig 19",
            "App. B",
            "hash polarization: multiple congestion roots",
            "Uneven ECMP (half of the flows to one core) plus incast: Pyrrha isolates both kinds "
            "of roots and lowers non-incast FCT where CC cannot.",
            "polarization.toml",
            _fig19_variants,
            _FIG19_CLAIMS,
        ),
        experiment(
            "fig21_moe",
            "Fig 3/21",
            "§2.2, App. B",
            "MoE all-to-all, collided and interleaved phases",
            "Two groups of imbalanced all-to-all; with the phases collided Pyrrha speeds the "
            "tail 1.46×.",
            "moe.toml",
            _moe_variants,
            _MOE_CLAIMS,
        ),
        experiment(
            "fig22_per_flow",
            "Fig 22/18",
            "App. B",
            "per-flow queues as a baseline",
            "Per-flow queues match Pyrrha for background flows but not for vulnerable flows' tail; "
            "they lower incast flows' FCT.",
            "incast_mix.toml",
            _fig22_variants,
            _FIG22_CLAIMS,
        ),
        experiment(
            "fig26_no_window",
            "Fig 26",
            "App. B",
            "congestion control without the sending window",
            "Without the window queues grow at the source ToRs; Pyrrha degrades slightly, HPCC "
            "most.",
            "incast_mix.toml",
            _fig26_variants,
            _FIG26_CLAIMS,
        ),
        experiment(
            "fig27_params",
            "Fig 27/28",
            "App. B.1",
            "K_pause and K_resume, with and without MERGE",
            "With merging Pyrrha is insensitive to K_pause (2–35) and K_resume; without, false "
            "positives queue vulnerable flows.",
            "incast_mix.toml",
            _fig27_variants,
            _FIG27_CLAIMS,
            _fig27_draw,
            analyze=_fig27_analyze,
        ),
        experiment(
            "fig16_drill",
            "Fig 16",
            "§6.3",
            "Pyrrha with DRILL, k=8 fat-tree",
            "DRILL spreads load upstream, Pyrrha handles incast: Poisson tail 18.3 % lower, "
            "incast slower.",
            "fattree_k8.toml",
            _fig16_variants,
            _FIG16_CLAIMS,
        ),
        experiment(
            "fig29_single_tier",
            "Fig 29",
            "App. C.2",
            "single-tier IQs with order marks",
            "Single-tier IQs emulating two-level HIQs: small flows a little slower than with "
            "HIQs, far faster than pure DCQCN.",
            "fattree_k8.toml",
            _fig29_variants,
            _FIG29_CLAIMS,
        ),
    ],
)
