"""The Python API: hopsim.run, Result tables, analysis helpers and file round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from contract import CONTRACT_FLOW_COLUMNS

import hopsim
from hopsim import _core
from hopsim.bench import find_anchor
from hopsim.results import flow_checksum
from hopsim.scenario import load_scenario, to_json

DATA = Path(__file__).parent / "data"
SMALL = DATA / "small.toml"

FLOW_COLUMNS = CONTRACT_FLOW_COLUMNS + [
    "query_id",
    "class",
    "cc",
    "loss_recovery",
    "priority",
    "retransmitted_bytes",
    "timeouts",
    "cnps_received",
    "path_hops",
    "reordered_packets",
]
PORT_COLUMNS = [
    "node",
    "port",
    "peer_node",
    "tier",
    "hop_tier",
    "rate_bps",
    "tx_bytes",
    "tx_packets",
    "pause_sent",
    "resume_sent",
    "pause_received",
    "paused_time_ns",
    "max_queue_bytes",
    "busy_time_ns",
]
PFC_COLUMNS = ["time_ns", "node", "port", "priority", "pause"]


@pytest.fixture(scope="module")
def small() -> hopsim.Result:
    return hopsim.run(SMALL)


def test_run_returns_tables_with_the_documented_columns(small):
    assert isinstance(small.flows, pd.DataFrame)
    assert list(small.flows.columns)[: len(FLOW_COLUMNS)] == FLOW_COLUMNS
    assert set(PORT_COLUMNS) <= set(small.ports.columns)
    assert list(small.pfc_events.columns) == PFC_COLUMNS
    assert len(small.flows) == small.summary["flows_total"] > 0
    assert small.flows["finish_ns"].notna().sum() == small.summary["flows_finished"]
    for col in ("finish_ns", "fct_ns", "slowdown"):
        assert str(small.flows[col].dtype) == "Float64"
    assert set(small.flows["tag"]) == {"poisson", "incast"}
    # output.pfc_events = true in the scenario: every PAUSE frame is listed.
    assert small.summary["pfc_pause_frames"] > 0
    assert small.pfc_events["pause"].sum() == small.summary["pfc_pause_frames"]


def test_summary_has_run_metadata(small):
    s = small.summary
    for key in ("events", "sim_time_ns", "flows_total", "flows_finished", "drops"):
        assert key in s
    assert s["scenario_name"] == "small"
    assert s["hopsim_version"] == hopsim.__version__
    assert s["wall_seconds"] > 0
    assert s["sim_time_ns"] == pytest.approx(300_000)
    assert small.scenario["name"] == "small"


def test_run_accepts_text_and_dicts_and_overrides():
    doc, _ = load_scenario(SMALL)
    a = hopsim.run(doc, overrides={"switch.pfc.enabled": False})
    b = hopsim.run(SMALL.read_text(), overrides=["switch.pfc.enabled=false"])
    assert a.summary["pfc_pause_frames"] == b.summary["pfc_pause_frames"] == 0
    assert a.scenario["switch"]["pfc"]["enabled"] is False
    pd.testing.assert_frame_equal(a.flows, b.flows)


def test_same_seed_same_flows_different_seed_different_flows(small):
    again = hopsim.run(SMALL)
    pd.testing.assert_frame_equal(small.flows, again.flows)
    pd.testing.assert_frame_equal(small.ports, again.ports)
    other = hopsim.run(SMALL, overrides=["seed=2"])
    assert not small.flows.equals(other.flows)
    assert small.checksum() != other.checksum()


def test_chunked_run_matches_a_single_run(small, monkeypatch, capsys):
    """hopsim.run advances in chunks (and shows a bar); the core's run() does it in one go."""
    doc, base = load_scenario(SMALL)
    sim = _core.Simulation(to_json(doc), base)
    sim.run()
    assert flow_checksum(sim.flows()) == small.checksum()
    assert sim.events == small.summary["events"]

    monkeypatch.setattr(hopsim._run, "_PROGRESS_DELAY_S", 0.0)
    shown = hopsim.run(SMALL, progress=True)
    err = capsys.readouterr().err
    assert "sim 0.300 of 0.3 ms" in err and "hopsim (time limit): 100%" in err, err
    assert shown.checksum() == small.checksum()
    assert shown.summary["sim_time_ns"] == small.summary["sim_time_ns"]


