"""Reference benchmarks: fixed scenarios whose speed and results are tracked over time.

Each benchmark is a scenario file in ``hopsim/benchmarks/NAME.toml``. An optional
``[bench]`` table (removed before the scenario reaches the core) holds a one-line
``description``, the ``checksum`` of the flow table the scenario is known to produce
(a run whose checksum differs is reported and exits with status 1, so a speed-up that
changes results is caught), and, for scenarios built on external input files,
``anchor``: the name of a folder under ``shared/anchors`` that the scenario's relative
paths point into.
That folder is looked up in ``$HOPSIM_ANCHORS``, then upwards from the current
directory and from this package's location; a benchmark whose anchor is missing is
skipped.
"""

from __future__ import annotations

import json
import os
import platform
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
    "cpu_seconds",
    "threads",
    "parallel",
    "peak_rss_bytes",
    "checksum",
    "peak_packets_in_flight",
    "bytes_per_packet_in_flight",
    "bytes_per_flow",
    "expected_checksum",
    "checksum_matches",
    "cpu",
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


def _path(name: str) -> Path:
    path = BENCH_DIR / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(n for n, _ in list_benchmarks())
        raise _core.ScenarioError(f"unknown benchmark {name!r}; expected one of {known}")
    return path


def _load(name: str) -> tuple[dict[str, Any], str, str | None]:
    """The scenario (without its ``[bench]`` table), the folder its relative paths are
    resolved in, and its recorded checksum (if any)."""
    path = _path(name)
    doc = load_toml(path)
    meta = doc.pop("bench", {})
    unknown = sorted(set(meta) - {"description", "checksum", "anchor"})
    if unknown:
        raise _core.ScenarioError(
            f"{path}: unknown key bench.{unknown[0]}; expected description, checksum or anchor"
        )
    expected = meta.get("checksum")
    if expected is not None and not (
        isinstance(expected, str)
        and len(expected) == 16
        and all(c in "0123456789abcdef" for c in expected)
    ):
        raise _core.ScenarioError(
            f"{path}: bench.checksum must be 16 lower-case hex digits, got {expected!r}"
        )
    anchor = meta.get("anchor")
    if not anchor:
        return doc, str(BENCH_DIR), expected
    folder = find_anchor(anchor)
    if folder is None:
        raise BenchmarkSkipped(
            f"input folder shared/anchors/{anchor} not found "
            "(searched upwards from here and from the package; set HOPSIM_ANCHORS to "
            "the anchors folder)"
        )
    return doc, str(folder), expected


def cpu_model() -> str:
    """The processor (model name, and on Linux its family, model and cache size, which tell
    apart CPU generations that share a model name in virtual machines) and the number of
    CPUs this process may use, so that figures from different machines are not mistaken
    for a change in speed."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor is enough
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or platform.machine() or "unknown"
    details = [
        f"{label} {fields[key]}"
        for key, label in (("cpu family", "family"), ("model", "model"), ("cache size", "cache"))
        if fields.get(key)
    ]
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 0
    return f"{name} ({', '.join([*details, f'{cpus} CPUs'])})"


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
    doc, base, expected = _load(name)
    return _measure(doc, base, expected)


def _cpu_seconds() -> float | None:
    """User and system CPU time of this process so far, every thread included."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def with_threads(
    doc: dict[str, Any], threads: int | None, partitions: int | None = None
) -> dict[str, Any]:
    """``doc`` run by ``threads`` threads of the parallel engine (``engine.threads``) and
    cut into ``partitions`` partitions (``engine.partitions``); the flow table, and so the
    recorded checksum, must not change."""
    engine = dict(doc.get("engine", {}))
    if threads is not None:
        engine["threads"] = threads
    if partitions is not None:
        engine["partitions"] = partitions
    return {**doc, "engine": engine} if engine else doc


