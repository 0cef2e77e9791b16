"""BFC and Pyrrha from Python (their tables, summaries, figures and run-independent flow
classes) and `hopsim reproduce` (listing, a real experiment end to end, resuming, the
claims files, bad input)."""

from __future__ import annotations

import pandas as pd
import pytest

import hopsim
from hopsim import plots, reproduce
from hopsim.cli import main
from hopsim.reproduce.framework import Experiment, Paper, Variant, _sweep_spec, find_scenarios

# Leaf-spine, one spine: a 4-to-1 incast into host 8 from two leaves, and a victim flow
# (host 7 to host 9) sharing the spine's port down to the receivers' leaf.
FALSE_ROOT = """
[topology]
kind = "leaf_spine"
spines = 1
leaves = 3
hosts_per_leaf = 4
fabric_rate = "400Gbps"
fabric_delay = "100ns"
[switch.flow_control]
kind = "pyrrha"
[transport]
cc = "none"
[output.congestion_trees]
interval = "1us"
[workload]
kind = "flows"
flows = [
  { src = 0, dst = 8, size = "200KB" }, { src = 1, dst = 8, size = "200KB" },
  { src = 2, dst = 8, size = "200KB" }, { src = 4, dst = 8, size = "200KB" },
  { src = 7, dst = 9, size = "300KB", tag = "victim" },
]
"""


def test_pyrrha_tables_summary_and_tree_figure(tmp_path):
    result = hopsim.run(FALSE_ROOT)
    assert len(result.flows) == 5 and result.flows["finish_ns"].notna().all()
    counters = result.summary["flow_control_counters"]
    assert counters["pyrrha_roots_nominated"] >= 2 and counters["pyrrha_merges"] >= 1
    usage = result.iq_usage
    assert list(usage.columns) == ["time_ns", "node", "port", "hop_tier", "iqs"]
    assert usage["iqs"].max() == counters["pyrrha_max_iqs_per_port"]
    assert usage["time_ns"].is_monotonic_increasing
    trees = result.congestion_trees
    assert {"root", "iq"} <= set(trees["role"])
    assert set(trees["state"]) <= {"paused", "resumed", "merging", "root"}
    # The spine's port to the receivers' leaf (node 15, port 2) and the real root (leaf 2's
    # port to host 8: node 14, port 0) both appear as roots.
    roots = set(zip(trees["root_node"], trees["root_port"]))
    assert {(15, 2), (14, 0)} <= roots
    fig = plots.congestion_trees(result, panels=2)
    fig.savefig(tmp_path / "trees.png")
    assert (tmp_path / "trees.png").stat().st_size > 0
    out = tmp_path / "run"
    result.write(out)
    again = hopsim.Result.read(out)
    pd.testing.assert_frame_equal(again.congestion_trees, trees, check_dtype=False)
    assert "Pyrrha" in result.describe()


def test_tree_figure_needs_snapshots():
    result = hopsim.run(FALSE_ROOT.replace('[output.congestion_trees]\ninterval = "1us"\n', ""))
    assert result.congestion_trees.empty
    with pytest.raises(plots.NoData):
        plots.congestion_trees(result)


def test_congestion_trees_are_pyrrhas():
    with pytest.raises(hopsim.ScenarioError, match="output.congestion_trees"):
        hopsim.run(FALSE_ROOT, overrides={"switch.flow_control.kind": "bfc"})


MIX = """
seed = 4
[topology]
kind = "leaf_spine"
spines = 2
leaves = 4
hosts_per_leaf = 4
[transport]
cc = "none"
[[workload]]
kind = "poisson"
size_dist = "websearch"
load = 0.5
stop = "100us"
exclude_dst = [0]
[[workload]]
kind = "incast"
receiver = 0
fan_in = 12
size_min = "20KB"
size_max = "40KB"
period = "50us"
stop = "100us"
"""


def test_flow_classes_do_not_depend_on_the_flow_control():
    """Pyrrha's congested / vulnerable / background classes come from paths and arrival
    times, so PFC, BFC and Pyrrha runs compare the very same flows in each class."""
    classes = {}
    for fc in ("pfc", "bfc", "pyrrha"):
        r = hopsim.run(MIX, overrides={"switch.flow_control.kind": fc})
        assert r.flows["finish_ns"].notna().all(), fc
        classes[fc] = r.flows.set_index("flow_id")["class"]
    assert set(classes["pfc"]) == {"congested", "vulnerable", "background"}
    pd.testing.assert_series_equal(classes["pfc"], classes["bfc"])
    pd.testing.assert_series_equal(classes["pfc"], classes["pyrrha"])


def test_bfc_and_pyrrha_show_in_the_description():
    bfc = hopsim.run(
        MIX, overrides={"switch.flow_control.kind": "bfc", "switch.flow_control.queues": 8}
    )
    text = bfc.describe()
    assert "bfc-8" in text and "BFC pauses" in text


