"""The verdict logic of `hopsim reproduce` (``reproduce/claims.py``) on constructed metrics:
each kind and verdict, bounds on a log scale, ties, inverted metrics, per-setting checks,
notes that carry numbers or say "hypothesis" and only for the way a claim missed; and each
paper's claims table on small fixed metrics tables with known verdicts.

`CASES` is plain data (kind, the paper's number, the tolerance, hopsim's ratio, the
verdict) so that it can be run through another implementation of the verdicts too."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pandas as pd
import pytest

from hopsim import reproduce
from hopsim.reproduce import claims as C
from hopsim.reproduce import deflection
from hopsim.reproduce.claims import (
    ABOVE,
    ABSOLUTE,
    AT_MOST,
    BELOW,
    LARGER,
    LESS,
    MORE,
    NEW,
    OPPOSITE,
    SAME,
    SMALLER,
    Claim,
    Tolerance,
    Why,
    evaluate,
    lower_by,
    ratio,
)

EXP = SimpleNamespace(name="exp", figure="Fig 0", section="§0")
T125 = Tolerance(1.25, "test")


def _table(a: float, b: float = 1.0, groups: tuple[str, ...] = ("g",)) -> pd.DataFrame:
    """Schemes A and B in each group, column x: A's value `a`, B's `b`."""
    rows = []
    for g in groups:
        rows += [
            {"group": g, "scheme": "A", "status": "ok", "x": a, "drops": 7},
            {"group": g, "scheme": "B", "status": "ok", "x": b, "drops": 0},
        ]
    return pd.DataFrame(rows)


def _claim(kind: str, value=None, tolerance=None, why: Why | None = None) -> Claim:
    return Claim(
        "A against B",
        "§1",
        "-",
        value,
        ratio("A", "B", "x"),
        kind,
        tolerance,
        why or Why(lambda m: f"drops A {m.loc[m.scheme == 'A', 'drops'].iloc[0]}"),
    )


#: (kind, the paper's number, tolerance factor, hopsim's A / B, expected verdict).
CASES = [
    # MORE with a number: direction and magnitude.
    (MORE, 2.0, None, 2.1, "agrees"),
    (MORE, 2.0, None, 1 / 2.1, "differs"),  # inverted metric
    (MORE, 2.0, None, 1.0, "differs"),  # a tie is not the paper's direction
    (MORE, 2.0, None, 1.1, "direction only"),  # right way, effect a tenth of the paper's
    (MORE, 2.0, None, 5.0, "direction only"),  # right way, beyond 2× of the fold change
    (MORE, 6.0, None, 3.1, "agrees"),  # 3× to 12× agree with 6×
    (MORE, 6.0, None, 2.9, "direction only"),
    (MORE, 6.0, None, 11.9, "agrees"),
    (MORE, 6.0, None, 12.5, "direction only"),
    # A claim of less than 2×: the fold band alone (0.73-2.92×) would take any gain.
    (MORE, 1.46, None, 1.02, "direction only"),
    (MORE, 1.46, None, 1.25, "agrees"),
    (MORE, 1.46, None, 2.2, "direction only"),
    # LESS: "31 % lower" agrees from 17 % to 52 % lower.
    (LESS, lower_by(31), None, 0.69, "agrees"),
    (LESS, lower_by(31), None, 0.85, "direction only"),
    (LESS, lower_by(31), None, 0.45, "direction only"),
    (LESS, lower_by(31), None, 1 / 0.69, "differs"),  # inverted
    (LESS, lower_by(31), None, 1.0, "differs"),  # tie
    # Ranges: 1.6–215× lower.
    (LESS, (1.6, 215.0), None, 1 / 1.3, "agrees"),
    (LESS, (1.6, 215.0), None, 1 / 1.2, "direction only"),
    (LESS, (1.6, 215.0), None, 1 / 100, "agrees"),
    (LESS, lower_by(42.8, 98.2), None, 0.97, "direction only"),
    # A stated tolerance replaces the default factor of 2.
    (MORE, 2.0, 1.5, 1.6, "agrees"),
    (MORE, 2.0, 1.5, 1.3, "direction only"),
    # No number: the direction only, its own verdict; ties and the opposite differ.
    (MORE, None, None, 1.01, "direction; no number"),
    (MORE, None, None, 1.0, "differs"),
    (MORE, None, None, 0.5, "differs"),
    (LESS, None, None, 0.99, "direction; no number"),
    (LESS, None, None, 1.5, "differs"),
    # About the same, within a stated factor either way.
    (SAME, None, 1.25, 1.2, "agrees"),
    (SAME, None, 1.25, 0.81, "agrees"),
    (SAME, None, 1.25, 1.3, "differs"),
    (SAME, None, 1.25, 0.7, "differs"),
    # At most.
    (AT_MOST, None, 1.1, 1.05, "agrees"),
    (AT_MOST, None, 1.1, 0.5, "agrees"),
    (AT_MOST, None, 1.1, 1.2, "differs"),
    # Absolute values compare values, not finiteness.
    (ABSOLUTE, 100.0, 2.0, 60.0, "agrees"),
    (ABSOLUTE, 100.0, 2.0, 45.0, "differs"),
    (ABSOLUTE, 100.0, 2.0, 210.0, "differs"),
    (ABSOLUTE, (6.0, 20.0), 1.0, 5.0, "differs"),
    (ABSOLUTE, (6.0, 20.0), 1.0, 12.0, "agrees"),
    # Not measured.
    (MORE, 2.0, None, math.nan, "not measured"),
    (SAME, None, 1.25, math.nan, "not measured"),
]


@pytest.mark.parametrize("kind, value, factor, x, verdict", CASES)
def test_verdicts(kind, value, factor, x, verdict):
    tol = None if factor is None else Tolerance(factor, "test")
    got = evaluate(EXP, _claim(kind, value, tol), _table(x))
    assert got.verdict == verdict, got


@pytest.mark.parametrize(
    "value, factor, lo, hi",
    [
        (6.0, 2.0, 3.0, 12.0),
        (1.46, 2.0, 1.46**0.5, 1.46**2),
        ((1.6, 215.0), 2.0, 1.6**0.5, 430.0),
        (lower_by(31), 2.0, lower_by(31) ** 0.5, lower_by(31) ** 2),
    ],
)
def test_bounds_are_the_tighter_of_the_fold_and_its_logarithm(value, factor, lo, hi):
    assert C._bounds(value, factor) == pytest.approx((lo, hi))


def test_percent_claims_as_fold_changes():
    assert lower_by(50) == pytest.approx(2.0)
    assert lower_by(42.8, 98.2) == pytest.approx((1 / 0.572, 1 / 0.018))
    assert C.higher_by(20) == pytest.approx(1.2)
    lo, hi = C._bounds(lower_by(31), 2.0)
    assert 100 * (1 - 1 / lo) == pytest.approx(16.9, abs=0.1)
    assert 100 * (1 - 1 / hi) == pytest.approx(52.4, abs=0.1)


def test_ratio_and_effect_columns():
    r = evaluate(EXP, _claim(MORE, 6.0), _table(3.0))
    assert r.verdict == "agrees" and r.direction_agrees is True
    assert r.ratio == pytest.approx(0.5) and r.effect == pytest.approx(
        math.log(3) / math.log(6), abs=1e-3
    )
    inside = evaluate(EXP, _claim(MORE, (1.6, 215.0)), _table(10.0))
    assert inside.ratio == 1.0 and inside.effect == 1.0
    r = evaluate(EXP, _claim(MORE, None), _table(3.0))
    assert r.ratio is None and r.tolerance == "-"
    assert evaluate(EXP, _claim(MORE, 2.0), _table(2.0)).tolerance.startswith("2×: ")
    assert evaluate(EXP, _claim(SAME, None, T125), _table(1.0)).direction_agrees is None


def test_a_ratio_over_zero_has_a_direction_but_no_magnitude():
    m = _table(5.0, 0.0)
    m.loc[m.scheme == "B", "x"] = 0.0
    sel = C.quotient(C.at("A", "x"), C.at("B", "x"), "A / B")
    assert math.isnan(sel(m).values[0])  # stats.div refuses zero
    inf = C.Measure.of(math.inf, "∞")
    claim = Claim("A against B", "§1", "2×", 2.0, lambda m: inf, MORE)
    assert evaluate(EXP, claim, m).verdict == "direction only"
    claim = Claim("A against B", "§1", "none", None, lambda m: inf, MORE)
    assert evaluate(EXP, claim, m).verdict == "direction; no number"


def test_every_setting_must_hold():
    """One workload going the wrong way fails the row, whatever the others (no mean)."""
    m = _table(2.0, groups=("w1", "w2", "w3"))
    m.loc[(m.group == "w3") & (m.scheme == "A"), "x"] = 0.2  # far the other way
    from hopsim.reproduce.stats import gmean

    assert gmean([2.0, 2.0, 0.2]) < 1  # a mean would even hide w1 and w2 …
    m.loc[(m.group == "w3") & (m.scheme == "A"), "x"] = 0.9  # … or hide w3
    assert gmean([2.0, 2.0, 0.9]) > 1
    r = evaluate(EXP, _claim(MORE, None), m)
    assert r.verdict == "differs" and r.direction_agrees is False
    assert "w3 0.90×" in r.measured
    m.loc[(m.group == "w3") & (m.scheme == "A"), "x"] = 1.5
    assert evaluate(EXP, _claim(MORE, None), m).verdict == "direction; no number"


def test_worst_value_sets_ratio_column():
    m = _table(1.0, groups=("w1", "w2"))
    m.loc[(m.group == "w1") & (m.scheme == "A"), "x"] = 1.1
    m.loc[(m.group == "w2") & (m.scheme == "A"), "x"] = 0.85
    r = evaluate(EXP, _claim(SAME, None, T125), m)
    assert r.verdict == "agrees" and r.ratio == pytest.approx(0.85)


WHY = Why(
    lambda m: "drops A 7",
    {
        OPPOSITE: "H-opposite",
        SMALLER: "H-smaller",
        LARGER: "H-larger",
    },
)


@pytest.mark.parametrize(
    "x, verdict, shown, hidden",
    [
        (2.0, "agrees", [], ["H-", "measured"]),
        (
            0.5,
            "differs",
            ["measured: drops A 7", "hypothesis: H-opposite"],
            ["H-smaller", "H-larger"],
        ),
        (1.02, "direction only", ["hypothesis: H-smaller"], ["H-opposite", "H-larger"]),
        (40.0, "direction only", ["hypothesis: H-larger"], ["H-opposite", "H-smaller"]),
    ],
)
def test_notes_follow_the_way_a_claim_missed(x, verdict, shown, hidden):
    r = evaluate(EXP, _claim(MORE, 2.0, why=WHY), _table(x))
    assert r.verdict == verdict
    for s in shown:
        assert s in r.note, r.note
    for s in hidden:
        assert s not in r.note, r.note


def test_a_miss_without_its_hypothesis_gets_only_the_measured_facts():
    why = Why(lambda m: "drops A 7", {OPPOSITE: "H-opposite"})
    r = evaluate(EXP, _claim(MORE, 2.0, why=why), _table(40.0))
    assert r.note == "measured: drops A 7"
    same = Why("queue 3 KB", {ABOVE: "H-above", BELOW: "H-below"})
    assert "H-below" in evaluate(EXP, _claim(SAME, None, T125, same), _table(0.5)).note
    assert "H-above" not in evaluate(EXP, _claim(SAME, None, T125, same), _table(0.5)).note
    assert "H-above" in evaluate(EXP, _claim(SAME, None, T125, same), _table(2.0)).note
    assert evaluate(EXP, _claim(MORE, None, why=why), _table(1.5)).note == ""
    r = evaluate(EXP, _claim(MORE, 2.0, why=why), _table(math.nan))
    assert r.verdict == "not measured" and "not measured" in r.note


def test_count_line():
    rows = [evaluate(EXP, _claim(MORE, 2.0), _table(x)) for x in (2.0, 2.1, 1.1, 0.5, math.nan)] + [
        evaluate(EXP, _claim(MORE, None), _table(1.5))
    ]
    assert C.count_line(rows) == (
        "6 claims: 2 agree, 1 agree in direction only (magnitude off), 1 agree in direction "
        "where the paper gives no number, 1 differ, 1 not measured"
    )
    new = Claim("beyond", "-", "-", None, C.text(lambda m: "1 ms"), NEW, why=Why("hypothesis: x"))
    r = evaluate(EXP, new, _table(1.0))
    assert r.verdict == "new" and r.measured == "1 ms" and r.note == "hypothesis: x"


# ---------------------------------------------------------------- the papers' tables


def _papers_claims():
    for paper in reproduce.papers():
        for exp in paper.experiments:
            for c in exp.claims:
                yield paper, exp, c


def test_every_claim_is_complete():
    """Every claim names its section, states a tolerance with a reason where its kind needs
    one, and has measured facts to cite when it misses (NEW rows: a note)."""
    for paper, exp, c in _papers_claims():
        where = (paper.name, exp.name, c.statement)
        assert c.section and c.statement and c.paper, where
        assert c.kind in (MORE, LESS, SAME, AT_MOST, ABSOLUTE, NEW), where
        if c.kind in (SAME, AT_MOST, ABSOLUTE):
            assert c.tolerance and c.tolerance.reason and c.tolerance.factor >= 1, where
        if c.kind == ABSOLUTE:
            assert c.value is not None, where
        if c.kind in (MORE, LESS) and c.value is not None:
            lo = c.value[0] if isinstance(c.value, tuple) else c.value
            assert lo > 1, f"{where}: a fold change in the paper's direction is above 1"
        if c.kind != NEW:
            assert c.why.facts, f"{where}: no measured facts for a miss"
        for key in c.why.hypotheses:
            assert key in (OPPOSITE, SMALLER, LARGER, ABOVE, BELOW), where
    statements = [(p.name, e.name, c.statement) for p, e, c in _papers_claims()]
    assert len(statements) == len(set(statements))


def _notes_are_measured_or_hypotheses(rows):
    for r in rows:
        if r.note:
            assert re.search(r"\d", r.note) or "hypothesis" in r.note, r


# Pyrrha, Fig 2 and Fig 11: a fixed table and the verdicts it must give.
def _pyrrha_fig11(pyrrha_avg: float) -> pd.DataFrame:
    rows = []
    base = {"PFC": 100.0, "BFC-32": 80.0, "BFC-128": 60.0, "Pyrrha": pyrrha_avg}
    for w in ("memcached", "webserver", "websearch"):
        for s, avg in base.items():
            rows.append(
                {
                    "group": w,
                    "scheme": s,
                    "status": "ok",
                    "uncongested_avg_us": avg,
                    "uncongested_p99_us": avg * 5,
                    "incast_avg_us": {"PFC": 1000.0, "Pyrrha": 1050.0}.get(s, 900.0),
                    "drops": 0,
                    "pause_frames": 10,
                    "timeouts": 0,
                    "unfinished": 0,
                }
            )
    return pd.DataFrame(rows)


def test_pyrrha_fig11_table():
    exp = reproduce.PAPERS["pyrrha"].experiment("fig11_fc")
    rows = exp.verdicts(_pyrrha_fig11(20.0))  # 80 % below PFC, 75 % below BFC-32
    got = [r.verdict for r in rows]
    assert got == ["agrees"] * 12 + ["agrees"] + ["direction; no number"] * 5 + ["differs"]
    # Pyrrha only 10 % faster than PFC: the right way, far from 42.8-98.2 %.
    rows = exp.verdicts(_pyrrha_fig11(90.0))
    assert [r.verdict for r in rows[:2]] == ["direction only", "direction only"]
    # Inverted: Pyrrha slower than both baselines.
    rows = exp.verdicts(_pyrrha_fig11(120.0))
    assert {r.verdict for r in rows[:12]} == {"differs"}
    assert all(r.direction_agrees is False for r in rows[:12])
    _notes_are_measured_or_hypotheses(rows)


def test_pyrrha_fig2_table():
    exp = reproduce.PAPERS["pyrrha"].experiment("fig2_hol")

    def table(bfc: float, pfc_bg: float) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {"group": "webserver", "scheme": s, "status": "ok", "uncongested_p99_us": p99,
                 "background_avg_us": bg, "drops": d, "pause_frames": 0, "timeouts": 0,
                 "unfinished": 0}
                for s, p99, bg, d in (
                    ("PFC", 500.0, pfc_bg, 0),
                    ("BFC-32", bfc, 50.0, 0),
                    ("Per-flow", 100.0, 50.0, 1234),
                )
            ]
        )  # fmt: skip

    assert [r.verdict for r in exp.verdicts(table(600.0, 200.0))] == [
        "agrees",
        "direction; no number",
    ]
    rows = exp.verdicts(table(50.0, 50.0))  # inverted tail; a tie in background FCT
    assert [r.verdict for r in rows] == ["differs", "differs"]
    assert "Per-flow 1,234" in rows[0].note and "hypothesis:" in rows[0].note


def test_pyrrha_fig27_ties_fail_strict_claims():
    exp = reproduce.PAPERS["pyrrha"].experiment("fig27_params")
    rows = []
    for merge in ("merge on", "merge off"):
        for param, values in (("K_pause", (2, 5, 10, 20, 35, 50)), ("K_resume", (0.5, 1, 2, 5))):
            for v in values:
                rows.append(
                    {"group": f"{param}={v:g}", "scheme": merge, "status": "ok",
                     "parameter": param, "value": float(v), "vulnerable_p99_us": 10.0,
                     "merges": 0}
                )  # fmt: skip
    got = [r.verdict for r in exp.verdicts(pd.DataFrame(rows))]
    # Flat with merging agrees; "rises above 35" and "worse without merging" tie: differ.
    assert got == ["agrees", "differs", "differs", "agrees"]


# Deflection, §2 and Table 1.
def test_deflection_sec2_and_table1():
    paper = reproduce.PAPERS["deflection"]

    def rows(values: dict[str, tuple[float, float]], load: float) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {"group": f"DCTCP, {load:.0f}%", "scheme": s, "status": "ok", "cc": "DCTCP",
                 "load": load, "qct_mean_ms": mean, "qct_p99_ms": p99, "drop_pct": 1.0,
                 "drops_hop_limit": 0, "timeouts": 3, "drops_rank": 0}
                for s, (mean, p99) in values.items()
            ]
        )  # fmt: skip

    sec2 = paper.experiment("sec2_dibs_naive")
    m = rows({"ECMP": (10.0, 30.0), "DIBS": (5.0, 10.0), "Naive": (15.0, 20.0)}, 35.0)
    assert [r.verdict for r in sec2.verdicts(m)] == ["agrees", "agrees"]
    m = rows({"ECMP": (10.0, 30.0), "DIBS": (15.0, 20.0), "Naive": (5.0, 10.0)}, 35.0)
    assert [r.verdict for r in sec2.verdicts(m)] == ["differs", "differs"]

    t1 = paper.experiment("table1_las")
    paper_ms = {s: 1e3 * v[-1] for s, v in deflection.TABLE1_PAPER.items()}
    m = rows({s: (v / 2, v) for s, v in paper_ms.items()}, 95.0)
    got = [r.verdict for r in t1.verdicts(m)]
    # The paper's own numbers: every row agrees, the absolute ones included.
    assert got == ["agrees"] * len(got) and len(got) == 10
    m = rows({s: (v / 2, v * 3) for s, v in paper_ms.items()}, 95.0)
    got = [r.verdict for r in t1.verdicts(m)]
    assert got[-6:] == ["differs"] * 6  # 3× every absolute value is outside 2×
    assert got[:4] == ["agrees"] * 4  # the ratios are unchanged


def test_deflection_fig13_inverted_and_ties():
    exp = reproduce.PAPERS["deflection"].experiment("fig13_prob")

    def table(det: float, prob: float, low: float) -> pd.DataFrame:
        """Mean and p99 QCT at 95 % (`det`, `prob`); at 55 % 1 ms and `low` ms."""
        out = []
        for load, values in ((55.0, (1.0, low)), (95.0, (det, prob))):
            for s, v in zip(("deterministic", "probabilistic"), values):
                out.append(
                    {"group": f"DCTCP, {load:.0f}%", "scheme": s, "status": "ok", "cc": "DCTCP",
                     "load": load, "qct_mean_ms": v, "qct_p99_ms": v, "drop_pct": 1.0,
                     "drops_hop_limit": 0, "timeouts": 1, "deflections": 5, "queries": 50}
                )  # fmt: skip
        return pd.DataFrame(out)

    got = exp.verdicts(table(1.0, 2.5, 1.1))
    assert [r.verdict for r in got] == ["agrees", "agrees", "agrees"]
    got = exp.verdicts(table(2.5, 1.0, 1.3))  # inverted at 95 %, 30 % apart at 55 %
    assert [r.verdict for r in got] == ["differs", "differs", "differs"]
    assert "probabilistic rule slower" in got[2].note and "faster" not in got[2].note
    got = exp.verdicts(table(1.0, 1.0, 0.7))  # ties at 95 %
    assert [r.verdict for r in got] == ["differs", "differs", "differs"]
    assert "probabilistic rule faster" in got[2].note
    _notes_are_measured_or_hypotheses(got)


def _fake_pyrrha_metrics(run) -> dict:
    import random

    rng = random.Random(f"{run.variant.group}/{run.variant.label}")
    out = {
        f"{cls}_{stat}_us": rng.uniform(1, 1000)
        for cls in ("uncongested", "vulnerable", "background", "incast", "small", "large", "all")
        for stat in ("avg", "p99")
    }
    out.update(
        {f"max_queue_{t}_kb": rng.uniform(10, 20_000) for t in ("src_tor", "core", "dst_tor")}
    )
    out.update(
        drops=rng.randint(0, 1000),
        pause_frames=rng.randint(0, 1000),
        timeouts=rng.randint(0, 100),
        unfinished=rng.randint(0, 3),
        merges=rng.randint(0, 10),
    )
    return out


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_every_pyrrha_claim_on_made_up_metrics(monkeypatch, tmp_path, mode):
    """Each Pyrrha experiment's claims over made-up metrics: a verdict each, a note that
    cites numbers (or says hypothesis) on every miss."""
    from hopsim.reproduce import pyrrha
    from hopsim.reproduce.framework import Run

    monkeypatch.setattr(pyrrha, "_metrics", _fake_pyrrha_metrics)
    paper = reproduce.PAPERS["pyrrha"]
    for exp in paper.experiments:
        source = paper.experiment(exp.shares) if exp.shares else exp
        runs = [Run(v, "ok", tmp_path) for v in source.variants(mode)]
        if exp.name == "fig7_iq_usage":
            metrics = pd.DataFrame(
                [
                    {"group": r.variant.group, "scheme": "Pyrrha", "status": "ok",
                     "fraction": float(r.variant.group), "max_iqs": 7.0 + i,
                     "mean_peak_iqs": 2.0, "flows": 1000}
                    for i, r in enumerate(runs)
                ]
            )  # fmt: skip
        else:
            metrics = exp.analyze(runs)
        rows = exp.verdicts(metrics)
        assert len(rows) == len(exp.claims) > 0, exp.name
        for r in rows:
            assert r.verdict in C.VERDICTS and r.verdict != "not measured", (exp.name, r)
            if r.verdict not in ("agrees", "direction; no number", "new"):
                assert r.note.startswith("measured: "), (exp.name, r)
        _notes_are_measured_or_hypotheses(rows)
