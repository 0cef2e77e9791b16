"""Reports and summaries that say what happened (issue 27, item 3): the fabric rate is the
switch-to-switch links', every flow-control policy's frames and paused time appear under
its own name, plots say per run what is missing, and spines are spines."""

from __future__ import annotations

from pathlib import Path

import pytest

import hopsim
from hopsim.cli import main

ROOT = Path(__file__).parent.parent
QUICKSTART = str(ROOT / "scenarios" / "quickstart.toml")
SMALL = Path(__file__).parent / "data" / "small.toml"


def test_summary_fabric_rate_is_the_switch_to_switch_links(tmp_path, capsys):
    code = main(
        [
            "run",
            QUICKSTART,
            "-o",
            str(tmp_path / "q"),
            "--set",
            'topology.fabric_rate="40Gbps"',
            "--set",
            'duration="20us"',
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "host links 100Gbps, fabric 40Gbps" in out, out
    # Both rates differ from the host links' (and from each other): the ToR ports facing
    # hosts are host links, not fabric.
    r = hopsim.run(SMALL, overrides={"topology.fabric_rate": "25Gbps", "duration": "20us"})
    assert r.summary["setup"]["fabric_rate"] == "25Gbps"
    assert r.summary["setup"]["host_rate"] == "100Gbps"


@pytest.fixture(scope="module")
def pfc_and_pyrrha() -> dict[str, hopsim.Result]:
    """The small scenario under PFC and under Pyrrha, both with their frames recorded."""
    short = {"duration": "150us", "output.control_frames": True}
    return {
        "PFC": hopsim.run(SMALL, overrides=short),
        "Pyrrha": hopsim.run(
            SMALL,
            overrides={
                **short,
                "switch.pfc.enabled": False,
                "switch.flow_control.kind": "pyrrha",
            },
        ),
    }


def test_each_flow_controls_pauses_appear_under_its_own_name(pfc_and_pyrrha):
    from hopsim import analysis

    pyrrha = pfc_and_pyrrha["Pyrrha"]
    sent = pyrrha.summary["control_frames_sent"]
    assert sent["pyrrha_pause"] > 0 and pyrrha.summary["pfc_pause_frames"] == 0
    table = analysis.compare(pfc_and_pyrrha)
    assert table.loc["pyrrha PAUSE frames", "Pyrrha"] == sent["pyrrha_pause"]
    assert table.loc["pyrrha PAUSE frames", "PFC"] == 0
    assert table.loc["pfc PAUSE frames", "PFC"] == pfc_and_pyrrha["PFC"].summary["pfc_pause_frames"]
    assert table.loc["pfc PAUSE frames", "Pyrrha"] == 0
    spread = pyrrha.pause_spread()
    assert spread.policy == "pyrrha" and spread.recorded
    assert table.loc["pyrrha pauses in force max", "Pyrrha"] == spread.max >= 1
    assert table.loc["pyrrha pauses in force mean", "Pyrrha"] > 0
    paused_us = table.loc["pyrrha paused port time (us)", "Pyrrha"]
    assert paused_us > 0
    assert paused_us == pytest.approx(pyrrha.ports["paused_time_ns"].sum() / 1e3)
    # Pyrrha's (port, root) pauses, replayed from its frames, cover at least the time its
    # ports spent with a paused queue (a port may hold several paused roots; frames take
    # effect a link later).
    assert spread.mean * spread.end_ns / 1e3 >= 0.9 * paused_us


def test_a_pyrrha_merge_ends_the_pause_of_the_root_it_replaces():
    import pandas as pd

    from hopsim import analysis

    frames = pd.DataFrame(
        {
            "time_ns": [10.0, 20.0, 30.0, 40.0],
            "node": [1, 1, 1, 1],
            "port": [0, 0, 0, 0],
            "kind": ["pyrrha_pause", "pyrrha_pause", "pyrrha_merge", "pyrrha_resume"],
            "subject": [7, 8, 9, 8],
            "pause": [True, True, False, False],
            "resumes": pd.array([None, None, 7, 8], dtype="Int64"),
        }
    )
    r = hopsim.Result(
        pd.DataFrame({"flow_id": []}),
        pd.DataFrame({"node": [], "port": [], "tier": []}),
        pd.DataFrame(),
        {"sim_time_ns": 100.0, "flow_control": "pyrrha"},
        {},
        control_frames=frames,
    )
    spread = analysis.pause_spread(r)
    assert spread.timeline["paused"].tolist() == [0, 1, 2, 1, 0]
    assert spread.policy == "pyrrha"


def test_pause_figure_names_each_flow_control(pfc_and_pyrrha):
    from hopsim import plots

    fig = plots.pause_spread(pfc_and_pyrrha)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[0].startswith("PFC: pfc (max ") and labels[1].startswith("Pyrrha: pyrrha (max ")
    assert "max 0," not in labels[1]


def test_pause_plot_says_per_run_what_is_missing(tmp_path, capsys):
    """A did not record its PAUSE frames, B ran without flow control: the plot says so of
    each, not "no PAUSE frames in any run"."""
    a = hopsim.run(SMALL, overrides={"duration": "150us", "output.pfc_events": False})
    b = hopsim.run(SMALL, overrides={"duration": "150us", "switch.pfc.enabled": False})
    assert a.summary["pfc_pause_frames"] > 0
    dirs = [a.write(tmp_path / "A"), b.write(tmp_path / "B")]
    code = main(["plot", *map(str, dirs), "--kind", "pauses", "-o", str(tmp_path / "fig")])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 0, text
    sent = f"{a.summary['pfc_pause_frames']:,}"
    assert f"A: {sent} pfc PAUSE frames sent but not recorded" in text, text
    assert "[output] pfc_events = true" in text, text
    assert "B: no flow control" in text, text
    assert "in any run" not in text


def test_buffer_plot_leaves_out_the_empty_host_bar():
    from hopsim import plots

    r = hopsim.run(SMALL, overrides={"duration": "100us"})
    peaks = r.buffer_by_tier()
    host = peaks[(peaks["measure"] == "egress_queue") & (peaks["tier"] == "host")]
    assert (host["max_bytes"] == 0).all()  # the case the plot leaves out
    fig = plots.buffer_by_tier(r)
    switch_ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    hop_ticks = [t.get_text() for t in fig.axes[1].get_xticklabels()]
    assert switch_ticks == ["tor", "spine"]
    assert hop_ticks == ["src_tor", "spine", "dst_tor"]  # the agg hop of a leaf-spine


def test_sweep_panels_all_zero_and_overlapping_lines():
    import pandas as pd

    from hopsim import sweep_report

    table = pd.DataFrame(
        {
            "point": [0, 1, 2, 3],
            "scheme": ["a", "a", "b", "b"],
            "load": [0.3, 0.5, 0.3, 0.5],
            "seed": [1, 1, 1, 1],
            "status": ["ok"] * 4,
            "slowdown_p50": [2.0, 3.0, 2.0, 3.0],  # both schemes on the same points
            "drops": [0, 0, 0, 0],
            "pause_frames": [10, 20, 10, 20],
            "pfc_pause_frames": [10, 20, 10, 20],
        }
    )
    fig = sweep_report.figure_for(table, "load", ["scheme", "load"])
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert "PFC pause frames" not in titles  # shown once, as every flow control's frames
    drops = next(ax for ax in fig.axes if ax.get_title() == "drops")
    lo, hi = drops.get_ylim()
    assert (lo, hi) == (-0.05, 1) and [t for t in drops.get_yticks()] == [0]
    assert any(t.get_text() == "0 at every point" for t in drops.texts)
    slow = next(ax for ax in fig.axes if ax.get_title() == "slowdown p50")
    a, b = slow.lines[0], slow.lines[1]
    assert a.get_marker() != b.get_marker() and a.get_linestyle() != b.get_linestyle()
    assert a.get_markersize() > b.get_markersize()  # the one beneath shows round it


def test_describe_names_each_flow_controls_frames_and_zero_counters(pfc_and_pyrrha):
    text = pfc_and_pyrrha["Pyrrha"].describe()
    sent = pfc_and_pyrrha["Pyrrha"].summary["control_frames_sent"]
    merges = pfc_and_pyrrha["Pyrrha"].summary["counters"]["pyrrha_merges"]
    assert f"{sent['pyrrha_pause']:,} PAUSE frames, {sent['pyrrha_merge']:,} MERGE frames" in text
    assert f"MERGE frames sent for {merges:,} root merges" in text
    assert "PFC pauses" not in text  # Pyrrha's run sent none; its own line says what it did
    assert "PFC pauses" in pfc_and_pyrrha["PFC"].describe()
    # A mechanism that ran and never acted prints its zero.
    quiet = {"duration": "30us", "switch.pfc.enabled": False, "workload.1.fan_in": 1}
    bfc = hopsim.run(SMALL, overrides={**quiet, "switch.flow_control.kind": "bfc"})
    assert bfc.summary["control_frames_sent"]["bfc_pause"] == 0
    assert "BFC pauses    0 (resumes 0)" in bfc.describe()
    dibs = hopsim.run(
        SMALL,
        overrides={
            **quiet,
            "switch.flow_control.kind": "none",
            "switch.deflection.kind": "dibs",
            "switch.buffer_bytes": "32MB",
            "transport.loss_recovery": "irn",
        },
    )
    assert dibs.summary["deflections"] == 0
    assert "deflections   0 (the deflection policy never acted" in dibs.describe()
    admission = dibs.summary["setup"]["admission"]
    assert f'switch.admission.kind = "{admission}"' in dibs.describe()


def test_congestion_trees_draw_spines_on_their_own_row():
    from hopsim import plots

    r = hopsim.run(
        SMALL,
        overrides={
            "duration": "150us",
            "switch.pfc.enabled": False,
            "switch.flow_control.kind": "pyrrha",
            "output.congestion_trees.interval": "20us",
        },
    )
    assert set(r.switches["tier"]) == {"tor", "spine"}
    fig = plots.congestion_trees(r, panels=1)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["host", "tor", "spine"], labels
