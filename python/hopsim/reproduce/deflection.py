"""The Practical Packet Deflection paper's evaluation (Abdous, Sharafzadeh and Ghorbani,
Proc. ACM Netw. / CoNEXT 2023), experiment by experiment.

Every experiment runs variants of a scenario in ``scenarios/deflection/``: the §5.2 leaf-spine
(``leafspine.toml``), the k=8 fat-tree of Fig 10 (``fattree_k8.toml``), the 100 Gb/s
leaf-spine of Fig 11 (``leafspine_100g.toml``) and the artifact's 1 Gb/s small-scale setting
(``leafspine_1g.toml``, experiment ``art1g``, checked against the sample output the
artifact's README prints; 1.2 s runs without drain, as the artifact's). Settings the paper
leaves out come from its artifact (``github.com/hopnets/practical_deflection``):
TCP with a 1452 B MSS, initial window 10, 10 ms minimum and initial RTO, DCTCP marking at
65 packets, 300 KB per port, a hop limit (TTL) of 250; Vertigo and Preemptive Deflection
(PD) with per-packet power-of-two load balancing and a 360 µs ordering layer at the
receivers; DIBS and Simple Deflection (SD) without fast retransmit; Swift's targets
60 µs + 30 µs per hop, Bolt's CC threshold 10 KB.

Loads are the paper's: fractions of the leaf-spine capacity (8 × 4 × 40 Gb/s = 1.28 Tb/s),
50 % background (Facebook cache-follower flows) plus incast queries of 100 × 40 KB whose
rate makes up the rest (55-95 %: 2,000-18,000 queries per second; `traffic`). Arrivals stop
after a window (``quick``: 10-20 ms, ``full``: 30-60 ms; the authors ran about 340 ms) and
the network then drains, so queries are not cut short; a query counts once all its
responses finished (as the artifact's ``qct.py``), and finished / issued is reported.
One run per point, as the artifact. ``fig6_window`` reruns Fig 6's 95 % point with longer
windows, since the runs do not settle there.

PD means Quantile-PD, as in the paper; Distribution-PD is named in full.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hopsim.reproduce.claims import (
    ABOVE,
    ABSOLUTE,
    AT_MOST,
    BELOW,
    LARGER,
    LESS,
    MORE,
    NEW,
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
    change,
    falls_short,
    higher_by,
    lower_by,
    lower_text,
    quotient,
    several,
    text,
)
from hopsim.reproduce.figures import bars, by_x, palette
from hopsim.reproduce.framework import Paper, Run, Variant, experiment
from hopsim.reproduce.stats import counters, div, fmt, fmt_range, get, table
from hopsim.results import Result

# ---------------------------------------------------------------- load accounting


@dataclass(frozen=True)
class Topo:
    """A scenario's capacities: the leaf-spine (core) capacity loads are fractions of, the
    host links' (what a Poisson workload's ``load`` is a fraction of) and the host count."""

    scenario: str
    core_bps: float
    host_bps: float
    hosts: int
    #: Link speed class, for the arrival windows (100 Gb/s carries 2.5x the packets).
    speed: str = "10g"


TOPOS = {
    "leafspine": Topo("leafspine.toml", 1.28e12, 320 * 10e9, 320),
    # k=8 fat-tree at 10 Gb/s: 16 cores x 8 ports = 1.28 Tb/s, the same as the host links.
    "fattree": Topo("fattree_k8.toml", 1.28e12, 128 * 10e9, 128),
    "100g": Topo("leafspine_100g.toml", 8 * 4 * 100e9, 320 * 100e9, 320, "100g"),
}

#: Loads of Figs 6, 8, 10, 13 and Table 1 (% of the leaf-spine capacity).
LOADS = (55, 65, 75, 85, 95)
BACKGROUND = 50
FAN_OUT = 100
RESPONSE = 40_000
#: The TCP payload per packet (the artifact's MSS); packets of a flow = ceil(size / MSS).
MSS = 1452
#: The artifact's elephant class (and Vertigo's): flows of 10 MB or more.
ELEPHANT = 10_000_000

#: Arrival windows in ms: (below 70 % load, from 70 %), per mode and link speed. The
#: network does not reach a steady state at high load (queries whose responses keep timing
#: out pile up until arrivals stop), so QCTs there grow with the window.
WINDOW_MS = {
    "quick": {"10g": (20, 10), "100g": (8, 4)},
    "full": {"10g": (60, 30), "100g": (24, 12)},
}


def window(mode: str, load: float, speed: str = "10g") -> str:
    low, high = WINDOW_MS[mode][speed]
    return f"{low if load < 70 else high}ms"


def traffic(
    topo: str,
    mode: str,
    load: float,
    background: float = BACKGROUND,
    fan_out: int = FAN_OUT,
    response: int = RESPONSE,
    qps_total: float | None = None,
) -> dict[str, Any]:
    """Overrides for ``load`` % in total with ``background`` % of background traffic (both
    fractions of the leaf-spine capacity): the Poisson load on the host links, and the
    queries per second per client that carry the rest (or ``qps_total`` queries per second
    over all clients)."""
    t = TOPOS[topo]
    if qps_total is None:
        qps_total = (load - background) / 100 * t.core_bps / (fan_out * response * 8)
    stop = window(mode, load, t.speed)
    out: dict[str, Any] = {
        "workload.0.load": round(background / 100 * t.core_bps / t.host_bps, 6),
        "workload.0.stop": stop,
        "workload.1.qps": round(qps_total / t.hosts, 6),
        "workload.1.stop": stop,
    }
    if fan_out != FAN_OUT:
        out["workload.1.fan_out"] = fan_out
    if response != RESPONSE:
        out["workload.1.response_size"] = response
    return out


# ---------------------------------------------------------------- schemes and transports

_NO_FAST_RETRANSMIT = {"transport.tcp.fast_retransmit": False}
#: Vertigo and PD: per-packet power of two choices (no memory), the ordering layer, and
#: the marking layer's rank boost for resent segments (as the artifact runs them).
_ORDERED = {
    "routing.load_balancer": "drill",
    "routing.drill": {"samples": 2, "memory": 0},
    "transport.tcp.reorder_timeout": "360us",
    "transport.rank_retransmit_boost": True,
}


def _pd(**fields: Any) -> dict[str, Any]:
    return {"switch.deflection": {"kind": "preemptive", **fields}, **_ORDERED}


SCHEMES: dict[str, dict[str, Any]] = {
    "ECMP": {},
    "DIBS": {"switch.deflection": {"kind": "dibs"}, **_NO_FAST_RETRANSMIT},
    "Naive": {"switch.deflection": {"kind": "dibs_naive"}, **_NO_FAST_RETRANSMIT},
    # The paper's simulations read the queues live (§5; Fig 14 varies the refresh).
    "SD": {
        "switch.deflection": {"kind": "simple", "update_interval": "0us"},
        **_NO_FAST_RETRANSMIT,
    },
    "Vertigo": {"switch.deflection": {"kind": "vertigo"}, **_ORDERED},
    "AIFO": {"switch.deflection": {"kind": "aifo"}},
    "PD": _pd(priority="quantile"),
    "Distribution-PD": _pd(priority="distribution"),
}

#: Swift as the artifact tunes it (ini Swift_ECMP), with its 43-packet cap (64 KB window).
_SWIFT = {
    "base_target": "60us",
    "hop_scale": "30us",
    "fs_range": "300us",
    "max_cwnd": 43,
    "retx_reset_threshold": 100,
}
CCS: dict[str, dict[str, Any]] = {
    "TCP": {"transport.cc": "reno", "switch.ecn.enabled": False},
    "DCTCP": {},
    "Swift": {
        "transport.cc": "swift",
        "switch.ecn.enabled": False,
        "transport.tcp.initial_window": 1,
        "transport.swift": _SWIFT,
    },
    "Bolt": {
        "transport.cc": "bolt",
        "switch.ecn.enabled": False,
        "transport.tcp.initial_window": 1,
        "transport.bolt": {"cc_thresh": "10000B"},
    },
}

#: Beyond the paper: PFC-free RoCE with DCQCN and IRN (IRN's BDP window), ECN at
#: 40 / 160 KB (the HPCC simulator's 400 KB / 1.6 MB at 100 Gb/s, scaled to 10 Gb/s and
#: kept on every port so the 40 Gb/s ports mark below the 300 KB limit), pmax 0.2.
ROCE = {
    "transport.kind": "roce",
    "transport.cc": "dcqcn",
    "transport.loss_recovery": "irn",
    "transport.window": "bdp",
    "switch.ecn": {
        "enabled": True,
        "kmin": "40KB",
        "kmax": "160KB",
        "pmax": 0.2,
        "scale_with_rate": False,
    },
}


def _variant(label: str, group: str, *parts: dict[str, Any]) -> Variant:
    overrides: dict[str, Any] = {}
    for p in parts:
        overrides.update(p)
    return Variant(label, overrides, group)


def _group(*tokens: Any) -> str:
    return ", ".join(str(t) for t in tokens)


# ---------------------------------------------------------------- metrics

_CACHE: dict[tuple[str, int], dict[str, Any]] = {}


def _ms(x: pd.Series, q: float | None = None) -> float:
    x = x.dropna().astype("float64")
    if x.empty:
        return math.nan
    return float((x.mean() if q is None else np.percentile(x, q)) / 1e6)


def run_metrics(result: Result) -> dict[str, Any]:
    """QCT (finished queries, as the artifact), FCT of responses, background flows and all
    flows, drops by cause, deflections, reordering (first transmissions arriving below the
    highest byte received, over the flows' packets), elephant (>= 10 MB) goodput, and two
    signs of a network that does not settle: the share of flows with three or more
    timeouts (`timeouts3_pct`) and the QCT drift over the arrival window (`qct_drift`)."""
    f = result.flows
    s = result.summary
    q = result.qct()
    done = q["finished"].astype(bool) if len(q) else pd.Series(dtype=bool)
    qct = q.loc[done, "qct_ns"] if len(q) else pd.Series(dtype="float64")
    inc = f[f["tag"] == "incast"]
    bg = f[f["tag"] == "bg"]
    ele = bg[bg["size_bytes"] >= ELEPHANT]
    ele_done = ele.dropna(subset=["fct_ns"])
    packets = float(np.ceil(f["size_bytes"].astype("float64") / MSS).sum())
    sent = float(s.get("data_packets_sent", 0)) or math.nan
    return {
        "queries": len(q),
        "queries_finished": int(done.sum()),
        "qct_mean_ms": _ms(qct),
        "qct_p50_ms": _ms(qct, 50),
        "qct_p99_ms": _ms(qct, 99),
        "incast_fct_mean_ms": _ms(inc["fct_ns"]),
        "incast_fct_p99_ms": _ms(inc["fct_ns"], 99),
        "bg_fct_mean_ms": _ms(bg["fct_ns"]),
        "bg_fct_p99_ms": _ms(bg["fct_ns"], 99),
        "fct_p99_ms": _ms(f["fct_ns"], 99),
        "flows": len(f),
        "unfinished": int(f["finish_ns"].isna().sum()),
        "drops": int(s.get("drops", 0)),
        "drop_pct": 100 * s.get("drops", 0) / sent,
        "drops_admission": int(s.get("drops_egress_admission", 0)),
        "drops_rank": int(s.get("drops_rank_admission", 0)),
        "drops_hop_limit": int(s.get("drops_hop_limit", 0)),
        "deflections": int(s.get("deflections", 0)),
        "timeouts": int(s.get("timeouts", 0)),
        "reorder_pct": 100 * float(f["reordered_packets"].sum()) / packets if packets else math.nan,
        "elephants": len(ele),
        "elephants_finished": len(ele_done),
        "elephant_goodput_gbps": float((ele_done["size_bytes"] * 8 / ele_done["fct_ns"]).mean())
        if len(ele_done)
        else math.nan,
        "sim_ms": s.get("sim_time_ns", 0) / 1e6,
        "timeouts3_pct": 100 * float((f["timeouts"] >= 3).mean()) if len(f) else math.nan,
        "qct_drift": qct_drift(q),
    }


def qct_drift(q: pd.DataFrame) -> float:
    """Mean QCT of the queries issued in the middle third of the arrival window over that of
    the first third (finished queries only): above 1 when QCTs grow through the window.
    A weak sign: under a drain, queries stuck early wait through the longest back-offs, so
    it can sit below 1 while the mean QCT still grows with the window (`fig6_window`
    compares windows). Thirds rather than halves so that runs cut at a time limit (the
    artifact's 1.2 s, no drain) leave the middle third time to finish."""
    if len(q) < 6:
        return math.nan
    start = q["start_ns"].astype("float64")
    lo, hi = float(start.min()), float(start.max())
    third = (hi - lo) / 3
    if third <= 0:
        return math.nan
    done = q["finished"].astype(bool)
    qct = q["qct_ns"].astype("float64")
    first = qct[done & (start < lo + third)]
    middle = qct[done & (start >= lo + third) & (start < lo + 2 * third)]
    if first.empty or middle.empty:
        return math.nan
    return float(middle.mean() / first.mean())


def _metrics(run: Run) -> dict[str, Any]:
    """`run_metrics` of a run, read once per process (Fig 8 analyses Fig 6's runs)."""
    assert run.run_dir is not None
    key = (str(run.run_dir), (run.run_dir / "summary.json").stat().st_mtime_ns)
    if key not in _CACHE:
        _CACHE[key] = run_metrics(Result.read(run.run_dir))
    return _CACHE[key]


def parse_group(group: str) -> dict[str, Any]:
    """A variant group's fields: ``"DCTCP, 95%"`` -> cc DCTCP, load 95; ``"alpha=0.5"`` ->
    alpha 0.5."""
    out: dict[str, Any] = {}
    for token in group.split(", "):
        if m := re.fullmatch(r"(\d+(?:\.\d+)?)%", token):
            out["load"] = float(m.group(1))
        elif "=" in token:
            k, v = token.split("=", 1)
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
        elif token:
            out["cc"] = token
    return out


def _table(runs: list[Run]) -> pd.DataFrame:
    return table(runs, _metrics, parse_group)


def _drops(m: pd.DataFrame, schemes: Iterable[str], **where: Any) -> str:
    """What each scheme lost: "packets dropped: ECMP 13.8 %, PD 6.7 % (12 at the hop
    limit)"."""
    parts = []
    for s in schemes:
        d = get(m, s, "drop_pct", **where)
        h = get(m, s, "drops_hop_limit", **where)
        hop = f" ({h:.0f} at the hop limit)" if h > 0 else ""
        share = fmt(d, "{:.2f}" if 0 < d < 0.1 else "{:.1f}")
        parts.append(f"{s} {share} %{hop}")
    return "packets dropped: " + ", ".join(parts)


def _facts(*schemes: str, more: Sequence[tuple[str, str]] = (), **where: Any) -> Note:
    """A note's measured losses of `schemes` at `where`: the share of packets dropped,
    then timeouts (and `more` counters)."""
    cols = (("timeouts", "timeouts"), *more)
    return lambda m: _drops(m, schemes, **where) + "; " + counters(m, schemes, cols, **where)


def _loads(m: pd.DataFrame) -> list[float]:
    return sorted(m["load"].dropna().unique()) if "load" in m else []


def _qct(a: str, b: str, col: str = "qct_mean_ms", **where: Any) -> Callable[[pd.DataFrame], float]:
    """`col` of scheme `a` over scheme `b` at `where`."""
    return lambda m: div(get(m, a, col, **where), get(m, b, col, **where))


def _times_lower(
    statement: str,
    section: str,
    paper_x: float,
    better: str,
    base: str,
    col: str,
    why: Why,
    **where: Any,
) -> Claim:
    """ "`better` is `paper_x` times lower than `base` in `col`" (measured base / better)."""
    what = f"{col}, {base} / {better}"
    sel = quotient(at(base, col, **where), at(better, col, **where), what)
    return Claim(statement, section, f"{paper_x:g}× lower", paper_x, sel, MORE, why=why)


def _pct_claim(
    statement: str,
    section: str,
    paper_pct: float,
    better: str,
    base: str,
    col: str,
    why: Why,
    **where: Any,
) -> Claim:
    """ "`better` is `paper_pct` % lower than `base` in `col`"."""
    sel = change(
        at(better, col, **where),
        at(base, col, **where),
        lambda a, b: f"{col}: {better} {fmt(a)}, {base} {fmt(b)}",
    )
    return Claim(
        statement, section, f"{paper_pct:g} % lower", lower_by(paper_pct), sel, LESS, why=why
    )


def _each(
    label: Callable[[Any], str], keys: Callable[[pd.DataFrame], Iterable[Any]], value
) -> Callable[[pd.DataFrame], list[tuple[str, float]]]:
    """Labelled values for `several`: ``value(m, key)`` for each key."""
    return lambda m: [(label(k), value(m, k)) for k in keys(m)]


def _pd_by_cc(*ccs: str, load: float) -> Note:
    return lambda m: "; ".join(
        f"PD + {cc}: " + _facts("PD", cc=cc, load=load)(m).replace("PD ", "") for cc in ccs
    )


# ---------------------------------------------------------------- figures

#: One colour per scheme in every figure.
_COLOR = palette(
    [
        "ECMP",
        "DIBS",
        "Naive",
        "SD",
        "Vertigo",
        "AIFO",
        "PD",
        "Distribution-PD",
        "PD-SRPT",
        "PD-LAS",
        "deterministic",
        "probabilistic",
    ]
)


def _by_x(metrics: pd.DataFrame, path: Path, x: str, cols, title: str, facet=None, **kw) -> None:
    by_x(metrics, path, x, cols, title, facet, colors=_COLOR, **kw)


_QCT_COLS = [("qct_mean_ms", "mean QCT (ms)"), ("qct_p99_ms", "p99 QCT (ms)")]


def _draw_loads(title: str, facet: str | None = "cc", cols=None):
    def draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
        _by_x(metrics, path, "load", cols or _QCT_COLS, title, facet, xlabel="load (%)")

    return draw


# ---------------------------------------------------------------- §2: DIBS vs naive


def _sec2_variants(mode: str) -> list[Variant]:
    # 25 % background plus 4,000 queries per second (10 % of the leaf-spine capacity).
    t = traffic("leafspine", mode, 35, background=25, qps_total=4000)
    t["workload.0.stop"] = t["workload.1.stop"] = {"quick": "20ms", "full": "100ms"}[mode]
    g = _group("DCTCP", "35%")
    return [_variant(s, g, t, SCHEMES[s]) for s in ("ECMP", "DIBS", "Naive")]


_SEC2_WHY = Why(_facts("ECMP", "DIBS", "Naive"))

_SEC2_CLAIMS = [
    _times_lower(
        "Filtering out full ports: DIBS's mean QCT is 3× lower than naive deflection's "
        "(25 % background + 4,000 QPS)",
        "§2",
        3.0,
        "DIBS",
        "Naive",
        "qct_mean_ms",
        _SEC2_WHY,
    ),
    _times_lower("…and its p99 QCT 2× lower", "§2", 2.0, "DIBS", "Naive", "qct_p99_ms", _SEC2_WHY),
]


# ---------------------------------------------------------------- Fig 6: the core grid

_FIG6_SCHEMES = ("ECMP", "DIBS", "Vertigo", "AIFO", "SD", "PD", "Distribution-PD")


def _fig6_variants(mode: str) -> list[Variant]:
    loads = {"quick": (55, 95), "full": LOADS}[mode]
    return [
        _variant(s, _group(cc, f"{load}%"), traffic("leafspine", mode, load), CCS[cc], SCHEMES[s])
        for cc in CCS
        for load in loads
        for s in _FIG6_SCHEMES
    ]


_WHY_WINDOW = (
    "the runs are not stationary at high load: responses whose resends are lost again wait "
    "10, 20, 40 ms timeouts and such queries pile up until arrivals stop, so the longer "
    "arrival windows of the paper (the artifact's ~340 ms; here 10-60 ms) leave more of them"
)
_WHY_NO_BOOST = (
    "hopsim halves a resent segment's rank once per resend counted per flow (one plus the "
    "flow's timeouts), where the artifact counts resends per segment, so a resent segment of "
    "a large response can still rank below the background and be dropped again"
)
_WHY_PD_DROPS = (
    "PD drops preemptively where both sampled deflection ports are over their threshold "
    "(its rank drops above), where DIBS and SD deflect to any port with room; " + _WHY_NO_BOOST
)
_HI, _LO = 95.0, 55.0
_PREEMPTIVE = (("drops_rank", "preemptive drops"),)
_DEFLECTS = (("deflections", "deflections"),)


def _both_vs_ecmp(cc: str) -> Selector:
    """SD's and DIBS's mean QCT over ECMP's at 55 %."""

    def measure(m: pd.DataFrame) -> Measure:
        xs = [(s, _qct(s, "ECMP", cc=cc, load=_LO)(m)) for s in ("SD", "DIBS")]
        ecmp = get(m, "ECMP", "qct_mean_ms", cc=cc, load=_LO)
        shown = ", ".join(f"{s} {lower_text(x)}" for s, x in xs)
        return Measure(tuple(x for _, x in xs), f"{shown} (mean QCT; ECMP {fmt(ecmp)} ms)")

    return measure


def _drops_fewer(cc: str) -> Selector:
    def measure(m: pd.DataFrame) -> Measure:
        d_dctcp = get(m, "PD", "drops", cc="DCTCP", load=_HI)
        d_cc = get(m, "PD", "drops", cc=cc, load=_HI)
        x = div(d_dctcp, d_cc) if d_cc > 0 else (math.inf if d_dctcp > 0 else math.nan)
        text = f"{fmt(x, '{:.1f}')}× (drops, PD+DCTCP {d_dctcp:,.0f} / PD+{cc} {d_cc:,.0f})"
        return Measure.of(x, text)

    return measure


def _ccs_at(a: str, b: str, ccs: tuple[str, ...], load: float, col: str = "qct_mean_ms"):
    return lambda m: [(cc, _qct(a, b, col, cc=cc, load=load)(m)) for cc in ccs]


def _every_cc_load(a: str, b: str):
    return lambda m: [
        (f"{cc} {ld:.0f} %", _qct(a, b, cc=cc, load=ld)(m)) for cc in CCS for ld in _loads(m)
    ]


_FIG6_CLAIMS = [
    Claim(
        "Simple Deflection performs like DIBS (mean QCT, every CC and load)",
        "§5.3",
        "similar",
        None,
        several(_every_cc_load("SD", "DIBS"), "mean QCT, SD / DIBS"),
        SAME,
        ROUGHLY,
        why=Why(
            _facts("SD", "DIBS", cc="DCTCP", load=_HI),
            {
                ABOVE: "SD slower: SD takes the first port with room after a random one, DIBS "
                "a random port with room, and these are one-seed runs of 50-200 queries",
                BELOW: "SD faster: SD takes the first port with room after a random one, DIBS "
                "a random port with room, and these are one-seed runs of 50-200 queries",
            },
        ),
    ),
    *[
        Claim(
            f"At 55 % load SD and DIBS each have {pct:g} % lower mean QCT than ECMP with {cc}",
            "§5.3",
            f"{pct:g} % lower",
            lower_by(pct),
            _both_vs_ecmp(cc),
            LESS,
            why=Why(
                _facts("ECMP", "SD", "DIBS", cc=cc, load=_LO),
                {
                    LARGER: "ECMP loses whole initial windows of the 100 synchronised responses "
                    "at the client's port and recovers by 10 ms timeouts (its timeouts above)"
                },
            ),
        )
        for cc, pct in (("TCP", 51.0), ("DCTCP", 71.0))
    ],
    Claim(
        "Simple Deflection breaks under load: with DCTCP at 95 % its mean QCT is 2× ECMP's",
        "§5.3",
        "2×",
        2.0,
        quotient(
            at("SD", "qct_mean_ms", cc="DCTCP", load=_HI),
            at("ECMP", "qct_mean_ms", cc="DCTCP", load=_HI),
            "mean QCT, SD / ECMP",
        ),
        MORE,
        why=Why(
            _facts("ECMP", "SD", cc="DCTCP", load=_HI),
            {
                OPPOSITE: "SD's deflected packets find room at the spines and come back, while "
                "ECMP pays 10 ms timeouts for its drop-tail losses; " + _WHY_WINDOW,
                SMALLER: _WHY_WINDOW,
            },
        ),
    ),
    *[
        _pct_claim(
            f"PD + DCTCP has {pct:g} % lower {what} QCT than {base} at 95 %",
            "§5.3",
            pct,
            "PD",
            base,
            col,
            Why(
                _facts(base, "PD", more=_PREEMPTIVE, cc="DCTCP", load=_HI),
                {OPPOSITE: _WHY_PD_DROPS, SMALLER: _WHY_PD_DROPS},
            ),
            cc="DCTCP",
            load=_HI,
        )
        for col, what, base, pct in (
            ("qct_mean_ms", "mean", "ECMP", 31.0),
            ("qct_mean_ms", "mean", "SD", 69.0),
            ("qct_p99_ms", "p99", "ECMP", 24.0),
            ("qct_p99_ms", "p99", "SD", 69.0),
        )
    ],
    _pct_claim(
        "Vertigo + DCTCP has 70 % lower mean QCT than ECMP at 95 %",
        "§5.3",
        70.0,
        "Vertigo",
        "ECMP",
        "qct_mean_ms",
        Why(_facts("ECMP", "Vertigo", cc="DCTCP", load=_HI), {SMALLER: _WHY_NO_BOOST}),
        cc="DCTCP",
        load=_HI,
    ),
    Claim(
        "PD + DCTCP has 2.35× higher mean QCT than Vertigo + DCTCP at 95 %",
        "§5.3",
        "2.35×",
        2.35,
        quotient(
            at("PD", "qct_mean_ms", cc="DCTCP", load=_HI),
            at("Vertigo", "qct_mean_ms", cc="DCTCP", load=_HI),
            "mean QCT, PD / Vertigo",
        ),
        MORE,
        why=Why(
            _facts("PD", "Vertigo", more=_PREEMPTIVE, cc="DCTCP", load=_HI),
            {
                SMALLER: "PD's and Vertigo's losses are recovered by the same timeouts; "
                + _WHY_NO_BOOST
            },
        ),
    ),
    *[
        _times_lower(
            f"PD + {cc} has 2.5× lower p99 QCT than ECMP + {cc} at 95 %",
            "abstract, §1" if cc == "Bolt" else "abstract, §5",
            2.5,
            "PD",
            "ECMP",
            "qct_p99_ms",
            Why(_facts("ECMP", "PD", cc=cc, load=_HI), {LARGER: _WHY_WINDOW}),
            cc=cc,
            load=_HI,
        )
        for cc in ("Swift", "Bolt")
    ],
    _times_lower(
        "PD + Bolt has 2× lower p99 QCT than DIBS + Bolt at 95 %",
        "§1",
        2.0,
        "PD",
        "DIBS",
        "qct_p99_ms",
        Why(_facts("DIBS", "PD", cc="Bolt", load=_HI)),
        cc="Bolt",
        load=_HI,
    ),
    Claim(
        "With Swift and Bolt, PD's mean QCT is as low as Vertigo's at 95 %",
        "§5.3",
        "as low",
        None,
        several(_ccs_at("PD", "Vertigo", ("Swift", "Bolt"), _HI), "mean QCT, PD / Vertigo"),
        AT_MOST,
        Tolerance(1.25, "'as low as' gives no number; read as at most 25 % higher"),
        why=Why(
            lambda m: "; ".join(
                f"{cc}: " + _facts("PD", "Vertigo", more=_DEFLECTS, cc=cc, load=_HI)(m)
                for cc in ("Swift", "Bolt")
            ),
            {
                ABOVE: "PD deflects by threshold where Vertigo's SRPT queue absorbs most bursts "
                "(see the deflection counts); " + _WHY_NO_BOOST
            },
        ),
    ),
    *[
        c
        for cc, x_paper, drops_paper in (("Swift", 3.5, 52.0), ("Bolt", 6.0, 153.0))
        for c in (
            Claim(
                f"PD + {cc} has {x_paper:g}× lower mean QCT than PD + DCTCP at 95 %",
                "§5.3",
                f"{x_paper:g}× lower",
                x_paper,
                quotient(
                    at("PD", "qct_mean_ms", cc="DCTCP", load=_HI),
                    at("PD", "qct_mean_ms", cc=cc, load=_HI),
                    f"mean QCT, PD+DCTCP / PD+{cc}",
                ),
                MORE,
                why=Why(
                    _pd_by_cc("DCTCP", cc, load=_HI),
                    {SMALLER: _WHY_WINDOW},
                ),
            ),
            Claim(
                f"…because PD + {cc} drops {drops_paper:g}× fewer packets than PD + DCTCP",
                "§5.3",
                f"{drops_paper:g}× fewer",
                drops_paper,
                _drops_fewer(cc),
                MORE,
                why=Why(_pd_by_cc("DCTCP", cc, load=_HI)),
            ),
        )
    ],
    *[
        _times_lower(
            f"With Swift at 95 % PD finishes queries {x_paper:g}× faster than {base}",
            "§1",
            x_paper,
            "PD",
            base,
            "qct_mean_ms",
            Why(_facts(base, "PD", cc="Swift", load=_HI), hypotheses),
            cc="Swift",
            load=_HI,
        )
        for base, x_paper, hypotheses in (
            ("ECMP", 2.0, {}),
            (
                "AIFO",
                9.0,
                {
                    LARGER: "AIFO refuses the responses' first packets (largest "
                    "remaining size) and they recover by stacked 10 ms timeouts (its "
                    "timeouts above)"
                },
            ),
            (
                "DIBS",
                3.0,
                {
                    OPPOSITE: "with Swift's delay target DIBS deflects without "
                    "collapsing in these runs (its drops and timeouts above)",
                    SMALLER: "with Swift's delay target DIBS deflects without "
                    "collapsing in these runs (its drops and timeouts above)",
                },
            ),
        )
    ],
    *[
        _pct_claim(
            f"PD + {cc} has {pct:g} % lower p99 FCT than ECMP + {cc} at 95 %",
            "§5.3",
            pct,
            "PD",
            "ECMP",
            "fct_p99_ms",
            Why(_facts("ECMP", "PD", cc=cc, load=_HI)),
            cc=cc,
            load=_HI,
        )
        for cc, pct in (("Swift", 52.0), ("Bolt", 35.0))
    ],
    Claim(
        "With Swift and Bolt, Distribution-PD is as effective as Quantile-PD at 95 %",
        "§5.3",
        "as effective",
        None,
        several(
            _ccs_at("Distribution-PD", "PD", ("Swift", "Bolt"), _HI),
            "mean QCT, Distribution-PD / PD",
        ),
        SAME,
        ROUGHLY,
        why=Why(
            lambda m: "; ".join(
                _facts("PD", "Distribution-PD", cc=cc, load=_HI)(m) for cc in ("Swift", "Bolt")
            )
        ),
    ),
    Claim(
        "With TCP and DCTCP, Distribution-PD has higher QCT than Quantile-PD under load (95 %)",
        "§5.3",
        "none",
        None,
        several(
            _ccs_at("Distribution-PD", "PD", ("TCP", "DCTCP"), _HI),
            "mean QCT, Distribution-PD / PD",
        ),
        MORE,
        why=Why(
            lambda m: "; ".join(
                _facts("PD", "Distribution-PD", more=_PREEMPTIVE, cc=cc, load=_HI)(m)
                for cc in ("TCP", "DCTCP")
            ),
            {
                OPPOSITE: "both estimates deflect and drop a similar share (the counts above), so "
                "their QCTs are set by the same timeouts"
            },
        ),
    ),
    _pct_claim(
        "With Swift at 55 % SD has 36 % lower p99 QCT than ECMP",
        "§5",
        36.0,
        "SD",
        "ECMP",
        "qct_p99_ms",
        Why(
            _facts("ECMP", "SD", cc="Swift", load=_LO),
            {LARGER: "ECMP's p99 is one or more 10 ms timeouts (its timeouts above)"},
        ),
        cc="Swift",
        load=_LO,
    ),
    *[
        _times_lower(
            f"With Swift at {ld:.0f} % {scheme} has {x_paper:g}× lower p99 QCT than AIFO",
            "§5",
            x_paper,
            scheme,
            "AIFO",
            "qct_p99_ms",
            Why(
                _facts("AIFO", scheme, cc="Swift", load=ld),
                {
                    LARGER: "hopsim's AIFO refuses by rank quantile and a response's first packets "
                    "carry its largest remaining size, so whole windows are refused and recovered "
                    "by stacked timeouts (AIFO's timeouts above)"
                },
            ),
            cc="Swift",
            load=ld,
        )
        for scheme, x_paper, ld in (("SD", 16.0, _LO), ("PD", 15.0, _HI))
    ],
]


# ---------------------------------------------------------------- Fig 7: elephant goodput


def _fig7_variants(mode: str) -> list[Variant]:
    loads = {"quick": (95,), "full": (55, 75, 95)}[mode]
    schemes = {
        "quick": ("DIBS", "SD", "Vertigo", "PD"),
        "full": ("ECMP", "DIBS", "SD", "Vertigo", "PD"),
    }
    # Web search background: hopsim's cache-follower CDF ends at 3 MB, so it has no flow of
    # 10 MB (the paper's elephants); web search is the paper's other trace (§5.2).
    ws = {"workload.0.size_dist": "websearch"}
    return [
        _variant(
            s, _group(cc, f"{load}%"), traffic("leafspine", mode, load), ws, CCS[cc], SCHEMES[s]
        )
        for cc in ("DCTCP", "Swift")
        for load in loads
        for s in schemes[mode]
    ]


def _fig7_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    _by_x(
        metrics,
        path,
        "load",
        [("elephant_goodput_gbps", "elephant goodput (Gb/s)"), ("qct_mean_ms", "mean QCT (ms)")],
        "Fig 7: goodput of >= 10 MB flows (web search background)",
        log=False,
        xlabel="load (%)",
    )


def _top_load(m: pd.DataFrame) -> float:
    return max(_loads(m)) if _loads(m) else 95.0


def _goodput_gain(m: pd.DataFrame) -> Measure:
    hi = _top_load(m)
    a = get(m, "PD", "elephant_goodput_gbps", cc="DCTCP", load=hi)
    b = get(m, "Vertigo", "elephant_goodput_gbps", cc="DCTCP", load=hi)
    r = div(a, b)
    shown = (
        "not measured"
        if not math.isfinite(r)
        else (f"{100 * (r - 1):.0f} % higher" if r >= 1 else f"{100 * (1 - r):.0f} % lower")
    )
    return Measure.of(r, f"{shown} (elephant goodput: PD {fmt(a)}, Vertigo {fmt(b)} Gb/s)")


def _goodput_facts(m: pd.DataFrame) -> str:
    cols = (("elephants_finished", "elephants finished"), ("deflections", "deflections"))
    return "; ".join(
        f"{cc} {ld:.0f} %: " + counters(m, ("PD", "Vertigo"), cols, cc=cc, load=ld)
        for cc in ("DCTCP", "Swift")
        for ld in _loads(m)
    )


_WHY_ELEPHANTS = (
    "the elephants' rate is set by their 10 Gb/s host link and the background sharing it; "
    "hopsim's Vertigo takes packets out only at full ports, which elephants rarely meet, so "
    "it does not throttle them as the paper describes"
)


def _goodputs(a: str, b: str):
    return lambda m: [
        (f"{cc} {ld:.0f} %", _qct(a, b, "elephant_goodput_gbps", cc=cc, load=ld)(m))
        for cc in ("DCTCP", "Swift")
        for ld in _loads(m)
    ]


_FIG7_CLAIMS = [
    Claim(
        "PD improves the goodput of >= 10 MB flows by 20 % over Vertigo (DCTCP, 95 %)",
        "§5.3",
        "20 % higher",
        higher_by(20),
        _goodput_gain,
        MORE,
        why=Why(_goodput_facts, falls_short(_WHY_ELEPHANTS)),
    ),
    Claim(
        "PD's elephant goodput is above Vertigo's with DCTCP and Swift at every load",
        "§5.3, Fig 7",
        "none",
        None,
        several(_goodputs("PD", "Vertigo"), "elephant goodput, PD / Vertigo"),
        MORE,
        why=Why(_goodput_facts, {OPPOSITE: _WHY_ELEPHANTS}),
    ),
    Claim(
        "SD's elephant goodput closely parallels DIBS's",
        "§5.3",
        "closely parallels",
        None,
        several(_goodputs("SD", "DIBS"), "elephant goodput, SD / DIBS"),
        SAME,
        ROUGHLY,
        why=Why(
            lambda m: "; ".join(
                f"{cc} {ld:.0f} %: "
                + counters(
                    m,
                    ("SD", "DIBS"),
                    (("elephants_finished", "elephants finished"),),
                    cc=cc,
                    load=ld,
                )
                for cc in ("DCTCP", "Swift")
                for ld in _loads(m)
            )
        ),
    ),
]


# ---------------------------------------------------------------- Fig 8: reordering


def _fig8_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    m = metrics[metrics["scheme"].isin(["ECMP", "DIBS", "SD", "Vertigo", "PD", "Distribution-PD"])]
    _by_x(
        m,
        path,
        "load",
        [("reorder_pct", "reordered packets (%)")],
        "Fig 8: reordering (first transmissions arriving out of order / packets)",
        log=False,
        xlabel="load (%)",
    )


def _least_deflecting_vertigo(m: pd.DataFrame) -> str:
    vert = (
        m[(m["scheme"] == "Vertigo") & m["deflections"].notna()]
        if "deflections" in m
        else m.iloc[:0]
    )
    if not len(vert):
        return ""
    q = vert.loc[vert["deflections"].idxmin()]
    return (
        f"Vertigo with {q['cc']} at {q['load']:.0f} % reorders {q['reorder_pct']:.1f} % "
        f"with {q['deflections']:,.0f} deflections"
    )


def _reorder_facts(m: pd.DataFrame) -> str:
    cols = (("reorder_pct", "reordered %"), ("deflections", "deflections"))
    head = counters(m, ("ECMP", "Vertigo", "PD"), cols, cc="DCTCP", load=_HI)
    return f"DCTCP 95 %: {head}; " + _least_deflecting_vertigo(m)


def _over_ecmp(scheme: str) -> Selector:
    def measure(m: pd.DataFrame) -> Measure:
        v = get(m, scheme, "reorder_pct", cc="DCTCP", load=_HI)
        ecmp = get(m, "ECMP", "reorder_pct", cc="DCTCP", load=_HI)
        x = div(v, ecmp) if ecmp > 0 else (math.inf if v > 0 else math.nan)
        return Measure.of(x, f"{scheme} {fmt(v)} %, ECMP {fmt(ecmp)} % of packets reordered")

    return measure


_WHY_LB = (
    "much of both schemes' reordering comes from per-packet power-of-two load balancing, not "
    "from deflection or SRPT queues (a Vertigo run that barely deflects still reorders, "
    "above)"
)

_FIG8_CLAIMS = [
    Claim(
        "PD reorders less than Vertigo (DCTCP, 95 %: 2.4× vs 3.3× ECMP's)",
        "§5.3",
        "0.73× (2.4 / 3.3)",
        3.3 / 2.4,
        quotient(
            at("PD", "reorder_pct", cc="DCTCP", load=_HI),
            at("Vertigo", "reorder_pct", cc="DCTCP", load=_HI),
            "reordered %, PD / Vertigo",
        ),
        LESS,
        why=Why(_reorder_facts, falls_short(_WHY_LB)),
    ),
    Claim(
        "…with every CC and load",
        "§5.3, Fig 8",
        "none",
        None,
        several(
            lambda m: [
                (f"{cc} {ld:.0f} %", _qct("PD", "Vertigo", "reorder_pct", cc=cc, load=ld)(m))
                for cc in CCS
                for ld in _loads(m)
            ],
            "reordered %, PD / Vertigo",
        ),
        LESS,
        why=Why(_reorder_facts, {OPPOSITE: _WHY_LB}),
    ),
    *[
        Claim(
            f"Deflection increases reordering: {s} {x:g}× ECMP's (DCTCP, 95 %)",
            "§5.3",
            f"{x:g}×",
            x,
            _over_ecmp(s),
            MORE,
            why=Why(
                _reorder_facts,
                {
                    LARGER: "per-flow ECMP reorders nothing in hopsim (resends are not counted as "
                    "reordering; the paper's ECMP shows some), so the ratio has no magnitude"
                },
            ),
        )
        for s, x in (("Vertigo", 3.3), ("PD", 2.4))
    ],
]


# ---------------------------------------------------------------- Fig 9: incast scale, size

#: Requests per query. hopsim's query draws distinct servers (at most 319 of the 320 hosts),
#: so the paper's 350 and 450 points, which need repeated servers, are not run: the largest
#: scale is 300 (80 % load) and the paper's "at 450" claims are checked there.
_FIG9_SCALES = {"quick": (50, 150, 300), "full": (50, 150, 250, 300)}
_FIG9_SIZES = {"quick": (100, 180), "full": (1, 40, 100, 140, 180)}
_FIG9_SCHEMES = ("ECMP", "DIBS", "SD", "Vertigo", "PD", "Distribution-PD")
_FIG9_SIZE_SCHEMES = {
    "quick": ("ECMP", "DIBS", "PD"),
    "full": ("ECMP", "DIBS", "SD", "Vertigo", "PD"),
}
#: The largest scale and response size, in both modes.
_TOP, _BIG = 300, 180


def _fig9_variants(mode: str) -> list[Variant]:
    out = []
    for scale in _FIG9_SCALES[mode]:
        load = BACKGROUND + 10 * scale / 100  # 4,000 QPS x scale x 40 KB
        t = traffic("leafspine", mode, load, fan_out=scale, qps_total=4000)
        out += [_variant(s, f"scale={scale}", t, SCHEMES[s]) for s in _FIG9_SCHEMES]
    for kb in _FIG9_SIZES[mode]:
        load = BACKGROUND + 10 * kb / 40
        t = traffic("leafspine", mode, load, response=kb * 1000, qps_total=4000)
        out += [_variant(s, f"size_kb={kb}", t, SCHEMES[s]) for s in _FIG9_SIZE_SCHEMES[mode]]
    return out


def _fig9_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 5.2), layout="constrained")
    axes = fig.subplots(2, 2, squeeze=False)
    for j, (x, label) in enumerate((("scale", "requests per query"), ("size_kb", "response (KB)"))):
        d = metrics[metrics[x].notna()] if x in metrics else metrics.iloc[:0]
        for i, (col, ylabel) in enumerate(_QCT_COLS):
            ax = axes[i][j]
            for s, ds in d.groupby("scheme", sort=False):
                ds = ds.sort_values(x)
                ax.plot(ds[x], ds[col], marker="o", ms=3, label=s, color=_COLOR(s))
            ax.set_yscale("log")
            ax.set_xlabel(label, fontsize=8)
            ax.set_ylabel(ylabel, fontsize=8)
    axes[0][0].legend(fontsize=6)
    axes[0][1].legend(fontsize=6)
    fig.suptitle(
        "Fig 9: incast scale (4,000 QPS, 40 KB) and response size (100 per query)", fontsize=9
    )
    fig.savefig(path, dpi=110, metadata={"Software": None})


