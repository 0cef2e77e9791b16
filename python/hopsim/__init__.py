"""hopsim: a fast, deterministic packet-level simulator of datacenter networks.

>>> import hopsim
>>> result = hopsim.run("scenarios/quickstart.toml", overrides=["seed=2"])
>>> result.flows.head()
>>> print(result.describe())
"""

from typing import Any as _Any

from hopsim import _core
from hopsim._core import InternalError, ScenarioError
from hopsim._run import run, validate
from hopsim.results import Result
from hopsim.scenario import UNSET, ScenarioWarning

__version__: str = _core.__version__

__all__ = [
    "UNSET",
    "InternalError",
    "Result",
    "ScenarioError",
    "ScenarioWarning",
    "__version__",
    "run",
    "sweep",
    "validate",
]


def __getattr__(name: str) -> _Any:
    # `hopsim.sweep` imports pandas: loaded when first used (PEP 562).
    if name == "sweep":
        import importlib

        return importlib.import_module("hopsim.sweep")
    raise AttributeError(f"module 'hopsim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"sweep"})
