"""``hopsim validate-against-ns3`` with Pyrrha's authors' simulator (NASA-NJU/Pyrrha-NS3, the
``third`` program of an ns-3.18 fork of the HPCC code): the same flows run in both, compared
per class of the authors (incast, victim, others) and flow by flow.

hopsim runs the scenario first (its own workload generator makes the flows, e.g. the
``incast_mix`` workload of ``scenarios/pyrrha/incast_mix.toml``); those flows, hopsim's
topology and the authors' shipped configuration (``FC_MODE`` set from
``switch.flow_control.kind``) are written in Pyrrha-NS3's formats, Pyrrha-NS3 runs them, and
its ``<keyword>-fct.txt`` and ``<keyword>-pfc.txt`` are read back.

Their formats, as ``scratch/third.cc`` reads and writes them:

- topology: ``nodes switches hosts_per_rack tors cores links``, a line of switch ids, then
  ``a b Gbps ns`` per link with ``a < b``; a host's link must come before any link of its
  switch to a higher tier (the reader collects the hosts below each switch in file order);
- flows (``FLOW_FROM_FILE 1``): ``count 1`` (the second number says the lines carry a QP and
  a message number), then ``src dst bytes start_s qp msg_seq``;
- ``<keyword>-fct.txt``: ``src dst bytes start_ns qp msg_seq fct_us oracle_us slowdown`` per
  finished message (``msg_finish``), and ``rcv ...`` lines for receiver-side completions,
  skipped here;
- ``<keyword>-pfc.txt``: ``time_ns node node_type if_index queue type`` per frame received
  (``get_pfc``; ``type`` 1 a PAUSE, 0 a RESUME), logged at the device the frame stops.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hopsim.ns3_config import MappedKey

__all__ = [
    "BFC_MATCH_SETTINGS",
    "FC_MODES",
    "MARKER",
    "MATCH_SETTINGS",
    "PyrrhaValidation",
    "class_table",
    "pause_events",
    "read_ci",
    "fc_mode",
    "is_pyrrha_tree",
    "join_messages",
    "pauses_by_tier",
    "queue_num",
    "read_config_text",
    "read_fct",
    "read_pfc",
    "validate_pyrrha",
    "write_config",
    "write_flows",
    "write_topology",
]

#: A file of the Pyrrha-NS3 tree and a name only it defines: the congestion-isolation
#: (Pyrrha) flow-control mode of ``Settings::FC_MODE`` (the HPCC simulator has no FC_MODE).
MARKER = ("src/point-to-point/model/settings.h", "FC_CONGESTION_ISOLATION")

#: ``FC_MODE`` of each hopsim ``switch.flow_control.kind`` that Pyrrha-NS3 runs
#: (``settings.h``: ``FC_PFC = 0, FC_FLOODGATE = 1, FC_BFC = 2, FC_VOQ_DSTPFC = 3,
#: FC_CONGESTION_ISOLATION = 4, FC_PFCoff = 5``).
FC_MODES: dict[str, int] = {"pfc": 0, "bfc": 2, "pyrrha": 4}

#: The authors' incast-mix configuration (Memcached / Web Server / Web Search by FLOW_CDF);
#: the one every §6 script of theirs starts from (`mix_withcc/`).
SHIPPED_CONFIG = "mix_withcc/config-CI-NEAREST_MATCH-1-FLOW_CDF-13-dcqcn.ini"

#: Their generators start every flow at 2 s + its offset (``2 + t.GetSeconds()``).
START_OFFSET_NS = 2_000_000_000

#: hopsim fields set to follow Pyrrha-NS3 where the scenario leaves them out: (config key,
#: its default in `settings.cc` / `third.cc`, hopsim field, hopsim value per key value, the
#: code that decides it there). A field the scenario writes wins (and is listed in the report
#: when it differs).
MATCH_SETTINGS: tuple[tuple[str, str, str, dict[str, Any], str], ...] = (
    (
        "HAS_WIN",
        "1",
        "transport.window",
        {"0": "none", "1": "bdp"},
        "a flow read from a file gets the window maxBdp (third.cc, FLOW_FROM_FILE: "
        "has_win ? maxBdp : 0; RdmaQueuePair::IsWinBound, per message)",
    ),
    (
        "GLOBAL_T",
        "1",
        "transport.bdp",
        {"0": "path", "1": "max"},
        "maxBdp and maxRtt, the largest pair's (third.cc)",
    ),
    (
        "ROUTING_MODE",
        "0",
        "routing.hash",
        {"0": "ns3"},
        "ECMP: SwitchNode::GetOutDev hashes (sip, dip, sport | dport << 16) with "
        "Settings::EcmpHash seeded by the node id, over next hops in CalculateRoute's order "
        "(the HPCC simulator's hash; SYMMETRIC_ROUTING_MODE 0, LOAD_IMBALANCE_TH 0)",
    ),
    (
        "FLOW_FROM_FILE",
        "1",
        "transport.source_ports",
        {"1": "per_source"},
        "third.cc reading a flow file: port = portNumder[src]++, from 10000 per source host "
        "in file order (the file is written in flow_id order); destination port 100",
    ),
)

#: BFC fields set to follow Pyrrha-NS3's BFC mode (``FC_MODE 2``) where the scenario leaves
#: them out, when ``switch.flow_control.kind`` is ``"bfc"``: (its code, what it decides, hopsim
#: field, hopsim value, how it decides it). Not configuration keys: behaviours of its code,
#: which hopsim's defaults do not share (docs/model.md, BFC). With both, Memcached's BFC-32
#: victims agree within 5 % (685 / 717 µs) instead of 86 / 717 (docs/ns3.md).
BFC_MATCH_SETTINGS: tuple[tuple[str, str, str, Any, str], ...] = (
    (
        "SwitchMmu::GetUsableQ",
        "(BFC queue assignment)",
        "switch.flow_control.queue_assignment",
        "pyrrha_ns3",
        "queue 0 is never a flow's (SwitchNode::MatchQ); a flow becoming active takes the "
        "lowest of queues 1..QUEUENUM-1 that no flow-table entry with packets uses and that is "
        "not paused (the default assign_paused_q = 1 reaches `|| egress_paused[q]` through "
        "C++ precedence); with none, rand() % (QUEUENUM-1) + 1, busy or paused alike",
    ),
    (
        "BEgressQueue::DoDequeueRR",
        "(switch scheduler)",
        "switch.flow_control.scheduler",
        "pyrrha_ns3",
        "queue 0 first, then queues 1..QUEUENUM-1 scanned from m_rrlasts, which after a send "
        "becomes the scan's offset (rrlast = i), not the served queue's position: the lowest "
        "backlogged queue is served again and again",
    ),
)


def is_pyrrha_tree(root: str | Path) -> bool:
    """Whether `root` is a Pyrrha-NS3 checkout (see `MARKER`)."""
    path = Path(root) / MARKER[0]
    try:
        return MARKER[1] in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


_QUEUENUM = re.compile(r"QUEUENUM\s*=\s*(\d+)")


def queue_num(root: str | Path) -> int:
    """The compile-time ``QUEUENUM`` of a Pyrrha-NS3 tree (8 as shipped; 32 for BFC-32)."""
    path = Path(root) / MARKER[0]
    m = _QUEUENUM.search(path.read_text(encoding="utf-8", errors="replace"))
    if not m:
        raise ValueError(f"{path}: no `QUEUENUM = N` found")
    return int(m.group(1))


def _get(doc: Mapping[str, Any], dotted: str) -> Any:
    at: Any = doc
    for key in dotted.split("."):
        if not isinstance(at, Mapping) or key not in at:
            return None
        at = at[key]
    return at


def _set_default(doc: dict[str, Any], dotted: str, value: Any) -> bool:
    keys = dotted.split(".")
    at = doc
    for key in keys[:-1]:
        at = at.setdefault(key, {})
    if keys[-1] in at:
        return False
    at[keys[-1]] = value
    return True


def fc_mode(doc: Mapping[str, Any], queues: int | None = None) -> int:
    """Pyrrha-NS3's ``FC_MODE`` for the scenario's ``switch.flow_control.kind`` (PFC when
    it is left out); a kind it does not run, or BFC with another queue count than the
    build's ``QUEUENUM`` (`queues`), is a `ValueError` naming the field."""
    kind = _get(doc, "switch.flow_control.kind") or "pfc"
    if kind not in FC_MODES:
        runs = ", ".join(f'"{k}" (FC_MODE {v})' for k, v in FC_MODES.items())
        raise ValueError(
            f'switch.flow_control.kind: Pyrrha-NS3 runs {runs}; it has no counterpart of "{kind}"'
        )
    if kind == "pfc" and _get(doc, "switch.pfc.enabled") is False:
        raise ValueError(
            "switch.pfc.enabled: false is not driven: Pyrrha-NS3's PFC-off mode (FC_MODE 5) "
            "drops data but never an ACK (SwitchNode, FC_PFCoff), which hopsim does not model"
        )
    if kind == "bfc" and queues is not None:
        want = _get(doc, "switch.flow_control.queues")
        if want is not None and int(want) != queues:
            raise ValueError(
                f"switch.flow_control.queues: {want}, but this Pyrrha-NS3 build has QUEUENUM "
                f"{queues} (settings.h; BFC-32 needs a build with QUEUENUM 32)"
            )
    return FC_MODES[kind]


