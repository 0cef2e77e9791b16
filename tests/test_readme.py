"""The README's Python example runs as written."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_python_example_runs(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has a Python example"
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    result = namespace["result"]
    assert result.summary["pfc_pause_frames"] == 0, "the example turns PFC off"
    assert result.summary["drops"] > 0
    assert (tmp_path / "runs" / "no-pfc" / "flows.parquet").is_file()