def _sd_at_scales(keep: Callable[[float], bool]):
    return lambda m: [
        (f"scale {s:.0f}", _qct("SD", "ECMP", scale=s)(m))
        for s in (sorted(m["scale"].dropna().unique()) if "scale" in m else [])
        if keep(s)
    ]


def _scale_facts(m: pd.DataFrame) -> str:
    scales = sorted(m["scale"].dropna().unique()) if "scale" in m else []
    return "; ".join(f"scale {s:.0f}: " + _facts("ECMP", "SD", scale=s)(m) for s in scales)


_FIG9_CLAIMS = [
    _times_lower(
        f"At the largest scale (paper 450, here {_TOP} requests per query) PD has 2× lower "
        "p99 FCT (responses) than ECMP",
        "§5.3",
        2.0,
        "PD",
        "ECMP",
        "incast_fct_p99_ms",
        Why(_facts("ECMP", "PD", more=_PREEMPTIVE, scale=_TOP)),
        scale=_TOP,
    ),
    _times_lower(
        "…and 4× lower than DIBS",
        "§5.3",
        4.0,
        "PD",
        "DIBS",
        "incast_fct_p99_ms",
        Why(
            _facts("DIBS", "PD", more=_PREEMPTIVE, scale=_TOP),
            falls_short(
                "DIBS does not collapse at this scale in hopsim: its bounced packets find "
                "room (its drops and timeouts above); " + _WHY_NO_BOOST
            ),
        ),
        scale=_TOP,
    ),
    Claim(
        "Up to 150 requests per query Simple Deflection's mean QCT is below ECMP's",
        "§5.3",
        "none",
        None,
        several(_sd_at_scales(lambda s: s <= 150), "mean QCT, SD / ECMP, by requests per query"),
        LESS,
        why=Why(_scale_facts),
    ),
    Claim(
        "Above 150 requests per query Simple Deflection breaks: its mean QCT exceeds ECMP's",
        "§5.3",
        "none",
        None,
        several(_sd_at_scales(lambda s: s > 150), "mean QCT, SD / ECMP, by requests per query"),
        MORE,
        why=Why(
            _scale_facts,
            {
                OPPOSITE: "SD's deflected packets find room at the spines while ECMP's drop-tail "
                "losses at the client's port cost 10 ms timeouts (the counts above)"
            },
        ),
    ),
    _pct_claim(
        f"At the largest scale (here {_TOP}) Quantile-PD finishes queries 34 % faster than "
        "Distribution-PD",
        "§5.3",
        34.0,
        "PD",
        "Distribution-PD",
        "qct_mean_ms",
        Why(
            _facts("PD", "Distribution-PD", more=_PREEMPTIVE, scale=_TOP),
            falls_short(
                "both estimates deflect and drop a similar share (the counts above), so their "
                "QCTs are set by the same timeouts"
            ),
        ),
        scale=_TOP,
    ),
    *[
        _pct_claim(
            f"With 100 KB responses PD has {pct:g} % lower p99 QCT than {base}",
            "§5.3",
            pct,
            "PD",
            base,
            "qct_p99_ms",
            Why(_facts(base, "PD", more=_PREEMPTIVE, size_kb=100), falls_short(_WHY_NO_BOOST)),
            size_kb=100,
        )
        for base, pct in (("ECMP", 28.0), ("DIBS", 24.0))
    ],
    Claim(
        f"Above 100 KB responses (here {_BIG} KB) PD is slower than ECMP: background flows "
        "outrank the responses",
        "§5.3",
        "none",
        None,
        quotient(
            at("PD", "qct_mean_ms", size_kb=_BIG),
            at("ECMP", "qct_mean_ms", size_kb=_BIG),
            "mean QCT, PD / ECMP",
        ),
        MORE,
        why=Why(
            _facts("ECMP", "PD", more=_PREEMPTIVE, size_kb=_BIG),
            {
                OPPOSITE: "ECMP's drop-tail losses at the client's port grow with the response "
                "size and cost 10 ms timeouts (its timeouts above), so PD's de-prioritised "
                "responses still finish first"
            },
        ),
    ),
]


