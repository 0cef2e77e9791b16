"""The hopsim command line: run, validate, bench, workloads, and its error reporting."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from contract import CONTRACT_FLOW_COLUMNS, CONTRACT_SUMMARY_KEYS

import hopsim
from hopsim.bench import REPORT_KEYS
from hopsim.cli import main

DATA = Path(__file__).parent / "data"
SMALL = str(DATA / "small.toml")
STAR = str(DATA / "star.toml")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("hopsim: error: "), err
    return lines[0]


def test_run_writes_outputs_and_prints_a_summary(tmp_path, capsys):
    out = tmp_path / "out"
    code, stdout, _ = run_cli(capsys, "run", SMALL, "-o", str(out))
    assert code == 0
    flows = pd.read_parquet(out / "flows.parquet")
    for col in CONTRACT_FLOW_COLUMNS:
        assert col in flows.columns
    summary = json.loads((out / "summary.json").read_text())
    for key in CONTRACT_SUMMARY_KEYS:
        assert key in summary
    assert summary["flows_total"] == len(flows)
    scenario = json.loads((out / "scenario.json").read_text())
    assert scenario["name"] == "small"
    assert f"{summary['flows_finished']:,} of {summary['flows_total']:,}" in stdout
    assert "p99" in stdout


def test_run_default_output_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = run_cli(capsys, "run", STAR, "--quiet")
    assert code == 0
    assert (tmp_path / "runs" / "star" / "flows.parquet").is_file()


def test_existing_output_directory_needs_force(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    code, stdout, err = run_cli(capsys, "run", STAR, "-o", str(out))
    assert code == 2
    assert "--force" in one_line_error(err)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert (out / "notes.txt").read_text() == "keep me"

    code, _, _ = run_cli(capsys, "run", STAR, "-o", str(out), "--force", "--quiet")
    assert code == 0
    assert (out / "flows.parquet").is_file()
    assert (out / "notes.txt").read_text() == "keep me"


def test_set_overrides_take_effect(tmp_path, capsys):
    base, off = tmp_path / "pfc_on", tmp_path / "pfc_off"
    assert run_cli(capsys, "run", SMALL, "-o", str(base), "-q")[0] == 0
    code, _, _ = run_cli(
        capsys, "run", SMALL, "-o", str(off), "-q", "--set", "switch.pfc.enabled=false"
    )
    assert code == 0
    on_summary = json.loads((base / "summary.json").read_text())
    off_summary = json.loads((off / "summary.json").read_text())
    assert on_summary["pfc_pause_frames"] > 0
    assert off_summary["pfc_pause_frames"] == 0
    scenario = json.loads((off / "scenario.json").read_text())
    assert scenario["switch"]["pfc"]["enabled"] is False


def test_seed_determines_the_flow_table(tmp_path, capsys):
    runs = {}
    for label, seed in (("a", 1), ("b", 1), ("c", 2)):
        out = tmp_path / label
        assert run_cli(capsys, "run", SMALL, "-o", str(out), "-q", "--set", f"seed={seed}")[0] == 0
        runs[label] = pd.read_parquet(out / "flows.parquet")
    pd.testing.assert_frame_equal(runs["a"], runs["b"])
    assert not runs["a"].equals(runs["c"])


@pytest.mark.parametrize(
    ("scenario", "overrides", "expected"),
    [
        # unknown fields, at the top level and inside a table
        (SMALL, ["switch.pfcc.enabled=false"], ["switch", "pfcc"]),
        (SMALL, ["topology.spinez=3"], ["topology", "spinez"]),
        # wrong type
        (SMALL, ["switch.pfc.enabled=yes"], ["switch.pfc.enabled:", "boolean"]),
        (SMALL, ["seed=-1"], ["seed:"]),
        # a negative rate
        (SMALL, ['topology.host_rate="-5Gbps"'], ["topology", "-5Gbps"]),
        # an out-of-range value checked after parsing
        (SMALL, ["switch.pfc.alpha=2"], ["switch.pfc.alpha:", "2"]),
        # an unknown built-in workload
        (SMALL, ['workload.0.size_dist="websurch"'], ["workload[0].size_dist:", "websurch"]),
        # a topology file whose graph is not connected
        (
            STAR,
            ["topology.file=disconnected_topology.txt"],
            ["disconnected_topology.txt", "not connected"],
        ),
        # malformed HPCC topology and flow files: the message names file and line
        (STAR, ["topology.file=bad_rate_topology.txt"], ["bad_rate_topology.txt:5:", "fastest"]),
        (STAR, ["workload.file=bad_flows.txt"], ["bad_flows.txt:3:", "lots"]),
        (STAR, ["workload.file=missing_flows.txt"], ["missing_flows.txt"]),
        # bad --set syntax
        (SMALL, ["seed"], ["--set seed:", "KEY=VALUE"]),
        (SMALL, ["workload.7.load=0.1"], ["--set workload.7.load=0.1", "out of range"]),
    ],
)
def test_bad_input_is_one_line_naming_the_culprit(tmp_path, capsys, scenario, overrides, expected):
    argv = ["run", scenario, "-o", str(tmp_path / "out"), "-q"]
    for o in overrides:
        argv += ["--set", o]
    code, stdout, err = run_cli(capsys, *argv)
    assert code == 2
    line = one_line_error(err)
    for fragment in expected:
        assert fragment in line, line
    assert not (tmp_path / "out").exists()

    # validate reports the same problem
    code, _, err = run_cli(
        capsys, "validate", scenario, *[a for o in overrides for a in ("--set", o)]
    )
    assert code == 2
    assert one_line_error(err) == line


def test_toml_syntax_error_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "broken.toml"
    bad.write_text((DATA / "small.toml").read_text().replace("spines = 2", "spines = = 2"))
    code, _, err = run_cli(capsys, "run", str(bad), "-o", str(tmp_path / "out"))
    assert code == 2
    line = one_line_error(err)
    lineno = bad.read_text().splitlines().index("spines = = 2") + 1
    assert f"broken.toml:{lineno}:" in line


def test_missing_scenario_file(tmp_path, capsys):
    code, _, err = run_cli(capsys, "run", str(tmp_path / "nope.toml"))
    assert code == 2
    assert "nope.toml" in one_line_error(err)


def test_validate_ok(capsys):
    code, out, _ = run_cli(capsys, "validate", SMALL, "--set", "seed=4")
    assert code == 0
    assert "ok" in out


def test_console_entry_point_exit_status(tmp_path):
    cmd = [sys.executable, "-m", "hopsim.cli", "validate", SMALL, "--set", "topology.spinez=3"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert one_line_error(proc.stderr)


def test_bench_list(capsys):
    code, out, _ = run_cli(capsys, "bench", "--list")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    for name in (
        "tiny",
        "fattree-k8-websearch50",
        "clos160-incastmix",
        "fattree-k16-scale",
        "ns3-fattree320-ws30",
        "ns3-fattree320-ws30-1ms",
    ):
        assert name in names


def test_bench_json_is_stable(capsys):
    reports = []
    for _ in range(2):
        code, out, _ = run_cli(capsys, "bench", "tiny", "--json")
        assert code == 0
        reports.append(json.loads(out))
    for report in reports:
        assert tuple(report) == REPORT_KEYS
        assert report["events"] > 0 and report["packet_hops"] > 0
        assert report["wall_seconds"] > 0 and 0 < report["sim_seconds"] <= 200e-6
        assert len(report["checksum"]) == 16
        # The flow table is the one recorded in tiny.toml: any change in results shows.
        assert report["checksum"] == report["expected_checksum"]
        assert report["checksum_matches"] is True
        assert report["cpu"]
    assert reports[0]["checksum"] == reports[1]["checksum"]
    assert reports[0]["events"] == reports[1]["events"]


def test_bench_with_threads_keeps_the_recorded_checksum(capsys):
    """The parallel engine (two partitions: the two racks) reproduces the one-thread flow
    table, so the checksum recorded for one thread still matches."""
    code, out, _ = run_cli(capsys, "bench", "tiny", "--json", "--threads", "2")
    assert code == 0
    report = json.loads(out)
    assert report["threads"] == 2 and report["checksum_matches"] is True
    par = report["parallel"]
    assert par["threads"] == 2 and par["windows"] > 0 and par["transfers"] > 0
    assert sum(par["events"]) == report["events"] and par["critical_events"] <= report["events"]
    code, out, err = run_cli(capsys, "bench", "tiny", "--threads", "3")
    assert code != 0 and "engine.threads" in err and "at most 2" in err
    with pytest.raises(SystemExit):
        run_cli(capsys, "bench", "tiny", "--threads", "0")
    assert "at least 1 thread" in capsys.readouterr().err


SHIPPED_BENCHMARKS = Path(__file__).resolve().parents[1] / "python" / "hopsim" / "benchmarks"


def _bench_copy(monkeypatch, tmp_path, old: str, new: str) -> None:
    """Point the benchmarks at a copy of tiny.toml with `old` replaced by `new`."""
    from hopsim import bench

    text = (SHIPPED_BENCHMARKS / "tiny.toml").read_text()
    assert old in text
    (tmp_path / "tiny.toml").write_text(text.replace(old, new))
    monkeypatch.setattr(bench, "BENCH_DIR", tmp_path)


def test_bench_reports_changed_results(capsys, monkeypatch, tmp_path):
    _bench_copy(monkeypatch, tmp_path, 'checksum = "', 'checksum = "0000000000000000" } #')
    code, out, err = run_cli(capsys, "bench", "tiny", "--json")
    assert code == 1
    report = json.loads(out)
    assert report["checksum_matches"] is False
    assert report["expected_checksum"] == "0000000000000000"
    assert "differs from the recorded 0000000000000000" in err
    assert str(tmp_path / "tiny.toml") in err


def test_bench_table_keys_are_checked(capsys, monkeypatch, tmp_path):
    _bench_copy(monkeypatch, tmp_path, "checksum =", "chcksum =")
    code, _, err = run_cli(capsys, "bench", "tiny")
    assert code == 2
    assert "bench.chcksum" in one_line_error(err)
    _bench_copy(monkeypatch, tmp_path, 'checksum = "', 'checksum = "XY')
    code, _, err = run_cli(capsys, "bench", "tiny")
    assert code == 2
    assert "bench.checksum must be 16 lower-case hex digits" in one_line_error(err)


def test_bench_several_names_one_process_each(capfd):
    from hopsim.cli import main

    assert main(["bench", "tiny", "tiny", "--json"]) == 0
    lines = capfd.readouterr().out.splitlines()
    reports = [json.loads(line) for line in lines]
    assert [r["benchmark"] for r in reports] == ["tiny", "tiny"]
    assert tuple(reports[0])[1:] == REPORT_KEYS
    assert reports[0]["checksum"] == reports[1]["checksum"]


def test_bench_human_table_and_unknown_name(capsys):
    code, out, _ = run_cli(capsys, "bench", "tiny")
    assert code == 0
    for key in REPORT_KEYS:
        assert key in out
    code, _, err = run_cli(capsys, "bench", "no-such-bench")
    assert code == 2
    assert "tiny" in one_line_error(err)


def test_bench_without_anchor_is_skipped(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("hopsim.bench.find_anchor", lambda name: None)
    code, out, _ = run_cli(capsys, "bench", "ns3-fattree320-ws30-1ms")
    assert code == 0
    assert "skipped" in out


def test_workloads_lists_builtin_distributions(capsys):
    code, out, _ = run_cli(capsys, "workloads")
    assert code == 0
    assert "websearch" in out
    assert "p99" in out.splitlines()[0]


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert hopsim.__version__ in capsys.readouterr().out