def _measure(doc: dict[str, Any], base: str, expected: str | None) -> dict[str, Any]:
    payload = to_json(doc)
    cpu_before = _cpu_seconds()
    started = time.perf_counter()
    sim = _core.Simulation(payload, base)
    sim.run()
    wall = time.perf_counter() - started
    cpu_after = _cpu_seconds()
    summary = sim.summary()
    memory = sim.memory()
    events, hops = summary["events"], summary["packet_hops"]
    # Peak RSS of building and running the simulation, read before the flow table is
    # turned into Python objects for the checksum.
    peak_rss = _peak_rss_bytes()
    checksum = flow_checksum(sim.flows())
    return {
        "events": events,
        "events_per_sec": events / wall if wall > 0 else None,
        "packet_hops": hops,
        "packet_hops_per_sec": hops / wall if wall > 0 else None,
        "sim_seconds": summary["sim_time_ns"] / 1e9,
        "wall_seconds": wall,
        "cpu_seconds": None if cpu_before is None else cpu_after - cpu_before,
        "threads": doc.get("engine", {}).get("threads", 1),
        # With threads: partitions, windows, packets handed across, events per partition
        # and on the critical path (events / critical_events bounds the speed-up).
        "parallel": sim.parallel(),
        "peak_rss_bytes": peak_rss,
        "checksum": checksum,
        # Packet-store bytes over the most packets ever in flight (the store keeps its
        # peak size), and flow state per flow.
        "peak_packets_in_flight": memory["peak_packets_in_flight"],
        "bytes_per_packet_in_flight": memory["bytes_per_packet_in_flight"],
        "bytes_per_flow": memory["bytes_per_flow"],
        "expected_checksum": expected,
        "checksum_matches": None if expected is None else checksum == expected,
        "cpu": cpu_model(),
    }


def _format_report(name: str, report: dict[str, Any]) -> str:
    def cell(key: str, value: Any) -> str:
        if value is None:
            return "n/a"
        if key == "peak_rss_bytes":
            return f"{value / 2**20:,.1f} MiB"
        if key in ("sim_seconds", "wall_seconds", "cpu_seconds"):
            return f"{value:.6g}"
        if key == "parallel":
            return (
                f"{value['partitions']} partitions on {value['threads']} threads, "
                f"{value['windows']:,} windows of "
                f"{value['lookahead_ns']:,.0f} ns, {value['transfers']:,} packets across, "
                f"critical path {sum(value['events']) / max(value['critical_events'], 1):.2f}x"
            )
        if key == "checksum_matches":
            return {True: "yes", False: "NO: results changed"}[value]
        if key.startswith("bytes_per"):
            return f"{value:,.1f} B"
        if isinstance(value, float):
            return f"{value:,.0f}"
        if isinstance(value, int):
            return f"{value:,}"
        return str(value)

    lines = [f"{'benchmark':<28}{name}"]
    lines += [f"{key:<28}{cell(key, report[key])}" for key in REPORT_KEYS]
    return "\n".join(lines)


def main(
    name: str, as_json: bool = False, threads: int | None = None, partitions: int | None = None
) -> int:
    """``hopsim bench NAME [--threads N] [--partitions P]``: run it and print the report;
    returns the exit status."""
    try:
        doc, base, expected = _load(name)
        doc = with_threads(doc, threads, partitions)
    except BenchmarkSkipped as exc:
        if as_json:
            print(json.dumps({"skipped": f"{name}: {exc}"}))
        else:
            print(f"skipped {name}: {exc}")
        return 0
    if not as_json:
        print(f"running benchmark {name} ...", file=sys.stderr, flush=True)
    report = _measure(doc, base, expected)
    print(json.dumps(report) if as_json else _format_report(name, report))
    if report["checksum_matches"] is False:
        print(
            f"benchmark {name}: flow-table checksum {report['checksum']} differs from the "
            f"recorded {expected} (bench.checksum in {_path(name)}); the run's results "
            "changed. If that is intended, record the new checksum there.",
            file=sys.stderr,
        )
        return 1
    return 0


def main_many(
    names: list[str],
    as_json: bool = False,
    threads: int | None = None,
    partitions: int | None = None,
) -> int:
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
        if threads is not None:
            cmd += ["--threads", str(threads)]
        if partitions is not None:
            cmd += ["--partitions", str(partitions)]
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
