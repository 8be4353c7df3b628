"""image-rendering against headless Chromium: a 4x4 checker PNG drawn 8x larger by
``background-size`` under each keyword, in one page and one scene. Chromium 156 draws
``pixelated`` and ``crisp-edges`` as nearest-neighbour blocks and ``auto``, ``smooth``
and ``high-quality`` bilinearly; Lamina's blocks are byte-identical and its bilinear
pixels within one level (measured: at most 1). Without Chromium the test is skipped
with the install hint, unless LAMINA_STRICT=1 (CI) makes that a failure."""

from __future__ import annotations


import numpy as np
import pytest
from PIL import Image

from demos.chromium import chromium_screenshot
from lamina import Layer, Scene

pytestmark = [pytest.mark.gl, pytest.mark.slow]

KEYWORDS = ("auto", "smooth", "high-quality", "pixelated", "crisp-edges")
STYLE = "background: url(checker.png) no-repeat; background-size: 32px 32px; image-rendering: {}"


def test_scaled_image_is_sampled_as_chromium_samples_it(chromium, gl, tmp_path, rng):
    img = np.empty((4, 4, 4), np.uint8)
    colours = rng.integers(0, 256, size=(2, 3))
    for y in range(4):
        for x in range(4):
            img[y, x, :3] = colours[(x + y) % 2]
    img[0, 0, :3] = rng.integers(0, 256, size=3)  # a third colour: the corner shows the orientation
    img[..., 3] = 255
    Image.fromarray(img, "RGBA").save(tmp_path / "checker.png")
    width, height = 40 * len(KEYWORDS), 32
    divs = "".join(f'<div style="position:absolute; left:{40 * i}px; top:0; width:32px; height:32px; '
                   f'{STYLE.format(k)}"></div>' for i, k in enumerate(KEYWORDS))
    (tmp_path / "page.html").write_text(f'<!doctype html><body style="margin:0">{divs}</body>')
    chromium_screenshot(chromium, tmp_path / "page.html", tmp_path / "chromium.png", width, height)
    chrome = np.asarray(Image.open(tmp_path / "chromium.png").convert("RGBA")).astype(int)

    scene = Scene(width, height, "transparent", base_dir=tmp_path)
    for i, k in enumerate(KEYWORDS):
        scene.root.add(Layer(k, (40 * i, 0, 32, 32), STYLE.format(k)))
    ours = scene.render(gl).image.astype(int)

    blocks = np.repeat(np.repeat(img, 8, axis=0), 8, axis=1).astype(int)
    for i, k in enumerate(KEYWORDS):
        theirs, mine = chrome[:, 40 * i:40 * i + 32], ours[:, 40 * i:40 * i + 32]
        if k in ("pixelated", "crisp-edges"):
            assert np.array_equal(theirs, blocks), f"Chromium's {k} is not nearest-neighbour any more"
            assert np.array_equal(mine, theirs), k
        else:
            assert not np.array_equal(theirs, blocks), f"Chromium's {k} is not smooth any more"
            assert np.abs(mine - theirs).max() <= 1, k
