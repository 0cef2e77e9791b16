"""The Proteus paper's large-scale evaluation (Hu et al., "Load Balancing in PFC-Enabled
Datacenter Networks"), experiment by experiment, on its 8 × 8 leaf-spine of 128 hosts at
100 Gb/s with 12 MB buffers, PFC and DCQCN (``scenarios/proteus/leafspine.toml``, which
says what hopsim chose where the paper is silent):

- §V-B, Fig 10: average and p99 FCT of Proteus and its baselines (ECMP, CONGA, DRILL,
  Hermes, MP-RDMA) as the load grows, under Web Search and Web Server (``full`` adds Cache
  Follower and Data Mining);
- Fig 11: the p99 slowdown of small flows (< 100 KB) at load 0.6;
- §V-C, Fig 12: the share of flows held behind a PAUSE they did not cause (HoL-blocked) and
  of packets delivered out of order, at load 0.6;
- §II-C, Fig 5: CONGA, DRILL and Hermes with and without PFC at load 0.7;
- Fig 13: Proteus's sensitivity to RTT_low and to the number of alternative paths;
- beyond the paper: Proteus and DRILL under Pyrrha's flow control instead of PFC.

Loads are fractions of the fabric (the leaf uplinks): each host link carries half of it on
this 2:1 topology (see the scenario file). ``quick`` offers 4 ms of arrivals, ``full`` 10 ms.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from hopsim.reproduce.claims import (
    ABOVE,
    AT_MOST,
    LARGER,
    MORE,
    NEW,
    OPPOSITE,
    ROUGHLY,
    SAME,
    Claim,
    Measure,
    Tolerance,
    Why,
    falls_short,
    lower_by,
    ratio,
    several,
    text,
)
from hopsim.reproduce.figures import bars, by_x, palette
from hopsim.reproduce.framework import Paper, Run, Variant, experiment
from hopsim.reproduce.stats import counters, div, fmt, get, table

# ---------------------------------------------------------------- schemes and settings

#: The load balancers compared, as scenario overrides. Every RoCE baseline gets the
#: receiver reorder buffer the paper gives it (§V); Proteus runs without one. MP-RDMA is its
#: own transport (virtual paths by source port under ECMP, its own ECN window, so no DCQCN)
#: with Δ = 128 packets, enough for this fabric's bandwidth-delay product (about 112 packets
#: of 1000 B at 100 Gb/s over a 9 µs base RTT; hopsim's default 64 would cap one flow at
#: about half the line rate).
_REORDER = {"transport.reorder_buffer.enabled": True}
SCHEMES: dict[str, dict[str, Any]] = {
    "ECMP": {"routing.load_balancer": "ecmp", **_REORDER},
    "CONGA": {"routing.load_balancer": "conga", **_REORDER},
    "DRILL": {"routing.load_balancer": "drill", **_REORDER},
    "Hermes": {"routing.load_balancer": "hermes", **_REORDER},
    "MP-RDMA": {
        "routing.load_balancer": "ecmp",
        "transport.kind": "mp_rdma",
        "transport.cc": "none",
        "transport.mp_rdma.delta": 128,
    },
    "Proteus": {"routing.load_balancer": "proteus"},
}
_COLORS = palette(list(SCHEMES))
BASELINES = ("CONGA", "DRILL", "Hermes", "MP-RDMA")

#: Workloads by the paper's names: the built-in distribution of each.
WORKLOADS = {
    "WSc": "websearch",
    "WSv": "webserver",
    "CF": "cachefollower",
    "DM": "datamining",
}
#: Arrival window (µs) per mode.
WINDOW_US = {"quick": 4000.0, "full": 10000.0}
#: The load sweep (fractions of the fabric) and the workloads per mode.
LOADS = {"quick": (0.4, 0.6, 0.8), "full": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)}
SWEPT = {"quick": ("WSc", "WSv"), "full": ("WSc", "WSv", "CF", "DM")}
#: Flows below this size are small (Fig 11), above `LARGE` large.
SMALL, LARGE = 100_000, 1_000_000
#: The fabric's oversubscription: a host link carries load / OVERSUB.
OVERSUB = 2.0


def _load(workload: str, load: float, mode: str) -> dict[str, Any]:
    """The Poisson background of `workload` at `load` of the fabric."""
    return {
        "workload": [
            {
                "kind": "poisson",
                "size_dist": WORKLOADS[workload],
                "load": round(load / OVERSUB, 6),
                "stop": f"{WINDOW_US[mode]:g}us",
                "tag": "bg",
            }
        ]
    }


def _group(workload: str, load: float) -> str:
    return f"{workload} {load:g}"


def _fields(group: str) -> dict[str, Any]:
    """The workload and load of a sweep's group (``"WSc 0.6"``); the other experiments'
    groups (``"rtt_low"``, ``"compose"``) name no load."""
    parts = group.split()
    if len(parts) != 2 or parts[0] not in WORKLOADS:
        return {"workload": "WSc", "load": 0.6}
    return {"workload": parts[0], "load": float(parts[1])}


# ---------------------------------------------------------------- analysis


def _stats(run: Run) -> dict[str, Any]:
    """FCT statistics (µs), small flows' p99 slowdown, HoL-blocked and reordering shares,
    and the losses and pauses a note cites."""
    r = run.result
    f = r.flows
    done = f[f["fct_ns"].notna()]
    fct = done["fct_ns"].astype("float64") / 1e3
    slow = (done["fct_ns"].astype("float64") / done["ideal_fct_ns"].astype("float64")).clip(
        lower=1.0
    )
    small = slow[done["size_bytes"] < SMALL]
    large = fct[done["size_bytes"] > LARGE]
    s = r.summary
    frames = s.get("control_frames_sent") or {}
    blocked = f["hol_blocked"] if "hol_blocked" in f else None
    # The leaves' uplinks: how evenly each source ToR spread its bytes (largest over mean,
    # averaged over the ToRs) and the deepest queue any of them held.
    p = r.ports
    up = p[(p["tier"] == "tor") & (p["hop_tier"] == "src_tor")]
    per_tor = up.groupby("node")["tx_bytes"]
    spread = (per_tor.max() / per_tor.mean()).mean() if not up.empty else math.nan

    def q(x: pd.Series, p: float | None = None) -> float:
        if x.empty:
            return math.nan
        return float(x.quantile(p)) if p is not None else float(x.mean())

    return {
        "avg_fct_us": q(fct),
        "p99_fct_us": q(fct, 0.99),
        "small_p99_slowdown": q(small, 0.99),
        "small_avg_us": q(fct[done["size_bytes"] < SMALL]),
        "large_avg_us": q(large),
        "hol_blocked_pct": 100 * float(blocked.mean()) if blocked is not None else math.nan,
        "reordered_pct": 100 * float(s.get("reordering_ratio", math.nan)),
        "reordered_permille": 1000 * float(s.get("reordering_ratio", math.nan)),
        "uplink_spread": float(spread),
        "uplink_max_queue_kb": float(up["max_queue_bytes"].max()) / 1e3 if not up.empty else 0.0,
        "paused_ms": float(p["paused_time_ns"].sum()) / 1e6,
        "flows": int(len(f)),
        "unfinished": int(f["fct_ns"].isna().sum()),
        "drops": int(s.get("drops", 0)),
        "pause_frames": int(sum(v for k, v in frames.items() if k.endswith("_pause"))),
    }


def _table(runs: list[Run]) -> pd.DataFrame:
    return table(runs, _stats, _fields)


_LOSSES = (
    ("unfinished", "unfinished flows"),
    ("paused_ms", "paused port-ms"),
    ("drops", "drops"),
    ("pause_frames", "PAUSE frames"),
    ("flows", "flows"),
)


def _facts(*schemes: str) -> Any:
    return lambda m: counters(m, schemes, _LOSSES)


def _draw_load(metrics: pd.DataFrame, runs: list[Run], path: Path, title: str = "") -> None:
    cols = [("avg_fct_us", "average FCT (µs)"), ("p99_fct_us", "p99 FCT (µs)")]
    by_x(
        metrics,
        path,
        "load",
        cols,
        "Fig 10: FCT against load (fraction of the fabric), 8 × 8 leaf-spine",
        facet="workload",
        xlabel="load",
        colors=_COLORS,
    )


def _draw_bars(cols: list[tuple[str, str]], title: str):
    def draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
        bars(metrics, path, cols, title, colors=_COLORS)

    return draw


# ---------------------------------------------------------------- variants


def _sweep_variants(mode: str) -> list[Variant]:
    out = []
    for w in SWEPT[mode]:
        for load in LOADS[mode]:
            for s, o in SCHEMES.items():
                out.append(Variant(s, {**_load(w, load, mode), **o}, _group(w, load)))
    return out


def _fig5_variants(mode: str) -> list[Variant]:
    out = []
    for w in ("WSv", "WSc"):
        for s in ("CONGA", "DRILL", "Hermes"):
            for pfc in (True, False):
                label = s if pfc else f"{s}, no PFC"
                over = {**_load(w, 0.7, mode), **SCHEMES[s]}
                if not pfc:
                    over["switch.pfc.enabled"] = False
                out.append(Variant(label, over, _group(w, 0.7)))
    return out


#: Fig 13's settings: RTT_low as a multiple of the one-way base delay, and the number of
#: alternative paths a packet carries (the paper's recommended values: 1.2-1.4, 3).
RTT_LOW = (1.1, 1.2, 1.3, 1.4, 1.6)
ALTERNATIVES = (1, 2, 3, 4)  # hopsim's header holds at most 4


def _fig13_variants(mode: str) -> list[Variant]:
    base = {**_load("WSc", 0.6, mode), **SCHEMES["Proteus"]}
    out = [
        Variant(f"RTT_low {x:g}×", {**base, "routing.proteus.rtt_low_factor": x}, "rtt_low")
        for x in RTT_LOW
    ]
    out += [
        Variant(f"{n} alternatives", {**base, "routing.proteus.alternatives": n}, "alternatives")
        for n in ALTERNATIVES
    ]
    return out


def _compose_variants(mode: str) -> list[Variant]:
    """Proteus and DRILL over PFC, and over Pyrrha with IRN recovery: Pyrrha is not
    lossless (its paper's "Handling rare packet loss": the shared buffer can overflow, IRN
    recovers), and IRN keeps DRILL's reordered packets without a reorder buffer."""
    load = _load("WSc", 0.6, mode)
    pyrrha = {"switch.flow_control": {"kind": "pyrrha"}, "transport.loss_recovery": "irn"}
    drill = {"routing.load_balancer": "drill"}
    return [
        Variant("Proteus + PFC", {**load, **SCHEMES["Proteus"]}, "compose"),
        Variant("Proteus + Pyrrha", {**load, **SCHEMES["Proteus"], **pyrrha}, "compose"),
        Variant("DRILL + PFC", {**load, **SCHEMES["DRILL"]}, "compose"),
        Variant("DRILL + Pyrrha", {**load, **drill, **pyrrha}, "compose"),
    ]


