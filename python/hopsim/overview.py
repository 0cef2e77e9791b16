"""What a run was and what it gave, in words: the ``setup`` record kept in the summary
(topology, hosts, congestion control, flow control, load balancer, workloads, offered
load) and the text of `Result.describe`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from hopsim.results import Result

__all__ = ["describe", "setup_of"]

_PS = re.compile(r"^(\d+)ps$")
_BPS = re.compile(r"^(\d+)bps$")


def _ns(text: Any) -> float | None:
    """A resolved duration (``"1000000ps"``) in ns."""
    m = _PS.match(str(text))
    return int(m.group(1)) / 1000 if m else None


def _rate(bps: float) -> str:
    for unit, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
        if bps >= scale:
            return f"{bps / scale:g}{unit}"
    return f"{bps:g}bps"


def _time(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:g}{unit}"
    return f"{ns:g}ns"


def _network(topo: Mapping[str, Any]) -> str:
    kind = topo.get("kind", "?")
    if kind == "leaf_spine":
        shape = (
            f"{topo.get('spines')} spines, {topo.get('leaves')} leaves × "
            f"{topo.get('hosts_per_leaf')} hosts"
        )
    elif kind == "fat_tree":
        shape = f"k = {topo.get('k')}"
    elif kind == "dumbbell":
        shape = f"{topo.get('left_hosts')} + {topo.get('right_hosts')} hosts"
    elif kind == "file":
        shape = f"{topo.get('format', 'hpcc')} file {str(topo.get('file', '?')).split('/')[-1]}"
    else:
        shape = ""
    return f"{kind} ({shape})" if shape else str(kind)


def _workload(w: Mapping[str, Any], hosts: int = 0) -> str:
    kind = w.get("kind", "?")
    tag = w.get("tag")
    if kind == "poisson":
        dist = w.get("size_dist") or str(w.get("cdf_file", "cdf")).split("/")[-1]
        text = f"poisson {dist} at load {w.get('load'):g}"
    elif kind == "incast":
        every = _ns(w.get("period"))
        when = f"every {_time(every)}" if every else f"at load {w.get('load')}"
        text = f"incast {w.get('fan_in')}-to-1 {when}"
        senders = w.get("senders")
        receiver = w.get("receiver")
        if isinstance(senders, list):
            can = len({h for h in senders if h != receiver})
        else:
            can = hosts - 1
        fan_in = w.get("fan_in") or 0
        if 0 < can < fan_in:
            # Documented (senders are reused once each has sent), but never what it reads as.
            text += (
                f" from only {can} senders (fan_in {fan_in} > {can}: each sends "
                f"{fan_in // can}-{-(-fan_in // can)} flows a round)"
                if fan_in % can
                else f" from only {can} senders ({fan_in // can} flows each a round)"
            )
    elif kind == "query":
        text = f"query fan-out {w.get('fan_out')} at {w.get('qps'):g} qps per client"
    elif kind == "moe":
        text = f"moe all-to-all every {_time(_ns(w.get('period')) or 0)}"
    elif kind == "flows":
        file = w.get("file")
        text = f"flows from {str(file).split('/')[-1]}" if file else "flows (inline)"
    else:
        text = str(kind)
    return f"{text} [tag {tag}]" if tag else text


def _fabric_rate(ports: pd.DataFrame) -> str | None:
    """The rate of the switch-to-switch links (``"40Gbps"``, or ``"40Gbps–100Gbps"`` when
    they differ); None without any (a single switch). Host-facing switch ports are host
    links, not fabric."""
    if not len(ports) or "peer_node" not in ports:
        return None
    tier_of = dict(zip(ports["node"], ports["tier"].astype(str)))
    is_switch = ports["tier"].astype(str) != "host"
    peer_is_switch = ports["peer_node"].map(tier_of).fillna("host") != "host"
    rates = ports.loc[is_switch & peer_is_switch, "rate_bps"].astype("float64")
    if rates.empty:
        return None
    lo, hi = float(rates.min()), float(rates.max())
    return _rate(lo) if lo == hi else f"{_rate(lo)}–{_rate(hi)}"


def setup_of(
    resolved: Mapping[str, Any],
    flows: pd.DataFrame,
    ports: pd.DataFrame,
    policies: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``setup`` record of a run: its resolved scenario (every default filled in)
    summed up, plus the offered load measured on its flows. ``policies``: each policy
    family's own description of what ran (the summary's ``policies``, written by the
    mechanisms themselves); without it, the kinds' names."""
    policies = policies or {}
    topo = resolved.get("topology", {})
    switch = resolved.get("switch", {})
    transport = resolved.get("transport", {})
    workloads = resolved.get("workload", [])
    workloads = workloads if isinstance(workloads, list) else [workloads]
    host_ports = ports[ports["tier"].astype(str) == "host"] if len(ports) else ports
    hosts = int(host_ports["node"].nunique()) if len(host_ports) else 0
    switches = int(ports.loc[ports["tier"].astype(str) != "host", "node"].nunique())
    capacity = float(host_ports["rate_bps"].sum()) if len(host_ports) else 0.0
    ccs = list(dict.fromkeys(flows["cc"].astype(str))) if "cc" in flows else []
    recovery = list(dict.fromkeys(flows["loss_recovery"].astype(str)))
    offered = None
    if len(flows) > 1 and capacity > 0:
        window = float(flows["start_ns"].max() - flows["start_ns"].min())
        if window > 0:
            offered = float(flows["size_bytes"].sum()) * 8 / (window * 1e-9 * capacity)
    return {
        "topology": _network(topo),
        "hosts": hosts,
        "switches": switches,
        "host_rate": _rate(float(host_ports["rate_bps"].min())) if hosts else None,
        "fabric_rate": _fabric_rate(ports),
        "transport": transport.get("kind", "roce"),
        "cc": ", ".join(ccs) or transport.get("cc"),
        "loss_recovery": ", ".join(recovery) or transport.get("loss_recovery"),
        "flow_control": policies.get("flow_control")
        or (switch.get("flow_control") or {}).get("kind", "pfc"),
        "deflection": policies.get("deflection")
        or (switch.get("deflection") or {}).get("kind", "none"),
        "ack_queue": switch.get("ack_queue", "data"),
        "load_balancer": policies.get("load_balancer")
        or resolved.get("routing", {}).get("load_balancer"),
        "buffer_bytes": switch.get("buffer_bytes"),
        "admission": (switch.get("admission") or {}).get("kind"),
        "workloads": [_workload(w, hosts) for w in workloads],
        "offered_load": offered,
        "duration_ns": _ns(resolved.get("duration")),
    }


