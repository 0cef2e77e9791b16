"""Scenario input: TOML files, ``--set`` overrides and the JSON handed to the core.

A scenario is a plain dict mirroring the TOML file. The Rust core checks every field
(and rejects unknown ones); this module only reads the file, applies overrides and
reports syntax errors with the file name and line.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Union

from hopsim._core import ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib


class ScenarioWarning(UserWarning):
    """A scenario runs, but not as it says: e.g. under ``compat = "ns3"`` a field it wrote
    contradicts what the ns-3 simulator does (``hopsim run`` prints it before the run)."""


__all__ = [
    "ScenarioError",
    "ScenarioWarning",
    "ScenarioSource",
    "UNSET",
    "Overrides",
    "apply_overrides",
    "absolute_paths",
    "check_values",
    "core_json",
    "dumps_toml",
    "load_scenario",
    "load_toml",
    "parse_override",
    "to_json",
]


class _Unset:
    """The value of an override that removes its key (`UNSET`)."""

    _instance: _Unset | None = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "hopsim.UNSET"


#: An override value that removes its key from the scenario, so the default applies
#: (``overrides={"routing.drill": hopsim.UNSET}``; on the command line ``--unset
#: routing.drill``). Removing a key the scenario does not have is an error.
UNSET = _Unset()

#: What `load_scenario` accepts: a path, TOML text, or an already-parsed dict.
ScenarioSource = Union[str, os.PathLike, Mapping[str, Any]]
#: Overrides: ``"key=value"`` strings (values read as TOML), ``(key, value)`` pairs, or a
#: mapping of dotted keys to values.
Overrides = Union[Iterable[Union[str, tuple[str, Any]]], Mapping[str, Any]]

# A scenario file larger than this is not a scenario (and would be read whole).
_MAX_SCENARIO_BYTES = 16 * 2**20
# Tables nested deeper than this are not a scenario (its deepest table is 4 levels down).
_MAX_DEPTH = 32
# The core's integers are unsigned 64-bit at most.
_MAX_INT = 2**64 - 1

_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_TOML_AT_END = re.compile(r"\s*\(at end of document\)\s*$")
# A percentage where a fraction belongs: ``load = 60%``.
_PERCENT = re.compile(r"=\s*([0-9]+(?:\.[0-9]*)?)\s*%")


def _percent_hint(value: str) -> str:
    """``"; write a fraction: 0.6 for 60%"`` when ``value`` holds a percentage."""
    found = _PERCENT.search(value if value.lstrip().startswith("=") else f"={value}")
    if not found:
        return ""
    number = found.group(1)
    return f"; write a share as a fraction: {float(number) / 100:g} for {number}%"


def _toml_error(exc: Exception, source: str, text: str) -> ScenarioError:
    """Turn a TOML decode error into ``SOURCE:LINE: message (column C)``."""
    message = str(exc).strip()
    found = _TOML_POSITION.search(message)
    if found:
        line, column = found.group(1), found.group(2)
        message = message[: found.start()]
        lines = text.splitlines()
        hint = _percent_hint(lines[int(line) - 1]) if int(line) <= len(lines) else ""
        return ScenarioError(f"{source}:{line}: {message} (column {column}){hint}")
    if _TOML_AT_END.search(message):
        message = _TOML_AT_END.sub("", message)
        last_line = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
        return ScenarioError(f"{source}:{last_line}: {message} (at end of file)")
    return ScenarioError(f"{source}: {message}")


def loads_toml(text: str, source: str = "<scenario>") -> dict[str, Any]:
    """Parse TOML text; syntax errors become `ScenarioError` naming ``source:line``."""
    text = text.removeprefix("\ufeff")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(exc, source, text) from None
    except RecursionError:
        raise ScenarioError(
            f"{source}: tables or arrays nested too deeply (a scenario needs {_MAX_DEPTH} "
            "levels at most)"
        ) from None


def load_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a TOML scenario file (UTF-8, an optional byte-order mark) into a dict.

    Raises `FileNotFoundError` when the file is missing and `ScenarioError`
    (``FILE:LINE: message``) when it is not a regular text file or not valid TOML.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(2, "No such file or directory", str(path))
    if not path.is_file():
        kind = "a directory" if path.is_dir() else "not a regular file"
        raise ScenarioError(f"{path}: {kind}, expected a TOML scenario file")
    size = path.stat().st_size
    if size > _MAX_SCENARIO_BYTES:
        raise ScenarioError(
            f"{path}: {size:,} bytes is not a scenario file (at most {_MAX_SCENARIO_BYTES:,})"
        )
    data = path.read_bytes()
    if b"\0" in data:
        raise ScenarioError(f"{path}: not a text file (it contains NUL bytes; is it binary?)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{path}: not a UTF-8 text file ({exc.reason})") from None
    return loads_toml(text, str(path))


# ---------------------------------------------------------------- overrides


def _parse_value(text: str) -> Any:
    """A TOML value (``false``, ``3``, ``"x"``, ``[1, 2]``); anything else is a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _split_key(key: Any, original: str, option: str) -> list[str]:
    if not isinstance(key, str):
        raise ScenarioError(
            f"{option} {original}: expected a dotted key such as switch.pfc.enabled, "
            f"got {type(key).__name__}"
        )
    parts = [p.strip() for p in key.split(".")]
    if not key.strip() or any(not p for p in parts):
        raise ScenarioError(
            f"{option} {original}: expected KEY=VALUE with a dotted KEY such as switch.pfc.enabled"
        )
    return parts


