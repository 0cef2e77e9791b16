"""The Pyrrha paper's evaluation (Liu, Zhang et al., NSDI 2025), experiment by experiment.

Every experiment runs variants of a scenario in ``scenarios/pyrrha/``. ``full`` uses the
paper's sizes where it gives them and otherwise those of the authors' simulator (Pyrrha-NS3:
50,000 Memcached flows, about 23,500 Web Server flows, a 720-to-1 incast of 30-40 MTU flows
in one round); ``quick`` keeps each setting and shortens the Poisson arrival window (and
the sweeps) so that all experiments finish in a few minutes on two cores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from hopsim.reproduce.claims import (
    ABSOLUTE,
    AT_MOST,
    BELOW,
    LARGER,
    LESS,
    MORE,
    OPPOSITE,
    ROUGHLY,
    SAME,
    SMALLER,
    Claim,
    Measure,
    Note,
    Selector,
    Tolerance,
    Why,
    at,
    falls_short,
    lower_by,
    quotient,
    ratio,
    several,
)
from hopsim.reproduce.figures import bars, by_x
from hopsim.reproduce.framework import Paper, Run, Variant, experiment
from hopsim.reproduce.metrics import fct_summary, iq_usage, peak_queue_by_tier, throughput_by_class
from hopsim.reproduce.stats import counters, div, fmt, get, table

# ---------------------------------------------------------------- variants

#: The one-hop-BDP unit of §6 (64 KB base BDP).
BDP = 64_000

#: BFC as the Pyrrha authors' simulator runs it (Pyrrha-NS3: `SwitchMmu::GetUsableQ`'s queue
#: assignment and `BEgressQueue::DoDequeueRR`'s scheduler, which serves the lowest backlogged
#: queue first; hopsim's own BFC defaults are an empty queue and round robin). Side by side
#: with Pyrrha-NS3 on Memcached, BFC-32's victims average 685 µs with these and 86 µs
#: without, against Pyrrha-NS3's 717 (docs/ns3.md).
_BFC_AS_AUTHORS = {"queue_assignment": "pyrrha_ns3", "scheduler": "pyrrha_ns3"}

#: Flow control alone (Fig 11, 22): the kind tables.
FC: dict[str, dict[str, Any]] = {
    "PFC": {"kind": "pfc"},
    "BFC-32": {"kind": "bfc", "queues": 32, **_BFC_AS_AUTHORS},
    "BFC-128": {"kind": "bfc", "queues": 128, **_BFC_AS_AUTHORS},
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

#: Poisson flows per workload (FLOW_NUM): the authors' configs (full; Web Search 20,000 as
#: their `config-param.sh` sets for FLOW_CDF 8) or fewer (quick).
FLOW_NUM = {
    "full": {"memcached": 50_000, "webserver": 50_000, "websearch": 20_000},
    "quick": {"memcached": 50_000, "webserver": 8_000, "websearch": 2_000},
}

#: The built-in distribution of each workload and its nominal mean (B), the first line of
#: the authors' distribution file, which sets their arrival rate: Memcached (FLOW_CDF 4)
#: `FacebookKeyValueMsgSizeDist.txt` 185; Web Server (13)
#: `Facebook_WebServerDist_IntraCluster.txt` 62874; Web Search (8) `DCTCP_MsgSizeDist.txt`
#: 1744 packets x 1460 B.
DIST = {
    "memcached": ("memcached", 185),
    "webserver": ("webserver_intracluster", 62_874),
    "websearch": ("homa_w5", 1744 * 1460),
}

#: Incast packet payload (PACKET_PAYLOAD_SIZE).
PAYLOAD = 1460


def _fc(label: str) -> dict[str, Any]:
    return {"switch.flow_control": FC[label]}


def _workload(mode: str, dist: str) -> dict[str, Any]:
    name, mean = DIST[dist]
    return {
        "workload.0.size_dist": name,
        "workload.0.mean_size": mean,
        "workload.0.flow_num": FLOW_NUM[mode][dist],
    }


#: Poisson arrival windows of the scenarios that keep separate Poisson and incast workloads
#: (`polarization.toml`), giving about the authors' flow counts (full) or fewer (quick).
WINDOW = {
    "full": {"webserver": "980us"},
    "quick": {"webserver": "300us"},
}


def _poisson_window(mode: str, dist: str) -> dict[str, Any]:
    return {"workload.0.size_dist": dist, "workload.0.stop": WINDOW[mode][dist]}


def _incast_bdp(k: float) -> dict[str, Any]:
    """Incast flows of about `k` BDPs (uniform within ±12.5 %, whole packets)."""
    return {
        "workload.0.incast_packets_min": round(k * BDP * 0.875 / PAYLOAD),
        "workload.0.incast_packets_max": round(k * BDP * 1.125 / PAYLOAD),
    }


# ---------------------------------------------------------------- analysis


def authors_classes(result: Any) -> pd.Series:
    """The authors' classes of each flow (Pyrrha-NS3, `mix/get_victim_others_fct.py`):
    ``incast`` for the congested flows; of the others, ``victim`` when the source or the
    destination is in the incast receiver's rack (hosts behind its ToR), else ``others``.
    The receiver is the destination of most congested flows; hosts' racks come from the
    ports table (a host's one link leads to its ToR)."""
    f = result.flows
    cls = f["class"].astype(str)
    congested = cls == "congested"
    out = pd.Series("others", index=f.index, dtype="object")
    out[congested] = "incast"
    if not congested.any():
        return out
    p = result.ports
    tor = p[p["tier"] == "host"].set_index("node")["peer_node"]
    receiver = int(f.loc[congested, "dst"].mode().iloc[0])
    rack = tor.get(receiver)
    near = (f["src"].map(tor) == rack) | (f["dst"].map(tor) == rack)
    out[~congested & near] = "victim"
    return out


def _authors_fct(result: Any) -> dict[str, Any]:
    """Mean and p99 FCT (µs) and count of the authors' victim and others flows."""
    a = authors_classes(result)
    fct = result.flows["fct_ns"]
    out: dict[str, Any] = {}
    for name in ("victim", "others"):
        x = fct[a == name].dropna().astype("float64") / 1e3
        out[f"{name}_avg_us"] = float(x.mean()) if len(x) else math.nan
        out[f"{name}_p99_us"] = float(x.quantile(0.99)) if len(x) else math.nan
        out[f"{name}_flows"] = int(len(x))
    return out


def _metrics(run: Run) -> dict[str, Any]:
    return {**fct_summary(run.result), **_authors_fct(run.result), **peak_queue_by_tier(run.result)}


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


#: The counters a note cites: what was lost, paused, timed out or left unfinished.
_LOSSES = (
    ("drops", "drops"),
    ("pause_frames", "pause frames"),
    ("timeouts", "timeouts"),
    ("unfinished", "unfinished flows"),
)


def _facts(*schemes: str, cols=_LOSSES, **where: Any) -> Note:
    """A note's measured counters of `schemes` (see `stats.counters`)."""
    return lambda m: counters(m, schemes, cols, **where)


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


_PER_FLOW_HYPOTHESIS = (
    "the paper's per-flow scheme is ideal (no thresholds given); hopsim's per-flow baseline "
    "pauses each flow at K_pause = 2 one-hop BDPs per hop and resumes it at K_resume = 1, so "
    "720 incast flows of 4 BDPs can fill the 32 MiB buffer (drops, timeouts above), and "
    "small ones leave the receiver's link idle between a RESUME and the packets it frees"
)

_PER_FLOW_LARGER = (
    "with the authors' 32 MiB buffer and 8-BDP headroom hopsim's per-flow baseline drops far "
    "less than it did with 20 MB (the counts above) and keeps the Poisson flows near their "
    "ideal, while under BFC-32 they start 30 µs after the incast (TIME_SHIFT), when the 32 "
    "queues per port are already shared with incast flows"
)

_FIG2_CLAIMS = [
    Claim(
        "BFC's uncongested flows' tail FCT is about 6× the per-flow queue scheme's",
        "§2.3",
        "6×",
        6.0,
        ratio("BFC-32", "Per-flow", "uncongested_p99_us", "uncongested p99, BFC-32 / per-flow"),
        MORE,
        why=Why(
            _facts("BFC-32", "Per-flow"),
            {**falls_short(_PER_FLOW_HYPOTHESIS), LARGER: _PER_FLOW_LARGER},
        ),
    ),
    Claim(
        "PFC spreads the incast's congestion (a pause storm): background flows are slower "
        "than under per-flow queues",
        "§2.2",
        "none",
        None,
        ratio("PFC", "Per-flow", "background_avg_us", "background avg FCT, PFC / per-flow"),
        MORE,
        why=Why(_facts("PFC", "Per-flow")),
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
    "Memcached's flows arrive within about 6 µs, 30 µs after the incast (as in the authors' "
    "simulator): only those to or from the receiver's rack wait behind the paused "
    "spine-to-ToR links, so PFC hurts few flows and leaves Pyrrha less to win"
)

_WHY_WEBSEARCH_TAIL = (
    "Web Search's tail is its largest flows (up to 29 MB, mean 2.5 MB), whose FCT is set by "
    "sharing host links at load 0.8 more than by HOL blocking, so flow control moves it little"
)


def _fig11_gains(base: str, w: str) -> list[Claim]:
    small = {SMALLER: _WHY_MEMCACHED} if (w == "memcached" and base == "PFC") else {}
    if w == "websearch":
        small = {SMALLER: _WHY_WEBSEARCH_TAIL}
    why = Why(_facts(base, "Pyrrha", group=w), small)
    return [
        Claim(
            f"{w}: Pyrrha lowers the uncongested flows' average FCT by 42.8–98.2 % against {base}",
            "abstract, §1",
            "42.8–98.2 % lower",
            lower_by(42.8, 98.2),
            ratio(
                "Pyrrha",
                base,
                "uncongested_avg_us",
                f"uncongested avg FCT, Pyrrha / {base}",
                group=w,
            ),
            LESS,
            why=why,
        ),
        Claim(
            f"{w}: Pyrrha's uncongested p99 FCT is 1.6–215× lower than {base}'s",
            "abstract, §1",
            "1.6–215× lower",
            (1.6, 215.0),
            ratio(
                "Pyrrha",
                base,
                "uncongested_p99_us",
                f"uncongested p99 FCT, Pyrrha / {base}",
                group=w,
            ),
            LESS,
            why=why,
        ),
    ]


def _fig11_20mb_variants(mode: str) -> list[Variant]:
    """PFC and Pyrrha with the paper's 20 MB buffer instead of the authors' 32 MiB."""
    return [
        Variant(s, {**_workload(mode, w), **_fc(s), "switch.buffer_bytes": "20MB"}, w)
        for w in _WORKLOADS
        for s in ("PFC", "Pyrrha")
    ]


_BFC_HYPOTHESIS = (
    "BFC pauses a queue above one-hop BDP / N_active, a few KB once tens of queues are "
    "active, so queues that short flows share with incast flows pause at once, while PFC's "
    "dynamic threshold lets the 32 MiB buffer absorb the burst"
)

_FIG11_CLAIMS = [
    *[c for base in ("PFC", "BFC-32") for w in _WORKLOADS for c in _fig11_gains(base, w)],
    Claim(
        "Pyrrha does not compromise incast flows compared with PFC (each workload)",
        "§6.1.2",
        "no worse",
        None,
        ratio("Pyrrha", "PFC", "incast_avg_us", "incast avg FCT, Pyrrha / PFC"),
        AT_MOST,
        Tolerance(1.1, "'does not compromise' gives no number; read as at most 10 % slower"),
        why=Why(_facts("PFC", "Pyrrha")),
    ),
    Claim(
        "BFC improves with more queues: BFC-128's uncongested flows are faster than "
        "BFC-32's (each workload)",
        "§6.1.2",
        "none",
        None,
        ratio("BFC-128", "BFC-32", "uncongested_avg_us", "uncongested avg FCT, BFC-128 / BFC-32"),
        LESS,
        why=Why(
            _facts("BFC-32", "BFC-128"),
            {
                OPPOSITE: "on Web Search the uncongested average is set by the large flows' "
                "transfers (mean 2.5 MB) sharing host links at load 0.8 more than by which "
                "flows share a queue, so 128 queues change it little"
            },
        ),
    ),
    Claim(
        "BFC lowers the incast flows' average FCT against PFC (each workload)",
        "§6.1.2",
        "none",
        None,
        ratio("BFC-32", "PFC", "incast_avg_us", "incast avg FCT, BFC-32 / PFC"),
        LESS,
        why=Why(_facts("PFC", "BFC-32")),
    ),
    *[
        Claim(
            f"{w}: BFC partially alleviates HOL blocking: uncongested flows are faster than "
            "under PFC",
            "§6.1.2",
            "none",
            None,
            ratio(
                "BFC-32", "PFC", "uncongested_avg_us", "uncongested avg FCT, BFC-32 / PFC", group=w
            ),
            LESS,
            why=Why(_facts("PFC", "BFC-32", group=w), {OPPOSITE: _BFC_HYPOTHESIS}),
        )
        for w in _WORKLOADS
    ],
    Claim(
        "websearch: BFC's tail latency is worse than PFC's (its smaller threshold spreads "
        "congestion)",
        "§6.1.2",
        "none",
        None,
        ratio(
            "BFC-32",
            "PFC",
            "uncongested_p99_us",
            "uncongested p99 FCT, BFC-32 / PFC",
            group="websearch",
        ),
        MORE,
        why=Why(_facts("PFC", "BFC-32", group="websearch")),
    ),
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


def _avg_and_p99(num: str, den: str) -> Selector:
    """Uncongested average and p99 FCT of `num` over `den`, per workload."""
    return several(
        lambda m: [
            (f"{g} {stat}", div(get(m, num, col, group=g), get(m, den, col, group=g)))
            for g in dict.fromkeys(m["group"])
            for stat, col in (("avg", "uncongested_avg_us"), ("p99", "uncongested_p99_us"))
        ],
        f"uncongested FCT, {num} / {den}",
        "{:.2f}×",
    )


def _small_vs_large(m: pd.DataFrame) -> Measure:
    """Web Server: DCQCN+Pyrrha / DCQCN for flows < 100 KB over the same for ≥ 100 KB."""
    s = div(
        get(m, "DCQCN+Pyrrha", "small_avg_us", group="webserver"),
        get(m, "DCQCN", "small_avg_us", group="webserver"),
    )
    lg = div(
        get(m, "DCQCN+Pyrrha", "large_avg_us", group="webserver"),
        get(m, "DCQCN", "large_avg_us", group="webserver"),
    )
    text = f"<100 KB {fmt(s)}×, ≥100 KB {fmt(lg)}× (avg FCT, DCQCN+Pyrrha / DCQCN)"
    return Measure.of(div(s, lg), text)


_FIG12_CLAIMS = [
    *[
        Claim(
            f"Adding Pyrrha to {cc} lowers the uncongested flows' average and p99 FCT (each "
            "workload)",
            "§6.2.1" if cc == "DCQCN" else "§6.2.2",
            "none",
            None,
            _avg_and_p99(f"{cc}+Pyrrha", cc),
            LESS,
            why=Why(_facts(cc, f"{cc}+Pyrrha")),
        )
        for cc in ("DCQCN", "HPCC")
    ],
    Claim(
        "Web Server: Pyrrha's gain with DCQCN is larger for flows < 100 KB than for larger "
        "flows (Memcached has no flow ≥ 100 KB)",
        "§6.2.1",
        "none",
        None,
        _small_vs_large,
        LESS,
        why=Why(_facts("DCQCN", "DCQCN+Pyrrha", group="webserver")),
    ),
]

_TIERS = ("max_queue_src_tor_kb", "max_queue_core_kb", "max_queue_dst_tor_kb")
_QUEUES = tuple(zip(_TIERS, ("SrcToR peak KB", "core peak KB", "DstToR peak KB")))


def _fig14_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    sub = metrics[metrics["scheme"].isin(["DCQCN", "DCQCN+Pyrrha"])]
    labels = ("SrcToR max queue (KB)", "Core max queue (KB)", "DstToR max queue (KB)")
    title = "Fig 14: peak queue per hop, DCQCN vs DCQCN + Pyrrha"
    bars(sub, path, list(zip(_TIERS, labels)), title)


def _peak_buffer(m: pd.DataFrame) -> Measure:
    def peak(s: str, g: str) -> float:
        return max(get(m, s, c, group=g) for c in _TIERS)

    xs = [(g, div(peak("DCQCN", g), peak("DCQCN+Pyrrha", g))) for g in dict.fromkeys(m["group"])]
    shown = ", ".join(f"{g} {fmt(x)}×" for g, x in xs)
    return Measure(
        tuple(x for _, x in xs), f"{shown} (largest peak queue of any hop, DCQCN / DCQCN+Pyrrha)"
    )


_FIG14_FACTS = _facts("DCQCN", "DCQCN+Pyrrha", cols=_QUEUES, spec="{:,.0f}")

_FIG14_CLAIMS = [
    Claim(
        "Pyrrha lowers the maximum buffer occupancy 1.8–6.2× (with DCQCN; each workload)",
        "§1, Fig 14",
        "1.8–6.2×",
        (1.8, 6.2),
        _peak_buffer,
        MORE,
        why=Why(_FIG14_FACTS),
    ),
    Claim(
        "The congestion root's (DstToR) peak queue is greatly reduced (each workload)",
        "§6.2.1",
        "none",
        None,
        ratio("DCQCN+Pyrrha", "DCQCN", "max_queue_dst_tor_kb", "DstToR peak, DCQCN+Pyrrha / DCQCN"),
        LESS,
        why=Why(_FIG14_FACTS),
    ),
    Claim(
        "Pyrrha pushes congested traffic back: the SrcToR peak queue grows (each workload)",
        "§6.2.1",
        "none",
        None,
        ratio("DCQCN+Pyrrha", "DCQCN", "max_queue_src_tor_kb", "SrcToR peak, DCQCN+Pyrrha / DCQCN"),
        MORE,
        why=Why(_FIG14_FACTS),
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


def _vs(fine: tuple[str, ...], coarse: tuple[str, ...], col: str = "small_avg_us") -> Selector:
    """`col` of each of `fine` over each of `coarse` (one group)."""
    return several(
        lambda m: [
            (f"{a} / {b}", div(get(m, a, col), get(m, b, col))) for a in fine for b in coarse
        ],
        "<100 KB avg FCT",
        "{:.2f}×",
    )


_FIG15_FACTS = _facts(
    *_FIG15_SCHEMES, cols=(("small_avg_us", "<100 KB avg FCT µs"),), spec="{:.1f}"
)

_FIG15_CLAIMS = [
    Claim(
        "k=16 fat-tree: BFC and Pyrrha (fine-grained FC) each beat PFC and DCQCN for flows "
        "< 100 KB",
        "§6.3",
        "none",
        None,
        _vs(("BFC-32", "Pyrrha"), ("PFC", "DCQCN")),
        LESS,
        why=Why(_FIG15_FACTS),
    ),
    Claim(
        "Pyrrha with CC gives flows < 100 KB the lowest latency",
        "§6.3",
        "none",
        None,
        _vs(("DCQCN+Pyrrha",), ("PFC", "BFC-32", "Pyrrha", "DCQCN")),
        LESS,
        why=Why(_FIG15_FACTS),
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
    def metrics(r: Run) -> dict[str, Any]:
        return {**iq_usage(r.result), "flows": len(r.result.flows)}

    m = table(runs, metrics, lambda g: {"fraction": float(g)})
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
    xs = [(r["fraction"], r.get("max_iqs", math.nan)) for _, r in m.iterrows()]
    shown = ", ".join(f"{f:.2f}: {fmt(x, '{:.0f}')}" for f, x in xs)
    return Measure(
        tuple(x for _, x in xs), f"most IQs on one port, by fraction of ToRs sending: {shown}"
    )


def _iq_facts(m: pd.DataFrame) -> str:
    return ", ".join(
        f"{r['fraction']:.2f}: {fmt(r.get('flows', math.nan), '{:,.0f}')} flows, mean peak "
        f"{fmt(r.get('mean_peak_iqs', math.nan), '{:.1f}')} IQs per port that held any"
        for _, r in m.iterrows()
    )


_FIG7_CLAIMS = [
    Claim(
        "IQ usage on a k=12 fat-tree ranges from 6 to 20 per port (its proportionality to k "
        "is not checked: one k)",
        "§4.5",
        "6–20",
        (6.0, 20.0),
        _iq_peaks,
        ABSOLUTE,
        Tolerance(1.0, "the paper's range is the span of its own counts"),
        why=Why(
            _iq_facts,
            {
                BELOW: "fewer roots than in the paper's runs: hopsim's roots are the receivers' "
                "ToR ports and the ports above them that the burst congests, and with "
                "hash-aware matching a port needs IQs only for roots its flows cross "
                "(--quick also sends 10 one-BDP flows per host, not 40)"
            },
        ),
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


def _growth(m: pd.DataFrame, scheme: str, col: str = "uncongested_avg_us") -> float:
    d = m[m["scheme"] == scheme].sort_values("incast_bdp")
    if len(d) < 2:
        return math.nan
    return div(float(d[col].iloc[-1]), float(d[col].iloc[0]))


def _incast_growth(scheme: str) -> Selector:
    def measure(m: pd.DataFrame) -> Measure:
        x = _growth(m, scheme)
        sizes = sorted(m["incast_bdp"].dropna().unique()) if "incast_bdp" in m else []
        span = f"{sizes[-1]:g} / {sizes[0]:g} BDP" if sizes else "-"
        return Measure.of(x, f"{fmt(x)}× ({scheme}'s uncongested avg FCT, incast flows of {span})")

    return measure


_FIG17_FACTS = _facts(
    "BFC-32",
    "DCQCN",
    "Pyrrha",
    cols=(("uncongested_avg_us", "uncongested avg FCT µs"),),
    spec="{:.0f}",
)

_FIG17_CLAIMS = [
    Claim(
        "Pyrrha's uncongested flows keep a stable FCT as incast flows grow",
        "App. B",
        "stable",
        None,
        _incast_growth("Pyrrha"),
        SAME,
        ROUGHLY,
        why=Why(_FIG17_FACTS),
    ),
    Claim(
        "BFC degrades with long incast flows (uncongested flows slower)",
        "App. B",
        "none",
        None,
        _incast_growth("BFC-32"),
        MORE,
        why=Why(_FIG17_FACTS),
    ),
]
# ---------------------------------------------------------------- Fig 19: hash polarization


def _fig19_variants(mode: str) -> list[Variant]:
    schemes = {
        "DCQCN": {**CC["DCQCN"], **_WINDOW},
        "HPCC": {**CC["HPCC"], **_WINDOW},
        "DCQCN+Pyrrha": {**CC["DCQCN+Pyrrha"], **_WINDOW},
    }
    return [
        Variant(s, {**_poisson_window(mode, "webserver"), **o}, "polarized")
        for s, o in schemes.items()
    ]


_FIG19_CLAIMS = [
    Claim(
        "Under hash polarization (several roots), Pyrrha lowers the non-incast flows' average "
        "and p99 FCT against DCQCN and against HPCC",
        "App. B",
        "none",
        None,
        several(
            lambda m: [
                (f"{stat} vs {cc}", div(get(m, "DCQCN+Pyrrha", col), get(m, cc, col)))
                for cc in ("DCQCN", "HPCC")
                for stat, col in (("avg", "uncongested_avg_us"), ("p99", "uncongested_p99_us"))
            ],
            "uncongested FCT, DCQCN+Pyrrha / CC",
            "{:.2f}×",
        ),
        LESS,
        why=Why(_facts("DCQCN", "HPCC", "DCQCN+Pyrrha")),
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
        "MoE all-to-all, collided phase: Pyrrha speeds up the tail 1.46× over DCQCN + PFC",
        "§2.2, Fig 3",
        "1.46×",
        1.46,
        ratio(
            "DCQCN+PFC",
            "DCQCN+Pyrrha",
            "all_p99_us",
            "p99 FCT, DCQCN+PFC / DCQCN+Pyrrha",
            group="collided",
        ),
        MORE,
        why=Why(_facts("DCQCN+PFC", "DCQCN+Pyrrha", group="collided")),
    ),
    Claim(
        "Interleaved phase: Pyrrha still speeds up the tail",
        "App. B, Fig 21",
        "none",
        None,
        ratio(
            "DCQCN+PFC",
            "DCQCN+Pyrrha",
            "all_p99_us",
            "p99 FCT, DCQCN+PFC / DCQCN+Pyrrha",
            group="interleaved",
        ),
        MORE,
        why=Why(_facts("DCQCN+PFC", "DCQCN+Pyrrha", group="interleaved")),
    ),
]
# ---------------------------------------------------------------- Fig 22: per-flow queues


def _fig22_variants(mode: str) -> list[Variant]:
    return [
        Variant(s, {**_workload(mode, "memcached"), **_fc(s)}, "memcached")
        for s in ("PFC", "BFC-32", "Pyrrha", "Per-flow")
    ]


_FIG22_FACTS = _facts("Pyrrha", "Per-flow")

_FIG22_CLAIMS = [
    Claim(
        "Memcached: per-flow queues give background flows as low a latency as Pyrrha "
        "(average and p99)",
        "App. B",
        "as low",
        None,
        several(
            lambda m: [
                (stat, div(get(m, "Per-flow", col), get(m, "Pyrrha", col)))
                for stat, col in (("avg", "background_avg_us"), ("p99", "background_p99_us"))
            ],
            "background FCT, per-flow / Pyrrha",
            "{:.2f}×",
        ),
        AT_MOST,
        Tolerance(1.25, "'as low latency as' gives no number; read as at most 25 % higher"),
        why=Why(_FIG22_FACTS),
    ),
    Claim(
        "…but cannot cut the vulnerable flows' tail as Pyrrha does",
        "App. B",
        "none",
        None,
        ratio("Per-flow", "Pyrrha", "vulnerable_p99_us", "vulnerable p99 FCT, per-flow / Pyrrha"),
        MORE,
        why=Why(_FIG22_FACTS),
    ),
    Claim(
        "Per-flow queues lower the incast flows' average FCT (as a by-product)",
        "App. B, Fig 18",
        "none",
        None,
        ratio("Per-flow", "Pyrrha", "incast_avg_us", "incast avg FCT, per-flow / Pyrrha"),
        LESS,
        why=Why(_FIG22_FACTS, falls_short(_PER_FLOW_HYPOTHESIS)),
    ),
]
# ---------------------------------------------------------------- Fig 26: no window


def _fig26_variants(mode: str) -> list[Variant]:
    out = []
    for window in ("bdp", "none"):
        for s in ("DCQCN", "HPCC", "DCQCN+Pyrrha", "DCQCN+IRN"):
            # Web Server, not Memcached: a Memcached flow is a packet or two, below any window.
            out.append(
                Variant(
                    s, {**_workload(mode, "webserver"), **CC[s], "transport.window": window}, window
                )
            )
    return out


def _no_window(m: pd.DataFrame, s: str, col: str = "uncongested_avg_us") -> float:
    """`col` of `s` without the window over with it."""
    return div(get(m, s, col, group="none"), get(m, s, col, group="bdp"))


def _growths(schemes: tuple[str, ...]) -> Callable[[pd.DataFrame], str]:
    return lambda m: (
        "uncongested avg FCT without / with the window: "
        + ", ".join(f"{s} {fmt(_no_window(m, s))}×" for s in schemes)
    )


_FIG26_SCHEMES = ("DCQCN", "HPCC", "DCQCN+Pyrrha", "DCQCN+IRN")
_FIG26_FACTS = _facts(*_FIG26_SCHEMES, group="none")


def _irn(col: str, label: str) -> Selector:
    return quotient(
        at("DCQCN+IRN", col, group="none"),
        at("DCQCN", col, group="none"),
        f"{label} avg FCT without the window, DCQCN+IRN / DCQCN (PFC)",
    )


def _pyrrha_without_window(m: pd.DataFrame) -> Measure:
    x = _no_window(m, "DCQCN+Pyrrha")
    return Measure.of(
        x, f"{fmt(x)}× (DCQCN+Pyrrha's uncongested avg FCT, without / with the window)"
    )


_FIG26_CLAIMS = [
    Claim(
        "Without the sending window Pyrrha's latency rises only slightly",
        "App. B",
        "slightly",
        None,
        _pyrrha_without_window,
        AT_MOST,
        Tolerance(1.25, "'slightly increased' gives no number; read as at most 25 %"),
        why=Why(_growths(("DCQCN+Pyrrha",))),
    ),
    Claim(
        "Without the window HPCC degrades more than DCQCN and DCQCN + Pyrrha",
        "App. B",
        "none",
        None,
        several(
            lambda m: [
                (f"HPCC / {s}", div(_no_window(m, "HPCC"), _no_window(m, s)))
                for s in ("DCQCN", "DCQCN+Pyrrha")
            ],
            "growth of uncongested avg FCT without the window",
        ),
        MORE,
        why=Why(_growths(("DCQCN", "HPCC", "DCQCN+Pyrrha"))),
    ),
    Claim(
        "Without the window the SrcToR queues grow under every protocol",
        "App. B, Fig 26(e)",
        "none",
        None,
        several(
            lambda m: [(s, _no_window(m, s, "max_queue_src_tor_kb")) for s in _FIG26_SCHEMES],
            "SrcToR peak queue, without / with the window",
        ),
        MORE,
        why=Why(_facts(*_FIG26_SCHEMES, cols=(("max_queue_src_tor_kb", "SrcToR peak KB"),))),
    ),
    Claim(
        "DCQCN with IRN (no PFC) shortens flows < 100 KB against DCQCN with PFC",
        "§6.2.1, Fig 26(b)",
        "none",
        None,
        _irn("small_avg_us", "<100 KB"),
        LESS,
        why=Why(_FIG26_FACTS),
    ),
    Claim(
        "…but prolongs larger flows",
        "§6.2.1, Fig 26(b)",
        "none",
        None,
        _irn("large_avg_us", "≥100 KB"),
        MORE,
        why=Why(
            _FIG26_FACTS,
            {
                OPPOSITE: "with 32 MiB buffers few packets are lost without PFC (the drop count "
                "above), so IRN's selective resends cost large flows little"
            },
        ),
    ),
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


def _vuln(m: pd.DataFrame, param: str, scheme: str, lo: float, hi: float) -> pd.Series:
    d = m[(m["parameter"] == param) & (m["scheme"] == scheme) & m["value"].between(lo, hi)]
    return d.set_index("value")["vulnerable_p99_us"].dropna().sort_index()


def _spread(param: str, lo: float, hi: float) -> Selector:
    def measure(m: pd.DataFrame) -> Measure:
        x = _vuln(m, param, "merge on", lo, hi)
        s = div(float(x.max()), float(x.min())) if len(x) > 1 else math.nan
        return Measure.of(
            s, f"{fmt(s)}× (max / min vulnerable p99 FCT with merging, {param} {lo:g}–{hi:g})"
        )

    return measure


def _merge_off_over_on(m: pd.DataFrame) -> Measure:
    on, off = _vuln(m, "K_pause", "merge on", 2, 35), _vuln(m, "K_pause", "merge off", 2, 35)
    xs = [(k, div(off.get(k, math.nan), on.get(k, math.nan))) for k in on.index]
    shown = ", ".join(f"{k:g}: {fmt(x, '{:.3f}')}" for k, x in xs) or "not measured"
    return Measure(
        tuple(x for _, x in xs), f"vulnerable p99 FCT without / with merging, by K_pause: {shown}"
    )


def _k_pause_50(m: pd.DataFrame) -> Measure:
    x = _vuln(m, "K_pause", "merge on", 2, 50)
    r = div(float(x.get(50.0, math.nan)), float(x[x.index <= 35].max())) if len(x) else math.nan
    return Measure.of(
        r,
        f"{fmt(r, '{:.3f}')}× (vulnerable p99 FCT with merging, K_pause 50 / the largest at 2–35)",
    )


_FIG27_FACTS = _facts("merge on", "merge off", cols=(("merges", "merges"),), group="K_pause=10")

_FIG27_CLAIMS = [
    Claim(
        "With merging, Pyrrha is insensitive to K_pause between 2 and 35 (vulnerable p99)",
        "App. B.1, Fig 27a",
        "insensitive",
        None,
        _spread("K_pause", 2, 35),
        AT_MOST,
        ROUGHLY,
        why=Why(_FIG27_FACTS),
    ),
    Claim(
        "Above K_pause 35 the tail rises (Pyrrha reacts late)",
        "App. B.1, Fig 27a",
        "none",
        None,
        _k_pause_50,
        MORE,
        why=Why(_FIG27_FACTS),
    ),
    Claim(
        "Without merging, false-positive roots make the vulnerable flows' tail worse at each "
        "K_pause of 2–35",
        "App. B.1, Fig 27a, 28a/b",
        "none",
        None,
        _merge_off_over_on,
        MORE,
        why=Why(
            _FIG27_FACTS,
            {
                OPPOSITE: "the Memcached flows arrive within about 6 µs, 30 µs after the "
                "incast, when the real roots' trees are built: few false-positive roots form, "
                "so merging has little to correct (see the merge count)"
            },
        ),
    ),
    Claim(
        "With merging, K_resume does not change the tail",
        "App. B.1, Fig 27b, 28d",
        "unchanged",
        None,
        _spread("K_resume", 0, 10),
        AT_MOST,
        ROUGHLY,
        why=Why(_FIG27_FACTS),
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


_FIG16_FACTS = _facts("Pyrrha", "Pyrrha+DRILL")

_FIG16_CLAIMS = [
    Claim(
        "DRILL + Pyrrha lowers the Poisson flows' tail FCT by 18.3 % against pure Pyrrha",
        "§4.2, §6.3",
        "18.3 % lower",
        lower_by(18.3),
        ratio(
            "Pyrrha+DRILL",
            "Pyrrha",
            "uncongested_p99_us",
            "uncongested p99 FCT, Pyrrha+DRILL / Pyrrha",
        ),
        LESS,
        why=Why(
            _FIG16_FACTS,
            falls_short(
                "with DRILL the onward path is known only at its last hop, so Pyrrha "
                "isolates incast only at the receivers' ToRs, and DRILL's reordering costs "
                "go-back-N resends (see the timeouts and unfinished flows above)"
            ),
        ),
    ),
    Claim(
        "…at the cost of higher incast-flow latency",
        "§6.3",
        "none",
        None,
        ratio("Pyrrha+DRILL", "Pyrrha", "incast_avg_us", "incast avg FCT, Pyrrha+DRILL / Pyrrha"),
        MORE,
        why=Why(_FIG16_FACTS),
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


_FIG29_FACTS = _facts("DCQCN", "DCQCN+Pyrrha", "DCQCN+Pyrrha single-tier")

_FIG29_CLAIMS = [
    Claim(
        "With single-tier IQs (downstream roots only) flows < 100 KB are slower than with "
        "hierarchical IQs",
        "App. C.2",
        "none",
        None,
        ratio(
            "DCQCN+Pyrrha single-tier",
            "DCQCN+Pyrrha",
            "small_avg_us",
            "<100 KB avg FCT, single-tier / hierarchical",
        ),
        MORE,
        why=Why(
            _FIG29_FACTS,
            {
                OPPOSITE: "hopsim's single tier keeps an IQ per set of roots a flow crosses "
                "(not only the two downstream levels of the paper's prototype), so it isolates "
                "as precisely as the hierarchy, and its order marks cost little"
            },
        ),
    ),
    Claim(
        "…yet far faster than pure DCQCN",
        "App. C.2",
        "none",
        None,
        ratio(
            "DCQCN+Pyrrha single-tier",
            "DCQCN",
            "small_avg_us",
            "<100 KB avg FCT, single-tier Pyrrha / DCQCN",
        ),
        LESS,
        why=Why(_FIG29_FACTS),
    ),
]
# ---------------------------------------------------------------- the paper


PAPER = Paper(
    name="pyrrha",
    title=(
        "Pyrrha: Congestion-Root-Based Flow Control to Eliminate Head-of-Line Blocking in "
        "Datacenter"
    ),
    source="Kexin Liu, Zhaochen Zhang et al., NSDI 2025",
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
            "fig11_fc_20mb",
            "Fig 11 (20 MB)",
            "§6",
            "flow control alone with the paper's 20 MB buffer: PFC, Pyrrha",
            "The §6 text gives 20 MB shared buffers where the authors' configs run 32 MiB "
            "(BUFFER_SIZE 32): Pyrrha's gains over PFC with the smaller buffer.",
            "incast_mix.toml",
            _fig11_20mb_variants,
            [c for w in _WORKLOADS for c in _fig11_gains("PFC", w)],
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
