"""Sweeps: many variants of one scenario, run in parallel, resumable, gathered in one table.

>>> from hopsim.sweep import run_sweep
>>> table = run_sweep("scenarios/sweeps/pfc_vs_load.toml", jobs=4)
>>> table[["switch.pfc.enabled", "workload.0.load", "drops", "slowdown_p99"]]

A sweep file names a base scenario and the fields to vary (``docs/sweeps.md``)::

    scenario = "../quickstart.toml"
    [grid]
    "switch.pfc.enabled" = [true, false]
    "workload.0.load" = [0.3, 0.6]

Every point runs in its own output directory (a normal run directory plus
``point.json``); a point whose directory is complete is not run again.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import math
import multiprocessing
import os
import re
import shutil
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Union

import pandas as pd

import hopsim
from hopsim import analysis
from hopsim._core import ScenarioError
from hopsim.results import _FILES, Result
from hopsim.scenario import absolute_paths, apply_overrides, load_toml, loads_toml

__all__ = [
    "Point",
    "Sweep",
    "SweepSource",
    "default_outdir",
    "describe",
    "is_done",
    "load_sweep",
    "points",
    "run_sweep",
]

#: What `load_sweep` accepts: a path, TOML text, a dict, or an already loaded `Sweep`.
SweepSource = Union[str, os.PathLike, Mapping[str, Any], "Sweep"]

_KEYS = ("name", "scenario", "grid", "point", "seeds", "set")
_POINT_FILE = "point.json"
_SPEC_FILE = "sweep.json"
_TABLE = "results"
# Points are written under this prefix, then renamed into place.
_TMP_PREFIX = ".tmp-"
_SLUG_MAX = 80

# Columns of the results table after the varied fields; per-size-bucket slowdown
# columns follow _SUMMARY, then _TAIL.
_HEAD = ("seed", "status", "error", "run_dir", "checksum")
_SUMMARY = (
    "wall_seconds",
    "sim_time_ns",
    "events",
    "flows_total",
    "flows_finished",
    "drops",
    "pfc_pause_frames",
    "pause_frames",
    "ecn_marks",
    "timeouts",
)
_SLOWDOWN = ("slowdown_mean", "slowdown_p50", "slowdown_p99")
_TAIL = ("pid", "host", "started_at", "finished_at")


# ---------------------------------------------------------------- the sweep file


@dataclass
class Sweep:
    """A loaded sweep file.

    ``scenario`` is the base scenario (a dict), ``base_dir`` the absolute folder its
    input files resolve against; ``grid`` maps dotted field paths to lists of values,
    ``extra`` lists the explicit ``[[point]]`` tables, ``fixed`` the ``[set]`` fields.
    """

    name: str
    scenario: dict[str, Any]
    base_dir: str
    grid: dict[str, list[Any]] = field(default_factory=dict)
    extra: list[dict[str, Any]] = field(default_factory=list)
    seeds: list[int] | None = None
    fixed: dict[str, Any] = field(default_factory=dict)
    source: str = "<sweep>"
    scenario_file: str | None = None

    def spec(self) -> dict[str, Any]:
        """The sweep as plain JSON-ready data (written to ``sweep.json``)."""
        return {
            "name": self.name,
            "source": self.source,
            "scenario_file": self.scenario_file,
            "base_dir": self.base_dir,
            "scenario": self.scenario,
            "grid": self.grid,
            "point": self.extra,
            "seeds": self.seeds,
            "set": self.fixed,
        }


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"switch": {"pfc": {"enabled": x}}}`` -> ``{"switch.pfc.enabled": x}``."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(_flatten(value, path))
        else:
            out[path] = value
    return out


def _fields(value: Any, where: str, source: str) -> dict[str, Any]:
    """A table of dotted field paths, checked for well-formed paths."""
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{source}: {where}: expected a table, got {value!r}")
    fields = _flatten(value)
    for key in fields:
        if any(not part.strip() for part in key.split(".")):
            raise ScenarioError(f"{source}: {where}: bad field path {key!r}")
    return fields


def load_sweep(source: SweepSource, base_dir: str | os.PathLike[str] | None = None) -> Sweep:
    """Read a sweep file (path), TOML text or dict into a `Sweep`.

    A relative ``scenario`` path resolves against the sweep file's folder (``base_dir``,
    default the current directory, for text and dicts). Raises `ScenarioError` naming
    the file and the key at fault; ``points`` checks the fields themselves.
    """
    if isinstance(source, Sweep):
        return source
    if isinstance(source, Mapping):
        spec, label, folder = dict(source), "<sweep>", Path(base_dir or ".")
    elif isinstance(source, str) and "\n" in source:
        spec, label, folder = loads_toml(source, "<sweep>"), "<sweep>", Path(base_dir or ".")
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ScenarioError(f"{path}: no such sweep file")
        spec, label = load_toml(path), str(path)
        folder = Path(base_dir) if base_dir is not None else path.parent
    else:
        raise TypeError(f"sweep must be a path, TOML text or a dict, not {type(source).__name__}")

    unknown = [k for k in spec if k not in _KEYS]
    if unknown:
        raise ScenarioError(
            f"{label}: unknown key {unknown[0]!r} (expected one of {', '.join(_KEYS)})"
        )
    default_name = Path(label).stem if label != "<sweep>" else "sweep"
    name = spec.get("name", default_name)
    if not isinstance(name, str) or not name.strip() or "/" in name or "\\" in name:
        raise ScenarioError(f"{label}: name: expected a non-empty name without '/', got {name!r}")

    scenario_file = None
    if "scenario" not in spec:
        raise ScenarioError(f"{label}: scenario: missing (a scenario file path or a table)")
    base = spec["scenario"]
    if isinstance(base, str):
        file = (folder / base).resolve()
        if not file.is_file():
            raise ScenarioError(f"{label}: scenario: {base}: no such file")
        scenario, scenario_dir = load_toml(file), file.parent
        scenario_file = str(file)
        scenario.setdefault("name", file.stem)
    elif isinstance(base, Mapping):
        scenario, scenario_dir = dict(base), folder.resolve()
        scenario.setdefault("name", name)
    else:
        raise ScenarioError(f"{label}: scenario: expected a file path or a table, got {base!r}")

    grid = _fields(spec.get("grid", {}), "grid", label)
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ScenarioError(
                f"{label}: grid.{key}: expected a non-empty list of values, got {values!r}"
            )
    extra_spec = spec.get("point", [])
    if isinstance(extra_spec, Mapping):
        extra_spec = [extra_spec]
    if not isinstance(extra_spec, list):
        raise ScenarioError(f"{label}: point: expected [[point]] tables, got {extra_spec!r}")
    extra = [_fields(p, f"point[{i}]", label) for i, p in enumerate(extra_spec)]
    fixed = _fields(spec.get("set", {}), "set", label)
    for key in grid:
        if key in fixed:
            raise ScenarioError(f"{label}: {key} is both in [set] and in [grid]")

    seeds = spec.get("seeds")
    if seeds is not None:
        if (
            not isinstance(seeds, list)
            or not seeds
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds)
        ):
            raise ScenarioError(f"{label}: seeds: expected a non-empty list of integers")
        if "seed" in grid or "seed" in fixed or any("seed" in p for p in extra):
            raise ScenarioError(f"{label}: seeds: seed is also set in [grid], [set] or [[point]]")

    return Sweep(
        name=name,
        scenario=scenario,
        base_dir=str(scenario_dir),
        grid=grid,
        extra=extra,
        seeds=seeds,
        fixed=fixed,
        source=label,
        scenario_file=scenario_file,
    )


# ---------------------------------------------------------------- points


@dataclass(frozen=True)
class Point:
    """One run of a sweep.

    ``overrides`` are all the fields set on the base scenario (``[set]``, then the grid
    or ``[[point]]`` values, then the seed), ``varying`` the ones that tell this point
    apart, ``scenario`` the result of applying them. ``name`` is the run directory:
    a readable slug plus a hash of the overrides, the same on every invocation.
    ``fingerprint`` digests the scenario, its input files and the hopsim version; a
    stored run whose fingerprint differs is stale and runs again.
    """

    index: int
    name: str
    overrides: dict[str, Any]
    varying: tuple[str, ...]
    scenario: dict[str, Any] = field(repr=False)
    fingerprint: str = field(repr=False)

    def label(self) -> str:
        """``switch.pfc.enabled=false, workload.0.load=0.3`` (the varying fields)."""
        if not self.varying:
            return "base scenario"
        return ", ".join(f"{k}={_value_text(self.overrides[k])}" for k in self.varying)


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _digest(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def _short_keys(keys: Sequence[str]) -> dict[str, str]:
    """Each dotted key's shortest trailing part that no other key ends with."""
    out = {}
    for key in keys:
        parts = key.split(".")
        for n in range(1, len(parts) + 1):
            tail = ".".join(parts[-n:])
            if not any(k != key and (k == tail or k.endswith("." + tail)) for k in keys):
                break
        out[key] = tail
    return out


