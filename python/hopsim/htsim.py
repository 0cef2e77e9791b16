"""Side by side with htsim (Broadcom/csg-htsim): one fat-tree, one permutation, both simulators.

``hopsim htsim-pair --htsim PATH/htsim_roce --k 8 --size 2MB`` writes one permutation of the
hosts as htsim's connection matrix (``permutation.cm``) and the same flows as a hopsim flow
trace (``flows.csv``), runs htsim's RoCE fat-tree program and hopsim on them one after the
other, each as its own process (so each uses one core), and prints both runs' wall time, CPU
time, peak RSS, work done and FCTs. ``docs/htsim.md`` says what is matched and what differs.

The pieces are separate so that they can be tested without htsim: `permutation`,
`write_connection_matrix` / `read_connection_matrix`, `write_flow_csv`, `hopsim_scenario`,
`htsim_argv` and `parse_htsim_log`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hopsim.bench import cpu_model
from hopsim.results import check_outdir

__all__ = [
    "Connection",
    "HtsimLog",
    "SideRun",
    "fat_tree_links",
    "hopsim_scenario",
    "htsim_argv",
    "main",
    "parse_htsim_log",
    "permutation",
    "read_connection_matrix",
    "run_pair",
    "write_connection_matrix",
    "write_flow_csv",
]

#: htsim's RoCE packets carry this many bytes beside their payload, and its ACKs and NACKs
#: are this long (``RocePacket::ACKSIZE`` in ``sim/rocepacket.h``).
HTSIM_HEADER_BYTES = 64
#: htsim's PFC thresholds, in data packets (``high_pfc = 15, low_pfc = 12`` in
#: ``sim/datacenter/main_roce.cpp``): an ingress pauses its upstream when it holds more than
#: 15 packets' worth of bytes and resumes it below 12.
HTSIM_PFC_HIGH_PACKETS = 15
HTSIM_PFC_LOW_PACKETS = 12
#: Link rate and per-link delay of htsim's generated fat-tree (``HOST_NIC`` 100000 Mb/s in
#: ``sim/datacenter/main.h``; ``hop_latency`` 1 µs, ``switch_latency`` 0 in ``main_roce.cpp``).
LINK_GBPS = 100
LINK_DELAY_US = 1
#: Payload bytes per packet in the pairing. htsim's RoCE program defaults to 9000; the pairing
#: uses 1000, hopsim's default (the HPCC simulator's), so that both are timed on the packet
#: counts RDMA studies run. `--mtu` changes it for both.
DEFAULT_MTU = 1000
#: Flow size: 2 MB, the size in htsim's own example connection matrix
#: (``sim/datacenter/connection_matrices/bidir.cm``).
DEFAULT_SIZE = 2_000_000


@dataclass(frozen=True)
class Connection:
    """One flow of a connection matrix: ``src->dst``, ``size`` bytes from ``start_ps``."""

    src: int
    dst: int
    size: int
    start_ps: int = 0
    flow_id: int | None = None


def permutation(hosts: int, size: int, seed: int) -> list[Connection]:
    """Every host sends `size` bytes to a distinct other host, all from time 0: a random
    derangement of ``0 .. hosts-1`` drawn from ``random.Random(seed)`` (shuffle, then swap
    every fixed point with its successor's destination). Flow ids count from 1, as htsim's
    connection matrices require (id 0 is refused there)."""
    if hosts < 2:
        raise ValueError(f"hosts: a permutation needs at least two hosts, got {hosts}")
    if size <= 0:
        raise ValueError(f"size: expected a positive number of bytes, got {size}")
    rng = random.Random(seed)
    dst = list(range(hosts))
    rng.shuffle(dst)
    for i in range(hosts):
        if dst[i] == i:
            j = (i + 1) % hosts
            dst[i], dst[j] = dst[j], dst[i]
    # A swap can only move a fixed point forward onto a host whose destination is not
    # itself, but check rather than trust that.
    if any(d == s for s, d in enumerate(dst)):
        raise AssertionError("permutation: a host was left sending to itself")
    return [Connection(s, d, size, 0, s + 1) for s, d in enumerate(dst)]


def write_connection_matrix(
    path: str | os.PathLike[str], nodes: int, conns: Sequence[Connection]
) -> None:
    """Write htsim's connection-matrix format: ``Nodes N``, ``Connections C``, then one line
    ``src->dst id I start PS size BYTES`` per flow (start in picoseconds, as htsim reads it)."""
    lines = [f"Nodes {nodes}", f"Connections {len(conns)}"]
    for c in conns:
        fid = f" id {c.flow_id}" if c.flow_id is not None else ""
        lines.append(f"{c.src}->{c.dst}{fid} start {c.start_ps} size {c.size}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _int(text: str, where: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{where}: {what}: expected an integer, got {text!r}") from None
    if value < 0:
        raise ValueError(f"{where}: {what}: expected a non-negative integer, got {value}")
    return value


def read_connection_matrix(path: str | os.PathLike[str]) -> tuple[int, list[Connection]]:
    """Read an htsim connection matrix: ``(nodes, flows)``. Understands the header lines
    (``Nodes``, ``Connections``; ``#`` comments) and flow lines ``src->dst`` with ``id``,
    ``start`` (picoseconds) and ``size``. Triggers and failures have no hopsim counterpart
    here and are refused, naming the line."""
    nodes: int | None = None
    declared: int | None = None
    conns: list[Connection] = []
    name = str(path)
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            where = f"{name}:{number}"
            tokens = raw.split()
            if not tokens or tokens[0].startswith("#"):
                continue
            head = tokens[0]
            if head in ("Nodes", "Connections"):
                if len(tokens) != 2:
                    raise ValueError(f"{where}: expected `{head} <count>`, got {raw.strip()!r}")
                value = _int(tokens[1], where, head)
                if head == "Nodes":
                    nodes = value
                else:
                    declared = value
                continue
            if "->" not in head:
                raise ValueError(
                    f"{where}: expected `Nodes`, `Connections` or a flow `src->dst ...`, "
                    f"got {head!r} (triggers and failures are not supported)"
                )
            a, _, b = head.partition("->")
            src, dst = _int(a, where, "src"), _int(b, where, "dst")
            attrs: dict[str, str] = {}
            rest = tokens[1:]
            if len(rest) % 2:
                raise ValueError(
                    f"{where}: expected `key value` pairs after {head}, got {raw.strip()!r}"
                )
            for key, value in zip(rest[::2], rest[1::2]):
                if key not in ("id", "start", "size"):
                    raise ValueError(
                        f"{where}: unknown flow attribute {key!r}; expected id, start or size "
                        "(triggers are not supported)"
                    )
                attrs[key] = value
            if "size" not in attrs:
                raise ValueError(f"{where}: flow {head} has no size")
            size = _int(attrs["size"], where, "size")
            if size == 0:
                raise ValueError(f"{where}: size: expected a positive number of bytes, got 0")
            start_text = attrs.get("start", "0")
            try:
                start = float(start_text)
            except ValueError:
                raise ValueError(
                    f"{where}: start: expected picoseconds, got {start_text!r}"
                ) from None
            if not math.isfinite(start) or start < 0:
                raise ValueError(
                    f"{where}: start: expected non-negative picoseconds, got {start_text!r}"
                )
            fid = _int(attrs["id"], where, "id") if "id" in attrs else None
            if fid == 0:
                raise ValueError(f"{where}: id: flow id 0 is not allowed (htsim refuses it)")
            if src == dst:
                raise ValueError(f"{where}: flow {head} sends to itself")
            conns.append(Connection(src, dst, size, round(start), fid))
    if nodes is None:
        raise ValueError(f"{name}: no `Nodes` line")
    if declared is not None and declared != len(conns):
        raise ValueError(f"{name}: `Connections {declared}` but {len(conns)} flow lines")
    for c in conns:
        if c.src >= nodes or c.dst >= nodes:
            raise ValueError(f"{name}: flow {c.src}->{c.dst} names a host beyond Nodes {nodes}")
    return nodes, conns


def write_flow_csv(path: str | os.PathLike[str], conns: Sequence[Connection]) -> None:
    """The same flows as a hopsim CSV flow trace (``src,dst,size_bytes,start_ns``)."""
    lines = ["src,dst,size_bytes,start_ns"]
    lines += [f"{c.src},{c.dst},{c.size},{c.start_ps / 1000:g}" for c in conns]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def fat_tree_hosts(k: int) -> int:
    """Hosts of a k-ary fat-tree (k³/4); `k` must be even and at least 2."""
    if k < 2 or k % 2:
        raise ValueError(f"k: expected an even integer of at least 2, got {k}")
    return k**3 // 4


def fat_tree_links(k: int, src: int, dst: int) -> int:
    """Links on a shortest path between hosts `src` and `dst` of a k-ary fat-tree, as both
    simulators number hosts: host h under ToR h // (k/2), ToR t in pod t // (k/2)."""
    half = k // 2
    if src // half == dst // half:
        return 2
    if src // (half * half) == dst // (half * half):
        return 4
    return 6


def hopsim_scenario(
    k: int, flows_file: str, *, mtu: int = DEFAULT_MTU, seed: int = 1, name: str = ""
) -> str:
    """The hopsim scenario (TOML text) matching `htsim_argv` with the same arguments."""
    fat_tree_hosts(k)
    xoff = HTSIM_PFC_HIGH_PACKETS * mtu
    xon = HTSIM_PFC_LOW_PACKETS * mtu
    return f"""\
# Written by `hopsim htsim-pair`: the fat-tree and permutation that htsim_roce runs beside it.
name = {json.dumps(name or f"htsim-pair-k{k}")}
seed = {seed}

[topology]
kind = "fat_tree"
k = {k}
host_rate = "{LINK_GBPS}Gbps"      # htsim HOST_NIC (main.h), every tier
fabric_rate = "{LINK_GBPS}Gbps"
delay = "{LINK_DELAY_US}us"              # htsim -hop_latency

[routing]
load_balancer = "ecmp"         # htsim -strat ecmp_host: per-flow hash at every switch

[switch]
latency = "0ns"                # htsim -switch_latency 0
queues = 1                     # htsim's lossless queues are one FIFO per port
[switch.ecn]
enabled = false                # htsim's lossless_input queues do not mark
[switch.pfc]
threshold = "static"           # htsim LosslessInputQueue: per ingress port
xoff_bytes = {xoff}            # {HTSIM_PFC_HIGH_PACKETS} x MTU (htsim high_pfc)
xon_bytes = {xon}              # {HTSIM_PFC_LOW_PACKETS} x MTU (htsim low_pfc)
reserve_bytes = 0              # htsim counts every byte against the threshold

[transport]
mtu = {mtu}
header_bytes = {HTSIM_HEADER_BYTES}              # htsim RocePacket::ACKSIZE, on each data packet
ack_bytes = {HTSIM_HEADER_BYTES}                 # htsim RoceAck
ack_every = 1                  # htsim RoceSink acknowledges every packet
priority = 0
cc = "none"                    # htsim's RoCE source sends at line rate, no congestion control
window = "none"
loss_recovery = "go_back_n"    # as htsim's RoceSrc

[[workload]]
kind = "flows"
file = {json.dumps(flows_file)}
format = "csv"
"""


def htsim_argv(
    binary: str | os.PathLike[str],
    k: int,
    tm: str | os.PathLike[str],
    *,
    mtu: int = DEFAULT_MTU,
    seed: int = 1,
    end_us: int,
    logfile: str | os.PathLike[str],
) -> list[str]:
    """The command line of htsim's RoCE fat-tree program for the same network as
    `hopsim_scenario`."""
    return [
        str(binary),
        "-nodes", str(fat_tree_hosts(k)),
        "-tiers", "3",
        "-tm", str(tm),
        "-linkspeed", str(LINK_GBPS * 1000),
        "-hop_latency", str(LINK_DELAY_US),
        "-switch_latency", "0",
        "-mtu", str(mtu),
        "-queue_type", "lossless_input",
        "-pfc_thresholds", str(HTSIM_PFC_LOW_PACKETS), str(HTSIM_PFC_HIGH_PACKETS),
        # The output queues' nominal size (packets) only decides when htsim warns that a
        # lossless queue overflowed; it drops nothing. Far above what PFC lets build up.
        "-q", "100000",
        "-strat", "ecmp_host",
        "-paths", "1",
        "-seed", str(seed),
        "-end", str(end_us),
        "-o", str(logfile),
    ]  # fmt: skip


_FINISHED = re.compile(
    r"^Flow Roce_(\d+)_(\d+) \d+ finished at ([-+0-9.eE]+) total bytes (\d+)\s*$"
)
_TOTALS = re.compile(r"^New: (-?\d+) Rtx: (-?\d+)\s*$")


@dataclass
class HtsimLog:
    """What htsim_roce's standard output tells: each finished flow's ``(src, dst, finish_us,
    bytes)`` in the order printed, data packets sent new and resent, and how many times a
    lossless queue reported an overflow."""

    finished: list[tuple[int, int, float, int]] = field(default_factory=list)
    new_packets: int | None = None
    rtx_packets: int | None = None
    overflow_warnings: int = 0


def parse_htsim_log(text: str) -> HtsimLog:
    """Read htsim_roce's standard output (``Flow Roce_S_D ID finished at T total bytes B``
    per flow, ``New: N Rtx: R`` at the end)."""
    out = HtsimLog()
    for line in text.splitlines():
        # The progress clock prints dots without a newline before other output.
        line = line.lstrip(".|")
        m = _FINISHED.match(line)
        if m:
            out.finished.append((int(m[1]), int(m[2]), float(m[3]), int(m[4])))
            continue
        m = _TOTALS.match(line)
        if m:
            out.new_packets, out.rtx_packets = int(m[1]), int(m[2])
            continue
        if "LOSSLESS not working" in line:
            out.overflow_warnings += 1
    return out


@dataclass
class SideRun:
    """One simulator's process: exit status, wall and CPU seconds, peak RSS (bytes)."""

    name: str
    status: int
    wall_s: float
    user_s: float
    sys_s: float
    peak_rss_bytes: int

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.sys_s


def _vm_hwm(pid: int) -> int | None:
    """The peak resident set of process `pid` since its last ``exec`` (Linux ``VmHWM``)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def _run_child(name: str, argv: Sequence[str], log: Path, cwd: Path) -> SideRun:
    """Run `argv` with stdout and stderr to `log`; its own CPU time (``wait4``) and peak RSS.

    The peak RSS is the child's ``VmHWM`` (a high-water mark) read while it runs: ``wait4``'s
    ``ru_maxrss`` also counts the memory of the forked copy of this Python process before
    it became the simulator, which would hide a small simulator's footprint. Where
    ``/proc`` is missing, ``ru_maxrss`` is all there is."""
    with open(log, "wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
        peak: int | None = None
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                hwm = _vm_hwm(proc.pid)
                if hwm is not None:
                    peak = max(peak or 0, hwm)
                # Often while the simulators build their networks, then seldom: the
                # polling must not take CPU from the run it measures.
                time.sleep(0.01 if time.perf_counter() - t0 < 2 else 0.1)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if peak is None:
        peak = int(usage.ru_maxrss) * (1 if sys.platform == "darwin" else 1024)
    return SideRun(name, proc.returncode, wall, usage.ru_utime, usage.ru_stime, peak)


# The hopsim side, run in a child process: build and run the scenario, then write its
# summary (with the in-process build + run time) and the flows it finished.
_HOPSIM_CHILD = """\
import json, sys, time
from pathlib import Path
from hopsim import _core
from hopsim.scenario import load_toml, to_json

def rss():
    try:
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return None

scenario, out = sys.argv[1], sys.argv[2]
doc = load_toml(scenario)
rss0 = rss()
c0, t0 = time.process_time(), time.perf_counter()
sim = _core.Simulation(to_json(doc), str(Path(scenario).resolve().parent))
c1, t1 = time.process_time(), time.perf_counter()
sim.run()
c2, t2 = time.process_time(), time.perf_counter()
s = sim.summary()
f = sim.flows()
keep = ("src", "dst", "size_bytes", "start_ns", "fct_ns", "ideal_fct_ns")
with open(out, "w") as o:
    json.dump({"summary": s, "build_s": t1 - t0, "run_s": t2 - t1, "startup_cpu_s": c0,
               "startup_rss_bytes": rss0, "build_cpu_s": c1 - c0, "run_cpu_s": c2 - c1,
               "flows": {k: f[k] for k in keep}}, o)
"""


def _stats(fcts_us: Sequence[float]) -> dict[str, float | int | None]:
    """Count, mean, p50, p99 and max of FCTs (µs); percentile = ``sorted[int(n p)]`` (the
    convention of ``docs/ns3.md``)."""
    xs = sorted(fcts_us)
    n = len(xs)
    if not n:
        return {"flows": 0, "mean_us": None, "p50_us": None, "p99_us": None, "max_us": None}
    return {
        "flows": n,
        "mean_us": sum(xs) / n,
        "p50_us": xs[min(n - 1, int(n * 0.5))],
        "p99_us": xs[min(n - 1, int(n * 0.99))],
        "max_us": xs[-1],
    }


def run_pair(
    htsim: str | os.PathLike[str],
    k: int,
    outdir: str | os.PathLike[str],
    *,
    size: int = DEFAULT_SIZE,
    mtu: int = DEFAULT_MTU,
    seed: int = 1,
    tm: str | os.PathLike[str] | None = None,
    skip_htsim: bool = False,
) -> dict[str, Any]:
    """Write both inputs into `outdir`, run htsim then hopsim (one process each, one after the
    other) and return the measurements (also written to ``outdir/pair.json``)."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    hosts = fat_tree_hosts(k)
    if mtu <= 0:
        raise ValueError(f"mtu: expected a positive number of bytes, got {mtu}")
    if tm is not None:
        nodes, conns = read_connection_matrix(tm)
        if nodes != hosts:
            raise ValueError(f"{tm}: Nodes {nodes}, but a k = {k} fat-tree has {hosts} hosts")
    else:
        conns = permutation(hosts, size, seed)
    if any(c.start_ps for c in conns):
        # htsim_roce starts every flow at once, whatever the matrix says (RoceSrc::connect
        # calls startflow() at time 0); give hopsim nothing it would run differently.
        raise ValueError("htsim_roce starts every flow at time 0: the connection matrix must too")
    odd = [c for c in conns if c.size % mtu]
    if odd:
        raise ValueError(
            f"flow {odd[0].src}->{odd[0].dst}: size {odd[0].size} is not a multiple of the MTU "
            f"{mtu} (htsim's RoCE source pads its last packet to a full MTU; hopsim does not)"
        )
    cm = out / "permutation.cm"
    write_connection_matrix(cm, hosts, conns)
    write_flow_csv(out / "flows.csv", conns)
    scenario = out / "scenario.toml"
    scenario.write_text(hopsim_scenario(k, "flows.csv", mtu=mtu, seed=seed), encoding="utf-8")

    data_packets = sum(-(-c.size // mtu) for c in conns)
    # Each data packet and its ACK cross every link of the path once (a lossless run).
    implied_hops = sum(2 * -(-c.size // mtu) * fat_tree_links(k, c.src, c.dst) for c in conns)
    # htsim stops at -end (µs): far beyond the longest flow alone on its path at line rate.
    longest = max(c.size + -(-c.size // mtu) * HTSIM_HEADER_BYTES for c in conns)
    end_us = int(longest * 8 / (LINK_GBPS * 1e3) * 50) + 1000

    report: dict[str, Any] = {
        "k": k,
        "hosts": hosts,
        "flows": len(conns),
        "flow_bytes": sum(c.size for c in conns),
        "mtu": mtu,
        "seed": seed,
        "data_packets": data_packets,
        "data_and_ack_packet_hops": implied_hops,
        "cpu": cpu_model(),
    }

    # htsim first, then hopsim: never both at once.
    if not skip_htsim:
        argv = htsim_argv(
            htsim, k, cm.name, mtu=mtu, seed=seed, end_us=end_us, logfile="htsim_logout.dat"
        )
        side = _run_child("htsim", argv, out / "htsim.log", out)
        if side.status != 0:
            raise RuntimeError(f"htsim exited with status {side.status}; see {out / 'htsim.log'}")
        log = parse_htsim_log((out / "htsim.log").read_text(encoding="utf-8", errors="replace"))
        fcts = [t for _, _, t, _ in log.finished]
        last = max(fcts) if fcts else None
        report["htsim"] = {
            **asdict(side),
            "cpu_s": side.cpu_s,
            "argv": " ".join(argv),
            "finished": len(log.finished),
            "new_packets": log.new_packets,
            "rtx_packets": log.rtx_packets,
            "overflow_warnings": log.overflow_warnings,
            "last_finish_us": last,
            "fct": _stats(fcts),
        }

    child = [sys.executable, "-c", _HOPSIM_CHILD, scenario.name, "hopsim_result.json"]
    side = _run_child("hopsim", child, out / "hopsim.log", out)
    if side.status != 0:
        raise RuntimeError(f"hopsim exited with status {side.status}; see {out / 'hopsim.log'}")
    res = json.loads((out / "hopsim_result.json").read_text(encoding="utf-8"))
    s, f = res["summary"], res["flows"]
    done = [(a, b, x / 1000) for a, b, x in zip(f["src"], f["dst"], f["fct_ns"]) if x is not None]
    fcts = [t for _, _, t in done]
    # One ideal FCT for both sides: hopsim's, of the flow alone on its path.
    ideal = {(a, b): x / 1000 for a, b, x in zip(f["src"], f["dst"], f["ideal_fct_ns"])}
    report["hopsim"] = {
        **asdict(side),
        "cpu_s": side.cpu_s,
        "build_s": res["build_s"],
        "run_s": res["run_s"],
        "startup_cpu_s": res["startup_cpu_s"],
        "sim_cpu_s": res["build_cpu_s"] + res["run_cpu_s"],
        "startup_rss_bytes": res["startup_rss_bytes"],
        "finished": s["flows_finished"],
        "events": s["events"],
        "packet_hops": s["packet_hops"],
        "data_packets_sent": s["data_packets_sent"],
        "drops": s["drops"],
        "pfc_pause_frames": s["pfc_pause_frames"],
        "last_finish_us": max(fcts) if fcts else None,
        "sim_time_us": s["sim_time_ns"] / 1000,
        "fct": _stats(fcts),
        "slowdown": _stats([t / ideal[(a, b)] for a, b, t in done]),
    }
    if "htsim" in report:
        h, o = report["htsim"], report["hopsim"]
        h["slowdown"] = _stats(
            [t / ideal[(a, b)] for a, b, t, _ in log.finished if (a, b) in ideal]
        )
        report["ratio"] = {
            "wall": h["wall_s"] / o["wall_s"],
            "cpu": h["cpu_s"] / o["cpu_s"],
            # htsim's whole process (it has no interpreter to start) against hopsim's
            # building and running the simulation, without Python's start-up and imports.
            "cpu_simulation": h["cpu_s"] / o["sim_cpu_s"],
            "peak_rss": h["peak_rss_bytes"] / o["peak_rss_bytes"],
        }
    (out / "pair.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def format_report(r: dict[str, Any]) -> str:
    """The measurements as a short table."""

    def num(x: Any, fmt: str = "{:,.1f}") -> str:
        return "n/a" if x is None else fmt.format(x)

    lines = [
        f"fat-tree k = {r['k']} ({r['hosts']} hosts), permutation of {r['flows']} flows, "
        f"{r['flow_bytes'] / r['flows'] / 1e6:g} MB each, MTU {r['mtu']}, seed {r['seed']}",
        f"work: {r['data_packets']:,} data packets; {r['data_and_ack_packet_hops']:,} data + ACK "
        "packet-hops in a lossless run",
        f"cpu: {r['cpu']}",
        "",
        f"{'':<10}{'wall s':>9}{'CPU s':>9}{'peak RSS':>11}{'finished':>10}"
        f"{'FCT mean':>10}{'p50':>9}{'p99':>9}{'max µs':>9}",
    ]
    for name in ("htsim", "hopsim"):
        s = r.get(name)
        if not s:
            continue
        fct = s["fct"]
        rss = s["peak_rss_bytes"] / 2**20
        lines.append(
            f"{name:<10}{s['wall_s']:>9.2f}{s['cpu_s']:>9.2f}{rss:>8.0f} MiB"
            f"{s['finished']:>10,}{num(fct['mean_us']):>10}{num(fct['p50_us']):>9}"
            f"{num(fct['p99_us']):>9}{num(fct['max_us']):>9}"
        )
    o = r["hopsim"]
    lines.append(
        f"hopsim: {o['packet_hops']:,} packet-hops, {o['events']:,} events, "
        f"{o['packet_hops'] / o['cpu_s'] / 1e6:.2f} M packet-hops per CPU s; "
        f"building and running: {o['sim_cpu_s']:.2f} CPU s "
        f"({o['packet_hops'] / o['sim_cpu_s'] / 1e6:.2f} M/s; Python start-up and imports "
        f"{o['startup_cpu_s']:.2f} s, "
        f"{num(o['startup_rss_bytes'] and o['startup_rss_bytes'] / 2**20, '{:.0f}')} MiB); "
        f"{o['pfc_pause_frames']:,} PAUSE frames, {o['drops']} drops"
    )
    if "htsim" in r:
        h = r["htsim"]
        lines.append(
            f"htsim's own counters: New {num(h['new_packets'], '{:,}')}, Rtx "
            f"{num(h['rtx_packets'], '{:,}')}; {h['overflow_warnings']} lossless-overflow warnings"
        )
        q = r["ratio"]
        lines.append(
            f"htsim / hopsim: wall {q['wall']:.1f}x, CPU {q['cpu']:.1f}x (simulation alone "
            f"{q['cpu_simulation']:.1f}x), peak RSS {q['peak_rss']:.2f}x"
        )
    return "\n".join(lines)


def _size(text: str) -> int:
    units = {"KB": 1000, "MB": 1000**2, "GB": 1000**3, "KiB": 1024, "MiB": 1024**2, "B": 1}
    for unit, mult in units.items():
        if text.endswith(unit) and text[: -len(unit)].strip().replace(".", "", 1).isdigit():
            return round(float(text[: -len(unit)]) * mult)
    if text.isdigit():
        return int(text)
    raise argparse.ArgumentTypeError(f"expected bytes (2000000, 2MB, 512KiB), got {text!r}")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``hopsim htsim-pair`` (also ``python -m hopsim.htsim``)."""
    p.add_argument("--htsim", metavar="BINARY", help="htsim's htsim_roce (sim/datacenter)")
    p.add_argument("--k", type=int, default=8, help="fat-tree arity (8: 128 hosts)")
    p.add_argument("--size", type=_size, default=DEFAULT_SIZE, help="bytes per flow (2MB)")
    p.add_argument("--mtu", type=int, default=DEFAULT_MTU, help="payload bytes per packet (1000)")
    p.add_argument("--seed", type=int, default=1, help="permutation and simulator seed (1)")
    p.add_argument(
        "--tm", metavar="FILE", help="an htsim connection matrix instead of a new permutation"
    )
    p.add_argument("-o", "--output", metavar="OUTDIR", help="default: htsim-pair/k<k>")
    p.add_argument("--json", action="store_true", help="print pair.json instead of the table")
    p.add_argument("--force", action="store_true", help="overwrite a non-empty OUTDIR")


def run_from_args(args: argparse.Namespace) -> int:
    """Run the pairing the parsed options ask for; bad input raises `ValueError`."""
    if not args.htsim:
        raise ValueError("--htsim BINARY is required: htsim's htsim_roce (see docs/htsim.md)")
    if not Path(args.htsim).is_file():
        raise ValueError(f"--htsim: no such file {args.htsim}")
    outdir = args.output or f"htsim-pair/k{args.k}"
    check_outdir(outdir, getattr(args, "force", False), "use --force")
    htsim = str(Path(args.htsim).resolve())
    tm = str(Path(args.tm).resolve()) if args.tm else None
    try:
        report = run_pair(
            htsim, args.k, outdir, size=args.size, mtu=args.mtu, seed=args.seed, tm=tm
        )
    except RuntimeError as exc:
        print(f"hopsim htsim-pair: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report) if args.json else format_report(report))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hopsim.htsim", description=__doc__.split("\n")[0])
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return run_from_args(args)
    except (ValueError, FileExistsError) as exc:
        print(f"hopsim htsim-pair: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