def apply_match_settings(doc: dict[str, Any], cfg: Mapping[str, str]) -> list[MappedKey]:
    """Fill `MATCH_SETTINGS` into `doc` from the configuration `cfg` where `doc` leaves them
    out, and `BFC_MATCH_SETTINGS` when its flow control is BFC; the rows say what was set and
    what the scenario kept."""
    rows = []
    todo: list[tuple[str, str, str, Any]] = []
    for key, default, dotted, values, _why in MATCH_SETTINGS:
        v = "1" if key == "FLOW_FROM_FILE" else _first(cfg, key, default)  # written so
        if v not in values:
            raise ValueError(f"{key}: {v}; expected one of {', '.join(values)}")
        todo.append((key, v, dotted, values[v]))
    if _get(doc, "switch.flow_control.kind") == "bfc":
        todo += [(key, what, dotted, value) for key, what, dotted, value, _ in BFC_MATCH_SETTINGS]
    for key, v, dotted, value in todo:
        if _set_default(doc, dotted, value):
            rows.append(MappedKey(key, v, dotted, json.dumps(value)))
        else:
            kept = _get(doc, dotted)
            same = kept == value
            rows.append(
                MappedKey(
                    key,
                    v,
                    dotted,
                    f"{json.dumps(kept)} kept from the scenario"
                    + ("" if same else f" (Pyrrha-NS3: {json.dumps(value)})"),
                    modelled=same,
                )
            )
    return rows


def _first(cfg: Mapping[str, str], key: str, default: str) -> str:
    return (cfg.get(key) or default).split()[0]


