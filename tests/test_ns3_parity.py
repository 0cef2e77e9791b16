"""Flow-by-flow agreement with the ns-3 RDMA simulator under ``compat = "ns3"``, and
``hopsim validate-against-ns3``: its ns-3 configuration reader and writer, its driver (with
a stand-in for ns-3's ``third``) and its report.

ns-3's results are in ``tests/data/ns3`` (see its README for their provenance); the two
public inputs of the WebSearch runs are rebuilt by ``ns3_inputs`` (the 320-host fat tree
from its structure, the flow list from ns-3's outputs), and checked against the originals
when ``shared/anchors/ns3-fattree320`` is present.
"""

from __future__ import annotations

import json
import stat
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from ns3_inputs import fat_tree_320, ns3_start_ns, write_ws30_1ms_inputs, ws30_1ms_flows

import hopsim
from hopsim import cli, ns3, ns3_config, ns3_validate
from hopsim.bench import find_anchor
from hopsim.scenario import dumps_toml, loads_toml

DATA = Path(__file__).parent / "data" / "ns3"
ANCHOR = find_anchor("ns3-fattree320")
needs_anchor = pytest.mark.skipif(
    ANCHOR is None, reason="shared/anchors/ns3-fattree320 (ns-3's inputs) not found"
)
CCS = ["dcqcn", "hpcc", "timely", "dctcp"]


@pytest.fixture(scope="module")
def ws30_inputs(tmp_path_factory) -> tuple[Path, Path]:
    """``fat.txt`` and ``ws30_1ms.txt`` as ``ns3_inputs`` rebuilds them."""
    return write_ws30_1ms_inputs(tmp_path_factory.mktemp("ns3_inputs"))


def _scenario(topology: Path, flows: Path, cc: str) -> dict:
    return {
        "compat": "ns3",
        "topology": {"kind": "file", "format": "hpcc", "file": str(topology)},
        "workload": {"kind": "flows", "format": "hpcc", "file": str(flows)},
        "transport": {"cc": cc},
    }


@pytest.mark.parametrize("cc", CCS)
def test_incast_fcts_match_ns3(cc):
    """4-to-1 incast of 10 MB flows starting together. TIMELY and DCTCP (deterministic, no
    random marks): every flow within 1 % of its own ns-3 FCT (measured: 0.01 %). DCQCN (random
    marks) and HPCC: the sorted FCTs within 10 % (measured: DCQCN 2 %; HPCC 1 % but for the
    first flow out, 2.84 ms against ns-3's 3.11 — which sender HPCC favours while four start
    in the same nanosecond differs)."""
    r = hopsim.run(_scenario(DATA / "incast_topology.txt", DATA / "incast_flows.txt", cc))
    theirs = ns3.read_fct(DATA / f"incast_{cc}_fct.txt")
    joined = ns3.join_flows(r.flows, theirs)
    assert len(joined) == 4
    if cc in ("timely", "dctcp"):
        ratio = joined["fct_hopsim"] / joined["fct_ns3"]
        assert ratio.between(0.99, 1.01).all(), ratio.round(4).tolist()
    ours, ref = sorted(joined["fct_hopsim"]), sorted(joined["fct_ns3"])
    assert all(abs(a / b - 1) <= 0.10 for a, b in zip(ours, ref)), (ours, ref)


def test_incast_timely_ns3_variant_is_what_agrees():
    """The paper's TIMELY, one update per 16 KB completion, recovers far more slowly from
    the incast than ns-3's once-per-RTT form: the variant matters."""
    doc = _scenario(DATA / "incast_topology.txt", DATA / "incast_flows.txt", "timely")
    paper_timely = {**doc, "transport": {"cc": "timely", "timely": {"variant": "paper"}}}
    with pytest.warns(hopsim.ScenarioWarning, match="transport.timely.variant"):
        paper = hopsim.run(paper_timely)
    ref = ns3.read_fct(DATA / "incast_timely_fct.txt")["fct_ns"].max()
    assert paper.flows["fct_ns"].max() > 1.5 * ref


