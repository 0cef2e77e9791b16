"""The OFC paper's evaluation (Xiao et al., "OFC: an Original congestion-based Fine-grained
Priority Flow Control"), experiment by experiment: Table I / Fig 2 on Fig 1's three-switch
incast (PFC against OFC) and Table II's storage tables from the same runs, Figs 4 and 5 on
a dumbbell of 2 ToRs × 32 servers (incast 4:1 to 10:1), Figs 6 and 7 on a k = 8 fat-tree
(2:1, IMC10 standing in for EDU1 / EDU2), each with FCT and average queue length for PFC,
caPFC, P-PFC, GFC, G-PFC and OFC, Fig 8's sensitivity, and Fig 9's deadlock count on the
CBD leaf-spine (random splits of M = 240 / 400 / 640 flows over the four flow groups).

Scenarios in ``scenarios/ofc/``: ``table1_ofc.toml`` (``table1_pfc.toml`` is the same run
under PFC), ``fig4_incast.toml``, ``fig6_fattree.toml`` and ``fig9_deadlock.toml``; each
says what hopsim chose where the paper is silent. Every scheme shares the paper's thresholds
(§IV-A1: X_OFF 75 KB, X_ON 45 KB, static) through ``[switch.pfc]``; OFC's own defaults are
the same numbers, with X_OFF^c = 0.9 · X_OFF. ``quick`` runs Fig 4 with 2 MB long-lived
flows and 8 burst rounds, the fat-tree with 1 ms of arrivals and Fig 9 with 100 trials per
point; ``full`` runs 4 MB and 20 rounds, 3 ms, and the paper's 1,000 trials per point
(`FIG9_TRIALS`), which run in-process as a `Batch` (no run directories). Fig 8's
sensitivity runs on the dumbbell at 8:1 (the paper uses the fat-tree with EDU1).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pandas as pd

from hopsim.reproduce.claims import (
    ABOVE,
    ABSOLUTE,
    AT_MOST,
    BELOW,
    LESS,
    MAGNITUDE,
    MORE,
    NEW,
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
from hopsim.reproduce.figures import bars, palette
from hopsim.reproduce.framework import Batch, Paper, Run, Variant, experiment
from hopsim.reproduce.stats import counters, div, fmt, get, table

# ---------------------------------------------------------------- schemes

#: The flow controls compared (§IV-A4), each a ``[switch.flow_control]`` table; PFC's own
#: thresholds are the scenario's ``[switch.pfc]`` (75 / 45 KB, static) for every scheme.
FC: dict[str, dict[str, Any]] = {
    "PFC": {"kind": "pfc"},
    "caPFC": {"kind": "capfc"},
    "P-PFC": {"kind": "ppfc"},
    "GFC": {"kind": "gfc"},
    # Every flow of the suite is in hopsim's default class 3; G-PFC's default low classes
    # start at 4, which would make it PFC. The suite makes class 3 low priority, so
    # G-PFC's lower threshold (½ X_OFF) acts on the suite's traffic.
    "G-PFC": {"kind": "gpfc", "low_priority_from": 3},
    "OFC": {"kind": "ofc"},
}
BASELINES = [s for s in FC if s != "OFC"]
_COLORS = palette(list(FC))


def _frames(summary: dict[str, Any]) -> int:
    frames = summary.get("control_frames_sent") or {}
    return int(sum(v for k, v in frames.items() if k.endswith(("_pause", "_rate"))))


# ---------------------------------------------------------------- Table I / Fig 2

_T1_FLOWS = (("F0", "uncongested F0"), ("F1", "congested F1"))


def _table1_variants(mode: str) -> list[Variant]:
    q = {"output.queues": {"interval": "5us"}}
    return [Variant(s, {**q, "switch.flow_control": FC[s]}, "fig1") for s in ("PFC", "OFC")]


def _mean_bytes(samples: pd.DataFrame, end_ns: float, interval_ns: float) -> float:
    """Time-averaged sum of ``bytes`` over the sample instants up to `end_ns` (absent
    samples are empty)."""
    n = max(int(end_ns // interval_ns), 1)
    if samples.empty:
        return 0.0
    return float(samples["bytes"].sum()) / n


def _table1_stats(run: Run) -> dict[str, Any]:
    r = run.result
    f = r.flows
    fct = f["fct_ns"].astype("float64") / 1e6
    tag = f["tag"]
    s = r.summary
    end = float(s.get("sim_time_ns", 0.0))
    interval = float(s.get("queue_sample_interval_ns") or 5000.0)
    bufs = r.buffers
    return {
        "f0_fct_ms": float(fct[tag == "F0"].max()),
        "f1_fct_ms": float(fct[tag == "F1"].max()),
        "max_fct_all_ms": float(fct.max()),
        "max_fct_congested_ms": float(fct[tag != "F0"].max()),
        "mean_burst_fct_us": float(fct[tag == "burst"].mean() * 1e3),
        "unfinished": int(f["finish_ns"].isna().sum()),
        "drops": int(s.get("drops", 0)),
        "pause_frames": _frames(s),
        "max_switch_buffer_kb": s.get("max_switch_buffer_bytes", 0) / 1e3,
        "mean_buffer_kb": _mean_bytes(bufs, end, interval) / 1e3,
        **_table_sizes(s),
    }


#: Table II's three tables (OFC counters ``ofc_<table>_mean_bytes`` / ``_peak_entries``).
TABLES = ("flow_in_port_tab", "congested_flow_tab", "pause_frame_tab")
#: Table II, simulation row (bytes).
TABLE2_PAPER = {"flow_in_port_tab": 425.66, "congested_flow_tab": 142.46, "pause_frame_tab": 276.47}


def _table_sizes(summary: dict[str, Any]) -> dict[str, float]:
    """OFC's table sizes (Table II): time-averaged bytes over every switch port together
    (8 bytes per flow entry) and peak entries; NaN under other schemes."""
    c = summary.get("flow_control_counters") or {}
    out: dict[str, float] = {}
    for t in TABLES:
        out[f"{t}_bytes"] = float(c.get(f"ofc_{t}_mean_bytes", math.nan))
        out[f"{t}_peak"] = float(c.get(f"ofc_{t}_peak_entries", math.nan))
    return out


def _table1_table(runs: list[Run]) -> pd.DataFrame:
    return table(runs, _table1_stats)


def _table1_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    cols = [
        ("f0_fct_ms", "uncongested F0 FCT (ms)"),
        ("max_fct_congested_ms", "max FCT, congested flows (ms)"),
        ("max_fct_all_ms", "max FCT, all flows (ms)"),
        ("mean_buffer_kb", "mean buffer in use, all switches (KB)"),
    ]
    title = "Table I / Fig 2: Fig 1's incast (40 G, 20 ns), PFC against OFC"
    bars(metrics, path, cols, title, log=False, colors=_COLORS)


_T1_LOSSES = (
    ("drops", "drops"),
    ("pause_frames", "pause frames"),
    ("unfinished", "unfinished flows"),
    ("f0_fct_ms", "F0 FCT (ms)"),
    ("f1_fct_ms", "F1 FCT (ms)"),
    ("max_switch_buffer_kb", "peak buffer (KB)"),
)


def _t1_facts(m: pd.DataFrame) -> str:
    return counters(m, ("PFC", "OFC"), _T1_LOSSES, spec="{:,.3g}")


_T1_SAME_RUN = (
    "hopsim's burst sizes are one draw of 0-30 µs bursts (the paper gives neither its draw "
    "nor its run length), and its PFC sends F0 and F1 at equal shares of S_a -> S_b, so the "
    "flows' FCTs sit where that draw puts them"
)


_T1_BUFFER = (
    "OFC does not stop the congested F1 at S_a: its paused packets wait in S_b's backup "
    "queues while F0 keeps S_a -> S_b busy, so buffer moves upstream rather than away; and "
    "the mean is over each run's own length, shorter under OFC"
)


def _t1_pair(
    col: str, what: str, paper: str, value: float | None, section: str, stmt: str
) -> Claim:
    return Claim(
        stmt,
        section,
        paper,
        value,
        ratio("PFC", "OFC", col, f"{what}, PFC / OFC"),
        MORE,
        why=Why(_t1_facts, falls_short(_T1_SAME_RUN)),
    )


_TABLE1_CLAIMS = [
    _t1_pair(
        "f0_fct_ms",
        "uncongested F0's FCT",
        "1.96 vs 1.45 ms (1.35×)",
        1.96 / 1.45,
        "§II-C, Table I, Fig 2a",
        "The uncongested long-lived flow F0 finishes clearly faster under OFC than under PFC",
    ),
    _t1_pair(
        "max_fct_all_ms",
        "max FCT of all flows",
        "1.96 vs 1.69 ms (1.16×)",
        1.96 / 1.69,
        "Table I",
        "The maximum FCT of all flows is lower under OFC than under PFC",
    ),
    _t1_pair(
        "max_fct_congested_ms",
        "max FCT of the congested flows",
        "1.96 vs 1.69 ms (1.16×)",
        1.96 / 1.69,
        "Table I",
        "The maximum FCT of the congested flows is lower under OFC than under PFC",
    ),
    Claim(
        "OFC occupies less buffer than PFC (time-averaged buffer in use, all switches)",
        "§II-C, Fig 2b",
        "none",
        None,
        ratio("PFC", "OFC", "mean_buffer_kb", "mean buffer in use, PFC / OFC"),
        MORE,
        why=Why(_t1_facts, falls_short(_T1_BUFFER)),
    ),
    Claim(
        "OFC occupies less buffer than PFC (peak buffer in use of any switch)",
        "§II-C, Fig 2b",
        "none",
        None,
        ratio("PFC", "OFC", "max_switch_buffer_kb", "peak buffer in use, PFC / OFC"),
        MORE,
        why=Why(_t1_facts, falls_short(_T1_BUFFER)),
    ),
    Claim(
        "OFC stays lossless (drops under OFC)",
        "§III, Table I",
        "0",
        0.0,
        lambda m: Measure.of(
            get(m, "OFC", "drops"), f"{fmt(get(m, 'OFC', 'drops'), '{:.0f}')} drops"
        ),
        ABSOLUTE,
        tolerance=Tolerance(1.0, "lossless: exactly zero drops"),
        why=Why(_t1_facts),
    ),
]


def _t2_facts(m: pd.DataFrame) -> str:
    return "; ".join(
        f"{t}: {fmt(get(m, 'OFC', f'{t}_bytes'), '{:.0f}')} bytes time-averaged, "
        f"{fmt(get(m, 'OFC', f'{t}_peak'), '{:.0f}')} entries at peak"
        for t in TABLES
    )


_T2_SIZE = (
    "hopsim's tables hold the flows of Fig 1's run only (F0, F1 and the bursts: a dozen "
    "flows at most on any port, 8 bytes per entry, summed over every switch port and "
    "averaged over the run, idle time included); the paper's sizes imply tens of entries "
    "per table, and it gives neither its entry size in simulation nor how it averages"
)

_TABLE2_CLAIMS = [
    Claim(
        f"OFC's {t} is small: about {TABLE2_PAPER[t]:g} bytes on average (Table II, simulation)",
        "§IV-B2, Table II",
        f"{TABLE2_PAPER[t]:g} bytes",
        TABLE2_PAPER[t],
        lambda m, t=t: Measure.of(
            get(m, "OFC", f"{t}_bytes"),
            f"{fmt(get(m, 'OFC', f'{t}_bytes'), '{:.0f}')} bytes (time-averaged, all switch "
            f"ports of Fig 1 together; peak {fmt(get(m, 'OFC', f'{t}_peak'), '{:.0f}')} "
            "entries)",
        ),
        ABSOLUTE,
        tolerance=MAGNITUDE,
        why=Why(_t2_facts, {BELOW: _T2_SIZE, ABOVE: _T2_SIZE}),
    )
    for t in TABLES
]

# ---------------------------------------------------------------- Figs 4, 5: dumbbell incast

#: Incast ratios (§IV-A2).
RATIOS = (4, 6, 8, 10)
#: Dumbbell: left hosts 0-31, right hosts 32-63 (left ToR 64, right ToR 65, trunk port 32).
HOSTS = 32
#: Flow groups: each one Fig 1 (an uncongested and a congested long-lived flow from the left
#: ToR, N burst senders on the right ToR onto the congested flow's receiver).
GROUPS = 2
#: A burst round every this many µs (Fig 1's 150 µs); bursts last 0-30 µs at 40 Gb/s.
ROUND_US = 150.0
BURST_MAX = 150_000
#: Per mode: long-lived flow size and burst rounds.
FIG4_SIZE = {"quick": {"long": 2_000_000, "rounds": 8}, "full": {"long": 4_000_000, "rounds": 20}}


def fig4_flows(n: int, mode: str) -> list[dict[str, Any]]:
    """The flows of incast `n`:1 (see ``fig4_incast.toml``): per group g, long-lived U_g
    (left host 2g -> right 32 + g(n + 2)) and C_g (left 2g + 1 -> right 33 + g(n + 2)), and
    every round n right-side burst senders (the next n hosts) onto C_g's receiver, each
    burst uniform in 0-150 KB (seeded by n, so every scheme runs the same flows)."""
    rng = random.Random(1000 + n)
    size = FIG4_SIZE[mode]
    out: list[dict[str, Any]] = []
    for g in range(GROUPS):
        base = HOSTS + g * (n + 2)
        out.append({"src": 2 * g, "dst": base, "size": size["long"], "tag": "long_uncongested"})
        out.append(
            {"src": 2 * g + 1, "dst": base + 1, "size": size["long"], "tag": "long_congested"}
        )
    for k in range(size["rounds"]):
        for g in range(GROUPS):
            base = HOSTS + g * (n + 2)
            for i in range(n):
                out.append(
                    {
                        "src": base + 2 + i,
                        "dst": base + 1,
                        "size": rng.randint(1000, BURST_MAX),
                        "start": f"{k * ROUND_US:g}us",
                        "tag": "burst",
                    }
                )
    return out


def _fig4_variants(mode: str) -> list[Variant]:
    out = []
    for n in RATIOS:
        load = {"workload": {"kind": "flows", "flows": fig4_flows(n, mode)}}
        out += [Variant(s, {**load, "switch.flow_control": FC[s]}, f"{n}:1") for s in FC]
    return out


def _port_means(r: Any) -> dict[str, float]:
    """Average egress queue length (KB) of the switch ports each class of flows crosses
    (Fig 5's "all ports", "uncongested port", "congested port"): a flow from the left ToR
    crosses the left ToR's trunk port and the right ToR's port to its receiver; a burst
    only the latter. Each port's queue is averaged over the run (10 µs samples; absent
    samples are empty), then the ports of a class are averaged."""
    s = r.summary
    end = float(s.get("sim_time_ns", 0.0))
    interval = float(s.get("queue_sample_interval_ns") or 10000.0)
    n = max(int(end // interval), 1)
    q = r.queues
    if len(q) and (q["queue"] == -1).any():
        q = q[q["queue"] == -1]
    per = q.groupby(["node", "port"])["bytes"].sum() / n / 1e3 if len(q) else pd.Series()
    ports = r.ports
    sw = ports[ports["tier"] != "host"]
    trunk = sw[sw["peer_node"].isin(sw["node"])]
    down = {int(p.peer_node): (int(p.node), int(p.port)) for p in sw.itertuples()}
    flows = r.flows

    def path_ports(sel: pd.DataFrame) -> set[tuple[int, int]]:
        out = set()
        for f in sel.itertuples():
            out.add(down[int(f.dst)])
            if f.src < HOSTS:
                t = trunk[trunk["node"] == trunk["node"].min()]
                out.add((int(t["node"].iloc[0]), int(t["port"].iloc[0])))
        return out

    def mean_of(keys: set[tuple[int, int]]) -> float:
        return float(sum(per.get(k, 0.0) for k in keys) / len(keys)) if keys else math.nan

    tag = flows["tag"]
    return {
        "q_all_kb": mean_of(path_ports(flows)),
        "q_uncongested_kb": mean_of(path_ports(flows[tag == "long_uncongested"])),
        "q_congested_kb": mean_of(path_ports(flows[tag != "long_uncongested"])),
    }


def _fig4_stats(run: Run) -> dict[str, Any]:
    r = run.result
    f = r.flows
    fct = f["fct_ns"].astype("float64") / 1e3
    tag = f["tag"]
    s = r.summary
    congested = fct[tag != "long_uncongested"]
    return {
        "fct_all_us": float(fct.mean()),
        "fct_uncongested_us": float(fct[tag == "long_uncongested"].mean()),
        "fct_congested_us": float(congested.mean()),
        "fct_congested_long_us": float(fct[tag == "long_congested"].mean()),
        "fct_burst_us": float(fct[tag == "burst"].mean()),
        "max_fct_all_us": float(fct.max()),
        "flows": int(len(f)),
        "unfinished": int(f["finish_ns"].isna().sum()),
        "drops": int(s.get("drops", 0)),
        "pause_frames": _frames(s),
        **_port_means(r),
    }


def _fig4_table(runs: list[Run]) -> pd.DataFrame:
    return table(runs, _fig4_stats)


def _fig4_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    cols = [
        ("fct_uncongested_us", "uncongested long-lived FCT (µs)"),
        ("fct_congested_us", "congested flows' mean FCT (µs)"),
        ("fct_all_us", "all flows' mean FCT (µs)"),
        ("q_uncongested_kb", "avg queue, uncongested ports (KB)"),
        ("q_congested_kb", "avg queue, congested ports (KB)"),
        ("q_all_kb", "avg queue, all ports (KB)"),
    ]
    title = "Figs 4 and 5: dumbbell 2 × 32 servers, incast 4:1-10:1"
    bars(metrics, path, cols, title, log=False, colors=_COLORS)


_F4_LOSSES = (
    ("drops", "drops"),
    ("pause_frames", "pause frames"),
    ("unfinished", "unfinished flows"),
)


def _f4_facts(col: str) -> Any:
    def facts(m: pd.DataFrame) -> str:
        vals = "; ".join(
            f"{g}: " + ", ".join(f"{s} {fmt(get(m, s, col, group=g), '{:.0f}')}" for s in FC)
            for g in dict.fromkeys(m["group"])
        )
        return f"{col} {vals}; " + counters(m, ("PFC", "OFC"), _F4_LOSSES)

    return facts


def _vs_baselines(col: str) -> Any:
    """OFC's `col` over each baseline's, at every ratio (each value checked)."""

    def values(m: pd.DataFrame) -> list[tuple[str, float]]:
        return [
            (f"{g} {s}", div(get(m, "OFC", col, group=g), get(m, s, col, group=g)))
            for g in dict.fromkeys(m["group"])
            for s in BASELINES
        ]

    return values


def _range_vs_baselines(col: str, what: str) -> Any:
    """OFC over each baseline at every ratio, shown as a range per ratio."""

    def measure(m: pd.DataFrame) -> Measure:
        vals = _vs_baselines(col)(m)
        xs = tuple(v for _, v in vals)
        per = []
        for g in dict.fromkeys(m["group"]):
            r = [v for k, v in vals if k.startswith(f"{g} ") and math.isfinite(v)]
            per.append(f"{g} {min(r):.2f}-{max(r):.2f}" if r else f"{g} not measured")
        return Measure(xs, f"{', '.join(per)}× ({what}, OFC / each baseline)")

    return measure


_FIG4_HOL = (
    "hopsim's PFC-family baselines pause the trunk only when its ingress at the right ToR "
    "passes XOFF; with long-lived flows sharing the left ToR's 40 G trunk egress (its own "
    "congestion, paused alike under every scheme) the uncongested flows' FCT is set mostly "
    "by the trunk share, which OFC does not change"
)

_FIG4_CLAIMS = [
    Claim(
        "OFC lowers the uncongested flows' FCT against every baseline at every incast ratio "
        "(the paper: FCT of all flows lower by 15-60 %)",
        "§IV-C1, Fig 4",
        "15-60 % lower",
        lower_by(15, 60),
        _range_vs_baselines("fct_uncongested_us", "uncongested FCT"),
        LESS,
        why=Why(_f4_facts("fct_uncongested_us"), falls_short(_FIG4_HOL)),
    ),
    Claim(
        "OFC lowers the mean FCT of all flows against every baseline at every incast ratio",
        "§IV-C1, Fig 4",
        "15-60 % lower",
        lower_by(15, 60),
        _range_vs_baselines("fct_all_us", "all flows' mean FCT"),
        LESS,
        why=Why(_f4_facts("fct_all_us"), falls_short(_FIG4_HOL)),
    ),
    Claim(
        "OFC lowers the congested flows' mean FCT too ('the transmission of uncongested flows "
        "also results in a reduced FCT for congested flows')",
        "§IV-C1, Fig 4",
        "none",
        None,
        _range_vs_baselines("fct_congested_us", "congested flows' mean FCT"),
        LESS,
        why=Why(
            _f4_facts("fct_congested_us"),
            falls_short(
                "OFC pauses exactly the congested flows, so their own FCT gains only what the "
                "freed trunk gives back; the bursts are local to the right ToR under every scheme"
            ),
        ),
    ),
    Claim(
        "Under OFC the uncongested flows finish clearly faster than the congested long-lived "
        "flows, while the baselines give the two about the same FCT",
        "§IV-C1, Fig 4",
        "none",
        None,
        several(
            lambda m: [
                (
                    f"{g} OFC/PFC",
                    div(
                        div(
                            get(m, "OFC", "fct_congested_long_us", group=g),
                            get(m, "OFC", "fct_uncongested_us", group=g),
                        ),
                        div(
                            get(m, "PFC", "fct_congested_long_us", group=g),
                            get(m, "PFC", "fct_uncongested_us", group=g),
                        ),
                    ),
                )
                for g in dict.fromkeys(m["group"])
            ],
            "congested-long / uncongested FCT under OFC, over the same under PFC",
        ),
        MORE,
        why=Why(_f4_facts("fct_uncongested_us")),
    ),
    Claim(
        "OFC lowers the average queue length of all ports against every baseline "
        "(the paper: by 20-50 %)",
        "§IV-C1, Fig 5",
        "20-50 % lower",
        lower_by(20, 50),
        _range_vs_baselines("q_all_kb", "avg queue, all ports"),
        LESS,
        why=Why(
            _f4_facts("q_all_kb"),
            falls_short(
                "OFC's pause at X_OFF^c keeps the congested flows' packets upstream in its "
                "backup queues, which count as egress queue length at the upstream switch"
                "; and G-PFC (the suite's class made low priority: paused at ½ X_OFF) and GFC "
                "(rate steps from ½ X_OFF) hold every ingress at about half of X_OFF, below OFC's"
            ),
        ),
    ),
    Claim(
        "OFC lowers the average queue length of the uncongested flows' ports against every "
        "baseline",
        "§IV-C1, Fig 5",
        "20-50 % lower",
        lower_by(20, 50),
        _range_vs_baselines("q_uncongested_kb", "avg queue, uncongested ports"),
        LESS,
        why=Why(
            _f4_facts("q_uncongested_kb"),
            falls_short(
                "at low ratios the trunk's own congestion (four long-lived flows from the "
                "left ToR onto one 40 G trunk) sets the trunk queue alike under every scheme"
                "; and G-PFC (the suite's class made low priority: paused at ½ X_OFF) and GFC "
                "(rate steps from ½ X_OFF) hold every ingress at about half of X_OFF, below OFC's"
            ),
        ),
    ),
    Claim(
        "OFC lowers the average queue length of the congested flows' ports against every baseline",
        "§IV-C1, Fig 5",
        "20-50 % lower",
        lower_by(20, 50),
        _range_vs_baselines("q_congested_kb", "avg queue, congested ports"),
        LESS,
        why=Why(
            _f4_facts("q_congested_kb"),
            falls_short(
                "the congested receiver's port is fed by local burst senders at line rate: "
                "its queue is set by the bursts, which every scheme admits up to X_OFF alike; "
                "OFC keeps the trunk ingress below X_OFF by pausing only the congested flows, "
                "so more of them reach the receiver's port"
                "; and G-PFC (the suite's class made low priority: paused at ½ X_OFF) and GFC "
                "(rate steps from ½ X_OFF) hold every ingress at about half of X_OFF, below OFC's"
            ),
        ),
    ),
    Claim(
        "The average queue length grows with the incast ratio (all ports, every scheme)",
        "§IV-C1, Fig 5",
        "none",
        None,
        several(
            lambda m: [
                (s, div(get(m, s, "q_all_kb", group="10:1"), get(m, s, "q_all_kb", group="4:1")))
                for s in FC
            ],
            "avg queue of all ports, 10:1 / 4:1",
        ),
        MORE,
        why=Why(_f4_facts("q_all_kb")),
    ),
    Claim(
        "Every scheme lossless on the dumbbell",
        "§IV-C1",
        "0",
        0.0,
        several(
            lambda m: [(s, float(m.loc[m["scheme"] == s, "drops"].sum())) for s in FC],
            "drops",
            "{:.0f}",
        ),
        ABSOLUTE,
        tolerance=Tolerance(1.0, "lossless: exactly zero drops"),
        why=Why(_f4_facts("drops")),
    ),
]

# ---------------------------------------------------------------- Figs 6, 7: fat-tree

#: The EDU1 / EDU2 stand-ins (see ``fig6_fattree.toml``): the IMC10 size distribution at
#: two loads of the host links, the second heavier as EDU2 is.
FT_TRACES = (("EDU1 (imc10 0.3)", 0.3), ("EDU2 (imc10 0.45)", 0.45))
#: Arrival window per mode.
FT_STOP = {"quick": "1ms", "full": "3ms"}
#: Short flows are below 10 KB (§IV-A2).
FT_SHORT = 10_000
#: Headroom on the fat-tree (bytes), for PFC's accounting and OFC's own: see the scenario.
FT_HEADROOM = 4700


def _ft_fc(scheme: str) -> dict[str, Any]:
    fc = dict(FC[scheme])
    if fc["kind"] == "ofc":
        fc["headroom_bytes"] = FT_HEADROOM
    return fc


def _ft_variants(mode: str) -> list[Variant]:
    out = []
    for name, load in FT_TRACES:
        w = {"workload.load": load, "workload.stop": FT_STOP[mode]}
        out += [Variant(s, {**w, "switch.flow_control": _ft_fc(s)}, name) for s in FC]
    return out


def _layer_means(r: Any) -> dict[str, float]:
    """Fig 7's average queue length (KB) per layer: each switch port's egress backlog
    averaged over the run (10 µs samples; absent samples are empty), then averaged over
    the ports of every switch ("all"), of the core switches and of the aggregation ones."""
    s = r.summary
    end = float(s.get("sim_time_ns", 0.0))
    interval = float(s.get("queue_sample_interval_ns") or 10000.0)
    n = max(int(end // interval), 1)
    q = r.queues
    if len(q) and (q["queue"] == -1).any():
        q = q[q["queue"] == -1]
    per = q.groupby(["node", "port"])["bytes"].sum() / n / 1e3 if len(q) else pd.Series()
    ports = r.ports
    out = {}
    for col, tiers in (
        ("q_all_kb", ("tor", "agg", "core")),
        ("q_core_kb", ("core",)),
        ("q_agg_kb", ("agg",)),
    ):
        keys = [(int(p.node), int(p.port)) for p in ports[ports["tier"].isin(tiers)].itertuples()]
        out[col] = float(sum(per.get(k, 0.0) for k in keys) / len(keys)) if keys else math.nan
    return out


def _ft_stats(run: Run) -> dict[str, Any]:
    r = run.result
    f = r.flows
    fct = f["fct_ns"].astype("float64") / 1e3
    short = f["size_bytes"] < FT_SHORT
    s = r.summary
    return {
        "fct_all_us": float(fct.mean()),
        "fct_short_us": float(fct[short].mean()),
        "fct_large_us": float(fct[~short].mean()),
        "p99_fct_short_us": float(fct[short].quantile(0.99)),
        "flows": int(len(f)),
        "short_share": float(short.mean()),
        "unfinished": int(f["finish_ns"].isna().sum()),
        "drops": int(s.get("drops", 0)),
        "pause_frames": _frames(s),
        **_layer_means(r),
    }


def _ft_table(runs: list[Run]) -> pd.DataFrame:
    return table(runs, _ft_stats)


def _ft_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    cols = [
        ("fct_all_us", "all flows' mean FCT (µs)"),
        ("fct_short_us", "short flows (< 10 KB) mean FCT (µs)"),
        ("fct_large_us", "large flows (≥ 10 KB) mean FCT (µs)"),
        ("q_all_kb", "avg queue, all switch ports (KB)"),
        ("q_core_kb", "avg queue, core layer (KB)"),
        ("q_agg_kb", "avg queue, aggregation layer (KB)"),
    ]
    title = "Figs 6 and 7: k = 8 fat-tree, 2:1, IMC10 standing in for EDU1 / EDU2"
    bars(metrics, path, cols, title, log=False, colors=_COLORS)


def _ft_facts(*cols: str) -> Any:
    def facts(m: pd.DataFrame) -> str:
        parts = []
        for col in cols:
            parts.append(
                f"{col} "
                + "; ".join(
                    f"{g}: "
                    + ", ".join(f"{s} {fmt(get(m, s, col, group=g), '{:.1f}')}" for s in FC)
                    for g in dict.fromkeys(m["group"])
                )
            )
        return "; ".join(parts) + "; " + counters(m, ("PFC", "OFC"), _F4_LOSSES)

    return facts


def _in_group(sel: Any, group: str) -> Any:
    """`sel` (a selector) on the rows of `group` only."""
    return lambda m: sel(m[m["group"] == group])


_FT_WHY = (
    "OFC keeps PFC's X_OFF (75 KB; X_OFF^c 67.5 KB) while G-PFC (the suite's traffic in a "
    "low class: paused at ½ X_OFF) and GFC (rate steps from ½ X_OFF) hold every ingress at "
    "about half that, so their queues are shorter; OFC's gain is in FCT (its paused flows "
    "leave the others moving), not in buffer"
)

_FT_LOSS = (
    "caPFC, P-PFC and G-PFC hold a PAUSE back past X_OFF by their rule and send it urgently "
    "when the headroom left is one PAUSE round trip (one-hop BDP + 3 packets); a drop means "
    "a round trip brought in more than that on some port (more than one packet waiting "
    "ahead of the PAUSE at the downstream egress)"
)

_FT_CLAIMS = [
    Claim(
        "OFC lowers the mean FCT of all flows against every baseline, under both traces "
        "(the paper: by around 5 %)",
        "§IV-C1, Fig 6",
        "about 5 % lower",
        lower_by(5),
        _range_vs_baselines("fct_all_us", "all flows' mean FCT"),
        LESS,
        why=Why(_ft_facts("fct_all_us"), falls_short(_FT_WHY)),
    ),
    Claim(
        "OFC lowers the mean FCT of large flows (>= 10 KB) against every baseline, under both "
        "traces",
        "§IV-C1, Fig 6",
        "none",
        None,
        _range_vs_baselines("fct_large_us", "large flows' mean FCT"),
        LESS,
        why=Why(_ft_facts("fct_large_us"), falls_short(_FT_WHY)),
    ),
    Claim(
        "Short flows (< 10 KB) finish faster than large flows under every scheme and trace",
        "§IV-C1, Fig 6",
        "none",
        None,
        several(
            lambda m: [
                (
                    f"{g} {s}",
                    div(get(m, s, "fct_large_us", group=g), get(m, s, "fct_short_us", group=g)),
                )
                for g in dict.fromkeys(m["group"])
                for s in FC
            ],
            "large / short flows' mean FCT",
        ),
        MORE,
        why=Why(_ft_facts("fct_short_us", "fct_large_us")),
    ),
    Claim(
        "The heavier trace (EDU2) has the larger FCT of all flows, every scheme",
        "§IV-C1, Fig 6",
        "none",
        None,
        several(
            lambda m: [
                (
                    s,
                    div(
                        get(m, s, "fct_all_us", group=FT_TRACES[1][0]),
                        get(m, s, "fct_all_us", group=FT_TRACES[0][0]),
                    ),
                )
                for s in FC
            ],
            "all flows' mean FCT, EDU2 / EDU1 stand-in",
        ),
        MORE,
        why=Why(_ft_facts("fct_all_us")),
    ),
    *[
        Claim(
            f"OFC lowers the average queue length of all ports against every baseline under "
            f"{name.split()[0]} (the paper: by {pct})",
            "§IV-C1, Fig 7",
            f"{pct} lower",
            lower_by(*bounds),
            _in_group(_range_vs_baselines("q_all_kb", "avg queue, all switch ports"), name),
            LESS,
            why=Why(_ft_facts("q_all_kb"), falls_short(_FT_WHY)),
        )
        for (name, _), pct, bounds in zip(
            FT_TRACES, ("4.31-11.83 %", "5.8-11.24 %"), ((4.31, 11.83), (5.8, 11.24))
        )
    ],
    *[
        Claim(
            f"OFC lowers the average queue length of the {layer} layer against every baseline",
            "§IV-C1, Fig 7",
            "lower",
            None,
            _range_vs_baselines(col, f"avg queue, {layer} layer"),
            LESS,
            why=Why(_ft_facts(col), falls_short(_FT_WHY)),
        )
        for layer, col in (("core", "q_core_kb"), ("aggregation", "q_agg_kb"))
    ],
    Claim(
        "The heavier trace (EDU2) has the longer average queue of all ports, every scheme",
        "§IV-C1, Fig 7",
        "none",
        None,
        several(
            lambda m: [
                (
                    s,
                    div(
                        get(m, s, "q_all_kb", group=FT_TRACES[1][0]),
                        get(m, s, "q_all_kb", group=FT_TRACES[0][0]),
                    ),
                )
                for s in FC
            ],
            "avg queue of all ports, EDU2 / EDU1 stand-in",
        ),
        MORE,
        why=Why(_ft_facts("q_all_kb")),
    ),
    Claim(
        "Every scheme lossless on the fat-tree",
        "§IV-C1",
        "0",
        0.0,
        several(
            lambda m: [(s, float(m.loc[m["scheme"] == s, "drops"].sum())) for s in FC],
            "drops",
            "{:.0f}",
        ),
        ABSOLUTE,
        tolerance=Tolerance(1.0, "lossless: exactly zero drops"),
        why=Why(_ft_facts("drops"), {ABOVE: _FT_LOSS}),
    ),
]

# ---------------------------------------------------------------- Fig 8: sensitivity

#: §IV-C2: α of X_OFF^c = α · X_OFF (X_OFF 75 KB), and X_OFF = β · 75 KB (α 0.9). X_ON stays
#: 45 KB (the paper does not say it moves). hopsim runs them on the dumbbell at 8:1 (Fig 4's
#: setting) instead of the fat-tree with EDU1, which hopsim does not have.
ALPHAS = (0.8, 0.85, 0.9)
BETAS = (3, 6, 10)
FIG8_RATIO = 8


def _fig8_variants(mode: str) -> list[Variant]:
    load = {"workload": {"kind": "flows", "flows": fig4_flows(FIG8_RATIO, mode)}}
    out = []
    for a in ALPHAS:
        g = f"alpha {a:.2f}"
        out.append(Variant("PFC", {**load, "switch.flow_control": FC["PFC"]}, g))
        out.append(Variant("OFC", {**load, "switch.flow_control": {"kind": "ofc", "alpha": a}}, g))
    for b in BETAS:
        g = f"X_OFF x{b}"
        xoff = f"{75 * b}KB"
        pfc = {**load, "switch.pfc.xoff_bytes": xoff}
        out.append(Variant("PFC", {**pfc, "switch.flow_control": FC["PFC"]}, g))
        ofc_fc = {"kind": "ofc", "alpha": 0.9, "xoff_bytes": xoff}
        out.append(Variant("OFC", {**pfc, "switch.flow_control": ofc_fc}, g))
    return out


def _fig8_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    cols = [
        ("q_all_kb", "avg queue, all ports (KB)"),
        ("fct_all_us", "all flows' mean FCT (µs)"),
    ]
    title = f"Fig 8: OFC's sensitivity to α and X_OFF (dumbbell {FIG8_RATIO}:1, not EDU1)"
    bars(metrics, path, cols, title, log=False, colors=_COLORS)


def _spread(col: str, prefix: str, what: str) -> Any:
    """OFC's largest over smallest `col` across the groups named `prefix`…"""

    def measure(m: pd.DataFrame) -> Measure:
        xs = [
            get(m, "OFC", col, group=g) for g in dict.fromkeys(m["group"]) if g.startswith(prefix)
        ]
        xs = [x for x in xs if math.isfinite(x)]
        r = max(xs) / min(xs) if xs and min(xs) > 0 else math.nan
        shown = ", ".join(f"{x:.1f}" for x in xs)
        return Measure.of(r, f"{fmt(r, '{:.3f}')} ({what}: OFC {shown})")

    return measure


