"""Bad input, class by class: each gives one `ScenarioError` naming the field or
``file:line`` and what was expected — never a crash, a hang, a traceback, an allocation
abort or a silently accepted run (issue 13)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

import hopsim
from hopsim import ScenarioError, _core
from hopsim.cli import main

DATA = Path(__file__).parent / "data"

# A small valid scenario: 8 hosts (0-7) on a 2x2 leaf-spine, one inline flow.
BASE = {
    "name": "base",
    "topology": {"kind": "leaf_spine", "spines": 2, "leaves": 2, "hosts_per_leaf": 4},
    "switch": {"buffer_bytes": "2MB"},
    "workload": [{"kind": "flows", "flows": [{"src": 0, "dst": 5, "size": 10_000}]}],
}

# Where the message of an error starts: a dotted field path, or a file and line.
_WHERE = re.compile(r"^([A-Za-z_][\w.\[\]]*|\S+:\d+|\S+): ")


def rejected(scenario=None, overrides=None, match: str = "") -> str:
    """Validate a variant of BASE; it must fail with a located message containing ``match``."""
    doc = copy.deepcopy(BASE if scenario is None else scenario)
    with pytest.raises(ScenarioError) as info:
        hopsim.validate(doc, overrides=overrides)
    message = str(info.value)
    assert _WHERE.match(message), f"error does not name a field or file: {message}"
    assert "\n" not in message
    assert match in message, message
    return message


def flows_file(tmp_path: Path, text: str, name: str = "flows.txt", fmt: str = "hpcc") -> dict:
    path = tmp_path / name
    path.write_bytes(text.encode()) if isinstance(text, str) else path.write_bytes(text)
    return {**BASE, "workload": {"kind": "flows", "file": str(path), "format": fmt}}


# ---------------------------------------------------------------- sizes, counts, times


@pytest.mark.parametrize(
    ("size", "match"),
    [
        (2**64 - 1, "workload.flows[0].size: expected at most 1,125,899,906,842,624 bytes"),
        (2**50 + 1, "expected at most 1,125,899,906,842,624 bytes per flow"),
        (2**64, "expected an integer from 0 to 18446744073709551615"),
        (-1, "negative"),
    ],
)
def test_flow_sizes_near_integer_limits(size, match):
    rejected(overrides={"workload.0.flows": [{"src": 0, "dst": 5, "size": size}]}, match=match)


@pytest.mark.parametrize(
    ("start", "match"),
    [
        ("9999999s", "expected at most 4,611,686 s (the simulation clock's range)"),
        ("1e30s", "too large"),
        ("-1us", "expected a non-negative duration"),
    ],
)
def test_times_beyond_the_clock(start, match):
    flow = {"src": 0, "dst": 5, "size": 1000, "start": start}
    rejected(overrides={"workload.0.flows": [flow]}, match=match)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            "9223372036854775808\n0 5 3 100 1000 0\n",
            ":1: a flow count of 9,223,372,036,854,775,808",
        ),
        ("1000000000000\n0 5 3 100 1000 0\n", ":1: a flow count of 1,000,000,000,000"),
        ("18446744073709551616\n", ":1: expected the flow count"),
        ("1\n0 5 3 100 1000 9999999.5\n", ":2: start: expected at most"),
        ("1\n0 5 3 100 1000 inf\n", ":2: start: expected seconds"),
        ("1\n0 5 3 100 18446744073709551615 0\n", ":2: size: expected at most"),
    ],
)
def test_flow_file_counts_sizes_and_times_near_limits(tmp_path, text, match):
    rejected(flows_file(tmp_path, text), match=match)


@pytest.mark.parametrize(
    ("header", "match"),
    [
        ("4294967296 1 3", ":1: 4,294,967,296 nodes is more than the 4,194,304"),
        ("1000000000000 1 3", ":1: 1,000,000,000,000 nodes"),
        ("9223372036854775808 1 3", ":1: 9,223,372,036,854,775,808 nodes"),
        ("5 1 4294967296", ":1: 4,294,967,296 links is more than"),
    ],
)
def test_topology_header_counts_near_limits(tmp_path, header, match):
    path = tmp_path / "topo.txt"
    path.write_text(f"{header}\n4\n0 4 100Gbps 1us 0\n")
    rejected({**BASE, "topology": {"kind": "file", "file": str(path)}}, match=match)


@pytest.mark.parametrize(
    ("topology", "match"),
    [
        (
            {"kind": "fat_tree", "k": 128},
            "topology: 524,288 hosts × 20,480 switches = 10,737,418,240",
        ),
        ({"kind": "fat_tree", "k": 1024}, "topology: 269,746,176 nodes is more than the 4,194,304"),
        ({"kind": "fat_tree", "k": 4_294_967_294}, "nodes is more than"),
        (
            {"kind": "leaf_spine", "spines": 2**32 - 1, "leaves": 2**32 - 1, "hosts_per_leaf": 1},
            "nodes",
        ),
        ({"kind": "fat_tree", "k": 2**32}, "expected an integer from 0 to 4294967295"),
    ],
)
def test_topology_sizes_are_bounded_before_building(topology, match):
    rejected({**BASE, "topology": topology}, match=match)


# ---------------------------------------------------------------- work without bound


@pytest.mark.parametrize(
    ("workload", "match"),
    [
        (
            {"kind": "poisson", "size_dist": "websearch", "load": 0.5, "stop": "1000s"},
            "would generate about",
        ),
        (
            {
                "kind": "incast",
                "receiver": 0,
                "fan_in": 4,
                "size_min": 1000,
                "size_max": 1000,
                "period": "1ps",
                "stop": "1ms",
            },
            "lengthen the period",
        ),
        (
            {"kind": "query", "fan_out": 2, "response_size": 1000, "qps": 1e12, "stop": "1ms"},
            "lower qps",
        ),
        (
            {"kind": "moe", "bytes_per_worker": 1000, "period": "1ps", "stop": "1s"},
            "lengthen the period",
        ),
    ],
)
def test_unbounded_workloads_are_refused_before_generating(workload, match):
    message = rejected({**BASE, "workload": [workload]}, match=match)
    assert message.startswith("workload[0]: would generate about") or message.startswith(
        "workload: would generate about"
    )
    assert "10,000,000" in message


def test_a_flow_too_long_for_a_run_without_duration_needs_one():
    huge = {"workload.0.flows": [{"src": 0, "dst": 5, "size": 10**15}]}
    rejected(overrides=huge, match="duration: required for this workload")
    hopsim.validate(copy.deepcopy(BASE), overrides={**huge, "duration": "1ms"})


def test_a_long_link_delay_with_pfc_is_refused_and_without_it_runs():
    slow = {"topology.host_delay": "1000s", "topology.fabric_delay": "1000s"}
    rejected(overrides=slow, match="switch.buffer_bytes: 2,000,000 B is too small for PFC")
    result = hopsim.run(
        copy.deepcopy(BASE), overrides={**slow, "switch.pfc.enabled": False, "duration": "1ms"}
    )
    assert result.status == "incomplete" and result.summary["sim_time_ns"] == 1e6


# ---------------------------------------------------------------- contradictions


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"switch.buffer_bytes": "200KB"}, "switch.buffer_bytes: 200,000 B is too small for PFC"),
        ({"switch.buffer_bytes": 1}, "expected at least one data packet (1048 B"),
        ({"switch.buffer_bytes": "5GB"}, "switch.buffer_bytes: expected less than 4 GiB"),
        (
            {"switch.buffer_bytes": 1, "switch.pfc.enabled": False},
            "switch.buffer_bytes: expected at least one data packet",
        ),
        ({"switch.pfc.headroom_bytes": "10MB"}, "is too small for PFC"),
        ({"switch.pfc.reserve_bytes": "10MB"}, "is too small for PFC"),
        (
            {
                "switch.pfc.threshold": "static",
                "switch.pfc.xoff_bytes": "3MB",
                "switch.pfc.xon_bytes": "1MB",
            },
            "switch.pfc.xoff_bytes: expected at most switch.buffer_bytes",
        ),
        (
            {
                "switch.pfc.enabled": False,
                "switch.admission": {"kind": "static_per_port", "bytes": 100},
            },
            "switch.admission.bytes: expected at least one data packet",
        ),
        ({"transport.window": 0}, "transport.window: expected a positive size"),
        ({"transport.dcqcn.min_rate": "200Gbps"}, "transport.dcqcn.min_rate: expected at most"),
        (
            {"transport.cc": "hpcc", "transport.hpcc.min_rate": "101Gbps"},
            "transport.hpcc.min_rate",
        ),
        ({"workload.0.tag": "background"}, "is the name of a flow class"),
    ],
)
def test_self_contradicting_configurations(overrides, match):
    rejected(overrides=overrides, match=match)


@pytest.mark.parametrize(
    ("flow_control", "match"),
    [
        ({"kind": "bfc", "queues": 0}, "switch.flow_control.queues: expected 1 to 1024 queues"),
        ({"kind": "bfc", "queues": 5000}, "switch.flow_control.queues: expected 1 to 1024 queues"),
        (
            {"kind": "bfc", "sticky": -1.0},
            "switch.flow_control.sticky: expected a number of one-hop RTTs",
        ),
        ({"kind": "bfc", "k_pause": 2}, "k_pause"),
        (
            {"kind": "pyrrha", "k_pause": 0},
            "switch.flow_control.k_pause: expected a positive number",
        ),
        (
            {"kind": "pyrrha", "k_pause": 2, "k_resume": 3},
            "switch.flow_control.k_resume: expected a number of one-hop BDPs in [0, k_pause = 2]",
        ),
        ({"kind": "pyrrha", "iq_limit": 0}, "switch.flow_control.iq_limit: expected 1 to 4096"),
        ({"kind": "pyrrha", "isolation_queues": "flat"}, "switch.flow_control.isolation_queues"),
        ({"kind": "pyrrha", "queues": 32}, "queues"),
        (
            {"kind": "aquarius", "queues": 0},
            "switch.flow_control.queues: expected 1 to 1024 queues",
        ),
        (
            {"kind": "aquarius", "mapping_queues": 9},
            "switch.flow_control.mapping_queues: expected 0 (all) to queues = 8, got 9",
        ),
        (
            {"kind": "aquarius", "ewma_weight": 0},
            "switch.flow_control.ewma_weight: expected a weight in (0, 1]",
        ),
        ({"kind": "aquarius", "hrtt": "0us"}, "switch.flow_control.hrtt: expected a positive"),
        ({"kind": "aquarius", "active_queues": "all"}, "switch.flow_control.active_queues"),
        (
            {"kind": "capfc", "egress_threshold": 0},
            "switch.flow_control.egress_threshold: expected a positive",
        ),
        ({"kind": "ppfc", "form": "second_derivative"}, "switch.flow_control.form"),
        (
            {"kind": "ppfc", "horizon": "1us"},
            "switch.flow_control.horizon: only the derivative form",
        ),
        (
            {"kind": "gpfc", "low_fraction": 0},
            "switch.flow_control.low_fraction: expected a fraction in",
        ),
        (
            {"kind": "gpfc", "low_priority_from": 64},
            "switch.flow_control.low_priority_from: expected a class",
        ),
        ({"kind": "gfc", "steps": 0}, "switch.flow_control.steps: expected 1 to 16 rate steps"),
        (
            {"kind": "gfc", "start_fraction": 1.0},
            "switch.flow_control.start_fraction: expected a fraction",
        ),
        ({"kind": "aquarius", "k_pause": 2}, "k_pause"),
        (
            {"kind": "ofc", "alpha": 0.5},
            "switch.flow_control.alpha: expected X_ON / X_OFF = 0.600 < alpha < 1",
        ),
        (
            {"kind": "ofc", "xon_bytes": "80KB"},
            "switch.flow_control.xon_bytes: expected X_ON below",
        ),
        ({"kind": "ofc", "local_flows": "all"}, "switch.flow_control.local_flows"),
    ],
)
def test_bfc_and_pyrrha_parameters(flow_control, match):
    rejected(overrides={"switch.flow_control": flow_control}, match=match)


def test_the_lossless_minimum_is_stated_and_works():
    message = rejected(overrides={"switch.buffer_bytes": "200KB"}, match="expected at least")
    minimum = int(re.search(r"expected at least ([\d,]+) B", message).group(1).replace(",", ""))
    hopsim.validate(copy.deepcopy(BASE), overrides={"switch.buffer_bytes": minimum})


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            "5 1 4\n4\n0 4 100Gbps 1us 0 7\n",
            'topo.txt:3: expected "<a> <b> <rate> <delay> <error_rate>", got 6 fields',
        ),
        (
            "5 1 1\n4\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n",
            "topo.txt:4: unexpected line after the 1 links",
        ),
        ("5 2 4\n4 4\n", "topo.txt:2: switch id 4 is listed twice"),
        ("5 1 1\n4\n0 4 100Gbps 1us nan\n", "topo.txt:3: error rate NaN is not supported"),
    ],
)
def test_topology_files_with_extra_or_repeated_entries(tmp_path, text, match):
    path = tmp_path / "topo.txt"
    path.write_text(text)
    rejected({**BASE, "topology": {"kind": "file", "file": str(path)}}, match=match)


def test_a_topology_format_other_than_hpcc_is_refused():
    topo = {"kind": "file", "file": str(DATA / "star_topology.txt"), "format": "csv"}
    rejected({**BASE, "topology": topo}, match="topology.format: unknown variant `csv`")


def test_cdf_interpolation_and_csv_columns(tmp_path):
    cdf = tmp_path / "sizes.cdf"
    cdf.write_text("# interpolation: cubic\n1000 0.5\n2000 1\n")
    poisson = {"kind": "poisson", "cdf_file": str(cdf), "load": 0.3, "stop": "100us"}
    rejected({**BASE, "workload": [poisson]}, match="sizes.cdf:1: interpolation: expected")
    doc = flows_file(tmp_path, "src,dst,size_bytes,start_ns,dst\n0,5,100,0,5\n", "t.csv", "csv")
    rejected(doc, match='t.csv:1: column "dst" appears twice in the header')


# ---------------------------------------------------------------- nothing to simulate


@pytest.mark.parametrize(
    ("workload", "match"),
    [
        ([], "workload: expected at least one workload table, got an empty list"),
        ({"kind": "flows"}, "workload: a flows workload needs flows = [...] or file"),
        ({"kind": "flows", "flows": []}, "has neither"),
    ],
)
def test_empty_workloads(workload, match):
    rejected({**BASE, "workload": workload}, match=match)


@pytest.mark.parametrize(
    ("text", "name", "fmt"),
    [("0\n", "empty.txt", "hpcc"), ("src,dst,size_bytes,start_ns\n", "header.csv", "csv")],
)
def test_files_without_flows_leave_nothing_to_simulate(tmp_path, text, name, fmt):
    rejected(flows_file(tmp_path, text, name, fmt), match="workload: the workload makes no flows")


def test_nothing_to_simulate_exits_non_zero(tmp_path, capsys):
    path = tmp_path / "empty.toml"
    path.write_text(
        '[topology]\nkind = "dumbbell"\nleft_hosts = 1\nright_hosts = 1\n'
        '[workload]\nkind = "flows"\n'
    )
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("hopsim: error: workload: a flows workload needs") and "\n" not in err
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- clear messages


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize(
    "field", ["switch.pfc.alpha", "workload.0.flows.0.size", "transport.dcqcn.g", "seed"]
)
def test_nan_and_inf_anywhere_name_the_field(field, value):
    message = rejected(overrides={field: value}, match="expected a finite number")
    assert message.startswith(field.replace(".0.", "[0].").replace(".0", "[0]"))


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        (
            "transport.cc",
            3,
            "transport.cc: expected one of `none`, `dcqcn`, `hpcc`, `dctcp`, `timely`, "
            "`reno`, `swift`, `bolt`, got integer `3`",
        ),
        (
            "transport.loss_recovery",
            True,
            "transport.loss_recovery: expected `go_back_n` or `irn`, got boolean `true`",
        ),
        ("routing.hash", [1], "routing.hash: expected one of `mix`, `crc32`, `ns3`, got sequence"),
        ("topology.kind", 7, "topology.kind: expected one of"),
        (
            "seed",
            2**70,
            "seed: expected an integer from 0 to 18446744073709551615, got 1180591620717411303424",
        ),
        (
            "seed",
            1.5,
            "seed: expected an integer from 0 to 18446744073709551615, got floating point `1.5`",
        ),
    ],
)
def test_wrong_types_say_what_was_expected_and_found(field, value, match):
    rejected(overrides={field: value}, match=match)


TCP = {"transport.kind": "tcp", "transport.cc": "reno", "switch.pfc.enabled": False}


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        (
            {"transport.kind": "udp"},
            "transport.kind: unknown variant `udp`, expected one of `roce`, `tcp`, `mp_rdma`",
        ),
        (
            {"transport.kind": "tcp", "transport.cc": "reno"},
            'transport.kind: "tcp" runs on lossy switches; set switch.flow_control.kind = "none"',
        ),
        ({"transport.kind": "tcp", "transport.cc": "dcqcn"}, "transport.cc: dcqcn does not run on"),
        ({"transport.cc": "swift"}, "transport.cc: swift does not run on"),
        ({**TCP, "transport.window": "bdp"}, "transport.window: is the RoCE transport's"),
        ({**TCP, "transport.ack_every": 2}, "transport.ack_every: is the RoCE receiver's"),
        (
            {**TCP, "transport.tcp.initial_window": 0},
            "transport.tcp.initial_window: expected 1 to 10,000 segments, got 0",
        ),
        (
            {**TCP, "transport.tcp.reorder_timeout": "0us"},
            "transport.tcp.reorder_timeout: expected a positive duration",
        ),
        (
            {"switch.pfc.enabled": False, "switch.deflection": {"kind": "preemptive", "alpha": 2}},
            "switch.deflection.alpha: expected a number in [0, 1], got 2",
        ),
        (
            {"switch.pfc.enabled": False, "switch.deflection": {"kind": "aifo", "k": 1.0}},
            "switch.deflection.k: expected a number in [0, 1), got 1",
        ),
        (
            {
                "switch.pfc.enabled": False,
                "switch.deflection": {"kind": "preemptive", "priority": "x"},
            },
            "switch.deflection.priority: unknown variant `x`, "
            "expected `quantile` or `distribution`",
        ),
        ({"switch.deflection": {"kind": "vertigo"}}, "switch.deflection.kind: deflection acts on"),
    ],
)
def test_tcp_and_deflection_fields_are_checked(overrides, match):
    rejected(overrides=overrides, match=match)


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    text = (DATA / "star.toml").read_text().replace('"star_', f'"{DATA}/star_')
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    hopsim.validate(path)
    flows = tmp_path / "bom_flows.txt"
    flows.write_bytes(b"\xef\xbb\xbf" + (DATA / "star_flows.txt").read_bytes())
    hopsim.validate(path, overrides={"workload.file": str(flows)})


def test_deep_nesting_is_an_error_not_a_recursion_error(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 2000 + "]" * 2000 + "\n")
    with pytest.raises(ScenarioError, match="nested too deeply"):
        hopsim.validate(path)
    deep: dict = {}
    node = deep
    for _ in range(200):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ScenarioError, match="nested more than 32 levels deep"):
        hopsim.validate({**BASE, "output": deep})


@pytest.mark.parametrize("kind", ["binary", "device", "directory"])
def test_binary_and_special_files_are_refused(tmp_path, kind):
    path = {"binary": tmp_path / "x.bin", "device": Path("/dev/zero"), "directory": tmp_path}[kind]
    if kind == "binary":
        path.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(ScenarioError) as info:
        hopsim.validate(path)
    assert str(info.value).startswith(str(path))
    for fmt in ("hpcc", "csv"):
        doc = {**BASE, "workload": {"kind": "flows", "file": str(path), "format": fmt}}
        message = rejected(doc)
        assert message.startswith(str(path)) and "flow file" in message


# ---------------------------------------------------------------- the Python API


def test_overrides_may_be_pairs_and_never_mention_set():
    hopsim.validate(copy.deepcopy(BASE), overrides=[("seed", 3), "transport.cc=none"])
    with pytest.raises(ScenarioError) as info:
        hopsim.validate(copy.deepcopy(BASE), overrides=[("name.x", 3)])
    assert str(info.value).startswith("overrides name.x=...: name is a str value, not a table")
    assert "--set" not in str(info.value)
    with pytest.raises(TypeError, match="wrap it in a list"):
        hopsim.validate(copy.deepcopy(BASE), overrides="seed=3")
    with pytest.raises(TypeError, match=r"\(key, value\) pair"):
        hopsim.validate(copy.deepcopy(BASE), overrides=[("seed", 3, 4)])


def test_the_command_line_says_set(capsys):
    assert main(["validate", str(DATA / "star.toml"), "--set", "name.x=3"]) == 2
    assert capsys.readouterr().err.startswith("hopsim: error: --set name.x=3: name is a str")


def test_toml_text_on_one_line_is_read_as_toml():
    text = (
        'topology = { kind = "dumbbell", left_hosts = 1, right_hosts = 1 }\n'
    ).strip() + ' workload = { kind = "flows", flows = [{ src = 0, dst = 1, size = 1000 }] }'
    with pytest.raises(ScenarioError, match="<scenario>:1"):
        hopsim.validate(text)  # two tables on one line is not TOML: a syntax error, named
    one_line = 'workload = { kind = "flows", flows = [{ src = 0, dst = 1, size = 1000 }] }'
    with pytest.raises(ScenarioError, match="missing field `topology`"):
        hopsim.validate(one_line)
    with pytest.raises(FileNotFoundError):
        hopsim.validate("no_such_scenario.toml")


def test_progress_must_be_a_bool():
    with pytest.raises(TypeError, match="progress must be True or False, got 'yes'"):
        hopsim.run(copy.deepcopy(BASE), progress="yes")


def test_a_panic_in_the_core_is_an_ordinary_exception():
    with pytest.raises(hopsim.InternalError, match="deliberate test panic") as info:
        _core._panic_for_tests()
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, Exception)


def test_the_package_namespace_is_the_api():
    public = {n for n in dir(hopsim) if not n.startswith("_")}
    assert {"os", "sys", "time", "annotations", "Path"}.isdisjoint(public)
    assert {"run", "validate", "Result", "ScenarioError", "InternalError", "sweep"} <= public
