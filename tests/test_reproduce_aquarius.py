"""`hopsim reproduce aquarius` (APNet 2023): every point of both modes is a valid scenario,
the incast schedule is the paper's 5 % load, and the micro-benchmark end to end shows what
the paper's Fig 5 shows (f4 not paused by Aquarius, paused by BFC)."""

from __future__ import annotations

import pandas as pd
import pytest

import hopsim
from hopsim import reproduce
from hopsim.reproduce import aquarius
from hopsim.reproduce.framework import _sweep_spec, find_scenarios

PAPER = reproduce.PAPERS["aquarius"]


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_every_point_is_a_valid_scenario(mode):
    scenarios = find_scenarios("aquarius")
    for exp in PAPER.experiments:
        spec, variants, point_of = _sweep_spec(PAPER, exp, mode, scenarios)
        assert variants and len(point_of) == len(variants), exp.name
        for point in spec["point"]:
            hopsim.validate(spec["scenario"], overrides=point)


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_incasts_are_five_percent_of_the_host_links(mode):
    loads = aquarius._workloads(mode)
    assert loads[0]["size_dist"] == "webserver_all" and loads[0]["load"] == 0.7
    incasts = loads[1:]
    window_s = aquarius.WINDOW_US[mode] / 1e6
    # One round per listed receiver in the window (a receiver's rounds are 5 ms apart):
    # 100 flows of 125 KB on average each.
    offered_bps = len(incasts) * 100 * 125e3 * 8 / window_s
    assert offered_bps / (128 * 100e9) == pytest.approx(0.05, rel=0.15)
    assert len({w["receiver"] for w in incasts}) == len(incasts)
    # The shipped file lists the same schedule for its own 2 ms window.
    path = find_scenarios("aquarius") / "fattree_webserver.toml"
    text = path.read_text(encoding="utf-8")
    assert text.count('kind = "incast"') == 13 and 'size_dist = "webserver_all"' in text


def test_micro_benchmark_end_to_end(tmp_path):
    rows = reproduce.run("aquarius", tmp_path, "quick", jobs=1, only=["fig5_micro"])
    verdicts = {r.claim.split(",")[0].split(":")[0]: r.verdict for r in rows}
    assert verdicts["BFC pauses f4"] == "direction; no number"
    assert verdicts["f4 keeps its max-min fair share under Aquarius (63.5 Gb/s of payload"] == (
        "agrees"
    )
    m = pd.read_csv(tmp_path / "metrics" / "fig5_micro.csv").set_index("scheme")
    assert m.loc["Aquarius-8", "f4_gbps"] > 2 * m.loc["BFC-8", "f4_gbps"]
    assert m.loc["Aquarius-8", "drops"] == 0 and m.loc["BFC-8", "drops"] == 0
    assert (tmp_path / "figures" / "fig5_micro.png").is_file()