def _dir_name(overrides: Mapping[str, Any], varying: Sequence[str]) -> str:
    short = _short_keys(varying)
    slug = "_".join(f"{short[k]}={_value_text(overrides[k])}" for k in varying) or "base"
    slug = re.sub(r"[^A-Za-z0-9.=+_-]+", "-", slug)[:_SLUG_MAX].strip("-.") or "point"
    return f"{slug}-{_digest(_canonical(overrides))[:8]}"


def _input_files(doc: Mapping[str, Any], base_dir: str) -> dict[str, str]:
    """Input-file fields of a scenario: ``{path as written: absolute path}``."""
    resolved = absolute_paths(doc, base_dir)
    found: dict[str, str] = {}

    def walk(a: Any, b: Any) -> None:
        if isinstance(a, Mapping):
            for k in a:
                walk(a[k], b[k])
        elif isinstance(a, list):
            for x, y in zip(a, b):
                walk(x, y)
        elif isinstance(a, str) and a != b:
            found[a] = b

    walk(doc, resolved)
    return found


def _fingerprint(doc: Mapping[str, Any], base_dir: str, cache: dict[str, str]) -> str:
    files = {}
    for written, path in sorted(_input_files(doc, base_dir).items()):
        if path not in cache:
            try:
                cache[path] = _digest(Path(path).read_bytes())
            except OSError:
                cache[path] = "missing"
        files[written] = cache[path]
    return _digest(_canonical({"scenario": doc, "files": files, "version": hopsim.__version__}))


