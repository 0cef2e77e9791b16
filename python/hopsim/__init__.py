"""hopsim: a fast, deterministic packet-level simulator of datacenter networks.

>>> import hopsim
>>> result = hopsim.run("scenarios/quickstart.toml", overrides=["seed=2"])
>>> result.flows.head()
>>> print(result.describe())
"""

from hopsim import _core, sweep
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
