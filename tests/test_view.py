"""``hopsim view``: the page's data agrees with the run's own counters, the page is
self-contained, missing outputs are named with their setting, and in a real browser (headless
Chromium) the slider moves the replay and a click on a port shows that port."""

import json
import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import hopsim
from hopsim import view
from hopsim.cli import main

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"
RECORD = {
    "output.control_frames": True,
    "output.queues.interval": "5us",
    "output.throughput.interval": "20us",
    "output.packet_trace.max_records": 100_000,
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The quick start under PFC and under Pyrrha (recording what the page draws), and one
    run recording nothing optional."""
    base = tmp_path_factory.mktemp("view")
    common = dict(RECORD)
    hopsim.run(QUICKSTART, overrides=common).write(base / "pfc")
    pyrrha = {
        **common,
        "switch.flow_control.kind": "pyrrha",
        "output.congestion_trees.interval": "50us",
    }
    hopsim.run(QUICKSTART, overrides=pyrrha).write(base / "pyrrha")
    bare = {"output.pfc_events": False}
    hopsim.run(QUICKSTART, overrides=bare).write(base / "bare")
    return base


def _data(page: str) -> dict:
    m = re.search(r"<script>const DATA = (.*?);</script>", page, flags=re.S)
    assert m, "the page embeds its data"
    return json.loads(m.group(1).replace("<\\/", "</"))


def test_pauses_replayed_from_frames_match_the_ports_counters(runs):
    data = _data(view.render([runs / "pfc", runs / "pyrrha"]))
    edges = np.array(data["edges"])
    width = np.diff(edges)
    for run in data["runs"]:
        ports = pd.read_parquet(Path(run["path"]) / "ports.parquet")
        assert len(run["ports"]) == len(ports)
        checked = 0
        for i, p in enumerate(run["ports"]):
            # Hosts hold no queue: their paused time counts only PFC (Pyrrha stops flows at
            # a NIC, which the page shows but the counter does not).
            if p["tier"] == "host" and run["policies"]["flow control"] != "pfc":
                continue
            mine = float(np.dot(run["paused"].get(str(i), np.zeros(len(width))), width))
            ref = p["stats"]["paused_time_ns"]
            # Frames take effect a link delay (1 µs) after they are sent.
            assert abs(mine - ref) <= 0.01 * ref + 2_000 * (1 + p["stats"]["pause_received"])
            checked += ref > 0
        assert checked >= 5, f"{run['label']}: too few paused ports to test anything"


def test_queues_trees_and_events_are_binned_from_the_run(runs):
    data = _data(view.render([runs / "pyrrha"], frames=50))
    run = data["runs"][0]
    assert len(data["edges"]) == 51
    ports = pd.read_parquet(runs / "pyrrha" / "ports.parquet").sort_values(["node", "port"])
    max_queue = ports["max_queue_bytes"].to_numpy()
    for i, values in run["queue"].items():
        assert len(values) == 50
        assert max(values) <= max_queue[int(i)], "a sampled backlog never exceeds the port's max"
    assert run["trees"], "Pyrrha's congestion trees are drawn"
    assert all(s["roots"] for s in run["trees"] if s["members"])
    nodes = {n["id"] for n in run["nodes"]}
    assert len(nodes) == 32 + 8, "32 hosts and 8 switches of the quick start's leaf-spine"
    tiers = {n["tier"] for n in run["nodes"]}
    ys = {t: {n["y"] for n in run["nodes"] if n["tier"] == t} for t in tiers}
    assert all(len(v) == 1 for v in ys.values()), "one row per tier"
    assert max(ys["host"]) > max(ys["tor"]), "hosts are drawn below their ToRs"


def test_the_page_is_self_contained(runs):
    page = view.render([runs / "pfc"])
    assert "<script src" not in page and "<link" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page)) - {"http://www.w3.org/2000/svg"}
    assert not urls, f"the page must not load anything: {urls}"


def test_missing_outputs_name_their_setting(runs):
    data = _data(view.render([runs / "bare", runs / "pfc"]))
    bare, full = data["runs"]
    settings = " ".join(m["setting"] for m in bare["missing"])
    for s in ("[output.queues]", "control_frames", "[output.packet_trace]", "[output.throughput]"):
        assert s in settings
    assert bare["frames_from"] == "" and bare["paused"] == {}
    # The PFC run recorded everything, but its packet trace (100,000 events) filled up.
    assert [m["setting"] for m in full["missing"]] == ["a larger [output.packet_trace] max_records"]


def test_cli_writes_refuses_to_overwrite_and_checks_labels(runs, tmp_path, capsys):
    out = tmp_path / "v.html"
    assert main(["view", str(runs / "pfc"), str(runs / "pyrrha"), "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    assert main(["view", str(runs / "pfc"), "-o", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert main(["view", str(runs / "pfc"), "-o", str(out), "--label", "a", "b"]) == 2
    assert "--label: got 2 names for 1 RUN_DIR" in capsys.readouterr().err
    assert main(["view", str(tmp_path / "nope"), "-o", str(tmp_path / "w.html")]) == 2


# ---------------------------------------------------------------- in a browser


def _skip(reason: str) -> None:
    """Skip for want of a browser, except where one was promised (``.ci/run`` installs it and
    sets ``HOPSIM_REQUIRE_BROWSER=1``, so the test cannot silently vanish there)."""
    if os.environ.get("HOPSIM_REQUIRE_BROWSER") == "1":
        pytest.fail(f"HOPSIM_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def _browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _skip("selenium is not installed (pip install '.[test]')")
    driver = shutil.which("chromedriver")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not driver or not browser:
        _skip("no chromium / chromedriver (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(driver), options=options)


def test_in_a_browser_the_slider_replays_and_a_click_shows_the_port(runs, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "view.html"
    view.write([runs / "pfc", runs / "pyrrha"], page, labels=["PFC", "Pyrrha"], frames=60)
    data = _data(page.read_text())
    pfc = data["runs"][0]
    # The port that queued most under PFC, and the step it peaked in.
    idx, values = max(pfc["queue"].items(), key=lambda kv: max(kv[1]))
    peak = int(np.argmax(values))
    port = pfc["ports"][int(idx)]
    key = f"{port['node']}:{port['port']}"

    d = _browser()
    try:
        d.get(page.as_uri())
        assert len(d.find_elements(By.CSS_SELECTOR, "line.port")) == 2 * len(pfc["ports"])
        label = d.find_element(By.ID, "time-label")
        assert "step 1 of 60" in label.text
        slider = d.find_element(By.ID, "time")
        slider.send_keys(Keys.HOME)
        for _ in range(peak):
            slider.send_keys(Keys.ARROW_RIGHT)
        assert f"step {peak + 1} of 60" in label.text, "the slider moves the replay"
        seg = d.find_element(By.CSS_SELECTOR, f'line.port[data-run="0"][data-key="{key}"]')
        assert seg.get_attribute("stroke") != "#cfcfcf", "the port is coloured by its queue"
        hit = d.find_element(By.CSS_SELECTOR, f'line.port-hit[data-run="0"][data-key="{key}"]')
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", hit)
        # Dispatched, not `hit.click()`: WebDriver refuses an element whose bounding box
        # has zero size, which an SVG line drawn exactly vertically or horizontally has
        # (its clickable stroke is wide; the box measures the geometry alone).
        d.execute_script(
            "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", hit
        )
        info = d.find_element(By.ID, "info").text
        assert f"PFC: node {port['node']} port {port['port']}" in info
        assert f"Pyrrha: node {port['node']} port {port['port']}" in info, "both runs' port"
        max_kb = port["stats"]["max_queue_bytes"] / 1e3
        assert f"max queue {max_kb:.3g} KB" in info
        # A step with PFC pauses in force outlines the paused ports in red.
        paused_steps = [f for v in pfc["paused"].values() for f, x in enumerate(v) if x > 0]
        d.execute_script("hopsimView.setFrame(arguments[0])", paused_steps[0])
        assert d.find_elements(By.CSS_SELECTOR, "#svg-0 line.port-halo.paused")
        assert re.search(r"[1-9]\d* ports? paused", d.find_element(By.ID, "status-0").text)
        # A flow: its statistics and rate.
        row = d.find_element(By.CSS_SELECTOR, 'tr.flow[data-run="1"]')
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
        row.click()
        assert (
            f"Pyrrha: flow {row.get_attribute('data-flow')}" in d.find_element(By.ID, "info").text
        )
        # Play advances the clock.
        d.execute_script("hopsimView.setFrame(0)")
        d.find_element(By.ID, "play").click()
        time.sleep(0.6)
        assert d.execute_script("return hopsimView.state.frame") > 0
        assert not [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        d.quit()
