"""Traps a new user fell into (issue 27, item 5): settings written where they have no
effect are refused naming the field, a percentage gets a hint, an incast with more flows
than senders says so, and errors are `hopsim.ScenarioError`."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest

import hopsim
from hopsim.cli import main

DATA = Path(__file__).parent / "data"
SMALL = DATA / "small.toml"
ROOT = Path(__file__).parent.parent


def refused(overrides: dict, scenario: Path = SMALL) -> str:
    with pytest.raises(hopsim.ScenarioError) as exc:
        hopsim.validate(scenario, overrides=overrides)
    return str(exc.value)


def test_a_tcp_table_under_roce_is_refused():
    e = refused({"transport.tcp.sack": True})
    assert e.startswith("transport.tcp: configures the TCP transport"), e
    assert 'set transport.kind = "tcp"' in e
    # A TCP scenario switched to RoCE by name (the deflection paper's RoCE variants) keeps it.
    hopsim.validate(SMALL, overrides={"transport.kind": "roce", "transport.tcp.sack": True})
    # Under TCP it is read.
    hopsim.validate(
        SMALL,
        overrides={
            "transport.kind": "tcp",
            "transport.cc": "dctcp",
            "transport.tcp.sack": True,
            "switch.pfc.enabled": False,
        },
    )


def test_pfc_enabled_beside_another_flow_control_is_refused():
    e = refused({"switch.pfc.enabled": True, "switch.flow_control.kind": "pyrrha"})
    assert e.startswith("switch.pfc.enabled: true asks for PFC"), e
    assert 'switch.flow_control.kind = "pyrrha" runs instead' in e
    # The quick start takes PFC by default: swapping in another flow control just works,
    # asking for both is refused.
    quickstart = str(ROOT / "scenarios" / "quickstart.toml")
    assert main(["validate", quickstart, "--set", "switch.flow_control.kind=pyrrha"]) == 0
    both = ["--set", "switch.pfc.enabled=true", "--set", "switch.flow_control.kind=bfc"]
    assert main(["validate", quickstart, *both]) != 0
    # Off beside Pyrrha, or PFC's table of a PFC baseline with Pyrrha swapped in, is fine.
    hopsim.validate(
        SMALL, overrides={"switch.pfc.enabled": False, "switch.flow_control.kind": "pyrrha"}
    )
    hopsim.validate(
        ROOT / "scenarios" / "pyrrha" / "fattree_k8.toml",
        overrides={"switch.flow_control.kind": "pyrrha"},
    )


def test_pfc_off_is_one_way_on_every_scenario():
    """switch.pfc.enabled = false turns PFC off whether or not the scenario names PFC in
    [switch.flow_control] (it was refused there, so the README's way failed)."""
    off = {"switch.pfc.enabled": False, "duration": "50us"}
    named = hopsim.run(SMALL, overrides={**off, "switch.flow_control.kind": "pfc"})
    plain = hopsim.run(SMALL, overrides=off)
    assert named.summary["flow_control"] == plain.summary["flow_control"] == "none"
    assert named.checksum() == plain.checksum()
    assert named.summary["pfc_pause_frames"] == 0


def test_a_percentage_gets_a_hint(tmp_path, capsys):
    text = SMALL.read_text().replace("load = 0.5", "load = 60%")
    path = tmp_path / "pct.toml"
    path.write_text(text)
    assert main(["validate", str(path)]) != 0
    err = capsys.readouterr().err
    assert "write a share as a fraction: 0.6 for 60%" in err, err
    assert main(["validate", str(SMALL), "--set", "workload.0.load=60%"]) != 0
    err = capsys.readouterr().err
    assert "--set workload.0.load=60%: a percentage; write a share as a fraction: 0.6" in err, err


def test_an_incast_with_more_flows_than_senders_says_so():
    with pytest.warns(hopsim.ScenarioWarning):
        r = hopsim.run(SMALL, overrides={"workload.1.fan_in": 20, "duration": "20us"})
    text = r.describe()
    assert "incast 20-to-1 every 50us from only 7 senders (fan_in 20 > 7" in text, text
    plain = hopsim.run(SMALL, overrides={"duration": "20us"})
    assert "from only" not in plain.describe()


def test_scenario_errors_are_the_public_class():
    with pytest.raises(hopsim.ScenarioError) as exc:
        hopsim.run({"seed": "x"})
    cls = type(exc.value)
    assert cls is hopsim.ScenarioError and issubclass(cls, ValueError)
    assert (cls.__module__, cls.__qualname__) == ("hopsim", "ScenarioError")
    shown = "".join(traceback.format_exception_only(cls, exc.value))
    assert shown.startswith("hopsim.ScenarioError: seed:"), shown
    assert "_core" not in shown and "Hopsim" not in shown
    assert hopsim.InternalError.__module__ == "hopsim"


def test_run_reports_scenario_errors_before_an_occupied_output_directory(tmp_path, capsys):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    code = main(["run", str(SMALL), "-o", str(out), "--set", "seed=-1"])
    err = capsys.readouterr().err
    assert code != 0 and "seed:" in err and "mine" not in err, err
    code = main(["run", str(SMALL), "-o", str(out), "--set", "duration=10us"])
    assert code != 0 and "not empty" in capsys.readouterr().err


def test_reordering_with_go_back_n_is_pointed_out():
    drill = {"routing.load_balancer": "drill", "duration": "200us"}
    with pytest.warns(hopsim.ScenarioWarning):
        r = hopsim.run(SMALL, overrides=drill)
    assert r.summary["reordering_ratio"] > 0 and r.summary["retransmitted_bytes"] > 0
    text = r.describe()
    assert "arrived out of order and go-back-N" in text, text
    assert 'transport.loss_recovery = "irn"' in text
    irn = hopsim.run(SMALL, overrides={**drill, "transport.loss_recovery": "irn"})
    assert "go-back-N" not in irn.describe()
    ecmp = hopsim.run(SMALL, overrides={"duration": "200us"})
    assert "out of order" not in ecmp.describe()


def test_unset_removes_a_table_so_another_choice_can_be_made(tmp_path, capsys):
    drill = tmp_path / "drill.toml"
    drill.write_text(
        SMALL.read_text() + '\n[routing]\nload_balancer = "drill"\n[routing.drill]\nsamples = 2\n'
    )
    assert main(["validate", str(drill), "--set", "routing.load_balancer=ecmp"]) != 0
    err = capsys.readouterr().err
    assert "--unset routing.drill" in err, err  # the error says how
    argv = [
        "validate",
        str(drill),
        "--unset",
        "routing.drill",
        "--set",
        "routing.load_balancer=ecmp",
    ]
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    # A typo is not silently ignored.
    assert main(["validate", str(drill), "--unset", "routing.dril"]) != 0
    assert "--unset routing.dril: the scenario has no routing.dril" in capsys.readouterr().err
    # The Python API: hopsim.UNSET; an array entry is removed too.
    r = hopsim.run(
        drill,
        overrides={
            "routing.drill": hopsim.UNSET,
            "routing.load_balancer": "ecmp",
            "workload.1": hopsim.UNSET,
            "duration": "20us",
        },
    )
    assert r.summary["load_balancer"] == "ecmp"
    assert set(r.flows["tag"].astype(str)) == {"poisson"}
    with pytest.raises(hopsim.ScenarioError, match=r"overrides seed=hopsim.UNSET"):
        hopsim.validate({"topology": {}}, overrides={"seed": hopsim.UNSET})


@pytest.mark.parametrize(
    "overrides, expected",
    [
        (
            {"switch.flow_control.kind": "pfc", "switch.flow_control.alpha": 0.3},
            "switch.flow_control.alpha: unknown field `alpha`, there are no fields; `alpha` is "
            "PFC's setting: set it as switch.pfc.alpha",
        ),
        (
            {"switch.ecn.kmin": "2MB"},
            "switch.ecn: kmin (2,000,000 B) is above kmax (1,600,000 B)",
        ),
        (
            {"switch.pfc.resume_offset_bytes": "600KB"},
            "switch.pfc.resume_offset_bytes: expected less than switch.buffer_bytes (500,000 B)",
        ),
        ({"switch.queues": 300}, "switch.queues: expected 1 to 64 traffic classes, got 300"),
        (
            {"output.queues.interval": "1ps"},
            "output.queues.interval: 300,000,001 samples of 24 ports would be 7,200,000,024 rows",
        ),
        ({"output.throughput.interval": "1ps"}, "output.throughput.interval: 300,000,001 samples"),
    ],
)
def test_extreme_settings_are_refused_naming_the_field(overrides, expected):
    """Each ended in an internal error, a runaway allocation, or a message blaming
    another field."""
    e = refused(overrides)
    assert e.startswith(expected), e
    assert "internal error" not in e


def test_traps_are_warned_before_the_run(tmp_path, capsys):
    """A reordering load balancer under go-back-N and an incast with more flows a round
    than senders are valid, but warned about before the run (hopsim.ScenarioWarning;
    'hopsim: warning:' on the command line) and kept in the summary's notes."""
    drill = {"routing.load_balancer": "drill", "duration": "20us"}
    with pytest.warns(hopsim.ScenarioWarning, match=r'routing.load_balancer = "drill" sends'):
        r = hopsim.run(SMALL, overrides=drill)
    assert any("go_back_n" in note for _, note in r.summary["notes"])
    with pytest.warns(hopsim.ScenarioWarning, match=r"workload\[1\].fan_in = 20 exceeds the 7"):
        hopsim.run(SMALL, overrides={"workload.1.fan_in": 20, "duration": "20us"})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", hopsim.ScenarioWarning)
        hopsim.run(SMALL, overrides={**drill, "transport.loss_recovery": "irn"})
        hopsim.run(SMALL, overrides={"workload.1.fan_in": 7, "duration": "20us"})
    argv = ["run", str(SMALL), "-o", str(tmp_path / "o"), "-q"]
    assert main([*argv, "--set", "routing.load_balancer=drill", "--set", "duration=20us"]) == 0
    assert 'hopsim: warning: routing.load_balancer = "drill"' in capsys.readouterr().err
