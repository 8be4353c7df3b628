"""position: sticky against headless Chromium, in the suite (tests/chromium/sticky.py
turns a scene into in-flow sticky divs): the golden sticky scene, opposite insets in
conflict, and transforms between a sticky layer and its scroller. A misplaced sticky layer differs in thousands of pixels; what is allowed here
is the anti-aliasing of rounded corners measured on Chromium 156 (120 px over 16 levels
on the golden scene, none on the conflict scene). Without Chromium the tests are
skipped with the install hint, unless LAMINA_STRICT=1 (CI) makes that a failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from .sticky import ROOT, compare

pytestmark = [pytest.mark.gl, pytest.mark.slow]


@pytest.mark.parametrize("scene, over_16", [
    (ROOT / "tests/scenes/scroll-sticky.json", 200),
    (Path(__file__).with_name("sticky-conflict.json"), 0),
    (Path(__file__).with_name("sticky-transformed.json"), 150),  # 59 now: the edges of turned boxes
])
def test_sticky_layers_land_where_chromium_puts_them(chromium, tmp_path, scene, over_16):
    result = compare(scene, tmp_path, chromium)
    assert result["over_16"] <= over_16, f"{result} (pictures: {tmp_path}/sbs.png)"
