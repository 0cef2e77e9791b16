"""Export a run in other simulators' formats, so existing analysis scripts read it.

``hpcc-fct`` writes the HPCC ns-3 RDMA simulator's ``fct.txt`` (one line per finished
flow, in completion order, as ``qp_finish`` prints it)::

    <sip> <dip> <sport> <dport> <size_bytes> <start_ns> <fct_ns> <standalone_fct_ns>

with ``sip``/``dip`` the ns-3 node addresses in hexadecimal (node ``n`` has
``11.0.(n // 256).(n % 256)`` + 1, i.e. ``0x0b000001 + (n // 256) * 0x10000 + (n % 256) * 0x100``),
times as integer nanoseconds (ns-3 time steps) and ``standalone_fct_ns`` hopsim's ideal FCT
(the same definition). Beside it, the PFC log in the format of ``get_pfc`` (``pfc.txt``)::

    <time_ns> <node> <node_type> <if_index> <type>

one line per PAUSE (``type`` 1) or RESUME (0) for the port it stops, as ns-3 logs them at
the paused device: ``node`` is the paused port's node, ``node_type`` 0 for a host and 1 for
a switch, ``if_index`` the port number + 1 (ns-3 devices are numbered from 1, after the
loopback). hopsim records when a frame is *sent*, so ``time_ns`` is the sending time: ns-3
logs the arrival, one frame serialization and one link delay (plus any packet still being
sent) later.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from hopsim.results import Result

__all__ = ["FORMATS", "hpcc_ip", "write_hpcc_fct", "write_hpcc_pfc"]

#: Export formats: name → what it writes.
FORMATS = {"hpcc-fct": "the HPCC ns-3 simulator's fct.txt (and pfc.txt beside it)"}


def hpcc_ip(node: int) -> int:
    """The IPv4 address (as an integer) the HPCC simulator gives node ``node``."""
    return 0x0B000001 + (node // 256) * 0x00010000 + (node % 256) * 0x00000100


def _ns(v: float) -> int:
    return int(math.floor(float(v) + 0.5))


def write_hpcc_fct(result: Result, path: str | os.PathLike[str]) -> int:
    """Write ``fct.txt`` lines of the finished flows to ``path``; return how many."""
    flows = result.flows
    missing = [c for c in ("sport", "dport") if c not in flows.columns]
    if missing:
        raise ValueError(
            f"the flows table has no {missing[0]} column (written by an older hopsim); "
            "run the scenario again to export it"
        )
    done = flows[flows["finish_ns"].notna()].sort_values(["finish_ns", "flow_id"], kind="stable")
    lines = [
        f"{hpcc_ip(int(f.src)):08x} {hpcc_ip(int(f.dst)):08x} {int(f.sport)} {int(f.dport)} "
        f"{int(f.size_bytes)} {_ns(f.start_ns)} {_ns(f.fct_ns)} {_ns(f.ideal_fct_ns)}\n"
        for f in done.itertuples(index=False)
    ]
    Path(path).write_text("".join(lines), encoding="ascii")
    return len(lines)


def write_hpcc_pfc(result: Result, path: str | os.PathLike[str]) -> int:
    """Write the PFC log lines (``pfc.txt`` format) to ``path``; return how many.

    Raises `ValueError` when the run sent PAUSE frames without recording them
    (``[output] pfc_events = false``).
    """
    events = result.pfc_events
    if events.empty and result.summary.get("pfc_pause_frames", 0):
        raise ValueError(
            "the run sent PAUSE frames but did not record them; set [output] pfc_events = true"
        )
    ports = result.ports
    if "peer_port" not in ports.columns:
        raise ValueError("the ports table has no peer_port column (written by an older hopsim)")
    peer = ports.set_index(["node", "port"])[["peer_node", "peer_port"]]
    tier = ports.set_index(["node", "port"])["tier"].astype(str)
    lines = []
    for e in events.sort_values("time_ns", kind="stable").itertuples(index=False):
        node, port = peer.loc[(int(e.node), int(e.port))]
        kind = 0 if tier.loc[(int(node), int(port))] == "host" else 1
        lines.append(f"{_ns(e.time_ns)} {int(node)} {kind} {int(port) + 1} {int(bool(e.pause))}\n")
    Path(path).write_text("".join(lines), encoding="ascii")
    return len(lines)


def export(result: Result, fmt: str, path: str | os.PathLike[str]) -> list[tuple[Path, int]]:
    """Export ``result`` in format ``fmt`` to ``path``; return the files and line counts
    written (``hpcc-fct`` also writes ``pfc.txt`` beside ``path`` when the run recorded
    PFC events)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r} (expected one of {', '.join(FORMATS)})")
    out = Path(path)
    written = [(out, write_hpcc_fct(result, out))]
    if not result.pfc_events.empty or not result.summary.get("pfc_pause_frames", 0):
        pfc = out.with_name("pfc.txt" if out.name != "pfc.txt" else "pfc_log.txt")
        written.append((pfc, write_hpcc_pfc(result, pfc)))
    return written


def read_hpcc_fct(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an ``fct.txt`` (hopsim's or ns-3's) into a DataFrame with the columns
    ``sip, dip, sport, dport, size_bytes, start_ns, fct_ns, standalone_fct_ns``."""
    names = [
        "sip",
        "dip",
        "sport",
        "dport",
        "size_bytes",
        "start_ns",
        "fct_ns",
        "standalone_fct_ns",
    ]
    df = pd.read_csv(path, sep=" ", header=None, names=names, dtype={"sip": str, "dip": str})
    return df
