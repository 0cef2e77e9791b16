"""Pyrrha-NS3 beside hopsim (issue 25, item 3): its topology, flow and configuration files
are written from a hopsim scenario, its fct.txt and pfc.txt are read, flows are joined by
the QP and message ids they were written with, and ``validate-against-ns3`` recognises its
tree and drives it. A stand-in script plays Pyrrha-NS3's ``third``."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pandas as pd
import pytest

import hopsim
from hopsim import ns3_pyrrha, ns3_validate
from hopsim.cli import main
from hopsim.scenario import dumps_toml

SMALL = {
    "name": "small-incast-mix",
    "seed": 1,
    "duration": "5ms",
    "topology": {
        "kind": "leaf_spine",
        "spines": 2,
        "leaves": 3,
        "hosts_per_leaf": 4,
        "host_rate": "100Gbps",
        "fabric_rate": "400Gbps",
        "host_delay": "600ns",
        "fabric_delay": "600ns",
    },
    "switch": {"buffer_bytes": "32MiB", "flow_control": {"kind": "pfc"}, "ecn": {"enabled": False}},
    "transport": {"cc": "none", "mtu": 1460},
    "workload": [
        {
            "kind": "incast_mix",
            "size_dist": "memcached",
            "mean_size": 185,
            "load": 0.8,
            "flow_num": 60,
            "time_shift": "30us",
            "receiver": 0,
            "fan_in": 16,
            "incast_packets_min": 30,
            "incast_packets_max": 40,
            "incast_load": 0.5,
        }
    ],
}


@pytest.fixture(scope="module")
def small_run():
    return hopsim.run(SMALL)


def test_the_topology_keeps_hopsims_ids_and_port_order(small_run, tmp_path):
    path = ns3_pyrrha.write_topology(small_run.ports, 600, 600, tmp_path / "t.txt")
    lines = path.read_text().splitlines()
    # 12 hosts, 3 ToRs, 2 spines: nodes switches hosts_per_rack tors cores links
    assert lines[0] == "17 5 4 3 2 18"
    assert lines[1] == "12 13 14 15 16"
    links = [tuple(map(int, x.split())) for x in lines[2:]]
    assert links[:4] == [(0, 12, 100, 600), (1, 12, 100, 600), (2, 12, 100, 600), (3, 12, 100, 600)]
    assert all(a < b for a, b, *_ in links)
    assert links[12:] == [(t, s, 400, 600) for t in (12, 13, 14) for s in (15, 16)]
    # Each node's links come in hopsim's port order (ns-3 interface = port + 1).
    p = small_run.ports
    for node in (12, 15):
        in_file = [b if a == node else a for a, b, *_ in links if node in (a, b)]
        by_port = p[p["node"] == node].sort_values("port")["peer_node"].tolist()
        assert in_file == by_port


def test_a_topology_with_hosts_after_switches_is_refused():
    ports = pd.DataFrame(
        {
            "node": [0, 1],
            "port": [0, 0],
            "peer_node": [1, 0],
            "tier": ["tor", "host"],
            "rate_bps": [100e9, 100e9],
        }
    )
    with pytest.raises(ValueError, match="hosts numbered 0..H-1"):
        ns3_pyrrha.write_topology(ports, 600, 600, "/dev/null")


def test_flows_get_their_own_qp_or_one_per_pair(tmp_path):
    flows = pd.DataFrame(
        {
            "flow_id": [0, 1, 2, 3],
            "src": [1, 1, 2, 1],
            "dst": [0, 0, 0, 3],
            "size_bytes": [100, 200, 300, 400],
            "start_ns": [30_000.0, 100.0, 150.0, 5.0],
        }
    )
    own = ns3_pyrrha.write_flows(flows, tmp_path / "own.txt").read_text().splitlines()
    assert own[0] == "4 1"
    assert own[1] == "1 0 100 2.000030000 0 0"
    assert own[4] == "1 3 400 2.000000005 3 0"
    pair = ns3_pyrrha.write_flows(flows, tmp_path / "pair.txt", qp_per_pair=True)
    lines = pair.read_text().splitlines()[1:]
    # flows 0 and 1 share QP 0; flow 1 starts first, so it is message 0
    assert [x.split()[4:] for x in lines] == [["0", "1"], ["0", "0"], ["1", "0"], ["2", "0"]]
    # hopsim's starts are finer than ns-3's nanosecond: rounded to it
    odd = ns3_pyrrha.write_flows(flows.assign(start_ns=[0.4, 1.6, 2, 3]), tmp_path / "x.txt")
    assert [x.split()[3] for x in odd.read_text().splitlines()[1:3]] == [
        "2.000000000",
        "2.000000002",
    ]


def test_fct_and_pfc_files_are_read_and_malformed_lines_named(tmp_path):
    fct = tmp_path / "k-fct.txt"
    fct.write_text(
        "1\t0\t100\t2000030000\t0\t0\t5.100000\t4.900000\t1.040816 \n"
        "rcv 1\t0\t100\t2000030000\t0\t0\t5.000000\t4.800000\t1.041667 \n"
    )
    df = ns3_pyrrha.read_fct(fct)
    assert len(df) == 1
    assert df.loc[0, "start_ns"] == 30_000 and df.loc[0, "fct_ns"] == pytest.approx(5100)
    fct.write_text("1 0 100 2000030000 0 0 5.1\n")
    with pytest.raises(ValueError, match=r"k-fct.txt:1: expected 9 fields"):
        ns3_pyrrha.read_fct(fct)
    pfc = tmp_path / "k-pfc.txt"
    # node 12 interface 1 (port 0): queues 3 and 4 paused, overlapping, 100..400 ns
    pfc.write_text(
        "2000000100 12 1 1 3 1\n2000000200 12 1 1 4 1\n2000000300 12 1 1 3 0\n"
        "2000000400 12 1 1 4 0\n2000000500 0 0 1 3 1\n"
    )
    ev = ns3_pyrrha.read_pfc(pfc)
    t = ns3_pyrrha.paused_time_ns(ns3_pyrrha.pause_events(ev), end_ns=1000)
    assert t.set_index(["node", "port"])["paused_time_ns"].to_dict() == {
        (0, 0): 500.0,  # never resumed: to the end
        (12, 0): 300.0,
    }
    pfc.write_text("1 2 3\n")
    with pytest.raises(ValueError, match=r"k-pfc.txt:1: expected 6 fields"):
        ns3_pyrrha.read_pfc(pfc)
    ci = tmp_path / "k-ci.txt"
    assert ns3_pyrrha.read_ci(ci).empty
    # node 15 if 2: PAUSE root 12:1 at 100, PAUSE root 13:1 at 150, MERGE 13:1 into 12:1 at
    # 200, RESUME 12:1 at 600 -> paused 100..600; node 3: PAUSE at 50, never resumed
    ci.write_text(
        "2000000100 15 1 2 0 12 1 0 0\n2000000150 15 1 2 0 13 1 0 0\n"
        "2000000200 15 1 2 3 12 1 13 1\n2000000600 15 1 2 1 12 1 0 0\n"
        "2000000050 3 0 1 0 12 1 0 0\n"
    )
    cie = ns3_pyrrha.read_ci(ci)
    events = ns3_pyrrha.pause_events(ev.iloc[:0], cie)
    assert int(events["pause"].sum()) == 3
    t = ns3_pyrrha.paused_time_ns(events, end_ns=1000)
    assert t.set_index(["node", "port"])["paused_time_ns"].to_dict() == {
        (3, 0): 950.0,
        (15, 1): 500.0,
    }
    # a MERGE that left the replaced root paused would never end node 15's pause
    ci.write_text("1 2 3\n")
    with pytest.raises(ValueError, match=r"k-ci.txt:1: expected 9 fields"):
        ns3_pyrrha.read_ci(ci)


def test_fc_mode_follows_the_flow_control_kind():
    assert ns3_pyrrha.fc_mode({}) == 0
    assert ns3_pyrrha.fc_mode({"switch": {"flow_control": {"kind": "pyrrha"}}}) == 4
    bfc = {"switch": {"flow_control": {"kind": "bfc", "queues": 32}}}
    assert ns3_pyrrha.fc_mode(bfc, 32) == 2
    with pytest.raises(ValueError, match=r"^switch.flow_control.queues: 32, .*QUEUENUM 8"):
        ns3_pyrrha.fc_mode(bfc, 8)
    with pytest.raises(ValueError, match=r"^switch.pfc.enabled: false is not driven"):
        ns3_pyrrha.fc_mode({"switch": {"pfc": {"enabled": False}}})
    with pytest.raises(ValueError, match=r'^switch.flow_control.kind: .*"per_flow"'):
        ns3_pyrrha.fc_mode({"switch": {"flow_control": {"kind": "per_flow"}}})


def test_the_config_keeps_the_authors_lines_but_the_ones_it_sets(tmp_path):
    shipped = "FC_MODE 4\nBUFFER_SIZE 32\nFLOW_FROM_FILE 0\nTOPOLOGY_FILE mix/x.topo\n"
    path = ns3_pyrrha.write_config(
        shipped,
        tmp_path / "c.ini",
        fc=0,
        topology=tmp_path / "t.txt",
        flows=tmp_path / "f.txt",
        trace=tmp_path / "tr.txt",
        keyword=tmp_path / "ns3",
    )
    cfg = ns3_pyrrha.read_config_text(path.read_text())
    assert cfg["FC_MODE"] == "0" and cfg["FLOW_FROM_FILE"] == "1"
    assert cfg["BUFFER_SIZE"] == "32"
    assert cfg["TOPOLOGY_FILE"] == str(tmp_path / "t.txt")
    assert cfg["REALTIME_BUFFER_BW_FILE"] == str(tmp_path / "ns3")
    assert path.read_text().count("FC_MODE") == 1


def test_the_join_checks_the_flows_are_the_same():
    flows = pd.DataFrame(
        {
            "flow_id": [0, 1],
            "src": [1, 2],
            "dst": [0, 0],
            "size_bytes": [100, 200],
            "start_ns": [0.0, 10.0],
            "fct_ns": [5000.0, 6000.0],
            "ideal_fct_ns": [4000.0, 4000.0],
        }
    )
    fct = pd.DataFrame(
        {
            "src": [2, 1],
            "dst": [0, 0],
            "size_bytes": [200, 100],
            "start_ns": [9, 0],
            "qp": [1, 0],
            "msg_seq": [0, 0],
            "fct_ns": [7000.0, 5500.0],
            "ideal_fct_ns": [4100.0, 4100.0],
        }
    )
    j = ns3_pyrrha.join_messages(flows, fct)
    assert j["fct_ns3"].tolist() == [5500.0, 7000.0]
    with pytest.raises(ValueError, match="not the same flows"):
        ns3_pyrrha.join_messages(flows, fct.assign(size_bytes=[300, 100]))


def test_percentile_is_the_authors():
    assert ns3_pyrrha.percentile(list(range(1, 101)), 0.99) == 99
    assert ns3_pyrrha.percentile([5.0], 0.99) == 5.0


# ---------------------------------------------------------------- the command, with a stand-in

FAKE = f"""#!{sys.executable}
# Stands in for Pyrrha-NS3's third: reads the config, its flow file, writes
# <keyword>-fct.txt (each flow 2 us above its size at 100 Gb/s, plus a rcv line) and a
# -pfc.txt with one PAUSE and RESUME at the first ToR's first port.
import sys
cfg = dict(l.split(None, 1) for l in open(sys.argv[1]) if l.strip())
cfg = {{k: v.strip() for k, v in cfg.items()}}
assert cfg["FLOW_FROM_FILE"] == "1"
key = cfg["REALTIME_BUFFER_BW_FILE"]
head, *rows = open(cfg["FLOW_FILE"]).read().split("\\n")
topo = open(cfg["TOPOLOGY_FILE"]).read().split()
hosts = int(topo[0]) - int(topo[1])
with open(key + "-fct.txt", "w") as out:
    for r in rows:
        if not r:
            continue
        s, d, size, start, qp, msg = r.split()
        whole, frac = start.split(".")
        ns = int(whole) * 10**9 + int(frac)
        oracle = int(size) * 8 / 100e3 + 5.1
        fct = oracle + 2 + (1000 if cfg["FC_MODE"] == "0" and d == "0" else 0)
        line = "\\t".join([s, d, size, str(ns), qp, msg, f"{{fct:f}}", f"{{oracle:f}}", "1 "])
        out.write(line + "\\n")
        out.write("rcv " + line + "\\n")
