"""``hopsim validate-against-ns3``: run hopsim and a user's build of the ns-3 RDMA (HPCC)
simulator on the same inputs and show, flow by flow, how far they agree.

Both simulators run as child processes, so each one's wall time and peak memory are its
own (start-up and writing results included). The ns-3 side can also be a finished run's
``fct.txt``. The comparison joins flows one to one (`hopsim.ns3.join_flows`) and reports
the per-bucket slowdown table, the per-flow correlation with the worst-agreeing flows,
PAUSE frames and drops of both, speed and memory, and hopsim's *noise floor*: how well two
hopsim runs that differ only in their seed agree. Random ECN marking (DCQCN, DCTCP
between the thresholds) makes a run one sample of many; no simulator agrees with another
flow by flow better than it agrees with itself under another seed.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hopsim import ns3, ns3_config
from hopsim.scenario import dumps_toml

__all__ = [
    "Ns3Build",
    "SideRun",
    "Validation",
    "find_build",
    "ns3_pause_frames",
    "run_child",
    "validate",
]

#: Checks a validation passes by default (`Validation.failures`).
DEFAULT_TOLERANCE = 0.05
DEFAULT_MIN_CORRELATION = 0.9
#: How far below the noise floor (a simulator's agreement with itself under another seed)
#: a per-flow correlation may fall and still agree.
FLOOR_MARGIN = 0.02
_STATS = ("mean", "p50", "p95")


#: The program of each ns-3 build this command drives, under ``build/scratch/``: the HPCC
#: simulator's ``third``, ConWeave's ``network-load-balance`` and Pyrrha-NS3's ``third``
#: (told from the HPCC one by its tree, `hopsim.ns3_pyrrha.MARKER`).
PROGRAMS = {"hpcc": "third", "conweave": "network-load-balance", "pyrrha": "third"}


@dataclass(frozen=True)
class Ns3Build:
    """A build of an ns-3 RDMA simulator: its program, the folder holding its shared
    libraries, the folder it runs from (HPCC's ``simulation/``, ConWeave's checkout) and
    which simulator it is (`flavour`: ``"hpcc"``, ``"conweave"`` or ``"pyrrha"``, see
    `PROGRAMS`)."""

    binary: Path
    lib_dir: Path
    workdir: Path
    flavour: str = "hpcc"


def find_build(simulation_dir: str | None, binary: str | None) -> Ns3Build:
    """Locate the program from the folder ns-3 runs from (``build/scratch/third``, or
    ConWeave's ``build/scratch/network-load-balance``, below it) or from its own path;
    raise `ValueError` naming the option when it is missing."""
    if binary:
        exe = Path(binary)
        option = "--binary"
    elif simulation_dir:
        option = "--ns3"
        if not Path(simulation_dir).is_dir():
            raise ValueError(
                f"--ns3: {simulation_dir} is not a folder (expected ns-3's simulation/, or "
                "ConWeave's checkout)"
            )
        scratch = Path(simulation_dir) / "build" / "scratch"
        found = [scratch / p for p in dict.fromkeys(PROGRAMS.values()) if (scratch / p).is_file()]
        exe = found[0] if found else scratch / PROGRAMS["hpcc"]
    else:
        raise ValueError(
            "give --ns3 SIMULATION_DIR or --binary PATH to run ns-3, or --ns3-fct FILE"
        )
    if not exe.is_file() or not os.access(exe, os.X_OK):
        programs = " or ".join(f"`{p}`" for p in dict.fromkeys(PROGRAMS.values()))
        raise ValueError(
            f"{option}: {exe} is not an executable ns-3 {programs} program (build ns-3 first)"
        )
    flavour = next((f for f, p in PROGRAMS.items() if exe.name.startswith(p)), "hpcc")
    # build/scratch/<program> links against build/libns3*.so
    lib_dir = exe.resolve().parent.parent
    workdir = Path(simulation_dir) if simulation_dir else lib_dir.parent
    from hopsim.ns3_pyrrha import is_pyrrha_tree

    if flavour == "hpcc" and is_pyrrha_tree(workdir):
        flavour = "pyrrha"
    return Ns3Build(exe.resolve(), lib_dir, workdir.resolve(), flavour)


@dataclass
class SideRun:
    """One simulator's run: wall time and peak memory of its process (None when the
    results were given rather than run) and what it reported."""

    name: str
    wall_s: float | None = None
    peak_rss_bytes: int | None = None
    flows_finished: int = 0
    pause_frames: int | None = None
    drops: int | None = None


#: Stop ns-3 when neither its log nor its outputs grew for this long (seconds).
NS3_STALL_S = 600.0
# How often the child is polled, and how often progress is reported (seconds).
_POLL_S = 0.5
_REPORT_S = 10.0


class Stalled(RuntimeError):
    """The child made no progress (its log and watched outputs stopped growing)."""


def _lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except OSError:
        return 0


def run_child(
    argv: Sequence[str],
    log: Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    *,
    watch: Sequence[Path] = (),
    stall_s: float | None = None,
    report: Callable[[str], None] | None = None,
) -> tuple[int, float, int]:
    """Run `argv` with output to `log`; return (exit status, wall seconds, peak RSS bytes)
    of that process alone (``wait4``). With `stall_s`, stop it and raise `Stalled` when
    neither `log` nor the `watch` files grew for that long; `report` gets a line about
    its progress (lines written to the first watched file) every few seconds."""
    with open(log, "wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env)
        try:
            sizes: tuple[int, ...] = ()
            changed = reported = t0
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                time.sleep(_POLL_S)
                now = time.perf_counter()
                seen = tuple(q.stat().st_size if q.exists() else -1 for q in (log, *watch))
                if seen != sizes:
                    sizes, changed = seen, now
                elif stall_s and now - changed > stall_s:
                    proc.kill()
                    proc.wait()
                    raise Stalled(
                        f"{Path(argv[0]).name} made no progress for {stall_s:g} s (neither {log} "
                        f"nor {', '.join(map(str, watch)) or 'its outputs'} grew) and was "
                        f"stopped; the end of {log}:\n{_tail(log)}"
                    )
                if report and now - reported >= _REPORT_S:
                    reported = now
                    done = f", {_lines(watch[0]):,} lines in {watch[0].name}" if watch else ""
                    report(f"{Path(argv[0]).name} running for {now - t0:.0f} s{done}")
        except BaseException:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            raise
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, wall, int(usage.ru_maxrss) * 1024


def ns3_pause_frames(pfc_path: str | os.PathLike[str]) -> int | None:
    """PAUSE frames in an ns-3 ``pfc.txt`` (lines ``time node node_type if_index type``,
    ``type`` 1 for PAUSE, logged where the frame arrives); None if the file is missing."""
    path = Path(pfc_path)
    if not path.is_file():
        return None
    count = 0
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 5:
            raise ValueError(
                f"{path}:{lineno}: expected 5 fields (time node type if type), got {len(fields)}"
            )
        count += fields[4] == "1"
    return count


def _tail(path: Path, lines: int = 8) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _redirect_outputs(cfg_text: str, prefix: Path) -> str:
    """A user's ns-3 config with its output files moved to `prefix`_* (theirs untouched)."""
    out = []
    suffix = {
        "FCT_OUTPUT_FILE": "_fct.txt",
        "PFC_OUTPUT_FILE": "_pfc.txt",
        "QLEN_MON_FILE": "_qlen.txt",
        "TRACE_OUTPUT_FILE": "_mix.tr",
        # ConWeave's ns-3 writes these too.
        "CNP_OUTPUT_FILE": "_cnp.txt",
        "FLOW_INPUT_FILE": "_in.txt",
        "VOQ_MON_FILE": "_voq.txt",
        "VOQ_MON_DETAIL_FILE": "_voq_per_dst.txt",
        "UPLINK_MON_FILE": "_uplink.txt",
        "CONN_MON_FILE": "_conn.txt",
        "EST_ERROR_MON_FILE": "_est_error.txt",
    }
    for line in cfg_text.splitlines():
        key = line.split(None, 1)[0] if line.strip() else ""
        out.append(f"{key} {prefix}{suffix[key]}" if key in suffix else line)
    return "\n".join(out) + "\n"


