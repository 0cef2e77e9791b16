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
        spec, variants, point_of = _sweep_spec(PAPER, exp, mode, scenarios)
        assert variants and len(point_of) == len(variants), exp.name
        points = spec["point"]
        if exp.name == "fig9_deadlock":  # thousands of trials: one per M and scheme suffices
            n = ofc.FIG9_TRIALS[mode]
            assert len(points) == len(ofc.FIG9_M) * n * len(ofc.FC)
            points = points[:: len(ofc.FC) * n // 2] + points[: len(ofc.FC)]
        for point in points:
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
