"""The parallel engine from Python and the command line: ``engine.threads`` gives the
one-thread run's tables and summary, says what it did, and refuses what it cannot
reproduce by field."""

from __future__ import annotations

import json

import pytest

import hopsim

FATTREE = {
    "seed": 5,
    "duration": "400us",
    "topology": {"kind": "fat_tree", "k": 4, "delay": "1us"},
    # Small static thresholds: PAUSE frames cross the partitions' links.
    "switch": {"pfc": {"threshold": "static", "xoff_bytes": "10KB", "xon_bytes": "5KB"}},
    "workload": {"kind": "poisson", "size_dist": "websearch", "load": 0.7, "stop": "400us"},
}

# Wall-clock figures and what only a parallel run reports.
TIMING = {"wall_seconds", "events_per_sec", "parallel", "peak_packets_in_flight"}


def test_two_threads_give_the_one_thread_tables_and_summary():
    one = hopsim.run(FATTREE, overrides={"output.pfc_events": True})
    two = hopsim.run(FATTREE, overrides={"engine.threads": 2, "output.pfc_events": True})
    assert len(one.pfc_events) > 0 and one.pfc_events.equals(two.pfc_events), "the PFC log"
    assert one.summary["packet_hops"] > 50_000
    assert one.flows.equals(two.flows), "the flow table"
    assert one.ports.equals(two.ports), "the port table"
    for key in one.summary.keys() - TIMING:
        assert one.summary[key] == two.summary[key], key
    par = two.summary["parallel"]
    assert one.summary["parallel"] is None
    assert par["threads"] == 2 and sum(par["events"]) == two.summary["events"]
    assert par["transfers"] > 0 and par["windows"] > 0
    assert "engine        2 threads" in two.describe()


def test_more_partitions_than_threads_on_one_thread():
    one = hopsim.run(FATTREE)
    four = hopsim.run(FATTREE, overrides={"engine.partitions": 4})
    assert one.flows.equals(four.flows), "the flow table"
    par = four.summary["parallel"]
    assert (par["threads"], par["partitions"]) == (1, 4)
    assert "engine        1 thread: 4 partitions" in four.describe()
    with pytest.raises(hopsim.ScenarioError, match=r"engine\.partitions"):
        hopsim.run(FATTREE, overrides={"engine.threads": 2, "engine.partitions": 1})


def test_bench_with_partitions_on_the_command_line(capsys):
    from hopsim import cli

    assert cli.main(["bench", "tiny", "--json", "--partitions", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["checksum_matches"] is True, "the recorded checksum holds with partitions"
    assert (report["parallel"]["threads"], report["parallel"]["partitions"]) == (1, 2)
    with pytest.raises(SystemExit):
        cli.main(["bench", "tiny", "--partitions", "0"])


def test_run_threads_on_the_command_line(tmp_path, capsys):
    from hopsim import cli

    path = tmp_path / "ft.toml"
    path.write_text(
        'seed = 5\nduration = "100us"\n[topology]\nkind = "fat_tree"\nk = 4\n'
        '[workload]\nkind = "poisson"\nsize_dist = "websearch"\nload = 0.5\nstop = "100us"\n'
    )
    out = tmp_path / "run"
    assert cli.main(["run", str(path), "-o", str(out), "--threads", "4", "-q"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["parallel"]["threads"] == 4
    scenario = json.loads((out / "scenario.json").read_text())
    assert scenario["engine"]["threads"] == 4, "the run's own record says how it ran"


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"output.packet_trace.max_records": 10}, "output.packet_trace"),
        ({"compat": "ns3"}, "engine.tie_order"),
        ({"engine.threads": 5}, "engine.threads"),
    ],
)
def test_what_a_parallel_run_cannot_reproduce_is_refused_by_field(override, field):
    overrides = {"engine.threads": 2, **override}
    with pytest.raises(hopsim.ScenarioError, match=field.replace(".", r"\.")):
        hopsim.run(FATTREE, overrides=overrides)
    # Validation says so too, without building anything.
    with pytest.raises(hopsim.ScenarioError, match=field.replace(".", r"\.")):
        hopsim.validate(FATTREE, overrides=overrides)