#: Keys of an ns-3 config naming files ns-3 reads (relative to its simulation/ folder).
_NS3_INPUTS = ("TOPOLOGY_FILE", "FLOW_FILE", "TRACE_FILE")


def check_ns3_inputs(build: Ns3Build, config: Path) -> None:
    """Refuse (`ValueError`) a config ns-3 could not open, or one naming input files that
    do not exist where ns-3 runs (its simulation/ folder): ns-3 does not stop on them
    but spins."""
    if not config.is_file():
        raise ValueError(f"the ns-3 config {config} does not exist")
    for line in config.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in _NS3_INPUTS:
            path = Path(parts[1])
            where = path if path.is_absolute() else build.workdir / path
            if not where.is_file():
                raise ValueError(
                    f"{config}: {parts[0]} {parts[1]}: no such file "
                    f"(ns-3 opens it from {build.workdir})"
                )


def ns3_env(build: Ns3Build) -> dict[str, str]:
    """The environment ns-3 runs in: ours, with its build folder's shared libraries first."""
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (str(build.lib_dir), env.get("LD_LIBRARY_PATH", "")) if p
    )
    return env


def run_ns3(
    build: Ns3Build,
    config: Path,
    outdir: Path,
    rng_run: int | None = None,
    *,
    stall_s: float | None = NS3_STALL_S,
    report: Callable[[str], None] | None = None,
) -> SideRun:
    """Run ns-3 on `config` from its ``simulation/`` folder (the config and outputs by
    absolute path); its libraries come from the build folder; `rng_run` sets ns-3's
    ``RngRun`` (its random stream). Raise `ValueError` when the config or its inputs are
    missing, `Stalled` when ns-3 makes no progress for `stall_s` seconds, and
    `RuntimeError` with the end of its log if it fails."""
    config, outdir = Path(config).resolve(), Path(outdir).resolve()
    check_ns3_inputs(build, config)
    env = ns3_env(build)
    if rng_run is not None:
        env["NS_GLOBAL_VALUE"] = f"RngRun={rng_run}"
    log = outdir / ("ns3.log" if rng_run is None else f"ns3_rngrun{rng_run}.log")
    fct = [
        Path(line.split()[1])
        for line in config.read_text(encoding="utf-8").splitlines()
        if line.startswith("FCT_OUTPUT_FILE ") and len(line.split()) >= 2
    ]
    status, wall, rss = run_child(
        [str(build.binary), str(config)],
        log,
        cwd=build.workdir,
        env=env,
        watch=fct,
        stall_s=stall_s,
        report=report,
    )
    if status != 0:
        raise RuntimeError(f"ns-3 exited with status {status}; the end of {log}:\n{_tail(log)}")
    return SideRun("ns-3", wall, rss)


