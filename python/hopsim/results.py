"""Results of a run: flow, port and PFC tables as pandas DataFrames, plus the summary."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hopsim import _core
from hopsim._lazy import LazyModule

if TYPE_CHECKING:
    import pandas as pd
else:
    # pandas takes most of `import hopsim`'s time (0.7 s here): loaded on first use, so
    # commands and child processes that never build a table do not pay for it.
    pd = LazyModule("pandas")

__all__ = [
    "DEFAULT_SIZE_BUCKETS",
    "MANIFEST",
    "Result",
    "check_outdir",
    "check_writable",
    "flow_checksum",
]

#: The file listing every output file of a run with its size, checksum and row count.
MANIFEST = "manifest.json"

#: Upper edges (bytes) of the default flow-size buckets: ≤10 KB, 10-100 KB, 100 KB-1 MB, >1 MB.
DEFAULT_SIZE_BUCKETS: tuple[int, ...] = (10_000, 100_000, 1_000_000)

# Every output table's columns and their types come from the core's declarations
# (`hopsim_core::tables`; `docs/formats.md` lists them): table name -> {column: dtype}.
_SCHEMA: dict[str, dict[str, str]] = {
    name: {column: dtype for column, dtype, _unit, _doc in columns}
    for name, _file, _doc, _when, columns in _core.output_tables()
}
# Tables every run directory holds, even empty.
_ALWAYS = ("flows", "ports", "pfc_events")
_FILES = (*(f"{name}.parquet" for name in _ALWAYS), "summary.json", "scenario.json")
# Further tables: attribute -> (file, column types). Tables that stay empty unless
# `[output]` asks for them are written only when they have rows.
_TABLES: dict[str, tuple[str, dict[str, str]]] = {
    name: (f"{name}.parquet", dtypes) for name, dtypes in _SCHEMA.items() if name not in _ALWAYS
}
# Every file a run directory may hold that hopsim writes (others are the user's).
_OUTPUT_FILES = {*_FILES, MANIFEST, *(file for file, _ in _TABLES.values())}


def _frame(columns: Mapping[str, Sequence[Any]], dtypes: Mapping[str, str]) -> pd.DataFrame:
    data = {}
    for name, values in columns.items():
        dtype = dtypes.get(name)
        data[name] = pd.array(list(values), dtype=dtype) if dtype else list(values)
    df = pd.DataFrame(data)
    # An empty table still gets its columns, so code reading it needs no special case.
    for name, dtype in dtypes.items():
        if name not in df.columns:
            df[name] = pd.array([], dtype=dtype)
    return df


def format_bytes(n: float, digits: int = 6) -> str:
    """A byte count with a decimal unit, e.g. ``1.71MB``, to ``digits`` significant digits."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.{digits}g}{unit}"
    return f"{n:.{digits}g}B"


def _bucket_labels(edges: Sequence[float]) -> list[str]:
    if not edges:
        return ["all"]
    labels = [f"<={format_bytes(edges[0])}"]
    labels += [f"{format_bytes(a)}-{format_bytes(b)}" for a, b in zip(edges, edges[1:])]
    labels.append(f">{format_bytes(edges[-1])}")
    return labels


