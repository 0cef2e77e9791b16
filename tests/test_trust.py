"""Results a researcher can trust at a glance (issue 13): run-independent flow classes,
incomplete runs flagged everywhere, whole-or-absent run directories with a manifest, the
ns-3 export, sweep reports and figures that fit the data."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

import hopsim
from hopsim import export, report, sweep, sweep_report
from hopsim.cli import main

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parent.parent
SMALL = str(DATA / "small.toml")
QUICKSTART = str(ROOT / "scenarios" / "quickstart.toml")


@pytest.fixture(scope="module")
def pfc_on_off():
    """The quickstart with PFC on and off, traffic for 0.5 ms, run to completion."""
    short = {"workload.0.stop": "500us", "workload.1.stop": "500us"}
    on = hopsim.run(QUICKSTART, overrides=short)
    off = hopsim.run(QUICKSTART, overrides={**short, "switch.pfc.enabled": False})
    return on, off


def test_classes_do_not_depend_on_the_run(pfc_on_off):
    on, off = pfc_on_off
    assert on.status == off.status == "complete"
    assert not on.flows["fct_ns"].equals(off.flows["fct_ns"]), "the runs differ"
    pd.testing.assert_series_equal(on.flows["class"], off.flows["class"])
    counts = on.flows["class"].value_counts()
    assert counts["congested"] == (on.flows["tag"] == "incast").sum()
    assert counts["vulnerable"] > 0 and counts["background"] > 0


def test_classes_survive_trace_replay(pfc_on_off, tmp_path):
    on, _ = pfc_on_off
    on.write(tmp_path / "run")
    replay = {
        "topology": on.scenario["topology"],
        "switch": on.scenario["switch"],
        "workload": {
            "kind": "flows",
            "file": str(tmp_path / "run" / "flows.parquet"),
            "format": "parquet",
        },
    }
    again = hopsim.run(replay)
    assert again.checksum() == on.checksum()
    pd.testing.assert_series_equal(again.flows["class"], on.flows["class"])
    # An HPCC flow file has no class column: the workload says its flows are congested.
    star = hopsim.run(DATA / "star.toml", overrides={"workload.congested": True})
    assert set(star.flows["class"]) == {"congested"}


def test_incomplete_runs_are_flagged(tmp_path, capsys):
    cut = hopsim.run(SMALL)  # 300 us of traffic and a 300 us limit
    s = cut.summary
    assert s["flows_finished"] < s["flows_total"]
    assert s["status"] == cut.status == "incomplete"
    assert s["flows_unfinished"] == s["flows_total"] - s["flows_finished"]
    text = cut.describe()
    assert "WARNING" in text and "did not finish before the time limit" in text
    assert f"the {s['flows_finished']:,} finished flows only" in text
    assert "(incomplete)" in repr(cut)
    # The quiet command line still says so, on stderr.
    assert main(["run", SMALL, "-o", str(tmp_path / "q"), "-q"]) == 0
    assert "hopsim: warning:" in capsys.readouterr().err
    # A report carries a banner; a figure's title says the statistics are partial.
    out = report.write_report({"cut": cut}, tmp_path / "rep")
    page = out.read_text()
    assert 'class="banner"' in page and "Run cut is incomplete" in page
    from hopsim import plots

    assert "finished flows only" in plots.slowdown_vs_size(cut).axes[0].get_title()


def test_the_summary_says_what_ran(pfc_on_off):
    on, off = pfc_on_off
    text = on.describe()
    lines = text.splitlines()
    assert lines[1].startswith("network       leaf_spine (4 spines, 4 leaves × 8 hosts): 32 hosts")
    assert "cc dcqcn" in lines[2] and "flow control pfc (dynamic)" in lines[2]
    assert "load balancer ecmp" in lines[2]
    assert "poisson websearch at load 0.5" in lines[3] and "incast 16-to-1 every 200us" in lines[3]
    assert lines[4].startswith("offered load  ")
    assert "slowdown by tag" in text and "  incast " in text
    assert "flow control none" in off.describe()
    if off.summary["timeouts"] or off.summary["retransmitted_bytes"]:
        assert "retransmits" in off.describe()
    assert "retransmits" not in text  # none with PFC


# ---------------------------------------------------------------- run directories


def test_a_run_directory_has_a_manifest_that_read_checks(pfc_on_off, tmp_path):
    on, _ = pfc_on_off
    out = on.write(tmp_path / "run")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"]["flows.parquet"]["rows"] == len(on.flows)
    assert set(manifest["files"]) == {p.name for p in out.iterdir()} - {"manifest.json"}
    hopsim.Result.read(out)
    other = tmp_path / "other"
    on.flows.head(3).to_parquet(other)
    os.replace(other, out / "flows.parquet")  # a table from somewhere else
    with pytest.raises(ValueError, match="flows.parquet differs from manifest.json"):
        hopsim.Result.read(out)
    on.write(tmp_path / "run2")
    (tmp_path / "run2" / "queues.parquet").write_bytes((out / "ports.parquet").read_bytes())
    with pytest.raises(ValueError, match="queues.parquet is not listed"):
        hopsim.Result.read(tmp_path / "run2")


def test_an_empty_directory_is_used_a_full_one_needs_force(pfc_on_off, tmp_path):
    on, off = pfc_on_off
    empty = tmp_path / "empty"
    empty.mkdir()
    on.write(empty)
    assert (empty / "manifest.json").is_file()
    with pytest.raises(FileExistsError, match="not empty"):
        off.write(empty)
    (empty / "notes.txt").write_text("mine")
    off.write(empty, force=True)
    assert hopsim.Result.read(empty).checksum() == off.checksum()
    assert (empty / "notes.txt").read_text() == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["empty"], "no temporary left behind"


def test_the_output_location_is_checked_before_simulating(tmp_path, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    started = time.perf_counter()
    assert main(["run", QUICKSTART, "-o", str(blocker / "out")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert time.perf_counter() - started < 2, "refused before simulating"


def test_an_unwritable_output_location_is_refused_before_simulating(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who may write anywhere (root)")
        started = time.perf_counter()
        assert main(["run", QUICKSTART, "-o", str(locked / "out")]) == 2
        assert time.perf_counter() - started < 5
        assert "permission denied" in capsys.readouterr().err.lower()
    finally:
        locked.chmod(0o700)


_WRITER = textwrap.dedent(
    """
    import os, sys, time
    import pandas as pd
    import hopsim
    r = hopsim.Result.read(sys.argv[1])
    slow = pd.DataFrame.to_parquet
    def stall(self, path, *a, **k):
        slow(self, path, *a, **k)
        if str(path).endswith("ports.parquet"):
            print("writing", flush=True)
            time.sleep(60)
    pd.DataFrame.to_parquet = stall
    r.write(sys.argv[2], force=True)
    """
)


def _killed_while_writing(source: Path, target: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(source), str(target)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "writing"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_a_run_killed_while_writing_leaves_no_directory_and_force_keeps_the_old_run(
    pfc_on_off, tmp_path
):
    on, off = pfc_on_off
    source = on.write(tmp_path / "source")
    fresh = tmp_path / "fresh"
    _killed_while_writing(source, fresh)
    assert not fresh.exists(), "a killed first write leaves no run directory"
    assert [p.name for p in tmp_path.glob(".fresh.hopsim-tmp-*")], "only a hidden temporary"
    on.write(fresh)
    assert not list(tmp_path.glob(".fresh.*")), "the next write cleans it up"
    old = off.write(tmp_path / "old")
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    _killed_while_writing(source, old)
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before, "the old run is intact"
    assert hopsim.Result.read(old).checksum() == off.checksum()


# ---------------------------------------------------------------- ns-3 export


def test_export_writes_the_hpcc_fct_and_pfc_logs(pfc_on_off, tmp_path, capsys):
    on, _ = pfc_on_off
    run = on.write(tmp_path / "run")
    fct = tmp_path / "fct.txt"
    assert main(["export", str(run), "--format", "hpcc-fct", "-o", str(fct)]) == 0
    lines = fct.read_text().splitlines()
    assert len(lines) == on.summary["flows_finished"]
    table = export.read_hpcc_fct(fct)
    flows = on.flows.sort_values(["finish_ns", "flow_id"], kind="stable").reset_index(drop=True)
    assert (table["size_bytes"] == flows["size_bytes"]).all()
    assert (table["fct_ns"] - flows["fct_ns"].astype(float)).abs().max() <= 0.5
    assert (table["standalone_fct_ns"] - flows["ideal_fct_ns"]).abs().max() <= 0.5
    assert table.loc[0, "sip"] == f"{export.hpcc_ip(int(flows.loc[0, 'src'])):08x}"
    assert export.hpcc_ip(0) == 0x0B000001 and export.hpcc_ip(257) == 0x0B010101
    assert set(table["dport"]) == {100}
    # ns-3's fct_analysis.py reads slowdown as $7 / $8, clipped at 1.
    first = lines[0].split()
    assert len(first) == 8 and int(first[6]) / int(first[7]) >= 0.9
    pfc = (tmp_path / "pfc.txt").read_text().splitlines()
    assert len(pfc) == on.summary["pfc_pause_frames"] + on.summary["pfc_resume_frames"]
    t, node, kind, if_index, pause = (int(x) for x in pfc[0].split())
    assert kind in (0, 1) and if_index >= 1 and pause == 1
    # Existing files are not overwritten without --force.
    assert main(["export", str(run), "--format", "hpcc-fct", "-o", str(fct)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["export", str(run), "--format", "hpcc-fct", "-o", str(fct), "--force"]) == 0


# ---------------------------------------------------------------- sweeps and figures


def test_sweep_report_draws_metrics_against_parameters(tmp_path, capsys):
    spec = {
        "name": "mini",
        "scenario": str(ROOT / "scenarios" / "quickstart.toml"),
        "set": {"workload.0.stop": "300us", "workload.1.stop": "300us"},
        "grid": {"switch.pfc.enabled": [True, False], "workload.0.load": [0.3, 0.5]},
        "seeds": [1, 2],
    }
    out = tmp_path / "sweep"
    table = sweep.run_sweep(spec, outdir=out, jobs=1)
    assert list(table["status"]) == ["ok"] * 8
    assert sweep_report.swept_fields(sweep_report.read_sweep_table(out)) == [
        "switch.pfc.enabled",
        "workload.0.load",
    ]
    assert main(["report", str(out), "-o", str(tmp_path / "rep")]) == 0
    names = sorted(p.name for p in (tmp_path / "rep").iterdir())
    assert names == ["report.html", "sweep_switch.pfc.enabled.png", "sweep_workload.0.load.png"]
    fig = sweep_report.figure_for(
        table.assign(finished_share=1.0),
        "workload.0.load",
        ["switch.pfc.enabled", "workload.0.load"],
    )
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["enabled=true", "enabled=false"]
    assert fig.axes[0].lines[0].get_xdata().tolist() == [0.3, 0.5]
    assert "mean ± std over 2 seeds" in fig._suptitle.get_text()


def test_incomplete_sweep_points_are_flagged(tmp_path, capsys):
    spec = {"scenario": SMALL, "grid": {"seed": [1, 2]}}
    assert main(["validate", _write(tmp_path / "s.toml", spec)]) == 0
    assert "a sweep file: 2 points" in capsys.readouterr().out
    code = main(["sweep", _write(tmp_path / "s.toml", spec), "-o", str(tmp_path / "o"), "-j", "1"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "incomplete" in out and "WARNING" in out
    assert "2 of 2 points ended with unfinished flows" in err


def _write(path: Path, spec: dict) -> str:
    lines = [f'scenario = "{spec["scenario"]}"', "[grid]"]
    lines += [f'"{k}" = {json.dumps(v)}' for k, v in spec["grid"].items()]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_plot_cli_cdf_of_slowdown_and_replotting_without_force(pfc_on_off, tmp_path, capsys):
    on, off = pfc_on_off
    a, b = on.write(tmp_path / "a"), off.write(tmp_path / "b")
    plots_dir = tmp_path / "plots"
    argv = ["plot", "--label", "PFC on", "PFC off", str(a), str(b), "-o", str(plots_dir)]
    assert main([*argv, "--kind", "cdf", "--metric", "slowdown"]) == 0
    assert "fct_cdf.png" in capsys.readouterr().out
    assert main([*argv, "--kind", "slowdown"]) == 0, "a figures-only directory is reused"
    (plots_dir / "notes.txt").write_text("mine")
    assert main([*argv, "--kind", "slowdown"]) == 2
    assert "--force" in capsys.readouterr().err


def test_figures_fit_the_data(pfc_on_off):
    from hopsim import plots

    on, off = pfc_on_off
    fig = plots.slowdown_vs_size({"on": on, "off": off})
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    labels = [t.get_text() for t in ax.texts]
    counts = on.slowdown_by_size()["count"]
    assert [f"n={n}" for n in counts if n] == labels[: (counts > 0).sum()]
    cdf = plots.fct_cdf({"on": on, "off": off}, metric="slowdown")
    assert cdf.axes[0].get_xlabel() == "FCT slowdown"
    # A run without throughput samples gets no empty panel.
    traced = hopsim.run(
        QUICKSTART,
        overrides={
            "workload.0.stop": "200us",
            "workload.1.stop": "200us",
            "output.throughput.interval": "50us",
        },
    )
    fig = plots.throughput({"traced": traced, "untraced": on})
    panels = [a for a in fig.axes if a.get_visible()]
    assert len(panels) == 1 and "not recorded in: untraced" in fig._suptitle.get_text()


def test_median_queuing_delay_of_packets_that_never_waited_is_zero():
    from hopsim import analysis

    r = hopsim.Result.__new__(hopsim.Result)
    r.summary = {}
    r.queue_delay = pd.DataFrame(
        {"hop_tier": ["agg"] * 2, "lower_ns": [0, 100], "upper_ns": [1, 112], "packets": [90, 10]}
    )
    table = analysis.queue_delay_summary(r)
    assert table.loc["agg", "p50_ns"] == 0
    assert table.loc["agg", "p99_ns"] == 112
