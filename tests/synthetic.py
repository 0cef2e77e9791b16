"""Hand-made observation tables (queue, buffer, throughput and delay samples) attached to
a real run, in the schemas of `Result.queues`, `.buffers`, `.switches`, `.queue_delay`
and `.throughput`, for tests that must not depend on which of them a run records."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

import hopsim

QUEUE_INTERVAL_NS = 1_000.0
THROUGHPUT_INTERVAL_NS = 10_000.0


def hop_tiers(ports: pd.DataFrame) -> pd.Series:
    """The egress role of each port, from the node tiers at both ends."""
    tier_of = dict(zip(ports["node"], ports["tier"]))
    roles = []
    for tier, peer in zip(ports["tier"], ports["peer_node"]):
        if tier == "tor":
            roles.append("dst_tor" if tier_of.get(peer) == "host" else "src_tor")
        elif tier == "spine":
            roles.append("agg")  # a leaf-spine's spine sends on the hop between the ToRs
        else:
            roles.append(str(tier))
    return pd.Series(roles, index=ports.index)


def observe(result: hopsim.Result) -> hopsim.Result:
    """``result`` with synthetic observation tables and their summary keys added."""
    end = result.summary["sim_time_ns"]
    if "hop_tier" not in result.ports.columns:
        result.ports = result.ports.assign(hop_tier=hop_tiers(result.ports))
    ports = result.ports.sort_values(["max_queue_bytes", "node", "port"], ascending=False)
    # Queues: three ports, a triangle wave every other sample (the rest implicitly 0),
    # whole-port rows (queue -1) and the same bytes on data queue 3.
    rows = []
    for rank, (node, port, tier) in enumerate(
        zip(ports["node"].head(3), ports["port"].head(3), ports["hop_tier"].head(3))
    ):
        for k in range(0, int(end // QUEUE_INTERVAL_NS) + 1, 2):
            b = (3 - rank) * 1_000 * (k % 10)
            if b:
                for queue in (-1, 3):
                    rows.append((k * QUEUE_INTERVAL_NS, node, port, queue, tier, b))
    result.queues = pd.DataFrame(
        rows, columns=["time_ns", "node", "port", "queue", "hop_tier", "bytes"]
    )
    switches = result.ports[result.ports["tier"] != "host"].groupby("node")["tier"].first()
    result.switches = pd.DataFrame(
        {
            "node": switches.index,
            "tier": switches.to_numpy(),
            "max_buffer_bytes": [10_000 * (i + 1) for i in range(len(switches))],
        }
    )
    result.buffers = pd.DataFrame(
        [
            (k * QUEUE_INTERVAL_NS, node, tier, 500 * k)
            for node, tier in zip(switches.index, switches)
            for k in range(1, 5)
        ],
        columns=["time_ns", "node", "tier", "bytes"],
    )
    # Delay histogram: 10 packets at <=100 ns, 80 at <=1000 ns, 10 in the open bucket.
    result.queue_delay = pd.DataFrame(
        {
            "hop_tier": ["src_tor"] * 3 + ["agg"] * 2,
            "upper_ns": [100.0, 1_000.0, math.inf, 50.0, 200.0],
            "packets": [10, 80, 10, 0, 4],
        }
    )
    # Throughput: each finished flow delivers its bytes evenly over the bins it spans;
    # bins past 200 us carry nothing.
    rows = []
    for f in result.flows.itertuples():
        if pd.isna(f.finish_ns) or f.finish_ns > 200_000:
            continue
        first = int(f.start_ns // THROUGHPUT_INTERVAL_NS)
        last = int(f.finish_ns // THROUGHPUT_INTERVAL_NS)
        share = np.full(last - first + 1, f.size_bytes // (last - first + 1))
        share[-1] += f.size_bytes - share.sum()
        rows += [
            (b * THROUGHPUT_INTERVAL_NS, f.flow_id, int(n))
            for b, n in zip(range(first, last + 1), share)
        ]
    result.throughput = pd.DataFrame(rows, columns=["time_ns", "flow_id", "bytes"])
    result.summary.pop("queue_delay_ns", None)  # exact figures of the real histogram
    result.summary["queue_sample_interval_ns"] = QUEUE_INTERVAL_NS
    result.summary["throughput_interval_ns"] = THROUGHPUT_INTERVAL_NS
    return result
