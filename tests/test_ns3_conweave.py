"""ConWeave's ns-3 (issue 23's fidelity anchor for the load balancers): its configuration is
read into ``compat = "conweave_ns3"`` with the balancer ``LB_MODE`` names, one is written
for a topology, flows and a balancer, its port-less flow files are read, and
``validate-against-ns3`` recognises its program. A stand-in script plays ns-3."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

import hopsim
from hopsim import ns3_config, ns3_validate
from hopsim.cli import main

DATA = Path(__file__).parent / "data"
TOPO, FLOWS = DATA / "star_topology.txt", DATA / "star_flows.txt"


def _config(tmp_path: Path, lb: str) -> dict[str, str]:
    flows = ns3_config.write_conweave_flows(FLOWS, tmp_path / "flows.txt")
    path = ns3_config.write_conweave_config(
        tmp_path / f"config_{lb}.txt", topology=TOPO, flows=flows, lb=lb, out_prefix=tmp_path / "o"
    )
    return ns3_config.read_config(path)


@pytest.mark.parametrize(
    "lb,table",
    [
        ("ecmp", None),
        ("drill", {"samples": 2, "memory": 1}),
        ("letflow", {"path_choice": "source_tor"}),
    ],
)
def test_a_conweave_config_maps_to_its_profile_and_balancer(tmp_path, lb, table):
    cfg = _config(tmp_path, lb)
    doc, rows = ns3_config.scenario_from_config(cfg)
    assert doc["compat"] == "conweave_ns3"
    assert doc["routing"]["load_balancer"] == lb
    assert doc["routing"].get(lb) == table
    # 2 × 100 Gb/s × 1 µs + 2 MMU cells of 1,048 B (ConfigHdrm).
    assert doc["switch"]["pfc"]["headroom_bytes"] == 2 * 12_500 + 2 * 1_048
    assert doc["switch"]["buffer_bytes"] == "9MiB"
    # run.py's DCQCN at 100 Gb/s.
    assert doc["transport"]["dcqcn"]["rate_ai"] == "40Mbps"
    keys = {r.key for r in rows}
    assert {"LB_MODE", "ENABLE_PFC", "ENABLE_IRN", "CONWEAVE_PATH_PAUSE_TIME"} <= keys
    hopsim.validate(doc)


def test_conweave_keys_that_change_the_run_are_mapped_or_refused(tmp_path):
    cfg = _config(tmp_path, "ecmp")
    doc, _ = ns3_config.scenario_from_config({**cfg, "ENABLE_PFC": "0", "ENABLE_IRN": "1"})
    assert doc["switch"]["pfc"]["enabled"] is False
    assert doc["transport"]["loss_recovery"] == "irn"
    with pytest.raises(ValueError, match=r"^LB_MODE: 9 \(ConWeave itself is not modelled"):
        ns3_config.scenario_from_config({**cfg, "LB_MODE": "9"})
    with pytest.raises(ValueError, match=r"^LB_MODE: 5; expected one of 0 \(ecmp\)"):
        ns3_config.scenario_from_config({**cfg, "LB_MODE": "5"})
    with pytest.raises(ValueError, match=r"^BUFFER_SIZE: 0"):
        ns3_config.scenario_from_config({**cfg, "BUFFER_SIZE": "0"})
    with pytest.raises(ValueError, match=r"^lb: expected one of"):
        ns3_config.write_conweave_config(
            tmp_path / "c.txt", topology=TOPO, flows=FLOWS, lb="hula", out_prefix=tmp_path / "o"
        )


def test_conweave_flow_files_run_with_ports_numbered_per_destination(tmp_path):
    """The port-less form: each flow to a host gets that host's next port from 100."""
    flows = ns3_config.write_conweave_flows(FLOWS, tmp_path / "flows.txt")
    lines = flows.read_text().split("\n")
    assert lines[1] == "0 3 3 20000 0.000001"
    doc = {
        "compat": "conweave_ns3",
        "topology": {"kind": "file", "format": "hpcc", "file": str(TOPO)},
        "workload": {"kind": "flows", "format": "hpcc", "file": str(flows)},
    }
    r = hopsim.run(doc)
    f = r.flows.sort_values("flow_id")
    assert list(f["dport"]) == [100, 101, 102, 100], "three flows to host 3, one to host 0"
    assert r.flows["fct_ns"].notna().all()
    again = hopsim.run(doc)
    assert again.flows.equals(r.flows), "deterministic"


def _fake_conweave(tmp_path: Path) -> Path:
    root = tmp_path / "conweave"
    exe = root / "build" / "scratch" / "network-load-balance"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\nwhile true; do sleep 1; done\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return root


def test_a_conweave_build_is_found_and_lb_needs_one(tmp_path, capsys):
    root = _fake_conweave(tmp_path)
    build = ns3_validate.find_build(str(root), None)
    assert build.flavour == "conweave" and build.binary.name == "network-load-balance"
    base = ["validate-against-ns3", "--topology", str(TOPO), "--flows", str(FLOWS)]
    assert main([*base, "--cc", "dcqcn", "--lb", "drill", "--ns3-fct", str(FLOWS)]) == 2
    assert "--lb chooses ConWeave's balancer" in capsys.readouterr().err
    out = tmp_path / "out"
    argv = [*base, "--cc", "hpcc", "--ns3", str(root), "-o", str(out)]
    assert main(argv) == 2
    assert "ConWeave's ns-3 is configured for DCQCN only" in capsys.readouterr().err
    # A generated run: ConWeave's config and port-less flows are written for it.
    argv = [*base, "--lb", "drill", "--ns3", str(root), "-o", str(out), "--ns3-stall", "1"]
    assert main([*argv, "--no-floor"]) == 1
    cfg = ns3_config.read_config(out / "ns3_generated_config.txt")
    assert cfg["LB_MODE"] == "2" and Path(cfg["FLOW_FILE"]) == out / "flows_conweave.txt"
    assert 'compat = "conweave_ns3"' in (out / "mapping.txt").read_text()


def test_the_correlation_bar_is_the_noise_floor_where_that_is_lower():
    """Random marking: a run agrees flow by flow when it agrees with ns-3 about as well as
    each simulator agrees with itself under another seed (issue 25, item 5)."""
    import pandas as pd

    v = ns3_validate.Validation(
        name="x",
        table=pd.DataFrame(),
        agreement={"correlation": 0.78, "flows": 10},
        joined=pd.DataFrame(),
        hopsim=ns3_validate.SideRun("hopsim"),
        ns3=ns3_validate.SideRun("ns-3"),
        ns3_flows=10,
        hopsim_flows=10,
    )
    assert v.correlation_bar() == 0.9
    assert any("correlation 0.780 < 0.900" in f for f in v.failures())
    v.floor = {"correlation": 0.77}
    assert v.correlation_bar() == pytest.approx(0.75)
    assert v.failures() == []
    v.ns3_floor = {"correlation": 0.85}
    assert v.correlation_bar() == pytest.approx(0.75), "the lower floor"
    v.floor = {"correlation": 0.95}
    assert v.correlation_bar() == pytest.approx(0.83)
    assert "the noise floor less 0.02" in v.failures()[0]
