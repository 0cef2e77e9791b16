"""Running one scenario: `run` and `validate`, with a progress bar over the workload."""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopsim import _core
from hopsim.results import Result
from hopsim.scenario import (
    Overrides,
    ScenarioSource,
    ScenarioWarning,
    absolute_paths,
    core_json,
    load_scenario,
)

__all__ = ["run", "validate"]

# The progress bar appears only for runs that take longer than this (wall seconds).
_PROGRESS_DELAY_S = 1.0
# Aim for chunks of simulated time that take about this long (wall seconds), so the bar
# moves smoothly and Ctrl-C is honoured between chunks.
_CHUNK_TARGET_S = 0.1
# The bar redraws at most this often (wall seconds).
_REFRESH_S = 0.1


def _scenario_name(scenario: Mapping[str, Any], source: Any) -> str:
    name = scenario.get("name")
    if isinstance(name, str) and name:
        return name
    if isinstance(source, (str, os.PathLike)) and "\n" not in str(source):
        return Path(source).stem
    return "scenario"


def validate(
    scenario: ScenarioSource,
    *,
    overrides: Overrides | None = None,
    base_dir: str | os.PathLike[str] | None = None,
) -> None:
    """Check a scenario (and its input files) without running it.

    Raises `ScenarioError` naming the offending field or ``file:line``.
    """
    doc, base = load_scenario(scenario, overrides, base_dir)
    with core_json(doc, base) as text:
        _core.validate(text, base)