def _csv_float(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    return repr(float(v))


def flow_checksum(flows: Mapping[str, Sequence[Any]] | pd.DataFrame) -> str:
    """A short fingerprint of a flow table: identical runs give identical checksums.

    SHA-256 (first 16 hex digits) of the CSV of ``flow_id, src, dst, size_bytes,
    start_ns, finish_ns``, floats written with `repr` and unfinished flows left empty.
    """
    cols = {k: list(flows[k]) for k in ("flow_id", "src", "dst", "size_bytes")}
    starts, finishes = list(flows["start_ns"]), list(flows["finish_ns"])
    h = hashlib.sha256(b"flow_id,src,dst,size_bytes,start_ns,finish_ns\n")
    for i in range(len(starts)):
        row = [str(int(cols[k][i])) for k in ("flow_id", "src", "dst", "size_bytes")]
        row += [_csv_float(starts[i]), _csv_float(finishes[i])]
        h.update((",".join(row) + "\n").encode())
    return h.hexdigest()[:16]


def check_outdir(
    outdir: str | os.PathLike[str], force: bool = False, hint: str = "pass force=True"
) -> Path:
    """Raise `FileExistsError` if ``outdir`` holds files and ``force`` is false.

    An existing empty directory may be used. ``hint`` tells how to overwrite anyway
    (the command line says ``use --force``).
    """
    path = Path(outdir)
    if path.exists() and not path.is_dir():
        raise FileExistsError(f"output path {path} exists and is not a directory")
    if not force and path.is_dir() and any(path.iterdir()):
        raise FileExistsError(
            f"output directory {path} already exists and is not empty ({hint} to overwrite)"
        )
    return path


def check_writable(outdir: str | os.PathLike[str]) -> Path:
    """Raise `PermissionError` unless ``outdir`` (or, if it does not exist yet, the
    nearest existing folder above it) can be written to: checked before a run, not after.
    """
    path = Path(outdir).absolute()
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise FileExistsError(f"output path {probe} exists and is not a directory")
    # The run is written beside its target and renamed into place: the folder above
    # must take new entries too.
    folders = [probe] if probe != path else [probe, probe.parent]
    for folder in folders:
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied (cannot write there)", str(folder))
    return path


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _manifest(folder: Path, rows: Mapping[str, int], version: str) -> dict[str, Any]:
    files = {}
    for name in sorted(p.name for p in folder.iterdir() if p.is_file()):
        entry: dict[str, Any] = {"bytes": (folder / name).stat().st_size}
        if name in rows:
            entry["rows"] = int(rows[name])
        entry["sha256"] = _sha256(folder / name)
        files[name] = entry
    return {"hopsim_version": version, "files": files}


def verify_manifest(outdir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Check ``outdir`` against its ``manifest.json``; return the manifest, or ``None``
    for a directory without one (written before hopsim kept manifests).

    Raises `ValueError` naming the first file that is missing, unlisted, or whose size
    or checksum differs: the directory was changed after hopsim wrote it.
    """
    path = Path(outdir)
    file = path / MANIFEST
    if not file.is_file():
        return None
    try:
        manifest = json.loads(file.read_text(encoding="utf-8"))
        listed = dict(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{file}: not a hopsim manifest ({exc})") from None
    for name, entry in listed.items():
        f = path / name
        if not f.is_file():
            raise ValueError(f"{path}: {name} is listed in {MANIFEST} but missing")
        if f.stat().st_size != entry.get("bytes") or _sha256(f) != entry.get("sha256"):
            raise ValueError(
                f"{path}: {name} differs from {MANIFEST} (changed after hopsim wrote the run)"
            )
    ours = {file for file, _ in _TABLES.values()} | set(_FILES)
    extra = sorted(p.name for p in path.iterdir() if p.name in ours and p.name not in listed)
    if extra:
        raise ValueError(f"{path}: {extra[0]} is not listed in {MANIFEST} (not of this run)")
    return manifest


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _recover(target: Path) -> None:
    """Clean up after a writer of ``target`` that was killed: remove its temporary
    directory, and put back an old run it had moved aside but not yet replaced."""
    for leftover in sorted(target.parent.glob(f".{target.name}.hopsim-*-*")):
        kind, _, pid = leftover.name.rpartition("-")
        if not pid.isdigit() or _alive(int(pid)):
            continue
        if kind.endswith("hopsim-old") and not target.exists():
            os.rename(leftover, target)
        else:
            shutil.rmtree(leftover, ignore_errors=True)


def _put_in_place(new: Path, target: Path, ours: set[str]) -> None:
    """Rename the complete run directory ``new`` to ``target``. An old run there is
    moved aside first and removed last; files in it that hopsim did not write are moved
    into the new run."""
    if not target.exists():
        os.rename(new, target)
        return
    if not any(target.iterdir()):
        target.rmdir()
        os.rename(new, target)
        return
    old = target.with_name(f".{target.name}.hopsim-old-{os.getpid()}")
    shutil.rmtree(old, ignore_errors=True)
    os.rename(target, old)
    os.rename(new, target)
    for f in old.iterdir():
        if f.name not in ours and not (target / f.name).exists():
            os.rename(f, target / f.name)
    shutil.rmtree(old, ignore_errors=True)


def _json_default(v: Any) -> Any:
    if hasattr(v, "item"):  # numpy scalars
        return v.item()
    return str(v)


class Result:
    """The outcome of one simulation run.

    Attributes
    ----------
    flows : DataFrame
        One row per flow: ``flow_id, src, dst, size_bytes, start_ns, finish_ns,
        fct_ns, ideal_fct_ns, slowdown, tag, priority, retransmitted_bytes,
        timeouts, cnps_received, path_hops``. ``finish_ns``, ``fct_ns`` and
        ``slowdown`` are nullable floats, missing for flows that did not finish.
    ports : DataFrame
        Per-port counters (``node, port, peer_node, tier, rate_bps, tx_bytes, ...``).
    pfc_events : DataFrame
        PFC frames (``time_ns, node, port, priority, pause``); filled only when the
        scenario sets ``[output] pfc_events = true``.
    control_frames : DataFrame
        Every hop-by-hop control frame sent, of any kind (``time_ns, node, port, kind,
        subject, pause``: ``kind`` is ``pfc_pause``, ``pfc_resume``, ``flow_pause`` or
        ``flow_resume``; ``subject`` the PFC priority or the flow id), with
        ``[output] control_frames = true``.
    rates : DataFrame
        Samples of traced flows (``time_ns, flow_id, rate_bps, window_bytes,
        in_flight_bytes``); filled only with ``[output.rate_trace]``.
    switches : DataFrame
        One row per switch: ``node, tier, max_buffer_bytes`` (peak shared-buffer use).
    queue_delay : DataFrame
        Per-packet queuing delay at switch egress queues as a histogram per hop tier
        (``hop_tier, lower_ns, upper_ns, packets``; buckets ``[lower, upper)``, non-empty
        only). ``summary["queue_delay_ns"]`` has the exact count, mean and max per tier.
    queues, buffers : DataFrame
        ``[output.queues]`` samples of egress queues (``time_ns, node, port, queue,
        hop_tier, bytes``; ``queue`` is -1 for a whole port) and switch shared buffers
        (``time_ns, node, tier, bytes``). Sparse: only non-empty queues / buffers appear.
    throughput : DataFrame
        ``[output.throughput]``: payload bytes each flow's receiver accepted per time bin
        (``time_ns`` = bin start, ``flow_id, bytes``; bins without data are absent).
    deadlocks : DataFrame
        ``[output.deadlock]``: one row per queue of each deadlock found (a frozen cycle of
        paused queues, in wait-for order): ``time_ns, deadlock, member, node, port, queue,
        peer_node, bytes, stuck_since_ns, flows``.
    packets : DataFrame
        ``[output.packet_trace]``: ``time_ns, event (enqueue|tx|drop|rx), node, port,
        kind, flow_id, seq, wire_bytes, queue, port_backlog_bytes, ecn_ce``.
    summary : dict
        Run-wide counters from the core plus ``wall_seconds``, ``events_per_sec``,
        ``scenario_name`` and ``hopsim_version``.
    scenario : dict
        The scenario as run (overrides applied, input paths absolute).
    """

    rates: pd.DataFrame
    switches: pd.DataFrame
    queue_delay: pd.DataFrame
    queues: pd.DataFrame
    buffers: pd.DataFrame
    throughput: pd.DataFrame
    packets: pd.DataFrame
    control_frames: pd.DataFrame
    iq_usage: pd.DataFrame
    congestion_trees: pd.DataFrame
    deadlocks: pd.DataFrame

    def __init__(
        self,
        flows: pd.DataFrame,
        ports: pd.DataFrame,
        pfc_events: pd.DataFrame,
        summary: dict[str, Any],
        scenario: dict[str, Any],
        rates: pd.DataFrame | None = None,
        **tables: pd.DataFrame | None,
    ) -> None:
        self.flows = flows
        self.ports = ports
        self.pfc_events = pfc_events
        self.summary = summary
        self.scenario = scenario
        tables["rates"] = rates
        unknown = set(tables) - set(_TABLES)
        if unknown:
            raise TypeError(f"unknown result tables {sorted(unknown)}")
        for name, (_, dtypes) in _TABLES.items():
            df = tables.get(name)
            setattr(self, name, df if df is not None else _frame({}, dtypes))

    @classmethod
    def from_simulation(
        cls,
        sim: Any,
        scenario: dict[str, Any],
        *,
        wall_seconds: float,
        scenario_name: str,
        version: str,
    ) -> Result:
        """Collect the tables of a finished `hopsim._core.Simulation`."""
        from hopsim.overview import setup_of

        summary = dict(sim.summary())
        summary["wall_seconds"] = wall_seconds
        # With engine.threads > 1: partitions, windows, packets handed across, events per
        # partition and on the critical path (docs/parallel.md); None for one thread.
        summary["parallel"] = sim.parallel()
        summary["events_per_sec"] = summary["events"] / wall_seconds if wall_seconds > 0 else None
        summary["scenario_name"] = scenario_name
        summary["hopsim_version"] = version
        unfinished = summary["flows_total"] - summary["flows_finished"]
        summary["flows_unfinished"] = unfinished
        summary["status"] = "complete" if unfinished == 0 else "incomplete"
        flows = _frame(sim.table("flows"), _SCHEMA["flows"])
        ports = _frame(sim.table("ports"), _SCHEMA["ports"])
        resolved = json.loads(sim.resolved_scenario())
        summary["setup"] = setup_of(resolved, flows, ports, summary.get("policies"))
        return cls(
            flows=flows,
            ports=ports,
            pfc_events=_frame(sim.table("pfc_events"), _SCHEMA["pfc_events"]),
            summary=summary,
            scenario=scenario,
            **{name: _frame(sim.table(name), dtypes) for name, (_, dtypes) in _TABLES.items()},
        )

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<hopsim.Result {s.get('scenario_name')!r}: "
            f"{s.get('flows_finished')}/{s.get('flows_total')} flows finished "
            f"({self.status}), {s.get('events')} events>"
        )

    @property
    def status(self) -> str:
        """``"complete"`` when every flow finished, else ``"incomplete"``: statistics of
        FCT and slowdown then cover the finished flows only."""
        s = self.summary
        total = s.get("flows_total", len(self.flows))
        done = s.get("flows_finished", int(self.flows["finish_ns"].notna().sum()))
        return "complete" if done >= total else "incomplete"

    # ------------------------------------------------------------ analysis

    def checksum(self) -> str:
        """Fingerprint of the flow table (see `flow_checksum`)."""
        return flow_checksum(self.flows)

    def qct(self) -> pd.DataFrame:
        """Query completion times: one row per query (``query_id, client, start_ns,
        finish_ns, qct_ns, responses, finished``). A query completes when its last
        response flow does; ``finish_ns``/``qct_ns`` are missing while any is unfinished.
        """
        cols = ["query_id", "client", "start_ns", "finish_ns", "qct_ns", "responses", "finished"]
        q = self.flows[self.flows.query_id.notna()]
        if q.empty:
            return pd.DataFrame(columns=cols)
        g = q.groupby("query_id", sort=True)
        out = pd.DataFrame(
            {
                "client": g.dst.first(),
                "start_ns": g.start_ns.min(),
                "finish_ns": g.finish_ns.max(),
                "responses": g.size(),
                "finished": g.finish_ns.apply(lambda s: bool(s.notna().all())),
            }
        )
        out.loc[~out.finished, "finish_ns"] = pd.NA
        out["qct_ns"] = out.finish_ns - out.start_ns
        return out.reset_index()[cols]

    def slowdown_by_size(
        self,
        buckets: Sequence[float] | None = None,
        percentiles: Sequence[float] = (50, 99),
    ) -> pd.DataFrame:
        """Slowdown statistics of finished flows per flow-size bucket.

        ``buckets`` are increasing upper edges in bytes (default 10 KB, 100 KB, 1 MB,
        giving ≤10 KB, 10-100 KB, 100 KB-1 MB and >1 MB). Returns one row per bucket
        (empty buckets included) with ``count``, ``mean`` and one ``pNN`` column per
        percentile.
        """
        edges = [float(b) for b in (DEFAULT_SIZE_BUCKETS if buckets is None else buckets)]
        if any(b <= a for a, b in zip(edges, edges[1:])):
            raise ValueError(f"buckets must be increasing, got {list(edges)}")
        labels = _bucket_labels(edges)
        done = self.flows[self.flows["slowdown"].notna()]
        slowdown = done["slowdown"].astype("float64")
        bins = [-math.inf, *edges, math.inf]
        bucket = pd.cut(done["size_bytes"], bins=bins, labels=labels, right=True)
        rows = []
        for label in labels:
            s = slowdown[bucket == label]
            row: dict[str, Any] = {"size": label, "count": len(s), "mean": s.mean()}
            for p in percentiles:
                row[f"p{p:g}"] = s.quantile(p / 100) if len(s) else math.nan
            rows.append(row)
        return pd.DataFrame(rows).set_index("size")

    def describe(self) -> str:
        """A readable summary: what ran (topology, hosts, CC, flow control, load
        balancer, offered load), whether every flow finished, drops and PFC, slowdown by
        flow size (and per tag when the scenario has several workloads)."""
        from hopsim import overview

        return overview.describe(self)

    # ------------------------------------------------------------ files

    def write(self, outdir: str | os.PathLike[str], force: bool = False) -> Path:
        """Write ``flows.parquet``, ``ports.parquet``, ``pfc_events.parquet``,
        ``summary.json``, ``scenario.json``, every further non-empty table (see the class
        attributes: ``switches.parquet``, ``queue_delay.parquet``, ...) and
        ``manifest.json`` (each file's size, SHA-256 and row count) into ``outdir``.

        The run is written into a temporary directory beside ``outdir`` (``.NAME.hopsim-
        tmp-PID``) and renamed into place once complete, so ``outdir`` never holds a partial
        or mixed run; what a killed writer left behind is cleaned up by the next write. An existing
        empty ``outdir`` is used; a non-empty one is refused (`FileExistsError`) unless
        ``force`` is true, and then replaced only once the new run is complete (files in
        it that hopsim did not write are kept).
        """
        path = Path(outdir)
        path.parent.mkdir(parents=True, exist_ok=True)
        _recover(path)
        path = check_outdir(path, force)
        tmp = path.with_name(f".{path.name}.hopsim-tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            self._write_files(tmp)
            _put_in_place(tmp, path, _OUTPUT_FILES)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return path

    def _write_files(self, folder: Path) -> None:
        rows = {}
        for name, df in (
            ("flows.parquet", self.flows),
            ("ports.parquet", self.ports),
            ("pfc_events.parquet", self.pfc_events),
        ):
            df.to_parquet(folder / name, index=False)
            rows[name] = len(df)
        for name, (file, _) in _TABLES.items():
            df = getattr(self, name)
            if len(df):
                df.to_parquet(folder / file, index=False)
                rows[file] = len(df)
        for name, doc in (("summary.json", self.summary), ("scenario.json", self.scenario)):
            text = json.dumps(doc, indent=2, default=_json_default)
            (folder / name).write_text(text + "\n", encoding="utf-8")
        version = str(self.summary.get("hopsim_version", ""))
        manifest = _manifest(folder, rows, version)
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def read(cls, outdir: str | os.PathLike[str]) -> Result:
        """Load a result written by `write` (or by ``hopsim run``), after checking it
        against its ``manifest.json``: a directory whose files were changed, removed or
        added since is refused (`ValueError`)."""
        path = Path(outdir)
        missing = [f for f in _FILES if not (path / f).is_file()]
        if missing:
            raise FileNotFoundError(f"{path}: not a hopsim output directory (missing {missing[0]})")
        manifest = verify_manifest(path)
        result = cls(
            flows=pd.read_parquet(path / "flows.parquet"),
            ports=pd.read_parquet(path / "ports.parquet"),
            pfc_events=pd.read_parquet(path / "pfc_events.parquet"),
            summary=json.loads((path / "summary.json").read_text(encoding="utf-8")),
            scenario=json.loads((path / "scenario.json").read_text(encoding="utf-8")),
            **{
                name: pd.read_parquet(path / file) if (path / file).is_file() else None
                for name, (file, _) in _TABLES.items()
            },
        )
        if manifest is not None:
            tables = {"flows.parquet": result.flows, "ports.parquet": result.ports}
            tables["pfc_events.parquet"] = result.pfc_events
            tables.update({file: getattr(result, n) for n, (file, _) in _TABLES.items()})
            for file, df in tables.items():
                want = manifest["files"].get(file, {}).get("rows")
                if want is not None and want != len(df):
                    raise ValueError(f"{path}: {file} has {len(df)} rows, {MANIFEST} says {want}")
        return result

    # ------------------------------------------------------------ analysis (analysis.py)

    def class_summary(self, percentiles: Sequence[float] = (50, 99, 99.9)) -> pd.DataFrame:
        """Slowdown and FCT per flow class (see `hopsim.analysis.class_summary`)."""
        from hopsim import analysis

        return analysis.class_summary(self, percentiles)

    def fct_cdf(
        self,
        by: str | None = None,
        *,
        metric: str = "fct_ns",
        buckets: Sequence[float] | None = None,
    ) -> pd.DataFrame:
        """CDF of FCT or slowdown, optionally per class or size (`analysis.fct_cdf`)."""
        from hopsim import analysis

        return analysis.fct_cdf(self, by, metric=metric, buckets=buckets)

    def qct_summary(self, percentiles: Sequence[float] = (50, 99)) -> pd.Series:
        """Query count and QCT statistics (see `hopsim.analysis.qct_summary`)."""
        from hopsim import analysis

        return analysis.qct_summary(self, percentiles)

    def pause_spread(self) -> Any:
        """The run's flow-control pauses in force over time (see
        `hopsim.analysis.pause_spread`)."""
        from hopsim import analysis

        return analysis.pause_spread(self)

    def throughput_by_class(self) -> pd.DataFrame:
        """Delivered Gb/s per time bin and flow class (`analysis.throughput_by_class`)."""
        from hopsim import analysis

        return analysis.throughput_by_class(self)

    def queue_timeline(
        self,
        ports: Sequence[tuple[int, int]] | None = None,
        *,
        top: int = 5,
        queue: int | None = None,
    ) -> pd.DataFrame:
        """Egress queue bytes over time per port (see `hopsim.analysis.queue_timeline`)."""
        from hopsim import analysis

        return analysis.queue_timeline(self, ports, top=top, queue=queue)

    def buffer_by_tier(self) -> pd.DataFrame:
        """Peak buffer per switch tier and queue per hop tier (`analysis.buffer_by_tier`)."""
        from hopsim import analysis

        return analysis.buffer_by_tier(self)

    def queue_delay_summary(self, percentiles: Sequence[float] = (50, 99)) -> pd.DataFrame:
        """Queuing delay per hop tier (see `hopsim.analysis.queue_delay_summary`)."""
        from hopsim import analysis

        return analysis.queue_delay_summary(self, percentiles)
