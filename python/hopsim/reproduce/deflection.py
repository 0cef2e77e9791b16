"""The Practical Packet Deflection paper's evaluation (Abdous, Sharafzadeh and Ghorbani,
CoNEXT 2023; ``../shared/papers/practical-deflection.md``), experiment by experiment.

Every experiment runs variants of a scenario in ``scenarios/deflection/``: the §5.2 leaf-spine
(``leafspine.toml``), the k=8 fat-tree of Fig 10 (``fattree_k8.toml``) and the 100 Gb/s
leaf-spine of Fig 11 (``leafspine_100g.toml``). Settings the paper leaves out come from its
artifact (``github:hopnets/practical_deflection``, summarised in ``notes/deflection_spec.md``):
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
One run per point, as the artifact.

PD means Quantile-PD, as in the paper; Distribution-PD is named in full.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hopsim.reproduce.claims import (
    ABOUT,
    ABSOLUTE,
    FLAT,
    HIGHER,
    LOWER,
    NEW,
    PCT,
    Claim,
    Measure,
    Note,
    Selector,
    about,
    at,
    change,
    lower_text,
    pct_lower,
    quotient,
    several,
    text,
)
from hopsim.reproduce.figures import bars, by_x, palette
from hopsim.reproduce.framework import Paper, Run, Variant, experiment
from hopsim.reproduce.stats import div, fmt, fmt_range, get, table
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
    highest byte received, over the flows' packets) and elephant (>= 10 MB) goodput."""
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
    }


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


def _loads(m: pd.DataFrame) -> list[float]:
    return sorted(m["load"].dropna().unique()) if "load" in m else []


def _qct(a: str, b: str, col: str = "qct_mean_ms", **where: Any) -> Callable[[pd.DataFrame], float]:
    """`col` of scheme `a` over scheme `b` at `where`."""
    return lambda m: div(get(m, a, col, **where), get(m, b, col, **where))


def _times_lower(
    statement: str, paper_x: float, better: str, base: str, col: str, why: Note, **where: Any
) -> Claim:
    """ "`better` is `paper_x` times lower than `base` in `col`" (measured base / better)."""
    what = f"{col}, {base} / {better}"
    sel = quotient(at(base, col, **where), at(better, col, **where), what)
    return Claim(statement, f"{paper_x:g}×", paper_x, sel, HIGHER, why=why)


def _pct_claim(
    statement: str, paper_pct: float, better: str, base: str, col: str, why: Note, **where: Any
) -> Claim:
    """ "`better` is `paper_pct` % lower than `base` in `col`"."""
    sel = pct_lower(better, base, col, **where)
    return Claim(statement, f"{paper_pct:g} % lower", paper_pct, sel, PCT, why=why)


# ---------------------------------------------------------------- figures

#: One colour per scheme in every figure.
_COLOR = palette(
    ["ECMP", "DIBS", "Naive", "SD", "Vertigo", "AIFO", "PD", "Distribution-PD", "PD-SRPT",
     "PD-LAS", "deterministic", "probabilistic"]
)  # fmt: skip


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


def _sec2_why(m: pd.DataFrame) -> str:
    return (
        "hopsim's naive variant deflects to a random switch-facing port whatever its fill, as "
        "the artifact's relay with the filter off; " + _drops(m, ("ECMP", "DIBS", "Naive"))
    )


_SEC2_CLAIMS = [
    _times_lower(
        "Filtering out full ports: DIBS's mean QCT is 3× lower than naive deflection's "
        "(25 % background + 4,000 QPS, §2)",
        3.0,
        "DIBS",
        "Naive",
        "qct_mean_ms",
        _sec2_why,
    ),
    _times_lower("…and its p99 QCT 2× lower (§2)", 2.0, "DIBS", "Naive", "qct_p99_ms", _sec2_why),
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
    "10, 20, 40 ms timeouts, and such queries pile up until arrivals stop, so QCTs depend on "
    "the arrival window (here 10-60 ms; the artifact's about 340 ms)"
)
_WHY_NO_BOOST = (
    "hopsim halves a resent segment's rank once per resend counted per flow (one plus the "
    "flow's timeouts), where the artifact counts resends per segment; a resent segment of a "
    "large response can still rank below the background and be dropped again, so the tail "
    "is stacked timeouts"
)


def _why_drops(m: pd.DataFrame, schemes: Iterable[str], **where: Any) -> str:
    return _drops(m, schemes, **where) + (
        " (PD: preemptive drops where both sampled deflection ports are over their threshold; "
        "DIBS and SD deflect to any port with room)"
    )


_HI, _LO = 95.0, 55.0


def _sd_vs_ecmp(cc: str) -> Selector:
    """SD's mean QCT against ECMP's at 55 %, with DIBS's beside it."""
    sd = pct_lower("SD", "ECMP", "qct_mean_ms", cc=cc, load=_LO)

    def measure(m: pd.DataFrame) -> Measure:
        got = sd(m)
        dibs = pct_lower("DIBS", "ECMP", "qct_mean_ms", cc=cc, load=_LO)(m).value
        return Measure(got.value, got.text + f"; DIBS {lower_text(dibs)}")

    return measure