# ---------------------------------------------------------------- Fig 10: k=8 fat-tree

_FIG10_SCHEMES = ("ECMP", "AIFO", "DIBS", "Vertigo", "SD", "PD")


def _fig10_variants(mode: str) -> list[Variant]:
    loads = {"quick": (55, 95), "full": LOADS}[mode]
    return [
        _variant(s, _group("DCTCP", f"{load}%"), traffic("fattree", mode, load), SCHEMES[s])
        for load in loads
        for s in _FIG10_SCHEMES
    ]


_WHY_AIFO = (
    "hopsim's AIFO refuses the responses' first packets (their largest remaining size, top "
    "quantile) at the client's ToR, so responses recover by stacked 10 ms timeouts (AIFO's "
    "timeouts above)"
)

_FIG10_CLAIMS = [
    _pct_claim(
        "k=8 fat-tree: PD has 33 % lower mean QCT than SD at 95 %",
        "§5.3",
        33.0,
        "PD",
        "SD",
        "qct_mean_ms",
        Why(_facts("SD", "PD", more=_PREEMPTIVE, load=_HI), falls_short(_WHY_PD_DROPS)),
        load=_HI,
    ),
    _pct_claim(
        "…and 42 % lower p99 QCT",
        "§5.3",
        42.0,
        "PD",
        "SD",
        "qct_p99_ms",
        Why(_facts("SD", "PD", more=_PREEMPTIVE, load=_HI), falls_short(_WHY_PD_DROPS)),
        load=_HI,
    ),
    *[
        Claim(
            f"AIFO completes queries {x:g}× slower than {base} at 55 %",
            "§5.3",
            f"{x:g}×",
            x,
            quotient(
                at("AIFO", "qct_mean_ms", load=_LO),
                at(base, "qct_mean_ms", load=_LO),
                f"mean QCT, AIFO / {base}",
            ),
            MORE,
            why=Why(_facts(base, "AIFO", load=_LO), {LARGER: _WHY_AIFO}),
        )
        for base, x in (("ECMP", 3.0), ("SD", 10.0), ("PD", 10.0))
    ],
    *[
        _times_lower(
            f"Unlike on the leaf-spine, {s} has 2× lower p99 QCT than ECMP at 95 %",
            "§5.3",
            2.0,
            s,
            "ECMP",
            "qct_p99_ms",
            Why(_facts("ECMP", s, load=_HI), {LARGER: _WHY_WINDOW}),
            load=_HI,
        )
        for s in ("DIBS", "SD")
    ],
]


