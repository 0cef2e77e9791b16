"""``hopsim reproduce``: the papers' experiments, run as resumable sweeps, each drawn as a
figure and compared claim by claim with what the paper states (``claims.csv`` /
``claims.md``).

A paper joins by adding a module here that builds a `Paper` (see `framework`: its
experiments, each a set of variants of a scenario in ``scenarios/<paper>/``, a ``quick``
and a ``full`` size, an analysis, a figure and a claims table of `Claim` rows) and listing
it in `PAPERS`. Shared helpers: `stats` (metrics tables, ratios, means, ranges), `figures`
(bars and lines per scheme) and `claims` (claim rows, selectors, verdicts).

>>> from hopsim import reproduce
>>> claims = reproduce.run("pyrrha", "runs/pyrrha", mode="quick", jobs=2)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from hopsim._core import ScenarioError
from hopsim.reproduce import aquarius, deflection, ofc, proteus, pyrrha
from hopsim.reproduce.claims import Claim, ClaimResult, count_line
from hopsim.reproduce.framework import Experiment, Paper, run_paper

__all__ = ["PAPERS", "Claim", "ClaimResult", "Experiment", "Paper", "count_line", "papers", "run"]

#: Every paper `hopsim reproduce` knows, by name.
PAPERS: dict[str, Paper] = {
    p.name: p for p in (pyrrha.PAPER, deflection.PAPER, aquarius.PAPER, ofc.PAPER, proteus.PAPER)
}


def papers() -> list[Paper]:
    return list(PAPERS.values())


def run(
    paper: str,
    outdir: str | os.PathLike[str],
    mode: str = "quick",
    jobs: int | None = None,
    ray_address: str | None = None,
    only: Sequence[str] | None = None,
    progress: bool = False,
    log: Callable[[str], None] = lambda _: None,
) -> list[ClaimResult]:
    """Reproduce ``paper``'s experiments (see `framework.run_paper`)."""
    if paper not in PAPERS:
        raise ScenarioError(f"unknown paper {paper!r}; expected one of {', '.join(PAPERS)}")
    return run_paper(PAPERS[paper], outdir, mode, jobs, ray_address, only, progress, log)
