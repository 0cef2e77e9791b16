"""`[output.rate_trace]`: sampled rate, window and bytes in flight of chosen flows."""

import pytest

import hopsim

SCENARIO = """
[topology]
kind = "dumbbell"
left_hosts = 2
right_hosts = 1
[transport]
cc = "hpcc"
[workload]
kind = "flows"
flows = [{ src = 0, dst = 2, size = "2MB" }, { src = 1, dst = 2, size = "2MB", start = "20us" }]
[output.rate_trace]
flows = [0, 1]
interval = "5us"
"""


def test_rate_trace_samples_the_chosen_flows(tmp_path):
    result = hopsim.run(SCENARIO)
    rates = result.rates
    assert set(rates.flow_id) == {0, 1}
    flow0 = rates[rates.flow_id == 0]
    assert (flow0.time_ns.diff().dropna() == 5000).all(), "one sample per interval"
    # HPCC ties the window to the rate, and both flows slow down when they share the link.
    assert (rates.window_bytes > 0).all()
    assert flow0.rate_bps.min() < flow0.rate_bps.max()
    # A shrinking window does not recall packets already sent, so bytes in flight are
    # bounded by the largest window, not by the current one.
    assert rates.in_flight_bytes.max() <= rates.window_bytes.max()
    out = result.write(tmp_path / "run")
    back = hopsim.Result.read(out)
    assert back.rates.equals(rates)


def test_rate_trace_rejects_unknown_flows():
    expected = r"output.rate_trace.flows: flow 7 does not exist"
    with pytest.raises(hopsim.ScenarioError, match=expected):
        hopsim.run(SCENARIO.replace("flows = [0, 1]", "flows = [0, 7]"))