def _rewrite(message: str) -> str:
    """Drop the override wording of override errors (``overrides k=...: x`` -> ``k: x``)."""
    return re.sub(r"^(?:--set|overrides) (\S+?)=\.\.\.: ", r"\1: ", message)


def points(sweep: SweepSource) -> list[Point]:
    """The points of a sweep, each checked with `hopsim.validate` before anything runs.

    The grid's Cartesian product (first key outermost) comes first, then the
    ``[[point]]`` tables; with ``seeds`` each of these runs once per seed. Raises
    `ScenarioError` naming the sweep file, the point and the field at fault.
    """
    sw = load_sweep(sweep)
    keys = list(sw.grid)
    variants: list[tuple[dict[str, Any], list[str]]] = []
    if keys or not sw.extra:
        for combo in itertools.product(*(sw.grid[k] for k in keys)):
            variants.append(({**sw.fixed, **dict(zip(keys, combo))}, list(keys)))
    for extra in sw.extra:
        own = [k for k in extra if k not in keys]
        variants.append(({**sw.fixed, **extra}, keys + own))
    if sw.seeds is not None:
        variants = [
            ({**ov, "seed": seed}, [*vary, "seed"]) for ov, vary in variants for seed in sw.seeds
        ]

    out: list[Point] = []
    names: dict[str, int] = {}
    cache: dict[str, str] = {}
    for index, (overrides, vary) in enumerate(variants):
        varying = tuple(k for k in vary if k in overrides)
        name = _dir_name(overrides, varying)
        where = f"{sw.source}: point {index}"
        if name in names:
            raise ScenarioError(f"{where} repeats point {names[name]} (same fields and values)")
        names[name] = index
        try:
            doc = apply_overrides(sw.scenario, overrides)
            hopsim.validate(doc, base_dir=sw.base_dir)
        except ScenarioError as exc:
            label = ", ".join(f"{k}={_value_text(overrides[k])}" for k in varying)
            raise ScenarioError(
                f"{where} ({label or 'base scenario'}): {_rewrite(str(exc))}"
            ) from None
        fingerprint = _fingerprint(doc, sw.base_dir, cache)
        out.append(Point(index, name, overrides, varying, doc, fingerprint))
    return out