@pytest.mark.parametrize("cc", CCS)
def test_ws30_1ms_agrees_flow_by_flow(cc, ws30_inputs):
    """ws30_1ms.txt on the 320-host fat tree (both rebuilt, `ns3_inputs`): per-flow slowdown
    correlation ≥ 0.98, every flow joined one to one. Measured: TIMELY and DCTCP 1.000 with
    93 % and 80 % of FCTs equal to the nanosecond (74 % for DCTCP on the original flow file,
    65 of whose starts are 1 ns earlier), HPCC 0.999, DCQCN 0.991 (its random ECN marks draw
    from different generators; ns-3 against itself with another RngRun: 0.980–0.997)."""
    r = hopsim.run(_scenario(*ws30_inputs, cc))
    theirs = ns3.read_fct(DATA / f"ws30_1ms_{cc}_fct.txt")
    joined = ns3.join_flows(r.flows, theirs)
    stats = ns3.agreement(joined)
    assert stats["flows"] == len(theirs) == 405
    assert stats["correlation"] >= 0.98, stats["correlation"]
    table = ns3.compare(r, ns3.buckets(theirs))
    # DCQCN's >10MB bucket holds 10 flows whose p95 moves by 25 % between ns-3's own seeds.
    rows = [b for b in table.index if b != "all" and not (cc == "dcqcn" and b == ">10MB")]
    for statistic in ("mean", "p50", "p95"):
        off = table.loc[rows, f"{statistic}_ratio"].sub(1).abs()
        assert (off <= 0.05).all(), (statistic, off.round(3).to_dict())
    if cc in ("timely", "dctcp"):
        exact = ((joined["fct_hopsim"] - joined["fct_ns3"]).abs() <= 1).mean()
        assert exact >= 0.7, f"{exact:.1%} of FCTs equal to the nanosecond"


def test_every_flow_takes_ns3s_path(ws30_inputs):
    """ECMP under compat picks the switches ns-3 picks: the switch hops of every flow's first
    packet in ws30_1ms.txt equal those of an ns-3 packet trace (``ws30_1ms_paths.txt``)."""
    want = {}
    for line in (DATA / "ws30_1ms_paths.txt").read_text().splitlines():
        if line.startswith("#"):
            continue
        src, dst, sport, _dport, *hops = map(int, line.split())
        want[(src, dst, sport)] = hops
    doc = _scenario(*ws30_inputs, "dcqcn")
    doc["output"] = {"packet_trace": {"max_records": 20_000_000}}
    r = hopsim.run(doc)
    p = r.packets
    first = p[
        (p["event"] == "enqueue") & (p["kind"] == "data") & (p["seq"] == 0) & (p["node"] >= 320)
    ]
    flows = r.flows.set_index("flow_id")
    got = {}
    for flow_id, hops in first.sort_values("time_ns").groupby("flow_id")["node"]:
        f = flows.loc[flow_id]
        got[(int(f["src"]), int(f["dst"]), int(f["sport"]))] = hops.tolist()
    assert len(got) == len(want) == 405
    differ = [k for k in want if got.get(k) != want[k]]
    assert not differ, f"{len(differ)} flows differ, e.g. {differ[:3]}"


@needs_anchor
def test_the_rebuilt_fat_tree_is_fat_txt_byte_for_byte():
    assert fat_tree_320() == (ANCHOR / "fat.txt").read_text()


@needs_anchor
def test_the_rebuilt_flow_list_is_ws30_1ms_txt():
    """Every line's source, destination, priority, port and size equal the original's, in
    order (the count line too, with its trailing space); every start reads as the same
    nanosecond in ns-3, and a start text differs only where the outputs cannot tell the two
    candidates apart, by 1 ns."""
    ours = ws30_1ms_flows().splitlines()
    theirs = (ANCHOR / "ws30_1ms.txt").read_text().splitlines()
    assert ours[0] == theirs[0] == "405 " and len(ours) == len(theirs) == 406
    texts_differ = 0
    for a, b in zip(ours[1:], theirs[1:]):
        *fields_a, start_a = a.split()
        *fields_b, start_b = b.split()
        assert fields_a == fields_b, (a, b)
        assert ns3_start_ns(start_a) == ns3_start_ns(start_b), (a, b)
        if start_a != start_b:
            texts_differ += 1
            one_ns = round((float(start_a) - float(start_b)) * 1e9)
            assert one_ns == 1, (a, b)
    print(f"{texts_differ} of 405 start texts differ from ws30_1ms.txt, each by 1 ns")
    assert texts_differ == 65
    assert ws30_1ms_flows().endswith("\n") and (ANCHOR / "ws30_1ms.txt").read_text().endswith("\n")


