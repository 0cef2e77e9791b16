"""Sweeps: a grid of scenario variants run in parallel processes, resumable, one results table."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest

import hopsim
from hopsim import sweep
from hopsim.cli import main
from hopsim.scenario import load_toml

ROOT = Path(__file__).resolve().parent.parent
SMALL = Path(__file__).parent / "data" / "small.toml"

# 2 x 2 points over the small leaf-spine, each a few tenths of a second.
SPEC = f"""
name = "tiny"
scenario = "{SMALL.as_posix()}"

[set]
duration = "3ms"
"workload.0.stop" = "3ms"
"workload.1.stop" = "3ms"

[grid]
"switch.pfc.enabled" = [true, false]
"workload.0.load" = [0.3, 0.6]
"""


# The same points, shorter: for tests that need no parallelism.
QUICK = SPEC.replace('"3ms"', '"300us"')


def ran(table) -> list[str]:
    """The status a point that ran must have: ``ok`` when all its flows finished, else
    ``incomplete`` (the small scenario's 300 us limit leaves some unfinished)."""
    return [
        "pending" if pd.isna(done) else "ok" if done == total else "incomplete"
        for done, total in zip(table["flows_finished"], table["flows_total"])
    ]


def write_spec(folder: Path, text: str = SPEC, name: str = "tiny.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def finished_at(outdir: Path) -> dict[str, str]:
    """Each point directory's recorded finish time."""
    return {
        d.name: json.loads((d / "point.json").read_text())["finished_at"]
        for d in outdir.iterdir()
        if (d / "point.json").is_file()
    }


@pytest.fixture(scope="module")
def first_sweep(tmp_path_factory):
    """The 4-point sweep run once with 2 worker processes: (spec file, outdir, table)."""
    folder = tmp_path_factory.mktemp("sweep")
    spec = write_spec(folder)
    outdir = folder / "out"
    table = sweep.run_sweep(spec, outdir=outdir, jobs=2)
    return spec, outdir, table


@pytest.fixture
def copy_of_first(first_sweep, tmp_path):
    """A private copy of the first sweep's output, free to modify."""
    spec, outdir, _ = first_sweep
    copy = tmp_path / "out"
    shutil.copytree(outdir, copy)
    return spec, copy


def test_points_run_in_parallel_processes_and_match_single_runs(first_sweep):
    spec, outdir, table = first_sweep
    assert list(table["status"]) == ran(table)
    assert table.attrs["computed"] == 4 and table.attrs["reused"] == 0
    # The grid, first key outermost, with the values as columns.
    assert list(table["switch.pfc.enabled"]) == [True, True, False, False]
    assert list(table["workload.0.load"]) == [0.3, 0.6, 0.3, 0.6]
    # Run by a pool of worker processes, not by this one.
    pids = set(table["pid"])
    assert os.getpid() not in pids
    assert len(pids) == 2

    # Each point gives what running it alone gives.
    for p, row in zip(sweep.points(spec), table.itertuples()):
        alone = hopsim.run(SMALL, overrides=p.overrides)
        assert row.checksum == alone.checksum()
        assert row.flows_finished == alone.summary["flows_finished"]
        assert row.drops == alone.summary["drops"]
        stored = hopsim.Result.read(outdir / row.run_dir)
        pd.testing.assert_frame_equal(stored.flows, alone.flows, check_dtype=False)
    assert table.loc[0, "pfc_pause_frames"] > 0
    assert table.loc[2, "pfc_pause_frames"] == 0

    # One table on disk, the same as returned; the spec and point list in sweep.json.
    on_disk = pd.read_parquet(outdir / "results.parquet")
    pd.testing.assert_frame_equal(on_disk, table, check_dtype=False)
    csv = pd.read_csv(outdir / "results.csv")
    assert list(csv["checksum"]) == list(table["checksum"])
    for column in ("slowdown_p99", "slowdown_p50[10KB-100KB]", "flows_finished[>1MB]", "seed"):
        assert column in table.columns
    listing = json.loads((outdir / "sweep.json").read_text())
    assert [p["run_dir"] for p in listing["points"]] == list(table["run_dir"])
    assert listing["sweep"]["grid"]["workload.0.load"] == [0.3, 0.6]


def test_second_run_recomputes_nothing(copy_of_first, capsys):
    spec, outdir = copy_of_first
    before = finished_at(outdir)
    table = sweep.run_sweep(spec, outdir=outdir, jobs=2, progress=True)
    assert table.attrs["computed"] == 0 and table.attrs["reused"] == 4
    assert finished_at(outdir) == before
    assert "4 points, 4 done, 0 to run" in capsys.readouterr().err


def test_only_missing_or_incomplete_points_run_again(copy_of_first):
    spec, outdir = copy_of_first
    table = pd.read_parquet(outdir / "results.parquet")
    gone, partial = table.run_dir[1], table.run_dir[2]
    shutil.rmtree(outdir / gone)
    (outdir / partial / "flows.parquet").unlink()
    before = finished_at(outdir)

    again = sweep.run_sweep(spec, outdir=outdir, jobs=1)
    assert again.attrs["computed"] == 2 and again.attrs["reused"] == 2
    after = finished_at(outdir)
    assert {k for k in after if after[k] != before.get(k)} == {gone, partial}
    assert list(again["checksum"]) == list(table["checksum"])


def test_a_changed_spec_does_not_reuse_stale_runs(copy_of_first):
    spec, outdir = copy_of_first
    before = finished_at(outdir)
    changed = write_spec(spec.parent, SPEC.replace('"3ms"', '"2ms"'), "changed.toml")
    # Other [set] values: other points, in other directories (the old ones are left alone).
    pts = sweep.points(changed)
    assert not {p.name for p in pts} & set(before)
    table = sweep.run_sweep(changed, outdir=outdir, jobs=1)
    assert table.attrs["computed"] == 4
    assert (table["sim_time_ns"] == 2e6).all()
    assert finished_at(outdir).items() >= before.items()


def test_a_changed_base_scenario_is_run_again(tmp_path):
    base = tmp_path / "base.toml"
    base.write_text(SMALL.read_text())
    spec = write_spec(tmp_path, 'scenario = "base.toml"\n[grid]\nseed = [1, 2]\n')
    first = sweep.run_sweep(spec, outdir=tmp_path / "out", jobs=1)
    assert first.attrs["computed"] == 2
    assert sweep.run_sweep(spec, outdir=tmp_path / "out", jobs=1).attrs["computed"] == 0

    # Same points, same directories, but the scenario they refine has changed.
    base.write_text(SMALL.read_text().replace('duration = "300us"', 'duration = "200us"'))
    pts = sweep.points(spec)
    assert [p.name for p in pts] == list(first["run_dir"])
    assert not any(sweep.is_done(p, tmp_path / "out") for p in pts)
    again = sweep.run_sweep(spec, outdir=tmp_path / "out", jobs=1)
    assert again.attrs["computed"] == 2
    assert (again["sim_time_ns"] <= 200e3).all()
    assert sorted(d.name for d in (tmp_path / "out").iterdir() if d.is_dir()) == sorted(
        first["run_dir"]
    )


def test_point_names_are_stable_and_readable(tmp_path):
    spec = write_spec(tmp_path)
    names = [p.name for p in sweep.points(spec)]
    assert names == [p.name for p in sweep.points(sweep.load_sweep(spec))]
    assert names[0].startswith("enabled=true_load=0.3-")
    assert len(set(names)) == 4


def test_seeds_and_explicit_points(tmp_path):
    text = (
        "seeds = [1, 2]\n"
        + SPEC
        + """
[[point]]
"switch.pfc.enabled" = false
"workload.0.load" = 0.9
"switch.buffer_bytes" = "1MB"
"""
    )
    pts = sweep.points(write_spec(tmp_path, text))
    assert len(pts) == (4 + 1) * 2
    assert [p.overrides["seed"] for p in pts[:4]] == [1, 2, 1, 2]
    last = pts[-1]
    assert last.overrides["switch.buffer_bytes"] == "1MB" and last.overrides["seed"] == 2
    assert last.overrides["duration"] == "3ms"  # [set] applies to explicit points too
    assert last.varying == ("switch.pfc.enabled", "workload.0.load", "switch.buffer_bytes", "seed")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # a field the scenario does not have: the point and the field are named
        (('"switch.pfc.enabled"', '"switch.pfcc.enabled"'), ["point 0", "switch.pfcc"]),
        # a value out of range, in one point only
        (("[0.3, 0.6]", "[0.3, 6]"), ["point 1", "workload.0.load=6", "load"]),
        # an index past the end of [[workload]]
        (('"workload.0.load"', '"workload.5.load"'), ["workload.5.load", "out of range"]),
        # not a list
        (("[0.3, 0.6]", "0.3"), ["grid.workload.0.load", "list"]),
        # a misspelt top-level key
        (("[grid]", "[grd]"), ["unknown key 'grd'", "grid"]),
        # the base scenario is missing
        ((SMALL.as_posix(), "nope.toml"), ["scenario", "nope.toml"]),
        # a field both fixed and varied
        (
            ('"switch.pfc.enabled" = [', 'duration = ["1ms"]\n"switch.pfc.enabled" = ['),
            ["duration"],
        ),
    ],
)
def test_bad_sweep_is_one_line_naming_the_culprit(tmp_path, capsys, change, expected):
    spec = write_spec(tmp_path, SPEC.replace(*change))
    with pytest.raises(hopsim.ScenarioError) as info:
        sweep.run_sweep(spec, outdir=tmp_path / "out")
    for fragment in expected:
        assert fragment in str(info.value)
    assert not (tmp_path / "out").exists(), "nothing runs before every point is checked"

    code = main(["sweep", str(spec), "-o", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hopsim: error: "), err
    assert expected[0] in lines[0]


def test_failed_point_is_recorded_and_the_others_go_on(tmp_path, monkeypatch, capsys):
    spec = write_spec(tmp_path, QUICK)
    real = sweep._simulate

    def flaky(task):
        if task["overrides"]["workload.0.load"] == 0.6 and task["overrides"]["switch.pfc.enabled"]:
            raise RuntimeError("simulated crash")
        return real(task)

    monkeypatch.setattr(sweep, "_simulate", flaky)
    table = sweep.run_sweep(spec, outdir=tmp_path / "out", jobs=1)
    expected = ran(table)
    expected[1] = "failed"
    assert list(table["status"]) == expected
    assert table.loc[1, "error"] == "RuntimeError: simulated crash"
    assert pd.isna(table.loc[1, "checksum"]) and pd.isna(table.loc[1, "run_dir"])
    assert pd.isna(table.loc[1, "slowdown_p99"]) and table.loc[0, "slowdown_p99"] > 1

    # The command exits with status 1 and names the point.
    code = main(["sweep", str(spec), "-o", str(tmp_path / "cli"), "-j", "1", "-q"])
    assert code == 1
    assert "point 1 failed: RuntimeError: simulated crash" in capsys.readouterr().err

    # The failed point runs again next time; the others are kept.
    monkeypatch.setattr(sweep, "_simulate", real)
    again = sweep.run_sweep(spec, outdir=tmp_path / "out", jobs=1)
    assert list(again["status"]) == ran(again)
    assert again.attrs["computed"] == 1


def test_interrupted_sweep_keeps_finished_points(tmp_path, monkeypatch):
    spec = write_spec(tmp_path, QUICK)
    real, calls = sweep._simulate, []

    def interrupted(task):
        calls.append(task)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(sweep, "_simulate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sweep.run_sweep(spec, outdir=tmp_path / "out", jobs=1)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert list(table["status"]) == [ran(table)[0], "pending", "pending", "pending"]
    assert not list((tmp_path / "out").glob(".tmp-*"))

    monkeypatch.setattr(sweep, "_simulate", real)
    again = sweep.run_sweep(spec, outdir=tmp_path / "out", jobs=1)
    assert again.attrs["computed"] == 3 and again.attrs["reused"] == 1


def test_outdir_of_something_else_is_refused(tmp_path, capsys):
    spec = write_spec(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    code = main(["sweep", str(spec), "-o", str(out), "-q"])
    assert code == 2
    assert "sweep.json" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_cli_dry_run_then_resume(copy_of_first, capsys):
    spec, outdir = copy_of_first
    shutil.rmtree(next(d for d in outdir.iterdir() if d.name.startswith("enabled=false_load=0.6")))
    code = main(["sweep", str(spec), "-o", str(outdir), "--dry-run"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.count("done  ") == 3 and out.count("to run") == 2  # 1 point + the summary
    assert "4 points, 3 done, 1 to run" in out

    code = main(["sweep", str(spec), "-o", str(outdir), "-j", "1"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "3 done, 1 to run" in err
    assert "pfc_pause_frames" in out and "results.csv" in out


def test_cli_default_outdir_and_bad_jobs(tmp_path, capsys, monkeypatch):
    spec = write_spec(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["sweep", str(spec), "-j", "0"])
    assert info.value.code == 2
    capsys.readouterr()
    code = main(["sweep", str(spec), "--dry-run"])
    assert code == 0
    assert "runs/tiny/" in capsys.readouterr().out


def test_example_sweep_is_valid():
    pts = sweep.points(ROOT / "scenarios" / "sweeps" / "pfc_vs_load.toml")
    assert len(pts) == 4
    assert sweep.default_outdir(ROOT / "scenarios" / "sweeps" / "pfc_vs_load.toml") == Path(
        "runs/pfc_vs_load"
    )


def test_ray_missing_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    code = main(["sweep", str(write_spec(tmp_path)), "-o", str(tmp_path / "out"), "--ray", "auto"])
    assert code == 2
    assert "hopsim[ray]" in capsys.readouterr().err


def test_ray_runs_the_same_points(first_sweep, tmp_path):
    ray = pytest.importorskip("ray")
    spec, _, table = first_sweep
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    try:
        on_ray = sweep.run_sweep(spec, outdir=tmp_path / "out", ray_address="auto")
    finally:
        if started:
            ray.shutdown()
    assert list(on_ray["status"]) == ran(on_ray)
    assert list(on_ray["checksum"]) == list(table["checksum"])
    assert os.getpid() not in set(on_ray["pid"])
    assert (tmp_path / "out" / on_ray.run_dir[0] / "flows.parquet").is_file()


def test_dict_spec_inline_scenario_and_mixed_values(tmp_path):
    scenario = load_toml(SMALL)
    spec = {
        "name": "inline",
        "scenario": scenario,
        "grid": {"transport": {"window": ["none", 100_000]}},  # nested tables = dotted paths
    }
    table = sweep.run_sweep(spec, outdir=tmp_path / "out", jobs=1)
    assert list(table["status"]) == ran(table) == ["incomplete", "incomplete"]
    assert list(table["transport.window"]) == ["none", "100000"]  # mixed types: text
    assert pd.read_parquet(tmp_path / "out" / "results.parquet")["transport.window"].size == 2
    alone = hopsim.run(SMALL, overrides=["transport.window=none"])
    assert table.loc[0, "checksum"] == alone.checksum()