def _drops_fewer(cc: str) -> Selector:
    def measure(m: pd.DataFrame) -> Measure:
        d_dctcp = get(m, "PD", "drops", cc="DCTCP", load=_HI)
        d_cc = get(m, "PD", "drops", cc=cc, load=_HI)
        x = div(d_dctcp, d_cc) if d_cc > 0 else (math.inf if d_dctcp > 0 else math.nan)
        text = f"{fmt(x, '{:.1f}')}× (drops, PD+DCTCP {d_dctcp:.0f} / PD+{cc} {d_cc:.0f})"
        return Measure(x, text)

    return measure


def _drops_fewer_why(cc: str) -> Note:
    def why(m: pd.DataFrame) -> str:
        if get(m, "PD", "drops", cc=cc, load=_HI) == 0:
            return f"PD + {cc} dropped no packet here, so the ratio has no magnitude"
        return f"hopsim's {cc} keeps queues low enough that PD seldom has to drop"

    return why


_SWIFT_WHY = {
    "ECMP": "ECMP's drop-tail losses cost 10 ms timeouts",
    "AIFO": "AIFO refuses the responses' first packets (largest remaining size) and they "
    "recover by stacked 10 ms timeouts",
    "DIBS": "with Swift's delay target DIBS loses nothing and does not collapse in hopsim, "
    "so it matches PD",
}


def _pd_vertigo_text(m: pd.DataFrame) -> str:
    return "mean QCT, PD / Vertigo: " + ", ".join(
        f"{cc} {fmt(_qct('PD', 'Vertigo', cc=cc, load=_HI)(m))}" for cc in ("Swift", "Bolt")
    )


