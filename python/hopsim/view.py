"""``hopsim view``: replay one or more runs on their topology, in one self-contained HTML file.

The page draws the topology in tiers (hosts at the bottom, then ToRs, aggregation or spines,
cores) and replays the run on it with a time slider and a play button: each port (one
direction of a link, drawn as a segment leaving its node) is coloured by its egress queue,
paused ports are outlined in red with an arrow in the direction the PAUSE travelled, Pyrrha's
congestion roots are ringed and the ports holding isolation queues for them outlined in
purple, and deflections and drops are counted at the port they happened on. Clicking a port
shows its queue over time, when it was paused and its counters; clicking a flow in a run's
table shows its delivered rate and statistics and marks its hosts. Two or more runs are drawn
side by side on one clock (PFC beside Pyrrha, say), and a click selects the same port in all.

It reads what the run directory holds, and names the ``[output.*]`` setting that adds what is
missing. No server and no network: the data, the script and the style are embedded.

Sampling (so the file stays small): time is cut into at most ``MAX_FRAMES`` steps, each
holding a port's largest sampled queue, the fraction of the step it was paused, and the
deflections and drops in it; at most ``MAX_PORT_VALUES`` per-port values per run are kept
(fewer steps when a network is large); the flows table lists the ``MAX_FLOWS`` flows with the
largest slowdowns (unfinished flows first).
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hopsim.results import Result

MAX_FRAMES = 400
MAX_PORT_VALUES = 2_000_000
MAX_FLOWS = 200

TIER_ROWS = ["core", "spine", "agg", "tor", "host"]
"""Tiers from the top of the drawing down."""


@dataclass(frozen=True)
class Missing:
    """Something the page cannot show for a run, and the setting that records it."""

    what: str
    setting: str


def _frames_for(runs: Sequence[Result], frames: int) -> np.ndarray:
    """Edges of the common time steps: ``frames`` steps over the longest run, fewer when a
    run's ports times steps would exceed ``MAX_PORT_VALUES``."""
    ports = max(len(r.ports) for r in runs)
    n = max(2, min(frames, MAX_FRAMES, MAX_PORT_VALUES // max(ports, 1)))
    end = max(float(r.summary.get("sim_time_ns") or 0.0) for r in runs) or 1.0
    return np.linspace(0.0, end, n + 1)


def _bin(times: pd.Series | np.ndarray, edges: np.ndarray) -> np.ndarray:
    idx = np.searchsorted(edges, np.asarray(times, dtype=float), side="right") - 1
    return np.clip(idx, 0, len(edges) - 2)


def _layout(ports: pd.DataFrame) -> dict[int, tuple[float, float, str]]:
    """Node positions: one row per tier; ToRs evenly spaced, hosts under their ToR, each
    higher tier ordered by the mean position of the nodes below it (so pods stay together)."""
    tier = dict(zip(ports["node"].astype(int), ports["tier"].astype(str)))
    peers: dict[int, list[int]] = {}
    for a, b in zip(ports["node"].astype(int), ports["peer_node"].astype(int)):
        peers.setdefault(a, []).append(b)
    rows = [t for t in TIER_ROWS if t in set(tier.values())]
    extra = sorted(set(tier.values()) - set(rows))
    rows += extra
    by_tier = {t: sorted(n for n, v in tier.items() if v == t) for t in rows}
    n_hosts = len(by_tier.get("host", []))
    width = float(min(6000, max(1000, 8 * n_hosts)))
    margin = 30.0
    x: dict[int, float] = {}

    def spread(nodes: list[int]) -> None:
        step = (width - 2 * margin) / max(len(nodes), 1)
        for i, n in enumerate(nodes):
            x[n] = margin + step * (i + 0.5)

    tors = by_tier.get("tor") or by_tier[rows[-1]]
    spread(tors)
    hosts = by_tier.get("host", [])
    under: dict[int, list[int]] = {}
    for h in hosts:
        tor = next((p for p in peers.get(h, []) if p in x), None)
        under.setdefault(tor if tor is not None else -1, []).append(h)
    slot = (width - 2 * margin) / max(len(tors), 1)
    for tor, hs in under.items():
        if tor == -1:
            continue
        for i, h in enumerate(hs):
            x[h] = x[tor] - slot / 2 + slot * (i + 0.5) / len(hs)
    leftover = under.get(-1, [])
    if leftover:
        spread(leftover)
    # Upwards from the ToRs: each tier sorted by its neighbours below.
    below = rows.index("tor") if "tor" in rows else len(rows) - 1
    for t in reversed(rows[:below]):
        nodes = by_tier[t]
        key = {n: np.mean([x[p] for p in peers.get(n, []) if p in x] or [0.0]) for n in nodes}
        spread(sorted(nodes, key=lambda n: (key[n], n)))
    y_step = max(110.0, width / 12)  # wide networks get taller tiers, to stay legible
    return {
        n: (x.get(n, margin), 40.0 + y_step * rows.index(t), t) for t in rows for n in by_tier[t]
    }


def _queue_frames(r: Result, index: dict[tuple[int, int], int], edges: np.ndarray) -> dict:
    """Largest sampled egress backlog per port and step (bytes), ports that queued only."""
    q = r.queues
    if q.empty:
        return {}
    if (q["queue"] >= 0).any():  # per-queue samples: the port's backlog is their sum
        q = q.groupby(["time_ns", "node", "port"], as_index=False)["bytes"].sum()
    port = np.array([index[(int(n), int(p))] for n, p in zip(q["node"], q["port"])])
    frame = _bin(q["time_ns"], edges)
    out = np.zeros((len(index), len(edges) - 1), dtype=np.int64)
    np.maximum.at(out, (port, frame), q["bytes"].to_numpy(dtype=np.int64))
    return {int(i): out[i].tolist() for i in np.nonzero(out.max(axis=1))[0]}


def _frames_table(r: Result, path: Path) -> tuple[pd.DataFrame | None, str]:
    """The flow-control frames sent, from ``control_frames`` (every kind) or else
    ``pfc_events`` (PFC only); None when neither was recorded."""
    if r.scenario.get("output", {}).get("control_frames"):
        return r.control_frames, "control_frames"
    if r.scenario.get("output", {}).get("pfc_events"):
        f = r.pfc_events.rename(columns={"priority": "subject"}).copy()
        f["kind"] = np.where(f["pause"], "pfc_pause", "pfc_resume")
        return f, "pfc_events"
    return None, ""


def _pauses(
    frames: pd.DataFrame, index: dict[tuple[int, int], int], peer: list[int], edges: np.ndarray
) -> tuple[dict, dict]:
    """Replay the frames into pauses in force: a frame sent on port P pauses (or resumes) the
    class it names at P's peer, the port sending towards P. Returns per paused port the
    fraction of each step it had a class paused, and per port the frames it sent by kind."""
    paused: dict[int, set[int]] = {}
    since: dict[int, float] = {}
    spans: dict[int, list[tuple[float, float]]] = {}
    sent: dict[int, dict[str, int]] = {}
    has_resumes = "resumes" in frames.columns
    ordered = frames.sort_values("time_ns", kind="stable")
    cols = [ordered[c].to_numpy() for c in ("time_ns", "node", "port", "kind", "subject", "pause")]
    resumes = ordered["resumes"].to_numpy() if has_resumes else None
    for i, (t, node, port, kind, subject, pause) in enumerate(zip(*cols)):
        src = index[(int(node), int(port))]
        kinds = sent.setdefault(src, {})
        kinds[str(kind)] = kinds.get(str(kind), 0) + 1
        target = peer[src]
        held = paused.setdefault(target, set())
        before = bool(held)
        if bool(pause):
            held.add(int(subject))
        else:
            ended = resumes[i] if resumes is not None else subject
            if ended is not None and not pd.isna(ended):
                held.discard(int(ended))
        if held and not before:
            since[target] = float(t)
        elif before and not held:
            spans.setdefault(target, []).append((since.pop(target), float(t)))
    for target, t0 in since.items():
        spans.setdefault(target, []).append((t0, float(edges[-1])))
    width = np.diff(edges)
    fractions = {}
    for target, ss in spans.items():
        frac = np.zeros(len(width))
        for a, b in ss:
            lo = np.clip(edges[:-1], a, b)
            hi = np.clip(edges[1:], a, b)
            frac += (hi - lo) / width
        fractions[int(target)] = np.round(np.minimum(frac, 1.0), 3).tolist()
    return fractions, {int(k): v for k, v in sent.items()}


def _events(r: Result, index: dict, edges: np.ndarray, event: str) -> dict:
    p = r.packets[r.packets["event"] == event]
    if p.empty:
        return {}
    port = np.array([index[(int(n), int(q))] for n, q in zip(p["node"], p["port"])])
    out = np.zeros((len(index), len(edges) - 1), dtype=np.int64)
    np.add.at(out, (port, _bin(p["time_ns"], edges)), 1)
    return {int(i): out[i].tolist() for i in np.nonzero(out.sum(axis=1))[0]}


def _trees(r: Result, index: dict, limit: int) -> list[dict]:
    ct = r.congestion_trees
    if ct.empty:
        return []
    times = sorted(ct["time_ns"].unique())
    if len(times) > limit:
        times = [times[int(i)] for i in np.linspace(0, len(times) - 1, limit)]
    snaps = []
    for t in times:
        s = ct[ct["time_ns"] == t]
        roots = sorted({index[(int(n), int(p))] for n, p in zip(s["root_node"], s["root_port"])})
        members = [
            [index[(int(n), int(p))], index[(int(rn), int(rp))], str(role), str(state), int(hop)]
            for n, p, rn, rp, role, state, hop in zip(
                s["node"],
                s["port"],
                s["root_node"],
                s["root_port"],
                s["role"],
                s["state"],
                s["hop"],
            )
        ]
        snaps.append({"t": float(t), "roots": roots, "members": members})
    return snaps


def _flows(r: Result, edges: np.ndarray) -> tuple[list[dict], dict]:
    f = r.flows.copy()
    f["_order"] = f["slowdown"].astype(float).fillna(np.inf)
    f = f.sort_values(["_order", "flow_id"], ascending=[False, True]).head(MAX_FLOWS)

    def num(v: Any) -> float | None:
        return None if v is None or pd.isna(v) else float(v)

    rows = [
        {
            "id": int(x["flow_id"]),
            "src": int(x["src"]),
            "dst": int(x["dst"]),
            "size": int(x["size_bytes"]),
            "start": float(x["start_ns"]),
            "fct": num(x["fct_ns"]),
            "slowdown": num(x["slowdown"]),
            "tag": str(x["tag"]),
            "class": str(x["class"]),
            "retransmitted": int(x["retransmitted_bytes"]),
            "timeouts": int(x["timeouts"]),
            "deflections": int(x["deflections"]),
        }
        for x in f.to_dict("records")
    ]
    tp = r.throughput
    rates: dict[int, list[float]] = {}
    if not tp.empty:
        shown = {row["id"] for row in rows}
        tp = tp[tp["flow_id"].isin(shown)]
        width_s = np.diff(edges) / 1e9
        for fid, g in tp.groupby("flow_id"):
            b = np.zeros(len(width_s))
            np.add.at(b, _bin(g["time_ns"], edges), g["bytes"].to_numpy(dtype=float))
            rates[int(fid)] = np.round(b * 8 / width_s / 1e9, 3).tolist()
    return rows, rates


def _missing(r: Result, path: Path, frames_from: str) -> list[Missing]:
    out = r.scenario.get("output", {})
    m = []
    if "queues" not in out:
        m.append(Missing("queue occupancy per port", '[output.queues] interval = "10us"'))
    if not frames_from:
        m.append(Missing("pauses in force", "[output] control_frames = true"))
    elif frames_from == "pfc_events" and r.summary.get("flow_control") not in ("pfc", "none"):
        m.append(
            Missing(
                f"{r.summary.get('flow_control')}'s own frames (only PFC's were recorded)",
                "[output] control_frames = true",
            )
        )
    if "packet_trace" not in out:
        m.append(
            Missing(
                "deflections and drops over time (totals only)",
                "[output.packet_trace] max_records = 1000000",
            )
        )
    elif r.summary.get("packet_trace_dropped"):
        m.append(
            Missing(
                "deflections and drops after the packet trace filled up",
                "a larger [output.packet_trace] max_records",
            )
        )
    if r.summary.get("flow_control") == "pyrrha" and "congestion_trees" not in out:
        m.append(
            Missing("Pyrrha's congestion trees", '[output.congestion_trees] interval = "50us"')
        )
    if "throughput" not in out:
        m.append(
            Missing("flows' delivered rate over time", '[output.throughput] interval = "20us"')
        )
    return m


def _run_data(r: Result, path: Path, label: str, edges: np.ndarray) -> dict[str, Any]:
    ports = r.ports.sort_values(["node", "port"]).reset_index(drop=True)
    index = {(int(n), int(p)): i for i, (n, p) in enumerate(zip(ports["node"], ports["port"]))}
    peer = [index[(int(n), int(p))] for n, p in zip(ports["peer_node"], ports["peer_port"])]
    pos = _layout(ports)
    frames, frames_from = _frames_table(r, path)
    paused, sent = _pauses(frames, index, peer, edges) if frames is not None else ({}, {})
    flows, rates = _flows(r, edges)
    stats = ["tx_bytes", "pause_sent", "pause_received", "deflections", "paused_time_ns"]
    stats += ["max_queue_bytes", "busy_time_ns", "rate_bps"]
    s = r.summary
    return {
        "label": label,
        "path": str(path),
        "status": s.get("status", ""),
        "policies": {
            "flow control": s.get("flow_control", ""),
            "load balancer": s.get("load_balancer", ""),
            "deflection": s.get("deflection", ""),
        },
        "lines": [
            f"{s.get('flows_finished', 0):,} of {s.get('flows_total', 0):,} flows finished",
            f"{s.get('drops', 0):,} drops, {s.get('deflections', 0):,} deflections",
            *[
                f"{name}: {text}"
                for name, text in (tuple(x) for x in s.get("policy_lines", []))
                if text
            ],
        ],
        "nodes": [{"id": n, "x": x, "y": y, "tier": t} for n, (x, y, t) in sorted(pos.items())],
        "ports": [
            {
                "node": int(p.node),
                "port": int(p.port),
                "peer": peer[i],
                "tier": str(p.tier),
                "stats": {k: float(getattr(p, k)) for k in stats},
                "sent": sent.get(i, {}),
            }
            for i, p in enumerate(ports.itertuples())
        ],
        "queue": _queue_frames(r, index, edges),
        "paused": paused,
        "deflect": _events(r, index, edges, "deflect"),
        "drop": _events(r, index, edges, "drop"),
        "trees": _trees(r, index, MAX_FRAMES),
        "flows": flows,
        "rates": rates,
        "frames_from": frames_from,
        "missing": [{"what": m.what, "setting": m.setting} for m in _missing(r, path, frames_from)],
    }


def _asset(name: str) -> str:
    return resources.files("hopsim").joinpath("view_assets", name).read_text(encoding="utf-8")


def render(
    run_dirs: Sequence[str | os.PathLike[str]],
    labels: Sequence[str] | None = None,
    frames: int = 200,
) -> str:
    """The page for ``run_dirs`` (one panel each, on one clock), as HTML text."""
    if not run_dirs:
        raise ValueError("view: give at least one run directory")
    if labels is not None and len(labels) != len(run_dirs):
        raise ValueError(f"view: {len(labels)} labels for {len(run_dirs)} runs")
    if frames < 2:
        raise ValueError(f"view: frames must be at least 2, got {frames}")
    paths = [Path(d) for d in run_dirs]
    runs = [Result.read(p) for p in paths]
    names = list(labels) if labels else [p.name or str(p) for p in paths]
    edges = _frames_for(runs, frames)
    data = {
        "edges": edges.tolist(),
        "limits": {"frames": MAX_FRAMES, "port_values": MAX_PORT_VALUES, "flows": MAX_FLOWS},
        "runs": [_run_data(r, p, n, edges) for r, p, n in zip(runs, paths, names)],
    }
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    title = "hopsim view: " + " · ".join(names)
    return (
        _asset("view.html")
        .replace("{{TITLE}}", html.escape(title))
        .replace("{{STYLE}}", _asset("view.css"))
        .replace("{{DATA}}", payload)
        .replace("{{SCRIPT}}", _asset("view.js"))
    )


def write(
    run_dirs: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    labels: Sequence[str] | None = None,
    frames: int = 200,
    force: bool = False,
) -> Path:
    """Write the page to ``output``; refuses to replace an existing file unless ``force``."""
    out = Path(output)
    if out.exists() and not force:
        raise FileExistsError(f"{out} exists; pass --force to replace it")
    text = render(run_dirs, labels, frames)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out
