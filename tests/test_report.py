"""Figures and reports: `hopsim.plots`, `hopsim.report` and ``hopsim plot`` / ``hopsim
report``. A report of two runs (PFC on and off) has every figure, and the numbers in its
tables are the analysis API's."""

from __future__ import annotations

import base64
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

import hopsim
from hopsim import analysis, plots
from hopsim.cli import main
from hopsim.report import format_value, write_report

SMALL = Path(__file__).parent / "data" / "small.toml"
SAMPLING = {"output.queues.interval": "2us", "output.throughput.interval": "10us"}
FIGURES = [
    "slowdown_vs_size.png",
    "fct_cdf.png",
    "throughput_by_class.png",
    "queue_length.png",
    "buffer_by_tier.png",
    "pause_spread.png",
]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory) -> dict[str, Path]:
    """Two runs of the small scenario, PFC on and off, with every table sampled."""
    root = tmp_path_factory.mktemp("runs")
    dirs = {}
    for label, pfc in (("pfc_on", True), ("pfc_off", False)):
        result = hopsim.run(SMALL, overrides={**SAMPLING, "switch.pfc.enabled": pfc})
        dirs[label] = result.write(root / label)
    return dirs


@pytest.fixture(scope="module")
def results(run_dirs) -> dict[str, hopsim.Result]:
    return {label: hopsim.Result.read(path) for label, path in run_dirs.items()}