def parse_override(text: str, option: str = "--set") -> tuple[list[str], Any]:
    """Split ``dotted.key=value`` into its key parts and its value.

    The value is read as a TOML value (``false``, ``3``, ``0.25``, ``"dcqcn"``,
    ``[0, 1]``); text that is not valid TOML is taken as a string, so
    ``topology.host_rate=25Gbps`` works without quotes. ``option`` names where the
    text came from in errors (``--set`` on the command line, ``overrides`` in Python).
    """
    key, sep, value = text.partition("=")
    if not sep:
        raise ScenarioError(f"{option} {text}: expected KEY=VALUE, e.g. switch.pfc.enabled=false")
    value = value.strip()
    if re.fullmatch(r"[0-9]+(?:\.[0-9]*)?\s*%", value):
        raise ScenarioError(f"{option} {text}: a percentage{_percent_hint(value)}")
    return _split_key(key, text, option), _parse_value(value)


def _set_path(doc: dict[str, Any], parts: list[str], value: Any, label: str) -> None:
    """Set ``value`` at the key ``parts``; ``label`` (``--set k=v``) names it in errors."""
    node: Any = doc
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        here = ".".join(parts[:depth]) or "the scenario"
        if isinstance(node, list):
            try:
                index = int(part)
            except ValueError:
                raise ScenarioError(
                    f"{label}: {here} is an array; expected an index, got {part!r}"
                ) from None
            if not -len(node) <= index < len(node):
                raise ScenarioError(
                    f"{label}: index {index} is out of range ({here} has {len(node)} entries)"
                )
            if last and value is UNSET:
                del node[index]
            elif last:
                node[index] = value
            else:
                node = node[index]
        elif isinstance(node, dict):
            if part.isdigit() and part not in node:
                raise ScenarioError(
                    f"{label}: {here} is a table, not an array of tables; drop the index {part}"
                )
            if value is UNSET and part not in node:
                raise ScenarioError(
                    f"{label}: the scenario has no {'.'.join(parts[: depth + 1])}: "
                    "nothing to remove"
                )
            if last and value is UNSET:
                del node[part]
            elif last:
                node[part] = value
            else:
                node = node.setdefault(part, {})
        else:
            raise ScenarioError(f"{label}: {here} is a {type(node).__name__} value, not a table")


