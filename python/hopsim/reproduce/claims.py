"""Claims as data, and verdicts that test what a claim says.

A paper's claim is a `Claim` row: the statement and the section it comes from, the paper's
number (a value, a range, or none), a **selector** that reads hopsim's number(s) from the
experiment's metrics table, the comparison **kind**, the **tolerance** with its reason, and
what explains a miss (`Why`: measured facts, and hypotheses per way of missing). `evaluate`
turns it into a `ClaimResult`, a row of ``claims.csv``.

Kinds and verdicts
------------------
A selector returns one value or several (one per workload, load, scale…); the claim must
hold for **each** of them, and the row's verdict is that of the worst one.

`MORE` / `LESS`: the value is a ratio r of two of hopsim's numbers that the paper says is
above 1 (MORE) or below 1 (LESS); its fold change in the paper's direction is f = r or 1/r
and its effect size is ln f. The direction holds when f > 1: a tie fails. The paper's
number is a fold change too (`lower_by` and `higher_by` turn "31 % lower" into one), or a
range of them. The magnitude holds when f is within the tolerance factor F of the paper's
fold change **and** ln f within a factor F of the paper's effect size, the tighter of the
two (a range widens both ends): with F = 2 a 6× claim agrees from 3× to 12×, a 1.46× claim
from 1.21× to 2.13× (the fold band alone would take 1.02×), a 31 % reduction from 17 % to
52 %. Verdicts: *agrees* (direction and magnitude), *direction only* (the magnitude is
off), *direction; no number* (the paper gives no number: only the direction was tested),
*differs* (not the paper's direction).

`SAME`: "about the same", |ln r| ≤ ln T. `AT_MOST`: "no worse", "slightly", "flat" (for a
max / min spread): r ≤ T. `ABSOLUTE`: a value against the paper's value or range, within
a factor T. Each is *agrees* or *differs*; T is stated per claim with its reason.

A value that could not be computed makes the row *not measured*; `NEW` rows are results
the paper does not have.

Notes
-----
A row that neither agrees nor agrees in direction where the paper gives no number gets a
note: the claim's measured facts (`Why.facts`, numbers computed from the metrics table:
drops, pauses, timeouts, queue peaks, per-setting values), printed as "measured: …", and
the hypothesis written for the way it missed (`Why.hypotheses`, keyed by `OPPOSITE`,
`SMALLER`, `LARGER`, `ABOVE` or `BELOW`), printed as "hypothesis: …" and never for
another way of missing. A `NEW` row's note is its `Why.facts`, which must itself say
"hypothesis" for anything not measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import pandas as pd

from hopsim.reproduce.stats import div, fmt, get

__all__ = [
    "ABOVE",
    "ABSOLUTE",
    "AT_MOST",
    "BELOW",
    "LARGER",
    "LESS",
    "MAGNITUDE",
    "MORE",
    "NEW",
    "OPPOSITE",
    "ROUGHLY",
    "SAME",
    "SMALLER",
    "VERDICTS",
    "Claim",
    "ClaimResult",
    "Measure",
    "Tolerance",
    "Why",
    "at",
    "change",
    "count_line",
    "evaluate",
    "falls_short",
    "higher_by",
    "lower_by",
    "lower_text",
    "quotient",
    "ratio",
    "several",
    "text",
]

# ---------------------------------------------------------------- kinds and verdicts

MORE = "more"  # the ratio is above 1 (by the paper's number, if any)
LESS = "less"  # the ratio is below 1 (by the paper's number, if any)
SAME = "same"  # the ratio is within a factor T of 1
AT_MOST = "at most"  # the value is at most T
ABSOLUTE = "absolute"  # the value is within a factor T of the paper's value or range
NEW = "new"  # a result the paper does not have

AGREES = "agrees"
DIRECTION_ONLY = "direction only"
NO_NUMBER = "direction; no number"
DIFFERS = "differs"
NOT_MEASURED = "not measured"

#: Every verdict, best first (a row takes the worst of its values').
VERDICTS = (AGREES, NO_NUMBER, DIRECTION_ONLY, NOT_MEASURED, DIFFERS, NEW)

# Ways of missing a claim (the keys of `Why.hypotheses`).
OPPOSITE = "opposite"  # MORE / LESS: not the paper's direction (a tie included)
SMALLER = "smaller"  # MORE / LESS: the paper's direction, a smaller effect
LARGER = "larger"  # MORE / LESS: the paper's direction, a larger effect
ABOVE = "above"  # SAME / AT_MOST / ABSOLUTE: above the tolerated band
BELOW = "below"  # SAME / ABSOLUTE: below the tolerated band


@dataclass(frozen=True)
class Tolerance:
    """How far from the paper's number a value may be and still agree, and why."""

    factor: float
    reason: str