#: Preemptive Deflection's lossy setting (the deflection paper's RoCE reading, as
#: `hopsim reproduce deflection`'s ``roce`` experiment runs it): no PFC, PD at every switch,
#: IRN's selective resends for what is still dropped.
_PD_LOSSY = {
    "switch.pfc.enabled": False,
    "switch.deflection": {"kind": "preemptive"},
    "transport.loss_recovery": "irn",
}
#: PD's own pairing in its paper: per-packet power of two choices without memory.
_DRILL_2_0 = {"routing.load_balancer": "drill", "routing.drill": {"samples": 2, "memory": 0}}


def _compose_pd_variants(mode: str) -> list[Variant]:
    """Proteus, ECMP and PD's own DRILL(2, 0) over Preemptive Deflection's lossy fabric,
    beside Proteus over PFC."""
    load = _load("WSc", 0.6, mode)
    return [
        Variant("Proteus + PFC", {**load, **SCHEMES["Proteus"]}, "compose PD"),
        Variant("Proteus + PD", {**load, **SCHEMES["Proteus"], **_PD_LOSSY}, "compose PD"),
        Variant("ECMP + PD", {**load, "routing.load_balancer": "ecmp", **_PD_LOSSY}, "compose PD"),
        Variant("DRILL(2,0) + PD", {**load, **_DRILL_2_0, **_PD_LOSSY}, "compose PD"),
    ]


# ---------------------------------------------------------------- §V-A: the testbed's shape

#: The schemes of the testbed (§V-A compares ECMP, CONGA and DRILL with Proteus).
TESTBED_SCHEMES = ("ECMP", "CONGA", "DRILL", "Proteus")
#: Arrival window (µs) per mode on the 8-server testbed (its flows are few per ms).
TB_WINDOW_US = {"quick": 20000.0, "full": 100000.0}
#: Fig 8's loads (fractions of the fabric), Fig 9 (a, b)'s link speeds (Gb/s) at 0.7 and
#: Fig 9 (c, d)'s inter-arrival times of the bursts (µs) at 40 Gb/s and 0.7.
TB_LOADS = {"quick": (0.5, 0.7, 0.9), "full": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)}
LINK_GBPS = (10, 25, 40, 100)
BURST_US = {"quick": (10, 20, 50, 100), "full": (10, 20, 50, 100, 200)}
#: The bursts' share of the receiver's link when their inter-arrival time is not set (a
#: round of four 8 KB flows every 26 µs at 40 Gb/s; see ``testbed.toml``).
BURST_SHARE = 0.25


