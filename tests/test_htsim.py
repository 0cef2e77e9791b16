"""The htsim pairing's inputs and outputs (hopsim.htsim), without htsim: the permutation, the
connection-matrix writer and reader, the flow trace and scenario hopsim runs, htsim's command
line and log parser, and the whole pairing driven with a stand-in for htsim_roce."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

import hopsim
from hopsim import cli
from hopsim.htsim import (
    Connection,
    fat_tree_links,
    hopsim_scenario,
    htsim_argv,
    parse_htsim_log,
    permutation,
    read_connection_matrix,
    run_pair,
    write_connection_matrix,
    write_flow_csv,
)


@pytest.mark.parametrize("hosts", [2, 3, 16, 128, 1024])
def test_permutation_is_a_derangement(hosts: int) -> None:
    conns = permutation(hosts, 4000, seed=7)
    assert sorted(c.src for c in conns) == list(range(hosts))
    assert sorted(c.dst for c in conns) == list(range(hosts))
    assert all(c.src != c.dst for c in conns)
    assert [c.flow_id for c in conns] == list(range(1, hosts + 1))
    assert {c.size for c in conns} == {4000} and {c.start_ps for c in conns} == {0}


def test_permutation_depends_on_the_seed_only() -> None:
    assert permutation(128, 1000, 3) == permutation(128, 1000, 3)
    assert permutation(128, 1000, 3) != permutation(128, 1000, 4)
    with pytest.raises(ValueError, match="hosts"):
        permutation(1, 1000, 1)
    with pytest.raises(ValueError, match="size"):
        permutation(4, 0, 1)


def test_connection_matrix_round_trip(tmp_path: Path) -> None:
    conns = permutation(16, 2_000_000, 1)
    path = tmp_path / "p.cm"
    write_connection_matrix(path, 16, conns)
    text = path.read_text()
    assert text.startswith("Nodes 16\nConnections 16\n")
    assert f"{conns[0].src}->{conns[0].dst} id 1 start 0 size 2000000\n" in text
    assert read_connection_matrix(path) == (16, conns)


def test_reader_takes_htsim_style_files(tmp_path: Path) -> None:
    # Comments, blank lines, flows without ids and a fractional start (picoseconds).
    path = tmp_path / "m.cm"
    path.write_text("# two flows\nNodes 16\nConnections 2\n\n0->13 start 0 size 9000\n"
                    "13->0 start 1500.4 size 9000 id 5\n")  # fmt: skip
    assert read_connection_matrix(path) == (
        16,
        [Connection(0, 13, 9000, 0, None), Connection(13, 0, 9000, 1500, 5)],
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("Nodes 4\n0->1 size 10 trigger 3\n", r"m.cm:2: unknown flow attribute 'trigger'"),
        ("Nodes 4\n0->1 start 0\n", r"m.cm:2: flow 0->1 has no size"),
        ("Nodes 4\n0->1 id 0 size 10\n", r"m.cm:2: id: flow id 0"),
        ("Nodes 4\n2->2 size 10\n", r"m.cm:2: flow 2->2 sends to itself"),
        ("Nodes 4\n0->x size 10\n", r"m.cm:2: dst: expected an integer, got 'x'"),
        ("Nodes 4\n0->1 size 10 start\n", r"m.cm:2: expected `key value` pairs"),
        ("Nodes 4\n0->1 size 10 start -3\n", r"m.cm:2: start: expected non-negative"),
        ("Nodes 4\nConnections 2\n0->1 size 10\n", r"Connections 2` but 1 flow lines"),
        ("Nodes 4\n0->9 size 10\n", r"0->9 names a host beyond Nodes 4"),
        ("0->1 size 10\n", r"no `Nodes` line"),
        ("Nodes 4\ntrigger id 1 oneshot\n", r"m.cm:2: expected `Nodes`, `Connections` or a flow"),
    ],
)
def test_reader_names_the_bad_line(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "m.cm"
    path.write_text(body)
    with pytest.raises(ValueError, match=message):
        read_connection_matrix(path)


def test_fat_tree_links() -> None:
    # k = 4: two hosts per ToR, four per pod.
    assert fat_tree_links(4, 0, 1) == 2
    assert fat_tree_links(4, 0, 2) == 4
    assert fat_tree_links(4, 3, 4) == 6
    assert fat_tree_links(8, 0, 3) == 2 and fat_tree_links(8, 0, 4) == 4
    assert fat_tree_links(8, 0, 15) == 4 and fat_tree_links(8, 0, 16) == 6


def test_htsim_command_line_matches_the_scenario() -> None:
    argv = htsim_argv("/x/htsim_roce", 8, "p.cm", mtu=1000, seed=3, end_us=5000, logfile="l.dat")

    def opts(name: str, n: int = 1) -> str:
        return " ".join(argv[argv.index(name) + 1 : argv.index(name) + 1 + n])

    assert opts("-nodes") == "128" and opts("-tm") == "p.cm" and opts("-mtu") == "1000"
    assert opts("-linkspeed") == "100000" and opts("-hop_latency") == "1"
    assert opts("-strat") == "ecmp_host" and opts("-seed") == "3" and opts("-end") == "5000"
    assert opts("-pfc_thresholds", 2) == "12 15" and opts("-queue_type") == "lossless_input"
    text = hopsim_scenario(8, "flows.csv", mtu=1000, seed=3)
    assert "xoff_bytes = 15000" in text and "xon_bytes = 12000" in text
    assert 'cc = "none"' in text and "k = 8" in text and "header_bytes = 64" in text


def _small_pair(tmp_path: Path, size: int = 20_000) -> tuple[Path, list[Connection]]:
    conns = permutation(16, size, 2)
    write_flow_csv(tmp_path / "flows.csv", conns)
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(hopsim_scenario(4, "flows.csv", mtu=1000, seed=2))
    return scenario, conns


def test_hopsim_runs_the_same_flows(tmp_path: Path) -> None:
    scenario, conns = _small_pair(tmp_path)
    result = hopsim.run(str(scenario))
    flows = result.flows.sort_values("src")
    assert list(flows["src"]) == [c.src for c in conns]
    assert list(flows["dst"]) == [c.dst for c in conns]
    assert set(flows["size_bytes"]) == {20_000}
    assert flows["fct_ns"].notna().all()
    assert result.summary["drops"] == 0


def test_flow_trace_bad_mtu_multiple_refused(tmp_path: Path) -> None:
    fake = tmp_path / "htsim_roce"
    fake.write_text("")
    tm = tmp_path / "odd.cm"
    write_connection_matrix(tm, 16, [Connection(0, 5, 1500, 0, 1)])
    with pytest.raises(ValueError, match="not a multiple of the MTU 1000"):
        run_pair(fake, 4, tmp_path / "out", tm=tm)
    write_connection_matrix(tm, 16, [Connection(0, 5, 1000, 7, 1)])
    with pytest.raises(ValueError, match="time 0"):
        run_pair(fake, 4, tmp_path / "out", tm=tm)
    write_connection_matrix(tm, 8, [Connection(0, 5, 1000, 0, 1)])
    with pytest.raises(ValueError, match="Nodes 8, but a k = 4 fat-tree has 16 hosts"):
        run_pair(fake, 4, tmp_path / "out", tm=tm)


LOG = """\
Parsed args
Connection 0->5 starting at 0 size 20000
startflow Roce_0_5 at 0
..Flow Roce_0_5 1234 finished at 12.5 total bytes 20000
 Queue x LOSSLESS not working! I should have dropped this packet3
