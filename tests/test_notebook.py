"""The example notebook runs as written (executed with nbclient), so it never rots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "examples" / "incast_pfc.ipynb"


def test_the_example_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="needs the test extras (nbformat)")
    nbclient = pytest.importorskip("nbclient", reason="needs the test extras (nbclient)")
    pytest.importorskip("ipykernel", reason="needs the test extras (ipykernel)")
    # The kernel starts in tmp_path: a relative PYTHONPATH (a checkout's `python`) would
    # silently fall back to an installed hopsim there.
    path = os.environ.get("PYTHONPATH")
    if path:
        absolute = os.pathsep.join(str(Path(p).resolve()) for p in path.split(os.pathsep) if p)
        monkeypatch.setenv("PYTHONPATH", absolute)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError naming the cell if any cell fails
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "PFC on -> <hopsim.Result 'incast'" in text and "(complete)" in text
    assert "PFC off -> <hopsim.Result 'incast'" in text
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 2
    assert not any(o.output_type == "error" for o in outputs)