# ---------------------------------------------------------------- output directory


def default_outdir(sweep: SweepSource) -> Path:
    """``runs/<sweep name>``."""
    return Path("runs") / load_sweep(sweep).name


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, doc: Any) -> None:
    """Write JSON atomically (a temporary file, then a rename)."""
    tmp = path.with_name(f"{_TMP_PREFIX}{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def is_done(point: Point, outdir: str | os.PathLike[str]) -> bool:
    """Whether ``outdir`` holds a complete, current run of ``point``.

    Complete: every output file is there and ``point.json`` says the run succeeded
    with the same overrides and fingerprint.
    """
    run_dir = Path(outdir) / point.name
    record = _read_json(run_dir / _POINT_FILE)
    return (
        isinstance(record, dict)
        and record.get("status") == "ok"
        and record.get("fingerprint") == point.fingerprint
        and record.get("overrides") == _jsonable(point.overrides)
        and all((run_dir / f).is_file() for f in _FILES)
    )


def _prepare_outdir(outdir: Path) -> None:
    if outdir.exists() and not outdir.is_dir():
        raise FileExistsError(f"output path {outdir} exists and is not a directory")
    if outdir.is_dir() and any(outdir.iterdir()) and not (outdir / _SPEC_FILE).is_file():
        raise FileExistsError(
            f"output directory {outdir} is not empty and holds no {_SPEC_FILE} "
            "(not a sweep's output; choose another directory)"
        )
    outdir.mkdir(parents=True, exist_ok=True)
    # Leftovers of points interrupted while being written.
    # (`Result.write` writes a point's temporary directory through one of its own.)
    for leftover in [*outdir.glob(f"{_TMP_PREFIX}*"), *outdir.glob(f".{_TMP_PREFIX}*")]:
        if leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)