def test_source_ports_per_pair_as_ns3_numbers_them(tmp_path):
    """``third.cc`` numbers each (source, destination) pair's flows from 10000."""
    flows = tmp_path / "flows.txt"
    flows.write_text("3\n0 4 3 100 2000 2.0\n0 4 3 100 2000 2.000001\n1 4 3 100 2000 2.0\n")
    r = hopsim.run(_scenario(DATA / "incast_topology.txt", flows, "dcqcn"))
    got = r.flows.sort_values(["src", "start_ns"])
    assert got[["src", "sport"]].values.tolist() == [[0, 10000], [0, 10001], [1, 10000]]
    without = {
        k: v
        for k, v in _scenario(DATA / "incast_topology.txt", flows, "dcqcn").items()
        if k != "compat"
    }
    plain = hopsim.run(without)
    # Without compat, flow i (in start order) uses 10000 + i.
    assert (plain.flows["sport"] == 10000 + plain.flows["flow_id"]).all()


# ---------------------------------------------------------------- the ns-3 configuration


HP_CONFIG = textwrap.dedent(
    """\
    ENABLE_QCN 1
    USE_DYNAMIC_PFC_THRESHOLD 1
    PACKET_PAYLOAD_SIZE 1000
    TOPOLOGY_FILE mix/topology.txt
    FLOW_FILE mix/flow.txt
    FCT_OUTPUT_FILE mix/fct.txt
    SIMULATOR_STOP_TIME 4.00
    CC_MODE 3
    RATE_AI 50Mb/s
    RATE_HAI 50Mb/s
    MIN_RATE 1000Mb/s
    EWMA_GAIN 0.00390625
    HAS_WIN 1
    GLOBAL_T 1
    VAR_WIN 1
    FAST_REACT 1
    U_TARGET 0.95
    MI_THRESH 0
    INT_MULTI 4
    ACK_HIGH_PRIO 0
    KMAX_MAP 2 100000000000 1600 400000000000 6400
    KMIN_MAP 2 100000000000 400 400000000000 1600
    PMAX_MAP 2 100000000000 0.20 400000000000 0.20
    BUFFER_SIZE 32
    PAUSE_TIME 5
    """
)


def test_config_maps_every_model_key_to_a_field(tmp_path):
    path = tmp_path / "config.txt"
    path.write_text(HP_CONFIG)
    doc, rows = ns3_config.scenario_from_config(ns3_config.read_config(path))
    assert doc["compat"] == "ns3" and doc["transport"]["cc"] == "hpcc"
    t = doc["transport"]
    assert t["hpcc"] == {
        "rate_ai": "50Mbps",
        "min_rate": "1Gbps",
        "eta": 0.95,
        "max_stage": 0,
        "int_multi": 4,
    }
    assert (t["window"], t["bdp"], t["window_follows_rate"], t["mtu"]) == ("bdp", "max", True, 1000)
    ecn = doc["switch"]["ecn"]
    assert (ecn["kmin"], ecn["kmax"], ecn["pmax"]) == ("400KB", "1600KB", 0.2)
    assert ecn["reference_rate"] == "100Gbps" and ecn["scale_with_rate"] is True
    assert doc["switch"]["buffer_bytes"] == "32MiB"
    assert "dcqcn" not in t, "DCQCN's keys do not reach an HPCC run"
    by_key = {r.key: r for r in rows}
    assert by_key["RATE_HAI"].hopsim == "unused by HPCC"
    assert not by_key["PAUSE_TIME"].modelled, "what hopsim does not model is said"
    assert by_key["U_TARGET"].field == "transport.hpcc.eta"
    assert by_key["INT_MULTI"].field == "transport.hpcc.int_multi"
    hopsim.validate(
        {
            **doc,
            "topology": {
                "kind": "file",
                "format": "hpcc",
                "file": str(DATA / "incast_topology.txt"),
            },
            "workload": {"kind": "flows", "format": "hpcc", "file": str(DATA / "incast_flows.txt")},
        }
    )