def _testbed(
    mode: str, load: float = 0.7, gbps: int = 40, burst_us: float | None = None
) -> dict[str, Any]:
    """The testbed's Web Search at `load` of the fabric and its bursts into server 0, every
    link at `gbps`; the bursts at `BURST_SHARE` of the receiver's link, or every `burst_us`."""
    stop = f"{TB_WINDOW_US[mode]:g}us"
    burst: dict[str, Any] = {
        "kind": "incast",
        "receiver": 0,
        "senders": [4, 5, 6, 7],
        "fan_in": 4,
        "size_min": "8KB",
        "size_max": "8KB",
        "stop": stop,
        "tag": "burst",
    }
    if burst_us is None:
        burst["load"] = BURST_SHARE
    else:
        burst["period"] = f"{burst_us:g}us"
    bg = {
        "kind": "poisson",
        "size_dist": "websearch",
        "load": round(load / OVERSUB, 6),
        "stop": stop,
        "tag": "bg",
    }
    rate = f"{gbps}Gbps"
    return {"workload": [bg, burst], "topology.host_rate": rate, "topology.fabric_rate": rate}


def _tb_fields(group: str) -> dict[str, Any]:
    """The setting a testbed group names: ``"load 0.7"``, ``"10 Gbps"`` or ``"burst 20 µs"``."""
    kind, _, value = group.partition(" ")
    if kind == "load":
        return {"load": float(value), "link_gbps": 40, "burst_us": math.nan}
    if kind == "burst":
        return {"load": 0.7, "link_gbps": 40, "burst_us": float(value.split()[0])}
    return {"load": 0.7, "link_gbps": int(kind), "burst_us": math.nan}


def _tb_table(runs: list[Run]) -> pd.DataFrame:
    return table(runs, _stats, _tb_fields)


def _fig8_variants(mode: str) -> list[Variant]:
    return [
        Variant(s, {**_testbed(mode, load=x), **SCHEMES[s]}, f"load {x:g}")
        for x in TB_LOADS[mode]
        for s in TESTBED_SCHEMES
    ]


def _fig9_variants(mode: str) -> list[Variant]:
    out = [
        Variant(s, {**_testbed(mode, gbps=g), **SCHEMES[s]}, f"{g} Gbps")
        for g in LINK_GBPS
        for s in TESTBED_SCHEMES
    ]
    out += [
        Variant(s, {**_testbed(mode, burst_us=b), **SCHEMES[s]}, f"burst {b:g} µs")
        for b in BURST_US[mode]
        for s in TESTBED_SCHEMES
    ]
    return out


def _draw_testbed(x: str, xlabel: str, title: str):
    def draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
        m = metrics[metrics[x].notna()] if x in metrics else metrics
        cols = [("avg_fct_us", "average FCT (µs)"), ("p99_fct_us", "p99 FCT (µs)")]
        by_x(m, path, x, cols, title, xlabel=xlabel, colors=_COLORS)

    return draw


def _draw_fig9(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    speeds = metrics[metrics["burst_us"].isna()]
    bursts = metrics[metrics["burst_us"].notna()]
    title = "Fig 9: FCT against link speed (a, b) and the bursts' inter-arrival time (c, d)"
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.2, 5.4), layout="constrained")
    axes = fig.subplots(2, 2, squeeze=False)
    cols = [("avg_fct_us", "average FCT (µs)"), ("p99_fct_us", "p99 FCT (µs)")]
    for j, (d, x, xlabel) in enumerate(
        ((speeds, "link_gbps", "link speed (Gb/s)"), (bursts, "burst_us", "burst interval (µs)"))
    ):
        d = d[d["status"].isin(["ok", "incomplete"])]
        for i, (col, label) in enumerate(cols):
            ax = axes[i][j]
            for s, ds in d.groupby("scheme", sort=False):
                if col in ds:
                    ds = ds.sort_values(x)
                    ax.plot(ds[x], ds[col], marker="o", ms=3, label=s, color=_COLORS(s))
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(xlabel, fontsize=8)
            ax.set_ylabel(label, fontsize=8)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.savefig(path)


def _tb_groups(m: pd.DataFrame, which: str) -> list[str]:
    """The testbed groups of a sweep (``"load"``, ``"speed"``, ``"burst"``), or the one
    group named `which`, in run order."""
    tests = {
        "load": lambda g: g.startswith("load "),
        "speed": lambda g: g.endswith(" Gbps"),
        "burst": lambda g: g.startswith("burst "),
    }
    test = tests.get(which, lambda g: g == which)
    return [g for g in m["group"].unique() if test(str(g))]


def _tb_best(num: str, dens: tuple[str, ...], col: str, which: str) -> Any:
    """The largest gap of `num` below any of `dens` (as den / num) over the testbed groups
    `which` (see `_tb_groups`)."""

    def measure(m: pd.DataFrame) -> Measure:
        best, where = math.nan, ""
        for g in _tb_groups(m, which):
            for d in dens:
                a, b = get(m, num, col, group=g), get(m, d, col, group=g)
                if a > 0 and b > 0 and not (b / a <= best):
                    best, where = b / a, f"{d} at {g}"
        shown = f"{fmt(best)}× ({where}, {col})" if where else "not measured"
        return Measure.of(best, shown)

    return measure


def _tb_lowest(col: str, which: str, what: str) -> Any:
    """Per testbed group: the lowest `col` of the other schemes over Proteus's."""
    others = [s for s in TESTBED_SCHEMES if s != "Proteus"]
    return several(
        lambda m: [
            (g, min(get(m, s, col, group=g) for s in others) / get(m, "Proteus", col, group=g))
            for g in _tb_groups(m, which)
        ],
        f"{what}: the best other scheme's / Proteus's",
    )


def _tb_facts(which: str) -> Any:
    """Measured, per testbed group: each scheme's PAUSE frames, HoL-blocked flows and
    unfinished flows."""

    def facts(m: pd.DataFrame) -> str:
        out = []
        for g in _tb_groups(m, which):
            row = ", ".join(
                f"{s} {fmt(get(m, s, 'pause_frames', group=g), '{:,.0f}')} / "
                f"{fmt(get(m, s, 'hol_blocked_pct', group=g), '{:.1f}')} % / "
                f"{fmt(get(m, s, 'unfinished', group=g), '{:,.0f}')}"
                for s in TESTBED_SCHEMES
            )
            out.append(f"{g}: {row}")
        return "PAUSE frames, % of flows HoL-blocked, unfinished flows: " + "; ".join(out)

    return facts


