"""Benchmarks of planning alone (Python, no GPU work): what ``scene.render()`` spends
before the GPU runs anything. The planner is told every kept texture still exists, as
a renderer's executor would say between frames.

* the first frame of the 100-card page and of the nested 518-layer page;
* an animation frame (60 fps steps of the spinning card's animation) on both, under
  the browser and "all" policies: the property trees update the card's subtree and the
  retained fast path redoes its draw only;
* the same animation frame on pages of 100, 1 000 and 10 000 layers: the cost of a
  property change must not grow with the page (``test_planning_curve``).

    .venv/bin/python -m pytest tests/benchmarks/test_planning_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools
import os

import pytest

from lamina import FrameRequest, Layer, Scene
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits

from .scenes import _spin, cards_scene, page_scene
from tests.kept import EVERY_TEXTURE

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
KEPT = ExecutorFacts(retained=EVERY_TEXTURE)
PAGES = {"cards": cards_scene, "page": page_scene}


def _plan(scene: Scene, state: FrameState, t: float, policy: str = "browser"):
    return build_frame_graph(scene, FrameRequest(t=t, policy=policy), Limits(), ImageStore(), state, KEPT)


class _Animating:
    """A planner warmed up on ``scene``; calling it plans the next 60 fps frame."""

    def __init__(self, scene: Scene, policy: str) -> None:
        self.scene, self.policy, self.state = scene, policy, FrameState()
        self.frames, self.calls = itertools.count(), 0
        for _ in range(3):
            self()
        self.fast_before, self.calls = self.state.fast_frames, 0

    def __call__(self):
        self.calls += 1
        return _plan(self.scene, self.state, next(self.frames) / 60, self.policy)

    def check(self, graph) -> None:
        assert [p.name for p in graph.passes] == ["composite:frame"], "nothing rastered or painted, the frame composited"
        # Each 2 s iteration starts with one frame planned from scratch (its new sweep).
        slow = self.calls - (self.state.fast_frames - self.fast_before)
        assert slow <= 1 + self.calls // 120, "the animation frames take the retained fast path"
        assert self.state.trees.rebuilds == 1, "the property trees are never rebuilt during the animation"


@pytest.mark.parametrize("name", list(PAGES))
def test_planning_first_frame(benchmark, name):
    scene = PAGES[name]()
    benchmark.group = "planning: first frame"
    graph = benchmark.pedantic(lambda: _plan(scene, FrameState(), 0.0), rounds=ROUNDS, warmup_rounds=1)
    benchmark.extra_info["layers"] = len(scene.layers())
    assert len(graph.raster_passes()) == len(scene.layers()) - 1, "a first frame rasters every layer but the root"


@pytest.mark.parametrize("policy", ["browser", "all"])
@pytest.mark.parametrize("name", list(PAGES))
def test_planning_animation_frame(benchmark, name, policy):
    scene = PAGES[name]()
    benchmark.group = f"planning: animation frame ({policy})"
    step = _Animating(scene, policy)
    graph = benchmark.pedantic(step, rounds=ROUNDS * 4, warmup_rounds=2)
    benchmark.extra_info["layers"] = len(scene.layers())
    step.check(graph)


def grid_scene(layers: int) -> Scene:
    """``layers`` cards (with a title each, so half as many cards) in a grid over a
    1280x720 page; one card spins (as in scenes.py)."""
    scene = Scene(1280, 720, "#f4f1ea")
    cards = layers // 2
    columns = max(1, int((cards * 16 / 9) ** 0.5))
    w, h = 1280 / columns, 720 / -(-cards // columns)
    for i in range(cards):
        col, row = i % columns, i // columns
        card = scene.root.add(Layer(f"card{i}", (col * w + 1, row * h + 1, max(w - 2, 1), max(h - 2, 1)),
                                    "background: hsl(200 60% 60%); border-radius: 3px"))
        card.add(Layer(f"title{i}", (1, 1, max(w / 2, 1), max(h / 4, 1)), "background: rgb(255 255 255 / 80%)"))
    return _spin(scene, f"card{cards // 2}")


@pytest.mark.parametrize("layers", [100, 1000, 10000])
def test_planning_curve(benchmark, layers):
    scene = grid_scene(layers)
    benchmark.group = "planning: animation frame vs layer count"
    step = _Animating(scene, "browser")
    graph = benchmark.pedantic(step, rounds=ROUNDS * 4, warmup_rounds=2)
    benchmark.extra_info["layers"] = len(scene.layers())
    step.check(graph)