def run_hopsim(scenario: Path, outdir: Path) -> SideRun:
    """``hopsim run`` in a child process, results in ``outdir`` (its own wall time and
    memory: Python start-up, the run and writing Parquet)."""
    code = "import sys, hopsim.cli; sys.exit(hopsim.cli.main(sys.argv[1:]))"
    log = outdir.parent / "hopsim.log"
    argv = [sys.executable, "-c", code, "run", str(scenario), "-o", str(outdir), "--force", "-q"]
    status, wall, rss = run_child(argv, log)
    if status != 0:
        raise RuntimeError(f"hopsim exited with status {status}; the end of {log}:\n{_tail(log)}")
    return SideRun("hopsim", wall, rss)


@dataclass
class Validation:
    """The outcome of one side-by-side run; `format` prints it, `failures` judges it."""

    name: str
    table: pd.DataFrame
    agreement: dict[str, Any]
    joined: pd.DataFrame
    hopsim: SideRun
    ns3: SideRun
    ns3_flows: int
    hopsim_flows: int
    floor: dict[str, Any] | None = None
    ns3_floor: dict[str, Any] | None = None
    mapping: list[ns3_config.MappedKey] = field(default_factory=list)
    #: The hopsim run's warnings (settings that contradict `compat = "ns3"`).
    notes: list[str] = field(default_factory=list)

    def bucket_checks(self, tolerance: float) -> list[str]:
        """Bucket statistics further than `tolerance` from ns-3's."""
        off = []
        for bucket, row in self.table.iterrows():
            if bucket == "all" or not row["n_ns3"]:
                continue
            for stat in _STATS:
                ratio = row[f"{stat}_ratio"]
                if not abs(ratio - 1) <= tolerance:
                    off.append(f"{bucket} {stat} {ratio:.3f}")
        return off

    def _ns3_spread(self, bucket: str, stat: str) -> str:
        if self.ns3_floor is None:
            return ""
        return f" (ns-3 against itself: {self.ns3_floor['ratios'][bucket][stat]:.3f})"

    def failures(
        self, tolerance: float = DEFAULT_TOLERANCE, min_correlation: float = DEFAULT_MIN_CORRELATION
    ) -> list[str]:
        """What falls short: bucket statistics off by more than `tolerance`, a per-flow
        correlation below `min_correlation`, flows joined one to one fewer than ns-3's."""
        out = [
            f"bucket statistic off by more than {tolerance:.0%}: {o}"
            + self._ns3_spread(*o.rsplit(" ", 2)[:2])
            for o in self.bucket_checks(tolerance)
        ]
        corr = self.agreement["correlation"]
        bar = self.correlation_bar(min_correlation)
        if not corr >= bar:
            out.append(f"per-flow slowdown correlation {corr:.3f} < {bar:.3f}{self._bar_why(bar)}")
        if self.agreement["flows"] < self.ns3_flows:
            out.append(
                f"only {self.agreement['flows']:,} of ns-3's {self.ns3_flows:,} finished "
                "flows joined one to one"
            )
        return out

    def correlation_bar(self, min_correlation: float = DEFAULT_MIN_CORRELATION) -> float:
        """The per-flow correlation a run must reach: `min_correlation`, or, when random
        marking makes a simulator agree with itself less than that, its noise floor (the
        lower of hopsim's and ns-3's self-agreement under another seed, when measured) less
        `FLOOR_MARGIN` — no simulator can agree with another better than with itself."""
        floors = [
            f["correlation"]
            for f in (self.floor, self.ns3_floor)
            if f is not None and math.isfinite(f.get("correlation", math.nan))
        ]
        if not floors:
            return min_correlation
        return min(min_correlation, min(floors) - FLOOR_MARGIN)

    def _bar_why(self, bar: float) -> str:
        return "" if bar >= DEFAULT_MIN_CORRELATION else " (the noise floor less 0.02)"

    def format(
        self, tolerance: float = DEFAULT_TOLERANCE, min_correlation: float = DEFAULT_MIN_CORRELATION
    ) -> str:
        lines = [_format_sides(self.hopsim, self.ns3, self.hopsim_flows, self.ns3_flows), ""]
        lines.append(ns3.format_comparison(self.table, self.name, tolerance, stats=_STATS))
        lines.append("")
        lines.append(ns3.format_agreement(self.agreement))
        if self.floor is not None:
            lines.append("")
            lines.append(_format_floor(self.floor))
        if self.ns3_floor is not None:
            lines.append(_format_ns3_floor(self.ns3_floor))
        if self.notes:
            lines.append("")
            lines.append("the hopsim scenario departs from ns-3 (its run is not ns-3's there):")
            lines.extend(f"  {n}" for n in self.notes)
        not_modelled = [m for m in self.mapping if not m.modelled]
        if not_modelled:
            lines.append("")
            lines.append("ns-3 settings hopsim does not model (see mapping.txt):")
            lines.extend(f"  {m.key} {m.value}: {m.hopsim}" for m in not_modelled)
        fails = self.failures(tolerance, min_correlation)
        lines.append("")
        if fails:
            lines.append("DIFFERS:")
            lines.extend(f"  {f}" for f in fails)
        else:
            bar = self.correlation_bar(min_correlation)
            lines.append(
                f"AGREES: every bucket's mean, p50 and p95 within {tolerance:.0%}, per-flow "
                f"correlation {self.agreement['correlation']:.3f} >= {bar:.3f}"
                f"{self._bar_why(bar)}"
            )
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        agreement = {k: v for k, v in self.agreement.items() if k != "worst"}
        return {
            "name": self.name,
            "hopsim": vars(self.hopsim),
            "ns3": vars(self.ns3),
            "flows": {
                "ns3": self.ns3_flows,
                "hopsim": self.hopsim_flows,
                "joined": self.agreement["flows"],
            },
            "agreement": agreement,
            "notes": self.notes,
            "noise_floor": self.floor,
            "ns3_noise_floor": self.ns3_floor,
            "buckets": json.loads(self.table.reset_index().to_json(orient="records")),
            "not_modelled": [vars(m) for m in self.mapping if not m.modelled],
        }