# ---------------------------------------------------------------- Fig 11: 100 Gb/s

_FIG11_SCHEMES = ("ECMP", "AIFO", "DIBS", "SD", "Vertigo", "PD")
_HI100 = 85.0


def _fig11_variants(mode: str) -> list[Variant]:
    return [
        _variant(s, _group(cc, f"{load}%"), traffic("100g", mode, load), CCS[cc], SCHEMES[s])
        for cc in ("DCTCP", "Swift")
        for load in (55, 85)
        for s in _FIG11_SCHEMES
    ]


_WHY_100G = (
    "at 100 Gb/s a query's responses take ~0.4 ms without loss, so one 10 ms timeout "
    "dominates a mean and which scheme loses a few packets decides the ratio"
)


_FIG11_CLAIMS = [
    *[
        _times_lower(
            f"100 Gb/s: with Swift at 85 % PD has {x:g}× lower mean QCT than {base}",
            "§5.3",
            x,
            "PD",
            base,
            "qct_mean_ms",
            Why(
                _facts(base, "PD", cc="Swift", load=_HI100),
                {SMALLER: _WHY_100G, OPPOSITE: _WHY_100G},
            ),
            cc="Swift",
            load=_HI100,
        )
        for base, x in (("ECMP", 6.0), ("AIFO", 18.0), ("SD", 7.0))
    ],
    Claim(
        "At 100 Gb/s and low burstiness (55 %) SD defuses bursts: lower mean QCT than ECMP "
        "(DCTCP and Swift)",
        "§5.3",
        "none",
        None,
        several(_ccs_at("SD", "ECMP", ("DCTCP", "Swift"), _LO), "mean QCT, SD / ECMP"),
        LESS,
        why=Why(
            lambda m: "; ".join(
                f"{cc}: " + _facts("ECMP", "SD", cc=cc, load=_LO)(m) for cc in ("DCTCP", "Swift")
            )
        ),
    ),
    Claim(
        "SD performs similarly to DIBS at 100 Gb/s (DCTCP and Swift, 55 % and 85 %)",
        "§5.3",
        "similar",
        None,
        several(
            lambda m: [
                (f"{cc} {ld:.0f} %", _qct("SD", "DIBS", cc=cc, load=ld)(m))
                for cc in ("DCTCP", "Swift")
                for ld in (_LO, _HI100)
            ],
            "mean QCT, SD / DIBS",
        ),
        SAME,
        ROUGHLY,
        why=Why(
            lambda m: "; ".join(
                f"{cc} {ld:.0f} %: " + _facts("SD", "DIBS", cc=cc, load=ld)(m)
                for cc in ("DCTCP", "Swift")
                for ld in (_LO, _HI100)
            ),
            {ABOVE: "SD slower: " + _WHY_100G, BELOW: "SD faster: " + _WHY_100G},
        ),
    ),
    *[
        Claim(
            f"PD + Swift has {pct:g} % lower {what} QCT than PD + DCTCP at 85 % (the paper's "
            "App. F mix of background and incast; here §5.3's 100 Gb/s mix)",
            "App. F",
            f"{pct:g} % lower",
            lower_by(pct),
            change(
                at("PD", col, cc="Swift", load=_HI100),
                at("PD", col, cc="DCTCP", load=_HI100),
                lambda a, b: f"Swift {fmt(a)} ms, DCTCP {fmt(b)} ms",
            ),
            LESS,
            why=Why(_pd_by_cc("Swift", "DCTCP", load=_HI100), falls_short(_WHY_100G)),
        )
        for col, what, pct in (("qct_mean_ms", "mean", 17.0), ("qct_p99_ms", "p99", 30.0))
    ],
]


