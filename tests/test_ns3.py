"""Comparison with the ns-3 RDMA simulator (`hopsim compare-ns3`, `hopsim.ns3`): the
bucket convention of ns-3's reference tables, and agreement on the anchor inputs."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import hopsim
from hopsim import cli, ns3
from hopsim.bench import _load, find_anchor

ANCHOR = find_anchor("ns3-fattree320")
needs_anchor = pytest.mark.skipif(
    ANCHOR is None, reason="shared/anchors/ns3-fattree320 (ns-3's inputs and results) not found"
)


def test_buckets_follow_the_reference_convention():
    # Decimal edges, upper edge inclusive; slowdown clipped at 1; p = sorted[int(n p)].
    sizes = [10_000, 10_001, 100_000, 1_000_000, 10_000_000, 10_000_001]
    fct = [0.5, 2.0, 3.0, 4.0, 5.0, 6.0]
    flows = pd.DataFrame({"size_bytes": sizes, "fct_ns": fct, "ideal_fct_ns": [1.0] * 6})
    flows.loc[len(flows)] = [5_000, math.nan, 1.0]  # unfinished: left out
    b = ns3.buckets(flows)
    assert list(b.index) == ["<=10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">10MB", "all"]
    assert list(b["n"]) == [1, 2, 1, 1, 1, 6]
    assert b.loc["<=10KB", "mean"] == 1.0, "clipped at 1"
    assert b.loc["10KB-100KB", "p50"] == 3.0, "sorted[int(2 × 0.5)]"
    assert b.loc["all", "p99"] == 6.0


def test_reference_tables_are_read_and_malformed_lines_named(tmp_path):
    text = "# ns-3 run: x_dcqcn.txt flows 3\nbucket n mean p50 p95 p99\n<=10KB 3 1.1 1.0 1.5 2.0\n"
    path = tmp_path / "ref.txt"
    path.write_text(text)
    table = ns3.read_reference(path)["x_dcqcn"]
    assert table.loc["<=10KB", "p95"] == 1.5 and table.loc["<=10KB", "n"] == 3
    path.write_text(text + "all 3 1.0\n")
    with pytest.raises(ValueError, match=r"ref.txt:4:"):
        ns3.read_reference(path)


@needs_anchor
def test_the_anchor_reference_has_both_ccs_and_both_files():
    tables = ns3.read_reference(ANCHOR / "reference_buckets_ws30.txt")
    assert set(tables) == {
        "ws30_10ms_hp95ai50",
        "ws30_1ms_hp95ai50",
        "ws30_10ms_dcqcn",
        "ws30_1ms_dcqcn",
    }
    assert tables["ws30_10ms_dcqcn"].loc["all", "n"] == 6706


@needs_anchor
@pytest.mark.parametrize("cc", ["dcqcn", "hpcc"])
def test_hopsim_agrees_with_ns3_on_the_1ms_anchor(cc):
    """On ns-3's own inputs (320-host fat-tree, WebSearch 30 %, 1 ms of arrivals) every
    bucket's mean and median slowdown is within 10 % of ns-3's (the >10 MB bucket holds 10
    flows, so its tail is not compared)."""
    doc, base, _ = _load("ns3-fattree320-ws30-1ms")
    doc["transport"]["cc"] = cc
    result = hopsim.run(doc, base_dir=base)
    name = ns3.reference_name(doc)
    table = ns3.compare(result, ns3.read_reference(ANCHOR / "reference_buckets_ws30.txt")[name])
    for stat in ("mean", "p50"):
        off = table[(table[f"{stat}_ratio"] - 1).abs() > 0.10]
        assert off.empty, f"{name} {stat}:\n{off}"


@needs_anchor
def test_compare_ns3_command(capsys, tmp_path):
    doc, base, _ = _load("ns3-fattree320-ws30-1ms")
    run = hopsim.run(doc, base_dir=base).write(tmp_path / "run")
    assert cli.main(["compare-ns3", str(run)]) == 0
    out = capsys.readouterr().out
    assert "ns-3 run ws30_1ms_dcqcn" in out and "bucket statistics within 10% of ns-3" in out
    assert cli.main(["compare-ns3", str(run), "--name", "nope"]) == 2
    assert "expected one of" in capsys.readouterr().err
