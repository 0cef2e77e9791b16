"""`hopsim reproduce proteus` (issue 23): every point of both modes is a valid scenario, the
load is a fraction of the 2:1 fabric, each scheme runs what the paper compares, and a
shortened sweep end to end yields every metric the claims read."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import hopsim
from hopsim import reproduce
from hopsim.reproduce import proteus
from hopsim.reproduce.framework import _sweep_spec, find_scenarios

PAPER = reproduce.PAPERS["proteus"]


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_every_point_is_a_valid_scenario(mode):
    scenarios = find_scenarios("proteus")
    for exp in PAPER.experiments:
        spec, variants, point_of = _sweep_spec(PAPER, exp, mode, scenarios)
        assert variants and len(point_of) == len(variants), exp.name
        for point in spec["point"]:
            hopsim.validate(spec["scenario"], overrides=point)


def test_load_is_a_fraction_of_the_fabric_and_schemes_are_the_papers():
    w = proteus._load("WSc", 0.6, "quick")["workload"][0]
    assert w["load"] == pytest.approx(0.3) and w["size_dist"] == "websearch"
    assert set(proteus.SCHEMES) == {"ECMP", "CONGA", "DRILL", "Hermes", "MP-RDMA", "Proteus"}
    for name, o in proteus.SCHEMES.items():
        reorder = o.get("transport.reorder_buffer.enabled", False)
        assert reorder == (name not in ("Proteus", "MP-RDMA")), name
    assert proteus.SCHEMES["MP-RDMA"]["transport.kind"] == "mp_rdma"


def test_a_short_sweep_yields_every_metric(tmp_path, monkeypatch):
    """Web Server at 0.6 for 100 µs: every scheme finishes its flows and reports the FCT,
    HoL-blocking, reordering and uplink figures the claims read."""
    monkeypatch.setitem(proteus.WINDOW_US, "quick", 100.0)
    monkeypatch.setitem(proteus.LOADS, "quick", (0.6,))
    monkeypatch.setitem(proteus.SWEPT, "quick", ("WSv",))
    rows = reproduce.run("proteus", tmp_path, "quick", jobs=1, only=["fig10_load"])
    assert len(rows) == len(PAPER.experiment("fig10_load").claims)
    m = pd.read_csv(tmp_path / "metrics" / "fig10_load.csv").set_index("scheme")
    assert set(m.index) == set(proteus.SCHEMES)
    for col in ("avg_fct_us", "p99_fct_us", "hol_blocked_pct", "reordered_pct", "uplink_spread"):
        assert m[col].map(math.isfinite).all(), col
    assert (m["unfinished"] == 0).all() and (m["drops"] == 0).all()
    assert m.loc["ECMP", "reordered_pct"] == 0, "ECMP never reorders"
    assert m.loc["DRILL", "reordered_pct"] > 0, "DRILL sprays packets"
    assert m.loc["MP-RDMA", "pause_frames"] == 0 or m.loc["MP-RDMA", "reordered_pct"] > 0
    verdicts = {r.claim: r.verdict for r in rows}
    small = [v for c, v in verdicts.items() if "Web Server at 0.6" in c]
    assert len(small) == 4 and "not measured" not in small


def test_the_testbed_sweeps_link_speed_and_burst_interval():
    """Fig 9's two sweeps: every link at the swept speed with the bursts at a fixed share
    of the receiver's link, and at 40 G the bursts every N µs; the groups name the setting."""
    groups = {v.group for v in proteus._fig9_variants("quick")}
    assert {f"{g} Gbps" for g in proteus.LINK_GBPS} <= groups
    assert {f"burst {b} µs" for b in proteus.BURST_US["quick"]} <= groups
    o = proteus._testbed("quick", gbps=10, burst_us=20)
    bg, burst = o["workload"]
    assert o["topology.host_rate"] == o["topology.fabric_rate"] == "10Gbps"
    assert burst["period"] == "20us" and "load" not in burst and burst["receiver"] == 0
    assert proteus._testbed("quick")["workload"][1]["load"] == proteus.BURST_SHARE
    assert bg["load"] == pytest.approx(0.35), "0.7 of the fabric: half of it per host link"
    assert proteus._tb_fields("burst 20 µs")["burst_us"] == 20
    assert proteus._tb_fields("25 Gbps")["link_gbps"] == 25
    assert proteus._tb_fields("load 0.9")["load"] == 0.9
