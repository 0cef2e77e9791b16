"""The two public inputs of the ns-3 parity runs, rebuilt so the tests run in a fresh clone
(the originals, ``fat.txt`` and ``ws30_1ms.txt`` of ``shared/anchors/ns3-fattree320``, are
not copied into the repository):

- ``fat_tree_320()``: the HPCC simulator's 320-host fat tree (``simulation/mix/fat.txt``),
  written from its regular structure — 20 ToRs of 16 hosts, five pods of four ToRs and four
  aggregation switches, 16 cores, each aggregation switch of a pod on its own group of four
  cores — in the HPCC topology format, link for link in the file's order;
- ``ws30_1ms_flows()``: the flow list of ``ws30_1ms.txt`` (WebSearch at 30 % load, 1 ms of
  arrivals from t = 2 s) in the HPCC flow-file format, read back from the ns-3 runs' own
  outputs in ``tests/data/ns3`` (``ws30_1ms_*_fct.txt``: source and destination addresses,
  size and start of every flow).

ns-3 read each start, ``2.000000962`` seconds, into a double and started the flow at the
nanosecond at or below it, floor(double x 10^9) — which is what its ``fct.txt`` prints (the
rule holds for all 405 flows against the original file). A start
text of n ns reads as n or as n - 1 ns, so the printed nanosecond leaves two candidates; the
rebuilt text is the one ns-3 reads as that nanosecond. Where both do (131 of the 405 flows)
the outputs cannot tell them apart and the later is written (ns-3 reads a start 1 ns early
about as often as not: 213 of the 405 here). Against the original file every field is equal
and every start reads as the same nanosecond in ns-3; 65 start texts (of the 131) are 1 ns
earlier there. (With the earlier candidate instead, 66 differ, and DCQCN's random marks make
its per-flow correlation with ns-3 0.978 rather than the original's 0.991.) See
``tests/data/ns3/README.md``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from hopsim import ns3

DATA = Path(__file__).parent / "data" / "ns3"

HOSTS, TORS, AGGS, CORES = 320, 20, 20, 16
HOSTS_PER_TOR, TORS_PER_POD, AGGS_PER_POD, CORES_PER_AGG = 16, 4, 4, 4
HOST_LINK, FABRIC_LINK = "100Gbps 1000ns 0.000000", "400Gbps 1000ns 0.000000"


def fat_tree_320() -> str:
    """``fat.txt``: node, switch and link counts; the switch ids; then one line per link
    ``a b rate delay error_rate`` — hosts to ToRs, ToRs to the aggregation switches of
    their pod, aggregation switches to cores (the file ends with an empty line)."""
    tor0, agg0, core0 = HOSTS, HOSTS + TORS, HOSTS + TORS + AGGS
    nodes = core0 + CORES
    switches = range(HOSTS, nodes)
    links = [(h, tor0 + h // HOSTS_PER_TOR, HOST_LINK) for h in range(HOSTS)]
    for t in range(TORS):
        pod = t // TORS_PER_POD
        links += [
            (tor0 + t, agg0 + pod * AGGS_PER_POD + a, FABRIC_LINK) for a in range(AGGS_PER_POD)
        ]
    for a in range(AGGS):
        group = a % AGGS_PER_POD
        links += [
            (agg0 + a, core0 + group * CORES_PER_AGG + c, FABRIC_LINK) for c in range(CORES_PER_AGG)
        ]
    lines = [f"{nodes} {len(switches)} {len(links)}", " ".join(map(str, switches))]
    lines += [f"{a} {b} {spec}" for a, b, spec in links]
    return "\n".join(lines) + "\n\n"


def ns3_start_ns(seconds: str) -> int:
    """The nanosecond ns-3 starts a flow whose file says `seconds`: the decimal read into a
    double, times 10^9 exactly, floored."""
    return math.floor(Fraction(float(seconds)) * 10**9)


def seconds_text(ns: int) -> str:
    """`ns` nanoseconds as the flow files write seconds: nine decimals."""
    return f"{ns // 10**9}.{ns % 10**9:09d}"


def start_text(ns: int) -> str:
    """The start text ns-3 reads as nanosecond `ns`: of the two decimals that can be (`ns` + 1
    and `ns`), the later when both are."""
    for candidate in (ns + 1, ns):
        text = seconds_text(candidate)
        if ns3_start_ns(text) == ns:
            return text
    raise ValueError(f"no nine-decimal start reads as {ns} ns")


def ws30_1ms_flows(data: Path = DATA) -> str:
    """``ws30_1ms.txt`` rebuilt from the ns-3 runs' ``fct.txt`` files (the four congestion
    controls' runs must list the same flows): the flow count, then ``src dst priority dport
    size start_seconds`` in start order, priority 3 and destination port 100 as
    ``traffic_gen`` writes them (ns-3's own port numbering of each pair is not in the file)."""
    tables = [ns3.read_fct(p) for p in sorted(data.glob("ws30_1ms_*_fct.txt"))]
    assert tables, f"no ws30_1ms_*_fct.txt in {data}"
    keys = [sorted(zip(t["src"], t["dst"], t["size_bytes"], t["start_ns"])) for t in tables]
    assert all(k == keys[0] for k in keys), "the runs list different flows"
    rows = sorted(keys[0], key=lambda r: r[3])
    lines = [f"{len(rows)} "]
    lines += [
        f"{src} {dst} 3 100 {size} {start_text(int(start))}" for src, dst, size, start in rows
    ]
    return "\n".join(lines) + "\n"


def write_ws30_1ms_inputs(directory: Path) -> tuple[Path, Path]:
    """Write ``fat.txt`` and ``ws30_1ms.txt`` into `directory`; returns their paths."""
    topology, flows = directory / "fat.txt", directory / "ws30_1ms.txt"
    topology.write_text(fat_tree_320())
    flows.write_text(ws30_1ms_flows())
    return topology, flows
