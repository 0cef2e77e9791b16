"""Property-based tests (hypothesis) of input handling: any value in any scenario field,
and any text in a topology, flow or CDF file, is either accepted or refused with one
`ScenarioError` line naming the field or the file — never another exception, a crash or
a traceback. The Rust readers have their own corpus test (`workload/parser_corpus.rs`)."""

from __future__ import annotations

import copy
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hopsim
from hopsim import ScenarioError

BASE = {
    "topology": {"kind": "leaf_spine", "spines": 2, "leaves": 2, "hosts_per_leaf": 4},
    "switch": {"buffer_bytes": "2MB"},
    "workload": [
        {"kind": "flows", "flows": [{"src": 0, "dst": 5, "size": 10_000}]},
        {
            "kind": "incast",
            "receiver": 1,
            "fan_in": 3,
            "size_min": 1000,
            "size_max": 2000,
            "period": "50us",
            "stop": "200us",
        },
    ],
}

# Fields of every section, including ones the base scenario leaves at their defaults.
FIELDS = [
    "seed",
    "duration",
    "name",
    "topology.kind",
    "topology.spines",
    "topology.leaves",
    "topology.hosts_per_leaf",
    "topology.host_rate",
    "topology.fabric_rate",
    "topology.host_delay",
    "topology.fabric_delay",
    "topology.links_per_spine",
    "topology.k",
    "routing.load_balancer",
    "routing.hash",
    "switch.buffer_bytes",
    "switch.queues",
    "switch.latency",
    "switch.int",
    "switch.admission",
    "switch.admission.alpha",
    "switch.pfc.enabled",
    "switch.pfc.threshold",
    "switch.pfc.alpha",
    "switch.pfc.xoff_bytes",
    "switch.pfc.xon_bytes",
    "switch.pfc.headroom_bytes",
    "switch.pfc.reserve_bytes",
    "switch.pfc.resume_offset_bytes",
    "switch.ecn.enabled",
    "switch.ecn.kmin",
    "switch.ecn.kmax",
    "switch.ecn.pmax",
    "switch.ecn.reference_rate",
    "switch.ecn.mark_at",
    "transport.mtu",
    "transport.header_bytes",
    "transport.ack_bytes",
    "transport.ack_every",
    "transport.priority",
    "transport.loss_recovery",
    "transport.rto",
    "transport.nack_interval",
    "transport.window",
    "transport.cc",
    "transport.dcqcn.g",
    "transport.dcqcn.min_rate",
    "transport.dcqcn.rate_ai",
    "transport.hpcc.eta",
    "transport.hpcc.min_rate",
    "transport.timely.t_low",
    "transport.dctcp.g",
    "transport.irn.rto_low",
    "transport.groups",
    "workload.0.flows",
    "workload.0.flows.0.size",
    "workload.0.flows.0.start",
    "workload.0.flows.0.src",
    "workload.0.flows.0.tag",
    "workload.0.tag",
    "workload.0.congested",
    "workload.1.fan_in",
    "workload.1.period",
    "workload.1.load",
    "workload.1.size_max",
    "workload.1.senders",
    "workload.1.stop",
    "workload.1.kind",
    "output.pfc_events",
    "output.queues",
    "output.queues.interval",
    "output.rate_trace",
    "output.packet_trace",
    "output.throughput.interval",
]

_UNITS = ["", "B", "KB", "MB", "ps", "ns", "us", "ms", "s", "Gbps", "Mbps", "bps", "x"]

numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 2**31, 2**32, 2**63, 2**64 - 1, 2**64, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
)
words = st.one_of(
    st.text(max_size=12),
    st.builds(lambda n, u: f"{n}{u}", numbers, st.sampled_from(_UNITS)),
    st.sampled_from(
        [
            "dcqcn",
            "hpcc",
            "none",
            "bdp",
            "static",
            "dynamic",
            "irn",
            "fat_tree",
            "background",
            "ecmp",
            "crc32",
            "dequeue",
        ]
    ),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, words)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["kind", "x", "bytes"]), inner, max_size=3),
    ),
    max_leaves=6,
)

# A located message: ``field.path[0]: ...``, ``file:line: ...`` or ``file: ...``.
_LOCATED = re.compile(r"^(overrides \S+: |[A-Za-z_][\w.\[\]]*: |/\S+: |<scenario>:\d+: )")


def _check(doc, overrides) -> None:
    try:
        hopsim.validate(doc, overrides=overrides)
    except ScenarioError as exc:
        message = str(exc)
        assert "\n" not in message, message
        assert _LOCATED.match(message), f"not located: {message!r}"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=st.lists(st.tuples(st.sampled_from(FIELDS), values), min_size=1, max_size=3))
def test_any_value_in_any_field_is_accepted_or_refused_by_name(fields):
    _check(copy.deepcopy(BASE), list(fields))


_TOKENS = [
    "0",
    "1",
    "4",
    "5",
    "3",
    "100",
    "-1",
    "4294967296",
    "18446744073709551616",
    "nan",
    "inf",
    "1e308",
    "0.5",
    "2.000001",
    "100Gbps",
    "1us",
    "1000ns",
    "x",
    ",",
    '"',
    "#",
    "congested",
    "src",
    "dst",
    "size_bytes",
    "start_ns",
    "class",
    "\ufeff",
]
lines = st.lists(st.sampled_from(_TOKENS), max_size=7).map(" ".join)
texts = st.one_of(
    st.lists(lines, max_size=8).map("\n".join),
    st.lists(st.lists(st.sampled_from(_TOKENS), max_size=6).map(",".join), max_size=6).map(
        "\n".join
    ),
    st.text(max_size=80),
)


def _with_file(text: str, make) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.txt"
        path.write_bytes(text.encode("utf-8", errors="replace"))
        try:
            hopsim.validate(make(str(path)))
        except ScenarioError as exc:
            message = str(exc)
            assert "\n" not in message, message
            # Errors in the file name it; a file that reads fine may still leave the
            # scenario wrong (no hosts for the flows): then the field is named.
            assert message.startswith(str(path)) or _LOCATED.match(message), message


@settings(max_examples=300, deadline=None)
@given(text=texts, kind=st.sampled_from(["topology", "hpcc", "csv", "cdf"]))
def test_any_text_in_an_input_file_is_accepted_or_refused_by_file(text, kind):
    def make(path: str) -> dict:
        doc = copy.deepcopy(BASE)
        if kind == "topology":
            doc["topology"] = {"kind": "file", "file": path}
            doc["workload"] = [{"kind": "flows", "flows": [{"src": 0, "dst": 1, "size": 100}]}]
        elif kind == "cdf":
            doc["workload"] = [{"kind": "poisson", "cdf_file": path, "load": 0.2, "stop": "20us"}]
        else:
            doc["workload"] = [{"kind": "flows", "file": path, "format": kind}]
        return doc

    _with_file(text, make)
