"""The ns-3 RDMA (HPCC) simulator's configuration file (the ``third`` program's ``config.txt``):
read one into a hopsim scenario with ``compat = "ns3"``, or write one for a topology, a flow
file and a congestion control with the parameters the simulator's ``run.py`` uses.

ConWeave's ns-3 (conweave-project/conweave-ns3, the ``network-load-balance`` program, of
the same lineage) reads the same keys plus its own (``LB_MODE``, ``ENABLE_PFC``,
``ENABLE_IRN``, …): a configuration with ``LB_MODE`` maps to ``compat = "conweave_ns3"``
with the load balancer it names, and `write_config` writes one with ``flavour="conweave"``.

The file is one ``KEY value...`` per line (``scratch/third.cc`` reads it key by key). Every
key that changes the model is mapped to a hopsim field or reported as not modelled; output
and tracing keys are recognised and left aside. `scenario_from_config` returns the mapping
it used, so a user moving a study sees each parameter's hopsim name.

>>> cfg = read_config("run_config.txt")                              # doctest: +SKIP
>>> doc, rows = scenario_from_config(cfg)                            # doctest: +SKIP
>>> hopsim.run(doc)                                                  # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CC_MODES",
    "MappedKey",
    "read_config",
    "read_topology_rates",
    "scenario_from_config",
    "write_config",
    "write_conweave_config",
    "write_conweave_flows",
]

#: ns-3's ``CC_MODE`` numbers (``rdma-hw.cc``) and hopsim's ``transport.cc`` names.
CC_MODES: dict[int, str] = {1: "dcqcn", 3: "hpcc", 7: "timely", 8: "dctcp"}
_CC_MODE_OF = {cc: mode for mode, cc in CC_MODES.items()}

#: Keys that only name inputs, outputs or tracing: they do not change the simulated network.
_OUTPUT_KEYS = {
    "TOPOLOGY_FILE",
    "FLOW_FILE",
    "TRACE_FILE",
    "TRACE_OUTPUT_FILE",
    "FCT_OUTPUT_FILE",
    "PFC_OUTPUT_FILE",
    "QLEN_MON_FILE",
    "QLEN_MON_START",
    "QLEN_MON_END",
    "ENABLE_TRACE",
    "SIMULATOR_STOP_TIME",
}
#: ConWeave's ``LB_MODE`` numbers (its ``run.py`` ``lb_modes``; ``SwitchNode::GetOutDev``)
#: and the hopsim balancer with the table that follows its code: DRILL samples 2 ports and
#: remembers the last best (``DoLbDrill``), CONGA feeds congestion back on data packets only
#: (``CongaRouting``), LetFlow's flowlets are cut and their paths drawn at the sender's ToR
#: (``LetflowRouting``).
CONWEAVE_LB_MODES: dict[int, tuple[str, dict[str, Any]]] = {
    0: ("ecmp", {}),
    2: ("drill", {"samples": 2, "memory": 1}),
    3: ("conga", {"piggyback_on_control": False}),
    6: ("letflow", {"path_choice": "source_tor"}),
}
_CONWEAVE_LB_OF = {name: mode for mode, (name, _) in CONWEAVE_LB_MODES.items()}

#: Keys ConWeave's ns-3 reads that name outputs, monitors or the traffic generator's
#: settings: they do not change the simulated network.
_CONWEAVE_OUTPUT_KEYS = {
    "FLOW_INPUT_FILE",
    "CNP_OUTPUT_FILE",
    "VOQ_MON_FILE",
    "VOQ_MON_DETAIL_FILE",
    "UPLINK_MON_FILE",
    "CONN_MON_FILE",
    "EST_ERROR_MON_FILE",
    "SW_MONITORING_INTERVAL",
    "FLOWGEN_START_TIME",
    "FLOWGEN_STOP_TIME",
}
#: ConWeave's own tuning (its ``run.py``): used by ``LB_MODE 9`` only.
_CONWEAVE_ONLY_KEYS = {
    "CONWEAVE_TX_EXPIRY_TIME",
    "CONWEAVE_REPLY_TIMEOUT_EXTRA",
    "CONWEAVE_PATH_PAUSE_TIME",
    "CONWEAVE_EXTRA_VOQ_FLUSH_TIME",
    "CONWEAVE_DEFAULT_VOQ_WAITING_TIME",
}
#: ConWeave's MMU cell (``switch-mmu.h`` ``MTU``): its headroom is 2 × rate × delay + 2 cells.
CONWEAVE_MMU_CELL = 1048

#: Keys with no effect on what hopsim models, and why.
_NO_EFFECT = {
    "ACK_HIGH_PRIO": "the switch never reads it: ACKs share the data queue (switch.ack_queue); "
    "hopsim's NIC holds them while their class is paused (ns-3's 0; its 1, an ACK sent through "
    "the PAUSE of the class the switches account it in, is not modelled)",
    "L2_BACK_TO_ZERO": "go-back-0 recovery applies only when packets are lost",
    "PINT_LOG_BASE": "HPCC-PINT only (CC_MODE 10)",
    "PINT_PROB": "HPCC-PINT only (CC_MODE 10)",
    "DATA_RATE": "unused by third.cc: the topology file gives link rates",
    "LINK_DELAY": "unused by third.cc: the topology file gives link delays",
}

#: Keys read by one congestion control only.
_ONLY_FOR = {
    "CLAMP_TARGET_RATE": ("dcqcn",),
    "ALPHA_RESUME_INTERVAL": ("dcqcn",),
    "RATE_DECREASE_INTERVAL": ("dcqcn",),
    "RP_TIMER": ("dcqcn",),
    "FAST_RECOVERY_TIMES": ("dcqcn",),
    "EWMA_GAIN": ("dcqcn", "dctcp"),
    "RATE_HAI": ("dcqcn", "timely"),
    "DCTCP_RATE_AI": ("dctcp",),
    "U_TARGET": ("hpcc",),
    "MI_THRESH": ("hpcc",),
    "INT_MULTI": ("hpcc",),
    "FAST_REACT": ("hpcc",),
    "MULTI_RATE": ("hpcc",),
    "SAMPLE_FEEDBACK": ("hpcc",),
}

_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(bps|b/s|kbps|kb/s|mbps|mb/s|gbps|gb/s)\s*$", re.I)
_RATE_SCALE = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}


@dataclass(frozen=True)
class MappedKey:
    """How one ns-3 configuration key reached the hopsim scenario."""

    key: str
    value: str
    field: str  # the hopsim field, or "" when the key has no hopsim counterpart
    hopsim: str  # the value given to that field, or what happened to the key
    modelled: bool = True


def read_config(path: str | os.PathLike[str]) -> dict[str, str]:
    """The ``KEY value...`` lines of an ns-3 ``config.txt``; blank lines are skipped and a
    repeated key keeps its last value, as ``third.cc`` reads it."""
    cfg: dict[str, str] = {}
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split(None, 1)
        if not fields:
            continue
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", fields[0]):
            raise ValueError(f"{path}:{lineno}: expected `KEY value`, got {line.strip()!r}")
        cfg[fields[0]] = fields[1].strip() if len(fields) > 1 else ""
    return cfg


def _rate_bps(text: str, key: str) -> float:
    """An ns-3 ``DataRate`` string (``20Mb/s``, ``100Gbps``) in bit/s."""
    m = _RATE.match(text)
    if not m:
        raise ValueError(f"{key}: expected a rate such as 20Mb/s, got {text!r}")
    return (
        float(m.group(1)) * _RATE_SCALE[m.group(2)[0].lower() if m.group(2)[0] in "kKmMgG" else ""]
    )


def _hopsim_rate(bps: float) -> str:
    if bps >= 1e9 and bps % 1e9 == 0:
        return f"{bps / 1e9:g}Gbps"
    return f"{bps / 1e6:g}Mbps"


def _number(text: str, key: str, kind: type = float) -> Any:
    try:
        return kind(text.split()[0])
    except (ValueError, IndexError):
        raise ValueError(f"{key}: expected a number, got {text!r}") from None


def _threshold_map(text: str, key: str) -> list[tuple[float, float]]:
    """``KMAX_MAP n rate1 v1 rate2 v2 ...`` as [(rate_bps, value)], ordered by rate."""
    parts = text.split()
    try:
        n = int(parts[0])
        pairs = [(float(parts[1 + 2 * i]), float(parts[2 + 2 * i])) for i in range(n)]
    except (ValueError, IndexError):
        raise ValueError(
            f"{key}: expected `n rate1 value1 ... rateN valueN`, got {text!r}"
        ) from None
    return sorted(pairs)


def read_topology_rates(path: str | os.PathLike[str]) -> tuple[float, list[float]]:
    """The host link rate and the distinct link rates (bit/s) of an HPCC topology file
    (``nodes switches links`` / switch ids / ``a b rate delay error`` per link)."""
    lines = [ln.split() for ln in Path(path).read_text(encoding="utf-8").splitlines()]
    lines = [ln for ln in lines if ln]
    if len(lines) < 2:
        raise ValueError(f"{path}: expected a header line and a switch line")
    try:
        switches = {int(x) for x in lines[1]}
    except ValueError:
        raise ValueError(f"{path}:2: expected switch node ids") from None
    rates: set[float] = set()
    host_rates: set[float] = set()
    for ln in lines[2:]:
        if len(ln) < 3:
            continue
        rate = _rate_bps(ln[2], f"{path}: link {ln[0]}-{ln[1]} rate")
        rates.add(rate)
        if int(ln[0]) not in switches or int(ln[1]) not in switches:
            host_rates.add(rate)
    if not host_rates:
        raise ValueError(f"{path}: no link reaches a host")
    return min(host_rates), sorted(rates)


def scenario_from_config(
    cfg: Mapping[str, str], cc: str | None = None
) -> tuple[dict[str, Any], list[MappedKey]]:
    """A hopsim scenario (``compat = "ns3"``) with every model parameter of the ns-3
    configuration `cfg`, and the key-by-key mapping. `cc` overrides ``CC_MODE``.
    Raises `ValueError` naming the key for a setting hopsim cannot run faithfully
    (HPCC-PINT, per-hop HPCC rates, sampled feedback, random link errors)."""
    rows: list[MappedKey] = []
    conweave = "LB_MODE" in cfg
    doc: dict[str, Any] = {"compat": "conweave_ns3" if conweave else "ns3"}

    def put(field: str, value: Any) -> None:
        table = doc
        *parents, last = field.split(".")
        for p in parents:
            table = table.setdefault(p, {})
        table[last] = value

    def mapped(key: str, field: str, value: Any) -> None:
        put(field, value)
        shown = value if isinstance(value, str) else repr(value).lower()
        rows.append(MappedKey(key, cfg[key], field, str(shown)))

    def note(key: str, what: str, modelled: bool = True) -> None:
        rows.append(MappedKey(key, cfg[key], "", what, modelled))

    for key in ("TOPOLOGY_FILE", "FLOW_FILE"):
        if key not in cfg:
            raise ValueError(f"{key}: missing from the ns-3 configuration")
    put("topology", {"kind": "file", "format": "hpcc", "file": cfg["TOPOLOGY_FILE"].split()[0]})
    put("workload", {"kind": "flows", "format": "hpcc", "file": cfg["FLOW_FILE"].split()[0]})
    if cc is None:
        mode = _number(cfg.get("CC_MODE", "1"), "CC_MODE", int)
        if mode not in CC_MODES:
            known = ", ".join(f"{m} ({n})" for m, n in CC_MODES.items())
            raise ValueError(f"CC_MODE: {mode} is not modelled by hopsim; expected one of {known}")
        cc = CC_MODES[mode]
    if cc not in _CC_MODE_OF:
        raise ValueError(f"cc: expected one of {', '.join(_CC_MODE_OF)}, got {cc!r}")
    put("transport.cc", cc)
    if "CC_MODE" in cfg:
        rows.append(MappedKey("CC_MODE", cfg["CC_MODE"], "transport.cc", cc))

    if conweave:
        _map_conweave_topology(cfg["TOPOLOGY_FILE"].split()[0], rows, put)
    for key, value in cfg.items():
        if key in ("TOPOLOGY_FILE", "FLOW_FILE", "CC_MODE"):
            continue
        if key in _OUTPUT_KEYS or (conweave and key in _CONWEAVE_OUTPUT_KEYS):
            continue
        if conweave and _map_conweave_key(key, value, cfg, mapped, note):
            continue
        if key in _NO_EFFECT:
            note(key, f"no effect: {_NO_EFFECT[key]}")
            continue
        _map_key(key, value, cc, cfg, mapped, note, put)
    return doc, rows


def _map_conweave_topology(topology: str, rows: list[MappedKey], put: Any) -> None:
    """ConWeave's per-port PFC headroom (``ConfigHdrm``: 2 × rate × delay + 2 MMU cells) as
    ``switch.pfc.headroom_bytes`` when every link has the same rate and delay (hopsim's
    headroom is one number); otherwise a note. An unreadable file is left to the run."""
    try:
        lines = [ln.split() for ln in Path(topology).read_text(encoding="utf-8").splitlines()]
    except OSError:
        return
    links = {(ln[2], ln[3]) for ln in lines[2:] if len(ln) >= 4}
    if len(links) != 1:
        rows.append(
            MappedKey(
                "TOPOLOGY_FILE",
                topology,
                "",
                "links of several rates or delays: hopsim's headroom is one size for every port "
                "(ConWeave's is 2 × rate × delay + 2 cells per port)",
                False,
            )
        )
        return
    rate, delay = next(iter(links))
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms)", delay)
    if m is None:
        return
    delay_s = float(m.group(1)) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[m.group(2)]
    headroom = int(_rate_bps(rate, "TOPOLOGY_FILE") * delay_s / 8 * 2 + 2 * CONWEAVE_MMU_CELL)
    put("switch.pfc.headroom_bytes", headroom)
    rows.append(
        MappedKey(
            "TOPOLOGY_FILE",
            f"{rate} {delay}",
            "switch.pfc.headroom_bytes",
            f"{headroom} (2 × rate × delay + 2 × {CONWEAVE_MMU_CELL} B, ConfigHdrm)",
        )
    )


def _map_conweave_key(key: str, value: str, cfg: Mapping[str, str], mapped: Any, note: Any) -> bool:
    """One of ConWeave's own keys: mapped or noted (True), or not one of them (False)."""
    flag = lambda: _number(value, key, int) != 0  # noqa: E731
    if key == "LB_MODE":
        mode = _number(value, key, int)
        if mode not in CONWEAVE_LB_MODES:
            known = ", ".join(f"{m} ({n})" for m, (n, _) in CONWEAVE_LB_MODES.items())
            what = " (ConWeave itself is not modelled by hopsim)" if mode == 9 else ""
            raise ValueError(f"LB_MODE: {mode}{what}; expected one of {known}")
        name, table = CONWEAVE_LB_MODES[mode]
        mapped(key, "routing.load_balancer", name)
        if table:
            mapped(key, f"routing.{name}", table)
    elif key == "ENABLE_PFC":
        if not flag():
            mapped(key, "switch.pfc.enabled", False)
        else:
            note(key, "PFC on (hopsim's default)")
    elif key == "ENABLE_IRN":
        if flag():
            mapped(key, "transport.loss_recovery", "irn")
        else:
            note(key, "go-back-N recovery (hopsim's default)")
    elif key in _CONWEAVE_ONLY_KEYS:
        note(key, "ConWeave's own setting (LB_MODE 9): no effect on the other balancers")
    elif key == "LOAD":
        note(key, "names the load the flow file was generated for: the flow file is the traffic")
    elif key == "RANDOM_SEED":
        note(key, "seeds ns-3's streams (srand, SeedManager); hopsim's seed is `seed`")
    elif key == "BUFFER_SIZE" and _number(value, key) == 0:
        raise ValueError(
            "BUFFER_SIZE: 0 (ConWeave's 375 KB per port) is not mapped; expected a size in MiB"
        )
    else:
        return False
    return True