def apply_overrides(
    scenario: Mapping[str, Any],
    overrides: Overrides | None,
    *,
    option: str = "overrides",
) -> dict[str, Any]:
    """Return a copy of ``scenario`` with overrides applied.

    ``overrides`` is a list of ``"dotted.key=value"`` strings (values read as TOML, as
    on the command line) or of ``(dotted_key, value)`` pairs, or a mapping of dotted
    keys to Python values. Indices select entries of arrays of tables:
    ``workload.0.load=0.3``. ``option`` names the overrides in errors (``--set`` for
    the command line).
    """
    doc = copy.deepcopy(dict(scenario))
    if not overrides:
        return doc
    if isinstance(overrides, Mapping):
        items = [
            (_split_key(k, f"{k}=...", option), v, f"{option} {k}=...")
            for k, v in overrides.items()
        ]
    elif isinstance(overrides, (str, bytes)):
        raise TypeError(
            "overrides must be a list of 'key=value' strings or (key, value) pairs, or a "
            f"mapping; got the single string {overrides!r} (wrap it in a list)"
        )
    else:
        items = []
        for item in overrides:
            if isinstance(item, str):
                parts, value = parse_override(item, option)
                items.append((parts, value, f"{option} {item}"))
            elif isinstance(item, tuple) and len(item) == 2:
                key, value = item
                items.append((_split_key(key, f"{key}=...", option), value, f"{option} {key}=..."))
            else:
                raise TypeError(
                    "each override must be a 'key=value' string or a (key, value) pair, "
                    f"got {item!r}"
                )
    for parts, value, label in items:
        if value is UNSET:
            key = ".".join(parts)
            label = f"--unset {key}" if option == "--set" else f"{option} {key}=hopsim.UNSET"
        _set_path(doc, parts, value, label)
    return doc


def check_values(doc: Any, path: str = "", depth: int = 0) -> None:
    """Refuse what JSON cannot carry to the core unchanged: NaN and infinite numbers,
    integers beyond 64 bits, non-string keys and tables nested too deeply. Errors name
    the field (``switch.pfc.alpha: expected a finite number, got nan``)."""
    where = path or "scenario"
    if depth > _MAX_DEPTH:
        raise ScenarioError(
            f"{where}: nested more than {_MAX_DEPTH} levels deep; a scenario is far shallower"
        )
    if isinstance(doc, bool) or doc is None or isinstance(doc, str):
        return
    if isinstance(doc, float):
        if doc != doc or doc in (float("inf"), float("-inf")):
            raise ScenarioError(f"{where}: expected a finite number, got {doc}")
    elif isinstance(doc, int):
        if not -(2**63) <= doc <= _MAX_INT:
            raise ScenarioError(f"{where}: expected an integer from 0 to {_MAX_INT}, got {doc}")
    elif isinstance(doc, Mapping):
        for key, value in doc.items():
            if not isinstance(key, str):
                raise ScenarioError(f"{where}: expected text keys, got the key {key!r}")
            check_values(value, f"{path}.{key}" if path else key, depth + 1)
    elif isinstance(doc, (list, tuple)):
        for i, value in enumerate(doc):
            check_values(value, f"{where}[{i}]", depth + 1)


# ---------------------------------------------------------------- paths & JSON


def _workloads(doc: Mapping[str, Any]) -> list[Any]:
    w = doc.get("workload")
    if isinstance(w, list):
        return w
    return [w] if isinstance(w, dict) else []