@pytest.mark.parametrize(
    "line, message",
    [
        ("CC_MODE 10", "CC_MODE: 10 is not modelled by hopsim"),
        ("ERROR_RATE_PER_LINK 0.01", "ERROR_RATE_PER_LINK: random packet loss is not modelled"),
        ("MULTI_RATE 1", "MULTI_RATE: 1 (an HPCC variant) is not modelled"),
        ("RATE_AI fast", "RATE_AI: expected a rate such as 20Mb/s, got 'fast'"),
        ("KMAX_MAP 2 100000000000", "KMAX_MAP: expected `n rate1 value1"),
    ],
)
def test_config_settings_hopsim_cannot_run_are_refused_by_key(tmp_path, line, message):
    path = tmp_path / "config.txt"
    path.write_text(HP_CONFIG + line + "\n")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ns3_config.scenario_from_config(ns3_config.read_config(path))


def test_config_lines_that_are_not_key_value_are_named(tmp_path):
    path = tmp_path / "config.txt"
    path.write_text("CC_MODE 1\n  = 3\n")
    with pytest.raises(ValueError, match=r"config.txt:2: expected `KEY value`"):
        ns3_config.read_config(path)


@pytest.mark.parametrize("cc", CCS)
def test_written_config_reads_back_to_the_same_scenario_parts(tmp_path, cc):
    """What `write_config` writes is run.py's setting; reading it back gives compat's own
    values, so a generated ns-3 run and a compat run agree by construction."""
    cfg_path = tmp_path / "c.txt"
    ns3_config.write_config(
        cfg_path,
        topology=DATA / "incast_topology.txt",
        flows=DATA / "incast_flows.txt",
        cc=cc,
        out_prefix=tmp_path / "out",
    )
    cfg = ns3_config.read_config(cfg_path)
    assert cfg["CC_MODE"] == str({"dcqcn": 1, "hpcc": 3, "timely": 7, "dctcp": 8}[cc])
    assert cfg["FCT_OUTPUT_FILE"] == str(tmp_path / "out_fct.txt")
    assert cfg["KMAX_MAP"] == ("1 100000000000 300" if cc == "dctcp" else "1 100000000000 1600")
    doc, rows = ns3_config.scenario_from_config(cfg)
    assert all(r.modelled for r in rows), [r for r in rows if not r.modelled]
    base = hopsim.run(_scenario(DATA / "incast_topology.txt", DATA / "incast_flows.txt", cc))
    mapped = hopsim.run(doc)
    assert mapped.flows["fct_ns"].tolist() == base.flows["fct_ns"].tolist()


def test_dumps_toml_round_trips_a_scenario():
    doc = {
        "compat": "ns3",
        "seed": 3,
        "topology": {"kind": "file", "file": "a b/fat.txt"},
        "switch": {"ecn": {"kmin": "400KB", "scale_with_rate": True}, "buffer_bytes": "32MiB"},
        "faults": [{"link": [1, 2], "down": "3us"}],
        "workload": [{"kind": "flows", "flows": [{"src": 0, "dst": 1, "size": "1KB"}]}],
    }
    assert loads_toml(dumps_toml(doc)) == doc


# ---------------------------------------------------------------- the command


def _fake_ns3(tmp_path: Path, fct: Path, status: int = 0) -> Path:
    """A stand-in for ns-3's ``build/scratch/third``: copies a recorded fct.txt to the
    config's FCT_OUTPUT_FILE (and an empty pfc.txt), after checking how it was started."""
    sim = tmp_path / "simulation"
    exe = sim / "build" / "scratch" / "third"
    exe.parent.mkdir(parents=True)
    exe.write_text(
        f"#!{sys.executable}\n"
        "import os, shutil, sys\n"
        "cfg = dict(l.split(None, 1) for l in open(sys.argv[1]) if l.strip())\n"
        f"assert os.environ['LD_LIBRARY_PATH'].split(os.pathsep)[0] == {str(sim / 'build')!r}\n"
        f"assert os.getcwd() == {str(sim)!r}\n"
        "print('ns-3 stand-in: ' + cfg['CC_MODE'].strip(), os.environ.get('NS_GLOBAL_VALUE'))\n"
        f"shutil.copy({str(fct)!r}, cfg['FCT_OUTPUT_FILE'].strip())\n"
        "open(cfg['PFC_OUTPUT_FILE'].strip(), 'w').close()\n"
        f"sys.exit({status})\n"
    )
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return sim