def test_reproduce_list(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pyrrha: Pyrrha")
    for name in ("fig2_hol", "fig11_fc", "fig12_cc", "fig14_buffer", "fig27_params", "fig16_drill"):
        assert name in out
    names = [e.name for e in reproduce.PAPERS["pyrrha"].experiments]
    assert len(names) == len(set(names))


def test_reproduce_runs_an_experiment_and_resumes(tmp_path, capsys):
    out = tmp_path / "pyrrha"
    assert (
        main(
            [
                "reproduce",
                "pyrrha",
                "--quick",
                "--only",
                "fig2_hol",
                "-j",
                "1",
                "-q",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "claims" in printed and "claims.md" in printed
    claims = pd.read_csv(out / "claims.csv")
    assert list(claims.columns) == [
        "experiment", "figure", "section", "claim", "paper", "measured", "direction_agrees",
        "ratio", "effect", "tolerance", "verdict", "note",
    ]  # fmt: skip
    assert len(claims) >= 2 and set(claims["figure"]) == {"Fig 2"}
    assert set(claims["verdict"]) <= set(reproduce.claims.VERDICTS)
    assert (claims["measured"] != "not measured").all(), claims
    # A claim that misses says what was measured (and, at most, a labelled hypothesis).
    missed = claims[~claims["verdict"].isin(["agrees", "direction; no number"])]
    assert missed["note"].str.startswith("measured: ").all(), missed
    assert (out / "figures" / "fig2_hol.png").stat().st_size > 0
    assert (out / "metrics" / "fig2_hol.csv").exists()
    report = (out / "report.md").read_text()
    assert "Fig 2" in report and "quick" in report
    md = (out / "claims.md").read_text()
    assert md.startswith(f"# Claims\n\n{len(claims)} claims: ")
    runs = sorted(p.name for p in (out / "runs" / "fig2_hol").iterdir() if p.is_dir())
    assert len(runs) == 3
    first = {p: (out / "runs" / "fig2_hol" / p / "flows.parquet").stat().st_mtime_ns for p in runs}
    # Resumed: the finished runs are kept, the claims are the same.
    again = reproduce.run("pyrrha", out, mode="quick", jobs=1, only=["fig2_hol"])
    assert [c.measured for c in again] == list(claims["measured"])
    assert first == {
        p: (out / "runs" / "fig2_hol" / p / "flows.parquet").stat().st_mtime_ns for p in runs
    }


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["reproduce", "nosuchpaper"], "unknown paper 'nosuchpaper'; expected one of pyrrha"),
        (["reproduce", "pyrrha", "--only", "fig99"], "fig99"),
        (["reproduce"], "give a PAPER or --list"),
    ],
)
def test_reproduce_bad_input(tmp_path, capsys, argv, expected):
    assert main([*argv, "-o", str(tmp_path / "out")] if len(argv) > 1 else argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("hopsim: error:") and expected in err and err.count("\n") == 1


def test_panels_sharing_a_setting_run_it_once():
    """Fig 27's K_pause 10 with K_resume 1 is in both of its panels: one run serves both."""
    variants = [
        Variant(
            "merge on",
            {"switch.flow_control": {"kind": "pyrrha", "k_pause": 10, "k_resume": 1}},
            "K_pause=10",
        ),
        Variant(
            "merge on",
            {"switch.flow_control": {"kind": "pyrrha", "k_pause": 10, "k_resume": 1}},
            "K_resume=1",
        ),
        Variant(
            "merge on",
            {"switch.flow_control": {"kind": "pyrrha", "k_pause": 2, "k_resume": 1}},
            "K_pause=2",
        ),
    ]
    real = reproduce.PAPERS["pyrrha"].experiment("fig27_params")
    exp = Experiment(**{**real.__dict__, "variants": lambda mode: variants})
    spec, got, point_of = _sweep_spec(
        Paper("pyrrha", "t", "", [exp]), exp, "quick", find_scenarios("pyrrha")
    )
    assert len(spec["point"]) == 2 and point_of == [0, 0, 1] and got == variants


# Pyrrha-NS3's incast-mix on a small leaf-spine: 4 racks of 4 hosts, a 200-to-1 incast.
INCAST_MIX = """
[topology]
kind = "leaf_spine"
spines = 2
leaves = 4
hosts_per_leaf = 4
fabric_rate = "400Gbps"
[transport]
cc = "none"
[[workload]]
kind = "incast_mix"
size_dist = "webserver_intracluster"
mean_size = 62874
load = 0.8
flow_num = 600
fan_in = 200
"""


def test_authors_classes_follow_their_script():
    """The authors' rule (`mix/get_victim_others_fct.py`): a victim is a non-incast flow
    with its source or destination in the incast receiver's rack; the incast is its own
    class; the rest are others. Flows sent from the receiver's rack have their ACKs come
    back through the incast's spine-to-ToR links: hopsim classes them vulnerable."""
    from hopsim.reproduce.pyrrha import _authors_fct, authors_classes

    r = hopsim.run(INCAST_MIX)
    f = r.flows
    a = authors_classes(r)
    rack0 = {0, 1, 2, 3}
    near = f["src"].isin(rack0) | f["dst"].isin(rack0)
    incast = f["tag"] == "incast"
    assert (a[incast] == "incast").all() and incast.sum() == 200
    assert (a[~incast & near] == "victim").all() and (~incast & near).sum() > 0
    assert (a[~incast & ~near] == "others").all()
    assert not ((f["src"] == 0) | (f["dst"] == 0))[~incast].any(), "receiver's flows removed"
    early = ~incast & f["src"].isin(rack0) & (f["start_ns"] < 40_000)
    assert early.any() and (f.loc[early, "class"] == "vulnerable").all()
    m = _authors_fct(r)
    assert m["victim_flows"] + m["others_flows"] == (~incast).sum()
