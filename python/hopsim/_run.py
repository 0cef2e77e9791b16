"""Running one scenario: `run` and `validate`, with a progress bar over simulated time."""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Mapping
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


class _Progress:
    """A tqdm bar over simulated time, created only once a run outlasts the delay."""

    def __init__(self, sim: Any, enabled: bool, started: float) -> None:
        self.enabled = enabled
        self.started = started
        self.bar: Any = None
        self.limit_ms = None if sim.limit_ns is None else sim.limit_ns / 1e6
        last_start = sim.last_flow_start_ns / 1e6
        # Without a time limit the run lasts at least until the last flow starts; the
        # bar then keeps counting while the network drains.
        self.total_ms = self.limit_ms if self.limit_ms is not None else (last_start or None)

    def update(self, now_ns: float) -> None:
        if not self.enabled:
            return
        now_ms = now_ns / 1e6
        if self.bar is None:
            if time.perf_counter() - self.started < _PROGRESS_DELAY_S:
                return
            from tqdm import tqdm

            self.bar = tqdm(
                total=self.total_ms,
                desc="hopsim",
                unit="sim ms",
                file=sys.stderr,
                dynamic_ncols=True,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.3f}/{total:.3f} sim ms "
                "[{elapsed}<{remaining}]"
                if self.total_ms
                else "{desc}: {n:.3f} sim ms [{elapsed}]",
            )
        if self.total_ms and now_ms > self.total_ms:
            self.bar.total = now_ms  # a run without time limit went past the last start
        self.bar.update(now_ms - self.bar.n)

    def finishing(self) -> None:
        """The last flows have started; the run continues in one step."""
        if self.bar is not None:
            self.bar.set_description_str("hopsim (finishing)")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _advance(sim: Any, progress: bool) -> None:
    """Run ``sim`` to the end, in chunks of simulated time while flows are still starting.

    The core gives identical results and final clock however a run is split (as long as
    the ``run_until`` targets never decrease). The bar's total is the last flow start (or
    the time limit); the drain after it, whose length is unknown in advance, runs in one
    ``run()`` call.
    """
    started = time.perf_counter()
    bar = _Progress(sim, progress, started)
    horizon = sim.last_flow_start_ns
    if sim.limit_ns is not None:
        horizon = min(horizon, sim.limit_ns)
    step = max(horizon / 1000, 1_000.0)  # ns of simulated time per chunk
    try:
        while not sim.is_done() and sim.now_ns < horizon:
            t0 = time.perf_counter()
            sim.run_until(min(sim.now_ns + step, horizon))
            spent = time.perf_counter() - t0
            if spent < _CHUNK_TARGET_S / 2:
                step *= 2
            elif spent > _CHUNK_TARGET_S * 2:
                step = max(step / 2, 1.0)
            bar.update(sim.now_ns)
        if not sim.is_done():
            bar.finishing()
            sim.run()
        bar.update(sim.now_ns)
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
        Show a progress bar over simulated time on stderr once the run has taken
        more than a second.

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
