"""Benchmarks of what reading the backdrop costs:

* a 1280x720 page with a 400x200 ``backdrop-filter: blur(10px)`` panel: a frame with the
  panel, the same frame without it, and ``filters.apply`` of that blur on a 400x200 image
  alone (the panel should add at most about twice the blur alone: no full-screen work);
* the panel moving over the page: each frame re-rasters nothing and filters only the
  region under the panel;
* every blend mode on a 512x512 layer over a 512x512 backdrop, against normal.

    .venv/bin/python -m pytest tests/benchmarks/test_blend_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

from lamina import Layer, Scene, filters
from lamina.blending import BlendMode

from .scenes import cards_scene

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
pytestmark = pytest.mark.gl
PANEL = (440, 260, 400, 200)


def _page(panel: bool) -> Scene:
    scene = cards_scene()
    if panel:
        scene.root.add(Layer("glass", PANEL, "backdrop-filter: blur(10px); background: rgb(255 255 255 / 25%); "
                                             "border-radius: 16px; will-change: transform"))
    return scene


@pytest.mark.parametrize("panel", [False, True], ids=["without panel", "with panel"])
def test_page_frame_with_a_frosted_panel(benchmark, gl, panel):
    scene = _page(panel)
    benchmark.group = "backdrop-filter: 1280x720 page, steady frame"
    gl.drop_caches()
    scene.render(gl)
    times = itertools.count(1)
    frame = benchmark.pedantic(lambda: scene.render(gl, t=next(times) / 60), rounds=ROUNDS, warmup_rounds=1)
    reads = frame.graph.backdrop_passes()
    if panel:
        assert len(reads) == 1 and reads[0].target.width < 500 and reads[0].target.height < 300, \
            "only the region under the panel is read back"
        assert all(p.target.width * p.target.height <= 500 * 300 for p in frame.graph.filter_passes())
    else:
        assert reads == []


def test_the_blur_alone(benchmark, gl):
    benchmark.group = "backdrop-filter: 1280x720 page, steady frame"
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (200, 400, 4), dtype=np.uint8)
    filters.apply(image, "blur(10px)")
    out = benchmark.pedantic(lambda: filters.apply(image, "blur(10px)"), rounds=ROUNDS, warmup_rounds=1)
    # The panel's work and no more: one 400x200 image, blurred (its noise smoothed flat
    # away from the edges, which fade into the transparent outside).
    assert out.shape == image.shape and out.dtype == np.uint8
    assert out[50:150, 100:300, 3].std() < image[..., 3].std() / 10, "the blur ran"


def test_moving_the_panel(benchmark, gl):
    scene = _page(True)
    benchmark.group = "backdrop-filter: moving the panel"
    gl.drop_caches()
    scene.render(gl)
    offsets = itertools.cycle(range(-200, 200, 7))

    def frame():
        scene["glass"].style["transform"] = f"translate({next(offsets)}px, 0px)"
        return scene.render(gl)

    result = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=1)
    assert result.graph.raster_passes() == [], "moving the panel re-rasters nothing"
    assert len(result.graph.backdrop_passes()) == 1
    assert all(p.target.width * p.target.height <= 500 * 300 for p in result.graph.filter_passes()), \
        "only the backdrop region is filtered again"


@pytest.mark.parametrize("mode", list(BlendMode), ids=str)
def test_blend_mode_composite(benchmark, gl, mode):
    rng = np.random.default_rng(5)
    scene = Scene(512, 512, "white")
    scene.root.add(Layer("backdrop", (0, 0, 512, 512), image=rng.integers(0, 256, (512, 512, 4), dtype=np.uint8)))
    scene.root.add(Layer("top", (0, 0, 512, 512), f"mix-blend-mode: {mode}; will-change: transform",
                         image=rng.integers(0, 256, (512, 512, 4), dtype=np.uint8)))
    benchmark.group = "blend modes: a 512x512 layer moved a pixel each frame (whole frame redrawn)"
    gl.drop_caches()
    scene.render(gl)
    shifts = itertools.cycle(("translate(1px, 0px)", "translate(0px, 0px)"))

    def frame():
        scene["top"].style["transform"] = next(shifts)
        return scene.render(gl)

    frame = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=1)
    composite_ms = sum(ms for name, ms in frame.stats.pass_ms.items() if name.startswith(("composite:", "backdrop:")))
    benchmark.extra_info["composite_and_readback_ms"] = round(composite_ms, 3)
    assert frame.graph.raster_passes() == []
    assert len(frame.graph.backdrop_passes()) == (0 if mode is BlendMode.NORMAL else 1)