@pytest.mark.parametrize("duration", [None, "10ms"])
def test_final_time_matches_a_single_run(duration):
    """Runs that go quiet before their end stop the clock at the last real event."""
    overrides = {"duration": duration} if duration else None
    doc, base = load_scenario(DATA / "star.toml", overrides)
    sim = _core.Simulation(to_json(doc), base)
    sim.run()
    result = hopsim.run(DATA / "star.toml", overrides=overrides, progress=True)
    assert result.summary["sim_time_ns"] == sim.now_ns
    assert result.summary["sim_time_ns"] == result.flows["finish_ns"].max()


def test_slowdown_by_size(small):
    table = small.slowdown_by_size()
    assert list(table.index) == ["<=10KB", "10KB-100KB", "100KB-1MB", ">1MB"]
    assert list(table.columns) == ["count", "mean", "p50", "p99"]
    assert table["count"].sum() == small.summary["flows_finished"]
    filled = table[table["count"] > 0]
    assert (filled["p99"] >= filled["p50"]).all()

    custom = small.slowdown_by_size(buckets=[50_000], percentiles=(90,))
    assert list(custom.index) == ["<=50KB", ">50KB"]
    assert list(custom.columns) == ["count", "mean", "p90"]
    with pytest.raises(ValueError):
        small.slowdown_by_size(buckets=[100, 10])


def test_describe_mentions_the_key_numbers(small):
    text = small.describe()
    s = small.summary
    assert f"{s['flows_finished']:,} of {s['flows_total']:,}" in text
    assert "PFC pauses" in text and "drops" in text and "events/s" in text
    assert "10KB-100KB" in text


def test_write_and_read_round_trip(small, tmp_path):
    out = tmp_path / "run"
    small.write(out)
    assert sorted(p.name for p in out.iterdir()) == [
        "flows.parquet",
        "manifest.json",
        "pfc_events.parquet",
        "ports.parquet",
        "queue_delay.parquet",
        "scenario.json",
        "summary.json",
        "switches.parquet",
    ]
    back = hopsim.Result.read(out)
    pd.testing.assert_frame_equal(back.flows, small.flows)
    pd.testing.assert_frame_equal(back.ports, small.ports)
    pd.testing.assert_frame_equal(back.pfc_events, small.pfc_events)
    assert back.summary == json.loads(json.dumps(small.summary))
    assert back.scenario == small.scenario
    assert back.checksum() == small.checksum()


def test_write_refuses_a_non_empty_directory(small, tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty"):
        small.write(tmp_path)
    assert not (tmp_path / "flows.parquet").exists()
    small.write(tmp_path, force=True)
    assert (tmp_path / "flows.parquet").exists()
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_hpcc_format_topology_and_flow_files():
    result = hopsim.run(DATA / "star.toml")
    flows = result.flows
    assert list(flows["src"]) == [0, 1, 2, 3]
    assert list(flows["size_bytes"]) == [20_000, 20_000, 20_000, 5_000]
    assert flows["start_ns"].tolist() == [1_000.0, 1_000.0, 2_000.0, 10_000.0]
    assert flows["finish_ns"].notna().all()
    assert (flows["path_hops"] == 2).all()
    assert (flows["slowdown"] >= 0.9).all()
    # The resolved scenario points at the input files wherever the run is started from.
    assert Path(result.scenario["topology"]["file"]).is_absolute()
    assert result.summary["scenario_name"] == "star"


def test_validate():
    hopsim.validate(SMALL)
    with pytest.raises(hopsim.ScenarioError, match="switch.pfc.alpha"):
        hopsim.validate(SMALL, overrides=["switch.pfc.alpha=2"])
    with pytest.raises(ValueError):  # ScenarioError is a ValueError
        hopsim.validate(SMALL, overrides=["seed=-1"])


def test_builtin_workloads():
    names = {name for name, _, _ in _core.builtin_workloads()}
    assert {"websearch", "datamining", "webserver"} <= names


ANCHOR = find_anchor("ns3-fattree320")


@pytest.mark.skipif(ANCHOR is None, reason="shared/anchors/ns3-fattree320 not available")
def test_ns3_anchor_files_load_and_run_briefly():
    assert ANCHOR is not None
    scenario = {
        "duration": "2.0001s",  # the flows start at t = 2 s: run their first 100 us
        "topology": {"kind": "file", "format": "hpcc", "file": "fat.txt"},
        "workload": {"kind": "flows", "format": "hpcc", "file": "ws30_1ms.txt"},
    }
    hopsim.validate(scenario, base_dir=ANCHOR)
    result = hopsim.run(scenario, base_dir=ANCHOR)
    assert result.summary["flows_total"] == 405
    assert (result.flows["start_ns"] >= 2e9).all()
    assert result.summary["flows_finished"] > 0
    assert len(result.ports) == 2 * 480
