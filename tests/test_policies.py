"""The switch pipeline's policies from Python: results of hopsim 0.1 still reproduce with
its settings, and the new policies' outputs (deflections, per-flow pauses, control
frames, drops by cause, the policies that ran) reach the tables, summaries and the
printed description."""

from __future__ import annotations

import hopsim
from hopsim import bench
from hopsim.scenario import apply_overrides

# Checksum of `leafspine-deflection` (static per-port buffers, DCTCP, IRN, queries) as
# recorded by hopsim 0.1 at 25bb88e, before ACKs shared the data queues and switches had
# their own random streams and simultaneous events were ordered by kind and a shuffle.
PHASE1_LEAFSPINE = "8caf2f9ed6b60001"
PHASE1 = [
    'switch.ack_queue="control"',
    'switch.ecn.random_stream="shared"',
    'engine.tie_order="scheduled"',
]


def test_hopsim_01_settings_reproduce_its_results():
    doc, base, _ = bench._load("leafspine-deflection")
    result = hopsim.run(apply_overrides(doc, PHASE1), base_dir=base)
    assert result.checksum() == PHASE1_LEAFSPINE
    today = hopsim.run(doc, base_dir=base)
    assert today.checksum() != PHASE1_LEAFSPINE, "ACKs in data queues change the run"


INCAST = """
[topology]
kind = "leaf_spine"
spines = 2
leaves = 3
hosts_per_leaf = 4
[switch]
buffer_bytes = "1MB"
[switch.flow_control]
kind = "none"
[switch.admission]
kind = "static_per_port"
bytes = "30KB"
[transport]
cc = "none"
loss_recovery = "irn"
[output]
pfc_events = true
control_frames = true
[workload]
kind = "incast"
receiver = 0
fan_in = 8
senders = [4, 5, 6, 7, 8, 9, 10, 11]
size_min = "100KB"
size_max = "100KB"
period = "1ms"
stop = "1us"
"""


def test_deflections_and_drop_causes_are_reported():
    dibs = hopsim.run(INCAST, overrides={"switch.deflection.kind": "dibs"})
    drop_tail = hopsim.run(INCAST)
    s = dibs.summary
    assert s["deflection"] == "dibs" and drop_tail.summary["deflection"] == "none"
    assert s["deflections"] > 0 == drop_tail.summary["deflections"]
    assert int(dibs.flows["deflections"].sum()) == s["deflections"]
    assert int(dibs.ports["deflections"].sum()) == s["deflections"]
    causes = ["buffer_full", "headroom_overflow", "egress_admission", "hop_limit"]
    causes += ["link_down", "no_route"]
    assert sum(drop_tail.summary[f"drops_{c}"] for c in causes) == drop_tail.summary["drops"] > 0
    text = dibs.describe()
    assert "deflection dibs" in text and "deflections" in text
    assert "egress admission" in drop_tail.describe()


def test_per_flow_pauses_are_logged_as_control_frames():
    result = hopsim.run(
        INCAST,
        overrides={
            "switch.flow_control.kind": "per_flow",
            "switch.admission": {"kind": "dynamic_threshold"},
            "transport.loss_recovery": "go_back_n",
        },
    )
    s = result.summary
    assert s["flow_control"] == "per_flow"
    assert s["drops"] == 0 and s["pfc_pause_frames"] == 0
    frames = result.control_frames
    sent = s["control_frames_sent"]
    assert sent["flow_pause"] > 0 and sent["flow_pause"] == sent["flow_resume"]
    assert (frames["kind"] == "flow_pause").sum() == sent["flow_pause"]
    assert frames.loc[frames["kind"] == "flow_pause", "pause"].all()
    assert result.pfc_events.empty, "per-flow frames are not PFC frames"
    assert "flow pauses" in result.describe()


def test_control_frames_round_trip(tmp_path):
    pfc = hopsim.run(
        INCAST,
        overrides={
            "switch.flow_control.kind": "pfc",
            "switch.admission": {"kind": "dynamic_threshold"},
        },
    )
    assert len(pfc.control_frames) == len(pfc.pfc_events) > 0
    back = hopsim.Result.read(pfc.write(tmp_path / "run"))
    assert back.control_frames.equals(pfc.control_frames)
