"""Extreme values in every field (issue 27, item 5): each field of a scenario that uses
most of the model, given values at the edges of its type (0, 1, byte and 32-bit
boundaries, units from picoseconds to days, rates from 1 bit/s to Tb/s, sizes from 0 B to
10 GB, empty and long lists), must build and start running or be refused with a
`ScenarioError` naming a field: never an internal error, a Python exception or a crash.
Runs are stopped after a short wall-time budget (a heavy but valid workload is not a
failure). The cases found this way and fixed are in test_traps.py."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

import hopsim
from hopsim import _core
from hopsim.scenario import core_json, load_scenario

BASE: dict[str, Any] = {
    "seed": 1,
    "duration": "100us",
    "topology": {
        "kind": "leaf_spine",
        "spines": 2,
        "leaves": 2,
        "hosts_per_leaf": 4,
        "host_rate": "100Gbps",
        "fabric_rate": "100Gbps",
        "host_delay": "1us",
        "fabric_delay": "1us",
    },
    "routing": {"load_balancer": "ecmp"},
    "switch": {
        "buffer_bytes": "500KB",
        "queues": 8,
        "pfc": {"alpha": 0.125, "reserve_bytes": "4KB", "resume_offset_bytes": "3KB"},
        "ecn": {"enabled": True, "kmin": "20KB", "kmax": "100KB", "pmax": 0.2},
    },
    "transport": {
        "mtu": 1000,
        "header_bytes": 48,
        "ack_bytes": 64,
        "ack_every": 1,
        "priority": 3,
        "rto": "1ms",
        "nack_interval": "4us",
        "cc": "dcqcn",
    },
    "workload": [
        {"kind": "poisson", "size_dist": "websearch", "load": 0.5, "stop": "100us"},
        {
            "kind": "incast",
            "receiver": 0,
            "fan_in": 4,
            "size_min": "10KB",
            "size_max": "20KB",
            "period": "50us",
            "stop": "100us",
        },
        {"kind": "query", "fan_out": 4, "response_size": "10KB", "qps": 1000, "stop": "100us"},
    ],
    "output": {
        "queues": {"interval": "10us"},
        "throughput": {"interval": "10us"},
        "rate_trace": {"flows": [0], "interval": "10us"},
    },
}
# Wall seconds a case may run before it is stopped (a valid, heavy run).
BUDGET_S = 0.5


def leaves(d: Any, path: tuple[str, ...] = ()) -> Iterator[str]:
    if isinstance(d, dict):
        for k, v in d.items():
            yield from leaves(v, (*path, k))
    elif isinstance(d, list) and d and isinstance(d[0], dict):
        for i, v in enumerate(d):
            yield from leaves(v, (*path, str(i)))
    else:
        yield ".".join(path)


def value_at(d: Any, path: str) -> Any:
    for p in path.split("."):
        d = d[int(p)] if isinstance(d, list) else d[p]
    return d


def extremes(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        # (2**16 is left out: valid but slow beyond a test's budget, and one call of the
        # core cannot be interrupted: 65,536 hosts per leaf took ~50 s, and an incast of
        # 65,536 flows from 7 senders ~50 s for the 1 us step at its second round, with
        # the first round's flows still active. Not investigated further.)
        return [0, 1, 255, 256, 2**32, 2**63]
    if isinstance(v, float):
        return [0.0, 1e-9, 1.0, 1.5, 1e12]
    if isinstance(v, list):
        return [[], [0] * 1000, [10**6]]
    m = re.fullmatch(r"([0-9.]+)\s*([A-Za-z]+)", str(v))
    if not m:
        return []
    unit = m.group(2)
    out = [f"0{unit}", f"1{unit}", f"0.001{unit}", f"1e12{unit}"]
    if unit in ("ns", "us", "ms", "s"):
        out += ["1ps", "86400s"]
    if unit.endswith("bps"):
        out += ["1bps", "1Tbps"]
    if unit.endswith("B"):
        out += ["1B", "10GB"]
    return out


CASES = [(path, v) for path in leaves(BASE) for v in extremes(value_at(BASE, path))]


def test_the_base_scenario_is_valid():
    hopsim.validate(BASE)


@pytest.mark.parametrize("path, value", CASES, ids=[f"{p}={v!r}"[:60] for p, v in CASES])
def test_an_extreme_value_is_run_or_refused(path, value):
    try:
        doc, base = load_scenario(BASE, {path: value})
        with core_json(doc, base) as text:
            sim = _core.Simulation(text, base)
    except hopsim.ScenarioError as exc:
        assert re.match(r"^[\w.\[\]]+: ", str(exc)), f"names no field: {exc}"
        return
    started, t = time.perf_counter(), 0.0
    while not sim.is_done() and time.perf_counter() - started < BUDGET_S:
        t += 1000.0
        sim.run_until(t)