def _bytes(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


def _seconds(s: float) -> str:
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


@dataclass(frozen=True)
class _Work:
    """Where a run stands: the workload done against its total, and simulated time."""

    flows_total: int
    flows_finished: int
    bytes_total: int
    bytes_acked: int
    now_ns: float
    limit_ns: float | None
    last_start_ns: float

    @property
    def fraction(self) -> float:
        """The share of the run done: bytes delivered against the workload's, or the
        simulated time against the time limit when that is further (the run ends at
        whichever comes first)."""
        if self.bytes_total > 0:
            done = self.bytes_acked / self.bytes_total
        elif self.flows_total > 0:
            done = self.flows_finished / self.flows_total
        else:
            done = 0.0
        if self.limit_ns:
            done = max(done, self.now_ns / self.limit_ns)
        return min(max(done, 0.0), 1.0)

    @property
    def draining(self) -> bool:
        """Every flow has started: what is left is the network delivering what it holds."""
        return self.now_ns >= self.last_start_ns and self.flows_finished < self.flows_total

    def text(self) -> str:
        sim = f"sim {self.now_ns / 1e6:.3f} ms"
        if self.limit_ns:
            sim = f"sim {self.now_ns / 1e6:.3f} of {self.limit_ns / 1e6:g} ms"
        return (
            f"{self.flows_finished:,}/{self.flows_total:,} flows, "
            f"{_bytes(self.bytes_acked)}/{_bytes(self.bytes_total)} delivered, {sim}"
        )


def _work(sim: Any, limit_ns: float | None, last_start_ns: float) -> _Work:
    w = sim.work_done()
    return _Work(
        w["flows_total"],
        w["flows_finished"],
        w["bytes_total"],
        w["bytes_acked"],
        sim.now_ns,
        limit_ns,
        last_start_ns,
    )


class _Eta:
    """Time left, only when it means something: estimated from the recent pace of work
    (the last third of the run so far) and from the pace over the whole run, shown once
    the run has taken a few seconds and done 2 % of its work, and only while the two
    agree within a factor of 2 (a run whose pace swings gets no ETA rather than a wrong
    one)."""

    MIN_WALL_S = 3.0
    MIN_FRACTION = 0.02

    def __init__(self) -> None:
        self.history: list[tuple[float, float]] = []  # (wall seconds, fraction)

    def add(self, wall: float, fraction: float) -> None:
        self.history.append((wall, fraction))

    def left(self) -> float | None:
        if not self.history:
            return None
        wall, done = self.history[-1]
        if wall < self.MIN_WALL_S or done < self.MIN_FRACTION or done >= 1.0:
            return None
        overall = wall * (1 - done) / done
        since = wall * 2 / 3
        w0, f0 = next(((w, f) for w, f in self.history if w >= since), self.history[-1])
        if wall - w0 <= 0 or done <= f0:
            return None
        recent = (wall - w0) * (1 - done) / (done - f0)
        if max(recent, overall) > 2 * min(recent, overall):
            return None
        return recent


class _Progress:
    """A tqdm bar over the workload (bytes delivered against the total, or simulated time
    against the time limit when further), with flows finished, bytes and simulated time
    beside it, the drain phase shown, and an ETA only when it means something. Created
    only once a run outlasts the delay."""

    def __init__(self, sim: Any, enabled: bool, started: float, file: Any = None) -> None:
        self.sim = sim
        self.enabled = enabled
        self.started = started
        self.file = file if file is not None else sys.stderr
        self.bar: Any = None
        self.limit_ns = sim.limit_ns
        self.last_start_ns = sim.last_flow_start_ns
        self.eta = _Eta()
        self.phase = ""

    def update(self, done: bool = False) -> None:
        if not self.enabled:
            return
        wall = time.perf_counter() - self.started
        if self.bar is None:
            if wall < _PROGRESS_DELAY_S:
                return
            from tqdm import tqdm

            self.bar = tqdm(
                total=1000,
                desc="hopsim",
                file=self.file,
                dynamic_ncols=True,
                mininterval=_REFRESH_S,
                # tqdm puts ", " before the postfix: "| 00:03, 12/40 flows, ..."
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}{postfix}",
            )
        work = _work(self.sim, self.limit_ns, self.last_start_ns)
        fraction = 1.0 if done else work.fraction
        self.eta.add(wall, fraction)
        if done:
            unfinished = work.flows_finished < work.flows_total
            phase = "time limit" if unfinished and self.limit_ns else "done"
        else:
            phase = "draining" if work.draining else ""
        if phase != self.phase:
            self.phase = phase
            self.bar.set_description_str(f"hopsim ({phase})" if phase else "hopsim", refresh=False)
        left = None if done else self.eta.left()
        postfix = work.text() + (f", ~{_seconds(left)} left" if left is not None else "")
        self.bar.set_postfix_str(postfix, refresh=False)
        self.bar.update(round(fraction * 1000) - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _advance(sim: Any, progress: bool, file: Any = None) -> None:
    """Run ``sim`` to the end in chunks of simulated time of about `_CHUNK_TARGET_S` wall
    seconds each, the drain after the last flow start included, so the bar moves
    throughout and Ctrl-C is honoured between chunks.

    The core gives identical results and final clock however a run is split (as long as
    the ``run_until`` targets never decrease; a target past the last event does not move
    the clock).
    """
    started = time.perf_counter()
    bar = _Progress(sim, progress, started, file)
    horizon = sim.last_flow_start_ns
    if sim.limit_ns is not None:
        horizon = min(horizon, sim.limit_ns)
    step = max(horizon / 1000, 1_000.0)  # ns of simulated time per chunk
    target = 0.0
    try:
        while not sim.is_done():
            t0 = time.perf_counter()
            target = max(target, sim.now_ns) + step
            sim.run_until(target)
            spent = time.perf_counter() - t0
            if spent < _CHUNK_TARGET_S / 2:
                step *= 2
            elif spent > _CHUNK_TARGET_S * 2:
                step = max(step / 2, 1.0)
            bar.update()
        # Nothing left before the limit: one last call moves the clock to the limit when
        # events lie beyond it, as one uninterrupted run() does.
        sim.run()
        bar.update(done=True)
    finally:
        bar.close()


def run(
    scenario: ScenarioSource,
    *,
    overrides: Overrides | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    progress: bool = False,
) -> Result:
    """Run one simulation and return its `Result`.

    Parameters
    ----------
    scenario
        A TOML file path, TOML text, or a dict with the same structure.
    overrides
        ``["switch.pfc.enabled=false", "seed=3"]`` (values read as TOML), pairs
        ``[("seed", 3)]`` or a mapping ``{"seed": 3}``; indices select array entries
        (``workload.0.load``).
    base_dir
        Folder that relative input files are resolved against; defaults to the
        scenario file's folder (or the current directory for text and dicts).
    progress
        Show a progress bar on stderr once the run has taken more than a second: the
        share of the workload's bytes delivered (or of the time limit, when further),
        flows finished, bytes delivered and simulated time beside it, "(draining)"
        once every flow has started, and an ETA only while the pace is steady.

    Raises `ScenarioError` (a `ValueError`) naming the field or ``file:line`` at fault.
    """
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    doc, base = load_scenario(scenario, overrides, base_dir)
    started = time.perf_counter()
    with core_json(doc, base) as text:
        sim = _core.Simulation(text, base)
    for _topic, note in sim.notes():
        warnings.warn(note, ScenarioWarning, stacklevel=2)
    _advance(sim, progress)
    wall = time.perf_counter() - started
    return Result.from_simulation(
        sim,
        absolute_paths(doc, base),
        wall_seconds=wall,
        scenario_name=_scenario_name(doc, scenario),
        version=_core.__version__,
    )
