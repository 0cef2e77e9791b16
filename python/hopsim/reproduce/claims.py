"""Claims as data: a paper's claim is a `Claim` row (the statement, the paper's number or
range, a selector of hopsim's number from the metrics table, the comparison kind and its
tolerance, and what explains a difference), and `evaluate` turns it into a `ClaimResult`
(a row of ``claims.csv``).

A selector is any function of the metrics table returning a `Measure`: the number compared
with the paper's, the text shown, and the values the claim's direction must hold for. The
factories here (`ratio`, `reduction`, `pct_lower`, `about`) cover the common shapes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

import pandas as pd

from hopsim.reproduce.stats import div, fmt, fmt_range, get, gmean, ratios

__all__ = [
    "ABOUT",
    "ABSOLUTE",
    "AT_LEAST",
    "AT_MOST",
    "AGREE_FACTOR",
    "FLAT",
    "GAIN",
    "HIGHER",
    "LOWER",
    "NEW",
    "PCT",
    "Claim",
    "ClaimResult",
    "Measure",
    "about",
    "at",
    "change",
    "compare",
    "evaluate",
    "lower_text",
    "pct_lower",
    "quotient",
    "ratio",
    "reduction",
    "several",
    "text",
]

#: A ratio within this factor of the paper's number (either way) "agrees".
AGREE_FACTOR = 2.0

#: The paper's number: a value, a range (low, high), or none.
PaperValue = Union[float, tuple[float, float], None]

# Comparison kinds: what "the direction agrees" means for the measure's checked values.
HIGHER = "higher"  # every checked value > 1
LOWER = "lower"  # every checked value < 1
GAIN = "gain"  # every checked value > 0 (a % change; the ratio is kept when it is not)
PCT = "pct"  # every checked value > 0 (a % change; no ratio when it is not)
ABOUT = "about"  # every checked value within [1 / tolerance, tolerance]
FLAT = "flat"  # every checked value (a max / min spread) below the tolerance
AT_MOST = "at most"  # every checked value <= the tolerance
AT_LEAST = "at least"  # every checked value >= the tolerance
ABSOLUTE = "absolute"  # the value was measured
NEW = "new"  # a result the paper does not have


@dataclass(frozen=True)
class ClaimResult:
    """One row of ``claims.csv``: a claim of the paper beside what hopsim measured."""

    experiment: str
    figure: str
    section: str
    claim: str
    paper: str
    measured: str
    direction_agrees: bool | None
    ratio: float | None
    verdict: str
    note: str = ""


@dataclass(frozen=True)
class Measure:
    """What a selector found: `value` is compared with the paper's number (None: not
    measured), `text` is shown, and the claim's direction must hold for each of `checked`
    (default: `value`)."""

    value: float | None
    text: str
    checked: tuple[float, ...] | None = None


Selector = Callable[[pd.DataFrame], Measure]
Note = Union[str, Callable[[pd.DataFrame], str]]


@dataclass(frozen=True)
class Claim:
    """A claim of the paper, as data (see the module documentation)."""

    statement: str
    paper: str
    value: PaperValue
    measure: Selector
    kind: str
    tolerance: float | None = None
    #: What explains a difference (text, or a function of the metrics table).
    why: Note = ""


def _bound(paper_value: PaperValue, measured: float | None) -> float | None:
    if paper_value is None or measured is None or not math.isfinite(measured):
        return None
    if isinstance(paper_value, tuple):
        lo, hi = paper_value
        if lo <= measured <= hi:
            return 1.0
        paper_value = lo if measured < lo else hi
    if paper_value == 0:
        return None
    return measured / paper_value


def compare(
    experiment: Any,
    claim: str,
    paper: str,
    paper_value: PaperValue,
    measured: float | None,
    measured_text: str,
    direction_agrees: bool | None,
    why: str = "",
) -> ClaimResult:
    """A claim's row: ratio and verdict from the numbers; ``why`` is kept as the note
    unless the claim agrees (it is what was found about a difference)."""
    ratio = _bound(paper_value, measured) if measured is not None else None
    if direction_agrees is None or measured is None:
        verdict = "differs"
    elif not direction_agrees:
        verdict = "differs"
    elif ratio is None or 1 / AGREE_FACTOR <= ratio <= AGREE_FACTOR:
        verdict = "agrees"
    else:
        verdict = "direction only"
    return ClaimResult(
        experiment=experiment.name,
        figure=experiment.figure,
        section=experiment.section,
        claim=claim,
        paper=paper,
        measured=measured_text,
        direction_agrees=direction_agrees,
        ratio=None if ratio is None else round(ratio, 3),
        verdict=verdict,
        note="" if verdict == "agrees" else why,
    )


def _holds(kind: str, x: float, tolerance: float | None) -> bool:
    t = tolerance
    tests: dict[str, Callable[[], bool]] = {
        HIGHER: lambda: x > 1,
        LOWER: lambda: x < 1,
        GAIN: lambda: x > 0,
        PCT: lambda: x > 0,
        ABOUT: lambda: 1 / t <= x <= t,
        FLAT: lambda: x < t,
        AT_MOST: lambda: x <= t,
        AT_LEAST: lambda: x >= t,
        ABSOLUTE: lambda: math.isfinite(x),
    }
    return tests[kind]()


def evaluate(experiment: Any, claim: Claim, m: pd.DataFrame) -> ClaimResult:
    """The `ClaimResult` of `claim` on an experiment's metrics table."""
    got = claim.measure(m)
    why = claim.why(m) if callable(claim.why) else claim.why

    def row(value: float | None, agrees: bool | None, note: str) -> ClaimResult:
        return compare(
            experiment, claim.statement, claim.paper, claim.value, value, got.text, agrees, note
        )

    if claim.kind == NEW:
        return ClaimResult(
            experiment=experiment.name,
            figure=experiment.figure,
            section=experiment.section,
            claim=claim.statement,
            paper="-",
            measured=got.text,
            direction_agrees=None,
            ratio=None,
            verdict="new",
            note=why,
        )
    v = got.value
    if v is None or math.isnan(v):
        return row(None, None, why or "not measured")
    checked = got.checked if got.checked is not None else (v,)
    agrees = bool(checked) and all(_holds(claim.kind, x, claim.tolerance) for x in checked)
    if math.isinf(v):
        return ClaimResult(
            experiment=experiment.name,
            figure=experiment.figure,
            section=experiment.section,
            claim=claim.statement,
            paper=claim.paper,
            measured=got.text,
            direction_agrees=agrees,
            ratio=None,
            verdict="direction only" if agrees else "differs",
            note=why,
        )
    if claim.kind == PCT and not agrees:
        v = None
    return row(v, agrees, why)