# ---------------------------------------------------------------- Fig 12: PD's parameters

_FIG12 = {"alpha": (0, 0.1, 0.5, 1), "window": (5, 20, 50), "sample_every": (1, 20, 100)}
_FIG12_DEFAULT = {"alpha": 0.1, "window": 20, "sample_every": 20}


def _fig12_variants(mode: str) -> list[Variant]:
    loads = {"quick": (55, 95), "full": (55, 75, 95)}[mode]
    out = []
    for load in loads:
        t = traffic("leafspine", mode, load)
        for param, values in _FIG12.items():
            for v in values:
                fields = {**_FIG12_DEFAULT, param: v}
                out.append(_variant("PD", _group(f"{param}={v}", f"{load}%"), t, _pd(**fields)))
    return out


def _fig12_analyze(runs: list[Run]) -> pd.DataFrame:
    m = _table(runs)
    m["parameter"] = m["group"].str.split("=").str[0]
    m["value"] = [
        row[row["parameter"]] if row["parameter"] in row else math.nan for _, row in m.iterrows()
    ]
    return m


def _fig12_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 5.2), layout="constrained")
    axes = fig.subplots(2, 3, squeeze=False)
    for j, param in enumerate(_FIG12):
        d = metrics[metrics["parameter"] == param]
        for i, (col, label) in enumerate(_QCT_COLS):
            ax = axes[i][j]
            for ld, dd in d.groupby("load"):
                dd = dd.sort_values("value")
                ax.plot(dd["value"], dd[col], marker="o", ms=3, label=f"{ld:.0f} %")
            ax.set_xlabel(param, fontsize=8)
            ax.set_ylabel(label, fontsize=8)
            ax.set_yscale("log")
            if param != "alpha":
                ax.set_xscale("log")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Fig 12: Quantile-PD's alpha, window and sampling (DCTCP)", fontsize=9)
    fig.savefig(path, dpi=110, metadata={"Software": None})


def _val(param: str, v: float, load: float, col: str) -> Callable[[pd.DataFrame], float]:
    """`col` of PD with `param` = `v` at `load`."""
    return at("PD", col, parameter=param, value=v, load=load)


_PARAM_FACTS = ("queries", "timeouts", "qct_p99_ms")


def _param_facts(load: float) -> Note:
    def note(m: pd.DataFrame) -> str:
        d = m[m["load"] == load] if "load" in m else m.iloc[:0]
        if not len(d):
            return "not measured"
        q, t, p99 = (d.get(c, pd.Series(dtype=float)).dropna() for c in _PARAM_FACTS)
        return (
            f"at {load:.0f} %: {fmt(float(q.median()), '{:.0f}')} queries per run, "
            f"{fmt_range(list(t), '{:,.0f}')} timeouts per run, p99 QCT "
            f"{fmt_range(list(p99), '{:.0f}')} ms over all settings"
        )

    return note


_WHY_STACKED = (
    "the 95 % tails are stacked 10 + 20 ms timeouts of resent segments, which α, window and "
    "sampling barely change; " + _WHY_NO_BOOST
)
_WHY_FEW = "with a few tens of queries per run, a couple of 10 ms timeouts move a mean"


def _vs(a: float, b: float) -> str:
    return f"{fmt(a)} vs {fmt(b)} ms"


def _spread(label: str, values) -> Selector:
    """max / min of `values` (labelled)."""

    def measure(m: pd.DataFrame) -> Measure:
        xs = [(k, v) for k, v in values(m)]
        fin = [v for _, v in xs if math.isfinite(v)]
        s = max(fin) / min(fin) if len(fin) == len(xs) > 1 and min(fin) > 0 else math.nan
        shown = ", ".join(f"{k}: {fmt(v)}" for k, v in xs)
        return Measure.of(s, f"{fmt(s)}× (max / min {label}: {shown} ms)")

    return measure


def _sampling_spreads(m: pd.DataFrame) -> Measure:
    xs = []
    for ld in _loads(m):
        vals = [_val("sample_every", e, ld, "qct_mean_ms")(m) for e in _FIG12["sample_every"]]
        fin = [v for v in vals if math.isfinite(v)]
        s = max(fin) / min(fin) if len(fin) == len(vals) > 1 and min(fin) > 0 else math.nan
        xs.append((f"{ld:.0f} %", s))
    shown = ", ".join(f"{k} {fmt(v)}×" for k, v in xs) or "not measured"
    return Measure(
        tuple(v for _, v in xs), f"max / min mean QCT over 1, 20, 100 packets per sample: {shown}"
    )


_FIG12_CLAIMS = [
    *[
        Claim(
            f"At 55 % α = 0.1 gives {pct:g} % lower mean QCT than α = {other:g}",
            "§5.4",
            f"{pct:g} % lower",
            lower_by(pct),
            change(
                _val("alpha", 0.1, _LO, "qct_mean_ms"),
                _val("alpha", other, _LO, "qct_mean_ms"),
                _vs,
            ),
            LESS,
            why=Why(_param_facts(_LO), falls_short(_WHY_FEW)),
        )
        for other, pct in ((0.0, 19.0), (1.0, 71.0))
    ],
    Claim(
        "At 95 % α = 0.5 gives 50 % lower p99 QCT than α = 0.1",
        "§5.4",
        "50 % lower",
        lower_by(50),
        change(_val("alpha", 0.5, _HI, "qct_p99_ms"), _val("alpha", 0.1, _HI, "qct_p99_ms"), _vs),
        LESS,
        why=Why(_param_facts(_HI), falls_short(_WHY_STACKED)),
    ),
    Claim(
        "At 95 % a larger quantile window helps (window 50 against 5, p99 QCT)",
        "§5.4",
        "none",
        None,
        quotient(
            _val("window", 50, _HI, "qct_p99_ms"),
            _val("window", 5, _HI, "qct_p99_ms"),
            "p99 QCT, window 50 / window 5",
        ),
        LESS,
        why=Why(_param_facts(_HI), {OPPOSITE: _WHY_STACKED}),
    ),
    Claim(
        "At 55 % QCT has converged once the window is above 5 packets (windows 20 and 50)",
        "§5.4",
        "converged",
        None,
        _spread(
            "mean QCT at 55 %, by window",
            lambda m: [(w, _val("window", w, _LO, "qct_mean_ms")(m)) for w in (20, 50)],
        ),
        AT_MOST,
        ROUGHLY,
        why=Why(_param_facts(_LO), {ABOVE: _WHY_FEW}),
    ),
    Claim(
        "The sampling rate has a marginal effect on QCT (each load)",
        "§5.4",
        "marginal",
        None,
        _sampling_spreads,
        AT_MOST,
        ROUGHLY,
        why=Why(lambda m: "; ".join(_param_facts(ld)(m) for ld in _loads(m)), {ABOVE: _WHY_FEW}),
    ),
]


