"""Built-in flow-size distributions match the published tables they copy."""

import json
import re
from pathlib import Path

import numpy as np
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
    "webserver_all": "fb_webserver_all_parsimon.txt",
    "webserver_intracluster": "fb_webserver_intracluster_homa.txt",
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


# ---------------------------------------------------------------- sampled CDFs

SHIPPED = (
    Path(__file__).resolve().parents[1] / "crates" / "hopsim-core" / "src" / "workload" / "cdfs"
)

# Flows drawn per distribution, and the tolerance on the empirical CDF at each point. The
# Dvoretzky-Kiefer-Wolfowitz inequality bounds the chance that the empirical CDF of n
# independent draws strays anywhere by more than eps: 2 exp(-2 n eps^2), about 2e-5 here.
SAMPLES = 40_000
EPS = 0.012


def cdf_table(path: Path) -> tuple[list[tuple[float, float]], str]:
    """The `size_bytes cumulative_probability` points of a CDF file, in file order, and how
    its simulator interpolates between them (`linear` or `step`, from the header)."""
    points, interpolation = [], None
    for line in path.read_text().splitlines():
        key, _, value = line.lstrip("# ").partition(":")
        if line.startswith("#"):
            if key in ("interpolation", "source_simulator_interpretation"):
                interpolation = value.split()[0]
        elif line.strip():
            size, prob = line.split()
            points.append((float(size), float(prob)))
    assert interpolation in ("linear", "step"), path
    return points, interpolation


def table_cdf(points: list[tuple[float, float]], interpolation: str, y: float) -> float:
    """The table's CDF at `y` bytes (right-continuous; a first point with probability > 0
    and a size listed twice are point masses)."""
    below = [i for i, (size, _) in enumerate(points) if size <= y]
    if not below:
        return 0.0
    i = below[-1]
    if i + 1 == len(points) or interpolation == "step":
        return points[i][1]
    (s0, p0), (s1, p1) = points[i], points[i + 1]
    return p0 + (y - s0) / (s1 - s0) * (p1 - p0)


def sampled_sizes(name: str, mean: float) -> np.ndarray:
    """About `SAMPLES` flow sizes drawn by a Poisson workload of built-in `name`, sorted, as
    the simulator draws them (the flows are generated when the simulation is built)."""
    hosts, load, rate_bps = 8, 0.5, 100e9
    stop_ns = SAMPLES * mean * 8 / (hosts * load * rate_bps) * 1e9
    doc = {
        "topology": {"kind": "dumbbell", "left_hosts": 4, "right_hosts": 4},
        "workload": {
            "kind": "poisson",
            "size_dist": name,
            "load": load,
            "stop": f"{stop_ns:.0f}ns",
        },
    }
    sizes = np.sort(np.asarray(_core.Simulation(json.dumps(doc), ".").flows()["size_bytes"], float))
    assert 0.9 * SAMPLES < len(sizes) < 1.1 * SAMPLES, len(sizes)
    return sizes


@pytest.mark.parametrize("source", ["published", "shipped"])
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_builtin_samples_follow_the_cdf_at_every_point(name, source):
    """At every point of the table a built-in distribution copies, the fraction of its draws
    at or below the point's size is the table's CDF there, within EPS — and, at the lower
    end of a vertical jump (a size listed twice), the fraction strictly below it too. Draws
    are whole bytes, rounded to the nearest, so "at or below x" is the table's CDF at
    x + 1/2 (the same as at x but where two points are one byte apart: Solar2022's 4095 and
    4096, for one). `published`: the table in ../shared/workloads; `shipped`: the package's
    own copy (present in a fresh clone)."""
    if source == "published":
        if not SHARED.is_dir():
            pytest.skip("../shared/workloads is not present")
        path = SHARED / SOURCES[name]
    else:
        path = SHIPPED / f"{name}.cdf"
    points, interpolation = cdf_table(path)
    means = {n: mean for n, mean, _ in _core.builtin_workloads()}
    sizes = sampled_sizes(name, means[name])
    gaps = []
    for i, (size, prob) in enumerate(points):
        checks = [("<=", "right", size + 0.5)]
        if i + 1 < len(points) and points[i + 1][0] == size:
            checks.append(("<", "left", size - 0.5))
        for op, side, y in checks:
            drawn = np.searchsorted(sizes, size, side=side) / len(sizes)
            expected = table_cdf(points, interpolation, y)
            gaps.append(
                (
                    abs(drawn - expected),
                    f"{op} {size:.0f} B: table {prob} ({expected:.4f}), drawn {drawn:.4f}",
                )
            )
    worst = max(gaps)
    print(
        f"{name} ({source}, {len(points)} points, {len(sizes)} draws): largest gap {worst[0]:.4f}"
    )
    assert worst[0] <= EPS, f"{path.name}: {worst[1]}"