def _vs_pfc(col: str, prefix: str, what: str) -> Any:
    def values(m: pd.DataFrame) -> list[tuple[str, float]]:
        return [
            (g, div(get(m, "OFC", col, group=g), get(m, "PFC", col, group=g)))
            for g in dict.fromkeys(m["group"])
            if g.startswith(prefix)
        ]

    return several(values, what)


def _f8_facts(m: pd.DataFrame) -> str:
    return "; ".join(
        f"{g}: q_all PFC {fmt(get(m, 'PFC', 'q_all_kb', group=g), '{:.1f}')} / OFC "
        f"{fmt(get(m, 'OFC', 'q_all_kb', group=g), '{:.1f}')} KB, mean FCT PFC "
        f"{fmt(get(m, 'PFC', 'fct_all_us', group=g), '{:.0f}')} / OFC "
        f"{fmt(get(m, 'OFC', 'fct_all_us', group=g), '{:.0f}')} µs"
        for g in dict.fromkeys(m["group"])
    )


_FIG8_SETTING = (
    "hopsim runs Fig 8 on the dumbbell incast (8:1), not the fat-tree with EDU1: a larger "
    "X_OFF lets every ingress hold more before any pause, so queues scale with it here"
)

_FIG8_CLAIMS = [
    Claim(
        "OFC's average queue length (all ports) varies by at most 3 % over α 0.8 / 0.85 / 0.9",
        "§IV-C2, Fig 8a",
        "≤ 3 %",
        None,
        _spread("q_all_kb", "alpha", "largest / smallest avg queue over α"),
        AT_MOST,
        tolerance=Tolerance(1.03, "the paper's own bound: a 3 % variation"),
        why=Why(_f8_facts, {ABOVE: _FIG8_SETTING}),
    ),
    Claim(
        "OFC's FCT is about 5.8-8 % below PFC's at every α",
        "§IV-C2, Fig 8b",
        "5.8-8 % lower",
        lower_by(5.8, 8),
        _vs_pfc("fct_all_us", "alpha", "all flows' mean FCT, OFC / PFC"),
        LESS,
        why=Why(_f8_facts, falls_short(_FIG8_SETTING)),
    ),
    Claim(
        "OFC's average queue length (all ports) varies by at most 2.5 % over X_OFF × 3 / 6 / 10",
        "§IV-C2, Fig 8c",
        "≤ 2.5 %",
        None,
        _spread("q_all_kb", "X_OFF", "largest / smallest avg queue over X_OFF"),
        AT_MOST,
        tolerance=Tolerance(1.025, "the paper's own bound: a 2.5 % variation"),
        why=Why(_f8_facts, {ABOVE: _FIG8_SETTING}),
    ),
    Claim(
        "OFC's FCT stays about 5.1 % below PFC's (same X_OFF) at every X_OFF",
        "§IV-C2, Fig 8d",
        "5.1 % lower",
        lower_by(5.1),
        _vs_pfc("fct_all_us", "X_OFF", "all flows' mean FCT, OFC / PFC"),
        LESS,
        why=Why(
            _f8_facts,
            falls_short(
                "at X_OFF = 750 KB (× 10) the ingress queues of this incast may seldom reach "
                "X_OFF^c, leaving little for OFC's fine-grained pause to change; " + _FIG8_SETTING
            ),
        ),
    ),
]

