"""Invalidation: what a frame re-rasters, checked from the frame graph (not pixels only)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Renderer, Scene



def rastered(frame) -> list[str]:
    return sorted(p.layer_id for p in frame.graph.raster_passes())


def card_scene() -> Scene:
    scene = Scene(120, 90, "white")
    scene.root.add(Layer("bg", (0, 0, 120, 90), "background: linear-gradient(#eee, #ccc)"))
    scene.root.add(Layer("card", (20, 20, 60, 40), "background: red; border-radius: 6px; will-change: transform"))
    scene.root.add(Layer("label", (30, 70, 50, 10), "background: blue"))
    return scene


def test_first_frame_rasters_every_drawing_layer(fresh):
    assert rastered(card_scene().render(fresh, policy="all")) == ["bg", "card", "label"]


def test_transform_and_opacity_animation_rasters_nothing_after_the_first_frame(fresh):
    scene = card_scene()
    scene["card"].animate(
        {"from": {"transform": "rotate(0deg)", "opacity": "1"}, "to": {"transform": "rotate(180deg)", "opacity": "0.3"}},
        duration=1.0,
    )
    first = scene.render(fresh, policy="all", t=0.0)
    assert rastered(first) == ["bg", "card", "label"]
    images = [first.image.copy()]
    for i in range(1, 10):
        frame = scene.render(fresh, policy="all", t=i / 10)
        assert rastered(frame) == [], f"frame {i} re-rastered {rastered(frame)}"
        assert frame.stats.textures_allocated == 0
        images.append(frame.image.copy())
    assert not np.array_equal(images[0], images[5]), "the animation does move"


def test_paint_change_rasters_exactly_that_layer(fresh):
    scene = card_scene()
    scene.render(fresh, policy="all")
    scene["label"].style["background-color"] = "green"
    frame = scene.render(fresh, policy="all")
    assert rastered(frame) == ["label"]
    assert tuple(frame.image[75, 50]) == (0, 128, 0, 255)
    assert rastered(scene.render(fresh, policy="all")) == []


def test_moving_a_layer_by_whole_pixels_does_not_raster(fresh):
    scene = card_scene()
    scene.render(fresh, policy="all")
    scene["card"].box = (25, 30, 60, 40)
    assert rastered(scene.render(fresh, policy="all")) == []
    scene["label"].box = (30.5, 70, 50, 10)  # a new sub-pixel offset is new content
    assert rastered(scene.render(fresh, policy="all")) == ["label"]


@pytest.mark.parametrize("policy", ["all", "browser"])
def test_a_moving_layer_is_sampled_so_sub_pixel_moves_do_not_raster(fresh, policy):
    # will-change: transform (and a running transform animation) say the layer moves:
    # it is rastered once without its sub-pixel phase and drawn where it is, sampled,
    # as cc rasters animating layers (an exact raster per phase would be new each frame).
    scene = card_scene()
    scene.render(fresh, policy=policy)
    for x in (20.25, 20.5, 21.75, 23.0):
        scene["card"].box = (x, 20.5, 60, 40)
        frame = scene.render(fresh, policy=policy)
        assert "card" not in rastered(frame), x
    # Where it is drawn: a straight edge sampled at half a pixel is the edge's coverage.
    column = frame.image[40, :, 1].astype(int)  # row inside the card: red has green 0
    assert column[30] == 0 and column[85] > 150  # inside the card at x = 23; past its right edge
    scene["card"].box = (22.5, 20, 60, 40)
    half = scene.render(fresh, policy=policy).image[40, 22].astype(int)
    assert 100 <= half[1] <= 150, "the left edge at x = 22.5 covers half the pixel"


def test_in_memory_image_changes_are_seen(fresh):
    pixels = np.zeros((4, 4, 4), np.uint8)
    pixels[..., 3] = 255
    scene = Scene(8, 8, "white")
    scene.root.add(Layer("pic", (0, 0, 4, 4), image=pixels))
    assert tuple(scene.render(fresh, policy="all").image[1, 1]) == (0, 0, 0, 255)
    assert rastered(scene.render(fresh, policy="all")) == []
    pixels[..., 0] = 255
    frame = scene.render(fresh, policy="all")
    assert rastered(frame) == ["pic"] and tuple(frame.image[1, 1]) == (255, 0, 0, 255)


def test_removed_layers_release_their_rasters(fresh):
    scene = card_scene()
    scene.render(fresh, policy="all")
    held = fresh.executor.retained_bytes
    scene.root.remove(scene["bg"])
    frame = scene.render(fresh, policy="all")
    assert frame.graph.released and fresh.executor.retained_bytes < held
    assert rastered(frame) == []


def test_a_failed_frame_is_recovered_by_rastering_again(fresh, monkeypatch):
    scene = card_scene()
    scene.render(fresh, policy="all")
    scene["label"].style["background-color"] = "green"
    calls = {"n": 0}
    real = fresh.executor._raster

    def fail_once(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("simulated")
        return real(*args, **kwargs)

    monkeypatch.setattr(fresh.executor, "_raster", fail_once)
    with pytest.raises(RuntimeError):
        scene.render(fresh, policy="all")
    frame = scene.render(fresh, policy="all")
    assert "label" in rastered(frame)
    assert tuple(frame.image[75, 50]) == (0, 128, 0, 255)
    fresh.gpu.check_errors("after recovering")


def test_filter_results_are_reused_while_input_and_parameters_hold(fresh):
    scene = card_scene()
    scene["label"].style["filter"] = "drop-shadow(0 3px 2px black)"
    first = scene.render(fresh, policy="all")
    assert [p.layer_id for p in first.graph.filter_passes()], "the first frame filters"
    again = scene.render(fresh, policy="all")
    assert again.graph.filter_passes() == [] and rastered(again) == []
    assert np.array_equal(again.image, first.image)
    # Moving another layer does not touch the filtered one's result.
    scene["card"].style["transform"] = "rotate(10deg)"
    assert scene.render(fresh, policy="all").graph.filter_passes() == []
    # Changing the filter's parameter re-runs its passes (and only its passes).
    scene["label"].style["filter"] = "drop-shadow(0 3px 4px black)"
    frame = scene.render(fresh, policy="all")
    assert {p.layer_id for p in frame.graph.filter_passes()} == {"label"} and rastered(frame) == []
    # Moving the filtered layer re-runs the filter (its result is drawn elsewhere).
    scene["label"].box = (31, 70, 50, 10)
    assert scene.render(fresh, policy="all").graph.filter_passes()


def test_animated_blur_reruns_only_that_surfaces_filter_passes(fresh):
    scene = card_scene()
    scene["label"].style["filter"] = "drop-shadow(0 3px 2px black)"
    scene["card"].animate({"from": {"filter": "blur(0.5px)"}, "to": {"filter": "blur(3px)"}}, duration=1.0)
    scene.render(fresh, policy="all", t=0.0)
    for t in (0.25, 0.5, 0.75):
        frame = scene.render(fresh, policy="all", t=t)
        assert {p.layer_id for p in frame.graph.filter_passes()} == {"card"}
        assert rastered(frame) == []


def test_frame_is_redrawn_only_where_it_changed(fresh):
    scene = card_scene()
    scene.render(fresh, policy="all")
    still = scene.render(fresh, policy="all")
    (frame_pass,) = [p for p in still.graph.composite_passes() if p.target.name == "frame"]
    assert frame_pass.damage == (0, 0, 0, 0), "nothing changed: nothing redrawn"
    scene["label"].box = (40, 70, 50, 10)
    moved = scene.render(fresh, policy="all")
    (frame_pass,) = [p for p in moved.graph.composite_passes() if p.target.name == "frame"]
    x, y, w, h = frame_pass.damage
    assert (x, y) == (30, 70) and (w, h) == (60, 10), "old and new places of the label"
    # The pixels equal a full redraw from scratch.
    with Renderer() as other:
        full = scene.render(other, policy="none")
    assert np.array_equal(moved.premultiplied, full.premultiplied)


def test_damage_tracking_matches_full_redraws_over_an_animation(fresh):
    scene = card_scene()
    scene["card"].animate({"from": {"transform": "rotate(0deg)"}, "to": {"transform": "rotate(60deg)"}}, duration=1.0)
    with Renderer() as other:
        for t in (0.0, 0.1, 0.35, 0.35, 0.9):
            kept = scene.render(fresh, policy="all", t=t).premultiplied.astype(int)
            full = scene.render(other, t=t, policy="none").premultiplied.astype(int)
            assert np.abs(kept - full).max() == 0, t


@pytest.mark.parametrize("policy", ["browser", "budget"])
def test_a_failed_frame_is_recovered_under_backings(fresh, monkeypatch, policy):
    scene = card_scene()
    scene.render(fresh, policy=policy)
    scene["label"].style["background-color"] = "green"
    calls = {"n": 0}
    real = fresh.executor._composite

    def fail_once(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("simulated")
        return real(*args, **kwargs)

    monkeypatch.setattr(fresh.executor, "_composite", fail_once)
    with pytest.raises(RuntimeError):
        scene.render(fresh, policy=policy)
    frame = scene.render(fresh, policy=policy)
    assert tuple(frame.image[75, 50]) == (0, 128, 0, 255)
    with Renderer() as other:
        full = scene.render(other, policy="none")
    assert np.array_equal(frame.premultiplied, full.premultiplied)
    assert fresh.executor.pool.in_use == len(fresh.executor._retained), "nothing leaked: in use = kept"
    fresh.gpu.check_errors("after recovering")


def test_filter_and_backdrop_amounts_set_through_the_api_render_what_a_first_frame_renders(fresh, gl):
    """A blur slider on a promoted card and one on a frosted panel's backdrop-filter, set
    through the API frame after frame: the frames that take the retained fast path run
    only the changed filters (and redraw the frame where they changed), and each frame's
    pixels are those a renderer with nothing kept renders for the same page."""
    def page(blur: float, frost: float) -> Scene:
        scene = card_scene()
        scene["card"].style["filter"] = f"blur({blur:g}px) saturate(1.5)"
        scene.root.add(Layer("glass", (10, 50, 70, 30), "background: rgb(255 255 255 / 25%); "
                                                         f"backdrop-filter: blur({frost:g}px); will-change: transform"))
        return scene

    steps = [(1, 2), (2, 2), (2, 3), (3, 1), (1.5, 1), (1.5, 4)]
    scene = page(*steps[0])
    scene.render(fresh, policy="browser")
    fast = 0
    for blur, frost in steps[1:]:
        scene["card"].style["filter"] = f"blur({blur:g}px) saturate(1.5)"
        scene["glass"].style["backdrop-filter"] = f"blur({frost:g}px)"
        before = fresh.state.fast_frames
        frame = scene.render(fresh, policy="browser")
        fast += fresh.state.fast_frames - before
        assert rastered(frame) == [], "a filter amount re-rasters nothing"
        gl.drop_caches()
        first = page(blur, frost).render(gl, policy="browser")
        assert np.array_equal(frame.image, first.image), f"blur {blur}, frost {frost}: the pixels of a first frame"
    assert fast >= 3, "the amounts take the fast path"