def _map_key(
    key: str, value: str, cc: str, cfg: Mapping[str, str], mapped: Any, note: Any, put: Any
) -> None:
    """One model key of the configuration: `mapped` (to a field), or `note`d."""
    us = lambda: f"{_number(value, key):g}us"  # noqa: E731 - µs keys of third.cc
    rate = lambda: _hopsim_rate(_rate_bps(value.split()[0], key))  # noqa: E731
    flag = lambda: _number(value, key, int) != 0  # noqa: E731
    per_cc_rate_ai = {"dcqcn": "dcqcn", "hpcc": "hpcc", "timely": "timely", "dctcp": None}
    only = _ONLY_FOR.get(key)
    if only is not None and cc not in only:
        note(key, f"unused by {cc.upper()}")
        return
    if key == "PACKET_PAYLOAD_SIZE":
        mapped(key, "transport.mtu", _number(value, key, int))
    elif key == "BUFFER_SIZE":
        mapped(key, "switch.buffer_bytes", f"{_number(value, key):g}MiB")
    elif key == "ENABLE_QCN":
        if not flag():
            mapped(key, "switch.ecn.enabled", False)
        else:
            note(key, "ECN marking on (hopsim's default)")
    elif key in ("KMIN_MAP", "KMAX_MAP", "PMAX_MAP"):
        pairs = _threshold_map(value, key)
        if not pairs:
            note(key, "empty: hopsim's default kept", modelled=False)
            return
        ref_rate, ref_value = pairs[0]
        field = {
            "KMIN_MAP": "switch.ecn.kmin",
            "KMAX_MAP": "switch.ecn.kmax",
            "PMAX_MAP": "switch.ecn.pmax",
        }[key]
        if key == "PMAX_MAP":
            mapped(key, field, ref_value)
            if any(abs(v - ref_value) > 1e-12 for _, v in pairs):
                note(
                    key,
                    "per-rate pmax differs: hopsim uses the lowest rate's for every port",
                    False,
                )
        else:
            mapped(key, field, f"{ref_value:g}KB")
            put("switch.ecn.reference_rate", _hopsim_rate(ref_rate))
            proportional = all(
                math.isclose(v / ref_value, r / ref_rate, rel_tol=1e-9) for r, v in pairs
            )
            put("switch.ecn.scale_with_rate", proportional)
            if not proportional:
                note(
                    key, "thresholds not proportional to rate: hopsim uses the lowest rate's", False
                )
    elif key == "USE_DYNAMIC_PFC_THRESHOLD":
        if flag():
            note(key, "dynamic PFC threshold (hopsim's shared-buffer rule)")
        else:
            note(
                key, "static PFC thresholds are not modelled: hopsim keeps the dynamic rule", False
            )
    elif key == "CLAMP_TARGET_RATE":
        mapped(key, "transport.dcqcn.clamp_target_rate", flag())
    elif key == "ALPHA_RESUME_INTERVAL":
        mapped(key, "transport.dcqcn.alpha_interval", us())
    elif key == "RATE_DECREASE_INTERVAL":
        mapped(key, "transport.dcqcn.decrease_interval", us())
    elif key == "RP_TIMER":
        mapped(key, "transport.dcqcn.increase_timer", us())
    elif key == "FAST_RECOVERY_TIMES":
        mapped(key, "transport.dcqcn.fast_recovery_steps", _number(value, key, int))
    elif key == "EWMA_GAIN":
        mapped(key, f"transport.{'dctcp' if cc == 'dctcp' else 'dcqcn'}.g", _number(value, key))
    elif key == "RATE_AI":
        target = per_cc_rate_ai[cc]
        if target is None:
            note(key, "unused by DCTCP (DCTCP_RATE_AI is its step)")
        else:
            mapped(key, f"transport.{target}.{'delta' if cc == 'timely' else 'rate_ai'}", rate())
    elif key == "RATE_HAI":
        mapped(key, f"transport.{cc}.rate_hai", rate())
    elif key == "MIN_RATE":
        mapped(key, f"transport.{cc}.min_rate", rate())
    elif key == "DCTCP_RATE_AI":
        mapped(key, "transport.dctcp.rate_ai", rate())
    elif key == "U_TARGET":
        mapped(key, "transport.hpcc.eta", _number(value, key))
    elif key == "MI_THRESH":
        mapped(key, "transport.hpcc.max_stage", _number(value, key, int))
    elif key == "INT_MULTI":
        mapped(key, "transport.hpcc.int_multi", _number(value, key, int))
    elif key == "HAS_WIN":
        mapped(key, "transport.window", "bdp" if flag() else "none")
    elif key == "VAR_WIN":
        mapped(key, "transport.window_follows_rate", flag())
    elif key == "GLOBAL_T":
        mapped(key, "transport.bdp", "max" if flag() else "path")
    elif key == "FAST_REACT":
        if flag():
            note(key, "per-ACK reaction (hopsim's HPCC)")
        else:
            note(key, "HPCC without per-ACK reaction is not modelled (hopsim always reacts)", False)
    elif key in ("MULTI_RATE", "SAMPLE_FEEDBACK"):
        if flag():
            raise ValueError(f"{key}: 1 (an HPCC variant) is not modelled by hopsim; expected 0")
        note(key, "HPCC's default form")
    elif key == "RATE_BOUND":
        if flag():
            note(key, "NICs pace each flow at its rate (hopsim always does)")
        else:
            note(key, "unpaced NICs are not modelled: hopsim paces every flow", False)
    elif key == "ERROR_RATE_PER_LINK":
        if _number(value, key) != 0:
            raise ValueError(f"{key}: random packet loss is not modelled by hopsim; expected 0")
        note(key, "no random loss")
    elif key == "L2_ACK_INTERVAL":
        # The receiver ACKs each time its next expected byte passes a milestone that
        # advances by this many bytes (rdma-hw.cc, ReceiverCheckSeq).
        interval = _number(value, key, int)
        payload = _number(cfg.get("PACKET_PAYLOAD_SIZE", "1000"), "PACKET_PAYLOAD_SIZE", int)
        mapped(key, "transport.ack_every", max(1, interval // payload))
        if interval > payload and interval % payload:
            note(
                key,
                f"not a whole number of {payload} B packets: ACKs every {interval // payload}",
                False,
            )
    elif key == "L2_CHUNK_SIZE":
        interval = _number(cfg.get("L2_ACK_INTERVAL", "1"), "L2_ACK_INTERVAL", int)
        chunk = _number(value, key, int)
        if interval <= 1 or (chunk > 0 and chunk % interval == 0):
            note(key, "ACKs at chunk boundaries add none to the ACK interval's")
        else:
            note(key, "ACKs at chunk boundaries besides the ACK interval are not modelled", False)
    elif key == "LINK_DOWN":
        parts = value.split()
        try:
            when, a, b = float(parts[0]), int(parts[1]), int(parts[2])
        except (ValueError, IndexError):
            raise ValueError(f"{key}: expected `time_s node node`, got {value!r}") from None
        if when == 0 and a == 0 and b == 0:
            note(key, "no link failure")
        else:
            mapped(key, "faults", [{"link": [a, b], "down": f"{when * 1e9:.0f}ns"}])
    elif key == "PAUSE_TIME":
        note(key, "PAUSE frames last until RESUME in hopsim (no quanta)", False)
    else:
        note(key, "unknown to hopsim: ignored", False)


# ---------------------------------------------------------------- writing a configuration


#: run.py's parameters per congestion control at host rate `bw` Gb/s (HPCC repository,
#: ``simulation/run.py``: ``--cc dcqcn``, ``hp`` with ``--hpai 50``, ``timely``, ``dctcp``).
def _run_py_parameters(cc: str, bw: float) -> dict[str, Any]:
    common = {
        "CLAMP_TARGET_RATE": 0,
        "ALPHA_RESUME_INTERVAL": 1,
        "RATE_DECREASE_INTERVAL": 4,
        "RP_TIMER": 300,
        "EWMA_GAIN": 0.00390625,
        "FAST_RECOVERY_TIMES": 1,
        "MIN_RATE": "1000Mb/s",
        "DCTCP_RATE_AI": "1000Mb/s",
        "U_TARGET": 0.95,
        "MI_THRESH": 0,
        "GLOBAL_T": 1,
        "FAST_REACT": 0,
        "MULTI_RATE": 0,
        "SAMPLE_FEEDBACK": 0,
        "INT_MULTI": 1,
    }
    ecn = {"kmin_per_gbps": 4, "kmax_per_gbps": 16, "pmax": 0.2}
    if cc == "dcqcn":
        p = {
            "RATE_AI": f"{5 * bw / 25:g}Mb/s",
            "RATE_HAI": f"{50 * bw / 25:g}Mb/s",
            "HAS_WIN": 0,
            "VAR_WIN": 0,
        }
    elif cc == "hpcc":
        p = {
            "RATE_AI": "50Mb/s",
            "RATE_HAI": "50Mb/s",
            "HAS_WIN": 1,
            "VAR_WIN": 1,
            "FAST_REACT": 1,
            "INT_MULTI": max(1, int(bw // 25)),
        }
    elif cc == "timely":
        p = {
            "RATE_AI": f"{10 * bw / 10:g}Mb/s",
            "RATE_HAI": f"{50 * bw / 10:g}Mb/s",
            "HAS_WIN": 0,
            "VAR_WIN": 0,
        }
    elif cc == "dctcp":
        p = {
            "RATE_AI": "10Mb/s",
            "RATE_HAI": "10Mb/s",
            "DCTCP_RATE_AI": "615Mb/s",
            "EWMA_GAIN": 0.0625,
            "HAS_WIN": 1,
            "VAR_WIN": 1,
        }
        ecn = {"kmin_per_gbps": 3, "kmax_per_gbps": 3, "pmax": 1.0}
    else:
        raise ValueError(f"cc: expected one of {', '.join(_CC_MODE_OF)}, got {cc!r}")
    return {**common, **p, "_ecn": ecn}


def write_config(
    path: str | os.PathLike[str],
    *,
    topology: str | os.PathLike[str],
    flows: str | os.PathLike[str],
    cc: str,
    out_prefix: str | os.PathLike[str],
    stop_s: float = 4.0,
) -> Path:
    """Write an ns-3 ``config.txt`` that runs `flows` on `topology` with `cc` and run.py's
    parameters for the topology's host rate, tracing and the queue monitor off (they only
    slow the run); results go to ``<out_prefix>_fct.txt`` and ``_pfc.txt``."""
    host_rate, rates = read_topology_rates(topology)
    bw = host_rate / 1e9
    p = _run_py_parameters(cc, bw)
    ecn = p.pop("_ecn")
    kmin = " ".join(f"{r:.0f} {ecn['kmin_per_gbps'] * r / 1e9:g}" for r in rates)
    kmax = " ".join(f"{r:.0f} {ecn['kmax_per_gbps'] * r / 1e9:g}" for r in rates)
    pmax = " ".join(f"{r:.0f} {ecn['pmax']:.2f}" for r in rates)
    out = Path(out_prefix).absolute()
    lines = {
        "ENABLE_QCN": 1,
        "USE_DYNAMIC_PFC_THRESHOLD": 1,
        "PACKET_PAYLOAD_SIZE": 1000,
        "TOPOLOGY_FILE": Path(topology).absolute(),
        "FLOW_FILE": Path(flows).absolute(),
        "TRACE_FILE": out.parent / f"{out.name}_trace_nodes.txt",
        "TRACE_OUTPUT_FILE": f"{out}_mix.tr",
        "FCT_OUTPUT_FILE": f"{out}_fct.txt",
        "PFC_OUTPUT_FILE": f"{out}_pfc.txt",
        "SIMULATOR_STOP_TIME": f"{stop_s:.2f}",
        "CC_MODE": _CC_MODE_OF[cc],
        **p,
        "ERROR_RATE_PER_LINK": "0.0000",
        "L2_CHUNK_SIZE": 4000,
        "L2_ACK_INTERVAL": 1,
        "L2_BACK_TO_ZERO": 0,
        "PINT_LOG_BASE": 1.01,
        "PINT_PROB": 1.0,
        "RATE_BOUND": 1,
        "ACK_HIGH_PRIO": 0 if cc in ("hpcc", "dctcp") else 1,
        "LINK_DOWN": "0 0 0",
        "ENABLE_TRACE": 0,
        "KMAX_MAP": f"{len(rates)} {kmax}",
        "KMIN_MAP": f"{len(rates)} {kmin}",
        "PMAX_MAP": f"{len(rates)} {pmax}",
        "BUFFER_SIZE": f"{16 * bw / 50:g}",
        "QLEN_MON_FILE": f"{out}_qlen.txt",
        "QLEN_MON_START": 100_000_000_000,
        "QLEN_MON_END": 100_000_000_000,
    }
    # ns-3 opens the trace node list even with tracing off: give it an empty one.
    Path(lines["TRACE_FILE"]).write_text("0\n\n", encoding="utf-8")
    text = "".join(f"{k} {v}\n" for k, v in lines.items())
    Path(path).write_text(text, encoding="utf-8")
    return Path(path)


def write_conweave_config(
    path: str | os.PathLike[str],
    *,
    topology: str | os.PathLike[str],
    flows: str | os.PathLike[str],
    lb: str,
    out_prefix: str | os.PathLike[str],
    buffer_mib: float = 9,
    stop_s: float = 4.0,
) -> Path:
    """Write a ``config.txt`` for ConWeave's ``network-load-balance`` that runs `flows`
    (ConWeave's form: `write_conweave_flows`) on `topology` under balancer `lb` with the
    DCQCN parameters its ``run.py`` uses (the only congestion control it configures) at the
    topology's host rate, PFC on, and its monitors sampling once per millisecond (they
    only slow the run); results go to ``<out_prefix>_fct.txt`` and ``_pfc.txt``."""
    if lb not in _CONWEAVE_LB_OF:
        raise ValueError(f"lb: expected one of {', '.join(_CONWEAVE_LB_OF)}, got {lb!r}")
    host_rate, rates = read_topology_rates(topology)
    bw = host_rate / 1e9
    out = Path(out_prefix).absolute()
    # run.py: the same ECN thresholds at every rate (KB), pmax 0.2.
    kmin = " ".join(f"{r:.0f} 100" for r in rates)
    kmax = " ".join(f"{r:.0f} 400" for r in rates)
    pmax = " ".join(f"{r:.0f} 0.20" for r in rates)
    lines: dict[str, Any] = {
        "TOPOLOGY_FILE": Path(topology).absolute(),
        "FLOW_FILE": Path(flows).absolute(),
        "FLOW_INPUT_FILE": f"{out}_in.txt",
        "CNP_OUTPUT_FILE": f"{out}_cnp.txt",
        "FCT_OUTPUT_FILE": f"{out}_fct.txt",
        "PFC_OUTPUT_FILE": f"{out}_pfc.txt",
        "QLEN_MON_FILE": f"{out}_qlen.txt",
        "VOQ_MON_FILE": f"{out}_voq.txt",
        "VOQ_MON_DETAIL_FILE": f"{out}_voq_per_dst.txt",
        "UPLINK_MON_FILE": f"{out}_uplink.txt",
        "CONN_MON_FILE": f"{out}_conn.txt",
        "EST_ERROR_MON_FILE": f"{out}_est_error.txt",
        "QLEN_MON_START": 0,
        "QLEN_MON_END": 0,
        "SW_MONITORING_INTERVAL": 1_000_000,
        "FLOWGEN_START_TIME": 0,
        "FLOWGEN_STOP_TIME": f"{stop_s:g}",
        "BUFFER_SIZE": f"{buffer_mib:g}",
        "CC_MODE": 1,
        "LB_MODE": _CONWEAVE_LB_OF[lb],
        "ENABLE_PFC": 1,
        "ENABLE_IRN": 0,
        "CONWEAVE_TX_EXPIRY_TIME": 1000,
        "CONWEAVE_REPLY_TIMEOUT_EXTRA": 4,
        "CONWEAVE_PATH_PAUSE_TIME": 16,
        "CONWEAVE_EXTRA_VOQ_FLUSH_TIME": 64,
        "CONWEAVE_DEFAULT_VOQ_WAITING_TIME": 400,
        "ALPHA_RESUME_INTERVAL": 1,
        "RATE_DECREASE_INTERVAL": 4,
        "CLAMP_TARGET_RATE": 0,
        "RP_TIMER": 300,
        "FAST_RECOVERY_TIMES": 1,
        "EWMA_GAIN": 0.00390625,
        "RATE_AI": f"{10 * bw / 25:g}Mb/s",
        "RATE_HAI": f"{25 * bw / 25:g}Mb/s",
        "MIN_RATE": "100Mb/s",
        "DCTCP_RATE_AI": "1000Mb/s",
        "ERROR_RATE_PER_LINK": "0.0000",
        "L2_CHUNK_SIZE": 4000,
        "L2_ACK_INTERVAL": 1,
        "L2_BACK_TO_ZERO": 0,
        "RATE_BOUND": 1,
        "HAS_WIN": 0,
        "VAR_WIN": 0,
        "FAST_REACT": 0,
        "MI_THRESH": 0,
        "INT_MULTI": 1,
        "GLOBAL_T": 1,
        "U_TARGET": 0.95,
        "MULTI_RATE": 0,
        "SAMPLE_FEEDBACK": 0,
        "ENABLE_QCN": 1,
        "USE_DYNAMIC_PFC_THRESHOLD": 1,
        "PACKET_PAYLOAD_SIZE": 1000,
        "LINK_DOWN": "0 0 0",
        "KMAX_MAP": f"{len(rates)} {kmax}",
        "KMIN_MAP": f"{len(rates)} {kmin}",
        "PMAX_MAP": f"{len(rates)} {pmax}",
        "LOAD": 0,
        "RANDOM_SEED": 1,
    }
    text = "".join(f"{k} {v}\n" for k, v in lines.items())
    Path(path).write_text(text, encoding="utf-8")
    return Path(path)


def write_conweave_flows(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> Path:
    """Copy an HPCC flow file (``src dst priority dport size start``) into ConWeave's form
    (``src dst priority size start``: its ports are numbered by the simulator); a file
    already in ConWeave's form is copied as it is."""
    lines = Path(src).read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines):
        t = line.split()
        if i == 0 or len(t) != 6:
            out.append(line)
        else:
            out.append(" ".join((t[0], t[1], t[2], t[4], t[5])))
    Path(dst).write_text("\n".join(out) + "\n", encoding="utf-8")
    return Path(dst)
