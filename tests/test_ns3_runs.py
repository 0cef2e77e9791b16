"""Running ns-3 for validate-against-ns3 (issue 27, item 5): ns-3 runs from its own
simulation/ folder, so it is handed absolute paths; a config or input it could not open is
refused before it starts; a run that makes no progress is stopped with a clear error; and
progress is reported while it runs. A stand-in `third` script plays ns-3."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hopsim import ns3_validate

FAKE = """#!/bin/sh
# Like ns-3's third: read the config named by $1 from wherever it runs.
cfg="$1"
[ -f "$cfg" ] || { echo "cannot open $cfg"; while true; do sleep 1; done; }
out=$(awk '$1=="FCT_OUTPUT_FILE"{print $2}' "$cfg")
{mode}
"""
WRITES = 'sleep 1.2; echo "0 1 0 0 1000 0 100 100" > "$out"'
SPINS = "while true; do sleep 1; done"


def fake_build(tmp_path: Path, body: str) -> ns3_validate.Ns3Build:
    sim = tmp_path / "simulation"
    exe = sim / "build" / "scratch" / "third"
    exe.parent.mkdir(parents=True)
    exe.write_text(FAKE.replace("{mode}", body))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    (sim / "mix").mkdir()
    (sim / "mix" / "topology.txt").write_text("x\n")
    return ns3_validate.find_build(str(sim), None)


def test_ns3_gets_absolute_paths_and_reports_progress(tmp_path, monkeypatch):
    build = fake_build(tmp_path, WRITES)
    work = tmp_path / "here"
    (work / "out").mkdir(parents=True)
    monkeypatch.chdir(work)  # the user's folder, not ns-3's
    config = Path("out") / "ns3_config.txt"
    config.write_text("TOPOLOGY_FILE mix/topology.txt\nFCT_OUTPUT_FILE out/ns3_fct.txt\n")
    # validate() writes the config with outputs under an absolute outdir: do the same.
    config.write_text(
        ns3_validate._redirect_outputs(config.read_text(), Path("out").resolve() / "ns3")
    )
    monkeypatch.setattr(ns3_validate, "_REPORT_S", 0.2)
    said: list[str] = []
    side = ns3_validate.run_ns3(build, config, Path("out"), stall_s=30, report=said.append)
    assert side.wall_s is not None and side.wall_s >= 1.0
    assert (work / "out" / "ns3_fct.txt").read_text().startswith("0 1 ")
    assert any(m.startswith("third running for") and "ns3_fct.txt" in m for m in said), said


def test_a_stalled_ns3_is_stopped_with_a_clear_error(tmp_path):
    build = fake_build(tmp_path, SPINS)
    out = tmp_path / "out"
    out.mkdir()
    config = out / "cfg.txt"
    config.write_text(f"FCT_OUTPUT_FILE {out / 'ns3_fct.txt'}\n")
    with pytest.raises(ns3_validate.Stalled, match=r"third made no progress for 1.5 s"):
        ns3_validate.run_ns3(build, config, out, stall_s=1.5)


def test_missing_config_or_inputs_are_refused_before_ns3_starts(tmp_path):
    build = fake_build(tmp_path, SPINS)
    with pytest.raises(ValueError, match="does not exist"):
        ns3_validate.run_ns3(build, tmp_path / "nope.txt", tmp_path)
    config = tmp_path / "cfg.txt"
    config.write_text("TOPOLOGY_FILE mix/topology.txt\nFLOW_FILE mix/flows.txt\n")
    with pytest.raises(ValueError, match=r"FLOW_FILE mix/flows.txt: no such file \(ns-3 opens it"):
        ns3_validate.run_ns3(build, config, tmp_path)
    assert not any(p.name.endswith(".log") for p in tmp_path.iterdir())  # never started


@pytest.mark.skipif(os.name != "posix", reason="the stand-in ns-3 is a shell script")
def test_validate_against_ns3_from_a_relative_output_folder(tmp_path, monkeypatch, capsys):
    """The command as anyone types it (-o out, relative): ns-3 finds its config and
    writes where hopsim reads; here the stand-in spins, so the stall stops it."""
    from hopsim.cli import main

    build = fake_build(tmp_path, SPINS)
    data = Path(__file__).parent / "data"
    monkeypatch.chdir(tmp_path)
    topo, flows = data / "star_topology.txt", data / "star_flows.txt"
    argv = [
        "validate-against-ns3",
        "--topology",
        str(topo),
        "--flows",
        str(flows),
        "--cc",
        "dcqcn",
        "--ns3",
        str(build.workdir),
        "-o",
        "out",
        "--ns3-stall",
        "1.5",
        "--no-floor",
    ]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1 and "third made no progress for 1.5 s" in err, err
    assert "--ns3-stall SECONDS waits longer" in err
    # It was handed its config by absolute path, so it did not complain of a missing one.
    log = (tmp_path / "out" / "ns3.log").read_text()
    assert "cannot open" not in log, log