def _incast_argv(out: Path, *extra: str) -> list[str]:
    """``validate-against-ns3`` on the recorded incast's topology and flows."""
    return [
        "validate-against-ns3",
        "--topology",
        str(DATA / "incast_topology.txt"),
        "--flows",
        str(DATA / "incast_flows.txt"),
        "-o",
        str(out),
        *extra,
    ]


def test_validate_against_ns3_runs_both_and_reports(tmp_path, capsys):
    sim = _fake_ns3(tmp_path, DATA / "incast_timely_fct.txt")
    out = tmp_path / "v"
    argv = _incast_argv(out, "--ns3", str(sim), "--cc", "timely")
    assert cli.main(argv) == cli.EXIT_OK
    text = capsys.readouterr().out
    assert "AGREES" in text and "per-flow slowdown correlation" in text
    assert "speed: hopsim" in text and "PAUSE frames" in text
    assert "no random marking in this run" in text, "TIMELY: the seed changes nothing"
    report = json.loads((out / "agreement.json").read_text())
    assert report["flows"] == {"ns3": 4, "hopsim": 4, "joined": 4}
    assert report["ns3"]["wall_s"] > 0 and report["ns3"]["peak_rss_bytes"] > 0
    assert report["ns3"]["pause_frames"] == 0
    assert "ns-3 stand-in: 7" in (out / "ns3.log").read_text()
    assert (out / "ns3_config.txt").is_file() and (out / "scenario.toml").is_file()
    assert loads_toml((out / "scenario.toml").read_text())["transport"]["cc"] == "timely"
    # The output directory is not overwritten without --force.
    assert cli.main(argv) == cli.EXIT_INPUT
    assert "already exists" in capsys.readouterr().err


def test_validate_against_ns3_on_an_existing_fct_and_a_user_config(tmp_path, capsys):
    config = tmp_path / "config.txt"
    ns3_config.write_config(
        config,
        topology=DATA / "incast_topology.txt",
        flows=DATA / "incast_flows.txt",
        cc="dctcp",
        out_prefix=tmp_path / "theirs",
    )
    before = config.read_text()
    argv = ["validate-against-ns3", "--config", str(config), "-o", str(tmp_path / "v")]
    argv += ["--ns3-fct", str(DATA / "incast_dctcp_fct.txt"), "--no-floor"]
    assert cli.main(argv) == cli.EXIT_OK
    text = capsys.readouterr().out
    assert "given (not run here)" in text and "AGREES" in text
    assert config.read_text() == before, "the user's config is untouched"
    assert "noise floor" not in text
    mapping = (tmp_path / "v" / "mapping.txt").read_text()
    assert "DCTCP_RATE_AI" in mapping and "transport.dctcp.rate_ai = 615Mbps" in mapping


def test_validate_against_ns3_says_when_they_differ(tmp_path, capsys):
    # An HPCC run against TIMELY's ns-3 FCTs, at 1 %: exit status 1, and why.
    argv = _incast_argv(
        tmp_path / "v",
        "--cc",
        "hpcc",
        "--ns3-fct",
        str(DATA / "incast_timely_fct.txt"),
        "--no-floor",
        "--tolerance",
        "0.01",
    )
    assert cli.main(argv) == cli.EXIT_FAILED
    assert "DIFFERS:" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--cc", "timely"], "give --ns3 SIMULATION_DIR or --binary PATH"),
        (["--ns3-fct", "x", "--ns3", "y"], "--ns3-fct reads a finished ns-3 run"),
        (["--ns3-fct", "nope.txt", "--cc", "dcqcn"], "--ns3-fct: nope.txt: no such file"),
        (["--ns3", "/nonexistent", "--cc", "dcqcn"], "--ns3: /nonexistent is not a folder"),
    ],
)
def test_validate_against_ns3_input_errors_name_the_option(tmp_path, capsys, args, message):
    assert cli.main(_incast_argv(tmp_path / "v", *args)) == cli.EXIT_INPUT
    assert message in capsys.readouterr().err