with open(key + "-pfc.txt", "w") as out:
    out.write(f"2000001000 {{hosts}} 1 1 3 1\\n2000003000 {{hosts}} 1 1 3 0\\n")
"""


def fake_pyrrha(tmp_path: Path, queuenum: int = 8) -> Path:
    root = tmp_path / "Pyrrha-NS3"
    exe = root / "build" / "scratch" / "third"
    exe.parent.mkdir(parents=True)
    exe.write_text(FAKE)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    settings = root / ns3_pyrrha.MARKER[0]
    settings.parent.mkdir(parents=True)
    settings.write_text(
        f"static const uint32_t QUEUENUM = {queuenum};\n"
        "enum { FC_PFC = 0, FC_BFC = 2, FC_CONGESTION_ISOLATION = 4 } FC_MODE;\n"
    )
    ini = root / ns3_pyrrha.SHIPPED_CONFIG
    ini.parent.mkdir(parents=True)
    ini.write_text(
        "FC_MODE 4\nFLOW_FROM_FILE 0\nRESET_PER_QP_MSG 1\nBUFFER_SIZE 32\n"
        "TOPOLOGY_FILE mix/fattree-k8.topo\nHAS_WIN 1\n"
    )
    return root


def test_a_pyrrha_tree_is_told_from_the_hpcc_one(tmp_path):
    root = fake_pyrrha(tmp_path)
    assert ns3_validate.find_build(str(root), None).flavour == "pyrrha"
    assert ns3_validate.find_build(None, str(root / "build/scratch/third")).flavour == "pyrrha"
    (root / ns3_pyrrha.MARKER[0]).write_text("static const uint32_t QUEUENUM = 8;\n")
    assert ns3_validate.find_build(str(root), None).flavour == "hpcc"


def test_validate_against_pyrrha_runs_both_and_compares_per_class(tmp_path, capsys):
    root = fake_pyrrha(tmp_path)
    scenario = tmp_path / "small.toml"
    scenario.write_text(dumps_toml(SMALL))
    out = tmp_path / "out"
    argv = ["validate-against-ns3", "--scenario", str(scenario), "--ns3", str(root)]
    status = main([*argv, "-o", str(out)])
    text = capsys.readouterr().out
    assert status == 1  # the stand-in is not hopsim
    report = (out / "report.txt").read_text()
    assert report in text
    assert "Pyrrha-NS3 (FC_MODE 0)" in report
    for cls in ("incast", "victim", "others"):
        assert f"\n{cls} " in report
    cfg = ns3_pyrrha.read_config_text((out / "ns3_config.txt").read_text())
    assert cfg["FC_MODE"] == "0" and cfg["BUFFER_SIZE"] == "32"
    flows = pd.read_csv(out / "flows.csv")
    run = hopsim.Result.read(out / "hopsim")
    assert len(flows) == len(run.flows) == run.summary["flows_finished"]
    # the stand-in adds 2 us to each oracle FCT (+1 ms to PFC flows into host 0)
    into0 = flows["dst"] == 0
    assert (flows.loc[into0, "fct_ns3"] > 1e6).all()
    assert (flows.loc[~into0, "fct_ns3"] < 1e6).all()
    # Both simulators' pauses, per tier: one PAUSE at a ToR in the stand-in's log.
    tiers = {t["tier"]: t for t in json.loads((out / "agreement.json").read_text())["tiers"]}
    assert tiers["tor"]["pauses_ns3"] == 1 and tiers["tor"]["paused_ms_ns3"] == pytest.approx(0.002)
    # The settings hopsim takes to follow Pyrrha-NS3 are in the scenario it ran.
    ran = run.scenario
    assert ran["transport"]["window"] == "bdp" and ran["transport"]["bdp"] == "max"
    assert "transport.window" in (out / "mapping.txt").read_text()
    # A kind Pyrrha-NS3 does not run is refused naming the field; BFC-32 needs QUEUENUM 32.
    bad = [*argv, "-o", str(tmp_path / "o2"), "--set", 'switch.flow_control.kind="per_flow"']
    assert main(bad) == 2
    assert "switch.flow_control.kind" in capsys.readouterr().err
    bfc = [*argv, "-o", str(tmp_path / "o3")]
    bfc += ["--set", 'switch.flow_control={kind="bfc", queues=32}']
    assert main(bfc) == 2
    assert "QUEUENUM 8" in capsys.readouterr().err
    # --scenario needs Pyrrha-NS3
    assert main(["validate-against-ns3", "--scenario", str(scenario), "--ns3-fct", "x"]) == 2
    assert "--scenario runs" in capsys.readouterr().err


def test_bfc_follows_pyrrha_ns3_s_queue_assignment_and_scheduler_unless_set():
    fields = ("switch.flow_control.queue_assignment", "switch.flow_control.scheduler")
    bfc = {"switch": {"flow_control": {"kind": "bfc", "queues": 32}}}
    rows = ns3_pyrrha.apply_match_settings(bfc, {})
    assert bfc["switch"]["flow_control"]["queue_assignment"] == "pyrrha_ns3"
    assert bfc["switch"]["flow_control"]["scheduler"] == "pyrrha_ns3"
    assert {r.field for r in rows} >= set(fields)
    # a value the scenario writes is kept and reported as differing
    own = {"switch": {"flow_control": {"kind": "bfc", "scheduler": "round_robin"}}}
    rows = {r.field: r for r in ns3_pyrrha.apply_match_settings(own, {})}
    assert own["switch"]["flow_control"]["scheduler"] == "round_robin"
    assert not rows["switch.flow_control.scheduler"].modelled
    assert rows["switch.flow_control.queue_assignment"].modelled
    # other kinds get neither field
    pfc: dict = {"switch": {"flow_control": {"kind": "pyrrha"}}}
    rows = ns3_pyrrha.apply_match_settings(pfc, {})
    assert not {r.field for r in rows} & set(fields)
    assert "queue_assignment" not in pfc["switch"]["flow_control"]


def test_the_authors_settings_are_checked_against_the_scenario():
    doc = {**SMALL, "switch": {**SMALL["switch"], "flow_control": {"kind": "bfc", "queues": 32}}}
    resolved = ns3_pyrrha._resolved(doc)
    cfg = {"BUFFER_SIZE": "32", "PACKET_PAYLOAD_SIZE": "1000", "ENABLE_QCN": "0"}
    rows = {r.key: r for r in ns3_pyrrha.check_settings(cfg, resolved, 32)}
    assert rows["BUFFER_SIZE"].modelled and rows["ENABLE_QCN"].modelled
    assert not rows["PACKET_PAYLOAD_SIZE"].modelled  # 1,000 B there, 1,460 here
    assert rows["USE_HASH_FID / FLOWTB_SIZE"].modelled and rows["STICKY_TH"].modelled
    # hopsim's 32 BFC queues against their 31 (queue 0 is never a flow's there)
    assert not rows["QUEUENUM"].modelled
    # ... unless hopsim's BFC follows Pyrrha-NS3's queue assignment
    fc = {"kind": "bfc", "queues": 32, "queue_assignment": "pyrrha_ns3"}
    doc = {**SMALL, "switch": {**SMALL["switch"], "flow_control": fc}}
    rows = {r.key: r for r in ns3_pyrrha.check_settings(cfg, ns3_pyrrha._resolved(doc), 32)}
    assert rows["QUEUENUM"].modelled
    pyrrha = {**SMALL, "switch": {**SMALL["switch"], "flow_control": {"kind": "pyrrha"}}}
    cfg = {"TH_CONGESTION": "3", "CONGESTION_MERGE": "1", "ONLY_DOWN_PORT_ENABLE": "1"}
    rows = {r.key: r for r in ns3_pyrrha.check_settings(cfg, ns3_pyrrha._resolved(pyrrha), 8)}
    assert not rows["TH_CONGESTION"].modelled and rows["CONGESTION_MERGE"].modelled
    assert not rows["ONLY_DOWN_PORT_ENABLE"].modelled