def _fmt_side(side: SideRun) -> str:
    if side.wall_s is None:
        return "given (not run here)"
    return f"{side.wall_s:.1f} s wall, peak RSS {side.peak_rss_bytes / 2**20:,.0f} MiB"


def _format_sides(h: SideRun, n: SideRun, hopsim_flows: int, ns3_flows: int) -> str:
    def count(v: int | None, what: str) -> str:
        return f"{v:,} {what}" if v is not None else f"{what}: not reported"

    lines = [
        f"hopsim: {hopsim_flows:,} flows finished, {count(h.pause_frames, 'PAUSE frames')}, "
        f"{count(h.drops, 'drops')}; {_fmt_side(h)}",
        f"ns-3:   {ns3_flows:,} flows finished, {count(n.pause_frames, 'PAUSE frames')}, "
        f"drops not counted by ns-3; {_fmt_side(n)}",
    ]
    if h.wall_s and n.wall_s:
        lines.append(
            f"speed: hopsim {n.wall_s / h.wall_s:.1f}x faster; memory: hopsim "
            f"{h.peak_rss_bytes / n.peak_rss_bytes:.2f}x ns-3's"
        )
    return "\n".join(lines)


def _format_floor(floor: Mapping[str, Any]) -> str:
    if floor["identical"]:
        return (
            "noise floor: hopsim with another seed gives identical flows (no random marking in "
            "this run), so any disagreement is a model difference"
        )
    return (
        f"noise floor (hopsim seed {floor['seeds'][0]} vs {floor['seeds'][1]}): "
        "per-flow correlation "
        f"{floor['correlation']:.3f} (log {floor['log_correlation']:.3f}), "
        f"{floor['share_off_10pct']:.1%} of flows' slowdowns differ by more than 10% "
        f"(against ns-3: {floor['share_off_10pct_vs_ns3']:.1%}). Random ECN marking makes each "
        "run one sample: no simulator agrees with another flow by flow better than with itself."
    )


