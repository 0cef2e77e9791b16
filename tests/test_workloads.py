"""Built-in flow-size distributions match the published tables they copy."""

import re
from pathlib import Path

import pytest

from hopsim import _core

SHARED = Path(__file__).resolve().parents[2] / "shared" / "workloads"

# Built-in name -> file in ../shared/workloads whose numbers it carries.
SOURCES = {
    "websearch": "websearch_dctcp_hpcc.txt",
    "datamining": "datamining_vl2_pfabric.txt",
    "webserver": "fb_webserver_expresspass.txt",
    "cachefollower": "fb_cachefollower_expresspass.txt",
    "hadoop": "fb_hadoop_hpcc.txt",
    "alibaba_storage": "alibaba_storage_2019_hpcc.txt",
    "memcached": "homa_w1_fb_memcached_etc.txt",
    "homa_w2": "homa_w2_google_search_rpc.txt",
    "homa_w3": "homa_w3_google_all_rpc.txt",
    "homa_w4": "homa_w4_fb_hadoop_all.txt",
    "homa_w5": "homa_w5_dctcp_websearch.txt",
    "imc10": "imc10_benson_phost.txt",
    "alibaba_solar": "alibaba_solar_2022_conweave.txt",
}


STATED_MEAN = re.compile(r"# mean_bytes \(interpretation of the source simulator, \w+\): ([\d.]+)")


def source_mean(path: Path) -> float:
    """The mean the shared file states under its source simulator's interpretation."""
    for line in path.read_text().splitlines():
        m = STATED_MEAN.match(line)
        if m:
            return float(m.group(1))
    raise AssertionError(f"{path.name}: no stated mean")


def test_every_builtin_has_a_source():
    assert {name for name, _, _ in _core.builtin_workloads()} == set(SOURCES)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/workloads is not present")
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_builtin_mean_matches_the_shared_table(name):
    means = {n: mean for n, mean, _ in _core.builtin_workloads()}
    expected = source_mean(SHARED / SOURCES[name])
    assert means[name] == pytest.approx(expected, rel=0.02)
