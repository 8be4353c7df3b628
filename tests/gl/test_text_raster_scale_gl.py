"""Text under a raster scale on the GPU: a layer's text is laid out at the device scale
and the layout multiplied by its raster scale (lamina.text.layout, as Chromium rasters a
DPR-d recording at a larger contents scale), so a paragraph whose scale animation ends
does not move when the layer is rastered again at its settled scale: the frame just
before the end (rastered at the animation's largest scale, drawn down) and the frame at
the end (rastered at the final scale) have their lines where the transform puts them,
apart only by the 0.1% of scale left and the edge pixels of glyphs rastered at two sizes.
Laying the text out at device x raster scale moved lines by up to 3 px at the settle."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene

pytestmark = pytest.mark.gl

PARAGRAPH = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
             "seventeen eighteen nineteen twenty")


def _line_centroids(image: np.ndarray, rows: list[tuple[int, int]]) -> np.ndarray:
    """The ink-weighted mean row of each band of ``rows``."""
    ink = (255.0 - image[..., :3].astype(float).mean(-1)).sum(axis=1)
    ys = np.arange(len(ink), dtype=float)
    return np.array([(ys[a:b] * ink[a:b]).sum() / ink[a:b].sum() for a, b in rows])


def _bands(image: np.ndarray) -> list[tuple[int, int]]:
    """The runs of rows with ink: one per line of text."""
    inked = (image[..., :3].min(-1) < 255).any(axis=1).astype(int)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], inked, [0]))))
    return list(zip(edges[::2], edges[1::2]))


@pytest.mark.parametrize("css, start, end, dpr", [
    ("font-size: 10px", 3, 1, 1.0),
    ("font-size: 15px; line-height: 19px", 4, 2, 1.0),
    ("font-size: 10px", 3, 1, 2.0),
])
def test_text_does_not_move_when_a_scale_animation_settles(fresh, css, start, end, dpr):
    scene = Scene(200, 300, background="#fff", device_scale_factor=dpr)
    layer = scene.root.add(Layer("p", (0, 0, 60, 170), f"font-family: 'DejaVu Sans'; {css}; color: #000; "
                                                         "transform-origin: 0 0", text=PARAGRAPH))
    layer.animate({"from": {"transform": f"scale({start})"}, "to": {"transform": f"scale({end})"}}, duration=1,
                  fill="forwards")
    before, after = fresh.render(scene, t=0.999), fresh.render(scene, t=1.0)
    was_scale, now_scale = before.graph.raster_scales["p"], after.graph.raster_scales["p"]
    # Rastered larger (at the animation's largest scale, or what the memory cap allows).
    assert str(was_scale).startswith("animating: fixed") and was_scale.scale >= 1.4 * end
    assert str(now_scale).startswith("settled: re-rastered") and now_scale.scale == end
    bands = _bands(after.image)
    assert len(bands) >= 8  # every line of the paragraph, apart
    was, now = _line_centroids(before.image, bands), _line_centroids(after.image, bands)
    # At t = 0.999 the scale is 0.2% (of end - start) larger: a line at row y is that much lower.
    slack = 0.001 * abs(start - end) / end * now + 0.2 * dpr
    assert np.all(np.abs(was - now) <= slack), np.round(was - now, 2)
