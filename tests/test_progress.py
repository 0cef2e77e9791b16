"""Progress that tells the truth (issue 27, item 4): the bar measures work (bytes delivered
against the workload, or simulated time against the time limit when further), shows flows,
bytes and simulated time beside it, shows the drain phase, ends at 100 %, and gives an ETA
only when the pace is steady."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hopsim
from hopsim import _core, _run
from hopsim._run import _Eta, _Work

SMALL = Path(__file__).parent / "data" / "small.toml"


def work(**kw) -> _Work:
    base = dict(
        flows_total=10,
        flows_finished=0,
        bytes_total=1000,
        bytes_acked=0,
        now_ns=0.0,
        limit_ns=None,
        last_start_ns=500.0,
    )
    return _Work(**{**base, **kw})


def test_the_share_done_is_work_or_time_whichever_is_further():
    assert work(bytes_acked=250).fraction == 0.25
    # A time limit ends the run first: simulated time is the measure then.
    assert work(bytes_acked=250, now_ns=800.0, limit_ns=1000.0).fraction == 0.8
    assert work(bytes_acked=900, now_ns=100.0, limit_ns=1000.0).fraction == 0.9
    assert work(bytes_total=0, flows_finished=5).fraction == 0.5
    assert not work(now_ns=100.0).draining
    assert work(now_ns=600.0, flows_finished=3).draining
    assert not work(now_ns=600.0, flows_finished=10).draining
    text = work(flows_finished=3, bytes_acked=2_500_000, bytes_total=10_000_000).text()
    assert text.startswith("3/10 flows, 2.5 MB/10.0 MB delivered, sim 0.000 ms")
    assert "sim 0.000 of 2 ms" in work(limit_ns=2e6).text()


def test_an_eta_only_when_the_pace_is_steady():
    eta = _Eta()
    eta.add(1.0, 0.10)
    assert eta.left() is None  # too early to tell
    steady = _Eta()
    for t in range(1, 11):
        steady.add(float(t), t / 20)  # 5 % a second
    assert steady.left() == pytest.approx(10.0)
    swinging = _Eta()
    for t in range(1, 11):
        swinging.add(float(t), 0.01 * t if t < 8 else 0.2 * (t - 7))  # the pace jumps
    assert swinging.left() is None
    stalled = _Eta()
    for t in range(1, 11):
        stalled.add(float(t), 0.3)
    assert stalled.left() is None


def test_the_bar_shows_work_the_drain_and_ends_full(monkeypatch, capsys):
    monkeypatch.setattr(_run, "_PROGRESS_DELAY_S", 0.0)
    monkeypatch.setattr(_run, "_CHUNK_TARGET_S", 0.002)
    monkeypatch.setattr(_run, "_REFRESH_S", 0.0)
    result = hopsim.run(SMALL, overrides={"duration": None}, progress=True)
    err = capsys.readouterr().err
    frames = [f for f in re.split(r"[\r\n]", err) if f.strip()]
    assert len(frames) > 3, err  # it moved
    assert "(draining)" in err, err
    total = result.summary["flows_total"]
    assert f"{total:,}/{total:,} flows" in frames[-1], frames[-1]
    assert "100%" in frames[-1] and "(done)" in frames[-1], frames[-1]
    percents = [int(m.group(1)) for f in frames if (m := re.search(r"(\d+)%\|", f))]
    assert percents == sorted(percents), percents  # never goes back


@pytest.mark.parametrize(
    "overrides",
    [
        {"duration": None},
        # Events beyond the time limit from the first microsecond on: the clock still ends
        # at the limit, as one run() leaves it.
        {
            "duration": "1ms",
            "switch.pfc.enabled": False,
            "topology.host_delay": "1000s",
            "topology.fabric_delay": "1000s",
        },
    ],
)
def test_chunked_runs_give_the_same_results(overrides):
    """The bar's chunks (drain included) change nothing: the same clock and events as one
    uninterrupted run."""
    chunked = hopsim.run(SMALL, overrides=overrides, progress=True)
    from hopsim.scenario import core_json, load_scenario

    doc, base = load_scenario(SMALL, overrides)
    with core_json(doc, base) as text:
        sim = _core.Simulation(text, base)
    sim.run()
    assert sim.now_ns == chunked.summary["sim_time_ns"]
    assert sim.events == chunked.summary["events"]