def ns3_self_agreement(a: pd.DataFrame, b: pd.DataFrame) -> dict[str, Any]:
    """Two ns-3 runs of one input that differ only in ``RngRun``: per-flow agreement (flows
    matched by source, destination, source port and size) and each bucket statistic's ratio."""
    key = ["src", "dst", "sport", "size_bytes"]
    m = a.merge(b, on=key, suffixes=("_a", "_b"))
    sa = (m["fct_ns_a"] / m["ideal_fct_ns_a"]).clip(lower=1.0)
    sb = (m["fct_ns_b"] / m["ideal_fct_ns_b"]).clip(lower=1.0)
    ba, bb = ns3.buckets(a), ns3.buckets(b)
    ratios = {
        bucket: {stat: float(bb.loc[bucket, stat] / ba.loc[bucket, stat]) for stat in _STATS}
        for bucket in ba.index
    }
    return {
        "flows": len(m),
        "correlation": float(sa.corr(sb)),
        "share_off_10pct": share_apart(sa, sb),
        "ratios": ratios,
    }


def _format_ns3_floor(f: Mapping[str, Any]) -> str:
    worst = max(
        ((b, s, r) for b, row in f["ratios"].items() if b != "all" for s, r in row.items()),
        key=lambda t: abs(t[2] - 1),
    )
    return (
        f"ns-3 against itself (RngRun 1 vs 2): per-flow correlation {f['correlation']:.3f}, "
        f"{f['share_off_10pct']:.1%} of flows more than 10% apart; its bucket statistics move "
        f"by up to {abs(worst[2] - 1):.1%} ({worst[0]} {worst[1]})"
    )