Flow Roce_5_0 1240 finished at 1.25e+03 total bytes 20000
Done
New: 40 Rtx: 2
"""


def test_parse_htsim_log() -> None:
    log = parse_htsim_log(LOG)
    assert log.finished == [(0, 5, 12.5, 20000), (5, 0, 1250.0, 20000)]
    assert (log.new_packets, log.rtx_packets, log.overflow_warnings) == (40, 2, 1)
    assert parse_htsim_log("").new_packets is None


# A stand-in for htsim_roce: reads -tm and prints what htsim prints for each flow.
FAKE_HTSIM = """\
import sys
args = sys.argv[1:]
tm = args[args.index("-tm") + 1]
assert args[args.index("-queue_type") + 1] == "lossless_input"
lines = [l.split() for l in open(tm) if "->" in l]
for i, l in enumerate(lines):
    s, d = l[0].split("->")
    size = int(l[l.index("size") + 1])
    print(f"Flow Roce_{s}_{d} {i} finished at {10.0 + i} total bytes {size}")
print("New: %d Rtx: 0" % sum(int(l[l.index("size") + 1]) // 1000 for l in lines))
"""


def test_pairing_end_to_end_with_a_stand_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "htsim_roce"
    fake.write_text(f"#!{sys.executable}\n" + FAKE_HTSIM)
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "pair"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    status = cli.main(["htsim-pair", "--htsim", str(fake), "--k", "4", "--size", "20KB",
                       "--seed", "5", "-o", str(out)])  # fmt: skip
    assert status == 0
    report = json.loads((out / "pair.json").read_text())
    assert report["flows"] == 16 and report["data_packets"] == 16 * 20
    assert report["htsim"]["finished"] == 16 and report["htsim"]["new_packets"] == 320
    assert report["hopsim"]["finished"] == 16 and report["hopsim"]["drops"] == 0
    assert report["htsim"]["fct"]["max_us"] == 25.0
    # The stand-in finished flow i at 10 + i µs: its mean is exact.
    assert report["htsim"]["fct"]["mean_us"] == pytest.approx(17.5)
    assert set(report["ratio"]) == {"wall", "cpu", "cpu_simulation", "peak_rss"}
    assert report["htsim"]["peak_rss_bytes"] > 0 and report["hopsim"]["sim_cpu_s"] > 0
    # Both inputs hold the same flows.
    nodes, conns = read_connection_matrix(out / "permutation.cm")
    csv = (out / "flows.csv").read_text().splitlines()
    assert nodes == 16 and csv[0] == "src,dst,size_bytes,start_ns"
    assert csv[1:] == [f"{c.src},{c.dst},{c.size},0" for c in conns]


def test_cli_needs_the_binary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main(["htsim-pair", "--k", "4", "-o", str(tmp_path / "o")]) == 2
    assert "--htsim BINARY is required" in capsys.readouterr().err
    assert cli.main(["htsim-pair", "--htsim", str(tmp_path / "none"), "--k", "4"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_scenario_text_is_valid_toml_with_the_flows(tmp_path: Path) -> None:
    scenario, _ = _small_pair(tmp_path)
    hopsim.validate(str(scenario))
    assert textwrap.dedent(scenario.read_text()).count("[[workload]]") == 1


def test_cli_options_are_checked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fake = tmp_path / "htsim_roce"
    fake.write_text("")
    out = tmp_path / "out"
    assert cli.main(["htsim-pair", "--htsim", str(fake), "--k", "5", "-o", str(out)]) == 2
    assert "k: expected an even integer" in capsys.readouterr().err
    # Nothing a user wrote is overwritten without --force.
    assert cli.main(["htsim-pair", "--htsim", str(fake), "-o", str(tmp_path)]) == 2
    assert "use --force" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["htsim-pair", "--htsim", str(fake), "--size", "lots"])
    assert "expected bytes" in capsys.readouterr().err
    args = cli._parser().parse_args(["htsim-pair", "--size", "1.5MB"])
    assert args.size == 1_500_000
    assert cli._parser().parse_args(["htsim-pair", "--size", "512KiB"]).size == 512 * 1024