def _conga_at_low_speed(m: pd.DataFrame) -> Measure:
    """CONGA's average FCT over Proteus's at 10 Gb/s, relative to the same at 100 Gb/s."""

    def gap(g: str) -> float:
        return div(get(m, "CONGA", "avg_fct_us", group=g), get(m, "Proteus", "avg_fct_us", group=g))

    lo, hi = gap("10 Gbps"), gap("100 Gbps")
    x = div(lo, hi)
    return Measure.of(
        x,
        f"{fmt(x)}× (CONGA / Proteus average FCT: {fmt(lo)}× at 10 Gb/s, {fmt(hi)}× at 100 Gb/s)",
    )


def _rarest_bursts(m: pd.DataFrame) -> list[tuple[str, float]]:
    """CONGA's and DRILL's average FCT over Proteus's at the longest burst interval."""
    groups = _tb_groups(m, "burst")
    if not groups:
        return []
    g = groups[-1]
    return [
        (s, div(get(m, s, "avg_fct_us", group=g), get(m, "Proteus", "avg_fct_us", group=g)))
        for s in ("CONGA", "DRILL")
    ]


_TB_WHY_PROTEUS = (
    "PFC hardly fires in this setting (facts: PAUSE frames per scheme): with 22 MB per "
    "switch, eight servers and DCQCN, PFC's threshold (1/8 of the free buffer, about 2.7 MB "
    "per ingress) is out of reach of the bursts, which the paper does not describe (hopsim's "
    "4 × 8 KB rounds; tried by hand, rounds of 28 × 200 KB from all seven other servers gave "
    "1-24 PAUSE frames in 20 ms). The balancers then differ by path choice alone, where "
    "DRILL's per-packet and CONGA's flowlet choices lose nothing to Proteus's; at 100 G, where "
    "PFC does fire, Proteus's path state herds flows as at scale (Fig 10's rows)"
)

_FIG8_CLAIMS = [
    Claim(
        "On the testbed, Proteus's average FCT is 2-3× lower than ECMP's as the load grows",
        "§V-A, Fig 8a",
        "2-3× lower",
        (2.0, 3.0),
        _tb_best("Proteus", ("ECMP",), "avg_fct_us", "load"),
        MORE,
        why=Why(_tb_facts("load"), falls_short(_TB_WHY_PROTEUS)),
    ),
    Claim(
        "On the testbed, Proteus's average FCT at 0.7 is up to 37 % lower than CONGA's",
        "§V-A, Fig 8a",
        "37 % lower",
        lower_by(37),
        ratio("CONGA", "Proteus", "avg_fct_us", "average FCT, CONGA / Proteus", group="load 0.7"),
        MORE,
        why=Why(_tb_facts("load 0.7"), falls_short(_TB_WHY_PROTEUS)),
    ),
    Claim(
        "On the testbed, Proteus's average FCT is up to 30 % lower than DRILL's",
        "§V-A, Fig 8a",
        "30 % lower",
        lower_by(30),
        _tb_best("Proteus", ("DRILL",), "avg_fct_us", "load"),
        MORE,
        why=Why(_tb_facts("load"), falls_short(_TB_WHY_PROTEUS)),
    ),
    Claim(
        "On the testbed, Proteus lowers small flows' (< 100 KB) average FCT by up to 1.8×",
        "§V-A, Fig 8b",
        "1.8× lower",
        1.8,
        _tb_best("Proteus", ("CONGA", "DRILL"), "small_avg_us", "load"),
        MORE,
        why=Why(_tb_facts("load"), falls_short(_TB_WHY_PROTEUS)),
    ),
    Claim(
        "On the testbed, Proteus lowers large flows' (> 1 MB) average FCT by up to 51 %",
        "§V-A, Fig 8c",
        "51 % lower",
        lower_by(51),
        _tb_best("Proteus", ("CONGA", "DRILL"), "large_avg_us", "load"),
        MORE,
        why=Why(_tb_facts("load"), falls_short(_TB_WHY_PROTEUS)),
    ),
    Claim(
        "On the testbed, Proteus has the lowest p99 FCT at every load",
        "§V-A, Fig 8d",
        "lowest",
        None,
        _tb_lowest("p99_fct_us", "load", "p99 FCT"),
        MORE,
        why=Why(_tb_facts("load"), {OPPOSITE: _TB_WHY_PROTEUS}),
    ),
]

_FIG9_CLAIMS = (
    [
        Claim(
            "CONGA deteriorates at low link speeds: its gap to Proteus is larger at 10 Gb/s than "
            "at 100 Gb/s",
            "§V-A, Fig 9a",
            "larger at 10 G",
            None,
            _conga_at_low_speed,
            MORE,
            why=Why(_tb_facts("speed")),
        ),
        Claim(
            "At 10 Gb/s, Proteus's average FCT is up to 20 % lower than DRILL's",
            "§V-A, Fig 9a",
            "20 % lower",
            lower_by(20),
            ratio(
                "DRILL", "Proteus", "avg_fct_us", "average FCT, DRILL / Proteus", group="10 Gbps"
            ),
            MORE,
            why=Why(_tb_facts("10 Gbps"), falls_short(_TB_WHY_PROTEUS)),
        ),
        Claim(
            "At 10 Gb/s, Proteus's p99 FCT is up to 23 % lower than DRILL's",
            "§V-A, Fig 9b",
            "23 % lower",
            lower_by(23),
            ratio("DRILL", "Proteus", "p99_fct_us", "p99 FCT, DRILL / Proteus", group="10 Gbps"),
            MORE,
            why=Why(_tb_facts("10 Gbps"), falls_short(_TB_WHY_PROTEUS)),
        ),
        Claim(
            "Proteus has the lowest average FCT at every link speed",
            "§V-A, Fig 9a",
            "lowest",
            None,
            _tb_lowest("avg_fct_us", "speed", "average FCT"),
            MORE,
            why=Why(_tb_facts("speed"), {OPPOSITE: _TB_WHY_PROTEUS}),
        ),
    ]
    + [
        Claim(
            f"With bursts every 10 µs, Proteus's {what} FCT is almost 2× lower than CONGA's",
            f"§V-A, Fig 9{panel}",
            "≈ 2× lower",
            2.0,
            ratio("CONGA", "Proteus", col, f"{what} FCT, CONGA / Proteus", group="burst 10 µs"),
            MORE,
            why=Why(_tb_facts("burst 10 µs"), falls_short(_TB_WHY_PROTEUS)),
        )
        for col, what, panel in (("avg_fct_us", "average", "c"), ("p99_fct_us", "p99", "d"))
    ]
    + [
        Claim(
            "With rarer bursts, Proteus's average FCT comes close to CONGA's and DRILL's",
            "§V-A, Fig 9c",
            "similar",
            None,
            several(_rarest_bursts, "average FCT over Proteus's at the rarest bursts"),
            SAME,
            tolerance=ROUGHLY,
            why=Why(_tb_facts("burst")),
        ),
    ]
)