# ---------------------------------------------------------------- Fig 13: probabilistic PD


def _fig13_variants(mode: str) -> list[Variant]:
    loads = {"quick": (55, 95), "full": LOADS}[mode]
    return [
        _variant(
            label, _group("DCTCP", f"{load}%"), traffic("leafspine", mode, load), _pd(algorithm=alg)
        )
        for load in loads
        for label, alg in (("deterministic", "deterministic"), ("probabilistic", "probabilistic"))
    ]


_RULES = ("deterministic", "probabilistic")
_DEFLECTIONS = (("deflections", "deflections"), ("queries", "queries"))

_FIG13_CLAIMS = [
    *[
        _times_lower(
            f"The deterministic rule has {x:g}× lower {what} QCT than the probabilistic one at "
            "95 %",
            "§6",
            x,
            "deterministic",
            "probabilistic",
            col,
            Why(
                _facts(*_RULES, more=_DEFLECTIONS, load=_HI),
                falls_short(
                    "hopsim's probabilistic rule (as the artifact: above min_th = 75 KB, "
                    "probability α·R·(q − min_th)/(Q − min_th), so at most 10 %) deflects and "
                    "drops about as often as the deterministic one (the counts above), and both "
                    "tails are the same stacked timeouts"
                ),
            ),
            load=_HI,
        )
        for col, what, x in (("qct_mean_ms", "mean", 2.7), ("qct_p99_ms", "p99", 2.3))
    ],
    Claim(
        "…while both perform similarly at low load (55 %)",
        "§6",
        "similar",
        None,
        quotient(
            at("probabilistic", "qct_mean_ms", load=_LO),
            at("deterministic", "qct_mean_ms", load=_LO),
            "mean QCT, probabilistic / deterministic",
        ),
        SAME,
        ROUGHLY,
        why=Why(
            _facts(*_RULES, more=_DEFLECTIONS, load=_LO),
            {
                ABOVE: "the probabilistic rule slower: " + _WHY_FEW,
                BELOW: "the probabilistic rule faster: " + _WHY_FEW,
            },
        ),
    ),
]


# ---------------------------------------------------------------- Fig 14: update interval

_FIG14_INTERVALS = (0, 1, 2, 5, 10)


def _fig14_variants(mode: str) -> list[Variant]:
    loads = {"quick": (95,), "full": (55, 95)}[mode]
    schemes = {"quick": ("SD", "PD"), "full": ("SD", "PD", "Distribution-PD")}[mode]
    out = []
    for load in loads:
        t = traffic("leafspine", mode, load)
        for us in _FIG14_INTERVALS:
            g = _group(f"interval_us={us}", f"{load}%")
            for s in schemes:
                o = {k: (dict(v) if isinstance(v, dict) else v) for k, v in SCHEMES[s].items()}
                o["switch.deflection"] = {**o["switch.deflection"], "update_interval": f"{us}us"}
                out.append(_variant(s, g, t, o))
    return out


def _fig14_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    m = metrics.copy()
    m["facet"] = m["load"].map(lambda x: f"{x:.0f} %")
    _by_x(
        m,
        path,
        "interval_us",
        _QCT_COLS,
        "Fig 14: queue-occupancy update interval (DCTCP)",
        "facet",
        xlabel="update interval (µs)",
    )


def _gap(s: str, us: float, col: str = "qct_mean_ms") -> Callable[[pd.DataFrame], float]:
    return at(s, col, interval_us=us, load=_HI)


def _gap_facts(s: str) -> Note:
    return lambda m: (
        f"{s} at 95 %: "
        + ", ".join(
            f"{u} µs: mean QCT {fmt(_gap(s, u)(m), '{:.1f}')} ms, "
            f"{fmt(_gap(s, u, 'drops_rank')(m), '{:,.0f}')} preemptive drops, "
            f"{fmt(_gap(s, u, 'drop_pct')(m), '{:.1f}')} % dropped"
            for u in _FIG14_INTERVALS
        )
    )


def _stale_sd(m: pd.DataFrame) -> str:
    means = ", ".join(f"{u} µs: {fmt(_gap('SD', u)(m), '{:.1f}')} ms" for u in _FIG14_INTERVALS)
    dropped = ", ".join(
        f"{u} µs: {fmt(_gap('SD', u, 'drop_pct')(m), '{:.1f}')} %" for u in _FIG14_INTERVALS
    )
    return f"mean QCT {means}; dropped {dropped}"


_FIG14_CLAIMS = [
    Claim(
        "PD's QCT stays steady while the update gap is below 2 µs (1 µs against live queues, 95 %)",
        "§6",
        "steady",
        None,
        quotient(_gap("PD", 1.0), _gap("PD", 0.0), "mean QCT, 1 µs / live"),
        SAME,
        ROUGHLY,
        why=Why(_gap_facts("PD")),
    ),
    Claim(
        "With update gaps of 5 and 10 µs PD's QCT is higher than with live queues (95 %)",
        "§6",
        "none",
        None,
        several(
            lambda m: [(f"{u} µs", div(_gap("PD", u)(m), _gap("PD", 0.0)(m))) for u in (5.0, 10.0)],
            "mean QCT over live",
        ),
        MORE,
        why=Why(
            _gap_facts("PD"),
            {
                OPPOSITE: "with a stale view PD deflects and preemptively drops less (the counts "
                "above), which offsets its later reaction"
            },
        ),
    ),
    Claim(
        "Simple Deflection with a stale congested-port bitmap (the paper's Fig 14 shows PD only)",
        "beyond",
        "-",
        None,
        text(_stale_sd),
        NEW,
        why=Why(
            "hypothesis: SD marks a port congested only when it is full, so a copy even 1 µs "
            "old shows a full incast port as having room; packets go to it and are dropped "
            "instead of deflected, and SD falls back to ECMP's timeouts"
        ),
    ),
]


# ---------------------------------------------------------------- Table 1: LAS vs SRPT

_TABLE1 = {
    "ECMP": SCHEMES["ECMP"],
    "DIBS": SCHEMES["DIBS"],
    "AIFO": SCHEMES["AIFO"],
    "Vertigo": SCHEMES["Vertigo"],
    "PD-SRPT": SCHEMES["PD"],
    "PD-LAS": {**SCHEMES["PD"], "transport.rank": "las"},
}
#: Table 1's p99 QCT (s), by scheme and load.
TABLE1_PAPER = {
    "ECMP": (0.033, 0.042, 0.044, 0.072, 0.113),
    "DIBS": (0.013, 0.034, 0.076, 0.164, 0.281),
    "AIFO": (0.151, 0.161, 0.311, 0.342, 0.641),
    "Vertigo": (0.014, 0.018, 0.018, 0.021, 0.023),
    "PD-SRPT": (0.014, 0.019, 0.036, 0.047, 0.086),
    "PD-LAS": (0.016, 0.034, 0.044, 0.055, 0.076),
}


def _table1_variants(mode: str) -> list[Variant]:
    loads = {"quick": (55, 95), "full": LOADS}[mode]
    return [
        _variant(s, _group("DCTCP", f"{load}%"), traffic("leafspine", mode, load), o)
        for load in loads
        for s, o in _TABLE1.items()
    ]


def _table1_analyze(runs: list[Run]) -> pd.DataFrame:
    m = _table(runs)
    m["paper_p99_ms"] = [
        1e3 * TABLE1_PAPER[s][LOADS.index(int(ld))] if s in TABLE1_PAPER else math.nan
        for s, ld in zip(m["scheme"], m["load"])
    ]
    return m


def _table1_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    _by_x(
        metrics,
        path,
        "load",
        [("qct_p99_ms", "hopsim p99 QCT (ms)"), ("paper_p99_ms", "paper p99 QCT (ms)")],
        "Table 1: p99 QCT with SRPT and LAS ranks (DCTCP)",
        None,
        xlabel="load (%)",
    )


def _ms_at(s: str) -> Selector:
    def measure(m: pd.DataFrame) -> Measure:
        v = get(m, s, "qct_p99_ms", load=_HI)
        return Measure.of(v, f"{fmt(v, '{:.1f}')} ms")

    return measure


_TABLE_TOLERANCE = Tolerance(
    2.0,
    "absolute QCTs depend on the arrival window (here 10-60 ms, the artifact's ~340 ms) and on "
    "what hopsim leaves out (250 B requests, handshakes, ~20 µs server delay, the 64 KB "
    "receive window); within 2×",
)
_WHY_SHORT_RUNS = (
    "shorter runs (see the tolerance) leave fewer queries waiting behind stacked timeouts"
)


def _absolute(s: str) -> Claim:
    paper = 1e3 * TABLE1_PAPER[s][-1]
    return Claim(
        f"{s}'s p99 QCT at 95 % (DCTCP)",
        "App. A, Table 1",
        f"{paper:.0f} ms",
        paper,
        _ms_at(s),
        ABSOLUTE,
        _TABLE_TOLERANCE,
        why=Why(_facts(s, load=_HI), {BELOW: _WHY_SHORT_RUNS}),
    )


_TABLE1_CLAIMS = [
    *[
        _pct_claim(
            f"With LAS ranks PD has {pct:g} % lower p99 QCT than {base} at 95 %",
            "App. A",
            pct,
            "PD-LAS",
            base,
            "qct_p99_ms",
            Why(_facts(base, "PD-LAS", more=_PREEMPTIVE, load=_HI), falls_short(_WHY_NO_BOOST)),
            load=_HI,
        )
        for base, pct in (("ECMP", 33.0), ("DIBS", 73.0), ("AIFO", 88.0))
    ],
    Claim(
        "PD-LAS's p99 QCT over PD-SRPT's at 95 % (Table 1: 0.076 / 0.086 s)",
        "App. A, Table 1",
        "0.88×",
        0.076 / 0.086,
        quotient(
            at("PD-LAS", "qct_p99_ms", load=_HI),
            at("PD-SRPT", "qct_p99_ms", load=_HI),
            "p99 QCT, PD-LAS / PD-SRPT",
        ),
        ABSOLUTE,
        Tolerance(2.0, "a ratio of two Table 1 values from one-seed runs; within 2×"),
        why=Why(_facts("PD-SRPT", "PD-LAS", more=_PREEMPTIVE, load=_HI)),
    ),
    *[_absolute(s) for s in TABLE1_PAPER],
]


# ---------------------------------------------------------------- beyond the paper: RoCE


def _roce_variants(mode: str) -> list[Variant]:
    loads = {"quick": (55, 95), "full": (55, 75, 95)}[mode]
    pd_roce = {
        "switch.deflection": {"kind": "preemptive"},
        **{k: v for k, v in _ORDERED.items() if k.startswith("routing")},
    }
    out = []
    for load in loads:
        t = traffic("leafspine", mode, load)
        out += [
            _variant("ECMP", _group("TCP DCTCP", f"{load}%"), t),
            _variant("PD", _group("TCP DCTCP", f"{load}%"), t, SCHEMES["PD"]),
            _variant("ECMP", _group("RoCE DCQCN+IRN", f"{load}%"), t, ROCE),
            _variant("PD", _group("RoCE DCQCN+IRN", f"{load}%"), t, ROCE, pd_roce),
        ]
    return out


