"""`hopsim reproduce ofc`: every point of both modes is a valid scenario, the shipped
scenario files are the generators' own points, Fig 9's splits are random compositions of M
shared by every scheme, and Table I end to end shows what the paper's Table I shows (OFC's
uncongested F0 faster than PFC's, lossless)."""

from __future__ import annotations

import pandas as pd
import pytest

import hopsim
from hopsim import reproduce
from hopsim.reproduce import ofc
from hopsim.reproduce.framework import _sweep_spec, find_scenarios

PAPER = reproduce.PAPERS["ofc"]


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_every_point_is_a_valid_scenario(mode):
    scenarios = find_scenarios("ofc")
    for exp in PAPER.experiments:
        if exp.batch is not None:  # thousands of trials: a few per M and scheme suffice
            variants = exp.variants(mode)
            n = ofc.FIG9_TRIALS[mode]
            assert len(variants) == len(ofc.FIG9_M) * n * len(ofc.FC)
            for v in variants[:: len(ofc.FC) * n // 2] + variants[: len(ofc.FC)]:
                scenario = scenarios / exp.scenario
                hopsim.validate(scenario, overrides=dict(exp.batch.expand(v.overrides)))
            continue
        spec, variants, point_of = _sweep_spec(PAPER, exp, mode, scenarios)
        assert variants and len(point_of) == len(variants), exp.name
        for point in spec["point"]:
            hopsim.validate(spec["scenario"], overrides=point)


def test_shipped_files_are_the_generators_points():
    text = (find_scenarios("ofc") / "fig4_incast.toml").read_text(encoding="utf-8")
    flows = ofc.fig4_flows(4, "quick")
    assert text.count("{ src = ") == len(flows) == 4 + 2 * 8 * 4
    assert f"size = {flows[-1]['size']}" in text
    text = (find_scenarios("ofc") / "fig9_deadlock.toml").read_text(encoding="utf-8")
    assert text.count("{ src = ") == 240 and 'duration = "2ms"' in text


@pytest.mark.parametrize("total", ofc.FIG9_M)
def test_fig9_splits_are_random_compositions(total):
    splits = [ofc.fig9_split(total, t) for t in range(50)]
    assert all(sum(m) == total and min(m) >= 0 for m in splits)
    assert len({tuple(m) for m in splits}) > 40
    assert ofc.fig9_split(total, 3) == ofc.fig9_split(total, 3)
    flows = ofc.fig9_flows(splits[0])
    assert [sum(f["tag"] == f"f{g + 1}" for f in flows) for g in range(4)] == splits[0]


def test_fig4_incast_senders_and_receivers():
    for n in ofc.RATIOS:
        flows = ofc.fig4_flows(n, "quick")
        bursts = [f for f in flows if f["tag"] == "burst"]
        receivers = {f["dst"] for f in bursts}
        congested = {f["dst"] for f in flows if f["tag"] == "long_congested"}
        assert receivers == congested and len(receivers) == ofc.GROUPS
        for r in receivers:  # n burst senders per round onto each congested receiver
            first = [f for f in bursts if f["dst"] == r and f["start"] == "0us"]
            assert len({f["src"] for f in first}) == n
        assert max(f["src"] for f in bursts) < 2 * ofc.HOSTS
        assert all(f["size"] <= ofc.BURST_MAX for f in bursts)


def test_table1_end_to_end(tmp_path):
    rows = reproduce.run("ofc", tmp_path, "quick", jobs=1, only=["table1"])
    verdicts = {r.claim: r.verdict for r in rows}
    f0 = next(v for c, v in verdicts.items() if c.startswith("The uncongested long-lived"))
    assert f0 == "agrees"
    m = pd.read_csv(tmp_path / "metrics" / "table1.csv").set_index("scheme")
    assert m.loc["OFC", "f0_fct_ms"] < 0.85 * m.loc["PFC", "f0_fct_ms"]
    assert m.loc["OFC", "max_fct_all_ms"] < m.loc["PFC", "max_fct_all_ms"]
    assert m.loc["OFC", "drops"] == 0 and m.loc["PFC", "drops"] == 0
    assert m.loc["OFC", "unfinished"] == 0
    assert (tmp_path / "figures" / "table1.png").is_file()


def test_fig9_batch_keeps_counts_only_and_is_reused(tmp_path, monkeypatch):
    """Fig 9 runs in-process (`Batch`): no run directories, one row per trial and scheme,
    the detector's deadlocks counted (PFC deadlocks in hopsim's CBD), the same counts with
    one worker or two, and a second call reuses the saved rows."""
    monkeypatch.setitem(ofc.FIG9_TRIALS, "quick", 3)
    reproduce.run("ofc", tmp_path / "a", "quick", jobs=1, only=["fig9_deadlock"])
    runs = tmp_path / "a" / "runs" / "fig9_deadlock"
    assert [p.name for p in runs.iterdir()] == ["batch.json"]
    m = pd.read_csv(tmp_path / "a" / "metrics" / "fig9_deadlock.csv")
    assert len(m) == len(ofc.FIG9_M) * len(ofc.FC)
    assert (m["trials"] == 3).all() and (m["failed"] == 0).all()
    assert m.loc[m["scheme"] == "PFC", "deadlocks"].sum() > 0
    reproduce.run("ofc", tmp_path / "b", "quick", jobs=2, only=["fig9_deadlock"])
    m2 = pd.read_csv(tmp_path / "b" / "metrics" / "fig9_deadlock.csv")
    assert m2["deadlocks"].tolist() == m["deadlocks"].tolist()
    stamp = (runs / "batch.json").stat().st_mtime_ns
    reproduce.run("ofc", tmp_path / "a", "quick", jobs=1, only=["fig9_deadlock"])
    assert (runs / "batch.json").stat().st_mtime_ns == stamp, "reused, not rerun"