def seed_floor(flows_a: pd.DataFrame, flows_b: pd.DataFrame) -> dict[str, Any]:
    """How two runs of one scenario that differ only in seed agree, flow by flow."""
    a = flows_a.set_index("flow_id")
    b = flows_b.set_index("flow_id")
    both = a.index.intersection(b.index)
    a, b = a.loc[both], b.loc[both]
    ok = a["fct_ns"].notna() & b["fct_ns"].notna()
    sa = (a["fct_ns"][ok] / a["ideal_fct_ns"][ok]).clip(lower=1.0)
    sb = (b["fct_ns"][ok] / b["ideal_fct_ns"][ok]).clip(lower=1.0)
    identical = bool((a["fct_ns"][ok] == b["fct_ns"][ok]).all())
    return {
        "identical": identical,
        "correlation": 1.0 if identical else float(sa.corr(sb)),
        "log_correlation": 1.0 if identical else float(sa.map(math.log).corr(sb.map(math.log))),
        "share_off_10pct": share_apart(sa, sb),
    }


def share_apart(a: pd.Series, b: pd.Series, factor: float = 1.1) -> float:
    """Share of flows whose slowdowns `a` and `b` differ by more than `factor`."""
    return float(((a / b).map(math.log).abs() > math.log(factor)).mean())