def check_settings(
    cfg: Mapping[str, str], resolved: Mapping[str, Any], queues: int
) -> list[MappedKey]:
    """The authors' settings that have a hopsim counterpart, beside the value the scenario
    resolves to (``modelled`` false where they differ: the report lists them). Defaults of
    keys the configuration leaves out are `settings.cc`'s."""
    rows: list[MappedKey] = []

    def row(key: str, value: str, dotted: str, ours: Any, same: bool) -> None:
        rows.append(MappedKey(key, value, dotted, json.dumps(ours), modelled=same))

    buf = _first(cfg, "BUFFER_SIZE", "32")
    ours = _get(resolved, "switch.buffer_bytes")
    row("BUFFER_SIZE", f"{buf} (MiB)", "switch.buffer_bytes", ours, float(buf) * 2**20 == ours)
    payload = _first(cfg, "PACKET_PAYLOAD_SIZE", "1000")
    mtu = _get(resolved, "transport.mtu")
    row("PACKET_PAYLOAD_SIZE", payload, "transport.mtu", mtu, int(payload) == mtu)
    qcn = _first(cfg, "ENABLE_QCN", "1")
    cc = _get(resolved, "transport.cc")
    row("ENABLE_QCN", qcn, "transport.cc", cc, (qcn == "0") == (cc == "none"))
    ack = _first(cfg, "ACK_HIGH_PRIO", "0")
    aq = _get(resolved, "switch.ack_queue")
    row("ACK_HIGH_PRIO", ack, "switch.ack_queue", aq, (ack == "0") == (aq == "data"))
    kind = _get(resolved, "switch.flow_control.kind")
    qfield = "switch.flow_control.queues" if kind == "bfc" else "switch.queues"
    row(
        "QUEUENUM",
        f"{queues} (settings.h)",
        qfield,
        _get(resolved, qfield),
        _get(resolved, qfield) == queues,
    )
    hdrm = _first(cfg, "HDRM_RATIO", "2")
    bdps = _get(resolved, "switch.pfc.headroom_bdps")
    row(
        "HDRM_RATIO",
        f"{hdrm} (headroom 4 x this one-way BDPs)",
        "switch.pfc.headroom_bdps",
        bdps,
        bdps is not None and float(bdps) == 4 * float(hdrm),
    )
    for key, what in (
        ("SYMMETRIC_ROUTING_MODE", "hashes sip | dip and sport | dport"),
        ("LOAD_IMBALANCE_TH", "sends hash values past the next hops to the first one"),
    ):
        v = _first(cfg, key, "0")
        if v != "0":
            rows.append(MappedKey(key, v, "", f"not modelled: its ECMP {what}", modelled=False))
    if kind == "bfc":
        hashed = _first(cfg, "USE_HASH_FID", "1") != "0"
        tb = _first(cfg, "FLOWTB_SIZE", "100")
        fids = _get(resolved, "switch.flow_control.fids_per_queue")
        row(
            "USE_HASH_FID / FLOWTB_SIZE",
            f"{int(hashed)} / {tb}",
            "switch.flow_control.fids_per_queue",
            fids,
            fids == (int(tb) if hashed else 0),
        )
        sticky = _first(cfg, "STICKY_TH", "2")
        ours = _get(resolved, "switch.flow_control.sticky")
        row("STICKY_TH", sticky, "switch.flow_control.sticky", ours, float(sticky) == ours)
        assignment = _get(resolved, "switch.flow_control.queue_assignment")
        ours = (
            f"hopsim's BFC too (queue_assignment = {json.dumps(assignment)})"
            if assignment == "pyrrha_ns3"
            else f"hopsim's BFC all {queues} (queue_assignment = {json.dumps(assignment)})"
        )
        rows.append(
            MappedKey(
                "QUEUENUM",
                str(queues),
                "",
                f"BFC there assigns queues 1..{queues - 1} (SwitchNode: qIndex 0 is the "
                f"highest-priority queue, never a flow's); {ours}",
                modelled=assignment == "pyrrha_ns3",
            )
        )
    if kind == "pyrrha":
        for key, dotted, default in (
            ("TH_CONGESTION", "k_pause", "2"),
            ("TH_RESUME", "k_resume", "1"),
        ):
            v = _first(cfg, key, default)
            ours = _get(resolved, f"switch.flow_control.{dotted}")
            row(key, v, f"switch.flow_control.{dotted}", ours, float(v) == ours)
        merge = _first(cfg, "CONGESTION_MERGE", "0")
        ours = _get(resolved, "switch.flow_control.merge")
        row("CONGESTION_MERGE", merge, "switch.flow_control.merge", ours, (merge != "0") == ours)
        if _first(cfg, "ONLY_DOWN_PORT_ENABLE", "0") != "0":
            rows.append(
                MappedKey(
                    "ONLY_DOWN_PORT_ENABLE",
                    _first(cfg, "ONLY_DOWN_PORT_ENABLE", "0"),
                    "",
                    "not modelled: only ports towards the hosts may become roots there "
                    "(SwitchNode::NotifyEnqueueIntoOQ_CI); in hopsim every egress port may",
                    modelled=False,
                )
            )
    return rows


# ---------------------------------------------------------------- writers


def _ns(text: Any, what: str) -> int:
    """A resolved duration (``"600000ps"``) in whole ns."""
    m = re.fullmatch(r"(\d+)ps", str(text))
    if not m:
        raise ValueError(f"{what}: expected a resolved duration like '600000ps', got {text!r}")
    ps = int(m.group(1))
    if ps % 1000:
        raise ValueError(f"{what}: {ps} ps is not whole ns (Pyrrha-NS3 reads link delays in ns)")
    return ps // 1000


def link_delays(resolved: Mapping[str, Any]) -> tuple[int, int]:
    """(host link, fabric link) delay in ns of a resolved leaf-spine or fat-tree topology."""
    topo = resolved.get("topology", {})
    kind = topo.get("kind")
    if kind == "leaf_spine":
        return (
            _ns(topo.get("host_delay"), "topology.host_delay"),
            _ns(topo.get("fabric_delay"), "topology.fabric_delay"),
        )
    if kind == "fat_tree":
        d = _ns(topo.get("delay"), "topology.delay")
        return d, d
    raise ValueError(
        f'topology.kind: Pyrrha-NS3\'s topology is written for "leaf_spine" or "fat_tree", '
        f"got {kind!r}"
    )


#: Tier order, lowest first: a link is written after every link of a lower tier.
_TIER_RANK = {"host": 0, "tor": 1, "agg": 2, "spine": 3, "core": 3}