_FIG6_CLAIMS = [
    Claim(
        "Simple Deflection performs like DIBS (mean QCT, every CC and load; §5.3)",
        "≈1×",
        1.0,
        about(
            lambda m: [_qct("SD", "DIBS", cc=cc, load=ld)(m) for cc in CCS for ld in _loads(m)],
            "mean QCT, SD / DIBS",
        ),
        ABOUT,
        2.0,
        why="SD takes the first port with room after a random one, DIBS a random port with "
        "room: they differ only in which free port they pick, and these are single-seed "
        "runs with few queries",
    ),
    *[
        Claim(
            f"At 55 % load SD and DIBS have {pct:g} % lower mean QCT than ECMP with {cc} (§5.3)",
            f"{pct:g} % lower",
            pct,
            _sd_vs_ecmp(cc),
            PCT,
            why=lambda m, cc=cc: (
                "ECMP loses whole initial windows of the 100 synchronised "
                "responses at the client's port and recovers by 10 ms timeouts; "
                + _drops(m, ("ECMP", "SD"), cc=cc, load=_LO)
            ),
        )
        for cc, pct in (("TCP", 51.0), ("DCTCP", 71.0))
    ],
    Claim(
        "Simple Deflection breaks under load: with DCTCP at 95 % its mean QCT is 2× ECMP's (§5.3)",
        "2×",
        2.0,
        quotient(
            at("SD", "qct_mean_ms", cc="DCTCP", load=_HI),
            at("ECMP", "qct_mean_ms", cc="DCTCP", load=_HI),
            "mean QCT, SD / ECMP",
        ),
        HIGHER,
        why=lambda m: (
            "no collapse in hopsim: SD's deflected packets find room at the spines "
            "and come back, while ECMP pays 10 ms timeouts for its drop-tail losses; "
            + _drops(m, ("ECMP", "SD"), cc="DCTCP", load=_HI)
            + "; "
            + _WHY_WINDOW
        ),
    ),
    *[
        _pct_claim(
            f"PD + DCTCP has {pct:g} % lower {what} QCT than {base} at 95 % (§5.3)",
            pct,
            "PD",
            base,
            col,
            lambda m, base=base: (
                _why_drops(m, (base, "PD"), cc="DCTCP", load=_HI) + "; " + _WHY_NO_BOOST
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
        "Vertigo + DCTCP has 70 % lower mean QCT than ECMP at 95 % (§5.3, Fig 8 text)",
        70.0,
        "Vertigo",
        "ECMP",
        "qct_mean_ms",
        lambda m: _drops(m, ("ECMP", "Vertigo"), cc="DCTCP", load=_HI) + "; " + _WHY_NO_BOOST,
        cc="DCTCP",
        load=_HI,
    ),
    Claim(
        "PD + DCTCP has 2.35× higher mean QCT than Vertigo + DCTCP at 95 % (§5.3)",
        "2.35×",
        2.35,
        quotient(
            at("PD", "qct_mean_ms", cc="DCTCP", load=_HI),
            at("Vertigo", "qct_mean_ms", cc="DCTCP", load=_HI),
            "mean QCT, PD / Vertigo",
        ),
        HIGHER,
        why=lambda m: (
            "PD and Vertigo lose a similar share of packets here and recover by the "
            "same timeouts ("
            + _drops(m, ("PD", "Vertigo"), cc="DCTCP", load=_HI)
            + "); "
            + _WHY_NO_BOOST
        ),
    ),
    *[
        _times_lower(
            f"PD + {cc} has 2.5× lower p99 QCT than ECMP + {cc} at 95 % (abstract, §1, §5)",
            2.5,
            "PD",
            "ECMP",
            "qct_p99_ms",
            lambda m, cc=cc: _drops(m, ("ECMP", "PD"), cc=cc, load=_HI) + "; " + _WHY_WINDOW,
            cc=cc,
            load=_HI,
        )
        for cc in ("Swift", "Bolt")
    ],
    Claim(
        "With Swift and Bolt, PD is as fast as Vertigo at 95 % (mean QCT; §5.3)",
        "≈1×",
        1.0,
        about(
            lambda m: [_qct("PD", "Vertigo", cc=cc, load=_HI)(m) for cc in ("Swift", "Bolt")],
            _pd_vertigo_text,
        ),
        ABOUT,
        2.0,
        why="with Swift and Bolt hopsim's Vertigo rarely deflects (its SRPT queue absorbs the "
        "bursts) while PD deflects by threshold; " + _WHY_NO_BOOST,
    ),
    *[
        c
        for cc, x_paper, drops_paper in (("Swift", 3.5, 52.0), ("Bolt", 6.0, 153.0))
        for c in (
            Claim(
                f"PD + {cc} has {x_paper:g}× lower mean QCT than PD + DCTCP at 95 % (§5.3)",
                f"{x_paper:g}×",
                x_paper,
                quotient(
                    at("PD", "qct_mean_ms", cc="DCTCP", load=_HI),
                    at("PD", "qct_mean_ms", cc=cc, load=_HI),
                    f"mean QCT, PD+DCTCP / PD+{cc}",
                ),
                HIGHER,
                why=f"PD + {cc}'s queries still take several ms (responses are paced by the "
                f"{cc} window), while PD + DCTCP's mean is set by 10 ms timeouts; " + _WHY_WINDOW,
            ),
            Claim(
                f"…because PD + {cc} drops {drops_paper:g}× fewer packets than PD + DCTCP (§5.3)",
                f"{drops_paper:g}×",
                drops_paper,
                _drops_fewer(cc),
                HIGHER,
                why=_drops_fewer_why(cc),
            ),
        )
    ],
    *[
        _times_lower(
            f"With Swift at 95 % PD finishes queries {x_paper:g}× faster than {base} (§1)",
            x_paper,
            "PD",
            base,
            "qct_mean_ms",
            lambda m, base=base: (
                _SWIFT_WHY[base] + "; " + _drops(m, (base, "PD"), cc="Swift", load=_HI)
            ),
            cc="Swift",
            load=_HI,
        )
        for base, x_paper in (("ECMP", 2.0), ("AIFO", 9.0), ("DIBS", 3.0))
    ],
    *[
        _pct_claim(
            f"PD + {cc} has {pct:g} % lower p99 FCT than ECMP + {cc} at 95 % (§5.3)",
            pct,
            "PD",
            "ECMP",
            "fct_p99_ms",
            lambda m, cc=cc: _drops(m, ("ECMP", "PD"), cc=cc, load=_HI),
            cc=cc,
            load=_HI,
        )
        for cc, pct in (("Swift", 52.0), ("Bolt", 35.0))
    ],
    Claim(
        "With Swift and Bolt, Distribution-PD is as effective as Quantile-PD at 95 % (§5.3)",
        "≈1×",
        1.0,
        about(
            lambda m: [
                _qct("Distribution-PD", "PD", cc=cc, load=_HI)(m) for cc in ("Swift", "Bolt")
            ],
            "mean QCT, Distribution-PD / PD, Swift and Bolt",
        ),
        ABOUT,
        2.0,
        why="the two relative-priority estimates deflect different packets; single-seed runs",
    ),
    Claim(
        "With TCP and DCTCP, Distribution-PD is slower than Quantile-PD under load (§5.3)",
        "higher",
        None,
        several(
            lambda m: [
                _qct("Distribution-PD", "PD", cc=cc, load=_HI)(m) for cc in ("TCP", "DCTCP")
            ],
            "mean QCT at 95 %, Distribution-PD / PD, TCP and DCTCP",
            every=False,
        ),
        HIGHER,
        why=lambda m: (
            "both estimates deflect and drop a similar share here ("
            + _drops(m, ("PD", "Distribution-PD"), cc="DCTCP", load=_HI)
            + "), and QCTs are set by the same timeouts"
        ),
    ),
    _pct_claim(
        "With Swift at 55 % SD has 36 % lower p99 QCT than ECMP (§5 summary)",
        36.0,
        "SD",
        "ECMP",
        "qct_p99_ms",
        lambda m: (
            "ECMP's p99 is a 10 ms timeout or more while SD loses nothing; "
            + _drops(m, ("ECMP", "SD"), cc="Swift", load=_LO)
        ),
        cc="Swift",
        load=_LO,
    ),
    *[
        _times_lower(
            f"With Swift at {ld:.0f} % {scheme} has {x_paper:g}× lower p99 QCT than {base} "
            "(§5 summary)",
            x_paper,
            scheme,
            base,
            "qct_p99_ms",
            "hopsim's AIFO refuses by rank quantile and a response's first packets carry its "
            "largest remaining size, so whole windows are refused and recovered by stacked "
            "timeouts; how many stack up sets the tail",
            cc="Swift",
            load=ld,
        )
        for scheme, base, x_paper, ld in (("SD", "AIFO", 16.0, _LO), ("PD", "AIFO", 15.0, _HI))
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
    n = get(m, "PD", "elephants_finished", cc="DCTCP", load=hi)
    gain = 100 * (div(a, b) - 1)
    text = (
        f"{fmt(abs(gain), '{:.0f}')} % {'higher' if gain > 0 else 'lower'} (PD / Vertigo "
        f"goodput, {n:.0f} elephants)"
    )
    return Measure(gain, text)


def _goodput_why(m: pd.DataFrame) -> str:
    hi = _top_load(m)
    a = get(m, "PD", "elephant_goodput_gbps", cc="DCTCP", load=hi)
    b = get(m, "Vertigo", "elephant_goodput_gbps", cc="DCTCP", load=hi)
    n = get(m, "PD", "elephants_finished", cc="DCTCP", load=hi)
    return (
        f"the {n:.0f} elephants (web search flows >= 10 MB) reach {fmt(a)} Gb/s under PD and "
        f"{fmt(b)} Gb/s under Vertigo: their 10 Gb/s host link and the background they share "
        "it with set their rate; hopsim's Vertigo ejects queued packets only from full ports, "
        "which elephants rarely meet, so it does not throttle them as the paper describes"
    )


def _goodputs(a: str, b: str) -> Callable[[pd.DataFrame], list[float]]:
    return lambda m: [
        _qct(a, b, "elephant_goodput_gbps", cc=cc, load=ld)(m)
        for cc in ("DCTCP", "Swift")
        for ld in _loads(m)
    ]


_FIG7_CLAIMS = [
    Claim(
        "PD improves the goodput of >= 10 MB flows by 20 % over Vertigo (DCTCP, 95 %; §5.3)",
        "20 % higher",
        20.0,
        _goodput_gain,
        PCT,
        why=_goodput_why,
    ),
    Claim(
        "PD's elephant goodput is consistently above Vertigo's (DCTCP and Swift, every load; "
        "Fig 7)",
        "higher everywhere",
        None,
        several(_goodputs("PD", "Vertigo"), "PD / Vertigo goodput", pick="min"),
        HIGHER,
        why=_goodput_why,
    ),
    Claim(
        "SD's elephant goodput parallels DIBS's (§5.3)",
        "≈1×",
        1.0,
        about(_goodputs("SD", "DIBS"), "SD / DIBS"),
        ABOUT,
        2.0,
        why="SD and DIBS differ only in which free port they deflect to",
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


def _reorder_cases(m: pd.DataFrame) -> dict[str, float]:
    return {
        f"{cc} {ld:.0f} %": _qct("PD", "Vertigo", "reorder_pct", cc=cc, load=ld)(m)
        for cc in CCS
        for ld in _loads(m)
    }


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
        f"; Vertigo with {q['cc']} at {q['load']:.0f} % reorders {q['reorder_pct']:.1f} % "
        f"with only {q['deflections']:.0f} deflections"
    )


def _vertigo_over_ecmp(m: pd.DataFrame) -> Measure:
    v = get(m, "Vertigo", "reorder_pct", cc="DCTCP", load=_HI)
    ecmp = get(m, "ECMP", "reorder_pct", cc="DCTCP", load=_HI)
    x = div(v, ecmp) if ecmp > 0 else (math.inf if v > 0 else math.nan)
    return Measure(x, f"Vertigo {fmt(v)} %, ECMP {fmt(ecmp)} %")


def _vertigo_over_ecmp_why(m: pd.DataFrame) -> str:
    if get(m, "ECMP", "reorder_pct", cc="DCTCP", load=_HI) == 0:
        return (
            "per-flow ECMP never reorders in hopsim and resends are not counted as reordering "
            "(the paper's ECMP shows some), so the ratio has no magnitude"
        )
    return "hopsim counts first transmissions arriving below the highest byte received"


_FIG8_CLAIMS = [
    Claim(
        "PD reorders less than Vertigo (DCTCP, 95 %: 2.4× vs 3.3× ECMP's; §5.3)",
        "0.73× (2.4 / 3.3)",
        2.4 / 3.3,
        quotient(
            at("PD", "reorder_pct", cc="DCTCP", load=_HI),
            at("Vertigo", "reorder_pct", cc="DCTCP", load=_HI),
            "reordered %, PD / Vertigo",
        ),
        LOWER,
        why=lambda m: (
            "much of Vertigo's and PD's reordering comes from per-packet power-of-two "
            "load balancing, not from deflection or SRPT queues" + _least_deflecting_vertigo(m)
        ),
    ),
    Claim(
        "…with every CC and load (Fig 8)",
        "lower everywhere",
        None,
        several(
            lambda m: [x for x in _reorder_cases(m).values() if math.isfinite(x)],
            "PD / Vertigo",
            pick="max",
        ),
        LOWER,
        why=lambda m: (
            "PD reorders as much as Vertigo or more with "
            + (
                ", ".join(k for k, x in _reorder_cases(m).items() if math.isfinite(x) and x >= 1)
                or "-"
            )
            + ": where both deflect heavily, deflection, not Vertigo's SRPT queue, sets the "
            "reordering" + _least_deflecting_vertigo(m)
        ),
    ),
    Claim(
        "Deflection increases reordering: Vertigo 3.3× ECMP's (DCTCP, 95 %; §5.3)",
        "3.3×",
        3.3,
        _vertigo_over_ecmp,
        HIGHER,
        why=_vertigo_over_ecmp_why,
    ),
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


def _sd_by_scale(m: pd.DataFrame) -> dict[float, float]:
    scales = sorted(m["scale"].dropna().unique()) if "scale" in m else []
    return {s: _qct("SD", "ECMP", scale=s)(m) for s in scales}


def _sd_breaks(m: pd.DataFrame) -> Measure:
    at_scale = _sd_by_scale(m)
    below = [v for s, v in at_scale.items() if s <= 150]
    above = [v for s, v in at_scale.items() if s > 150]
    text = "mean QCT SD / ECMP: " + ", ".join(f"{s:.0f}: {fmt(v)}" for s, v in at_scale.items())
    checked = (1 / max(below), max(above)) if below and above else ()
    return Measure(max(above) if above else math.nan, text, checked)


def _at_top(m: pd.DataFrame) -> str:
    return _drops(m, ("ECMP", "DIBS", "PD"), scale=_TOP)


_FIG9_CLAIMS = [
    _times_lower(
        f"At the largest scale (paper 450, here {_TOP} requests per query) PD has 2× "
        "lower p99 FCT (responses) than ECMP (§5.3)",
        2.0,
        "PD",
        "ECMP",
        "incast_fct_p99_ms",
        lambda m: _at_top(m) + "; " + _WHY_NO_BOOST,
        scale=_TOP,
    ),
    _times_lower(
        "…and 4× lower than DIBS (§5.3)",
        4.0,
        "PD",
        "DIBS",
        "incast_fct_p99_ms",
        lambda m: (
            "hopsim's DIBS does not collapse at this scale (the bounced packets find "
            "room); " + _at_top(m) + "; " + _WHY_NO_BOOST
        ),
        scale=_TOP,
    ),
    Claim(
        "Simple Deflection breaks as the scale goes over 150 requests per query (§5.3)",
        "SD < ECMP up to 150, > ECMP above",
        None,
        _sd_breaks,
        HIGHER,
        why=lambda m: (
            "SD stays below ECMP at every scale: its deflected packets find room at "
            "the spines while ECMP's drop-tail losses at the client's port cost 10 ms timeouts; "
            + _drops(m, ("ECMP", "SD"), scale=_TOP)
            + " at the largest scale"
        ),
    ),
    _pct_claim(
        f"At the largest scale (here {_TOP}) Quantile-PD finishes queries 34 % faster "
        "than Distribution-PD (§5.3)",
        34.0,
        "PD",
        "Distribution-PD",
        "qct_mean_ms",
        lambda m: (
            "both estimates deflect and drop a similar share ("
            + _drops(m, ("PD", "Distribution-PD"), scale=_TOP)
            + ") and QCTs are set by the same timeouts"
        ),
        scale=_TOP,
    ),
    *[
        _pct_claim(
            f"With 100 KB responses PD has {pct:g} % lower p99 QCT than {base} (§5.3)",
            pct,
            "PD",
            base,
            "qct_p99_ms",
            lambda m, base=base: _drops(m, (base, "PD"), size_kb=100) + "; " + _WHY_NO_BOOST,
            size_kb=100,
        )
        for base, pct in (("ECMP", 28.0), ("DIBS", 24.0))
    ],
    Claim(
        f"Above 100 KB responses (here {_BIG} KB) PD is slower than ECMP: background "
        "flows outrank the responses (§5.3)",
        "higher",
        None,
        quotient(
            at("PD", "qct_mean_ms", size_kb=_BIG),
            at("ECMP", "qct_mean_ms", size_kb=_BIG),
            "mean QCT, PD / ECMP",
        ),
        HIGHER,
        why=lambda m: (
            "ECMP's drop-tail losses at the client's port grow with the response "
            "size too and cost 10 ms timeouts, so PD's de-prioritised responses still finish "
            "first; " + _drops(m, ("ECMP", "PD"), size_kb=_BIG)
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


def _fig10_why_pd(m: pd.DataFrame) -> str:
    return _why_drops(m, ("SD", "PD"), load=_HI) + "; " + _WHY_NO_BOOST


def _fig10_why_aifo(m: pd.DataFrame) -> str:
    return (
        "hopsim's AIFO refuses the responses' first packets (their largest remaining size, top "
        "quantile) at the client's ToR, so responses recover by stacked 10 ms timeouts; "
        + _drops(m, ("ECMP", "AIFO"), load=_LO)
    )


_FIG10_CLAIMS = [
    _pct_claim(
        "k=8 fat-tree: PD has 33 % lower mean QCT than SD at 95 % (§5.3)",
        33.0,
        "PD",
        "SD",
        "qct_mean_ms",
        _fig10_why_pd,
        load=_HI,
    ),
    _pct_claim(
        "…and 42 % lower p99 QCT (§5.3)", 42.0, "PD", "SD", "qct_p99_ms", _fig10_why_pd, load=_HI
    ),
    *[
        Claim(
            f"AIFO completes queries {x_paper:g}× slower than {base} at 55 % (§5.3)",
            f"{x_paper:g}×",
            x_paper,
            quotient(
                at("AIFO", "qct_mean_ms", load=_LO),
                at(base, "qct_mean_ms", load=_LO),
                f"mean QCT, AIFO / {base}",
            ),
            HIGHER,
            why=_fig10_why_aifo,
        )
        for base, x_paper in (("ECMP", 3.0), ("PD", 10.0))
    ],
    *[
        _times_lower(
            f"Unlike on the leaf-spine, {s} has 2× lower p99 QCT than ECMP at 95 % (§5.3)",
            2.0,
            s,
            "ECMP",
            "qct_p99_ms",
            lambda m, s=s: _drops(m, ("ECMP", s), load=_HI) + "; " + _WHY_WINDOW,
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


def _pd_drops(m: pd.DataFrame) -> str:
    return (
        "with Swift PD "
        + _drops(m, ("PD",), cc="Swift", load=_HI100).replace("packets dropped: PD ", "drops ")
        + " of packets, with DCTCP "
        + _drops(m, ("PD",), cc="DCTCP", load=_HI100).replace("packets dropped: PD ", "")
        + "; at 100 Gb/s a query takes ~0.4 ms without loss and its p99 is one 10 ms "
        "timeout under either"
    )


_FIG11_CLAIMS = [
    *[
        _times_lower(
            f"100 Gb/s: with Swift at 85 % PD has {x:g}× lower mean QCT than {base} (§5.3)",
            x,
            "PD",
            base,
            "qct_mean_ms",
            lambda m, base=base: (
                _drops(m, (base, "PD"), cc="Swift", load=_HI100)
                + "; at 100 Gb/s a query's responses take ~0.4 ms without loss, so one 10 ms "
                "timeout dominates a mean, and which scheme loses a few packets decides the ratio"
            ),
            cc="Swift",
            load=_HI100,
        )
        for base, x in (("ECMP", 6.0), ("AIFO", 18.0), ("SD", 7.0))
    ],
    Claim(
        "At low burstiness (55 %) SD defuses bursts: lower mean QCT than ECMP (DCTCP, Swift)",
        "lower",
        None,
        several(
            lambda m: [_qct("SD", "ECMP", cc=cc, load=_LO)(m) for cc in ("DCTCP", "Swift")],
            "mean QCT, SD / ECMP",
            pick="max",
        ),
        LOWER,
        why=lambda m: _drops(m, ("ECMP", "SD"), cc="DCTCP", load=_LO),
    ),
    Claim(
        "SD performs like DIBS at 100 Gb/s (§5.3)",
        "≈1×",
        1.0,
        about(
            lambda m: [
                _qct("SD", "DIBS", cc=cc, load=ld)(m)
                for cc in ("DCTCP", "Swift")
                for ld in (_LO, _HI100)
            ],
            "mean QCT, SD / DIBS",
        ),
        ABOUT,
        2.0,
        why="SD and DIBS differ only in which free port they deflect to",
    ),
    *[
        Claim(
            f"PD + Swift has {pct:g} % lower {what} QCT than PD + DCTCP at 85 % (App. F)",
            f"{pct:g} % lower",
            pct,
            change(
                at("PD", col, cc="Swift", load=_HI100),
                at("PD", col, cc="DCTCP", load=_HI100),
                lambda a, b: f"Swift {fmt(a)} ms, DCTCP {fmt(b)} ms",
            ),
            PCT,
            why=_pd_drops,
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


def _fig12_tail(m: pd.DataFrame) -> str:
    tails = m.loc[m["load"] == _HI, "qct_p99_ms"].dropna() if "load" in m else pd.Series()
    if not len(tails):
        return _WHY_NO_BOOST
    return (
        f"at 95 % the p99 QCT is {fmt(float(tails.median()), '{:.0f}')} ms for most settings "
        f"({fmt_range(list(tails), '{:.0f}')} ms), i.e. stacked 10 + 20 ms timeouts of resent "
        "segments, which α, window and sampling barely change; " + _WHY_NO_BOOST
    )


_FEW_QUERIES = (
    "one seed and a few tens of queries at 55 %: a couple of 10 ms timeouts move the mean"
)


def _spread(values: Callable[[pd.DataFrame], list[float]]) -> Callable[[pd.DataFrame], float]:
    def spread(m: pd.DataFrame) -> float:
        fin = [w for w in values(m) if math.isfinite(w)]
        return max(fin) / min(fin) if len(fin) > 1 and min(fin) > 0 else math.nan

    return spread


def _windows_spread(m: pd.DataFrame) -> Measure:
    x = _spread(lambda m: [_val("window", w, _LO, "qct_mean_ms")(m) for w in _FIG12["window"]])(m)
    return Measure(x, f"max/min mean QCT over windows 5–50: {fmt(x)}×")


def _sampling_spread(m: pd.DataFrame) -> Measure:
    spreads = []
    for ld in _loads(m):
        xs = [_val("sample_every", e, ld, "qct_mean_ms")(m) for e in _FIG12["sample_every"]]
        s = _spread(lambda m, xs=xs: xs)(m)
        if math.isfinite(s):
            spreads.append(s)
    shown = f"max/min mean QCT over 1, 20, 100 packets per sample: {fmt_range(spreads)}× per load"
    return Measure(max(spreads) if spreads else math.nan, shown)


def _vs(a: float, b: float) -> str:
    return f"{fmt(a)} vs {fmt(b)} ms"


_FIG12_CLAIMS = [
    *[
        Claim(
            f"At 55 % α = 0.1 gives {pct:g} % lower mean QCT than α = {other:g} (§5.4)",
            f"{pct:g} % lower",
            pct,
            change(
                _val("alpha", 0.1, _LO, "qct_mean_ms"),
                _val("alpha", other, _LO, "qct_mean_ms"),
                _vs,
            ),
            PCT,
            why=_FEW_QUERIES,
        )
        for other, pct in ((0.0, 19.0), (1.0, 71.0))
    ],
    Claim(
        "At 95 % α = 0.5 gives 50 % lower p99 QCT than α = 0.1 (§5.4)",
        "50 % lower",
        50.0,
        change(_val("alpha", 0.5, _HI, "qct_p99_ms"), _val("alpha", 0.1, _HI, "qct_p99_ms"), _vs),
        PCT,
        why=_fig12_tail,
    ),
    Claim(
        "At 95 % a larger quantile window helps (window 50 vs 5, p99 QCT; §5.4)",
        "lower",
        None,
        quotient(
            _val("window", 50, _HI, "qct_p99_ms"),
            _val("window", 5, _HI, "qct_p99_ms"),
            "p99 QCT, window 50 / window 5",
        ),
        LOWER,
        why=_fig12_tail,
    ),
    Claim(
        "At 55 % QCT has converged once the window is above 5 packets (§5.4)",
        "flat (max/min ≈ 1)",
        1.0,
        _windows_spread,
        FLAT,
        1.5,
        why=_FEW_QUERIES,
    ),
    Claim(
        "The sampling rate has a marginal effect on QCT (§5.4)",
        "flat (max/min ≈ 1)",
        1.0,
        _sampling_spread,
        FLAT,
        1.5,
        why=_FEW_QUERIES,
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


def _fig13_facts(m: pd.DataFrame, ld: float) -> str:
    return ", ".join(
        f"{s} {fmt(get(m, s, 'deflections', load=ld), '{:.0f}')} deflections, "
        f"{fmt(get(m, s, 'drop_pct', load=ld), '{:.1f}')} % dropped"
        for s in ("deterministic", "probabilistic")
    )


def _fig13_why(m: pd.DataFrame) -> str:
    return (
        "hopsim's probabilistic rule (as the artifact: above min_th = 75 KB, probability "
        "α·R·(q − min_th)/(Q − min_th), so at most 10 %) deflects and drops about as often as "
        f"the deterministic one ({_fig13_facts(m, _HI)}); both tails are the same stacked "
        "timeouts. " + _WHY_WINDOW
    )


_FIG13_CLAIMS = [
    *[
        _times_lower(
            f"The deterministic rule has {x:g}× lower {what} QCT than the probabilistic one at "
            "95 % (§6)",
            x,
            "deterministic",
            "probabilistic",
            col,
            _fig13_why,
            load=_HI,
        )
        for col, what, x in (("qct_mean_ms", "mean", 2.7), ("qct_p99_ms", "p99", 2.3))
    ],
    Claim(
        "…and both perform alike at low load (55 %; §6)",
        "≈1×",
        1.0,
        about(
            lambda m: [_qct("probabilistic", "deterministic", load=_LO)(m)],
            "mean QCT, probabilistic / deterministic",
        ),
        ABOUT,
        2.0,
        why=lambda m: (
            f"at 55 % ({_fig13_facts(m, _LO)}) a few tens of queries per run: a "
            "couple of 10 ms timeouts move the mean"
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


def _gap(s: str, us: float) -> Callable[[pd.DataFrame], float]:
    return at(s, "qct_mean_ms", interval_us=us, load=_HI)


def _worst_over_live(intervals: tuple[float, ...], what: str) -> Selector:
    def measure(m: pd.DataFrame) -> Measure:
        xs = [_gap("PD", u)(m) for u in intervals]
        worst = div(max(xs), _gap("PD", 0.0)(m)) if all(map(math.isfinite, xs)) else math.nan
        return Measure(worst, f"{fmt(worst)}× (worst mean QCT at {what} / at 0)")

    return measure


def _stale_sd(m: pd.DataFrame) -> str:
    means = ", ".join(f"{u} µs: {fmt(_gap('SD', u)(m), '{:.1f}')} ms" for u in _FIG14_INTERVALS)
    dropped = ", ".join(
        f"{u:g} µs: {fmt(get(m, 'SD', 'drop_pct', interval_us=u, load=_HI), '{:.1f}')} %"
        for u in (0.0, 1.0)
    )
    return f"mean QCT {means}; dropped {dropped}"


_FIG14_CLAIMS = [
    Claim(
        "PD's QCT stays steady while the update gap is below 2 µs (95 %; §6)",
        "flat (≈1×)",
        1.0,
        _worst_over_live((1.0, 2.0), "1–2 µs"),
        FLAT,
        1.5,
        why=_WHY_WINDOW,
    ),
    Claim(
        "Beyond 2 µs PD degrades (5–10 µs against live queues, 95 %; §6)",
        "higher",
        None,
        _worst_over_live((5.0, 10.0), "5–10 µs"),
        HIGHER,
        why=lambda m: (
            "with a stale view PD deflects and preemptively drops less (preemptive "
            f"drops {fmt(get(m, 'PD', 'drops_rank', interval_us=0.0, load=_HI), '{:.0f}')} live, "
            f"{fmt(get(m, 'PD', 'drops_rank', interval_us=10.0, load=_HI), '{:.0f}')} at 10 µs), "
            "which offsets its later reaction here"
        ),
    ),
    Claim(
        "Simple Deflection with a stale congested-port bitmap (the paper's Fig 14 shows PD only)",
        "-",
        None,
        text(_stale_sd),
        NEW,
        why="SD marks a port congested only when it is full: a copy even 1 µs old shows a "
        "full incast port as having room, so packets go to it and are dropped instead of "
        "deflected, and SD falls back to ECMP's timeouts",
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
        return Measure(v, f"{fmt(v, '{:.1f}')} ms")

    return measure


def _absolute(s: str) -> Claim:
    paper = 1e3 * TABLE1_PAPER[s][-1]
    return Claim(
        f"{s}'s p99 QCT at 95 % (Table 1, absolute)",
        f"{paper:.0f} ms",
        paper,
        _ms_at(s),
        ABSOLUTE,
        why=lambda m: (
            "absolute QCTs depend on the arrival window (here far shorter than the "
            "artifact's ~340 ms) and on what hopsim leaves out (250 B requests, handshakes, "
            "~20 µs server delay, the 64 KB receive window); " + _drops(m, (s,), load=_HI)
        ),
    )


_TABLE1_CLAIMS = [
    *[
        _pct_claim(
            f"With LAS ranks PD has {pct:g} % lower p99 QCT than {base} at 95 % (App. A)",
            pct,
            "PD-LAS",
            base,
            "qct_p99_ms",
            lambda m, base=base: (
                _drops(m, (base, "PD-LAS"), load=_HI)
                + (
                    "; hopsim's DIBS does not collapse (the paper's DIBS p99 is 281 ms)"
                    if base == "DIBS"
                    else ""
                )
                + "; "
                + _WHY_NO_BOOST
            ),
            load=_HI,
        )
        for base, pct in (("ECMP", 33.0), ("DIBS", 73.0), ("AIFO", 88.0))
    ],
    Claim(
        "LAS ranks serve PD about as well as SRPT ranks (95 %: 0.076 vs 0.086 s; App. A)",
        "0.88×",
        0.076 / 0.086,
        quotient(
            at("PD-LAS", "qct_p99_ms", load=_HI),
            at("PD-SRPT", "qct_p99_ms", load=_HI),
            "p99 QCT, PD-LAS / PD-SRPT",
        ),
        ABOUT,
        2.0,
        why=lambda m: _drops(m, ("PD-SRPT", "PD-LAS"), load=_HI),
    ),
    *[_absolute(s) for s in ("ECMP", "Vertigo", "PD-SRPT")],
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
            + _drops(m, ("ECMP", "PD"), cc=cc, load=ld)
            + ")"
            for ld in _loads(m)
        )

    return describe


_ROCE_CLAIMS = [
    Claim(
        "Preemptive Deflection over TCP DCTCP: QCT of PD / ECMP (no PFC)",
        "-",
        None,
        text(_pd_over_ecmp("TCP DCTCP")),
        NEW,
        why="no claim in the paper; the TCP baseline of this experiment",
    ),
    Claim(
        "Preemptive Deflection over RoCE DCQCN+IRN: QCT of PD / ECMP (no PFC)",
        "-",
        None,
        text(_pd_over_ecmp("RoCE DCQCN+IRN")),
        NEW,
        why="no claim in the paper. PD runs without the ordering layer (IRN takes "
        "out-of-order packets) and with IRN's BDP window; IRN's 100 / 320 µs timeouts "
        "(IRN paper, for 40 Gb/s) are shorter than a full 300 KB queue at 10 Gb/s "
        "(240 µs), so queueing and deflection detours trigger spurious resends",
    ),
]


# ---------------------------------------------------------------- the paper


PAPER = Paper(
    name="deflection",
    title="Practical Packet Deflection in Datacenters",
    source="shared/papers/practical-deflection.md",
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