def validate(
    doc: dict[str, Any],
    outdir: Path,
    *,
    name: str,
    ns3_fct: Path | None = None,
    ns3_pfc: Path | None = None,
    build: Ns3Build | None = None,
    ns3_config_text: str | None = None,
    floor: bool = True,
    ns3_floor: bool = False,
    worst: int = 10,
    mapping: list[ns3_config.MappedKey] | None = None,
    stall_s: float | None = NS3_STALL_S,
    report: Callable[[str], None] | None = None,
) -> Validation:
    """Run (or read) both sides into `outdir` and compare them. `doc` is the hopsim
    scenario; ns-3 either runs `ns3_config_text` with `build`, or `ns3_fct` is read.
    `floor`: also run hopsim with the next seed; `ns3_floor`: also run ns-3 with
    ``RngRun=2`` (needs a build). `stall_s` and `report`: see `run_ns3`.

    ns-3 runs from its simulation/ folder: the config written for it and the outputs it
    is told to write are given by absolute path (a relative `outdir` would be read from
    there)."""
    outdir = Path(outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    scenario = outdir / "scenario.toml"
    scenario.write_text(dumps_toml(doc), encoding="utf-8")
    if mapping:
        compat = str(doc.get("compat", "ns3"))
        (outdir / "mapping.txt").write_text(_format_mapping(mapping, compat), encoding="utf-8")

    if ns3_fct is None:
        if build is None or ns3_config_text is None:
            raise ValueError(
                "give an ns-3 build and a configuration to run, or an existing fct.txt"
            )
        prefix = outdir / "ns3"
        config = outdir / "ns3_config.txt"
        config.write_text(_redirect_outputs(ns3_config_text, prefix), encoding="utf-8")
        ns3_side = run_ns3(build, config, outdir, stall_s=stall_s, report=report)
        ns3_fct, ns3_pfc = Path(f"{prefix}_fct.txt"), Path(f"{prefix}_pfc.txt")
    else:
        ns3_side = SideRun("ns-3")
    fct = ns3.read_fct(ns3_fct)
    ns3_self = None
    if ns3_floor:
        if build is None or ns3_config_text is None:
            raise ValueError("ns-3's own noise floor needs a build to run (not --ns3-fct)")
        prefix2 = outdir / "ns3_rngrun2"
        config2 = outdir / "ns3_config_rngrun2.txt"
        config2.write_text(_redirect_outputs(ns3_config_text, prefix2), encoding="utf-8")
        run_ns3(build, config2, outdir, rng_run=2, stall_s=stall_s, report=report)
        ns3_self = ns3_self_agreement(fct, ns3.read_fct(f"{prefix2}_fct.txt"))
    ns3_side.flows_finished = len(fct)
    ns3_side.pause_frames = ns3_pause_frames(ns3_pfc) if ns3_pfc is not None else None

    import hopsim  # the package imports this module's command: import it late

    hopsim_side = run_hopsim(scenario, outdir / "hopsim")
    result = hopsim.Result.read(outdir / "hopsim")
    s = result.summary
    hopsim_side.flows_finished = int(s["flows_finished"])
    hopsim_side.pause_frames = int(s.get("pfc_pause_frames", 0))
    hopsim_side.drops = int(s.get("drops", 0))

    table = ns3.compare(result, ns3.buckets(fct))
    joined = ns3.join_flows(result.flows, fct)
    if joined.empty:
        raise ValueError(
            f"no flow of {ns3_fct} matches one of hopsim's by (source, destination, size, start): "
            "are they runs of the same flow file?"
        )
    agreement = ns3.agreement(joined, worst=worst)
    floor_stats = None
    if floor:
        other = hopsim.run({**doc, "seed": int(doc.get("seed", 1)) + 1}, base_dir=str(outdir))
        floor_stats = seed_floor(result.flows, other.flows)
        floor_stats["seeds"] = [int(doc.get("seed", 1)), int(doc.get("seed", 1)) + 1]
        floor_stats["share_off_10pct_vs_ns3"] = share_apart(
            joined["slowdown_hopsim"], joined["slowdown_ns3"]
        )
    joined.to_csv(outdir / "flows.csv", index=False)
    v = Validation(
        name=name,
        table=table,
        agreement=agreement,
        joined=joined,
        hopsim=hopsim_side,
        ns3=ns3_side,
        ns3_flows=len(fct),
        hopsim_flows=hopsim_side.flows_finished,
        floor=floor_stats,
        ns3_floor=ns3_self,
        mapping=mapping or [],
        notes=[str(text) for _, text in s.get("notes") or []],
    )
    (outdir / "agreement.json").write_text(
        json.dumps(v.to_json(), indent=2) + "\n", encoding="utf-8"
    )
    return v


def _format_mapping(rows: Sequence[ns3_config.MappedKey], compat: str = "ns3") -> str:
    width = max(len(r.key) for r in rows)
    lines = [
        f'# ns-3 configuration key -> hopsim scenario field (compat = "{compat}" fills the rest)'
    ]
    for r in rows:
        target = f"{r.field} = {r.hopsim}" if r.field else r.hopsim
        flag = "" if r.modelled else "   [not modelled]"
        lines.append(f"{r.key:<{width}}  {r.value:<24}  {target}{flag}")
    return "\n".join(lines) + "\n"
