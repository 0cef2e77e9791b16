"""Trace replay (CSV and Parquet flow tables) and the MoE all-to-all workload (issue 4)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import hopsim

DATA = Path(__file__).parent / "data"
SMALL = DATA / "small.toml"


def _replay(small_doc_path: Path, trace: Path, fmt: str) -> dict:
    """The small scenario with its workloads replaced by a trace file."""
    doc, _ = hopsim.scenario.load_scenario(small_doc_path)
    doc["workload"] = [{"kind": "flows", "file": str(trace), "format": fmt}]
    return doc


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_replaying_a_runs_flow_table_reproduces_it(tmp_path, fmt):
    """Flows read back from a run's own table give the identical flow table."""
    original = hopsim.run(SMALL)
    original.write(tmp_path / "run")
    trace = tmp_path / "run" / "flows.parquet"
    if fmt == "csv":
        trace = tmp_path / "flows.csv"
        original.flows.to_csv(trace, index=False)
    replayed = hopsim.run(_replay(SMALL, trace, fmt))
    assert len(replayed.flows) == len(original.flows)
    assert replayed.checksum() == original.checksum()
    # Tags come from the trace's tag column.
    assert list(replayed.flows["tag"]) == list(original.flows["tag"])


def test_replay_errors_name_the_field_or_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("src,dst,size_bytes,start_ns\n1,2,100,0\n1,2,oops,0\n")
    with pytest.raises(hopsim.ScenarioError, match=r"bad\.csv:3: size_bytes: expected"):
        hopsim.validate(_replay(SMALL, bad, "csv"))
    no_cols = tmp_path / "t.parquet"
    pd.DataFrame({"src": [1], "dst": [2]}).to_parquet(no_cols)
    with pytest.raises(
        hopsim.ScenarioError, match=r"workload\.file: .*missing column 'size_bytes'"
    ):
        hopsim.validate(_replay(SMALL, no_cols, "parquet"))
    with pytest.raises(hopsim.ScenarioError, match=r"workload\.file: .*no such file"):
        hopsim.validate(_replay(SMALL, tmp_path / "absent.parquet", "parquet"))


def _moe(start_2: str) -> dict:
    group = {
        "kind": "moe",
        "bytes_per_worker": "200KB",
        "hot_experts": 1,
        "hot_share": 0.5,
        "period": "200us",
        "stop": "400us",
    }
    return {
        "name": "moe",
        "topology": {"kind": "leaf_spine", "spines": 2, "leaves": 2, "hosts_per_leaf": 4},
        "workload": [
            {**group, "hosts": [0, 2, 4, 6], "tag": "a2a1"},
            {**group, "hosts": [1, 3, 5, 7], "tag": "a2a2", "start": start_2},
        ],
    }


def test_moe_groups_collide_or_interleave_and_hot_flows_are_congested():
    collided = hopsim.run(_moe("0us"))
    interleaved = hopsim.run(_moe("100us"))
    for r in (collided, interleaved):
        f = r.flows
        assert r.summary["flows_finished"] == len(f) == 2 * 2 * 4 * 3
        # 4 workers, 1 hot expert, 200 KB at hot share 0.5: 100 KB to the hot expert and
        # 50 KB to each of the two others (a hot expert itself sends 66.7 KB to each).
        to_hot = f["size_bytes"] == 100_000
        assert to_hot.sum() == 2 * 2 * 3
        assert set(f.loc[to_hot, "class"]) == {"congested"}
        assert "congested" not in set(f.loc[~to_hot, "class"])
    starts = sorted(collided.flows.groupby("tag")["start_ns"].min())
    assert starts == [0.0, 0.0]
    starts = sorted(interleaved.flows.groupby("tag")["start_ns"].min())
    assert starts == [0.0, 100_000.0]

    # Colliding groups share the fabric at the same time: their all-to-alls take longer.
    def round_time(r: hopsim.Result) -> float:
        f = r.flows
        return float(
            (
                f.groupby(["tag", "start_ns"])["finish_ns"].max()
                - f.groupby(["tag", "start_ns"])["start_ns"].min()
            ).mean()
        )

    assert round_time(collided) > round_time(interleaved)


def test_moe_bad_fields_are_named():
    doc = _moe("0us")
    doc["workload"][1]["hot_share"] = 1.5
    with pytest.raises(
        hopsim.ScenarioError, match=r"workload\[1\]\.hot_share: expected a fraction"
    ):
        hopsim.validate(doc)
    doc = _moe("0us")
    doc["workload"][0]["hot_experts"] = 9
    with pytest.raises(hopsim.ScenarioError, match=r"workload\[0\]\.hot_experts: expected at most"):
        hopsim.validate(doc)