class _Tables(HTMLParser):
    """Cell texts of every ``<table id=...>`` and the ``src`` of every ``<img>``."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.images: list[str] = []
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._table = self.tables.setdefault(attrs["id"], [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag == "img":
            self.images.append(attrs["src"])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._table[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def html_tables(path: Path) -> _Tables:
    parser = _Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def md_tables(path: Path) -> dict[str, list[list[str]]]:
    """Tables of a Markdown report, keyed by their ``<!-- table: key -->`` marker."""
    tables: dict[str, list[list[str]]] = {}
    key = None
    for line in path.read_text(encoding="utf-8").splitlines():
        marker = re.fullmatch(r"<!-- table: (\S+) -->", line)
        if marker:
            key = marker.group(1)
            tables[key] = []
        elif key and line.startswith("|"):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if not all(set(c) <= set("-:") for c in cells):  # the alignment row
                tables[key].append(cells)
        else:
            key = None
    return tables


def number(cell: str) -> float:
    return math.nan if cell == "–" else float(cell)


def assert_table_is(cells: list[list[str]], frame: pd.DataFrame, index: bool = True) -> None:
    """The printed table shows ``frame``: same labels, every value as `format_value`
    prints it and, read back, equal to the value to the printed precision."""
    head, rows = cells[0], cells[1:]
    assert head[index:] == [str(c) for c in frame.columns]
    assert len(rows) == len(frame)
    for row, (label, values) in zip(rows, frame.iterrows()):
        if index:
            assert row[0] == format_value(label)
        for cell, value in zip(row[index:], values):
            assert cell == format_value(value)
            if isinstance(value, str):
                continue
            if pd.isna(value):
                assert cell == "–"
            else:
                assert number(cell) == pytest.approx(float(value), rel=1e-3, abs=1e-9)


def check_report_tables(tables: dict[str, list[list[str]]], results: dict) -> None:
    labels = list(results)
    assert_table_is(tables["compare"], analysis.compare(results))
    assert tables["compare"][0] == ["metric", *labels]
    for i, r in enumerate(results.values(), start=1):
        assert_table_is(tables[f"classes-{i}"], r.class_summary())
        assert_table_is(tables[f"slowdown-{i}"], r.slowdown_by_size())
        assert_table_is(tables[f"queue-delay-{i}"], r.queue_delay_summary())
        assert_table_is(tables[f"buffers-{i}"], r.buffer_by_tier(), index=False)
    runs = {row[0]: row for row in tables["runs"][1:]}
    assert list(runs) == labels
    head = tables["runs"][0]
    for label, r in results.items():
        row = dict(zip(head, runs[label]))
        assert row["scenario"] == "small"
        assert int(row["seed"]) == r.summary["seed"]
        assert int(row["flows"]) == r.summary["flows_total"]


def test_html_report_of_two_runs(run_dirs, results, tmp_path):
    out = tmp_path / "report"
    path = write_report(list(run_dirs.values()), out)
    assert path == out / "report.html"
    assert sorted(p.name for p in out.iterdir()) == sorted([*FIGURES, "report.html"])
    for name in FIGURES:
        figure = out / name
        assert figure.is_file(), name
        assert figure.read_bytes().startswith(PNG_MAGIC) and figure.stat().st_size > 5_000
    parsed = html_tables(path)
    check_report_tables(parsed.tables, results)
    # Self-contained: every figure is embedded, byte for byte.
    assert len(parsed.images) == len(FIGURES)
    embedded = {base64.b64decode(src.split(",", 1)[1]) for src in parsed.images}
    assert embedded == {(out / name).read_bytes() for name in FIGURES}
    assert all(src.startswith("data:image/png;base64,") for src in parsed.images)
    text = path.read_text(encoding="utf-8")
    assert "Not drawn" not in text
    # The comparison shows what PFC changes.
    compare = {row[0]: row[1:] for row in parsed.tables["compare"][1:]}
    assert number(compare["pfc PAUSE frames"][0]) == results["pfc_on"].summary["pfc_pause_frames"]
    assert number(compare["pfc PAUSE frames"][1]) == 0
    assert number(compare["pfc pauses in force max"][0]) > 0


def test_markdown_report_with_labels(run_dirs, results, tmp_path):
    out = tmp_path / "md"
    labels = ["PFC on", "PFC off"]
    kinds = ["slowdown", "pauses"]
    path = write_report(list(run_dirs.values()), out, "md", labels=labels, figures=kinds)
    assert path == out / "report.md"
    check_report_tables(md_tables(path), dict(zip(labels, results.values())))
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", path.read_text(encoding="utf-8"))
    assert links == ["slowdown_vs_size.png", "pause_spread.png"]
    assert all((out / link).read_bytes().startswith(PNG_MAGIC) for link in links)


def test_report_notes_figures_without_data(tmp_path):
    """Without sampling and PFC events, three figures are not drawn and say why."""
    plain = hopsim.run(SMALL, overrides={"output.pfc_events": False})
    out = tmp_path / "plain"
    path = write_report({"plain": plain}, out)
    text = path.read_text(encoding="utf-8")
    assert text.count("Not drawn") == 3
    # Each names the scenario setting that would record what it lacks.
    assert "queue samples not recorded in the run (add --set output.queues.interval=10us" in text
    assert "throughput not recorded in the run (add --set output.throughput.interval=10us" in text
    assert "[output.queues] to the scenario" in text
    assert "pfc_events = true" in text
    assert sorted(p.name for p in out.glob("*.png")) == [
        "buffer_by_tier.png",
        "fct_cdf.png",
        "slowdown_vs_size.png",
    ]
    tables = html_tables(path).tables
    compare = {row[0]: row[1:] for row in tables["compare"][1:]}
    assert compare["pfc pauses in force max"] == ["–"]  # PAUSE frames sent but not recorded
    assert compare["flows"] == [str(plain.summary["flows_total"])]


def test_report_never_overwrites_without_force(run_dirs, tmp_path):
    out = tmp_path / "busy"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty"):
        write_report(list(run_dirs.values()), out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    write_report(list(run_dirs.values()), out, "md", figures=["buffers"], force=True)
    assert (out / "buffer_by_tier.png").is_file()
    write_report(list(run_dirs.values()), out, figures=[], force=True)
    # Only the report's own files are replaced; the earlier report and figure are gone.
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "report.html"]
    assert (out / "notes.txt").read_text() == "mine"


def test_report_rejects_bad_input(run_dirs, tmp_path):
    dirs = list(run_dirs.values())
    with pytest.raises(ValueError, match="format"):
        write_report(dirs, tmp_path / "a", "pdf")
    with pytest.raises(ValueError, match="labels"):
        write_report(dirs, tmp_path / "b", labels=["one"])
    with pytest.raises(FileNotFoundError, match="not a hopsim output directory"):
        write_report([tmp_path], tmp_path / "c")


def test_format_value():
    assert format_value(41) == "41"
    assert format_value(3.0) == "3"
    assert format_value(2.123456) == "2.123"
    assert format_value(123456.78) == "123456.8"
    assert format_value(0.00012) == "1.200e-04"
    assert format_value(math.nan) == format_value(None) == format_value(pd.NA) == "–"
    assert format_value(math.inf) == "inf"
    assert format_value("tor") == "tor"


def test_plots_return_figures_and_write_pngs(results, tmp_path):
    fig = plots.slowdown_vs_size(results)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["pfc_on p50", "pfc_on p99", "pfc_off p50", "pfc_off p99"]
    assert fig.axes[0].get_xscale() == "log"
    drawn = plots.write_plots(results, tmp_path / "p", ["cdf", "pauses"])
    assert [(p.kind, p.path.name) for p in drawn] == [
        ("cdf", "fct_cdf.png"),
        ("pauses", "pause_spread.png"),
    ]
    with pytest.raises(ValueError, match="unknown plot kind"):
        plots.write_plots(results, tmp_path / "q", ["pie"])
    with pytest.raises(plots.NoData, match="not recorded"):
        plain = hopsim.run(SMALL, overrides={"output.pfc_events": False})
        plots.pause_spread(plain)


# ------------------------------------------------------------ command line


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_report_and_plot(run_dirs, results, tmp_path, capsys):
    dirs = list(run_dirs.values())
    out = tmp_path / "r"
    argv = ["report", *dirs, "-o", out, "--format", "md", "--label", "a", "b"]
    code, stdout, _ = run_cli(capsys, *argv)
    assert code == 0 and "report.md" in stdout
    check_report_tables(md_tables(out / "report.md"), dict(zip("ab", results.values())))
    assert sorted(p.name for p in out.glob("*.png")) == sorted(FIGURES)

    code, _, err = run_cli(capsys, "report", *dirs, "-o", out)
    assert code == 2 and "--force" in err and len(err.strip().splitlines()) == 1

    plots_dir = tmp_path / "p"
    code, stdout, _ = run_cli(capsys, "plot", *dirs, "-o", plots_dir, "--kind", "queues")
    assert code == 0
    assert [p.name for p in plots_dir.iterdir()] == ["queue_length.png"]
    argv = ["plot", dirs[0], "-o", plots_dir, "--force", "--kind", "cdf", "--kind", "buffers"]
    code, stdout, _ = run_cli(capsys, *argv)
    assert code == 0 and "fct_cdf.png" in stdout
    names = ["buffer_by_tier.png", "fct_cdf.png", "queue_length.png"]
    assert sorted(p.name for p in plots_dir.iterdir()) == names


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["report", "{tmp}/missing"], "missing: no such directory"),
        (["plot", "{tmp}/file.txt"], "not a directory"),
        (["report", "{tmp}"], "not a hopsim output directory"),
        (["plot", "{on}", "--label", "a", "b"], "--label: got 2 names for 1"),
        (["report", "{on}", "{off}", "--label", "a", "a"], "distinct"),
    ],
)
def test_cli_errors_are_one_line(run_dirs, tmp_path, capsys, argv, expected):
    (tmp_path / "file.txt").write_text("x")
    names = {"tmp": tmp_path, "on": run_dirs["pfc_on"], "off": run_dirs["pfc_off"]}
    argv = [a.format(**names) for a in argv] + ["-o", str(tmp_path / "out")]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hopsim: error: "), err
    assert expected in lines[0]
    assert not (tmp_path / "out").exists()
