"""Differences between policies found by differential fuzzing (long-lived renderer vs a
fresh full redraw), kept as regression tests."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Renderer, Scene
from lamina.errors import ImageLoadError


def full(scene, **kw) -> np.ndarray:
    with Renderer() as other:
        return scene.render(other, policy="none", **kw).premultiplied.astype(int)



@pytest.mark.parametrize("policy", ["browser", "budget", "all"])
def test_promoted_layer_with_children_at_a_sub_pixel_position(fresh, policy):
    s = Scene(64, 48, "white")
    # will-change: opacity promotes without moving, so the backing keeps A's sub-pixel
    # phase and lands on whole pixels (a moving layer is sampled instead: test_invalidation).
    a = s.root.add(Layer("A", (16.5, 0.25, 6, 18), "background: rgb(46 189 59); will-change: opacity"))
    a.add(Layer("B", (-8, 0, 31, 5), "background: red"))
    got = s.render(fresh, policy=policy).premultiplied.astype(int)
    assert np.abs(got - full(s)).max() <= 1


def test_a_frame_that_fails_to_plan_leaves_the_cache_as_it_was(fresh):
    s = Scene(64, 48, "white")
    a = s.root.add(Layer("A", (0, 0, 20, 20), "background: red"))
    s.root.add(Layer("B", (30, 0, 20, 20), "background: blue"))
    s.render(fresh)
    for i in range(5):
        a.style["background-color"] = f"rgb(0 {100 + i} 0)"
        bad = s.root.add(Layer("bad", (0, 30, 10, 10), "will-change: transform", image="/nonexistent.png"))
        with pytest.raises(ImageLoadError):
            s.render(fresh)
        s.root.remove(bad)
        got = s.render(fresh).premultiplied.astype(int)
        assert np.abs(got - full(s)).max() <= 1
    assert len(fresh.executor._retained) <= len(fresh.raster_cache) + 1, "no leaked textures"


def test_touching_fractional_edges_keep_paint_order(fresh):
    s = Scene(40, 40, "white")
    s.root.add(Layer("P", (10, 10, 20, 10.5), "background: red; will-change: transform"))
    s.root.add(Layer("N", (10, 20.5, 20, 10), "background: blue"))
    assert np.abs(s.render(fresh).premultiplied.astype(int) - full(s)).max() <= 1


def test_rotated_members_keep_their_anti_aliased_fringe(fresh):
    s = Scene(64, 48, "white")
    s.root.add(Layer("A", (2, 2, 8, 8), "background: blue"))
    b = s.root.add(Layer("B", (20, 10, 35.5, 19.3), "background: rgb(0 128 0); transform: rotate(1deg)"))
    assert np.abs(s.render(fresh).premultiplied.astype(int) - full(s)).max() <= 1
    b.style["transform"] = "rotate(3deg)"  # repainted in place: the fringe is in the damage
    assert np.abs(s.render(fresh).premultiplied.astype(int) - full(s)).max() <= 1


def test_filtered_scaled_layer_at_a_fractional_position_is_not_shifted(fresh):
    def scene(f):
        s = Scene(64, 64, "white")
        s.root.add(Layer("A", (20, 20, 9, 9), "background: red; transform: scale(2)" + (f"; filter: {f}" if f else "")))
        return s

    plain = scene(None).render(fresh).premultiplied.astype(int)
    filtered = scene("brightness(0.999)").render(fresh).premultiplied.astype(int)
    assert np.abs(plain - filtered).max() <= 2


def test_backing_bounds_are_pruned(fresh):
    s = Scene(64, 48, "white")
    for i in range(40):
        card = s.root.add(Layer(f"c{i}", (5, 5, 30, 30), "background: red; will-change: transform"))
        card.add(Layer(f"t{i}", (2, 2, 10, 5), "background: blue"))
        s.render(fresh)
        s.root.remove(card)
    s.render(fresh)
    assert len(fresh.raster_cache.backing_bounds) <= 2