def _slowdown_rows(table: pd.DataFrame, width: int) -> list[str]:
    out = []
    for label, row in table.iterrows():
        n = int(row["count"])
        p50 = f"{row['p50']:.2f}" if n else "-"
        p99 = f"{row['p99']:.2f}" if n else "-"
        out.append(f"  {str(label):<{width}}{n:>9,}{p50:>10}{p99:>10}")
    return out


def describe(result: Result) -> str:
    """The text of `Result.describe`."""
    s = result.summary
    setup = s.get("setup") or {}
    lines = [f"scenario      {s.get('scenario_name')} (seed {s.get('seed')})"]
    if setup:
        lines.append(
            f"network       {setup.get('topology')}: {setup.get('hosts')} hosts, "
            f"{setup.get('switches')} switches, host links {setup.get('host_rate')}"
            + (f", fabric {setup['fabric_rate']}" if setup.get("fabric_rate") else "")
        )
        lines.append(
            f"transport     cc {setup.get('cc')}, {setup.get('loss_recovery')}; flow control "
            f"{setup.get('flow_control')}; load balancer {setup.get('load_balancer')}"
            + (
                f"; deflection {setup['deflection']}"
                if setup.get("deflection", "none") != "none"
                else ""
            )
        )
        lines.append(f"workload      {'; '.join(setup.get('workloads') or [])}")
        par = s.get("parallel")
        if par:
            bound = sum(par["events"]) / max(par["critical_events"], 1)
            lines.append(
                f"engine        {par['threads']} thread{'s' if par['threads'] != 1 else ''}: "
                f"{par.get('partitions', par['threads'])} partitions, "
                f"{par['windows']:,} windows of {par['lookahead_ns']:,.0f} ns, "
                f"{par['transfers']:,} packets handed across (critical-path bound {bound:.2f}x)"
            )
        load = setup.get("offered_load")
        if load is not None:
            lines.append(f"offered load  {load:.3f} of the host links' capacity (measured)")
    limit = setup.get("duration_ns")
    sim = s.get("sim_time_ns", 0) / 1e6
    lines.append(
        f"simulated     {sim:.3f} ms" + (f" (time limit {limit / 1e6:g} ms)" if limit else "")
    )
    total, done = s.get("flows_total", 0), s.get("flows_finished", 0)
    share = f" ({100 * done / total:.1f}%)" if total else ""
    lines.append(f"flows         {done:,} of {total:,} finished{share}")
    if done < total:
        started = int((result.flows["start_ns"] <= s.get("sim_time_ns", math.inf)).sum())
        why = "the time limit" if limit else "the end of the run"
        if "the run was stopped there" in (s.get("deadlock_message") or ""):
            why = "the deadlock that stopped the run"
        never = f", {total - started:,} never started" if started < total else ""
        lines.append(
            f"WARNING       {total - done:,} flows did not finish before {why}{never}: "
            "the run is incomplete and FCT / slowdown figures cover finished flows only"
        )
    drops = s.get("drops", 0)
    causes = [
        f"{s[key]:,} {key.removeprefix('drops_').replace('_', ' ')}"
        for key in (
            "drops_buffer_full",
            "drops_headroom_overflow",
            "drops_egress_admission",
            "drops_hop_limit",
            "drops_link_down",
            "drops_no_route",
            "drops_rank_admission",
        )
        if s.get(key)
    ]
    lines.append(f"drops         {drops:,}" + (f" ({', '.join(causes)})" if causes else ""))
    if s.get("control_drops"):
        lines.append(f"ACKs dropped  {s['control_drops']:,} (ACKs, NACKs, CNPs and control frames)")
    if s.get("deflections") or str(setup.get("deflection", "none")) != "none":
        # A deflection policy that ran and deflected nothing says so (0).
        hops = s.get("deflection_extra_hops") or []
        detoured = sum(hops[1:])
        extra = (
            f" ({detoured:,} delivered packets took detours, "
            f"{sum(k * n for k, n in enumerate(hops)) / detoured:.1f} extra switch hops each)"
            if detoured
            else ""
        )
        if not s.get("deflections") and setup.get("admission"):
            extra = (
                " (the deflection policy never acted: no port reached its admission limit "
                f'under switch.admission.kind = "{setup["admission"]}")'
            )
        lines.append(f"deflections   {s.get('deflections', 0):,}{extra}")
    if drops and setup.get("flow_control", "").startswith("pfc"):
        lines.append(
            "WARNING       PFC is on but packets were dropped: lossless traffic was lost "
            f"({s.get('drops_headroom_overflow', 0):,} headroom overflows, "
            f"{s.get('drops_buffer_full', 0):,} buffer full)"
        )
    pauses, resumes = s.get("pfc_pause_frames", 0), s.get("pfc_resume_frames", 0)
    if pauses or s.get("flow_control", "pfc") in ("pfc", "none"):
        # Another flow control reports its own pauses below (its policy line).
        lines.append(f"PFC pauses    {pauses:,} (resumes {resumes:,})")
    # What each mechanism reports of itself (its own summary line, written in the core).
    for label, line in s.get("policy_lines") or []:
        lines.append(f"{label:<14}{line}")
    lines.append(f"ECN marks     {s.get('ecn_marks', 0):,} (CNPs {s.get('cnps', 0):,})")
    if s.get("retransmitted_bytes") or s.get("timeouts"):
        lines.append(
            f"retransmits   {s.get('retransmitted_bytes', 0):,} bytes, "
            f"{s.get('timeouts', 0):,} timeouts"
        )
    reordered = s.get("reordering_ratio") or 0.0
    if (
        reordered > 0
        and s.get("retransmitted_bytes")
        and "go_back_n" in str(setup.get("loss_recovery", ""))
        and "reorder_buffer" not in str(setup.get("loss_recovery", ""))
    ):
        lines.append(
            f"WARNING       {reordered:.1%} of data packets arrived out of order and go-back-N "
            "resends from the first gap it sees, so reordering costs retransmissions here "
            f"(load balancer {setup.get('load_balancer')}): selective retransmission "
            '(transport.loss_recovery = "irn") or a receiver reorder buffer '
            "(transport.reorder_buffer.enabled = true) tolerates it"
        )
    table = result.slowdown_by_size()
    finished = "finished flows" if done == total else f"the {done:,} finished flows only"
    if table["count"].sum():
        lines.append(f"slowdown by flow size ({finished}):")
        lines.append(f"  {'size':<14}{'flows':>9}{'p50':>10}{'p99':>10}")
        lines += _slowdown_rows(table, 14)
        tags = result.flows["tag"].astype(str)
        if tags.nunique() > 1:
            lines.append(f"slowdown by tag ({finished}):")
            lines.append(f"  {'tag':<14}{'flows':>9}{'p50':>10}{'p99':>10}")
            lines += _slowdown_rows(_by_tag(result.flows), 14)
    wall = s.get("wall_seconds")
    events = s.get("events", 0)
    if wall:
        rate = events / wall / 1e6
        lines.append(f"events        {events:,} in {wall:.2f} s wall ({rate:.2f} M events/s)")
    else:
        lines.append(f"events        {events:,}")
    return "\n".join(lines)


def _by_tag(flows: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for tag in dict.fromkeys(flows["tag"].astype(str)):
        s = flows.loc[(flows["tag"].astype(str) == tag) & flows["slowdown"].notna(), "slowdown"]
        s = s.astype("float64")
        rows.append(
            {
                "tag": tag,
                "count": len(s),
                "p50": s.quantile(0.5) if len(s) else math.nan,
                "p99": s.quantile(0.99) if len(s) else math.nan,
            }
        )
    return pd.DataFrame(rows).set_index("tag")
