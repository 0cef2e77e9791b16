"""Scenario loading: TOML files and text, --set overrides, syntax errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hopsim
from hopsim import ScenarioError
from hopsim.scenario import (
    absolute_paths,
    apply_overrides,
    load_scenario,
    load_toml,
    parse_override,
    to_json,
)

DATA = Path(__file__).parent / "data"

BASE = {
    "seed": 1,
    "topology": {"kind": "leaf_spine", "spines": 2, "leaves": 2, "hosts_per_leaf": 4},
    "switch": {"pfc": {"enabled": True}},
    "workload": [
        {"kind": "poisson", "size_dist": "websearch", "load": 0.5, "stop": "1ms"},
        {"kind": "incast", "receiver": 0, "fan_in": 4, "size_min": 1000, "size_max": 1000},
    ],
}


@pytest.mark.parametrize(
    ("text", "keys", "value"),
    [
        ("switch.pfc.enabled=false", ["switch", "pfc", "enabled"], False),
        ("seed=3", ["seed"], 3),
        ("workload.0.load=0.3", ["workload", "0", "load"], 0.3),
        ('transport.cc="none"', ["transport", "cc"], "none"),
        ("transport.cc=none", ["transport", "cc"], "none"),
        ("topology.host_rate=25Gbps", ["topology", "host_rate"], "25Gbps"),
        ("workload.0.exclude_dst=[0, 1]", ["workload", "0", "exclude_dst"], [0, 1]),
        (" name = my run ", ["name"], "my run"),
    ],
)
def test_parse_override(text, keys, value):
    assert parse_override(text) == (keys, value)


@pytest.mark.parametrize("text", ["seed", "=3", "switch..pfc=1", ".seed=1"])
def test_parse_override_rejects_bad_syntax(text):
    with pytest.raises(ScenarioError, match="expected KEY=VALUE"):
        parse_override(text)


def test_apply_overrides_sets_nested_fields_and_indexes_arrays():
    doc = apply_overrides(
        BASE,
        ["switch.pfc.enabled=false", "workload.0.load=0.3", "transport.cc=none", "seed=7"],
    )
    assert doc["switch"]["pfc"]["enabled"] is False
    assert doc["workload"][0]["load"] == 0.3
    assert doc["transport"] == {"cc": "none"}  # missing tables are created
    assert doc["seed"] == 7
    # The input is left untouched.
    assert BASE["switch"]["pfc"]["enabled"] is True
    assert BASE["workload"][0]["load"] == 0.5


def test_apply_overrides_accepts_a_mapping_of_python_values():
    doc = apply_overrides(BASE, {"seed": 9, "workload.1.fan_in": 8})
    assert doc["seed"] == 9
    assert doc["workload"][1]["fan_in"] == 8


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("workload.5.load=0.3", "out of range"),
        ("workload.first.load=0.3", "expected an index"),
        ("seed.value=3", "not a table"),
        ("topology.0.kind=x", "not an array of tables"),
    ],
)
def test_apply_overrides_errors_name_the_override(override, message):
    with pytest.raises(ScenarioError, match=message) as info:
        apply_overrides(BASE, [override])
    assert str(info.value).startswith(f"overrides {override}")


def test_load_toml_syntax_error_names_file_and_line(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\nseed = = 3\n')
    with pytest.raises(ScenarioError) as info:
        load_toml(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: ")
    assert "\n" not in message


def test_load_scenario_from_file_text_and_dict():
    doc, base = load_scenario(DATA / "small.toml", ["seed=5"])
    assert doc["seed"] == 5 and doc["name"] == "small"
    assert Path(base) == DATA

    text = (DATA / "small.toml").read_text()
    doc2, base2 = load_scenario(text)
    assert doc2["seed"] == 1 and base2 == "."

    doc3, base3 = load_scenario(BASE, {"seed": 2}, base_dir="/somewhere")
    assert doc3["seed"] == 2 and base3 == "/somewhere"


def test_load_scenario_missing_file():
    with pytest.raises(FileNotFoundError):
        load_scenario(DATA / "no_such_scenario.toml")


def test_absolute_paths_and_json():
    doc, base = load_scenario(DATA / "star.toml")
    resolved = absolute_paths(doc, base)
    assert resolved["topology"]["file"] == str((DATA / "star_topology.txt").resolve())
    assert resolved["workload"]["file"] == str((DATA / "star_flows.txt").resolve())
    assert doc["topology"]["file"] == "star_topology.txt"
    assert json.loads(to_json(resolved)) == resolved


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("transport.mtu=65500", "transport.mtu"),
        ("transport.ack_bytes=65536", "transport.ack_bytes"),
    ],
)
def test_packets_larger_than_16_bit_wire_sizes_are_refused(override, field):
    with pytest.raises(ScenarioError, match=f"{field}: expected .*65,5"):
        hopsim.validate(Path(__file__).parent / "data" / "small.toml", overrides=[override])
    hopsim.validate(
        Path(__file__).parent / "data" / "small.toml", overrides=["transport.mtu=9000"]
    )  # jumbo frames are fine
