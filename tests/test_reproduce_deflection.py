"""`hopsim reproduce deflection` (Practical Packet Deflection, CoNEXT 2023): the listing,
the experiments' scenarios (every point of both modes validates), the load accounting, the
analysis and claims of every experiment, and one experiment end to end at a tiny size."""

from __future__ import annotations

import math
import random
import re

import pandas as pd
import pytest
import tomllib

import hopsim
from hopsim import reproduce
from hopsim.cli import main
from hopsim.reproduce import deflection
from hopsim.reproduce.framework import (
    Experiment,
    Paper,
    Run,
    Variant,
    _sweep_spec,
    find_scenarios,
    run_paper,
)

PAPER = reproduce.PAPERS["deflection"]
VERDICTS = set(reproduce.claims.VERDICTS)


def test_list_includes_deflection(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "deflection: Practical Packet Deflection in Datacenters" in out
    names = [e.name for e in PAPER.experiments]
    assert len(names) == len(set(names))
    for name in names:
        assert name in out
    for name in ("fig6_cc", "fig10_fattree", "fig11_100g", "table1_las", "roce_irn"):
        assert name in names


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_every_point_is_a_valid_scenario(mode):
    scenarios = find_scenarios("deflection")
    runs = 0
    for exp in PAPER.experiments:
        spec, variants, point_of = _sweep_spec(PAPER, exp, mode, scenarios)
        assert variants and len(point_of) == len(variants), exp.name
        for point in spec["point"]:
            hopsim.validate(spec["scenario"], overrides=point)
        runs += 0 if exp.shares else len(spec["point"])
    assert runs < {"quick": 200, "full": 440}[mode]


@pytest.mark.parametrize("name", ["leafspine.toml", "fattree_k8.toml", "leafspine_100g.toml"])
def test_scenario_files_run_alone_and_cite_the_paper(name):
    path = find_scenarios("deflection") / name
    hopsim.validate(path)
    head = path.read_text(encoding="utf-8").split("\nname = ")[0]
    assert "§5" in head and "hopsim-side choices" in head


def test_the_artifacts_1g_setting_is_its_own_scenario():
    path = find_scenarios("deflection") / "leafspine_1g.toml"
    hopsim.validate(path)
    head = path.read_text(encoding="utf-8").split("\nname = ")[0]
    assert "omnetpp_1G.ini" in head and "leafspine1G.ned" in head
    exp = PAPER.experiment("art1g")
    assert exp.scenario == "leafspine_1g.toml"
    # Vertigo and PD take the artifact's 1.2 ms ordering timeout at 1 Gb/s; DIBS and SD keep
    # fast retransmit off, ECMP on.
    by_label = {(v.label, v.group): v.overrides for v in exp.variants("full")}
    assert len(by_label) == 6 * 5
    vertigo = by_label[("Vertigo", "DCTCP, 95%")]
    assert vertigo["transport.tcp.reorder_timeout"] == "1200us"
    assert by_label[("SD", "DCTCP, 95%")]["transport.tcp.fast_retransmit"] is False
    assert "transport.tcp.fast_retransmit" not in by_label[("ECMP", "DCTCP, 95%")]


def test_1g_load_follows_the_artifacts_multipliers():
    # Multiplier 1 is 250 queries per second (5 % of 32 Gb/s in 40 x 20,000 B queries); the
    # 95 % point's multiplier 0.11 gives 45.5 % incast; background 41 % is 0.041 of each
    # 1 Gb/s host link.
    assert deflection.art1g_traffic(55)["workload.1.qps"] * 320 == pytest.approx(250)
    qps = deflection.art1g_traffic(95)["workload.1.qps"] * 320
    assert qps == pytest.approx(250 / 0.11, rel=1e-6)
    assert qps * 40 * 20_000 * 8 / 32e9 == pytest.approx(0.4545, abs=1e-3)
    path = find_scenarios("deflection") / "leafspine_1g.toml"
    bg = tomllib.loads(path.read_text(encoding="utf-8"))["workload"][0]["load"]
    assert bg == pytest.approx(deflection.ART1G_BACKGROUND / 100 * 32 / 320)
    # The background share the multipliers imply: 50 % at 0.2428 (10 Gb/s, 1.28 Tb/s)
    # is 41 % at 11.85 (1 Gb/s, 32 Gb/s) when both draw from one base interval.
    implied = 50 * 0.2428 / 11.85 * 1.28e12 / 32e9
    assert implied == pytest.approx(deflection.ART1G_BACKGROUND, abs=0.1)


def test_qct_drift_reads_the_window():
    def q(qcts):
        n = len(qcts)
        return pd.DataFrame(
            {
                "start_ns": [i * 1_000_000 for i in range(n)],
                "qct_ns": qcts,
                "finished": [True] * n,
            }
        )

    assert deflection.qct_drift(q([5.0] * 9)) == pytest.approx(1.0)
    # QCT grows with the query's start: the middle third waits longer than the first.
    assert deflection.qct_drift(q([float(1 + i) for i in range(9)])) == pytest.approx(5 / 2)
    # Unfinished queries do not count; too few queries give no number.
    late = q([1.0, 1.0, 1.0, 2.0, 2.0, 50.0, 9.0, 9.0, 9.0])
    late.loc[5, "finished"] = False
    assert deflection.qct_drift(late) == pytest.approx(2.0)
    assert math.isnan(deflection.qct_drift(q([1.0] * 5)))


def test_load_accounting_follows_the_artifact():
    # Leaf-spine: 50 % background is 0.2 of the host links; 95 % in total is 18,000 QPS.
    t = deflection.traffic("leafspine", "full", 95)
    assert t["workload.0.load"] == pytest.approx(0.2)
    assert t["workload.1.qps"] * 320 == pytest.approx(18_000)
    assert deflection.traffic("leafspine", "full", 55)["workload.1.qps"] * 320 == pytest.approx(
        2_000
    )
    # 100 Gb/s: 2.5x the core capacity; the fat-tree's core equals its host links.
    t = deflection.traffic("100g", "quick", 85)
    assert t["workload.0.load"] == pytest.approx(0.05)
    assert t["workload.1.qps"] * 320 == pytest.approx(35_000)
    t = deflection.traffic("fattree", "quick", 95)
    assert t["workload.0.load"] == pytest.approx(0.5)
    assert t["workload.1.qps"] * 128 == pytest.approx(18_000)
    # §2 and Fig 9: a fixed 4,000 QPS.
    t = deflection.traffic("leafspine", "quick", 35, background=25, qps_total=4000)
    assert t["workload.0.load"] == pytest.approx(0.1)
    assert t["workload.1.qps"] == pytest.approx(12.5)
    assert deflection.parse_group("DCTCP, 95%") == {"cc": "DCTCP", "load": 95.0}
    assert deflection.parse_group("alpha=0.5, 55%") == {"alpha": 0.5, "load": 55.0}


def _fake_metrics(run: Run) -> dict:
    rng = random.Random(f"{run.variant.group}/{run.variant.label}")
    out = {
        col: rng.uniform(1, 100)
        for col in (
            "qct_mean_ms",
            "qct_p50_ms",
            "qct_p99_ms",
            "incast_fct_mean_ms",
            "incast_fct_p99_ms",
            "bg_fct_mean_ms",
            "bg_fct_p99_ms",
            "fct_p99_ms",
            "drop_pct",
            "reorder_pct",
            "elephant_goodput_gbps",
            "timeouts3_pct",
            "qct_drift",
        )
    }
    out.update(
        queries=100,
        queries_finished=100,
        drops=rng.randint(0, 1000),
        drops_rank=rng.randint(0, 1000),
        drops_hop_limit=rng.randint(0, 10),
        deflections=rng.randint(0, 10_000),
        timeouts=rng.randint(0, 100),
        elephants_finished=5,
        unfinished=0,
    )
    return out


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_every_experiment_analyses_draws_and_claims(monkeypatch, tmp_path, mode):
    """Each experiment's analysis, figure and claims over made-up metrics: every claim gets
    a verdict, and one that does not agree says why."""
    monkeypatch.setattr(deflection, "_metrics", _fake_metrics)
    for exp in PAPER.experiments:
        source = PAPER.experiment(exp.shares) if exp.shares else exp
        runs = [Run(v, "ok", tmp_path) for v in source.variants(mode)]
        metrics = exp.analyze(runs)
        assert len(metrics) == len(runs)
        exp.draw(metrics, runs, tmp_path / f"{exp.name}.png")
        assert (tmp_path / f"{exp.name}.png").stat().st_size > 0, exp.name
        claims = exp.verdicts(metrics)
        assert claims, exp.name
        for c in claims:
            assert c.verdict in VERDICTS - {"not measured"}, (exp.name, c)
            assert c.experiment == exp.name and c.figure == exp.figure
            if c.verdict not in ("agrees", "direction; no number", "new"):
                assert c.note.startswith("measured: "), (exp.name, c.claim, c.note)
            if c.note:
                assert re.search(r"\d", c.note) or "hypothesis" in c.note, (exp.name, c)
            if c.verdict != "new":
                assert "not measured" not in c.measured, (exp.name, c.claim)


# A drastically smaller network and window: 2 spines, 2 leaves of 16 hosts, queries of 16
# responses, 2 ms of arrivals.
TINY = {
    "topology.spines": 2,
    "topology.leaves": 2,
    "topology.hosts_per_leaf": 16,
    "workload.0.stop": "2ms",
    "workload.1.stop": "2ms",
    "workload.1.fan_out": 16,
    "workload.1.qps": 400,
}


def _tiny(exp: Experiment) -> Experiment:
    def variants(mode: str) -> list[Variant]:
        return [Variant(v.label, {**v.overrides, **TINY}, v.group) for v in exp.variants(mode)]

    return Experiment(**{**exp.__dict__, "variants": variants})


def test_tiny_experiments_end_to_end(tmp_path):
    exps = [_tiny(PAPER.experiment(n)) for n in ("sec2_dibs_naive", "fig13_prob")]
    paper = Paper(PAPER.name, PAPER.title, PAPER.source, exps)
    out = tmp_path / "deflection"
    claims = run_paper(paper, out, mode="quick", jobs=1)
    assert {c.experiment for c in claims} == {"sec2_dibs_naive", "fig13_prob"}
    table = pd.read_csv(out / "claims.csv")
    assert len(table) == len(claims) >= 5
    assert set(table["verdict"]) <= VERDICTS
    assert (table["measured"] != "not measured").all(), table
    missed = table[~table["verdict"].isin(["agrees", "direction; no number", "new"])]
    assert missed["note"].str.startswith("measured: ").all(), missed
    for name in ("sec2_dibs_naive", "fig13_prob"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 0
        m = pd.read_csv(out / "metrics" / f"{name}.csv")
        assert (m["status"] == "ok").all()
        assert (m["queries_finished"] == m["queries"]).all() and (m["queries"] > 0).all()
        assert m["qct_mean_ms"].gt(0).all() and m["unfinished"].eq(0).all()
    m = pd.read_csv(out / "metrics" / "sec2_dibs_naive.csv").set_index("scheme")
    assert m.loc["ECMP", "deflections"] == 0 and m.loc["DIBS", "deflections"] > 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "Practical Packet Deflection" in report and "Fig 13" in report
    assert (out / "claims.md").read_text(encoding="utf-8").startswith("# Claims")


def test_run_metrics_of_a_small_run():
    scenario = find_scenarios("deflection") / "leafspine.toml"
    over = {**TINY, "switch.deflection": {"kind": "dibs"}, "transport.tcp.fast_retransmit": False}
    result = hopsim.run(scenario, overrides=over)
    m = deflection.run_metrics(result)
    q = result.qct()
    assert m["queries"] == len(q) > 0 and m["queries_finished"] == int(q["finished"].sum())
    assert m["qct_p99_ms"] >= m["qct_p50_ms"] > 0
    assert m["deflections"] == result.summary["deflections"] > 0
    assert 0 <= m["reorder_pct"] <= 100
    per_flow = result.flows["timeouts"]
    assert m["timeouts3_pct"] == pytest.approx(100 * float((per_flow >= 3).mean()))
    assert 0 <= m["timeouts3_pct"] <= 100 and m["qct_drift"] > 0
    assert math.isnan(m["elephant_goodput_gbps"]) or m["elephant_goodput_gbps"] > 0
