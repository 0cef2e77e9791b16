"""The measurement tables of issue 4 through the Python API: queue / buffer samplers,
queuing delay per hop tier, throughput bins, packet trace, reordering; their file round
trip, and clear errors for bad `[output]` fields."""

from __future__ import annotations

from pathlib import Path

import pytest

import hopsim
from hopsim.results import Result

DATA = Path(__file__).parent / "data"
SMALL = DATA / "small.toml"

OBSERVED = [
    'output.queues.interval="5us"',
    "output.queues.per_queue=true",
    'output.throughput.interval="20us"',
    "output.packet_trace.flows=[0, 1]",
    # Run to completion so every flow's bytes are delivered.
    'duration="5ms"',
]


@pytest.fixture(scope="module")
def observed() -> Result:
    return hopsim.run(SMALL, overrides=OBSERVED)


def test_queue_samples_are_sparse_multiples_of_the_interval(observed):
    q = observed.queues
    assert len(q) > 0 and (q["bytes"] > 0).all()
    interval = observed.summary["queue_sample_interval_ns"]
    assert interval == 5000.0
    assert ((q["time_ns"] % interval) == 0).all()
    assert set(q["hop_tier"]) <= {"src_tor", "agg", "core", "dst_tor"}
    assert (q["queue"] >= 0).all(), "per_queue = true gives one row per data queue"
    # No sample exceeds the port's recorded peak backlog.
    per_port = q.groupby(["time_ns", "node", "port"])["bytes"].sum().groupby(["node", "port"]).max()
    peak = observed.ports.set_index(["node", "port"])["max_queue_bytes"]
    assert (per_port <= peak.loc[per_port.index]).all()


def test_buffer_samples_stay_below_each_switch_peak(observed):
    b = observed.buffers
    assert len(b) > 0
    peak = observed.switches.set_index("node")["max_buffer_bytes"]
    assert (b.groupby("node")["bytes"].max() <= peak.loc[b["node"].unique()]).all()
    assert (
        observed.switches["max_buffer_bytes"].max() == observed.summary["max_switch_buffer_bytes"]
    )


def test_queue_delay_histogram_matches_the_exact_counts(observed):
    h = observed.queue_delay
    exact = observed.summary["queue_delay_ns"]
    assert set(h["hop_tier"]) == set(exact)
    for tier, stats in exact.items():
        rows = h[h["hop_tier"] == tier]
        assert rows["packets"].sum() == stats["packets"]
        # The mean lies within the histogram's bucket bounds.
        lo = (rows["lower_ns"] * rows["packets"]).sum() / stats["packets"]
        hi = (rows["upper_ns"] * rows["packets"]).sum() / stats["packets"]
        assert lo <= stats["mean_ns"] <= hi
        assert rows["lower_ns"].max() <= stats["max_ns"] < rows["upper_ns"].max()


def test_without_pfc_the_incast_queues_at_the_destination_tor():
    """On a fabric without oversubscription (400 Gb/s uplinks for 4 x 100 Gb/s hosts) and
    without PFC pushing queues upstream, the incast's queue is at the receiver's ToR port:
    the largest mean queuing delay is there, and the spines barely queue."""
    r = hopsim.run(SMALL, overrides=["switch.pfc.enabled=false", 'topology.fabric_rate="400Gbps"'])
    exact = r.summary["queue_delay_ns"]
    assert max(exact, key=lambda t: exact[t]["mean_ns"]) == "dst_tor"
    assert exact["agg"]["mean_ns"] < 0.1 * exact["dst_tor"]["mean_ns"]


def test_throughput_bins_sum_to_each_finished_flow(observed):
    tp = observed.throughput
    assert observed.summary["throughput_interval_ns"] == 20000.0
    done = observed.flows[observed.flows["finish_ns"].notna()]
    delivered = tp.groupby("flow_id")["bytes"].sum()
    assert (delivered.loc[done["flow_id"]].to_numpy() == done["size_bytes"].to_numpy()).all()


def test_packet_trace_covers_the_chosen_flows(observed):
    p = observed.packets
    assert set(p["flow_id"].dropna().unique()) == {0, 1}
    assert set(p["event"]) <= {"enqueue", "tx", "drop", "rx"}
    rx = p[(p["event"] == "rx") & (p["kind"] == "data")]
    assert rx.groupby("flow_id").size().sum() > 0
    assert p["time_ns"].is_monotonic_increasing


def test_reordering_is_zero_with_per_flow_ecmp(observed):
    assert observed.summary["reordering_ratio"] == 0.0
    assert (observed.flows["reordered_packets"] == 0).all()
    assert set(observed.ports["hop_tier"]) == {"host", "src_tor", "agg", "dst_tor"}


def test_all_tables_survive_a_file_round_trip(observed, tmp_path):
    observed.write(tmp_path / "run")
    back = Result.read(tmp_path / "run")
    for name in ("queues", "buffers", "switches", "queue_delay", "throughput", "packets"):
        a, b = getattr(observed, name), getattr(back, name)
        assert len(a) == len(b) > 0, name
        assert list(a.columns) == list(b.columns), name
    assert back.summary["queue_delay_ns"] == observed.summary["queue_delay_ns"]


def test_tables_not_asked_for_are_empty_and_not_written(tmp_path):
    r = hopsim.run(SMALL)
    assert r.queues.empty and r.throughput.empty and r.packets.empty
    assert not r.queue_delay.empty, "queuing delay is always measured"
    r.write(tmp_path / "run")
    assert not (tmp_path / "run" / "queues.parquet").exists()
    assert (tmp_path / "run" / "queue_delay.parquet").exists()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ('output.queues.interval="0us"', "output.queues.interval: expected a positive duration"),
        ("output.queues.every=3", "output.queues"),
        ('output.throughput.interval="-1us"', "output.throughput.interval"),
        (
            "output.packet_trace.flows=[99999]",
            "output.packet_trace.flows: flow 99999 does not exist",
        ),
    ],
)
def test_bad_output_fields_are_named(override, message):
    with pytest.raises(hopsim.ScenarioError, match=message.replace(".", r"\.")):
        hopsim.validate(SMALL, overrides=[override])