# ---------------------------------------------------------------- §II: the motivation cases

#: Hosts of `scenarios/proteus/fig1_clos.txt`: S1 and the background sender on L1, the
#: background receiver on a leaf wired to C1 only, S2 on a leaf wired to C2 only, R1, R2 and
#: 14 burst senders on L3.
S1, BG, BG_DST, S2, R1, R2 = 0, 1, 3, 4, 5, 6
L3_SENDERS = tuple(range(7, 21))
#: The cases (§II-B, §II-D): f1's size, the bursts' start, how many flows of 200 KB S2 and the
#: 14 hosts under L3 send, in how many rounds (0: spread evenly, "continuously", over 10 ms),
#: and a bound on the run.
CASES = {
    "CONGA case": {"f1": 20e6, "start_ms": 1.0, "s2": 42, "l3": 588, "rounds": 5, "ms": 60},
    "Hermes case": {"f1": 120e6, "start_ms": 10.0, "s2": 45, "l3": 635, "rounds": 0, "ms": 100},
    "DRILL case": {"f1": 20e6, "start_ms": 1.0, "s2": 26, "l3": 56, "rounds": 5, "ms": 60},
    "kick-out case": {"f1": 250e6, "start_ms": 9.0, "s2": 2, "l3": 28, "rounds": 1, "ms": 160},
}
#: f1 starts after the background has loaded Path1's first link (the paper: the background
#: "makes the existing load balancing treat Path1 worse than Path2" when f1 starts).
F1_START_US = 500.0
#: Rounds of a case's bursts are this far apart (the paper: "intermittently"; its f1 of
#: 20 MB lasts about 4 ms at 40 Gb/s).
ROUND_GAP_MS = 1.0
MOTIVATION_SCHEMES = ("ECMP", "CONGA", "DRILL", "Hermes", "Proteus", "Ideal")


def _motivation_flows(case: dict[str, Any]) -> list[dict[str, Any]]:
    """f1, the background flow on Path1's first link and the case's bursts into R2."""
    flows: list[dict[str, Any]] = [
        {"src": S1, "dst": R1, "size": int(case["f1"]), "start": f"{F1_START_US:g}us", "tag": "f1"}
    ]
    flows.append({"src": BG, "dst": BG_DST, "size": 1_000_000_000, "start": "0us", "tag": "bg"})
    senders = [S2] * case["s2"]
    per_host = case["l3"] // len(L3_SENDERS)
    senders += [h for h in L3_SENDERS for _ in range(per_host)]
    n = len(senders)
    for i, src in enumerate(senders):
        if case["rounds"]:
            at_ms = case["start_ms"] + (i % case["rounds"]) * ROUND_GAP_MS
        else:
            at_ms = case["start_ms"] + 10.0 * i / n
        flows.append(
            {
                "src": src,
                "dst": R2,
                "size": 200_000,
                "start": f"{at_ms * 1e3:.3f}us",
                "tag": "burst",
            }
        )
    return flows


def _motivation_variants(mode: str) -> list[Variant]:
    out = []
    for name, case in CASES.items():
        base = {
            "workload": [{"kind": "flows", "flows": _motivation_flows(case)}],
            "duration": f"{case['ms']}ms",
        }
        for s in MOTIVATION_SCHEMES:
            if s == "Ideal":
                over = {
                    **base,
                    "topology.file": "fig1_clos_one_path.txt",
                    "routing.load_balancer": "ecmp",
                }
            else:
                over = {**base, **SCHEMES[s]}
                over.pop("transport.reorder_buffer.enabled", None)
                if s in ("DRILL",):
                    over["transport.reorder_buffer.enabled"] = True
            out.append(Variant(s, over, name))
    return out


def _motivation_stats(run: Run) -> dict[str, Any]:
    r = run.result
    f = r.flows
    f1 = f[f["tag"] == "f1"]["fct_ns"].astype("float64")
    bursts = f[f["tag"] == "burst"]["fct_ns"].astype("float64")
    frames = r.summary.get("control_frames_sent") or {}
    return {
        "f1_fct_ms": float(f1.iloc[0]) / 1e6 if len(f1) and pd.notna(f1.iloc[0]) else math.nan,
        "burst_avg_us": float(bursts.mean()) / 1e3 if bursts.notna().any() else math.nan,
        "pause_frames": int(sum(v for k, v in frames.items() if k.endswith("_pause"))),
        "drops": int(r.summary.get("drops", 0)),
    }


def _motivation_table(runs: list[Run]) -> pd.DataFrame:
    return table(runs, _motivation_stats)


def _motivation_facts(m: pd.DataFrame) -> str:
    """Measured, per case: f1's FCT under each scheme, and the range of PAUSE frames the
    schemes' runs sent (how hard the case's bursts pause the fabric)."""

    def pauses(g: str) -> str:
        measured = (get(m, s, "pause_frames", group=g) for s in MOTIVATION_SCHEMES)
        n = [int(x) for x in measured if not math.isnan(x)]
        return f"{min(n):,}–{max(n):,} PAUSE frames" if n else "PAUSE frames not measured"

    return "; ".join(
        f"{g}: "
        + ", ".join(
            f"{s} {fmt(get(m, s, 'f1_fct_ms', group=g), '{:.2f}')}" for s in MOTIVATION_SCHEMES
        )
        + f" ms, {pauses(g)}"
        for g in m["group"].unique()
    )


#: Why a §II case may not show the paper's gap here (hypotheses; the facts are measured).
_CASE_WHY = {
    "DRILL case": "this case's 82 bursts (16.4 MB in five rounds) barely pause C2 here (its "
    "PAUSE frames against the CONGA case's, measured above): Path2 stays the better path, every "
    "adaptive balancer finishes f1 in the same time and no foresight helps; the paper's bursts "
    "pause C2 at every round (its burst timing within a round is not given)",
    "Hermes case": "bursts spread evenly over 10 ms pause Path2 throughout while the "
    "background keeps Path1 busy (Path1 alone takes about as long as staying on Path2): no "
    "path is clearly better, and Proteus's feedback-driven moves between them cost f1 more "
    "than Hermes's later, single move",
}