def absolute_paths(scenario: Mapping[str, Any], base_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """Copy of ``scenario`` whose input-file fields are absolute (resolved against ``base_dir``).

    Touches the same fields the core resolves: ``topology.file``, and ``file`` /
    ``cdf_file`` of each workload.
    """
    doc = copy.deepcopy(dict(scenario))
    base = Path(base_dir).resolve()

    def fix(table: Any, key: str) -> None:
        if isinstance(table, dict) and isinstance(table.get(key), str):
            p = Path(table[key])
            if not p.is_absolute():
                table[key] = str(base / p)

    fix(doc.get("topology"), "file")
    for w in _workloads(doc):
        fix(w, "file")
        fix(w, "cdf_file")
    return doc


def to_json(scenario: Mapping[str, Any]) -> str:
    """Serialize a scenario dict for the core (TOML dates become strings), after
    `check_values`."""
    check_values(scenario)
    return json.dumps(scenario, default=str, allow_nan=False)


#: Columns a replayed flow table must have (the core's CSV trace format).
TRACE_COLUMNS = ("src", "dst", "size_bytes", "start_ns")


@contextlib.contextmanager
def core_json(scenario: Mapping[str, Any], base_dir: str | os.PathLike[str]) -> Iterator[str]:
    """The JSON the core reads, valid inside the ``with`` block.

    The core reads flow traces as CSV; a ``kind = "flows"`` workload with
    ``format = "parquet"`` (e.g. a ``flows.parquet`` written by an earlier run) is
    converted here to a temporary CSV file that exists for the duration of the block.
    """
    doc = copy.deepcopy(dict(scenario))
    workloads = _workloads(doc)
    parquet = [
        (i, w)
        for i, w in enumerate(workloads)
        if isinstance(w, dict) and w.get("kind") == "flows" and w.get("format") == "parquet"
    ]
    if not parquet:
        yield to_json(doc)
        return
    with tempfile.TemporaryDirectory(prefix="hopsim-trace-") as tmp:
        for i, w in parquet:
            field = "workload" if len(workloads) == 1 else f"workload[{i}]"
            w["file"] = _parquet_to_csv(w.get("file"), base_dir, Path(tmp) / f"{i}.csv", field)
            w["format"] = "csv"
        yield to_json(doc)


def _parquet_to_csv(file: Any, base_dir: str | os.PathLike[str], out: Path, field: str) -> str:
    if not isinstance(file, str):
        raise ScenarioError(f'{field}.file: format = "parquet" needs a file path')
    path = Path(file) if Path(file).is_absolute() else Path(base_dir) / file
    if not path.is_file():
        raise ScenarioError(f"{field}.file: {path}: no such file")
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for a bad file
        raise ScenarioError(f"{field}.file: {path}: not a Parquet file ({exc})") from exc
    missing = [c for c in TRACE_COLUMNS if c not in table.column_names]
    if missing:
        raise ScenarioError(
            f"{field}.file: {path}: missing column {missing[0]!r}; "
            f"expected columns {', '.join(TRACE_COLUMNS)} (optional: tag, priority, dport, class)"
        )
    keep = [
        c for c in (*TRACE_COLUMNS, "tag", "priority", "dport", "class") if c in table.column_names
    ]
    pacsv.write_csv(table.select(keep), out)
    return str(out)


def _is_toml_text(source: str) -> bool:
    return "\n" in source


def _looks_like_toml(source: str) -> bool:
    """One line of TOML (``seed = 1``) rather than a file name."""
    return "=" in source and not Path(source).exists()


def _toml_value(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, where) for v in value) + "]"
    if isinstance(value, Mapping):
        items = ", ".join(f"{_toml_key(k)} = {_toml_value(v, where)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    raise TypeError(f"{where}: cannot write {type(value).__name__} as TOML")


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def dumps_toml(doc: Mapping[str, Any]) -> str:
    """A scenario dict as TOML text that `loads_toml` reads back to the same dict: plain
    values first, then each table as a ``[section]`` and each list of tables as
    ``[[section]]`` entries."""
    lines: list[str] = []

    def table(t: Mapping[str, Any], prefix: str) -> None:
        nested = []
        for key, value in t.items():
            name = f"{prefix}{_toml_key(key)}"
            if isinstance(value, Mapping):
                nested.append((name, value, False))
            elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
                nested.append((name, value, True))
            else:
                lines.append(f"{_toml_key(key)} = {_toml_value(value, name)}")
        for name, value, many in nested:
            for entry in value if many else [value]:
                lines.append("")
                lines.append(f"[[{name}]]" if many else f"[{name}]")
                table(entry, f"{name}.")

    table(doc, "")
    return "\n".join(lines).lstrip("\n") + "\n"


def load_scenario(
    source: ScenarioSource,
    overrides: Overrides | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    *,
    option: str = "overrides",
) -> tuple[dict[str, Any], str]:
    """Load a scenario and apply overrides; return ``(scenario dict, base_dir)``.

    ``source`` is a path to a TOML file (`str` or `os.PathLike`), TOML text (a string
    spanning several lines, or one line with ``=`` that names no file), or a dict.
    Relative input files in the scenario are resolved against ``base_dir``: by default
    the scenario file's folder, or the current directory for text and dicts.
    ``option`` names the overrides in errors (``--set`` for the command line).
    """
    if isinstance(source, Mapping):
        doc: dict[str, Any] = dict(source)
        default_base = "."
    elif isinstance(source, str) and (_is_toml_text(source) or _looks_like_toml(source)):
        doc = loads_toml(source)
        default_base = "."
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        doc = load_toml(path)
        default_base = str(path.parent)
    else:
        raise TypeError(
            f"scenario must be a path, TOML text or a dict, not {type(source).__name__}"
        )
    doc = apply_overrides(doc, overrides, option=option)
    return doc, str(base_dir) if base_dir is not None else default_base
