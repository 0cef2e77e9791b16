"""Query / response incast: fan-out, sizes, and QCT from the last response."""

import hopsim

SCENARIO = """
seed = 4
[topology]
kind = "leaf_spine"
spines = 2
leaves = 2
hosts_per_leaf = 8
[workload]
kind = "query"
clients = [0, 1]
fan_out = 10
response_size = "40KB"
qps = 20000
stop = "500us"
"""


def test_queries_have_their_fan_out_and_qct_is_the_last_response():
    result = hopsim.run(SCENARIO)
    flows = result.flows
    assert (flows.size_bytes == 40_000).all()
    per_query = flows.groupby("query_id")
    assert (per_query.size() == 10).all(), "each query has fan_out responses"
    assert (per_query.src.nunique() == 10).all(), "from distinct servers"
    assert (per_query.dst.nunique() == 1).all(), "to one client"
    qct = result.qct()
    assert len(qct) == flows.query_id.nunique() >= 2
    assert qct.finished.all()
    for row in qct.itertuples():
        responses = flows[flows.query_id == row.query_id]
        assert row.finish_ns == responses.finish_ns.max()
        assert row.qct_ns == responses.finish_ns.max() - responses.start_ns.min()
        assert row.qct_ns >= responses.fct_ns.max() - 1e-6


def test_permutation_sends_one_flow_per_host_to_distinct_hosts():
    text = SCENARIO.split("[workload]")[0] + '[workload]\nkind = "permutation"\nsize = "100KB"\n'
    flows = hopsim.run(text).flows
    assert len(flows) == 16
    assert sorted(flows.src) == list(range(16))
    assert sorted(flows.dst) == list(range(16))
    assert (flows.src != flows.dst).all()
    assert flows.finish_ns.notna().all()