def write_topology(
    ports: pd.DataFrame, host_delay_ns: int, fabric_delay_ns: int, path: str | Path
) -> Path:
    """hopsim's topology (its ``ports`` table: node ids, tiers, peers, rates) in
    Pyrrha-NS3's format, node ids kept. Links are written tier by tier from the hosts up,
    each node's links in its port order, so ns-3 numbers every node's interfaces as hopsim
    numbers its ports (interface = port + 1). Raises `ValueError` when hopsim's ids do not
    put the hosts first or a lower tier's switches after a higher's (the reader asserts
    ``a < b`` on every link)."""
    p = ports.copy()
    p["tier"] = p["tier"].astype(str)
    tier = p.groupby("node")["tier"].first()
    hosts = sorted(tier[tier == "host"].index)
    switches = sorted(tier[tier != "host"].index)
    if hosts != list(range(len(hosts))) or (switches and switches[0] != len(hosts)):
        raise ValueError(
            "topology: Pyrrha-NS3 needs hosts numbered 0..H-1 and the switches after them"
        )
    tors = [n for n in switches if tier[n] == "tor"]
    top = max(_TIER_RANK[t] for t in tier)
    cores = [n for n in switches if _TIER_RANK[tier[n]] == top and tier[n] != "tor"]
    host_ports = p[p["tier"] == "host"]
    per_rack = host_ports.groupby("peer_node").size()
    if per_rack.nunique() != 1:
        raise ValueError("topology: Pyrrha-NS3 needs the same number of hosts on every ToR")
    # One row per link, from its lower-tier end (ties: the smaller id), in port order.
    p["rank"] = p["tier"].map(_TIER_RANK)
    p["peer_rank"] = p["peer_node"].map(tier).map(_TIER_RANK)
    lower = (p["rank"] < p["peer_rank"]) | (
        (p["rank"] == p["peer_rank"]) & (p["node"] < p["peer_node"])
    )
    links = p[lower].sort_values(["rank", "node", "port"], kind="stable")
    lines = []
    for row in links.itertuples():
        a, b = int(row.node), int(row.peer_node)
        if not a < b:
            raise ValueError(
                f"topology: link {a}-{b}: Pyrrha-NS3 needs every switch of a higher tier "
                "numbered above those below it"
            )
        gbps = row.rate_bps / 1e9
        if gbps != int(gbps):
            raise ValueError(f"topology: link {a}-{b}: {row.rate_bps} b/s is not whole Gb/s")
        delay = host_delay_ns if row.tier == "host" else fabric_delay_ns
        lines.append(f"{a} {b} {int(gbps)} {delay}")
    head = (
        f"{len(hosts) + len(switches)} {len(switches)} {int(per_rack.iloc[0])} "
        f"{len(tors)} {len(cores)} {len(lines)}"
    )
    out = Path(path)
    out.write_text("\n".join([head, " ".join(map(str, switches)), *lines]) + "\n", encoding="utf-8")
    return out


def write_flows(flows: pd.DataFrame, path: str | Path, *, qp_per_pair: bool = False) -> Path:
    """hopsim's flows (in ``flow_id`` order) as a Pyrrha-NS3 flow file, each starting at
    2 s + its hopsim start rounded to the ns (ns-3's time step; hopsim's generators draw
    starts finer than that, so a start moves by at most 0.5 ns). QPs: one per flow (``qp`` =
    the line's index, message 0), which is what their generator gives with
    ``RESET_PER_QP_MSG 1`` (the ``Flow`` constructor
    then takes a fresh ``qp_global`` for every message); with `qp_per_pair`, one QP per
    (src, dst) pair numbered in order of first use, messages numbered from 0 in start
    order, as their generator numbers them with ``RESET_PER_QP_MSG 0`` (the file's QP and
    message ids are used as written: `third.cc` hands them to ``RdmaClientHelper``)."""
    f = flows.sort_values("flow_id", kind="stable").reset_index(drop=True)
    if qp_per_pair:
        pair = list(zip(f["src"].astype(int), f["dst"].astype(int), strict=True))
        qp_of: dict[tuple[int, int], int] = {}
        qps = [qp_of.setdefault(k, len(qp_of)) for k in pair]
        order = f.assign(_qp=qps).sort_values(["_qp", "start_ns", "flow_id"], kind="stable")
        seq = order.groupby("_qp").cumcount().reindex(f.index)
        qp_col, seq_col = qps, seq.tolist()
    else:
        qp_col, seq_col = list(range(len(f))), [0] * len(f)
    lines = [f"{len(f)} 1"]
    for (src, dst, size, start), qp, msg in zip(
        f[["src", "dst", "size_bytes", "start_ns"]].itertuples(index=False),
        qp_col,
        seq_col,
        strict=True,
    ):
        if not math.isfinite(float(start)) or start < 0:
            raise ValueError(f"flow {src}->{dst}: start {start} ns is not a time")
        lines.append(f"{int(src)} {int(dst)} {int(size)} {_seconds(round(start))} {qp} {msg}")
    out = Path(path)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _seconds(start_ns: int) -> str:
    """2 s + `start_ns` as decimal seconds, exact to the ns (ns-3 reads it into a double)."""
    total = START_OFFSET_NS + start_ns
    return f"{total // 1_000_000_000}.{total % 1_000_000_000:09d}"