def _store(result: Result, record: dict[str, Any], outdir: Path) -> None:
    """Write a point's run directory under a temporary name, then rename it into place."""
    final = outdir / record["name"]
    tmp = outdir / f"{_TMP_PREFIX}{record['name']}.{os.getpid()}"
    old = tmp.with_name(tmp.name + ".old")
    for leftover in (tmp, old):
        shutil.rmtree(leftover, ignore_errors=True)
    try:
        result.write(tmp)
        _write_json(tmp / _POINT_FILE, record)
        if final.exists():  # a stale or incomplete run of the same point
            os.replace(final, old)
        os.replace(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------- running one point


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _number(v: Any) -> Any:
    """A JSON-friendly number: NaN and NA become None, numpy scalars plain Python."""
    if v is None or v is pd.NA:
        return None
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _metrics(result: Result) -> dict[str, Any]:
    """The figures a sweep table keeps of one run."""
    s = result.summary
    out: dict[str, Any] = {"checksum": result.checksum(), "seed": s.get("seed")}
    for key in _SUMMARY:
        out[key] = _number(s.get(key))
    # PAUSE frames of whichever flow control ran (PFC, BFC, Pyrrha...).
    out["pause_frames"] = analysis.pause_frames_sent(result)
    slowdown = result.flows["slowdown"].dropna().astype("float64")
    out["slowdown_mean"] = _number(slowdown.mean())
    out["slowdown_p50"] = _number(slowdown.quantile(0.5))
    out["slowdown_p99"] = _number(slowdown.quantile(0.99))
    for label, row in result.slowdown_by_size(percentiles=(50, 99)).iterrows():
        out[f"flows_finished[{label}]"] = int(row["count"])
        for stat in ("mean", "p50", "p99"):
            out[f"slowdown_{stat}[{label}]"] = _number(row[stat])
    return out


def _error_text(exc: BaseException) -> str:
    text = str(exc).strip().replace("\n", " ")
    if isinstance(exc, ScenarioError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _simulate(task: Mapping[str, Any]) -> Result:
    return hopsim.run(
        task["scenario"], overrides=task["overrides"], base_dir=task["base_dir"], progress=False
    )


def _record(task: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": task["name"],
        "overrides": _jsonable(task["overrides"]),
        "fingerprint": task["fingerprint"],
        "hopsim_version": hopsim.__version__,
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started_at": _now(),
    }


def _failed(record: dict[str, Any], exc: BaseException) -> dict[str, Any]:
    record.update(status="failed", error=_error_text(exc), finished_at=_now())
    return {"record": record}


def _run_point(task: dict[str, Any]) -> dict[str, Any]:
    """Run one point (in a worker). Writes its directory when ``task["outdir"]`` is set,
    else returns the `Result` for the caller to write. Never raises for a failed run.
    """
    record = _record(task)
    try:
        result = _simulate(task)
    except Exception as exc:  # a failing point is recorded; the others go on
        return _failed(record, exc)
    record.update(status="ok", error=None, finished_at=_now(), metrics=_metrics(result))
    if task["outdir"] is None:
        return {"record": record, "result": result}
    try:
        _store(result, record, Path(task["outdir"]))
    except Exception as exc:
        return _failed(record, exc)
    return {"record": record}


# ---------------------------------------------------------------- executors

_Done = Callable[[dict[str, Any]], None]


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the main process, which stops them."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pool_context() -> Any:
    # Not "fork": the parent may hold threads (pyarrow, tqdm). The fork server imports
    # hopsim once, so workers start at once.
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["hopsim.sweep"])
        return ctx
    return multiprocessing.get_context("spawn")


def _run_inline(tasks: list[dict[str, Any]], done: _Done) -> None:
    for task in tasks:
        done(_run_point(task))


def _run_pool(tasks: list[dict[str, Any]], jobs: int, done: _Done) -> None:
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)),
        mp_context=_pool_context(),
        initializer=_ignore_sigint,
    )
    pending: dict[Future[Any], dict[str, Any]] = {}
    try:
        pending = {pool.submit(_run_point, task): task for task in tasks}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                task = pending.pop(future)
                try:
                    out = future.result()
                except Exception as exc:  # the worker process died
                    out = _failed(_record(task), exc)
                done(out)
    except BaseException:
        # Stop the points still running (their partial output is discarded next time).
        running = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in running:
            process.terminate()
        raise
    pool.shutdown()


def _run_ray(tasks: list[dict[str, Any]], address: str, jobs: int | None, done: _Done) -> None:
    try:
        import ray
    except ImportError:
        raise ImportError(
            "--ray needs the ray package: pip install 'hopsim[ray]'", name="ray"
        ) from None
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"logging_level": logging.WARNING}
        if address == "local":
            options.update(num_cpus=jobs, include_dashboard=False)
        ray.init(address=address, **options)
    remote = ray.remote(num_cpus=1)(_run_point)
    queue = list(tasks)
    limit = jobs or len(queue)
    pending: dict[Any, dict[str, Any]] = {}
    try:
        while queue or pending:
            while queue and len(pending) < limit:
                task = queue.pop(0)
                pending[remote.remote(task)] = task
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                task = pending.pop(ref)
                try:
                    out = ray.get(ref)
                except Exception as exc:  # the task or its worker failed
                    out = _failed(_record(task), exc)
                done(out)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()


# ---------------------------------------------------------------- the results table