def _f1_claim(case: str, base: str, pct: float, statement: str, section: str) -> Claim:
    return Claim(
        statement,
        section,
        f"{pct:g} % lower",
        lower_by(pct),
        ratio(base, "Proteus", "f1_fct_ms", f"f1's FCT, {base} / Proteus", group=case),
        MORE,
        why=Why(_motivation_facts, {OPPOSITE: _CASE_WHY.get(case, "")}),
    )


_MOTIVATION_CLAIMS = [
    _f1_claim(
        "CONGA case",
        "CONGA",
        39,
        "CONGA case: Proteus finishes the victim f1 39 % sooner than CONGA",
        "§II-B, Fig 2d; §V-B",
    ),
    _f1_claim(
        "Hermes case",
        "Hermes",
        21,
        "Hermes case: Proteus finishes the victim f1 21 % sooner than Hermes",
        "§II-B, Fig 3d; §V-B",
    ),
    _f1_claim(
        "DRILL case",
        "DRILL",
        34,
        "DRILL case: Proteus finishes the victim f1 34 % sooner than DRILL",
        "§II-B, Fig 4d; §V-B",
    ),
    Claim(
        "DRILL case: the ideal path (Path1, no PFC) cuts f1's FCT by up to 49 % against DRILL",
        "§II-B, Fig 4d",
        "49 % lower",
        lower_by(49),
        ratio("DRILL", "Ideal", "f1_fct_ms", "f1's FCT, DRILL / Path1 only", group="DRILL case"),
        MORE,
        why=Why(_motivation_facts, {OPPOSITE: _CASE_WHY["DRILL case"]}),
    ),
    Claim(
        "Hermes case: rerouting with foresight beats Hermes by up to 26 %",
        "§II-B, Fig 3d",
        "26 % lower",
        lower_by(26),
        ratio("Hermes", "Ideal", "f1_fct_ms", "f1's FCT, Hermes / Path1 only", group="Hermes case"),
        MORE,
        why=Why(_motivation_facts, {OPPOSITE: _CASE_WHY["Hermes case"]}),
    ),
    Claim(
        "Kick-out case: leaving the briefly paused Path2 for Path1 makes f1 53 % slower than "
        "CONGA staying on it",
        "§II-D, Fig 6b",
        "53 % higher",
        1.53,
        ratio("Ideal", "CONGA", "f1_fct_ms", "f1's FCT, Path1 only / CONGA", group="kick-out case"),
        MORE,
        why=Why(_motivation_facts),
    ),
]


# ---------------------------------------------------------------- claims


def _uplinks(*schemes: str, workload: str = "WSc") -> Any:
    """Measured: each scheme's uplink spread, deepest uplink queue and PAUSE frames, at
    the sweep's loads of `workload`."""

    def facts(m: pd.DataFrame) -> str:
        sel = m[m["workload"] == workload] if "workload" in m else m.iloc[:0]
        out = []
        for g in sel["group"].unique():
            row = ", ".join(
                f"{s} {fmt(get(sel, s, 'uplink_spread', group=g))} / "
                f"{fmt(get(sel, s, 'uplink_max_queue_kb', group=g), '{:,.0f}')} KB / "
                f"{fmt(get(sel, s, 'pause_frames', group=g), '{:,.0f}')}"
                for s in schemes
            )
            out.append(f"{g}: {row}")
        return (
            "uplink bytes largest / mean per ToR, deepest uplink queue, PAUSE frames: "
            + "; ".join(out)
        )

    return facts


#: Why Proteus falls short of CONGA and Hermes here (a hypothesis, with the measurement
#: that supports it in each row's facts).
_HERDING = (
    "Proteus's state is remote: a source ToR learns a path's delay from the destination "
    "ToR's feedback, one window (10 µs) and a round trip late, and every new flow in between "
    "takes the same least-delay path; its uplinks are the least evenly loaded of the "
    "balancers and hold the deepest queues (facts), so PFC fires more. CONGA's DRE is local "
    "and rises with every packet the ToR sends; Hermes moves flows only off bad paths"
)
_MP_RDMA = (
    "MP-RDMA brings its own congestion control (a per-path ECN window, no DCQCN): its "
    "queues stay short and it sends no PAUSE (facts), where every DCQCN scheme here lets "
    "line-rate starts build queues until PFC fires. The comparison is of transports more "
    "than of load balancers; the paper's MP-RDMA runs may have used other window settings"
)
_DRILL_WORSE = (
    "per-packet spraying over 8 uplinks reorders up to a third of the packets; the "
    "64-packet reorder buffer overflows and go-back-N resends, which adds load and PAUSEs"
)


def _at_top(workload: str, mode: str) -> str:
    return _group(workload, LOADS[mode][-1])


def _headline(col: str, pcts: tuple[float, ...], stat: str, fig: str) -> list[Claim]:
    """Proteus's `col` below each baseline's by the paper's percentage, under Web Search
    at the sweep's highest load (the paper's "up to" is its largest gap over the loads)."""
    out = []
    for base, pct in zip(BASELINES, pcts):
        out.append(
            Claim(
                f"Proteus's {stat} FCT under Web Search is up to {pct:g} % lower than {base}'s",
                f"§V-B, {fig}",
                f"{pct:g} % lower",
                lower_by(pct),
                _best_gap("Proteus", base, col, "WSc"),
                MORE,
                why=Why(
                    _uplinks("Proteus", base),
                    {
                        OPPOSITE: _MP_RDMA if base == "MP-RDMA" else _HERDING,
                        LARGER: _DRILL_WORSE if base == "DRILL" else "",
                    },
                ),
            )
        )
    return out


def _best_gap(num: str, den: str, col: str, workload: str):
    """The largest gap of `num` below `den` (as den / num) over the loads of `workload`."""

    def measure(m: pd.DataFrame) -> Measure:
        sel = m[m["workload"] == workload] if "workload" in m else m.iloc[:0]
        best, where = math.nan, ""
        for g in sel["group"].unique():
            a, b = get(sel, num, col, group=g), get(sel, den, col, group=g)
            if a > 0 and b > 0 and not (b / a <= best):
                best, where = b / a, g
        shown = f"{fmt(best)}× at {where}" if where else "not measured"
        return Measure.of(best, f"{shown} ({den} / {num}, {col})")

    return measure


_FIG10_CLAIMS = _headline("avg_fct_us", (35, 31, 28, 22), "average", "Fig 10") + _headline(
    "p99_fct_us", (46, 42, 34, 29), "p99", "Fig 10"
)