def read_config_text(text: str) -> dict[str, str]:
    """``KEY value...`` lines (the last of a repeated key wins, as ``third.cc`` reads)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(None, 1)
        if parts:
            out[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return out


#: Keys `write_config` sets; every other key of the shipped configuration is kept.
_WRITTEN = (
    "FC_MODE",
    "FLOW_FROM_FILE",
    "TOPOLOGY_FILE",
    "FLOW_FILE",
    "TRACE_FILE",
    "REALTIME_BUFFER_BW_FILE",
)


def write_config(
    shipped: str,
    path: str | Path,
    *,
    fc: int,
    topology: Path,
    flows: Path,
    trace: Path,
    keyword: Path,
) -> Path:
    """The authors' configuration `shipped` with ``FC_MODE`` `fc`, flows from `flows`
    (``FLOW_FROM_FILE 1``), `topology`, an empty trace list and outputs named by
    `keyword` (``REALTIME_BUFFER_BW_FILE``: ``<keyword>-fct.txt``, ``-pfc.txt``, ...); every
    other line as shipped. Paths are absolute: ns-3 runs from its own folder."""
    values = {
        "FC_MODE": str(fc),
        "FLOW_FROM_FILE": "1",
        "TOPOLOGY_FILE": str(Path(topology).resolve()),
        "FLOW_FILE": str(Path(flows).resolve()),
        "TRACE_FILE": str(Path(trace).resolve()),
        "REALTIME_BUFFER_BW_FILE": str(Path(keyword).resolve()),
    }
    seen = set()
    out = []
    for line in shipped.splitlines():
        key = line.split(None, 1)[0] if line.strip() else ""
        if key in values:
            if key not in seen:
                out.append(f"{key} {values[key]}")
            seen.add(key)
        else:
            out.append(line)
    out.extend(f"{k} {values[k]}" for k in _WRITTEN if k not in seen)
    p = Path(path)
    p.write_text("\n".join(out) + "\n", encoding="utf-8")
    return p


# ---------------------------------------------------------------- readers

_FCT_COLUMNS = ("src", "dst", "size_bytes", "start_ns", "qp", "msg_seq", "fct_us", "oracle_us")


def read_fct(path: str | Path) -> pd.DataFrame:
    """A Pyrrha-NS3 ``<keyword>-fct.txt``: one row per sender-side completion (``rcv``
    lines, the receiver's, are skipped), start in ns from 2 s on, FCT and oracle FCT in
    ns. Malformed lines are named ``file:line``."""
    rows = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if not fields or fields[0] == "rcv":
            continue
        if len(fields) != 9:
            raise ValueError(
                f"{path}:{lineno}: expected 9 fields (src dst bytes start_ns qp msg_seq fct_us "
                f"oracle_us slowdown), got {len(fields)}"
            )
        try:
            rows.append([*map(int, fields[:6]), float(fields[6]), float(fields[7])])
        except ValueError:
            raise ValueError(f"{path}:{lineno}: expected six integers, then numbers") from None
    df = pd.DataFrame(rows, columns=list(_FCT_COLUMNS))
    df["start_ns"] = df["start_ns"] - START_OFFSET_NS
    df["fct_ns"] = df.pop("fct_us") * 1e3
    df["ideal_fct_ns"] = df.pop("oracle_us") * 1e3
    return df


def _read_integer_table(path: str | Path, cols: list[str], expected: str) -> pd.DataFrame:
    """A whitespace-separated table of integers with the columns `cols` (`expected` names
    them in errors), time from 2 s on; empty when the file is missing."""
    p = Path(path)
    if not p.is_file():
        return pd.DataFrame(columns=cols, dtype="int64")
    rows = []
    for lineno, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != len(cols):
            raise ValueError(
                f"{p}:{lineno}: expected {len(cols)} fields{expected}, got {len(fields)}"
            )
        try:
            rows.append([int(x) for x in fields])
        except ValueError:
            raise ValueError(f"{p}:{lineno}: expected integers") from None
    df = pd.DataFrame(rows, columns=cols, dtype="int64")
    df["time_ns"] = df["time_ns"] - START_OFFSET_NS
    return df


def read_pfc(path: str | Path) -> pd.DataFrame:
    """A Pyrrha-NS3 ``<keyword>-pfc.txt``: ``time_ns node node_type if_index queue type``
    (``type`` 1 PAUSE, 0 RESUME), time from 2 s on; empty when the file is missing."""
    cols = ["time_ns", "node", "node_type", "if_index", "queue", "type"]
    return _read_integer_table(path, cols, " (time node node_type if_index queue type)")


#: Pyrrha-NS3's CI frame types (``broadcom-egress-queue.h``).
CI_PAUSE, CI_RESUME, CI_DEALLOC, CI_MERGE = 0, 1, 2, 3


def read_ci(path: str | Path) -> pd.DataFrame:
    """A Pyrrha-NS3 ``<keyword>-ci.txt`` (``get_ci``): ``time_ns node node_type if_index type
    root_switch root_port old_switch old_port`` per Pyrrha frame received, at switches and
    NICs alike (``type``: `CI_PAUSE`, `CI_RESUME`, `CI_DEALLOC`, `CI_MERGE`), time from 2 s
    on; empty when the file is missing (it is written under FC_MODE 4 only)."""
    cols = ["time_ns", "node", "node_type", "if_index", "type"]
    cols += ["root_switch", "root_port", "old_switch", "old_port"]
    return _read_integer_table(path, cols, "")


def pause_events(pfc: pd.DataFrame, ci: pd.DataFrame | None = None) -> pd.DataFrame:
    """PFC and Pyrrha frames as pause-state changes of (node, if_index, subject): a PFC
    frame pauses or resumes its queue; a Pyrrha PAUSE pauses its root, a RESUME or DEALLOC
    ends it, a MERGE ends the pause of the root it replaces (``old_switch``, ``old_port``),
    as hopsim's `analysis.pause_spread` counts them."""
    parts = [
        pd.DataFrame(
            {
                "time_ns": pfc["time_ns"],
                "node": pfc["node"],
                "if_index": pfc["if_index"],
                "subject": "q" + pfc["queue"].astype(str),
                "pause": pfc["type"] == 1,
            }
        )
    ]
    if ci is not None and len(ci):
        root = "r" + ci["root_switch"].astype(str) + ":" + ci["root_port"].astype(str)
        old = "r" + ci["old_switch"].astype(str) + ":" + ci["old_port"].astype(str)
        merge = ci["type"] == CI_MERGE
        parts.append(
            pd.DataFrame(
                {
                    "time_ns": ci["time_ns"],
                    "node": ci["node"],
                    "if_index": ci["if_index"],
                    "subject": root.where(~merge, old),
                    "pause": ci["type"] == CI_PAUSE,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def paused_time_ns(events: pd.DataFrame, end_ns: float) -> pd.DataFrame:
    """Per (node, port) the time with at least one subject paused, from `pause_events` (a
    pause never ended lasts to `end_ns`). Port = ``if_index`` - 1 (ns-3 numbers a node's
    devices from 1, after the loopback)."""
    out = []
    ordered = events.sort_values("time_ns", kind="stable")
    for (node, ifx), ev in ordered.groupby(["node", "if_index"], sort=True):
        paused: set[str] = set()
        since = total = 0.0
        for t, subject, pause in ev[["time_ns", "subject", "pause"]].itertuples(index=False):
            was = bool(paused)
            if pause:
                paused.add(subject)
            else:
                paused.discard(subject)
            if not was and paused:
                since = float(t)
            elif was and not paused:
                total += float(t) - since
        if paused:
            total += end_ns - since
        out.append((int(node), int(ifx) - 1, total))
    return pd.DataFrame(out, columns=["node", "port", "paused_time_ns"])


def pauses_by_tier(
    ports: pd.DataFrame, pfc: pd.DataFrame, end_ns: float, ci: pd.DataFrame | None = None
) -> pd.DataFrame:
    """PAUSE frames received (PFC and Pyrrha's), ports that received one and paused port
    time (ms, summed over ports) per tier of the paused node: hopsim's (its ports table)
    beside Pyrrha-NS3's (its -pfc.txt and -ci.txt; node ids are hopsim's, as
    `write_topology` writes them)."""
    tier = ports.groupby("node")["tier"].first().astype(str)
    ev = pause_events(pfc, ci)
    frames = ev[ev["pause"]].assign(tier=lambda d: d["node"].map(tier))
    paused = paused_time_ns(ev, end_ns).assign(tier=lambda d: d["node"].map(tier))
    ours = ports.assign(tier=ports["tier"].astype(str))
    rows = []
    for t in [t for t in ("host", "tor", "agg", "spine", "core") if t in set(tier)]:
        mine = ours[ours["tier"] == t]
        theirs = frames[frames["tier"] == t]
        rows.append(
            {
                "tier": t,
                "pauses_hopsim": int(mine["pause_received"].sum()),
                "pauses_ns3": len(theirs),
                "ports_paused_hopsim": int((mine["pause_received"] > 0).sum()),
                "ports_paused_ns3": len(theirs[["node", "if_index"]].drop_duplicates()),
                "paused_ms_hopsim": float(mine["paused_time_ns"].sum()) / 1e6,
                "paused_ms_ns3": float(paused.loc[paused["tier"] == t, "paused_time_ns"].sum())
                / 1e6,
            }
        )
    return pd.DataFrame(rows).set_index("tier")


# ---------------------------------------------------------------- comparison


def join_messages(
    flows: pd.DataFrame, fct: pd.DataFrame, *, qp_per_pair: bool = False
) -> pd.DataFrame:
    """hopsim's flows joined with Pyrrha-NS3's completions by the QP and message ids each
    flow was written with (`write_flows`; their fct.txt prints them), each pair checked to
    agree on source, destination, size and start (within 2 ns: ns-3 reads the start
    seconds through a double). One row per flow both finished: ``flow_id, src, dst,
    size_bytes, start_ns, class``, ``fct_hopsim``, ``fct_ns3``, ``ideal_*`` in ns."""
    f = flows.sort_values("flow_id", kind="stable").reset_index(drop=True)
    if qp_per_pair:
        pair = list(zip(f["src"].astype(int), f["dst"].astype(int), strict=True))
        qp_of: dict[tuple[int, int], int] = {}
        f["qp"] = [qp_of.setdefault(k, len(qp_of)) for k in pair]
        f["msg_seq"] = (
            f.sort_values(["qp", "start_ns", "flow_id"], kind="stable")
            .groupby("qp")
            .cumcount()
            .reindex(f.index)
        )
    else:
        f["qp"] = range(len(f))
        f["msg_seq"] = 0
    dup = fct.duplicated(["qp", "msg_seq"], keep=False)
    if dup.any():
        first = fct[dup].iloc[0]
        raise ValueError(
            f"Pyrrha-NS3's fct.txt reports QP {first['qp']} message {first['msg_seq']} more "
            "than once"
        )
    m = f.merge(fct, on=["qp", "msg_seq"], suffixes=("", "_ns3"), how="inner")
    bad = (
        (m["src"] != m["src_ns3"])
        | (m["dst"] != m["dst_ns3"])
        | (m["size_bytes"] != m["size_bytes_ns3"])
        | ((m["start_ns"] - m["start_ns_ns3"]).abs() > 2)
    )
    if bad.any():
        r = m[bad].iloc[0]
        raise ValueError(
            f"QP {r['qp']}: hopsim's flow {int(r['flow_id'])} is {int(r['src'])}->"
            f"{int(r['dst'])} {int(r['size_bytes'])} B at {r['start_ns']:.0f} ns, "
            f"Pyrrha-NS3's {int(r['src_ns3'])}->{int(r['dst_ns3'])} "
            f"{int(r['size_bytes_ns3'])} B at {r['start_ns_ns3']:.0f} ns: not the same flows"
        )
    m = m[m["fct_ns"].notna()]
    out = m[["flow_id", "src", "dst", "size_bytes", "start_ns"]].copy()
    out["fct_hopsim"] = m["fct_ns"].astype(float)
    out["fct_ns3"] = m["fct_ns_ns3"].astype(float)
    out["ideal_hopsim"] = m["ideal_fct_ns"].astype(float)
    out["ideal_ns3"] = m["ideal_fct_ns_ns3"].astype(float)
    return out.sort_values("flow_id").reset_index(drop=True)


def percentile(values: Sequence[float], p: float) -> float:
    """The authors' percentile (``mix/get_victim_others_fct.py``): the sorted values'
    ``round(p n)``-th (1-based)."""
    v = sorted(values)
    if not v:
        return math.nan
    return v[max(int(round(p * len(v))) - 1, 0)]


CLASSES = ("incast", "victim", "others")


def class_table(joined: pd.DataFrame) -> pd.DataFrame:
    """Per authors' class (column ``authors_class`` of `joined`) and over all flows: the
    count, average and p99 FCT in µs of each side and their ratio, and the per-flow Pearson
    correlation of the FCTs."""
    rows = []
    for name in (*CLASSES, "all"):
        part = joined if name == "all" else joined[joined["authors_class"] == name]
        h, n = part["fct_hopsim"] / 1e3, part["fct_ns3"] / 1e3
        row: dict[str, Any] = {"class": name, "flows": len(part)}
        row["avg_hopsim"], row["avg_ns3"] = float(h.mean()), float(n.mean())
        row["p99_hopsim"] = percentile(h.tolist(), 0.99)
        row["p99_ns3"] = percentile(n.tolist(), 0.99)
        row["avg_ratio"] = row["avg_hopsim"] / row["avg_ns3"] if len(part) else math.nan
        row["p99_ratio"] = row["p99_hopsim"] / row["p99_ns3"] if len(part) else math.nan
        row["correlation"] = float(h.corr(n)) if len(part) > 1 else math.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("class")


@dataclass
class PyrrhaValidation:
    """One side-by-side run with Pyrrha-NS3; `format` prints it, `failures` judges it."""

    name: str
    fc_mode: int
    classes: pd.DataFrame
    tiers: pd.DataFrame
    joined: pd.DataFrame
    hopsim: Any  # ns3_validate.SideRun
    ns3: Any
    hopsim_flows: int
    hopsim_total: int
    ns3_flows: int
    rows: list[MappedKey] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def failures(self, tolerance: float) -> list[str]:
        """Class averages and p99s further than `tolerance` from Pyrrha-NS3's, and flows one
        side finished that the other did not."""
        out = []
        for name, row in self.classes.iterrows():
            if name == "all" or not row["flows"]:
                continue
            for stat in ("avg", "p99"):
                r = row[f"{stat}_ratio"]
                if not abs(r - 1) <= tolerance:
                    out.append(f"{name} {stat} FCT ratio {r:.3f} (beyond {tolerance:.0%})")
        if len(self.joined) < self.ns3_flows or len(self.joined) < self.hopsim_flows:
            out.append(
                f"{len(self.joined):,} flows finished in both; hopsim finished "
                f"{self.hopsim_flows:,}, Pyrrha-NS3 {self.ns3_flows:,}"
            )
        return out

    def format(self, tolerance: float) -> str:
        from hopsim.ns3_validate import _format_sides

        lines = [
            f"Pyrrha-NS3 (FC_MODE {self.fc_mode}) beside hopsim: {self.name}",
            _format_sides(self.hopsim, self.ns3, self.hopsim_flows, self.ns3_flows),
            f"flows: {self.hopsim_total:,} written to both; {len(self.joined):,} finished in "
            "both, joined by their QP and message ids (checked on source, destination, size "
            "and start)",
            "",
            "FCT in us per authors' class (mix/get_victim_others_fct.py), hopsim / Pyrrha-NS3"
            " (ratio); p99 = the sorted values' round(0.99 n)-th",
            f"{'class':<8}{'flows':>7}{'average':>28}{'p99':>28}{'correlation':>13}",
        ]
        for name, r in self.classes.iterrows():
            avg = f"{r['avg_hopsim']:,.1f} / {r['avg_ns3']:,.1f} ({r['avg_ratio']:.2f})"
            p99 = f"{r['p99_hopsim']:,.1f} / {r['p99_ns3']:,.1f} ({r['p99_ratio']:.2f})"
            lines.append(
                f"{name:<8}{int(r['flows']):>7,}{avg:>28}{p99:>28}{r['correlation']:>13.3f}"
            )
        lines += [
            "",
            "PAUSE frames (PFC's and Pyrrha's) received, ports receiving one and paused port "
            "time per tier of the paused node:",
        ]
        lines.append(
            f"{'tier':<8}{'frames hopsim / ns-3':>22}{'ports hopsim / ns-3':>22}"
            f"{'paused ms hopsim / ns-3':>26}"
        )
        for t, r in self.tiers.iterrows():
            frames = f"{int(r['pauses_hopsim']):,} / {int(r['pauses_ns3']):,}"
            if t == "host" and self.fc_mode != FC_MODES["pfc"]:
                # A NIC holds no queue in hopsim's ports table: its paused time is PFC's only.
                ms = f"n/a / {r['paused_ms_ns3']:.3f}"
                ports = f"{int(r['ports_paused_hopsim']):,} / {int(r['ports_paused_ns3']):,}"
                lines.append(f"{t:<8}{frames:>22}{ports:>22}{ms:>26}")
                continue
            ports = f"{int(r['ports_paused_hopsim']):,} / {int(r['ports_paused_ns3']):,}"
            ms = f"{r['paused_ms_hopsim']:.3f} / {r['paused_ms_ns3']:.3f}"
            lines.append(f"{t:<8}{frames:>22}{ports:>22}{ms:>26}")
        if self.rows:
            lines += ["", "settings (see mapping.txt):"]
            lines += [
                f"  {(r.key + ' ' + r.value).strip()}: "
                + (f"{r.field} = {r.hopsim}" if r.field else r.hopsim)
                + ("" if r.modelled else "   [differs from Pyrrha-NS3]")
                for r in self.rows
            ]
        if self.notes:
            lines += ["", "the hopsim scenario's notes:"]
            lines += [f"  {n}" for n in self.notes]
        fails = self.failures(tolerance)
        lines.append("")
        if fails:
            lines.append("DIFFERS:")
            lines += [f"  {f}" for f in fails]
        else:
            lines.append(
                f"AGREES: every class's average and p99 FCT within {tolerance:.0%}, every "
                "flow finished in both"
            )
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "fc_mode": self.fc_mode,
            "hopsim": vars(self.hopsim),
            "ns3": vars(self.ns3),
            "flows": {
                "written": self.hopsim_total,
                "hopsim": self.hopsim_flows,
                "ns3": self.ns3_flows,
                "joined": len(self.joined),
            },
            "classes": json.loads(self.classes.reset_index().to_json(orient="records")),
            "tiers": json.loads(self.tiers.reset_index().to_json(orient="records")),
            "settings": [vars(r) for r in self.rows],
            "notes": self.notes,
        }


def validate_pyrrha(
    doc: dict[str, Any],
    base_dir: str | Path,
    build: Any,
    outdir: Path,
    *,
    shipped_config: Path,
    name: str,
    qp_per_pair: bool | None = None,
    stall_s: float | None = None,
    report: Callable[[str], None] | None = None,
) -> PyrrhaValidation:
    """Run hopsim on `doc` (with `MATCH_SETTINGS` filled in), write its topology and flows
    and the authors' `shipped_config` for Pyrrha-NS3, run that `build`, and compare per
    class. `qp_per_pair`: default from the config's ``RESET_PER_QP_MSG`` (see
    `write_flows`)."""
    from hopsim import ns3_validate
    from hopsim.reproduce.pyrrha import authors_classes
    from hopsim.results import Result
    from hopsim.scenario import absolute_paths, dumps_toml

    outdir = Path(outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    shipped = Path(shipped_config).read_text(encoding="utf-8")
    cfg = read_config_text(shipped)
    fc = fc_mode(doc, queue_num(build.workdir))
    doc = absolute_paths(doc, base_dir)
    rows = apply_match_settings(doc, cfg)
    rows.append(
        MappedKey(
            "FC_MODE",
            str(fc),
            "switch.flow_control.kind",
            json.dumps(_get(doc, "switch.flow_control.kind") or "pfc"),
        )
    )
    if qp_per_pair is None:
        qp_per_pair = cfg.get("RESET_PER_QP_MSG", "0").split()[0] == "0"
    resolved = _resolved(doc)
    rows += check_settings(cfg, resolved, queue_num(build.workdir))
    scenario = outdir / "scenario.toml"
    scenario.write_text(dumps_toml(doc), encoding="utf-8")
    (outdir / "mapping.txt").write_text(_format_rows(rows), encoding="utf-8")

    hopsim_side = ns3_validate.run_hopsim(scenario, outdir / "hopsim")
    result = Result.read(outdir / "hopsim")
    host_delay, fabric_delay = link_delays(resolved)
    topo = write_topology(result.ports, host_delay, fabric_delay, outdir / "pyrrha_topology.txt")
    flows = write_flows(result.flows, outdir / "pyrrha_flows.txt", qp_per_pair=qp_per_pair)
    trace = outdir / "pyrrha_trace.txt"
    trace.write_text("0\n", encoding="utf-8")
    keyword = outdir / "ns3"
    config = write_config(
        shipped,
        outdir / "ns3_config.txt",
        fc=fc,
        topology=topo,
        flows=flows,
        trace=trace,
        keyword=keyword,
    )
    fct_path = Path(f"{keyword}-fct.txt")
    status, wall, rss = ns3_validate.run_child(
        [str(build.binary), str(config)],
        outdir / "ns3.log",
        cwd=build.workdir,
        env=ns3_validate.ns3_env(build),
        watch=[fct_path],
        stall_s=stall_s,
        report=report,
    )
    if status != 0:
        raise RuntimeError(
            f"Pyrrha-NS3 exited with status {status}; the end of {outdir / 'ns3.log'}:\n"
            + ns3_validate._tail(outdir / "ns3.log")
        )
    ns3_side = ns3_validate.SideRun("ns-3", wall, rss)
    fct = read_fct(fct_path)
    pfc = read_pfc(f"{keyword}-pfc.txt")
    ci = read_ci(f"{keyword}-ci.txt")
    ns3_side.flows_finished = len(fct)
    ns3_side.pause_frames = int((pfc["type"] == 1).sum()) + int((ci["type"] == CI_PAUSE).sum())
    s = result.summary
    hopsim_side.flows_finished = int(s["flows_finished"])
    # PAUSE frames of every flow-control kind, as Pyrrha-NS3's count has PFC's and Pyrrha's
    hopsim_side.pause_frames = int(result.ports["pause_sent"].sum())
    hopsim_side.drops = int(s.get("drops", 0))

    joined = join_messages(result.flows, fct, qp_per_pair=qp_per_pair)
    classes = authors_classes(result)
    joined["authors_class"] = _class_of(result, classes, joined)
    joined.to_csv(outdir / "flows.csv", index=False)
    end = max(
        float((result.flows["start_ns"] + result.flows["fct_ns"].fillna(0)).max()),
        float((fct["start_ns"] + fct["fct_ns"]).max()) if len(fct) else 0.0,
    )
    v = PyrrhaValidation(
        name=name,
        fc_mode=fc,
        classes=class_table(joined),
        tiers=pauses_by_tier(result.ports, pfc, end, ci),
        joined=joined,
        hopsim=hopsim_side,
        ns3=ns3_side,
        hopsim_flows=hopsim_side.flows_finished,
        hopsim_total=len(result.flows),
        ns3_flows=len(fct),
        rows=rows,
        notes=[str(text) for _, text in s.get("notes") or []],
    )
    (outdir / "agreement.json").write_text(
        json.dumps(v.to_json(), indent=2) + "\n", encoding="utf-8"
    )
    return v


def _class_of(result: Any, classes: pd.Series, joined: pd.DataFrame) -> list[str]:
    by_id = pd.Series(classes.to_numpy(), index=result.flows["flow_id"].to_numpy())
    return by_id.reindex(joined["flow_id"].to_numpy()).tolist()


def _resolved(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario with every default filled in (the core's resolution)."""
    from hopsim import _core
    from hopsim.scenario import core_json

    with core_json(doc, ".") as text:
        return json.loads(_core.Simulation(text, ".").resolved_scenario())


def _format_rows(rows: Sequence[MappedKey]) -> str:
    lines = ["# Pyrrha-NS3 setting -> hopsim scenario field (set by validate-against-ns3)"]
    for r in rows:
        flag = "" if r.modelled else "   [differs]"
        value = f" {r.value}" if r.value else ""
        target = f"{r.field} = {r.hopsim}" if r.field else r.hopsim
        lines.append(f"{r.key}{value}  ->  {target}{flag}")
    return "\n".join(lines) + "\n"