def _lookup(doc: Any, key: str) -> Any:
    for part in key.split("."):
        index = int(part) if part.lstrip("-").isdigit() else None
        if isinstance(doc, list) and index is not None and -len(doc) <= index < len(doc):
            doc = doc[index]
        elif isinstance(doc, Mapping) and part in doc:
            doc = doc[part]
        else:
            return None
    return doc


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "str" if isinstance(value, str) else "other"


def _column(values: list[Any]) -> list[Any]:
    """Values of one field column; mixed or structured values become text (for Parquet)."""
    kinds = {_kind(v) for v in values if v is not None}
    if len(kinds) <= 1 and "other" not in kinds:
        return values
    return [None if v is None else _value_text(v) for v in values]


def _table(
    pts: Sequence[Point], records: Mapping[str, dict[str, Any]], outdir: Path
) -> pd.DataFrame:
    fields: list[str] = []
    for p in pts:
        fields += [k for k in p.varying if k not in fields]
    metric_keys: list[str] = [*_SUMMARY, *_SLOWDOWN]
    rows = []
    for p in pts:
        rec = records.get(p.name, {})
        metrics = rec.get("metrics") or {}
        metric_keys += [
            k for k in metrics if k not in metric_keys and k not in ("checksum", "seed")
        ]
        row: dict[str, Any] = {"point": p.index}
        for key in fields:
            row[key] = p.overrides[key] if key in p.overrides else _lookup(p.scenario, key)
        row["seed"] = p.scenario.get("seed", metrics.get("seed"))
        row["status"] = _status(rec)
        row["error"] = rec.get("error")
        row["run_dir"] = p.name if row["status"] in ("ok", "incomplete") else None
        row["checksum"] = metrics.get("checksum")
        row.update({k: v for k, v in metrics.items() if k not in ("checksum", "seed")})
        row.update({k: rec.get(k) for k in _TAIL})
        rows.append(row)
    columns = ["point", *fields]
    columns += [c for c in _HEAD if c not in columns]
    columns += metric_keys + list(_TAIL)
    data = {c: [r.get(c) for r in rows] for c in columns}
    for key in fields:
        data[key] = _column(data[key])
    table = pd.DataFrame(data, columns=columns)
    for c in metric_keys + ["pid"]:
        present = [v for v in data[c] if v is not None]
        whole = all(isinstance(v, int) and not isinstance(v, bool) for v in present)
        table[c] = pd.to_numeric(table[c], errors="coerce").astype("Int64" if whole else "float64")
    table.attrs["outdir"] = str(outdir)
    return table


def _status(record: Mapping[str, Any]) -> str:
    """``ok``, ``incomplete`` (ran, but some flows did not finish), ``failed`` or
    ``pending``."""
    status = record.get("status", "pending")
    metrics = record.get("metrics") or {}
    total, done = metrics.get("flows_total"), metrics.get("flows_finished")
    if status == "ok" and total is not None and done is not None and done < total:
        return "incomplete"
    return status


def _write_table(table: pd.DataFrame, outdir: Path) -> None:
    for suffix in ("parquet", "csv"):
        final = outdir / f"{_TABLE}.{suffix}"
        tmp = outdir / f"{_TMP_PREFIX}{final.name}.{os.getpid()}"
        if suffix == "parquet":
            table.to_parquet(tmp, index=False)
        else:
            table.to_csv(tmp, index=False)
        os.replace(tmp, final)


def describe(table: pd.DataFrame) -> str:
    """A compact text view of a sweep table: fields, status and the main figures."""
    fields = [c for c in table.columns[1 : table.columns.get_loc("status")] if c != "seed"]
    if table["seed"].nunique(dropna=False) > 1:
        fields.append("seed")
    counts = ["drops", "pfc_pause_frames"]
    figures = ["slowdown_p50", "slowdown_p99", "wall_seconds"]
    view = table[["point", *fields, "status", *counts, *figures]].copy()
    view.insert(
        view.columns.get_loc("status") + 1,
        "finished",
        [
            "-" if pd.isna(d) or pd.isna(t) else f"{int(d):,}/{int(t):,}"
            for d, t in zip(table["flows_finished"], table["flows_total"])
        ],
    )
    for c in counts:
        view[c] = view[c].map(lambda v: "-" if pd.isna(v) else f"{int(v):,}")
    for c in figures:
        view[c] = view[c].map(lambda v: "-" if pd.isna(v) else f"{v:.2f}")
    text = view.to_string(index=False)
    incomplete = int((table["status"] == "incomplete").sum())
    if incomplete:
        text += (
            f"\nWARNING: {incomplete} point(s) ended with unfinished flows (status incomplete); "
            "their slowdown figures cover finished flows only"
        )
    return text