_FIG11_CLAIMS = [
    Claim(
        f"Under Web Server at 0.6, Proteus's p99 slowdown of small flows is {x:g}× lower than "
        f"{base}'s",
        "§V-B, Fig 11",
        f"{x:g}× lower",
        x,
        ratio(
            base,
            "Proteus",
            "small_p99_slowdown",
            f"small p99 slowdown, {base} / Proteus",
            group=_group("WSv", 0.6),
        ),
        MORE,
        why=Why(
            _uplinks("Proteus", base, workload="WSv"),
            {OPPOSITE: _MP_RDMA if base == "MP-RDMA" else _HERDING},
        ),
    )
    for base, x in zip(BASELINES, (1.7, 2.0, 3.3, 2.8))
]


def _proteus_at_06(col: str, what: str, spec: str) -> Any:
    """Proteus's `col` in every workload's group at load 0.6, each value checked."""
    return several(
        lambda m: [
            (g, get(m, "Proteus", col, group=g)) for g in m["group"].unique() if g.endswith(" 0.6")
        ],
        f"{what} under Proteus, at 0.6",
        spec,
    )


_FIG12_CLAIMS = [
    Claim(
        "Proteus leaves no flow HoL-blocked under any workload",
        "§V-C, Fig 12a",
        "≈ 0 %",
        None,
        _proteus_at_06("hol_blocked_pct", "% of flows HoL-blocked", "{:.1f} %"),
        AT_MOST,
        tolerance=Tolerance(1.0, "'without victim flows': read as at most 1 % of flows"),
        why=Why(
            lambda m: (
                "% of flows HoL-blocked at WSc 0.6: "
                + ", ".join(
                    f"{s} {fmt(get(m, s, 'hol_blocked_pct', group='WSc 0.6'), '{:.1f}')}"
                    for s in SCHEMES
                )
            ),
            {
                ABOVE: "not none: Proteus's own PAUSEs "
                "(its herding, see Fig 10's rows) hold some flows; hopsim counts a flow held "
                "5 µs or more behind any PAUSE (docs/model.md), culprits included"
            },
        ),
    ),
    Claim(
        "Proteus delivers (almost) every packet in order",
        "§V-C, Fig 12b",
        "≈ 0 %",
        None,
        _proteus_at_06("reordered_permille", "‰ of packets out of order", "{:.1f} ‰"),
        AT_MOST,
        tolerance=Tolerance(1.0, "'effectively avoids packet reordering': at most 1 ‰ (0.1 %)"),
        why=Why(
            _facts("Proteus"),
            {
                ABOVE: "Algorithm 2 reroutes a packet at a paused hop while the packets "
                "queued ahead of it wait out the pause, so it can arrive first; and Algorithm "
                "1's order test compares window-averaged delays, which the worst-case bound "
                "narrows but cannot make safe (docs/model.md)"
            },
        ),
    ),
    Claim(
        "DRILL, switching per packet, reorders more packets than Proteus",
        "§V-C, Fig 12b",
        "none",
        None,
        ratio(
            "DRILL",
            "Proteus",
            "reordered_pct",
            "reordered packets, DRILL / Proteus",
            group=_group("WSc", 0.6),
        ),
        MORE,
        why=Why(_facts("DRILL", "Proteus")),
    ),
    Claim(
        "Fewer flows are HoL-blocked under Proteus than under CONGA",
        "§V-C, Fig 12a",
        "none",
        None,
        ratio(
            "CONGA",
            "Proteus",
            "hol_blocked_pct",
            "HoL-blocked flows, CONGA / Proteus",
            group=_group("WSc", 0.6),
        ),
        MORE,
        why=Why(_facts("CONGA", "Proteus")),
    ),
]

_FIG5_CLAIMS = [
    Claim(
        f"With PFC, {s}'s {what} FCT under Web Search is higher than without (up to "
        f"{pct} % for the worst scheme)",
        "§II-C, Fig 5",
        "higher",
        None,
        ratio(
            s, f"{s}, no PFC", col, f"{what} FCT, {s} with / without PFC", group=_group("WSc", 0.7)
        ),
        MORE,
        why=Why(
            _facts(s, f"{s}, no PFC"),
            {
                OPPOSITE: "without PFC the same bursts are dropped (facts) and go-back-N "
                "resends from each loss, which costs about what PFC's pauses cost here: "
                "DCQCN keeps PFC to short pauses at this load"
            },
        ),
    )
    for s in ("CONGA", "DRILL", "Hermes")
    for col, what, pct in (("avg_fct_us", "average", 35), ("p99_fct_us", "p99", 46))
]

_STABLE = Tolerance(
    1.25,
    "'relatively stable around the recommended values': read as every setting within 25 % "
    "of the recommended one's p99",
)
_FIG13_CLAIMS = [
    Claim(
        "Proteus's p99 FCT is relatively stable around RTT_low's recommended 1.2-1.4×",
        "§V-C, Fig 13a",
        "stable",
        None,
        several(
            lambda m: [
                (s, get(m, s, "p99_fct_us") / get(m, "RTT_low 1.3×", "p99_fct_us"))
                for s in (f"RTT_low {x:g}×" for x in (1.2, 1.4))
            ],
            "p99 FCT over RTT_low 1.3×'s",
        ),
        SAME,
        tolerance=_STABLE,
        why=Why(lambda m: _sweep_text(m, "rtt_low")),
    ),
    Claim(
        "Three alternative paths are enough: a fourth does not lower Proteus's p99 FCT much",
        "§V-C, Fig 13b",
        "stable from 3",
        None,
        several(
            lambda m: [
                (s, get(m, s, "p99_fct_us") / get(m, "3 alternatives", "p99_fct_us"))
                for s in ("4 alternatives",)
            ],
            "p99 FCT over 3 alternatives'",
        ),
        SAME,
        tolerance=_STABLE,
        why=Why(lambda m: _sweep_text(m, "alternatives")),
    ),
]


def _sweep_text(m: pd.DataFrame, group: str) -> str:
    sel = m[m["group"] == group]
    return "p99 FCT: " + ", ".join(
        f"{s} {fmt(get(sel, s, 'p99_fct_us'), '{:.0f}')} µs" for s in sel["scheme"]
    )


_COMPOSE_CLAIMS = [
    Claim(
        f"{lb} runs under Pyrrha's flow control (with IRN) instead of PFC (Web Search, 0.6)",
        "beyond the paper",
        "none",
        None,
        text(
            lambda m, lb=lb: (
                f"{lb} + Pyrrha: avg {fmt(get(m, f'{lb} + Pyrrha', 'avg_fct_us'), '{:.0f}')} µs, "
                f"p99 {fmt(get(m, f'{lb} + Pyrrha', 'p99_fct_us'), '{:.0f}')} µs; "
                f"+ PFC: avg {fmt(get(m, f'{lb} + PFC', 'avg_fct_us'), '{:.0f}')} µs, "
                f"p99 {fmt(get(m, f'{lb} + PFC', 'p99_fct_us'), '{:.0f}')} µs; HoL-blocked "
                f"{fmt(get(m, f'{lb} + Pyrrha', 'hol_blocked_pct'), '{:.1f}')} % against "
                f"{fmt(get(m, f'{lb} + PFC', 'hol_blocked_pct'), '{:.1f}')} %; Pyrrha drops "
                f"{fmt(get(m, f'{lb} + Pyrrha', 'drops'), '{:,.0f}')} packets (IRN resends)"
            )
        ),
        NEW,
        why=Why(_facts(f"{lb} + Pyrrha", f"{lb} + PFC")),
    )
    for lb in ("Proteus", "DRILL")
]


