"""Side-by-side comparison with the ns-3 RDMA (HPCC) simulator on identical inputs.

The ns-3 results come as per-bucket FCT-slowdown tables (``reference_buckets_*.txt`` in
``shared/anchors/ns3-fattree320``): for each ns-3 run, the mean, p50, p95 and p99 slowdown
of the flows in each size bucket. hopsim's flows are bucketed with the same convention —
slowdown = FCT / ideal FCT clipped at ≥ 1 (the HPCC repository's ``fct_analysis.py``),
percentile = ``sorted[int(n × p)]``, buckets ≤10 KB, 10–100 KB, 100 KB–1 MB, 1–10 MB,
>10 MB — and the two tables are printed side by side with their ratios.

>>> ref = read_reference("shared/anchors/ns3-fattree320/reference_buckets_ws30.txt")
>>> table = compare(result, ref["ws30_10ms_dcqcn"])          # doctest: +SKIP
>>> print(format_comparison(table, "ws30_10ms_dcqcn"))       # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "BUCKETS",
    "STATS",
    "agreement",
    "compare",
    "format_agreement",
    "format_comparison",
    "join_flows",
    "read_fct",
    "read_reference",
    "reference_name",
]

#: Bucket labels and their upper size edges in bytes (ns-3's reference convention).
BUCKETS: tuple[tuple[str, float], ...] = (
    ("<=10KB", 10_000),
    ("10KB-100KB", 100_000),
    ("100KB-1MB", 1_000_000),
    ("1MB-10MB", 10_000_000),
    (">10MB", math.inf),
)
#: Statistics per bucket, as the reference tables give them.
STATS = ("mean", "p50", "p95", "p99")

_RUN = re.compile(r"^#\s*ns-3 run:\s*(\S+?)(?:\.txt)?\s")


def read_reference(path: str | os.PathLike[str]) -> dict[str, pd.DataFrame]:
    """The per-bucket tables of an ns-3 reference file, keyed by ns-3 run name (e.g.
    ``ws30_10ms_dcqcn``); each indexed by bucket with columns ``n`` and `STATS`."""
    tables: dict[str, pd.DataFrame] = {}
    name: str | None = None
    rows: list[list[Any]] = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        run = _RUN.match(line)
        if run:
            if name is not None:
                tables[name] = _table(rows)
            name, rows = run.group(1), []
            continue
        fields = line.split()
        if name is None or not fields or line.startswith("#") or fields[0] == "bucket":
            continue
        if len(fields) != 2 + len(STATS):
            raise ValueError(f"{path}:{lineno}: expected bucket, n and {len(STATS)} statistics")
        rows.append([fields[0], int(fields[1]), *map(float, fields[2:])])
    if name is not None:
        tables[name] = _table(rows)
    if not tables:
        raise ValueError(f"{path}: no '# ns-3 run:' table found")
    return tables


def _table(rows: list[list[Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["bucket", "n", *STATS]).set_index("bucket")


def reference_name(scenario: Mapping[str, Any]) -> str:
    """The ns-3 run a scenario reproduces: its flow file's name and its congestion control
    as the reference names them (``ws30_10ms`` + ``_dcqcn`` or ``_hp95ai50`` for HPCC)."""
    workloads = scenario.get("workload")
    first = workloads[0] if isinstance(workloads, list) else workloads
    file = (first or {}).get("file")
    if not file:
        raise ValueError("the scenario has no flow file; name the ns-3 run with --name")
    cc = (scenario.get("transport") or {}).get("cc", "dcqcn")
    suffix = {"hpcc": "hp95ai50"}.get(cc, cc)
    return f"{Path(file).stem}_{suffix}"


def _percentile(values: Sequence[float], p: float) -> float:
    return values[min(int(len(values) * p), len(values) - 1)] if values else math.nan


def buckets(flows: pd.DataFrame) -> pd.DataFrame:
    """hopsim's flows bucketed as the reference: ``n`` and `STATS` per bucket, then
    ``all``. Unfinished flows are left out (and counted in ``n`` of neither)."""
    done = flows[flows["fct_ns"].notna()]
    slowdown = (done["fct_ns"] / done["ideal_fct_ns"]).clip(lower=1.0)
    rows = []
    lower = -math.inf
    for label, upper in (*BUCKETS, ("all", math.inf)):
        if label == "all":
            lower = -math.inf
        inside = (done["size_bytes"] > lower) & (done["size_bytes"] <= upper)
        values = sorted(slowdown[inside].tolist())
        stats = [sum(values) / len(values) if values else math.nan]
        stats += [_percentile(values, p) for p in (0.5, 0.95, 0.99)]
        rows.append([label, len(values), *stats])
        lower = upper
    return _table(rows)


def compare(result: Any, reference: pd.DataFrame) -> pd.DataFrame:
    """ns-3's and hopsim's buckets side by side: for each statistic its ns-3 value, hopsim's
    and hopsim / ns-3."""
    ours = buckets(result.flows if hasattr(result, "flows") else result)
    table = pd.DataFrame(index=reference.index)
    table["n_ns3"] = reference["n"]
    table["n_hopsim"] = ours["n"].reindex(reference.index)
    for stat in STATS:
        table[f"{stat}_ns3"] = reference[stat]
        table[f"{stat}_hopsim"] = ours[stat].reindex(reference.index)
        table[f"{stat}_ratio"] = table[f"{stat}_hopsim"] / table[f"{stat}_ns3"]
    return table


def format_comparison(
    table: pd.DataFrame,
    name: str,
    tolerance: float = 0.10,
    stats: Sequence[str] = STATS,
) -> str:
    """The comparison as text: per bucket, each statistic as ``ns-3 / hopsim (ratio)``,
    with ``*`` on ratios further than `tolerance` from 1; then how many are within it."""
    head = f"{'bucket':<12}{'n ns-3':>8}{'hopsim':>8}"
    head += "".join(f"{stat + ' ns-3 / hopsim':>28}" for stat in stats)
    lines = [f"ns-3 run {name}: FCT slowdown per size bucket (ratio = hopsim / ns-3)", head]
    within = total = 0
    for bucket, row in table.iterrows():
        line = f"{bucket:<12}{int(row['n_ns3']):>8}{int(row['n_hopsim']):>8}"
        for stat in stats:
            ratio = row[f"{stat}_ratio"]
            off = not (abs(ratio - 1) <= tolerance)
            within += not off and bucket != "all"
            total += bucket != "all"
            cell = f"{row[f'{stat}_ns3']:.3f} / {row[f'{stat}_hopsim']:.3f} ({ratio:.2f})"
            line += f"{cell + ('*' if off else ' '):>28}"
        lines.append(line)
    lines.append(
        f"{within} of {total} bucket statistics within {tolerance:.0%} of ns-3 "
        f"(* marks the others; 'all' not counted)"
    )
    return "\n".join(lines)


# ---------------------------------------------------------------- per-flow agreement

_FCT_COLUMNS = ("sip", "dip", "sport", "dport", "size_bytes", "start_ns", "fct_ns", "ideal_fct_ns")


def _node_of_ip(ip: int) -> int:
    """ns-3's ``ip_to_node_id``: the node id sits in the address's second and third bytes."""
    return (ip >> 8) & 0xFFFF


def read_fct(path: str | os.PathLike[str]) -> pd.DataFrame:
    """An ns-3 ``fct.txt`` (``sip dip sport dport size start_ns fct_ns standalone_fct_ns``)
    as a table with ``src`` and ``dst`` node ids; malformed lines are named with
    ``file:line``. The HPCC simulator prints the addresses as eight hex digits; ConWeave's
    ns-3 prints the node ids themselves, in decimal (``Settings::ip_to_node_id``): a file
    whose first two columns are not all eight-digit hex is read so."""
    parsed: list[list[str]] = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != len(_FCT_COLUMNS):
            raise ValueError(
                f"{path}:{lineno}: expected {len(_FCT_COLUMNS)} fields, got {len(fields)}"
            )
        parsed.append([str(lineno), *fields])
    addresses = all(len(f[1]) == 8 and len(f[2]) == 8 for f in parsed)
    rows = []
    for lineno, *fields in parsed:
        try:
            if addresses:
                rows.append([int(fields[0], 16), int(fields[1], 16), *map(int, fields[2:])])
            else:
                rows.append([*map(int, fields)])
        except ValueError:
            what = "hex addresses" if addresses else "node ids"
            raise ValueError(f"{path}:{lineno}: expected {what} and integers") from None
    df = pd.DataFrame(rows, columns=list(_FCT_COLUMNS))
    if addresses:
        df.insert(0, "dst", df["dip"].map(_node_of_ip))
        df.insert(0, "src", df["sip"].map(_node_of_ip))
    else:
        df.insert(0, "dst", df["dip"])
        df.insert(0, "src", df["sip"])
    return df


def join_flows(
    flows: pd.DataFrame, ns3_fct: pd.DataFrame, tolerance_ns: float = 2.0
) -> pd.DataFrame:
    """hopsim's finished flows joined one to one with ns-3's: by (src, dst, size), in start
    order, keeping pairs whose starts agree within `tolerance_ns` (ns-3 truncates a flow
    file's start seconds to whole nanoseconds through a double; hopsim reads them exactly).
    Columns: ``flow_id, src, dst, size_bytes, start_ns``, then ``fct``, ``ideal`` and
    ``slowdown`` (clipped at 1) of each (suffixes ``_hopsim`` and ``_ns3``)."""
    key = ["src", "dst", "size_bytes"]
    ours = flows[flows["fct_ns"].notna()].sort_values("start_ns", kind="stable")
    ours = ours.assign(_n=ours.groupby(key).cumcount())
    theirs = ns3_fct.sort_values("start_ns", kind="stable")
    theirs = theirs.assign(_n=theirs.groupby(key).cumcount())
    joined = ours.merge(theirs, on=[*key, "_n"], suffixes=("", "_x"))
    joined = joined[(joined["start_ns"] - joined["start_ns_x"]).abs() <= tolerance_ns]
    out = joined[["flow_id", *key]].copy()
    out["fct_hopsim"] = joined["fct_ns"]
    out["ideal_hopsim"] = joined["ideal_fct_ns"]
    out["fct_ns3"] = joined["fct_ns_x"].astype(float)
    out["ideal_ns3"] = joined["ideal_fct_ns_x"].astype(float)
    out["slowdown_hopsim"] = (out["fct_hopsim"] / out["ideal_hopsim"]).clip(lower=1.0)
    out["slowdown_ns3"] = (out["fct_ns3"] / out["ideal_ns3"]).clip(lower=1.0)
    return out.sort_values("flow_id").reset_index(drop=True)


def agreement(joined: pd.DataFrame, worst: int = 10) -> dict[str, Any]:
    """Flow-by-flow agreement of a `join_flows` table: Pearson correlation of the
    slowdowns (and of their logarithms), the median and 95th-percentile ratio of FCTs, and
    the `worst` flows by |log(slowdown ratio)|."""
    s_h, s_n = joined["slowdown_hopsim"], joined["slowdown_ns3"]
    ratio = joined["fct_hopsim"] / joined["fct_ns3"]
    off = (s_h / s_n).map(math.log).abs()
    return {
        "flows": len(joined),
        "correlation": float(s_h.corr(s_n)),
        "log_correlation": float(s_h.map(math.log).corr(s_n.map(math.log))),
        "fct_ratio_p50": float(ratio.quantile(0.5)),
        "fct_ratio_p95": float(ratio.quantile(0.95)),
        "worst": joined.assign(ratio=s_h / s_n).loc[off.sort_values(ascending=False).index[:worst]],
    }


def format_agreement(stats: Mapping[str, Any]) -> str:
    """`agreement` as text, with the worst-agreeing flows."""
    lines = [
        f"flows joined one to one: {stats['flows']:,}",
        f"per-flow slowdown correlation: {stats['correlation']:.3f} "
        f"(of log slowdowns: {stats['log_correlation']:.3f})",
        f"FCT ratio hopsim / ns-3: median {stats['fct_ratio_p50']:.3f}, "
        f"p95 {stats['fct_ratio_p95']:.3f}",
        "worst-agreeing flows (slowdown hopsim / ns-3):",
    ]
    for _, row in stats["worst"].iterrows():
        lines.append(
            f"  flow {int(row['flow_id']):>6} {int(row['src']):>4} -> {int(row['dst']):<4} "
            f"{int(row['size_bytes']):>10,} B  {row['slowdown_hopsim']:8.3f} / "
            f"{row['slowdown_ns3']:8.3f} ({row['ratio']:.2f})"
        )
    return "\n".join(lines)
