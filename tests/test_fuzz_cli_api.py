"""Fuzzing the command line and the Python API (issue 27, traps): any argument list made of
the commands, options and values a user might type — valid, misplaced, missing or garbage —
ends with an exit status and at most a one-line ``hopsim: error:`` (or argparse's usage
error), never a traceback; any value passed to `hopsim.run` / `hopsim.validate` is accepted or
refused with `ScenarioError`, `TypeError` or (a string naming no file) `FileNotFoundError`, as
documented, never another exception. The inputs are tiny so
that the runs the fuzzer happens to make valid take milliseconds. (Scenario fields and input
files are fuzzed in `test_properties.py`; extreme values in `test_extreme_values.py`.)"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hopsim
from hopsim import ScenarioError
from hopsim.cli import main

TINY = """
[topology]
kind = "dumbbell"
left_hosts = 2
right_hosts = 1
[workload]
kind = "flows"
flows = [{ src = 0, dst = 2, size = "4KB" }, { src = 1, dst = 2, size = "2KB" }]
[output]
control_frames = true
"""

#: Commands that finish in milliseconds on the tiny inputs (never `reproduce PAPER`,
#: `bench` or `sweep`, which run real experiments; `reproduce --list` is cheap).
COMMANDS = [
    "run", "validate", "plot", "report", "view", "export", "compare-ns3", "schema",
    "workloads", "scenarios", "reproduce",
]  # fmt: skip
OPTIONS = [
    "-o", "--set", "--unset", "--force", "-q", "--quiet", "--label", "--kind", "--metric",
    "--format", "--frames", "--list", "--reference", "--tolerance", "-j", "copy", "list",
]  # fmt: skip
VALUES = [
    "", "-", "0", "-1", "1e309", "nan", "x" * 300, "é", "\x00", "seed=2", "seed=-1",
    "switch.pfc.enabled=false", "topology.k", "topology=1", "a.b.c=", "=", "60%",
    "md", "html", "hpcc-fct", "all", "pauses", "fct", "slowdown", "quickstart.toml",
]  # fmt: skip


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """Paths the fuzzer may name: a valid scenario, a broken one, a finished run, a folder
    that is not a run, a missing path, and fresh output places (each call gets its own)."""
    base = tmp_path_factory.mktemp("fuzz")
    (base / "tiny.toml").write_text(TINY)
    (base / "broken.toml").write_text("[topology]\nkind = 'nope'\n[[workload]\n")
    (base / "empty").mkdir()
    assert main(["run", str(base / "tiny.toml"), "-o", str(base / "run"), "-q"]) == 0
    return base


def _paths(base: Path) -> list[str]:
    return [
        str(base / "tiny.toml"),
        str(base / "broken.toml"),
        str(base / "run"),
        str(base / "empty"),
        str(base / "missing"),
        str(base / "missing" / "deeper.toml"),
    ]


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_command_line_ends_with_a_status_never_a_traceback(places, data):
    out = places / f"out{data.draw(st.integers(0, 10**9), label='out')}"
    token = st.one_of(
        st.sampled_from(OPTIONS),
        st.sampled_from(VALUES),
        st.sampled_from(_paths(places) + [str(out), str(out) + ".html"]),
    )
    # Mostly well-formed: a command, its input(s), then options with a value each; and
    # sometimes any tokens at all.
    paths = st.sampled_from(_paths(places))
    argv = [data.draw(st.sampled_from(COMMANDS), label="command")]
    argv += data.draw(st.lists(paths, min_size=0, max_size=2), label="inputs")
    pairs = data.draw(
        st.lists(st.tuples(st.sampled_from(OPTIONS), token), max_size=3), label="opts"
    )
    argv += [t for pair in pairs for t in pair]
    if data.draw(st.booleans(), label="output"):
        argv += ["-o", str(out)]
    argv += data.draw(st.lists(token, max_size=2), label="extra")
    if argv[0] == "reproduce" and "--list" not in argv:
        argv.append("--list")  # never a real reproduction
    err = io.StringIO()
    # Default output places (view.html, runs/…) are relative: keep them out of the checkout.
    here = os.getcwd()
    os.chdir(places)
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse: usage errors exit 2, --help 0
                status = exc.code
            finally:
                os.chdir(here)
    assert status in (0, 1, 2), (argv, status, err.getvalue())
    text = err.getvalue()
    assert "Traceback" not in text, (argv, text)
    errors = [line for line in text.splitlines() if "error:" in line]
    assert len(errors) <= 1, (argv, text)
    if status == 2 and "usage:" not in text:
        assert errors and errors[0].startswith("hopsim: error: "), (argv, text)


_ANY = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.binary(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(scenario=_ANY, overrides=_ANY, progress=_ANY)
def test_any_api_call_is_run_or_refused_with_a_scenario_or_type_error(
    scenario, overrides, progress
):
    for call in (hopsim.validate, hopsim.run):
        kwargs = {"overrides": overrides}
        if call is hopsim.run:
            kwargs["progress"] = progress
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                call(scenario, **kwargs)
            except (ScenarioError, TypeError, FileNotFoundError):
                pass  # FileNotFoundError: a string that is neither TOML nor a file (documented)