def test_a_failing_ns3_run_is_reported_with_its_log(tmp_path, capsys):
    sim = _fake_ns3(tmp_path, DATA / "incast_dcqcn_fct.txt", status=3)
    argv = _incast_argv(tmp_path / "v", "--ns3", str(sim), "--cc", "dcqcn")
    assert cli.main(argv) == cli.EXIT_FAILED
    err = capsys.readouterr().err
    assert "ns-3 exited with status 3" in err and "ns-3 stand-in: 1" in err


def test_ns3_pause_frames_are_counted_from_pfc_txt(tmp_path):
    pfc = tmp_path / "pfc.txt"
    pfc.write_text("2000001000 320 1 3 1\n2000002000 320 1 3 0\n2000003000 5 0 1 1\n")
    assert ns3_validate.ns3_pause_frames(pfc) == 2
    assert ns3_validate.ns3_pause_frames(tmp_path / "missing.txt") is None
    pfc.write_text("1 2 3\n")
    with pytest.raises(ValueError, match="pfc.txt:1: expected 5 fields"):
        ns3_validate.ns3_pause_frames(pfc)


def test_runs_are_deterministic_under_compat():
    doc = _scenario(DATA / "incast_topology.txt", DATA / "incast_flows.txt", "dcqcn")
    a, b = hopsim.run(doc), hopsim.run(doc)
    assert a.flows["fct_ns"].tolist() == b.flows["fct_ns"].tolist()


def test_ns3_floor_runs_ns3_again_with_another_rng_run(tmp_path, capsys):
    sim = _fake_ns3(tmp_path, DATA / "incast_dcqcn_fct.txt")
    out = tmp_path / "v"
    argv = _incast_argv(out, "--ns3", str(sim), "--cc", "dcqcn", "--ns3-floor")
    cli.main(argv)
    text = capsys.readouterr().out
    assert "ns-3 against itself (RngRun 1 vs 2): per-flow correlation 1.000" in text
    assert "RngRun=2" in (out / "ns3_rngrun2.log").read_text()
    assert "None" in (out / "ns3.log").read_text(), "the first run keeps ns-3's own RngRun"
    report = json.loads((out / "agreement.json").read_text())
    assert report["ns3_noise_floor"]["ratios"]["all"]["mean"] == 1.0


def test_a_field_that_contradicts_compat_is_said_before_the_run_and_in_the_report(tmp_path, capsys):
    doc = _scenario(DATA / "incast_topology.txt", DATA / "incast_flows.txt", "hpcc")
    with warnings.catch_warnings():
        warnings.simplefilter("error", hopsim.ScenarioWarning)
        assert hopsim.run(doc).summary["notes"] == [], "the profile alone contradicts nothing"
    doc["transport"]["window"] = "none"
    with pytest.warns(hopsim.ScenarioWarning, match=r'transport.window = "none" contradicts'):
        result = hopsim.run(doc)
    assert result.summary["notes"][0][0] == "compat"
    # The command line prints it first, and validate-against-ns3's report keeps it.
    sim = _fake_ns3(tmp_path, DATA / "incast_timely_fct.txt")
    out = tmp_path / "v"
    argv = _incast_argv(out, "--ns3", str(sim), "--cc", "timely")
    argv += ["--set", 'transport.timely.variant="paper"']
    cli.main(argv)
    captured = capsys.readouterr()
    assert 'hopsim: warning: compat = "ns3": transport.timely.variant' in captured.err
    assert "the hopsim scenario departs from ns-3" in captured.out
    notes = json.loads((out / "agreement.json").read_text())["notes"]
    assert len(notes) == 1 and "UpdateRateTimely" in notes[0]
