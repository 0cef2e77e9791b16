"""The generated parts of ``docs/formats.md``: the output tables and the run summary (from
the core's declarations, ``hopsim_core::tables``) and the scenario reference (from the JSON
Schema ``hopsim schema`` prints).

``python -m hopsim.docgen`` rewrites the generated blocks of ``docs/formats.md`` in place;
``python -m hopsim.docgen --check`` exits 1 when they are stale (``tests/test_docs.py`` runs
the check). A generated block sits between ``<!-- BEGIN GENERATED: NAME -->`` and
``<!-- END GENERATED: NAME -->``; everything outside the blocks is written by hand.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from hopsim import _core

__all__ = ["render_outputs", "render_scenario", "update", "BLOCKS"]

#: Summary fields the Python package adds to the core's (see `Result.from_simulation`).
PYTHON_SUMMARY: tuple[tuple[str, str, str, str], ...] = (
    ("wall_seconds", "float", "s", "wall-clock time of the run"),
    ("events_per_sec", "float", "1/s", "events simulated per wall-clock second"),
    (
        "parallel",
        "object",
        "",
        "with `engine.threads > 1` (else null): `threads`, `lookahead_ns`, `windows`, `transfers` "
        "(packets handed between partitions), per partition `events`, `nodes`, `hosts`, `busy_s`, "
        "`waiting_s`, and `critical_events` (docs/parallel.md)",
    ),
    ("scenario_name", "string", "", "the scenario's `name`"),
    ("hopsim_version", "string", "", "the version that ran it"),
    ("flows_unfinished", "int", "", "`flows_total - flows_finished`"),
    ("status", "string", "", "`complete` when every flow finished, else `incomplete`"),
    (
        "setup",
        "object",
        "",
        "what ran, from the scenario with every default filled in: `topology`, `hosts`, "
        "`switches`, `host_rate`, `fabric_rate` (of the switch-to-switch links), `transport`, "
        "`cc`, `loss_recovery`, `flow_control`, `deflection`, `ack_queue`, `load_balancer`, "
        "`buffer_bytes`, `admission` (the admission kind), "
        "`workloads`, `offered_load` (bytes offered over the arrival window, as a share of the "
        "host links' capacity) and `duration_ns`",
    ),
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_outputs() -> str:
    """Markdown for every output table and the run summary."""
    out = []
    for _name, file, doc, when, columns in _core.output_tables():
        written = "every run" if when == "always" else f"with {when}"
        out.append(f"### `{file}`\n\n{doc[0].upper()}{doc[1:]}; written {written}.\n")
        out.append("| column | type | unit | meaning |\n|---|---|---|---|")
        for col, dtype, unit, meaning in columns:
            out.append(f"| `{col}` | {dtype} | {unit} | {_cell(meaning)} |")
        out.append("")
    out.append(
        "### `summary.json`\n\nRun-wide figures (`Result.summary`; the core's fields, then "
        "those the Python package adds).\n"
    )
    out.append("| field | type | unit | meaning |\n|---|---|---|---|")
    for field, kind, unit, meaning in [*_core.summary_fields(), *PYTHON_SUMMARY]:
        out.append(f"| `{field}` | {_cell(kind)} | {unit} | {_cell(meaning)} |")
    out.append("")
    return "\n".join(out)


def _type_of(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "enum" in schema:
        return " \\| ".join(f'`"{v}"`' for v in schema["enum"])
    if "const" in schema:
        return f'`"{schema["const"]}"`'
    for key in ("oneOf", "anyOf"):
        if key in schema:
            parts = [_type_of(s, defs) for s in schema[key]]
            return " or ".join(p for p in parts if p != "null") or "null"
    t = schema.get("type")
    if isinstance(t, list):
        return " or ".join(x for x in t if x != "null")
    if t == "array":
        return f"list of {_type_of(schema.get('items', {}), defs)}"
    return t or "any"


_UNITS = {
    "ps": ((1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns"), (1, "ps")),
    "bps": ((1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "Kbps"), (1, "bps")),
}


def _human(value: str) -> str:
    """``"1000000ps"`` -> ``"1us"``, ``"20000000bps"`` -> ``"20Mbps"`` (how the core writes
    durations and rates, shown in the largest unit that keeps a whole number)."""
    m = re.fullmatch(r"(\d+)(ps|bps)", value)
    if m is None:
        return value
    n = int(m[1])
    for scale, unit in _UNITS[m[2]]:
        if n >= scale and n % int(scale) == 0:
            return f"{n // int(scale)}{unit}"
    return value


def _default(schema: dict[str, Any]) -> str:
    if "default" not in schema:
        return ""
    v = schema["default"]
    if isinstance(v, str):
        return f'`"{_human(v)}"`'
    if isinstance(v, bool):
        return f"`{str(v).lower()}`"
    if v is None:
        return "none"
    if isinstance(v, (dict, list)):
        text = json.dumps(v)
        return "(table)" if len(text) > 48 else f"`{text}`"
    return f"`{v}`"


def render_scenario() -> str:
    """Markdown of every scenario table and field, from the JSON Schema."""
    schema = json.loads(_core.scenario_schema())
    defs = schema.get("$defs", {})
    out = []

    def table(title: str, node: dict[str, Any]) -> None:
        props = node.get("properties")
        if not props:
            return
        doc = node.get("description", "")
        out.append(f"#### {title}\n")
        if doc:
            out.append(f"{_cell(doc)}\n")
        required = set(node.get("required", []))
        out.append("| field | type | default | meaning |\n|---|---|---|---|")
        for field, spec in props.items():
            default = _default(spec) or ("required" if field in required else "")
            meaning = spec.get("description", "")
            out.append(f"| `{field}` | {_type_of(spec, defs)} | {default} | {_cell(meaning)} |")
        out.append("")

    table("scenario", schema)
    for name in sorted(defs):
        node = defs[name]
        if "properties" in node:
            table(name, node)
        for variant in node.get("oneOf", []):
            kind = (variant.get("properties", {}).get("kind") or {}).get("const")
            if kind is not None and "properties" in variant:
                table(f'{name} (kind = "{kind}")', variant)
    return "\n".join(out)


#: Generated block name -> renderer.
BLOCKS = {"outputs": render_outputs, "scenario-reference": render_scenario}

_BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[\w-]+)[^>]*-->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED: (?P=name) -->)",
    re.S,
)


def update(text: str) -> str:
    """``text`` with every generated block rendered anew."""

    def fill(m: re.Match[str]) -> str:
        render = BLOCKS.get(m["name"])
        if render is None:
            raise ValueError(f"unknown generated block {m['name']!r}")
        return f"{m[1]}\n{render()}\n{m[4]}"

    return _BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    summary = __doc__.split("\n\n")[0]
    p = argparse.ArgumentParser(prog="python -m hopsim.docgen", description=summary)
    p.add_argument("file", nargs="?", default="docs/formats.md")
    p.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    a = p.parse_args(argv)
    path = Path(a.file)
    old = path.read_text(encoding="utf-8")
    new = update(old)
    if a.check:
        if new != old:
            print(f"{path} is stale: run `python -m hopsim.docgen {path}`", file=sys.stderr)
            return 1
        return 0
    if new != old:
        path.write_text(new, encoding="utf-8")
        print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