# ---------------------------------------------------------------- selectors

#: Which per-group value a `ratio` compares with the paper.
PICKS: dict[str, Callable[[list[float]], float]] = {
    "first": lambda xs: xs[0],
    "gmean": gmean,
    "max": max,
    "min": min,
}


def _pick(xs: list[float], pick: str) -> float | None:
    return PICKS[pick](xs) if xs else None


def ratio(
    num: str,
    den: str,
    col: str,
    what: str | None = None,
    pick: str = "first",
    every: bool = False,
    spec: str = "{:.2f}×",
    invert: bool = False,
    **where: Any,
) -> Selector:
    """`col` of scheme `num` over scheme `den` per group (see `stats.ratios`; `invert`:
    one over that), shown as their range and ``(what)`` (default: the column and the
    schemes). `pick` chooses the value compared with the paper; the direction is checked
    on it, or with `every` on every group's."""
    label = f"{col}, {num} / {den}" if what is None else what

    def measure(m: pd.DataFrame) -> Measure:
        xs = ratios(m, num, den, col, **where)
        if invert:
            xs = [1 / x for x in xs]
        text = fmt_range(xs, spec) + (f" ({label})" if label else "")
        value = _pick(xs, pick)
        return Measure(value, text, tuple(xs) if every else None)

    return measure


def reduction(
    better: str, base: str, col: str, what: str = "", spec: str = "{:.1f} %", **where: Any
) -> Selector:
    """How much lower (%) `col` of `better` is than of `base`, per group (the first
    compared with the paper)."""

    def measure(m: pd.DataFrame) -> Measure:
        xs = [100 * (1 - x) for x in ratios(m, better, base, col, **where)]
        return Measure(_pick(xs, "first"), fmt_range(xs, spec) + (f" ({what})" if what else ""))

    return measure


def lower_text(pct: float) -> str:
    """ "35 % lower" / "5 % higher"."""
    if not math.isfinite(pct):
        return "not measured"
    return f"{pct:.0f} % lower" if pct >= 0 else f"{-pct:.0f} % higher"


#: A number read from the metrics table.
Value = Callable[[pd.DataFrame], float]


def at(scheme: str, col: str, **where: Any) -> Value:
    """`col` of `scheme` at `where` (see `stats.get`)."""
    return lambda m: get(m, scheme, col, **where)


def quotient(a: Value, b: Value, what: str) -> Selector:
    """`a` over `b`, shown as ``1.23× (what)``."""

    def measure(m: pd.DataFrame) -> Measure:
        x = div(a(m), b(m))
        return Measure(x, f"{fmt(x)}× ({what})")

    return measure


def change(a: Value, b: Value, detail: Callable[[float, float], str]) -> Selector:
    """How much lower (%) `a` is than `b`, shown with ``(detail(a, b))``."""

    def measure(m: pd.DataFrame) -> Measure:
        x, y = a(m), b(m)
        r = div(x, y)
        pct = 100 * (1 - r) if math.isfinite(r) else math.nan
        return Measure(pct, f"{lower_text(pct)} ({detail(x, y)})")

    return measure


def pct_lower(better: str, base: str, col: str, **where: Any) -> Selector:
    """How much lower (%) `col` of `better` is than of `base` at `where`, with both
    values."""
    return change(
        at(better, col, **where),
        at(base, col, **where),
        lambda a, b: f"{col}: {better} {fmt(a)}, {base} {fmt(b)}",
    )


def several(
    values: Callable[[pd.DataFrame], list[float]],
    what: Note,
    pick: str = "gmean",
    every: bool = True,
) -> Selector:
    """Several ratios: their range, `pick` of them compared with the paper, the direction
    checked on each finite one (`every`) or on the picked one."""

    def measure(m: pd.DataFrame) -> Measure:
        xs = values(m)
        label = what(m) if callable(what) else what
        fin = [x for x in xs if math.isfinite(x)]
        value = gmean(xs) if pick == "gmean" else (PICKS[pick](fin) if fin else math.nan)
        return Measure(value, f"{fmt_range(xs)}× ({label})", tuple(fin) if every else None)

    return measure


def about(values: Callable[[pd.DataFrame], list[float]], what: Note) -> Selector:
    """Several ratios expected to be about 1: their geometric mean, each checked."""
    return several(values, what)


def text(describe: Callable[[pd.DataFrame], str]) -> Selector:
    """Only a text (a result the paper does not have)."""
    return lambda m: Measure(None, describe(m))