#: The tolerance of a claim with a number unless it states its own.
MAGNITUDE = Tolerance(
    2.0,
    "default for a number: the paper's numbers are often read off a figure or rounded, and "
    "hopsim's runs differ from the paper's in length and in details the paper leaves out; "
    "within 2× on the fold change and on its logarithm",
)


#: "About the same", "as low as", "slightly", "insensitive", "marginal": words without a
#: number.
ROUGHLY = Tolerance(1.25, "the paper's words give no number; read as within 25 %")


def lower_by(*pct: float) -> float | tuple[float, float]:
    """The fold change of "`pct` % lower" (a range for two values): 31 % lower is 1.45×."""
    folds = tuple(1 / (1 - p / 100) for p in pct)
    return folds[0] if len(folds) == 1 else (folds[0], folds[1])


def higher_by(pct: float) -> float:
    """The fold change of "`pct` % higher": 20 % higher is 1.2×."""
    return 1 + pct / 100


# ---------------------------------------------------------------- rows


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
    effect: float | None
    tolerance: str
    verdict: str
    note: str = ""


@dataclass(frozen=True)
class Measure:
    """What a selector found: the value(s) the claim is checked on (NaN: not measured;
    infinite: a ratio over zero), and the text shown."""

    values: tuple[float, ...]
    text: str

    @staticmethod
    def of(value: float | None, text: str) -> Measure:
        return Measure((math.nan if value is None else float(value),), text)


Selector = Callable[[pd.DataFrame], Measure]
#: Text, or text computed from the metrics table.
Note = Union[str, Callable[[pd.DataFrame], str]]


@dataclass(frozen=True)
class Why:
    """What explains a miss: `facts` (measured, from the metrics table) and a hypothesis per
    way of missing (`OPPOSITE`, `SMALLER`, `LARGER`, `ABOVE`, `BELOW`)."""

    facts: Note = ""
    hypotheses: Mapping[str, Note] = field(default_factory=dict)


@dataclass(frozen=True)
class Claim:
    """A claim of the paper, as data (see the module documentation)."""

    #: The claim, in our words close to the paper's.
    statement: str
    #: Where the paper says it ("§6.1.2", "abstract, §1").
    section: str
    #: The paper's number as printed ("1.6–215×", "31 % lower", "none").
    paper: str
    #: The paper's number as a fold change (MORE / LESS) or a value (ABSOLUTE), a range,
    #: or None.
    value: float | tuple[float, float] | None
    measure: Selector
    kind: str
    tolerance: Tolerance | None = None
    why: Why = field(default_factory=Why)


def _text(note: Note, m: pd.DataFrame) -> str:
    return note(m) if callable(note) else note


def _bounds(value: float | tuple[float, float], f: float) -> tuple[float, float]:
    """The fold changes that agree with the paper's `value` (a fold change > 1, or a
    range) at tolerance factor `f`: within `f` of it and of its logarithm."""
    lo, hi = value if isinstance(value, tuple) else (value, value)
    return max(lo / f, lo ** (1 / f)), min(hi * f, hi**f)


def _nearest(value: float | tuple[float, float], x: float) -> float:
    lo, hi = value if isinstance(value, tuple) else (value, value)
    return lo if x < lo else hi if x > hi else x


@dataclass(frozen=True)
class _Check:
    verdict: str
    miss: str  # a key of Why.hypotheses, or ""
    direction: bool | None
    ratio: float | None
    effect: float | None


_RANK = {v: i for i, v in enumerate(VERDICTS)}


