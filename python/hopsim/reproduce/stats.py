"""Tables and statistics the papers' analyses share.

An experiment's metrics table has one row per run: its ``group`` (a setting shared by the
schemes compared, e.g. ``"webserver"`` or ``"DCTCP, 95%"``), its ``scheme`` (the variant's
label), its ``status``, any fields parsed from the group, and the run's metrics. `get` reads
one value by scheme and setting, `ratios` one scheme over another per group.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from hopsim.reproduce.framework import Run

__all__ = ["counters", "div", "fmt", "fmt_range", "get", "gmean", "pct_lower", "ratios", "table"]


def table(
    runs: list[Run],
    metrics: Callable[[Run], dict[str, Any]],
    fields: Callable[[str], dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """One row per run: group, scheme, status, ``fields(group)`` and, for a run that
    finished, ``metrics(run)``."""
    rows = []
    for r in runs:
        row: dict[str, Any] = {
            "group": r.variant.group,
            "scheme": r.variant.label,
            "status": r.status,
        }
        if fields is not None:
            row.update(fields(r.variant.group))
        if r.ok:
            row.update(metrics(r))
        rows.append(row)
    return pd.DataFrame(rows)


def get(m: pd.DataFrame, scheme: str, col: str, **where: Any) -> float:
    """`col` of `scheme`'s first row matching every ``column=value`` in `where` (NaN when
    there is none, or a column is missing)."""
    sel = m[m["scheme"] == scheme]
    for k, v in where.items():
        if k not in sel:
            return math.nan
        sel = sel[sel[k] == v]
    if sel.empty or col not in sel or pd.isna(sel[col].iloc[0]):
        return math.nan
    return float(sel[col].iloc[0])


def ratios(m: pd.DataFrame, num: str, den: str, col: str, **where: Any) -> list[float]:
    """`col` of scheme `num` over scheme `den`, per group (in table order) where both ran,
    among the rows matching `where`."""
    sel = m
    for k, v in where.items():
        if k not in sel:
            return []
        sel = sel[sel[k] == v]
    out = []
    for g in sel["group"].unique():
        a, b = get(sel, num, col, group=g), get(sel, den, col, group=g)
        if math.isfinite(a) and math.isfinite(b) and b > 0:
            out.append(a / b)
    return out


def div(a: float, b: float) -> float:
    """a / b, NaN unless both are finite and b is positive."""
    if not (math.isfinite(a) and math.isfinite(b)) or b <= 0:
        return math.nan
    return a / b


def pct_lower(better: float, base: float) -> float:
    """How much lower `better` is than `base`, in %."""
    r = div(better, base)
    return 100 * (1 - r) if math.isfinite(r) else math.nan


def gmean(xs: Iterable[float]) -> float:
    """Geometric mean of the positive finite values (NaN if none)."""
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else math.nan


def fmt(x: float, spec: str = "{:.2f}") -> str:
    """`x` formatted, "∞" or "not measured"."""
    if math.isinf(x):
        return "∞"
    return spec.format(x) if math.isfinite(x) else "not measured"


def fmt_range(xs: Iterable[float], spec: str = "{:.2f}") -> str:
    """The finite values' range ("1.26–5.96"), one value when they agree."""
    xs = [x for x in xs if math.isfinite(x)]
    if not xs:
        return "not measured"
    lo, hi = min(xs), max(xs)
    return spec.format(lo) if math.isclose(lo, hi) else f"{spec.format(lo)}–{spec.format(hi)}"


def counters(
    m: pd.DataFrame,
    schemes: Iterable[str],
    cols: Iterable[tuple[str, str]],
    spec: str = "{:,.0f}",
    **where: Any,
) -> str:
    """Measured counters of `schemes` at `where`, per group where the rows span several:
    "drops PFC 0, Per-flow 1,724,650; timeouts PFC 0, Per-flow 6,446" (columns the table
    lacks are left out)."""
    sel = m
    for k, v in where.items():
        sel = sel[sel[k] == v] if k in sel else sel.iloc[:0]
    groups = list(dict.fromkeys(sel["group"])) if "group" in sel else []
    parts = []
    for col, label in cols:
        if col not in sel:
            continue
        per = []
        for g in groups:
            vals = ", ".join(f"{s} {fmt(get(sel, s, col, group=g), spec)}" for s in schemes)
            per.append(vals if len(groups) == 1 else f"{g}: {vals}")
        parts.append(f"{label} " + " / ".join(per))
    return "; ".join(parts)
