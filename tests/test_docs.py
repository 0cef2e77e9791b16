"""Outputs and the scenario reference are declared once: `docs/formats.md`'s generated
blocks are up to date, `Result`'s column types are the core's declarations, and the JSON
Schema `hopsim schema` prints describes every kind of every family and accepts every
scenario the project ships."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hopsim
from hopsim import _core, cli, docgen
from hopsim.results import _SCHEMA
from hopsim.scenario import loads_toml

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ROOT / "docs" / "formats.md"


def test_formats_md_generated_blocks_are_current():
    text = FORMATS.read_text(encoding="utf-8")
    assert "<!-- BEGIN GENERATED: outputs" in text
    assert "<!-- BEGIN GENERATED: scenario-reference" in text
    assert docgen.update(text) == text, "docs/formats.md is stale: run `python -m hopsim.docgen`"


def test_a_stale_block_is_detected(tmp_path):
    stale = tmp_path / "formats.md"
    block = "<!-- BEGIN GENERATED: outputs (x) -->\nold\n<!-- END GENERATED: outputs -->\n"
    stale.write_text(block, encoding="utf-8")
    assert docgen.main([str(stale), "--check"]) == 1
    assert docgen.main([str(stale)]) == 0
    assert docgen.main([str(stale), "--check"]) == 0
    assert "| `flow_id` | int64 |" in stale.read_text(encoding="utf-8")


def test_result_tables_have_the_declared_columns_and_types():
    r = hopsim.run(
        {
            "topology": {"kind": "dumbbell", "left_hosts": 2, "right_hosts": 1},
            "workload": {"kind": "flows", "flows": [{"src": 0, "dst": 2, "size": "100KB"}]},
            "output": {"pfc_events": True, "queues": {"interval": "1us"}},
        }
    )
    for name, file, _doc, _when, columns in _core.output_tables():
        assert file == f"{name}.parquet"
        df = getattr(r, name)
        assert list(df.columns) == [c for c, *_ in columns], name
        for column, dtype, _unit, doc in columns:
            # Text columns: pandas 3 infers its string dtype where older pandas keep object.
            allowed = {dtype, "str", "string"} if dtype == "object" else {dtype}
            assert str(df[column].dtype) in allowed, (name, column, df[column].dtype)
            assert doc, f"{name}.{column} has no meaning"
    assert set(_SCHEMA) == {t[0] for t in _core.output_tables()}
    summary_keys = [f for f, *_ in _core.summary_fields()]
    assert list(r.summary)[: len(summary_keys)] == summary_keys
    assert {f for f, *_ in docgen.PYTHON_SUMMARY} == set(r.summary) - set(summary_keys)


def _schema() -> dict:
    return json.loads(_core.scenario_schema())


def test_the_schema_names_every_kind_of_every_family():
    defs = _schema()["$defs"]

    def kinds(name: str) -> set[str]:
        return {v["properties"]["kind"]["const"] for v in defs[name]["oneOf"]}

    assert {"none", "pfc", "per_flow", "bfc", "pyrrha", "aquarius", "ofc"} <= kinds(
        "FlowControlSpec"
    )
    assert {"none", "dibs", "simple", "preemptive", "vertigo", "aifo"} <= kinds("DeflectionSpec")
    assert {"leaf_spine", "fat_tree", "dumbbell", "file"} == kinds("TopologySpec")
    routing = defs["RoutingSpec"]["properties"]
    assert set(routing["load_balancer"]["enum"]) >= {"ecmp", "drill", "letflow"}
    assert {"drill", "letflow"} <= set(routing)
    letflow = defs["LetflowSpec"]["properties"]
    assert letflow["flowlet_timeout"]["default"] == "100000000ps"
    assert "ConWeave" in letflow["flowlet_timeout"]["description"], "defaults cite their source"


def _shipped_scenarios() -> list[Path]:
    found = sorted((ROOT / "scenarios").rglob("*.toml"))
    found += sorted((ROOT / "python" / "hopsim" / "benchmarks").glob("*.toml"))
    return [p for p in found if "sweeps" not in p.parts]


@pytest.mark.parametrize("path", _shipped_scenarios(), ids=lambda p: p.name)
def test_every_shipped_scenario_satisfies_the_schema(path):
    jsonschema = pytest.importorskip("jsonschema")
    doc = loads_toml(path.read_text(encoding="utf-8"))
    doc.pop("bench", None)  # the benchmark's own record, not part of the scenario
    jsonschema.validate(doc, _schema())


def test_the_schema_refuses_what_the_parser_refuses():
    jsonschema = pytest.importorskip("jsonschema")
    base = {
        "topology": {"kind": "dumbbell", "left_hosts": 1, "right_hosts": 1},
        "workload": {"kind": "flows", "flows": [{"src": 0, "dst": 1, "size": 1000}]},
    }
    jsonschema.validate(base, _schema())
    for bad in (
        {"routing": {"load_balancer": "no_such_balancer"}},
        {"switch": {"flow_control": {"kind": "credit"}}},
        {"switch": {"flow_control": {"kind": "none", "alpha": 1}}},
        {"seeds": 3},
        {"duration": "10 parsecs"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**base, **bad}, _schema())
        with pytest.raises(hopsim.ScenarioError):
            hopsim.validate({**base, **bad})


def test_schema_command(tmp_path, capsys):
    assert cli.main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out)["properties"]["topology"]
    out = tmp_path / "s.json"
    assert cli.main(["schema", "-o", str(out)]) == 0
    assert cli.main(["schema", "-o", str(out)]) == 2, "an existing file is not overwritten"
    assert cli.main(["schema", "-o", str(out), "--force"]) == 0