def _check_one(claim: Claim, x: float) -> _Check:
    """The verdict of one value."""
    tol = claim.tolerance
    if math.isnan(x):
        return _Check(NOT_MEASURED, "", None, None, None)
    if claim.kind in (MORE, LESS):
        fold = x if claim.kind == MORE else (1 / x if x != 0 else math.inf)
        if not fold > 1:
            return _Check(DIFFERS, OPPOSITE, False, None, None)
        if claim.value is None:
            return _Check(NO_NUMBER, "", True, None, None)
        if math.isinf(fold):
            return _Check(DIRECTION_ONLY, LARGER, True, None, None)
        near = _nearest(claim.value, fold)
        ratio, effect = fold / near, math.log(fold) / math.log(near)
        lo, hi = _bounds(claim.value, (tol or MAGNITUDE).factor)
        miss = SMALLER if fold < lo else LARGER if fold > hi else ""
        return _Check(DIRECTION_ONLY if miss else AGREES, miss, True, ratio, effect)
    assert tol is not None, claim.statement
    if claim.kind == SAME:
        ok = abs(math.log(x)) <= math.log(tol.factor) if x > 0 else False
        miss = "" if ok else (ABOVE if x > 1 else BELOW)
        return _Check(AGREES if ok else DIFFERS, miss, None, x, None)
    if claim.kind == AT_MOST:
        ok = x <= tol.factor
        return _Check(AGREES if ok else DIFFERS, "" if ok else ABOVE, None, x, None)
    if claim.kind == ABSOLUTE:
        assert claim.value is not None, claim.statement
        lo, hi = claim.value if isinstance(claim.value, tuple) else (claim.value,) * 2
        near = _nearest(claim.value, x)
        miss = BELOW if x < lo / tol.factor else ABOVE if x > hi * tol.factor else ""
        return _Check(DIFFERS if miss else AGREES, miss, None, x / near if near else None, None)
    raise ValueError(f"{claim.statement}: unknown kind {claim.kind!r}")


def _tolerance(claim: Claim) -> str:
    if claim.kind in (MORE, LESS):
        if claim.value is None:
            return "-"
        t = claim.tolerance or MAGNITUDE
    else:
        t = claim.tolerance
    return "-" if t is None else f"{t.factor:g}×: {t.reason}"


def evaluate(experiment: Any, claim: Claim, m: pd.DataFrame) -> ClaimResult:
    """The `ClaimResult` of `claim` on an experiment's metrics table: the worst verdict
    over the selector's values, and the note for the way that value missed."""
    got = claim.measure(m)
    row = dict(
        experiment=experiment.name,
        figure=experiment.figure,
        section=claim.section or experiment.section,
        claim=claim.statement,
        paper=claim.paper,
        measured=got.text,
    )
    facts = _text(claim.why.facts, m)
    if claim.kind == NEW:
        return ClaimResult(**row, direction_agrees=None, ratio=None, effect=None,
                           tolerance="-", verdict=NEW, note=facts)  # fmt: skip
    checks = [_check_one(claim, x) for x in got.values] or [_check_one(claim, math.nan)]
    # The worst verdict; among equals, the value farthest from the paper's (or from 1).
    worst = max(checks, key=lambda c: (_RANK[c.verdict], abs(math.log(c.ratio or 1.0))))
    note = ""
    if worst.verdict not in (AGREES, NO_NUMBER):
        parts = [f"measured: {facts}"] if facts else []
        if worst.verdict == NOT_MEASURED:
            parts.append("not measured: a run failed or a value is missing")
        elif worst.miss in claim.why.hypotheses:
            parts.append("hypothesis: " + _text(claim.why.hypotheses[worst.miss], m))
        note = "; ".join(parts)
    directions = [c.direction for c in checks if c.direction is not None]
    return ClaimResult(
        **row,
        direction_agrees=all(directions) if directions else None,
        ratio=None if worst.ratio is None else round(worst.ratio, 3),
        effect=None if worst.effect is None else round(worst.effect, 3),
        tolerance=_tolerance(claim),
        verdict=worst.verdict,
        note=note,
    )