def _pd_over_ecmp(cc: str) -> Callable[[pd.DataFrame], str]:
    def describe(m: pd.DataFrame) -> str:
        return "; ".join(
            f"{ld:.0f} %: mean {fmt(_qct('PD', 'ECMP', cc=cc, load=ld)(m))}×, "
            f"p99 {fmt(_qct('PD', 'ECMP', 'qct_p99_ms', cc=cc, load=ld)(m))}× (ECMP mean "
            f"{fmt(get(m, 'ECMP', 'qct_mean_ms', cc=cc, load=ld))} ms; "
            + _facts("ECMP", "PD", cc=cc, load=ld)(m)
            + ")"
            for ld in _loads(m)
        )

    return describe


_ROCE_CLAIMS = [
    Claim(
        "Preemptive Deflection over TCP DCTCP, the baseline of this experiment: QCT of PD / ECMP",
        "beyond",
        "-",
        None,
        text(_pd_over_ecmp("TCP DCTCP")),
        NEW,
    ),
    Claim(
        "Preemptive Deflection over RoCE DCQCN+IRN: QCT of PD / ECMP (no PFC)",
        "beyond",
        "-",
        None,
        text(_pd_over_ecmp("RoCE DCQCN+IRN")),
        NEW,
        why=Why(
            "PD runs without the ordering layer (IRN takes out-of-order "
            "packets) and with IRN's BDP window; hypothesis: IRN's 100 / 320 µs timeouts (IRN "
            "paper, for 40 Gb/s) are shorter than a full 300 KB queue at 10 Gb/s (240 µs), so "
            "queueing and deflection detours trigger spurious resends (the timeouts above)"
        ),
    ),
]


# ---------------------------------------------------------------- the window (§5.3, Fig 6)

#: Arrival windows (ms) of the window experiment: ECMP, DIBS and SD at 95 % with DCTCP on
#: the §5.2 leaf-spine. A 100 ms window at 95 % takes several minutes per run here, so
#: ``quick`` stops at 30 ms and ``full`` reaches 100 ms (the artifact ran ~340 ms).
_WINDOWS = {"quick": (10, 30), "full": (10, 30, 100)}
_WINDOW_SCHEMES = ("ECMP", "DIBS", "SD")


def _window_variants(mode: str) -> list[Variant]:
    out = []
    for w in _WINDOWS[mode]:
        t = traffic("leafspine", mode, _HI)
        t["workload.0.stop"] = t["workload.1.stop"] = f"{w}ms"
        g = _group("DCTCP", f"{_HI:g}%", f"window={w}")
        out += [_variant(s, g, t, SCHEMES[s]) for s in _WINDOW_SCHEMES]
    return out


def _windows(m: pd.DataFrame) -> list[float]:
    return sorted(m["window"].dropna().unique()) if "window" in m else []


def _at_longest_window(a: str, b: str, col: str = "qct_mean_ms") -> Selector:
    """`col` of `a` over `b` at the longest window run (checked), with every window's shown."""

    def measure(m: pd.DataFrame) -> Measure:
        ws = _windows(m)
        if not ws:
            return Measure.of(math.nan, "not measured")
        xs = [(w, _qct(a, b, col, window=w)(m)) for w in ws]
        shown = ", ".join(f"{w:g} ms {fmt(x)}" for w, x in xs)
        top = xs[-1][1]
        return Measure.of(top, f"{fmt(top)}× at {ws[-1]:g} ms ({shown}; mean QCT, {a} / {b})")

    return measure


def _trend(m: pd.DataFrame) -> str:
    """Each scheme's mean QCT, share of flows with >= 3 timeouts and QCT drift, by window."""
    parts = []
    for s in _WINDOW_SCHEMES:
        xs = [
            f"{w:g} ms {fmt(get(m, s, 'qct_mean_ms', window=w))} ms / "
            f"{fmt(get(m, s, 'timeouts3_pct', window=w), '{:.1f}')} % / "
            f"{fmt(get(m, s, 'qct_drift', window=w))}"
            for w in _windows(m)
        ]
        parts.append(f"{s}: " + ", ".join(xs))
    return (
        "mean QCT / flows with >= 3 timeouts / QCT drift (middle third of the window over the "
        "first), by arrival window: " + "; ".join(parts)
    )


def _window_facts(m: pd.DataFrame) -> str:
    w = max(_windows(m), default=math.nan)
    return f"at {w:g} ms: " + _facts("ECMP", "SD", "DIBS", window=w)(m)


_WINDOW_CLAIMS = [
    *[
        Claim(
            f"{s} breaks under load: with DCTCP at 95 % its mean QCT is 2× ECMP's (at the "
            "longest arrival window run)",
            "§5.3, Fig 6",
            "2×",
            2.0,
            _at_longest_window(s, "ECMP"),
            MORE,
            why=Why(
                _window_facts,
                {
                    OPPOSITE: "every scheme's QCT grows with the window (the trend row "
                    "below), SD's and DIBS's faster than ECMP's, so the ratio climbs toward the "
                    "paper's as the window nears the artifact's ~340 ms (here at most "
                    f"{max(_WINDOWS['full'])} ms); and hopsim leaves out the handshake, 250 B "
                    "request and server delay of every response (docs/model.md), each one "
                    "more packet SD and DIBS can lose to a 10 ms timer",
                },
            ),
        )
        for s in ("SD", "DIBS")
    ],
    Claim(
        "Beyond the paper: ECMP, DIBS and SD at 95 % against the arrival window",
        "beyond",
        "-",
        None,
        text(_trend),
        NEW,
    ),
]


# ---------------------------------------------------------------- the artifact's 1 Gb/s setting

#: The artifact's small-scale incast inter-arrival multipliers (omnetpp_1G.ini), one per
#: nominal load; the query rate is 250 / multiplier queries per second over all clients
#: (docs/reproduce.md derives it), i.e. 5 / 15.2 / 25 / 35.7 / 45.5 % of the 32 Gb/s fabric.
ART1G_MULTIPLIERS = {55: 1.0, 65: 0.33, 75: 0.2, 85: 0.14, 95: 0.11}
#: Queries per second at multiplier 1 (5 % of 32 Gb/s in 40 x 20,000 B queries).
ART1G_QPS = 250.0
#: Background share of the 32 Gb/s fabric its multiplier 11.85 gives (docs/reproduce.md).
ART1G_BACKGROUND = 41.0
#: The artifact's published sample output (its README, "Small-scale simulations"): mean and
#: p99 QCT in seconds at nominal 55, 65, 75, 85, 95 %, DCTCP.
ART1G_PAPER = {
    "ECMP": ((0.0307, 0.0343, 0.0416, 0.0507, 0.0692), (0.0720, 0.0751, 0.0971, 0.1006, 0.1820)),
    "DIBS": ((0.0109, 0.0217, 0.0345, 0.0530, 0.0918), (0.0210, 0.0496, 0.0813, 0.1135, 0.3175)),
    "SD": ((0.0115, 0.0219, 0.0354, 0.0532, 0.0914), (0.0243, 0.0466, 0.0864, 0.1106, 0.3299)),
    "Vertigo": ((0.0153, 0.0175, 0.0183, 0.0200, 0.0248), (0.0216, 0.0244, 0.0258, 0.0388, 0.0486)),
    "PD": ((0.0170, 0.0233, 0.0303, 0.0385, 0.0523), (0.0280, 0.0421, 0.0567, 0.0806, 0.0981)),
    "Distribution-PD": (
        (0.0175, 0.0232, 0.0309, 0.0405, 0.0554),
        (0.0267, 0.0412, 0.0533, 0.0817, 0.1052),
    ),
}
#: The artifact's 1 Gb/s ordering-layer timeout (`omega`, 1.2 ms; 360 µs at 10 Gb/s).
_ART1G_ORDERING = {"transport.tcp.reorder_timeout": "1200us"}
_ART1G_SCHEMES = {
    "quick": ("ECMP", "DIBS", "SD", "Vertigo", "PD"),
    "full": tuple(ART1G_PAPER),
}


def art1g_traffic(load: int) -> dict[str, Any]:
    """The query rate per client at nominal `load` (background is the scenario's)."""
    return {"workload.1.qps": round(ART1G_QPS / ART1G_MULTIPLIERS[load] / 320, 6)}


def _art1g_variants(mode: str) -> list[Variant]:
    loads = {"quick": (55, 95), "full": tuple(ART1G_MULTIPLIERS)}[mode]
    out = []
    for load in loads:
        for s in _ART1G_SCHEMES[mode]:
            extra = _ART1G_ORDERING if "transport.tcp.reorder_timeout" in SCHEMES[s] else {}
            g = _group("DCTCP", f"{load}%")
            out.append(_variant(s, g, art1g_traffic(load), SCHEMES[s], extra))
    return out


def _art1g_analyze(runs: list[Run]) -> pd.DataFrame:
    m = _table(runs)
    loads = list(ART1G_MULTIPLIERS)
    for k, col in ((0, "artifact_mean_ms"), (1, "artifact_p99_ms")):
        m[col] = [
            1e3 * ART1G_PAPER[s][k][loads.index(int(ld))] if s in ART1G_PAPER else math.nan
            for s, ld in zip(m["scheme"], m["load"])
        ]
    return m


def _art1g_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    _by_x(
        metrics,
        path,
        "load",
        [
            ("qct_mean_ms", "hopsim mean QCT (ms)"),
            ("artifact_mean_ms", "artifact mean QCT (ms)"),
            ("qct_p99_ms", "hopsim p99 QCT (ms)"),
            ("artifact_p99_ms", "artifact p99 QCT (ms)"),
        ],
        "The artifact's 1 Gb/s leaf-spine (DCTCP), nominal load",
        None,
        xlabel="nominal load (%)",
    )


def _art(s: str, k: int, load: int) -> float:
    return 1e3 * ART1G_PAPER[s][k][list(ART1G_MULTIPLIERS).index(load)]


_ART1G_NOTE = (
    "QCT counts the queries complete by 1.2 s, as the artifact's sample_qct.py; "
    "hopsim leaves out the handshake, 250 B request and ~20 µs server delay of every "
    "response and the 64 KB receive window (docs/model.md)"
)
_ART1G_MORE = (("timeouts3_pct", "% flows with >= 3 timeouts"), ("qct_drift", "QCT drift"))
_WHY_ART1G_TAILS = (
    "hopsim's 95 % tails are stacked 10 / 20 / 40 ms timeouts under ECMP, SD and DIBS alike "
    "(the shares of flows with >= 3 timeouts above), and the artifact's SD and DIBS also "
    "lose handshake and 250 B request packets, with fast retransmit off, each a 10 ms timer "
    "before a response starts, which hopsim does not send (docs/model.md)"
)
_WHY_ART1G_VERTIGO = (
    "the gap is there without load (hopsim's Vertigo finishes queries near the 6.4 ms that "
    "800 KB takes on the client's 1 Gb/s link at 55 % and 95 %, above; the artifact's takes "
    "15.3 ms at 55 %, more than its own DIBS's 10.9 ms), so it is not the collapse: the "
    "artifact's marking layer (it also boosts a flow's new packets after a resend) and its "
    "per-connection setup (docs/model.md) change what each query pays"
)


def _vertigo_lows(m: pd.DataFrame) -> str:
    xs = [f"{ld:.0f} % {fmt(get(m, 'Vertigo', 'qct_mean_ms', load=ld))} ms" for ld in _loads(m)]
    return "Vertigo's mean QCT " + ", ".join(xs)


def _art1g_facts(*schemes: str, load: float) -> Note:
    base = _facts(*schemes, load=load)
    return lambda m: (
        base(m)
        + "; "
        + counters(m, schemes, _ART1G_MORE, "{:.2f}", load=load)
        + "; "
        + counters(m, schemes, (("queries_finished", "queries finished"),), load=load)
        + ("; " + _vertigo_lows(m) if "Vertigo" in schemes else "")
    )