# ---------------------------------------------------------------- Fig 9: deadlocks

#: Flows in total, split at random over the four groups (§IV-A2).
FIG9_M = (240, 400, 640)
#: Trials per (M, scheme), per mode (the paper: 1,000).
FIG9_TRIALS = {"quick": 100, "full": 1000}
#: The CBD's flow groups: (senders, receivers) on the leaf-spine of fig9_deadlock.toml.
FIG9_GROUPS = (((0, 1), (6, 7)), ((6, 7), (0, 1)), ((2, 3), (4, 5)), ((4, 5), (2, 3)))


def fig9_split(total: int, trial: int) -> list[int]:
    """A uniformly random composition of `total` into four non-negative counts (stars and
    bars), one per trial, the same for every scheme."""
    rng = random.Random(total * 100_003 + trial)
    cuts = sorted(rng.sample(range(total + 3), 3))
    parts = [cuts[0], cuts[1] - cuts[0] - 1, cuts[2] - cuts[1] - 1, total + 2 - cuts[2]]
    return parts


def fig9_flows(m: list[int]) -> list[dict[str, Any]]:
    """`m[g]` flows of 1 MB in group g, sent round robin by the group's two hosts to its
    two receivers, all starting at 1 µs (as crates/hopsim-core/tests/deadlock.rs)."""
    out = []
    for g, (src, dst) in enumerate(FIG9_GROUPS):
        for k in range(m[g]):
            out.append(
                {
                    "src": src[k % 2],
                    "dst": dst[(k // 2) % 2],
                    "size": "1MB",
                    "start": "1us",
                    "tag": f"f{g + 1}",
                }
            )
    return out


def _fig9_variants(mode: str) -> list[Variant]:
    """Each trial's split (``fig9_split``) under every scheme; the flow list is made from
    the split in the batch's worker (`_fig9_expand`), so 18,000 variants stay small."""
    out = []
    for total in FIG9_M:
        for t in range(FIG9_TRIALS[mode]):
            load = {"seed": t + 1, "split": fig9_split(total, t)}
            group = f"M={total} #{t}"
            out += [Variant(s, {**load, "switch.flow_control": FC[s]}, group) for s in FC]
    return out


def _fig9_expand(overrides: Any) -> dict[str, Any]:
    """A trial's overrides with its split made into its flow list."""
    o = dict(overrides)
    o["workload"] = {"kind": "flows", "flows": fig9_flows(o.pop("split"))}
    return o


def _fig9_keep(summary: dict[str, Any]) -> dict[str, Any]:
    """What a trial keeps of its summary: whether, and when, the detector found a deadlock."""
    return {
        "deadlocked": int(bool(summary.get("deadlocks", 0))),
        "deadlock_time_us": (summary.get("deadlock_time_ns") or math.nan) / 1e3,
    }


def _fig9_stats(run: Run) -> dict[str, Any]:
    assert run.values is not None
    return {"M": int(run.variant.group.split()[0][2:]), **run.values}


def _fig9_table(runs: list[Run]) -> pd.DataFrame:
    """Per (M, scheme): trials, deadlocked trials."""
    m = table(runs, _fig9_stats)
    m["M"] = m["group"].str.split().str[0].str[2:].astype(int)
    for col in ("deadlocked", "deadlock_time_us"):
        if col not in m:
            m[col] = math.nan
    g = m.groupby(["M", "scheme"], sort=False)
    out = g.agg(
        trials=("status", "size"),
        failed=("status", lambda x: int((~x.isin(["ok", "incomplete"])).sum())),
        deadlocks=("deadlocked", "sum"),
        median_deadlock_us=("deadlock_time_us", "median"),
    ).reset_index()
    out.insert(0, "group", out["M"].map(lambda x: f"M={x}"))
    out["deadlock_pct"] = 100 * out["deadlocks"] / out["trials"]
    return out


def _fig9_draw(metrics: pd.DataFrame, runs: list[Run], path: Path) -> None:
    cols = [("deadlocks", "deadlocked trials")]
    title = "Fig 9: deadlocked trials (CBD leaf-spine)"
    bars(metrics, path, cols, title, log=False, colors=_COLORS)


def _fig9_facts(m: pd.DataFrame) -> str:
    return "; ".join(
        f"{g}: "
        + ", ".join(f"{s} {fmt(get(m, s, 'deadlocks', group=g), '{:.0f}')}" for s in FC)
        + f" of {fmt(get(m, 'PFC', 'trials', group=g), '{:.0f}')}"
        for g in dict.fromkeys(m["group"])
    )


_FIG9_CLAIMS = [
    Claim(
        f"OFC has fewer deadlocks than {s} at every M (the paper: by 4-49 % across baselines)",
        "§IV-C3, Fig 9",
        "4-49 % fewer",
        lower_by(4.14, 48.70),
        ratio("OFC", s, "deadlocks", f"deadlocks, OFC / {s}"),
        LESS,
        why=Why(
            _fig9_facts,
            falls_short(
                "in hopsim's CBD every flow of the four groups (1 MB each, all starting "
                "together) crosses a port of the cycle, so the congested flows OFC pauses "
                "are the cycle's own flows and its fine-grained pause stops the same queues "
                "PFC's does; any split with all four groups non-empty keeps the cycle full"
            ),
        ),
    )
    for s in BASELINES
]
_FIG9_CLAIMS.append(
    Claim(
        "How many trials each scheme deadlocked, and when (not in the paper)",
        "§IV-C3",
        "none",
        None,
        text(lambda m: _fig9_facts(m)),
        NEW,
        why=Why(
            lambda m: (
                "measured: deadlocked trials per M and scheme (detector: a cycle of "
                "paused non-empty queues stuck 200 µs; a trial lasts 2 ms): " + _fig9_facts(m)
            )
        ),
    )
)

# ---------------------------------------------------------------- the paper

PAPER = Paper(
    name="ofc",
    title="OFC: an Original congestion-based Fine-grained Priority Flow Control",
    source="Xiao et al. (OFC), seed paper of issue 22",
    analyze=_fig4_table,
    draw=lambda m, runs, path, title=None: _fig4_draw(m, runs, path),
    experiments=[
        experiment(
            "table1",
            "Table I, Fig 2",
            "§II-C, §IV-B2",
            "Fig 1's incast: PFC against OFC",
            "the uncongested F0 finishes in 1.45 ms under OFC against 1.96 ms under PFC; the "
            "maximum FCT of all flows 1.69 against 1.96 ms; OFC occupies less buffer",
            "table1_ofc.toml",
            _table1_variants,
            _TABLE1_CLAIMS,
            analyze=_table1_table,
            draw=_table1_draw,
        ),
        experiment(
            "table2",
            "Table II",
            "§IV-B2",
            "OFC's storage tables (Fig 1's incast, the Table I run)",
            "the three tables average 425.66, 142.46 and 276.47 bytes in simulation (432, 152 "
            "and 288 in the testbed): they use little of the buffer",
            "table1_ofc.toml",
            _table1_variants,
            _TABLE2_CLAIMS,
            analyze=_table1_table,
            draw=_table1_draw,
            shares="table1",
        ),
        experiment(
            "fig4_incast",
            "Figs 4, 5",
            "§IV-C1",
            "dumbbell incast 4:1-10:1: FCT and average queue length, six schemes",
            "the baselines give uncongested and congested flows the same FCT, OFC's uncongested "
            "flows are clearly faster; OFC lowers the FCT of all flows by 15-60 % and the "
            "average queue by 20-50 %, more as the incast ratio grows",
            "fig4_incast.toml",
            _fig4_variants,
            _FIG4_CLAIMS,
            analyze=_fig4_table,
            draw=_fig4_draw,
        ),
        experiment(
            "fig6_fattree",
            "Figs 6, 7",
            "§IV-C1",
            "k = 8 fat-tree (2:1), IMC10 standing in for EDU1 / EDU2: FCT and average queue "
            "length, six schemes",
            "OFC lowers the FCT of large flows and so of all flows by around 5 %; the average "
            "queue of all ports, the core and the aggregation layer falls by 4.31-11.83 % "
            "(EDU1) and 5.8-11.24 % (EDU2) against the baselines",
            "fig6_fattree.toml",
            _ft_variants,
            _FT_CLAIMS,
            analyze=_ft_table,
            draw=_ft_draw,
        ),
        experiment(
            "fig8_sensitivity",
            "Fig 8",
            "§IV-C2",
            "OFC's sensitivity to α and X_OFF (on the dumbbell at 8:1, not EDU1)",
            "over α 0.8-0.9 the average queue varies by at most 3 % and OFC's FCT stays 5.8-8 % "
            "below PFC's; over X_OFF × 3-10 the queue varies by at most 2.5 % and the FCT stays "
            "about 5.1 % below PFC's",
            "fig4_incast.toml",
            _fig8_variants,
            _FIG8_CLAIMS,
            analyze=_fig4_table,
            draw=_fig8_draw,
        ),
        experiment(
            "fig9_deadlock",
            "Fig 9",
            "§IV-C3",
            "deadlocks out of random trials on the CBD leaf-spine, six schemes",
            "over 1,000 trials per M, OFC has 7-45 % fewer deadlocks than PFC and 4-49 % fewer "
            "than each of caPFC, P-PFC, GFC and G-PFC",
            "fig9_deadlock.toml",
            _fig9_variants,
            _FIG9_CLAIMS,
            analyze=_fig9_table,
            draw=_fig9_draw,
            batch=Batch(keep=_fig9_keep, expand=_fig9_expand),
        ),
    ],
)