def falls_short(hypothesis: Note) -> dict[str, Note]:
    """`hypothesis` for a result short of the paper's: the opposite direction (or a tie),
    or the paper's direction with a smaller effect. (Never for a larger one.)"""
    return {OPPOSITE: hypothesis, SMALLER: hypothesis}


def counts(rows: Sequence[ClaimResult]) -> dict[str, int]:
    """How many rows have each verdict."""
    return {v: sum(r.verdict == v for r in rows) for v in VERDICTS}


def count_line(rows: Sequence[ClaimResult]) -> str:
    """ "N claims: A agree, …" (the line ``claims.md`` and the CLI print)."""
    c = counts(rows)
    parts = [
        f"{c[AGREES]} agree",
        f"{c[DIRECTION_ONLY]} agree in direction only (magnitude off)",
        f"{c[NO_NUMBER]} agree in direction where the paper gives no number",
        f"{c[DIFFERS]} differ",
    ]
    if c[NOT_MEASURED]:
        parts.append(f"{c[NOT_MEASURED]} not measured")
    if c[NEW]:
        parts.append(f"{c[NEW]} new (beyond the paper)")
    return f"{len(rows)} claims: " + ", ".join(parts)


# ---------------------------------------------------------------- selectors


def lower_text(r: float) -> str:
    """A ratio as "35 % lower" / "5 % higher"."""
    if not math.isfinite(r):
        return "not measured"
    pct = 100 * (1 - r)
    return f"{pct:.0f} % lower" if pct >= 0 else f"{-pct:.0f} % higher"


#: A number read from the metrics table.
Value = Callable[[pd.DataFrame], float]


def at(scheme: str, col: str, **where: Any) -> Value:
    """`col` of `scheme` at `where` (see `stats.get`)."""
    return lambda m: get(m, scheme, col, **where)


def ratio(
    num: str,
    den: str,
    col: str,
    what: str | None = None,
    spec: str = "{:.2f}×",
    **where: Any,
) -> Selector:
    """`col` of scheme `num` over scheme `den`, one value per group where both ran (see
    `stats.ratios`), shown per group ("memcached 0.39×, webserver 0.90×") and ``(what)``
    (default: the column and the schemes)."""
    label = f"{col}, {num} / {den}" if what is None else what

    def measure(m: pd.DataFrame) -> Measure:
        sel = m
        for k, v in where.items():
            sel = sel[sel[k] == v] if k in sel else sel.iloc[:0]
        pairs = [
            (g, div(get(sel, num, col, group=g), get(sel, den, col, group=g)))
            for g in sel["group"].unique()
        ]
        if len(pairs) == 1:
            shown = fmt(pairs[0][1], spec)
        else:
            shown = ", ".join(f"{g} {fmt(x, spec)}" for g, x in pairs) or "not measured"
        return Measure(tuple(x for _, x in pairs), shown + (f" ({label})" if label else ""))

    return measure


def quotient(a: Value, b: Value, what: str) -> Selector:
    """`a` over `b`, shown as ``1.23× (what)``."""

    def measure(m: pd.DataFrame) -> Measure:
        x = div(a(m), b(m))
        return Measure.of(x, f"{fmt(x)}× ({what})")

    return measure


def change(a: Value, b: Value, detail: Callable[[float, float], str]) -> Selector:
    """`a` over `b`, shown as "35 % lower (detail(a, b))"."""

    def measure(m: pd.DataFrame) -> Measure:
        x, y = a(m), b(m)
        r = div(x, y)
        return Measure.of(r, f"{lower_text(r)} ({detail(x, y)})")

    return measure


def several(
    values: Callable[[pd.DataFrame], Sequence[tuple[str, float]]], what: str, spec: str = "{:.2f}"
) -> Selector:
    """Several labelled values (per workload, load…), each checked; shown one by one."""

    def measure(m: pd.DataFrame) -> Measure:
        xs = list(values(m))
        shown = ", ".join(f"{k} {fmt(v, spec)}" for k, v in xs) or "not measured"
        return Measure(tuple(v for _, v in xs), f"{shown} ({what})")

    return measure


def text(describe: Callable[[pd.DataFrame], str]) -> Selector:
    """Only a text (a result the paper does not have)."""
    return lambda m: Measure((), describe(m))
