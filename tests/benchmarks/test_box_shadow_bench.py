"""Benchmarks of box-shadow: a 400x300 card (border-radius 16px) on an 800x600 page,
repainted every frame (its background colour flips, so its raster is drawn again, and
a filter on it runs again), drawn

* alone;
* with ``box-shadow: 0 10px 40px`` — the analytic shadow (shaders/common/box_shadow.glsl),
  drawn once into a kept texture (a ShadowPass) and copied under the card's paint each
  repaint;
* with the same shadow made by ``filter: drop-shadow(0 10px 20px)`` (a drop-shadow's
  length is the Gaussian's sigma, a box-shadow's blur twice it) — a render surface, the
  blur's downscaled passes and the shadow composite.

The shadow's cost is its frame minus the card's; the issue's target is a quarter of the
filter route's. And a frame that moves the shadowed card: nothing is rastered.

    .venv/bin/python -m pytest tests/benchmarks/test_box_shadow_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools
import os

import pytest

from lamina import Layer, Scene

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
pytestmark = pytest.mark.gl
CARD = "background: #fff; border-radius: 16px"
VARIANTS = {
    "card alone": "",
    "box-shadow 0 10px 40px": "; box-shadow: 0 10px 40px rgb(0 0 0 / 50%)",
    "filter drop-shadow 0 10px 20px": "; filter: drop-shadow(0 10px 20px rgb(0 0 0 / 50%))",
}


def _page(extra: str) -> tuple[Scene, Layer]:
    scene = Scene(800, 600, "#f4f1ea")
    card = scene.root.add(Layer("card", (200, 150, 400, 300), CARD + extra))
    return scene, card


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_repainted_card(benchmark, gl, variant):
    scene, card = _page(VARIANTS[variant])
    benchmark.group = "box-shadow: a 400x300 card repainted"
    gl.drop_caches()
    scene.render(gl)  # programs compiled, textures pooled
    colors = itertools.cycle(["#fefefe", "#fff"])

    def frame():
        card.style["background-color"] = next(colors)
        return scene.render(gl)

    result = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=2)
    graph = result.graph
    assert [p.layer_id for p in graph.raster_passes()] == ["card"], "the card is rastered each frame"
    assert bool(graph.filter_passes()) == ("filter" in variant), "the analytic shadow needs no filter pass"
    if "box-shadow" in variant:
        assert not [p for p in graph.passes if p.kind == "shadow"], "a repaint copies the kept shadows"
    benchmark.extra_info["raster_ms"] = round(result.stats.raster_ms, 3)
    benchmark.extra_info["filter_ms"] = round(result.stats.filter_ms, 3)


def test_moving_the_shadowed_card(benchmark, gl):
    scene, card = _page(VARIANTS["box-shadow 0 10px 40px"] + "; will-change: transform")
    benchmark.group = "box-shadow: moving the shadowed card"
    gl.drop_caches()
    scene.render(gl)
    offsets = itertools.cycle(range(-100, 100, 7))

    def frame():
        card.style["transform"] = f"translate({next(offsets)}px, 0px)"
        return scene.render(gl)

    result = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=1)
    assert result.graph.raster_passes() == [], "moving a shadowed card re-rasters nothing"