def _art1g_why(a: str, col: str, load: int) -> dict[str, Note]:
    """The hypotheses of a 1 Gb/s row of `a` (`col` at `load`)."""
    if a == "Vertigo":
        return {k: _WHY_ART1G_VERTIGO for k in (OPPOSITE, SMALLER, LARGER, ABOVE, BELOW)}
    if load == 95 and a in ("SD", "DIBS") and col == "qct_p99_ms":
        return falls_short(_WHY_ART1G_TAILS)
    return {OPPOSITE: _ART1G_NOTE}


def _art1g_ratio(a: str, b: str, col: str, load: int) -> Claim:
    k = 0 if col == "qct_mean_ms" else 1
    x = _art(a, k, load) / _art(b, k, load)
    what = "mean" if k == 0 else "p99"
    # Stated as a fold above 1: "a is x× b's" or "a is x× lower than b".
    hi, lo = (a, b) if x >= 1 else (b, a)
    ld = float(load)
    return Claim(
        f"1 Gb/s, {load} %: {a}'s {what} QCT over {b}'s (artifact sample: "
        f"{_art(a, k, load):.1f} / {_art(b, k, load):.1f} ms)",
        "artifact README",
        f"{x:.2f}×" if x >= 1 else f"{1 / x:.2f}× lower",
        max(x, 1 / x),
        quotient(at(hi, col, load=ld), at(lo, col, load=ld), f"{what} QCT, {hi} / {lo}"),
        MORE,
        why=Why(_art1g_facts(a, b, load=float(load)), _art1g_why(a, col, load)),
    )


def _art1g_absolute(s: str, load: int) -> Claim:
    paper = _art(s, 0, load)

    def measure(m: pd.DataFrame) -> Measure:
        v = get(m, s, "qct_mean_ms", load=float(load))
        return Measure.of(v, f"{fmt(v, '{:.1f}')} ms")

    return Claim(
        f"1 Gb/s: {s}'s mean QCT at {load} % (artifact sample output)",
        "artifact README",
        f"{paper:.1f} ms",
        paper,
        measure,
        ABSOLUTE,
        Tolerance(2.0, "one-seed runs of a rebuilt workload against the artifact's; within 2×"),
        why=Why(
            _art1g_facts(s, load=float(load)),
            _art1g_why(s, "qct_mean_ms", load)
            if s == "Vertigo"
            else {ABOVE: _ART1G_NOTE, BELOW: _ART1G_NOTE},
        ),
    )


def _art1g_trend(m: pd.DataFrame) -> str:
    parts = []
    for ld in _loads(m):
        xs = [
            f"{s} {fmt(get(m, s, 'timeouts3_pct', load=ld), '{:.1f}')} % / "
            f"{fmt(get(m, s, 'qct_drift', load=ld))}"
            for s in _ART1G_SCHEMES["full"]
            if not math.isnan(get(m, s, "qct_mean_ms", load=ld))
        ]
        parts.append(f"{ld:.0f} %: " + ", ".join(xs))
    return "flows with >= 3 timeouts / QCT drift (middle third over first): " + "; ".join(parts)


_ART1G_CLAIMS = [
    _art1g_ratio("SD", "ECMP", "qct_mean_ms", 55),
    _art1g_ratio("DIBS", "ECMP", "qct_mean_ms", 55),
    _art1g_ratio("SD", "ECMP", "qct_mean_ms", 95),
    _art1g_ratio("DIBS", "ECMP", "qct_mean_ms", 95),
    _art1g_ratio("SD", "ECMP", "qct_p99_ms", 95),
    _art1g_ratio("DIBS", "ECMP", "qct_p99_ms", 95),
    _art1g_ratio("Vertigo", "ECMP", "qct_mean_ms", 95),
    _art1g_ratio("Vertigo", "ECMP", "qct_p99_ms", 95),
    _art1g_ratio("PD", "ECMP", "qct_mean_ms", 95),
    _art1g_ratio("PD", "SD", "qct_mean_ms", 95),
    *[_art1g_absolute(s, 95) for s in ("ECMP", "DIBS", "SD", "Vertigo", "PD")],
    Claim(
        "Beyond the artifact: how far the 1 Gb/s runs are from settling",
        "beyond",
        "-",
        None,
        text(_art1g_trend),
        NEW,
    ),
]


# ---------------------------------------------------------------- the paper


PAPER = Paper(
    name="deflection",
    title="Practical Packet Deflection in Datacenters",
    source="Sepehr Abdous, Erfan Sharafzadeh, Soudeh Ghorbani, Proc. ACM Netw. (CoNEXT) 2023",
    analyze=_table,
    experiments=[
        experiment(
            "sec2_dibs_naive",
            "Fig 1 / §2",
            "§2",
            "DIBS against naive deflection",
            "25 % background + 4,000 QPS (10 % incast), DCTCP: filtering out full ports makes "
            "DIBS's mean QCT 3× and p99 2× lower than deflecting to any port.",
            "leafspine.toml",
            _sec2_variants,
            _SEC2_CLAIMS,
            lambda m, runs, path: bars(
                m,
                path,
                _QCT_COLS,
                "§2: ECMP, DIBS and naive deflection (25 % bg + 4,000 QPS)",
                log=False,
                colors=_COLOR,
            ),
        ),
        experiment(
            "fig6_cc",
            "Fig 6",
            "§5.3",
            "seven schemes × TCP, DCTCP, Swift and Bolt",
            "Mean and p99 QCT against load (55-95 %): SD ≈ DIBS and best at low load but "
            "breaks under load with TCP/DCTCP; PD stays between SD and Vertigo with DCTCP and "
            "matches Vertigo with Swift and Bolt.",
            "leafspine.toml",
            _fig6_variants,
            _FIG6_CLAIMS,
            _draw_loads("Fig 6: QCT against load, per congestion control"),
        ),
        experiment(
            "fig7_goodput",
            "Fig 7",
            "§5.3",
            "goodput of >= 10 MB flows, PD against Vertigo",
            "Elephant (>= 10 MB) goodput with DCTCP and Swift: PD's is above Vertigo's (20 % at "
            "95 % with DCTCP); SD's parallels DIBS's.",
            "leafspine.toml",
            _fig7_variants,
            _FIG7_CLAIMS,
            _fig7_draw,
        ),
        experiment(
            "fig8_reorder",
            "Fig 8",
            "§5.3",
            "reordering",
            "Out-of-order packets / packets: deflection raises it (Vertigo 3.3×, PD 2.4× "
            "ECMP's at 95 % with DCTCP); PD reorders less than Vertigo (FIFO queues).",
            "leafspine.toml",
            _fig6_variants,
            _FIG8_CLAIMS,
            _fig8_draw,
            shares="fig6_cc",
        ),
        experiment(
            "fig9_incast",
            "Fig 9",
            "§5.3",
            "incast scale (50-300 requests) and response size (1-180 KB)",
            "4,000 QPS with DCTCP: SD breaks above 150 requests per query, PD stays close to "
            "Vertigo (2× lower p99 FCT than ECMP at 450); PD wins below 100 KB responses and "
            "loses above.",
            "leafspine.toml",
            _fig9_variants,
            _FIG9_CLAIMS,
            _fig9_draw,
        ),
        experiment(
            "fig10_fattree",
            "Fig 10",
            "§5.3",
            "k=8 fat-tree, 10 Gb/s, DCTCP",
            "On a three-tier fat-tree deflection has more room: DIBS/SD beat ECMP even at "
            "95 %, PD beats SD (33 % mean, 42 % p99), AIFO is 3× slower than ECMP at 55 %.",
            "fattree_k8.toml",
            _fig10_variants,
            _FIG10_CLAIMS,
            _draw_loads("Fig 10: k=8 fat-tree (DCTCP)", None),
        ),
        experiment(
            "fig11_100g",
            "Fig 11",
            "§5.3",
            "100 Gb/s leaf-spine, DCTCP and Swift",
            "At 100 Gb/s SD handles low burstiness, PD high: PD + Swift 6× lower mean QCT than "
            "ECMP at 85 %.",
            "leafspine_100g.toml",
            _fig11_variants,
            _FIG11_CLAIMS,
            _draw_loads("Fig 11: 100 Gb/s leaf-spine"),
        ),
        experiment(
            "fig12_params",
            "Fig 12",
            "§5.4",
            "Quantile-PD's α, window and sampling",
            "α ≈ 0.1 is best at low load and ≈ 0.5 at 95 %; larger windows help at high load; "
            "the sampling rate barely matters.",
            "leafspine.toml",
            _fig12_variants,
            _FIG12_CLAIMS,
            _fig12_draw,
            analyze=_fig12_analyze,
        ),
        experiment(
            "fig13_prob",
            "Fig 13",
            "§6",
            "deterministic against probabilistic PD",
            "A RED-like probabilistic rule is as good at low load but 2.7× (mean) and 2.3× "
            "(p99) slower at 95 %.",
            "leafspine.toml",
            _fig13_variants,
            _FIG13_CLAIMS,
            _draw_loads("Fig 13: deterministic vs probabilistic PD (DCTCP)", None),
        ),
        experiment(
            "fig14_update",
            "Fig 14",
            "§6",
            "queue-occupancy update interval",
            "SD and PD read queue occupancy refreshed every 0-10 µs: QCT stays steady below 2 µs.",
            "leafspine.toml",
            _fig14_variants,
            _FIG14_CLAIMS,
            _fig14_draw,
        ),
        experiment(
            "table1_las",
            "Table 1",
            "App. A",
            "PD with LAS ranks",
            "p99 QCT of ECMP, DIBS, AIFO, Vertigo and PD with SRPT or LAS ranks: PD-LAS 33 %, "
            "73 %, 88 % below ECMP, DIBS, AIFO at 95 %.",
            "leafspine.toml",
            _table1_variants,
            _TABLE1_CLAIMS,
            _table1_draw,
            analyze=_table1_analyze,
        ),
        experiment(
            "fig6_window",
            "Fig 6",
            "§5.3",
            "SD and DIBS against ECMP at 95 % by arrival window",
            "The collapse of SD and DIBS under load (Fig 6, DCTCP, 95 %) against the length of "
            "the arrival window, with the share of flows with three or more timeouts and the "
            "QCT drift over the window, so that a network that does not settle shows.",
            "leafspine.toml",
            _window_variants,
            _WINDOW_CLAIMS,
            lambda m, runs, path: _by_x(
                m,
                path,
                "window",
                [*_QCT_COLS, ("timeouts3_pct", "flows with >= 3 timeouts (%)")],
                "SD and DIBS against ECMP at 95 % (DCTCP) by arrival window",
                None,
                xlabel="arrival window (ms)",
            ),
        ),
        experiment(
            "art1g",
            "artifact",
            "artifact README",
            "the artifact's 1 Gb/s small-scale setting",
            "The setting of the artifact's published sample output: 4 × 8 × 40 at 1 Gb/s, "
            "50,000 B per port, DCTCP K = 20, queries of 40 × 20,000 B, 1.2 s runs; SD and "
            "DIBS 2.7× below ECMP's mean QCT at 55 % and 1.3× above it at 95 %.",
            "leafspine_1g.toml",
            _art1g_variants,
            _ART1G_CLAIMS,
            _art1g_draw,
            analyze=_art1g_analyze,
        ),
        experiment(
            "roce_irn",
            "beyond",
            "-",
            "PD under PFC-free RoCE (DCQCN + IRN)",
            "Not in the paper: Preemptive Deflection with a lossy RoCE transport (DCQCN + IRN, "
            "no PFC) beside TCP DCTCP.",
            "leafspine.toml",
            _roce_variants,
            _ROCE_CLAIMS,
            _draw_loads("Beyond the paper: PD under RoCE DCQCN + IRN and TCP DCTCP"),
        ),
    ],
)
