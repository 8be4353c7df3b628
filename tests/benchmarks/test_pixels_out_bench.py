"""Benchmarks: pixels out at GPU speed.

* ``frame.image`` of a 1920x1080 frame of 60 cards, one of them wobbling (an animation
  frame: nothing is rastered, the frame pass redraws the card's old and new places),
  against that render's own time: the un-premultiply runs on the GPU, only where the
  kept frame changed, so it must cost at most 1.5x the render (numpy took ~11x);
* ``filters.apply`` of straight RGBA at 1920x1080 against the same call on
  premultiplied pixels: the passes premultiply where they read the upload and
  un-premultiply where they write the result, so at most 1.2x (numpy made it 4.4x).

Each benchmark also checks what it measures: the bytes against float64 references,
and that no host (numpy) conversion ran. Ratios are same-run medians, recorded in
``extra_info`` and asserted when benchmarks are enabled:

    .venv/bin/python -m pytest tests/benchmarks/test_pixels_out_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools
import os
import time

import numpy as np
import pytest

from lamina import Layer, Scene, filters

from ..alpha_reference import count_unpremultiplied, refuse_host_conversion, unpremultiply_ref
from .scenes import _card_style
from .test_filters_bench import COLOR_CHAIN, SHADOW, make_image

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
pytestmark = pytest.mark.gl
W, H = 1920, 1080


def _premultiply(straight: np.ndarray) -> np.ndarray:
    s = straight.astype(np.float64)
    return np.concatenate([np.floor(s[..., :3] * s[..., 3:] / 255.0 + 0.5), s[..., 3:]], axis=-1).astype(np.uint8)


@pytest.fixture
def no_host_conversion(monkeypatch):
    refuse_host_conversion(monkeypatch)


def cards_1080p(seed: int = 7) -> Scene:
    """60 cards in a 10 x 6 grid on a page; card 25 is promoted to wobble."""
    rng = np.random.default_rng(seed)
    scene = Scene(W, H, "#f4f1ea")
    for i in range(60):
        col, row = i % 10, i // 10
        scene.root.add(Layer(f"card{i}", (16 + col * 190, 12 + row * 175, 170, 150), _card_style(rng, i)))
    scene["card25"].style["will-change"] = "transform"
    return scene


def _animation(scene: Scene, gl):
    # A wobble that stays inside the card's cell: overlapping a neighbour would promote
    # it (a compositing reason) and re-raster, which is another benchmark's subject.
    angles = itertools.cycle([-4, -3, -2, -1, 0, 1, 2, 3, 4, 3, 2, 1, 0, -1, -2, -3])

    def frame():
        scene["card25"].style["transform"] = f"rotate({next(angles)}deg)"
        return scene.render(gl)

    return frame


def test_render_animation_frame(benchmark, gl):
    benchmark.group = "pixels out: 1920x1080, 60 cards, animation frame"
    scene = cards_1080p()
    gl.drop_caches()
    frame = _animation(scene, gl)
    frame().image
    result = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=1)
    assert result.graph.raster_passes() == [], "an animation frame re-rasters nothing"


def test_frame_image_of_an_animation_frame(benchmark, gl, no_host_conversion, monkeypatch):
    """``frame.image`` alone (each round's frame is rendered, untimed, in the setup),
    against the median of those renders."""
    benchmark.group = "pixels out: 1920x1080, 60 cards, animation frame"
    scene = cards_1080p()
    gl.drop_caches()
    frame = _animation(scene, gl)
    frame().image  # the first frame converts all of it: then only what changes
    render_ms, frames = [], []
    converted = count_unpremultiplied(monkeypatch, gl)

    def setup():
        frames.clear()  # as an animation loop does: keeping every frame's pixels costs page faults
        started = time.perf_counter()
        frames.append(frame())
        render_ms.append((time.perf_counter() - started) * 1000)
        return (frames[-1],), {}

    image = benchmark.pedantic(lambda f: f.image, setup=setup, rounds=ROUNDS, warmup_rounds=1)
    last = frames[-1]
    assert np.array_equal(image, unpremultiply_ref(last.premultiplied))
    assert last.stats.unpremultiply_ms > 0, "the GPU pass ran (and was timed)"
    assert 0 < max(converted) < W * H / 4, "only the wobbling card's places were un-premultiplied"
    if benchmark.stats is not None:  # timed: the same run's medians
        ratio = benchmark.stats.stats.median * 1000 / float(np.median(render_ms))
        benchmark.extra_info["render_median_ms"] = round(float(np.median(render_ms)), 3)
        benchmark.extra_info["image_over_render"] = round(ratio, 3)
        assert ratio <= 1.5, f"frame.image took {ratio:.2f}x the render"


@pytest.fixture(scope="module")
def straight_image() -> np.ndarray:
    image = unpremultiply_ref(make_image())  # photo-like, with soft and transparent alpha
    image.setflags(write=False)
    return image


CHAINS = {"colour chain": COLOR_CHAIN, "drop-shadow": SHADOW, "blur 4px": "blur(4px)"}


@pytest.mark.parametrize("name", list(CHAINS))
def test_apply_straight_against_premultiplied(benchmark, gl, no_host_conversion, straight_image, name):
    """Same-run rounds of the two calls, interleaved; the straight one is timed by
    the benchmark, the premultiplied one beside it."""
    chain = CHAINS[name]
    benchmark.group = f"pixels out: filters.apply 1920x1080 straight RGBA, {name}"
    premultiplied = _premultiply(straight_image)
    expected = unpremultiply_ref(filters.apply(premultiplied, chain, premultiplied=True))
    filters.apply(straight_image, chain)  # compile
    premultiplied_ms = []

    def setup():
        started = time.perf_counter()
        filters.apply(premultiplied, chain, premultiplied=True)
        premultiplied_ms.append((time.perf_counter() - started) * 1000)
        return (), {}

    out = benchmark.pedantic(lambda: filters.apply(straight_image, chain), setup=setup, rounds=ROUNDS,
                             warmup_rounds=1)
    assert np.array_equal(out, expected), "the very bytes of converting on the host"
    if benchmark.stats is not None:
        ratio = benchmark.stats.stats.median * 1000 / float(np.median(premultiplied_ms))
        benchmark.extra_info["premultiplied_median_ms"] = round(float(np.median(premultiplied_ms)), 3)
        benchmark.extra_info["straight_over_premultiplied"] = round(ratio, 3)
        assert ratio <= 1.2, f"straight RGBA took {ratio:.2f}x the premultiplied call"
