"""Reference benchmarks: fixed scenarios whose speed and results are tracked over time.

Each benchmark is a scenario file in ``hopsim/benchmarks/NAME.toml``. An optional
``[bench]`` table (removed before the scenario reaches the core) holds a one-line
``description`` and, for scenarios built on external input files, ``anchor``: the name
of a folder under ``shared/anchors`` that the scenario's relative paths point into.
That folder is looked up in ``$HOPSIM_ANCHORS``, then upwards from the current
directory and from this package's location; a benchmark whose anchor is missing is
skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hopsim import _core
from hopsim.results import flow_checksum
from hopsim.scenario import load_toml, to_json

__all__ = [
    "BENCH_DIR",
    "BenchmarkSkipped",
    "find_anchor",
    "list_benchmarks",
    "main_many",
    "run_benchmark",
]

BENCH_DIR = Path(__file__).resolve().parent / "benchmarks"

#: Keys of a benchmark report, in order.
REPORT_KEYS = (
    "events",
    "events_per_sec",
    "packet_hops",
    "packet_hops_per_sec",
    "sim_seconds",
    "wall_seconds",
    "peak_rss_bytes",
    "checksum",
    "peak_packets_in_flight",
    "bytes_per_packet_in_flight",
    "bytes_per_flow",
)


class BenchmarkSkipped(Exception):
    """The benchmark needs input files that are not available here."""


def list_benchmarks() -> list[tuple[str, str]]:
    """``(name, description)`` of every shipped benchmark, sorted by name."""
    out = []
    for path in sorted(BENCH_DIR.glob("*.toml")):
        meta = load_toml(path).get("bench", {})
        out.append((path.stem, str(meta.get("description", ""))))
    return out


def find_anchor(name: str) -> Path | None:
    """Locate ``shared/anchors/<name>``: ``$HOPSIM_ANCHORS``, then upwards from the
    current directory and from the package location."""
    env = os.environ.get("HOPSIM_ANCHORS")
    if env:
        for candidate in (Path(env) / name, Path(env)):
            if candidate.is_dir() and candidate.name == name:
                return candidate
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            candidate = folder / "shared" / "anchors" / name
            if candidate.is_dir():
                return candidate
    return None


def _load(name: str) -> tuple[dict[str, Any], str]:
    path = BENCH_DIR / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(n for n, _ in list_benchmarks())
        raise _core.ScenarioError(f"unknown benchmark {name!r}; expected one of {known}")
    doc = load_toml(path)
    meta = doc.pop("bench", {})
    anchor = meta.get("anchor")
    if not anchor:
        return doc, str(BENCH_DIR)
    folder = find_anchor(anchor)
    if folder is None:
        raise BenchmarkSkipped(
            f"input folder shared/anchors/{anchor} not found "
            "(searched upwards from here and from the package; set HOPSIM_ANCHORS to "
            "the anchors folder)"
        )
    return doc, str(folder)


def _peak_rss_bytes() -> int | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss if sys.platform == "darwin" else rss * 1024)


def run_benchmark(name: str) -> dict[str, Any]:
    """Run benchmark ``name`` and return its report (the keys of `REPORT_KEYS`).

    Wall time covers building the network and the workload and running to the end.
    """
    doc, base = _load(name)
    return _measure(doc, base)


def _measure(doc: dict[str, Any], base: str) -> dict[str, Any]:
    payload = to_json(doc)
    started = time.perf_counter()
    sim = _core.Simulation(payload, base)
    sim.run()
    wall = time.perf_counter() - started
    summary = sim.summary()
    memory = sim.memory()
    events, hops = summary["events"], summary["packet_hops"]
    return {
        "events": events,
        "events_per_sec": events / wall if wall > 0 else None,
        "packet_hops": hops,
        "packet_hops_per_sec": hops / wall if wall > 0 else None,
        "sim_seconds": summary["sim_time_ns"] / 1e9,
        "wall_seconds": wall,
        "peak_rss_bytes": _peak_rss_bytes(),
        "checksum": flow_checksum(sim.flows()),
        # Packet-store bytes over the most packets ever in flight (the store keeps its
        # peak size), and flow state per flow.
        "peak_packets_in_flight": memory["peak_packets_in_flight"],
        "bytes_per_packet_in_flight": memory["bytes_per_packet_in_flight"],
        "bytes_per_flow": memory["bytes_per_flow"],
    }


def _format_report(name: str, report: dict[str, Any]) -> str:
    def cell(key: str, value: Any) -> str:
        if value is None:
            return "n/a"
        if key == "peak_rss_bytes":
            return f"{value / 2**20:,.1f} MiB"
        if key in ("sim_seconds", "wall_seconds"):
            return f"{value:.6g}"
        if key.startswith("bytes_per"):
            return f"{value:,.1f} B"
        if isinstance(value, float):
            return f"{value:,.0f}"
        if isinstance(value, int):
            return f"{value:,}"
        return str(value)

    lines = [f"{'benchmark':<22}{name}"]
    lines += [f"{key:<22}{cell(key, report[key])}" for key in REPORT_KEYS]
    return "\n".join(lines)


def main(name: str, as_json: bool = False) -> int:
    """``hopsim bench NAME``: run it and print the report; returns the exit status."""
    try:
        doc, base = _load(name)
    except BenchmarkSkipped as exc:
        if as_json:
            print(json.dumps({"skipped": f"{name}: {exc}"}))
        else:
            print(f"skipped {name}: {exc}")
        return 0
    if not as_json:
        print(f"running benchmark {name} ...", file=sys.stderr, flush=True)
    report = _measure(doc, base)
    print(json.dumps(report) if as_json else _format_report(name, report))
    return 0


def main_many(names: list[str], as_json: bool = False) -> int:
    """``hopsim bench NAME NAME ... | --all``: run each benchmark in a fresh process (so
    each reports its own peak RSS), one after the other. With ``as_json``, print one JSON
    object per line with the benchmark's name under ``"benchmark"``."""
    known = {n for n, _ in list_benchmarks()}
    for name in names:
        if name not in known:
            raise _core.ScenarioError(
                f"unknown benchmark {name!r}; expected one of {', '.join(sorted(known))}"
            )
    status = 0
    for name in names:
        cmd = [sys.executable, "-m", "hopsim.cli", "bench", name, *(["--json"] if as_json else [])]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
        status = status or proc.returncode
        if proc.returncode != 0:
            print(f"benchmark {name} failed (exit status {proc.returncode})", file=sys.stderr)
            continue
        if as_json:
            print(json.dumps({"benchmark": name, **json.loads(proc.stdout)}), flush=True)
        else:
            print(proc.stdout, end="\n", flush=True)
    return status
