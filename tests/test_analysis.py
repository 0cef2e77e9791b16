"""The analysis API: per-class summaries, CDFs, PFC pause spread, throughput per class,
queue and buffer occupancy, queuing delay and side-by-side comparison of runs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from synthetic import QUEUE_INTERVAL_NS, THROUGHPUT_INTERVAL_NS, observe

import hopsim
from hopsim import analysis

SMALL = Path(__file__).parent / "data" / "small.toml"


@pytest.fixture(scope="module")
def small() -> hopsim.Result:
    return hopsim.run(SMALL)


@pytest.fixture(scope="module")
def no_pfc() -> hopsim.Result:
    return hopsim.run(SMALL, overrides={"switch.pfc.enabled": False})


@pytest.fixture(scope="module")
def sampled() -> hopsim.Result:
    """The small run with queue, buffer and throughput sampling."""
    overrides = {"output.queues.interval": "2us", "output.throughput.interval": "10us"}
    return hopsim.run(SMALL, overrides=overrides)


@pytest.fixture(scope="module")
def observed() -> hopsim.Result:
    return observe(hopsim.run(SMALL))


def bare(flows=None, pfc_events=None, summary=None) -> hopsim.Result:
    """A Result from hand-made tables (only what a test needs)."""
    if flows is None:
        flows = pd.DataFrame(
            {
                "flow_id": [],
                "size_bytes": [],
                "finish_ns": [],
                "slowdown": [],
                "fct_ns": [],
                "class": [],
                "query_id": pd.array([], dtype="Int64"),
            }
        )
    ports = pd.DataFrame({"node": [], "port": [], "tier": [], "max_queue_bytes": []})
    pfc = pfc_events if pfc_events is not None else pd.DataFrame()
    return hopsim.Result(flows, ports, pfc, dict(summary or {}), {})


# ------------------------------------------------------------ flows


def test_class_summary_counts_and_percentiles(small):
    table = small.class_summary()
    assert list(table.index) == ["congested", "vulnerable", "background", "all"]
    assert list(table.columns) == [
        "flows",
        "finished",
        "mean",
        "p50",
        "p99",
        "p99.9",
        "mean_fct_ns",
    ]
    flows = small.flows
    assert table.loc[list(analysis.CLASSES), "flows"].sum() == len(flows)
    assert table.loc["all", "finished"] == small.summary["flows_finished"]
    for cls in analysis.CLASSES:
        done = flows[(flows["class"] == cls) & flows["slowdown"].notna()]
        assert table.loc[cls, "finished"] == len(done)
        if len(done):
            slowdown = done["slowdown"].astype(float)
            assert table.loc[cls, "p99"] == pytest.approx(slowdown.quantile(0.99))
            assert table.loc[cls, "mean_fct_ns"] == pytest.approx(
                done["fct_ns"].astype(float).mean()
            )
    assert table.loc["congested", "flows"] > 0  # the incast


def test_class_summary_keeps_empty_classes():
    flows = pd.DataFrame(
        {"size_bytes": [1000], "slowdown": [2.0], "fct_ns": [5.0], "class": ["congested"]}
    )
    table = analysis.class_summary(bare(flows), percentiles=(50,))
    assert table.loc["background", "flows"] == 0
    assert math.isnan(table.loc["background", "p50"])
    assert table.loc["congested", "p50"] == 2.0


@pytest.mark.parametrize("by", [None, "class", "size"])
def test_fct_cdf_is_monotone_and_ends_at_one(small, by):
    cdf = small.fct_cdf(by)
    assert list(cdf.columns) == ["group", "fct_ns", "fraction"]
    assert len(cdf) == small.summary["flows_finished"]
    for _, g in cdf.groupby("group"):
        assert (np.diff(g["fct_ns"]) >= 0).all()
        assert (np.diff(g["fraction"]) > 0).all()
        assert g["fraction"].iloc[-1] == pytest.approx(1.0)
        assert g["fraction"].iloc[0] == pytest.approx(1 / len(g))


def test_fct_cdf_groups(small):
    by_size = small.fct_cdf("size")
    counts = small.slowdown_by_size()["count"]
    assert by_size.groupby("group").size().to_dict() == counts[counts > 0].to_dict()
    by_class = small.fct_cdf("class", metric="slowdown")
    assert list(by_class.columns) == ["group", "slowdown", "fraction"]
    assert list(dict.fromkeys(by_class["group"])) == [
        c for c in analysis.CLASSES if (small.class_summary().loc[c, "finished"] > 0)
    ]
    with pytest.raises(ValueError, match="by must be"):
        small.fct_cdf("port")
    with pytest.raises(ValueError, match="metric"):
        small.fct_cdf(metric="size")


def test_qct_summary():
    scenario = {
        "seed": 4,
        "topology": {"kind": "leaf_spine", "spines": 2, "leaves": 2, "hosts_per_leaf": 8},
        "workload": {
            "kind": "query",
            "clients": [0, 1],
            "fan_out": 10,
            "response_size": "40KB",
            "qps": 20000,
            "stop": "100us",
        },
    }
    result = hopsim.run(scenario)
    q = result.qct_summary()
    qct = result.qct()
    assert q["queries"] == len(qct) > 0
    assert q["finished"] == qct["finished"].sum()
    done = qct.loc[qct["finished"], "qct_ns"].astype(float)
    assert q["p99_ns"] == pytest.approx(done.quantile(0.99))
    assert q["mean_ns"] == pytest.approx(done.mean())
    none = analysis.qct_summary(bare())
    assert none["queries"] == 0 and math.isnan(none["p50_ns"])


# ------------------------------------------------------------ PFC


def test_pause_spread_on_hand_built_events():
    events = pd.DataFrame(
        [
            # time, node, port, priority, pause
            (100.0, 1, 0, 3, True),
            (100.0, 2, 0, 3, True),  # same time: one step to 2
            (200.0, 1, 0, 3, True),  # a repeated PAUSE changes nothing
            (300.0, 1, 0, 4, True),  # another priority of the same port
            (400.0, 2, 0, 3, False),
            (450.0, 5, 1, 3, False),  # RESUME without a pause changes nothing
            (500.0, 1, 0, 3, False),
            (500.0, 1, 0, 4, False),
        ],
        columns=["time_ns", "node", "port", "priority", "pause"],
    )
    spread = analysis.pause_spread(bare(pfc_events=events, summary={"sim_time_ns": 1000.0}))
    assert spread.timeline["time_ns"].tolist() == [0.0, 100.0, 300.0, 400.0, 500.0]
    assert spread.timeline["paused"].tolist() == [0, 2, 3, 2, 0]
    assert spread.max == 3
    # 2 x 200 ns + 3 x 100 ns + 2 x 100 ns over 1000 ns
    assert spread.mean == pytest.approx((400 + 300 + 200) / 1000)
    assert spread.recorded

    # Shuffled input rows give the same timeline (events are sorted stably by time).
    shuffled = events.iloc[[3, 0, 1, 2, 4, 5, 6, 7]]
    again = analysis.pause_spread(bare(pfc_events=shuffled, summary={"sim_time_ns": 1000.0}))
    pd.testing.assert_frame_equal(again.timeline, spread.timeline)


def test_pause_spread_still_paused_at_the_end():
    events = pd.DataFrame(
        {"time_ns": [0.0], "node": [1], "port": [2], "priority": [3], "pause": [True]}
    )
    spread = analysis.pause_spread(bare(pfc_events=events, summary={"sim_time_ns": 400.0}))
    assert spread.timeline.to_dict("list") == {"time_ns": [0.0], "paused": [1]}
    assert spread.max == 1 and spread.mean == 1.0


def test_pause_spread_of_real_runs(small, no_pfc):
    spread = small.pause_spread()
    assert spread.max >= 1
    assert (spread.timeline["paused"] >= 0).all()
    # With one priority, the pauses' total length is the peers' paused time (frames
    # take effect a serialization and a propagation later, so only nearly).
    assert spread.mean * spread.end_ns == pytest.approx(
        small.ports["paused_time_ns"].sum(), rel=0.02
    )
    off = no_pfc.pause_spread()
    assert off.max == 0 and off.mean == 0 and off.recorded
    unrecorded = hopsim.Result(
        small.flows, small.ports, small.pfc_events.iloc[:0], small.summary, small.scenario
    )
    gone = unrecorded.pause_spread()
    assert not gone.recorded and math.isnan(gone.max) and gone.timeline.empty


# ------------------------------------------------------------ time series


def test_throughput_by_class_fills_empty_bins_with_zero():
    flows = pd.DataFrame({"flow_id": [0, 1, 2], "class": ["congested", "background", "congested"]})
    throughput = pd.DataFrame(
        {
            "time_ns": [0.0, 0.0, 1000.0, 3000.0],
            "flow_id": [0, 1, 2, 0],
            "bytes": [1000, 500, 250, 125],
        }
    )
    result = bare(flows, summary={"sim_time_ns": 4500.0, "throughput_interval_ns": 1000.0})
    result.throughput = throughput
    tp = analysis.throughput_by_class(result)
    assert list(tp.columns) == ["congested", "vulnerable", "background"]
    assert tp.index.tolist() == [0.0, 1000.0, 2000.0, 3000.0, 4000.0]
    # bytes x 8 / 1000 ns = Gb/s
    assert tp["congested"].tolist() == [8.0, 2.0, 0.0, 1.0, 0.0]
    assert tp["background"].tolist() == [4.0, 0.0, 0.0, 0.0, 0.0]
    assert (tp["vulnerable"] == 0).all()


def test_throughput_by_class_conserves_bytes(observed):
    tp = observed.throughput_by_class()
    delivered = observed.throughput["bytes"].sum()
    assert tp.to_numpy().sum() * THROUGHPUT_INTERVAL_NS / 8 == pytest.approx(delivered)
    assert len(tp) == int(observed.summary["sim_time_ns"] // THROUGHPUT_INTERVAL_NS) + 1
    assert (tp.loc[210_000:] == 0).all().all()  # no deliveries after 200 us


def test_without_sampling_the_time_series_are_empty(small):
    assert small.throughput_by_class().empty
    assert list(small.throughput_by_class().columns) == list(analysis.CLASSES)
    assert small.queue_timeline().empty
    empty = bare()
    assert empty.queue_delay_summary().empty
    assert empty.buffer_by_tier().empty
    assert analysis.table(empty, "no_such_table").empty


def test_sampled_run_time_series(sampled):
    flows = sampled.flows
    tp = sampled.throughput_by_class()
    interval = sampled.summary["throughput_interval_ns"]
    delivered = tp.to_numpy().sum() * interval / 8
    assert delivered == pytest.approx(sampled.throughput["bytes"].sum())
    finished = flows.loc[flows["finish_ns"].notna(), "size_bytes"].sum()
    assert finished <= delivered + 1e-6 <= flows["size_bytes"].sum() + 1e-6
    assert tp["congested"].max() > 0

    q = sampled.queue_timeline(top=3)
    assert q.shape[1] == 3 and q.to_numpy().max() > 0
    assert (np.diff(q.index) == sampled.summary["queue_sample_interval_ns"]).all()
    peaks = sampled.ports.assign(
        label=[
            analysis.port_label(n, p) for n, p in zip(sampled.ports["node"], sampled.ports["port"])
        ]
    ).set_index("label")["max_queue_bytes"]
    for port in q.columns:
        assert q[port].max() <= peaks[port]

    buffers = sampled.buffer_by_tier()
    switch = buffers[buffers["measure"] == "switch_buffer"]
    assert switch["max_bytes"].max() == sampled.summary["max_switch_buffer_bytes"]

    delay = sampled.queue_delay_summary()
    for tier, exact in sampled.summary["queue_delay_ns"].items():
        assert delay.loc[tier, "packets"] == exact["packets"]
        assert delay.loc[tier, "mean_ns"] == pytest.approx(exact["mean_ns"])
        assert delay.loc[tier, "p50_ns"] <= delay.loc[tier, "p99_ns"] <= exact["max_ns"]


def test_queue_timeline_is_dense_and_picks_the_busiest_ports(observed):
    q = observed.queue_timeline(top=2)
    end = observed.summary["sim_time_ns"]
    assert q.index.tolist() == [
        k * QUEUE_INTERVAL_NS for k in range(int(end // QUEUE_INTERVAL_NS) + 1)
    ]
    samples = observed.queues[observed.queues["queue"] == -1]
    load = samples.groupby(["node", "port"])["bytes"].sum().sort_values(ascending=False)
    assert list(q.columns) == [analysis.port_label(n, p) for n, p in load.index[:2]]
    node, port = load.index[0]
    mine = samples[(samples["node"] == node) & (samples["port"] == port)]
    assert q.iloc[:, 0].sum() == mine["bytes"].sum()
    assert (q.iloc[1::2] == 0).all().all()  # odd samples are missing rows: 0 bytes
    chosen = observed.queue_timeline([(node, port)], queue=3)
    assert list(chosen.columns) == [analysis.port_label(node, port)]
    assert chosen.iloc[:, 0].tolist() == q.iloc[:, 0].tolist()


def test_queue_timeline_sums_queues_without_whole_port_rows(observed):
    per_queue = observed.queues[observed.queues["queue"] == 3]
    result = bare(summary=observed.summary)
    result.queues = pd.concat([per_queue, per_queue.assign(queue=4)])
    whole = observed.queue_timeline(top=3)
    summed = analysis.queue_timeline(result, top=3)
    pd.testing.assert_frame_equal(summed, whole * 2)


# ------------------------------------------------------------ buffers and delay


def test_buffer_by_tier(observed):
    peaks = observed.buffer_by_tier()
    assert list(peaks.columns) == ["measure", "tier", "units", "max_bytes", "mean_max_bytes"]
    switch = peaks[peaks["measure"] == "switch_buffer"].set_index("tier")
    sw = observed.switches
    # A leaf-spine's spines are spines (not aggregation switches).
    assert set(sw["tier"]) == {"tor", "spine"}
    for tier in ("tor", "spine"):
        assert switch.loc[tier, "max_bytes"] == sw[sw["tier"] == tier]["max_buffer_bytes"].max()
        assert switch.loc[tier, "units"] == (sw["tier"] == tier).sum()
    queue = peaks[peaks["measure"] == "egress_queue"].set_index("tier")
    assert list(queue.index) == ["host", "src_tor", "agg", "dst_tor"]
    ports = observed.ports
    for tier in queue.index:
        mine = ports[ports["hop_tier"] == tier]["max_queue_bytes"]
        assert queue.loc[tier, "max_bytes"] == mine.max()
        assert queue.loc[tier, "mean_max_bytes"] == pytest.approx(mine.mean())

    # Without the switches table, the buffer samples give the peaks.
    result = bare(summary=observed.summary)
    result.buffers = observed.buffers
    from_samples = analysis.buffer_by_tier(result).set_index("tier")
    assert from_samples.loc["tor", "max_bytes"] == observed.buffers["bytes"].max()


def test_queue_delay_summary_from_the_histogram(observed):
    delay = observed.queue_delay_summary(percentiles=(50, 90, 99))
    assert list(delay.index) == ["src_tor", "agg"]
    assert list(delay.columns) == ["packets", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns"]
    src = delay.loc["src_tor"]
    assert src["packets"] == 100
    assert src["mean_ns"] == pytest.approx((10 * 100 + 80 * 1000 + 10 * 1000) / 100)
    assert src["p50_ns"] == 1000 and src["p90_ns"] == 1000
    assert src["p99_ns"] == src["max_ns"] == math.inf  # in the open last bucket
    agg = delay.loc["agg"]
    assert agg["packets"] == 4 and agg["p50_ns"] == agg["p99_ns"] == agg["mean_ns"] == 200


# ------------------------------------------------------------ several runs


def test_compare_puts_runs_side_by_side(small, no_pfc):
    table = analysis.compare({"pfc": small, "no pfc": no_pfc})
    assert list(table.columns) == ["pfc", "no pfc"]
    rows = list(table.index)
    for size in small.slowdown_by_size().index:
        assert f"slowdown p50 {size}" in rows and f"slowdown p99 {size}" in rows
    for row in (
        "flows",
        "flows finished",
        "slowdown p99 congested",
        "slowdown p99 vulnerable",
        "slowdown p99 background",
        "pfc PAUSE frames",
        "drops",
        "pfc pauses in force max",
        "pfc pauses in force mean",
        "pfc paused port time (us)",
        "max egress queue (B)",
        "utilisation mean",
        "utilisation max",
    ):
        assert row in rows
    assert not any(r.startswith("QCT") for r in rows)  # no queries in these runs
    assert table.loc["pfc PAUSE frames", "pfc"] == small.summary["pfc_pause_frames"] > 0
    assert table.loc["pfc PAUSE frames", "no pfc"] == 0
    assert table.loc["pfc pauses in force max", "pfc"] == small.pause_spread().max
    assert not any(r.startswith("none ") for r in rows)  # no flow control: nothing pauses
    p99 = small.slowdown_by_size().loc["10KB-100KB", "p99"]
    assert table.loc["slowdown p99 10KB-100KB", "pfc"] == p99
    assert (
        table.loc["slowdown p99 congested", "no pfc"]
        == no_pfc.class_summary().loc["congested", "p99"]
    )
    assert 0 < table.loc["utilisation mean", "pfc"] <= table.loc["utilisation max", "pfc"] <= 1


def test_compare_labels_lists_of_runs(small, no_pfc):
    table = analysis.compare([small, no_pfc])
    assert list(table.columns) == ["small (seed 1) #1", "small (seed 1) #2"]
    single = analysis.compare(small)
    assert list(single.columns) == ["small"]


def test_result_methods_delegate_to_analysis(small):
    pd.testing.assert_frame_equal(small.class_summary(), analysis.class_summary(small))
    pd.testing.assert_frame_equal(small.fct_cdf("size"), analysis.fct_cdf(small, "size"))
    pd.testing.assert_frame_equal(small.buffer_by_tier(), analysis.buffer_by_tier(small))
    assert small.pause_spread().max == analysis.pause_spread(small).max