# ---------------------------------------------------------------- running a sweep


def run_sweep(
    sweep: SweepSource,
    outdir: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    ray_address: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Run every point of a sweep not already done in ``outdir``; return the results table.

    Parameters
    ----------
    sweep
        A sweep file path, TOML text, dict or `Sweep`.
    outdir
        Output folder (default ``runs/<sweep name>``): one run directory per point,
        ``sweep.json`` and ``results.parquet`` / ``results.csv``. Points already
        complete there are reused, not run again.
    jobs
        Worker processes (default: the CPU count); 1 runs the points in this process.
        With Ray, the most points running at once (default: no limit).
    ray_address
        Run the points as Ray tasks: ``"auto"`` or ``"ray://host:10001"`` joins a
        cluster, ``"local"`` starts a local instance. Needs ``hopsim[ray]``.
    progress
        Print what is done and what is left, and show a progress bar, on stderr.

    Returns one row per point (``status`` ok / failed / pending); ``attrs`` holds
    ``computed``, ``reused`` and ``failed`` counts and ``outdir``. Raises `ScenarioError`
    before running anything when a point is invalid.
    """
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    sw = load_sweep(sweep)
    pts = points(sw)
    out = Path(outdir) if outdir is not None else default_outdir(sw)
    _prepare_outdir(out)
    listing = [{"point": p.index, "run_dir": p.name, "overrides": p.overrides} for p in pts]
    _write_json(out / _SPEC_FILE, {"sweep": sw.spec(), "points": listing})

    records: dict[str, dict[str, Any]] = {}
    todo = []
    for p in pts:
        if is_done(p, out):
            records[p.name] = _read_json(out / p.name / _POINT_FILE)
        else:
            todo.append(p)
    reused = len(records)
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if progress:
        n = min(workers, len(todo))
        how = f"on ray {ray_address}" if ray_address else f"{n} job{'s' * (n != 1)}"
        how = f" ({how})" if todo else ""
        print(
            f"sweep {sw.name}: {len(pts)} points, {reused} done, {len(todo)} to run{how} -> {out}/",
            file=sys.stderr,
        )

    tasks = [
        {
            "scenario": sw.scenario,
            "base_dir": sw.base_dir,
            "overrides": p.overrides,
            "name": p.name,
            "fingerprint": p.fingerprint,
            "outdir": None if ray_address else str(out),
        }
        for p in todo
    ]
    counts = {"computed": 0, "failed": 0}
    bar = None
    if progress and tasks:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc="sweep", unit="run", file=sys.stderr, dynamic_ncols=True)

    def done(outcome: dict[str, Any]) -> None:
        record = outcome["record"]
        if "result" in outcome:  # from Ray: written here
            try:
                _store(outcome["result"], record, out)
            except Exception as exc:
                record = _failed(record, exc)["record"]
        records[record["name"]] = record
        counts["computed" if record["status"] == "ok" else "failed"] += 1
        if bar is not None:
            bar.update(1)
            if counts["failed"]:
                bar.set_postfix(failed=counts["failed"])

    try:
        if not tasks:
            pass
        elif ray_address:
            _run_ray(tasks, ray_address, jobs, done)
        elif workers == 1:
            _run_inline(tasks, done)
        else:
            _run_pool(tasks, workers, done)
    finally:
        if bar is not None:
            bar.close()
        # Also after Ctrl-C: the table then lists the points not run as pending.
        table = _table(pts, records, out)
        table.attrs.update(reused=reused, **counts)
        _write_table(table, out)
    return table