def _pd_text(m: pd.DataFrame) -> str:
    def one(s: str) -> str:
        return (
            f"{s}: avg {fmt(get(m, s, 'avg_fct_us'), '{:.0f}')} µs, p99 "
            f"{fmt(get(m, s, 'p99_fct_us'), '{:.0f}')} µs, small p99 slowdown "
            f"{fmt(get(m, s, 'small_p99_slowdown'), '{:.1f}')}, drops "
            f"{fmt(get(m, s, 'drops'), '{:,.0f}')}, reordered "
            f"{fmt(get(m, s, 'reordered_pct'), '{:.2f}')} %"
        )

    schemes = ("Proteus + PD", "ECMP + PD", "DRILL(2,0) + PD", "Proteus + PFC")
    return "; ".join(one(s) for s in schemes)


_COMPOSE_PD_CLAIMS = [
    Claim(
        "Proteus runs over Preemptive Deflection's lossy fabric (no PFC, IRN) instead of PFC "
        "(Web Search, 0.6)",
        "beyond the paper",
        "none",
        None,
        text(_pd_text),
        NEW,
        why=Why(
            "hypothesis: without PFC Proteus's Algorithm 2 (rerouting at a paused hop) never "
            "fires; only its path choice at the source ToR acts, and PD deflects or drops at "
            "full ports beneath it"
        ),
    ),
]

# ---------------------------------------------------------------- the paper

PAPER = Paper(
    name="proteus",
    title="Load Balancing in PFC-Enabled Datacenter Networks (Proteus)",
    source="Jinbin Hu et al., IEEE/ACM Transactions on Networking",
    analyze=_table,
    draw=_draw_bars(
        [("avg_fct_us", "average FCT (µs)"), ("p99_fct_us", "p99 FCT (µs)")], "FCT per scheme"
    ),
    experiments=[
        experiment(
            "motivation",
            "Figs 2-4, 6",
            "§II-B, §II-D",
            "the victim f1 beside bursts on the Fig 1 Clos: the CONGA, Hermes, DRILL and "
            "kick-out cases, each balancer and the ideal path",
            "CONGA, Hermes and DRILL each send f1 onto the paused path; Proteus finishes it "
            "39 / 21 / 34 % sooner; kicking out a briefly paused path costs 53 %",
            "motivation.toml",
            _motivation_variants,
            _MOTIVATION_CLAIMS,
            analyze=_motivation_table,
            draw=_draw_bars([("f1_fct_ms", "f1's FCT (ms)")], "§II: the victim flow f1"),
        ),
        experiment(
            "fig10_load",
            "Figs 10-12",
            "§V-B, §V-C",
            "FCT against load; small flows' p99 slowdown, HoL-blocked flows and reordering at 0.6",
            "Proteus has the lowest average and p99 FCT at every load (Web Search: 35 / 31 / "
            "28 / 22 % lower average and 46 / 42 / 34 / 29 % lower p99 than CONGA / DRILL / "
            "Hermes / MP-RDMA), no HoL-blocked flows and almost no reordering",
            "leafspine.toml",
            _sweep_variants,
            _FIG10_CLAIMS + _FIG11_CLAIMS + _FIG12_CLAIMS,
            draw=_draw_load,
        ),
        experiment(
            "fig5_pfc",
            "Fig 5",
            "§II-C",
            "CONGA, DRILL and Hermes with and without PFC at 0.7",
            "every scheme's FCT is higher with PFC; Web Search's average up to 35 % and p99 "
            "up to 46 % higher",
            "leafspine.toml",
            _fig5_variants,
            _FIG5_CLAIMS,
        ),
        experiment(
            "fig13_sensitivity",
            "Fig 13",
            "§V-C",
            "Proteus's sensitivity to RTT_low and to the number of alternative paths",
            "p99 FCT is relatively stable around the recommended RTT_low (1.2-1.4× the base "
            "delay) and from 3 alternative paths on",
            "leafspine.toml",
            _fig13_variants,
            _FIG13_CLAIMS,
            draw=_draw_bars([("p99_fct_us", "p99 FCT (µs)")], "Fig 13: Proteus's parameters"),
        ),
        experiment(
            "fig8_testbed",
            "Fig 8",
            "§V-A",
            "the testbed's shape: Web Search with bursts on 2 × 2 leaf-spine of 8 servers at "
            "40 Gb/s, load swept",
            "Proteus's average FCT is 2-3× below ECMP's, up to 37 % below CONGA's and 30 % "
            "below DRILL's; small flows up to 1.8× faster, large ones up to 51 %",
            "testbed.toml",
            _fig8_variants,
            _FIG8_CLAIMS,
            analyze=_tb_table,
            draw=_draw_testbed("load", "load", "Fig 8: FCT against load, the testbed's shape"),
        ),
        experiment(
            "fig9_testbed",
            "Fig 9",
            "§V-A",
            "the testbed's shape at 0.7: link speed 10-100 Gb/s, and the bursts' inter-arrival "
            "time at 40 Gb/s",
            "CONGA deteriorates at 10 and 25 Gb/s; at 10 Gb/s Proteus is 20 / 23 % below "
            "DRILL (average / p99); with bursts every 10 µs almost 2× below CONGA; with rare "
            "bursts the schemes come close",
            "testbed.toml",
            _fig9_variants,
            _FIG9_CLAIMS,
            analyze=_tb_table,
            draw=_draw_fig9,
        ),
        experiment(
            "compose_deflection",
            "(new)",
            "beyond the paper",
            "Proteus, ECMP and DRILL(2, 0) over Preemptive Deflection's lossy fabric",
            "not in the paper",
            "leafspine.toml",
            _compose_pd_variants,
            _COMPOSE_PD_CLAIMS,
        ),
        experiment(
            "compose_pyrrha",
            "(new)",
            "beyond the paper",
            "Proteus and DRILL under Pyrrha's per-hop flow control",
            "not in the paper",
            "leafspine.toml",
            _compose_variants,
            _COMPOSE_CLAIMS,
        ),
    ],
)

__all__ = ["PAPER", "SCHEMES"]
