"""hopsim from a wheel, outside the repository: the papers' scenarios ship with the package,
so ``hopsim reproduce`` runs with no checkout, and ``hopsim scenarios`` copies them out for
editing. Builds a wheel (``--profile fast``, a few minutes), so it runs when
``HOPSIM_WHEEL_TEST=1`` (``.ci/run`` sets it); the rest of the file tests the lookup itself."""

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from hopsim import ScenarioError, bundled
from hopsim.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_every_paper_ships_its_scenarios():
    shipped = {str(s.path) for s in bundled.listing()}
    for paper in ("pyrrha", "deflection"):
        assert bundled.find(paper) == bundled.root() / paper
    assert "quickstart.toml" in shipped
    assert "pyrrha/polarized_clos.txt" in shipped, "input files a scenario reads ship too"
    # The repository's scenarios/ is the package's folder (one copy, no drift), and the
    # package in use (from the checkout or installed) ships every file of it, unchanged.
    assert (ROOT / "scenarios").resolve() == (ROOT / "python" / "hopsim" / "scenarios")
    here = sorted(
        str(p.relative_to(ROOT / "scenarios"))
        for p in (ROOT / "scenarios").rglob("*")
        if p.is_file() and not p.name.startswith(".")
    )
    assert here == sorted(shipped)
    for rel in here:
        assert (bundled.root() / rel).read_bytes() == (ROOT / "scenarios" / rel).read_bytes()


def test_the_override_is_used_or_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(bundled.ENV, str(tmp_path))
    with pytest.raises(ScenarioError, match=r"HOPSIM_SCENARIOS.*hopsim scenarios copy pyrrha"):
        bundled.find("pyrrha")
    assert main(["scenarios", "copy", "pyrrha", "-o", str(tmp_path)]) == 0
    assert bundled.find("pyrrha") == tmp_path / "pyrrha"
    monkeypatch.delenv(bundled.ENV)
    with pytest.raises(
        ScenarioError, match="expected one of aquarius, deflection, ofc, proteus, pyrrha"
    ):
        bundled.find("nopaper")


def test_copy_never_overwrites_without_force(tmp_path, capsys):
    mine = tmp_path / "quickstart.toml"
    mine.write_text("# my edits\n")
    assert main(["scenarios", "copy", "quickstart.toml", "pyrrha", "-o", str(tmp_path)]) == 2
    assert "quickstart.toml exists; pass --force" in capsys.readouterr().err
    assert mine.read_text() == "# my edits\n"
    assert not (tmp_path / "pyrrha").exists(), "nothing is written when one target clashes"
    assert main(["scenarios", "copy", "quickstart.toml", "-o", str(tmp_path), "--force"]) == 0
    assert mine.read_text() == (bundled.root() / "quickstart.toml").read_text()
    assert main(["scenarios", "copy", "../cli.py", "-o", str(tmp_path)]) == 2
    assert "no shipped scenario '../cli.py'" in capsys.readouterr().err


def test_list_names_every_file(capsys):
    assert main(["scenarios"]) == 0
    out = capsys.readouterr().out
    for s in bundled.listing():
        assert str(s.path) in out


@pytest.mark.skipif(
    os.environ.get("HOPSIM_WHEEL_TEST") != "1",
    reason="builds a wheel (minutes): set HOPSIM_WHEEL_TEST=1 (.ci/run does)",
)
def test_reproduce_from_a_wheel_outside_the_repository(tmp_path):
    wheels = tmp_path / "wheels"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", bundled.ENV)}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        env={**env, "MATURIN_PEP517_ARGS": "--profile fast"},
    )
    (wheel,) = wheels.glob("hopsim-*.whl")
    # A fresh environment; its dependencies (pandas, pyarrow, ...) from the one running the
    # tests, hopsim itself only from the wheel.
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(tmp_path / "env")
    bin_dir = tmp_path / "env" / ("Scripts" if os.name == "nt" else "bin")
    py = bin_dir / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
        check=True,
        env=env,
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = subprocess.run(
        [str(py), "-c", "import hopsim; print(hopsim.__file__)"],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert str(tmp_path / "env") in where, f"hopsim came from {where}, not the wheel"
    run = subprocess.run(
        [
            str(bin_dir / "hopsim"),
            "reproduce",
            "pyrrha",
            "--quick",
            "--only",
            "fig2_hol",
            "-j",
            "2",
            "-q",
            "-o",
            "out",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    report = (work / "out" / "report.md").read_text()
    assert "NSDI 2025" in report and "shared/" not in report
    claims = (work / "out" / "claims.csv").read_text()
    assert "fig2_hol" in claims
    one = next((work / "out" / "runs" / "fig2_hol").glob("*/summary.json")).parent
    page = subprocess.run(
        [str(bin_dir / "hopsim"), "view", str(one), "-o", "view.html"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert page.returncode == 0, page.stderr
    assert "const DATA = " in (work / "view.html").read_text(), "the page's assets ship"
    copy = subprocess.run(
        [str(bin_dir / "hopsim"), "scenarios", "copy", "pyrrha/incast_mix.toml", "-o", "."],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert copy.returncode == 0, copy.stderr
    assert (work / "pyrrha" / "incast_mix.toml").is_file()
