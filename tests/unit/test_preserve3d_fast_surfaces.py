"""The retained fast path with a 3D rendering context inside a surface that flattens it
(an opacity group, a filter on an ancestor, the isolated group a blending member
needs): a frame where only the context's members move plans that surface alone again
(the context sorted and split in it from the new 4x4s) and keeps the rest of last
frame's plan. Each frame's graph is the one planning
from scratch gives (tests.same_graph), over seeded times; the fast path is taken
(FrameState.fast_frames) and nothing is rastered again."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from tests.same_graph import planned_both
from tests.unit.test_preserve3d_fixes import blending_member

TURN = {"0%": {"transform": "rotateY(0deg)"}, "100%": {"transform": "rotateY(360deg)"}}


def carousel_in(group_style: str, labels: bool = False) -> Scene:
    """12 cards on a preserve-3d ring turning about y, inside a stage flattened by
    ``group_style``, with a plain layer beside it drawn in the frame."""
    scene = Scene(480, 270, "#111")
    scene.root.add(Layer("beside", (10, 10, 60, 40), "background: #3a3"))
    stage = scene.root.add(Layer("stage", (0, 0, 480, 270), "perspective: 500px; " + group_style))
    ring = stage.add(Layer("ring", (205, 85, 70, 100), "transform-style: preserve-3d"))
    radius = 35 / math.tan(math.radians(15)) + 10
    for i in range(12):
        card = ring.add(Layer(f"card-{i}", (0, 0, 70, 100), f"background: hsl({30 * i} 80% 60%); "
                                                            f"transform: rotateY({30 * i}deg) translateZ({radius:.2f}px)"))
        if labels:
            card.add(Layer(f"title-{i}", (6, 6, 58, 12), "background: rgba(255,255,255,.8)"))
    ring.animate(TURN, duration=12.0, iterations="infinite")
    return scene


@pytest.mark.parametrize("group_style, labels", [("opacity: 0.8", False), ("filter: grayscale(0.5)", False),
                                                 ("opacity: 0.8", True)],
                         ids=["opacity", "filter", "opacity-labelled"])
def test_a_context_inside_a_flattening_surface_turns_on_the_fast_path(group_style, labels):
    times = np.sort(np.random.default_rng(26).uniform(0.0, 12.0, 8))
    pairs, fast = planned_both(lambda: carousel_in(group_style, labels), times)
    for k, (t, (ga, gb)) in enumerate(zip(times, pairs)):
        assert ga.contexts3d == gb.contexts3d and [c.target for c in ga.contexts3d][0] == "surface surface:stage"
        if k:
            assert ga.raster_passes() == [], f"t={t}: a turn re-rasters nothing"
            assert ga.planned_whole is None, ga.planned_whole
    assert fast.fast_frames == len(times) - 1, f"the fast path took {fast.fast_frames} of {len(times) - 1} frames"


def x_turning(scene: Scene) -> Scene:
    """``scene`` with its layer "x" turning about y, 30 to 70 degrees every 4 s."""
    scene.find("x").animate({"0%": {"transform": "rotateY(30deg)"}, "100%": {"transform": "rotateY(70deg)"}},
                            duration=4.0, iterations="infinite")
    return scene


def test_a_turning_member_in_the_isolated_group_its_context_root_makes_stays_on_the_fast_path():
    """m blends (multiply), so the context root is an isolated group with a surface of its
    own, and x, turning, splits m: the group's surface is planned alone again each frame
    (m's pieces each reading their backdrop), as from scratch."""
    times = np.sort(np.random.default_rng(26).uniform(0.0, 4.0, 6))
    pairs, fast = planned_both(lambda: x_turning(blending_member()), times)
    for ga, gb in pairs:
        assert ga.contexts3d == gb.contexts3d and ga.contexts3d[0].layers_split == ("m",)
    assert fast.fast_frames == len(times) - 1, f"the fast path took {fast.fast_frames} of {len(times) - 1} frames"


def test_a_labelled_card_turned_edge_on_is_planned_fast_and_from_scratch():
    """At t = 1.454 s card-1 of the labelled carousel is nearly edge-on: its 3D flattening
    surface, rounded out to whole px, is 1 px wide and reaches past the line where the
    card's plane meets the eye. Mapping that draw back into the card's plane raised an
    untyped ValueError ("at or behind the eye") from contexts3d._plane_rect; the points
    past the horizon are left out, and the frame plans (on the fast path too) as from
    scratch."""
    pairs, fast = planned_both(lambda: carousel_in("", labels=True), [1.40, 1.454, 1.50])
    at, _ = pairs[1]
    surfaces = [d for p in at.passes for d in getattr(p, "draws", ()) if d.source.name == "surface:card-1"]
    assert surfaces and min(d.quad_size[0] for d in surfaces) <= 2, "card-1 is edge-on: its surface a sliver"
    assert fast.fast_frames == 2
