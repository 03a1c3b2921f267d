"""The viewer in a real browser: headless Chromium opens the HTML file of 'fmu-mbs animate', the test steps the
time slider and finds the pendulum bob in screenshots where the closed form of the pendulum puts it."""

from __future__ import annotations

import io
import math
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ellipj, ellipk

from fmu_mbs import compile_model, load_model, simulate
from fmu_mbs.adapters.cli import main
from fmu_mbs.adapters.recording import write_trajectory

from headless_chromium import Browser, find_chromium

MODEL = Path(__file__).resolve().parents[1] / "models" / "pendulum.json"


def pendulum_angle(t: float, theta0: float, length: float, g: float) -> float:
    """Angle from the downward vertical (rad) of a pendulum released at rest at theta0: sin(theta/2) =
    k sn(K - w t | k^2), k = sin(theta0/2), w = sqrt(g/L)."""
    k = math.sin(theta0 / 2.0)
    sn = ellipj(ellipk(k * k) - math.sqrt(g / length) * t, k * k)[0]
    return 2.0 * math.asin(k * sn)


def bob_centre(png: bytes) -> tuple[float, float]:
    """Centroid (CSS px) of the red bob (model graphic '#d62728') in a screenshot."""
    from PIL import Image
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    red = (rgb[..., 0] - np.maximum(rgb[..., 1], rgb[..., 2])) > 40     # red hue, lit or in shade
    assert red.sum() > 50, "the bob is not in the screenshot"
    ys, xs = np.nonzero(red)
    return float(xs.mean()), float(ys.mean())


@pytest.fixture(scope="module")
def browser():
    exe = find_chromium()
    if exe is None:
        pytest.skip("headless Chromium not found: install the Debian package 'chromium' (.ci/run does when it can)")
    b = Browser(exe, 800, 600)
    yield b
    b.close()


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory):
    """The viewer of a pendulum run written from Python, and the pendulum's data: (html, theta0, L, g, T/4)."""
    model = load_model(MODEL)
    length, g = model.joints[0].length, -model.gravity[1]
    theta0 = math.atan2(model.bodies[0].position[0], -model.bodies[0].position[1])   # pi/2: released horizontally
    quarter = math.sqrt(length / g) * ellipk(math.sin(theta0 / 2) ** 2)              # T/4 of the large swing
    cm = compile_model(model)
    folder = tmp_path_factory.mktemp("viewer")
    csv = folder / "pendulum.csv"
    write_trajectory(csv, cm, simulate(cm, t_end=quarter + 0.05, step=1e-3))      # a Python API result
    html = folder / "pendulum.html"
    assert main(["animate", str(MODEL), str(csv), "--out", str(html), "--trace", "P1"]) == 0
    return html, theta0, length, g, quarter


def test_pendulum_bob_where_the_closed_form_puts_it(pendulum, browser):
    html, theta0, length, g, quarter = pendulum
    browser.open(html.as_uri(), "window.viewer && window.viewer.ready")
    # the layers off by their check boxes: the reaction arrow and the x axes are red too
    browser.evaluate("for (const id of ['frames', 'forces', 'traces']) document.getElementById(id).click()")
    times = np.array(browser.evaluate("viewer.times"))
    pivot = np.array(browser.evaluate("viewer.project('pivot')"))
    radii = []
    for target in (0.0, quarter / 2.0, quarter):
        i = int(np.argmin(np.abs(times - target)))
        browser.evaluate(f"{{const s = document.getElementById('slider'); s.value = {i}; "
                         f"s.dispatchEvent(new Event('input'))}}")
        assert browser.evaluate("viewer.frame()") == i
        x, y = bob_centre(browser.screenshot())
        dx, dy = x - pivot[0], y - pivot[1]          # screen y grows downwards
        seen = math.degrees(math.atan2(dx, dy))
        expected = math.degrees(pendulum_angle(times[i], theta0, length, g))
        assert seen == pytest.approx(expected, abs=1.5), f"t = {times[i]:.4f} s"
        assert np.hypot(*(np.array([x, y]) - browser.evaluate("viewer.project('P1')"))) < 3.0
        radii.append(math.hypot(dx, dy))
    assert max(radii) / min(radii) == pytest.approx(1.0, abs=0.02)   # the rod keeps its length on screen
    assert radii[0] > 100.0                                            # and the pendulum fills the view


def test_play_and_zoom(pendulum, browser):
    """Play advances time at the chosen speed; the mouse wheel zooms in about the scene centre."""
    browser.open(pendulum[0].as_uri(), "window.viewer && window.viewer.ready")
    times = browser.evaluate("viewer.times")
    browser.evaluate("document.getElementById('speed').value = '0.5'; document.getElementById('play').click()")
    time.sleep(0.6)
    browser.evaluate("document.getElementById('play').click()")          # pause
    shown = times[browser.evaluate("viewer.frame()")]
    assert 0.0 < shown < 0.5 * 0.6 + 0.2                                  # half speed, at most 0.6 s of wall time
    span = lambda: np.subtract(browser.evaluate("viewer.project('P1')"), browser.evaluate("viewer.project('pivot')"))  # noqa: E731
    before = np.hypot(*span())
    browser.evaluate("document.querySelector('canvas').dispatchEvent(new WheelEvent('wheel', {deltaY: -300, "
                     "bubbles: true, cancelable: true}))")
    assert np.hypot(*span()) > 1.2 * before
