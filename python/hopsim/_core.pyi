"""Type stubs of the compiled core (crates/hopsim-py)."""

from typing import Any

__version__: str

class ScenarioError(ValueError):
    """A scenario field or input file is invalid; the message names the field path
    (``switch.pfc.alpha: ...``) or the file line (``fat.txt:12: ...``)."""

class Simulation:
    """One simulation run, advanced in steps of simulated time."""

    def __init__(self, scenario_json: str, base_dir: str) -> None: ...
    def run_until(self, t_ns: float) -> None:
        """Advance to simulated time ``t_ns`` (capped at the scenario duration)."""
    def run(self) -> None:
        """Run to the end."""
    def is_done(self) -> bool: ...
    @property
    def now_ns(self) -> float: ...
    @property
    def limit_ns(self) -> float | None:
        """The time limit, or None when the run goes until nothing is left."""
    @property
    def events(self) -> int: ...
    @property
    def last_flow_start_ns(self) -> float: ...
    def flows(self) -> dict[str, list[Any]]: ...
    def ports(self) -> dict[str, list[Any]]: ...
    def pfc_events(self) -> dict[str, list[Any]]: ...
    def rate_trace(self) -> dict[str, list[Any]]: ...
    def summary(self) -> dict[str, Any]: ...

def validate(scenario_json: str, base_dir: str) -> None:
    """Check a scenario without running it; raises `ScenarioError`."""

def builtin_workloads() -> list[tuple[str, float, list[tuple[float, float]]]]:
    """Built-in flow-size distributions: ``(name, mean_bytes, [(quantile, size_bytes)])``."""
