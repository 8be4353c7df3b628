"""Filtered layers in scenes: against the reference applied to the unfiltered render,
transformed and clipped trees, animation without recompiling."""

from __future__ import annotations

import numpy as np

from lamina import filters
from lamina import Layer, Scene
from tests import reference as ref


def premult(frame) -> np.ndarray:
    return frame.premultiplied.astype(int)


def test_filtered_layer_in_translated_clipped_tree_matches_reference(gl):
    def build(with_filter: bool, with_clip: bool) -> Scene:
        scene = Scene(80, 60, "transparent")
        clip = scene.root.add(
            Layer("clip", (10, 8, 50, 40), ("overflow: hidden; " if with_clip else "") + "transform: translate(3px, 2px)")
        )
        style = "background: rgb(200 30 60); border-radius: 4px"
        if with_filter:
            style += "; filter: blur(2px) hue-rotate(90deg) opacity(.8)"
        clip.add(Layer("f", (5, 5, 30, 20), style))
        return scene

    unfiltered = build(False, False).render(gl).premultiplied
    expected = filters.reference.apply_premultiplied(unfiltered / 255.0, filters.parse("blur(2px) hue-rotate(90deg) opacity(.8)"))
    mask = ref.box_coverage(80, 60, 13, 10, 50, 40)[..., None]
    expected = np.rint(expected * mask * 255).astype(int)
    frame = build(True, True).render(gl)
    diff = np.abs(premult(frame) - expected)
    assert diff.max() <= 2
    assert [p.reason.value for p in frame.graph.composite_passes()][:1] == ["filter"]
    # The blur reaches beyond the layer's box but not beyond the clip.
    assert frame.premultiplied[15 + 10, 18 - 3, 3] > 0  # left of the box, inside the clip
    assert frame.premultiplied[9, 30, 3] == 0  # above the clip


def test_filter_runs_before_clip_and_opacity(gl):
    scene = Scene(40, 40, "white")
    scene.root.add(Layer("a", (10, 10, 20, 20), "background: black; filter: invert(1); opacity: 0.5"))
    img = scene.render(gl).image
    assert tuple(img[20, 20]) == (255, 255, 255, 255), "inverted to white, then faded over white"
    scene = Scene(40, 40, "black")
    scene.root.add(Layer("a", (10, 10, 20, 20), "background: black; filter: invert(1); opacity: 0.5"))
    assert tuple(scene.render(gl).image[20, 20]) == (128, 128, 128, 255)


def test_drop_shadow_turns_with_a_rotated_layer(gl):
    scene = Scene(80, 80, "white")
    holder = scene.root.add(Layer("holder", (20, 20, 40, 40), "transform: rotate(90deg)"))
    holder.add(Layer("box", (10, 10, 20, 20), "background: blue; filter: drop-shadow(8px 0 0 red)"))
    img = scene.render(gl).image.astype(int)
    # rotate(90deg) about the holder's centre (40, 40): local +x points down the screen.
    assert tuple(img[40, 40]) == (0, 0, 255, 255)
    assert tuple(img[54, 40]) == (255, 0, 0, 255), "shadow below the box"
    assert tuple(img[40, 54]) == (255, 255, 255, 255), "no shadow to the right"


def test_filter_growth_is_not_clipped_by_the_layer_box(gl):
    scene = Scene(60, 60, "transparent")
    scene.root.add(Layer("a", (20, 20, 20, 20), "background: black; filter: blur(3px)"))
    frame = scene.render(gl)
    alpha = frame.premultiplied[..., 3].astype(float) / 255
    assert abs(alpha.sum() - 400) < 4, "a blur keeps the total coverage (nothing cut off)"
    assert alpha[30, 12] > 0 and alpha[12, 30] > 0


def test_nested_filters(gl):
    scene = Scene(60, 60, "white")
    outer = scene.root.add(Layer("outer", (10, 10, 40, 40), "filter: grayscale(1)"))
    outer.add(Layer("inner", (10, 10, 20, 20), "background: red; filter: drop-shadow(4px 4px 0 blue)"))
    img = scene.render(gl).image.astype(int)
    grey_red = round(0.2126 * 255)
    assert np.all(np.abs(img[25, 25, :3] - grey_red) <= 1), "red through grayscale"
    grey_blue = round(0.0722 * 255)
    assert np.all(np.abs(img[42, 42, :3] - grey_blue) <= 1), "the shadow is filtered by the parent too"


def test_animated_filters_compile_nothing_after_warm_up(gl):
    scene = Scene(96, 64, "white")
    layer = scene.root.add(Layer("a", (20, 12, 50, 40), "background: linear-gradient(red, blue)"))
    frames = []
    for i in range(60):
        sigma = 0.5 + 19.5 * i / 59
        frames.append(
            f"blur({sigma:.3f}px) hue-rotate({6 * i}deg) opacity({0.2 + 0.8 * i / 59:.3f}) "
            f"drop-shadow({i % 7}px 2px {sigma / 2:.3f}px rgb(0 0 0 / 50%))"
        )
    # Warm-up: the smallest and largest frames use every program the animation needs.
    for css in (frames[0], frames[-1]):
        layer.style["filter"] = css
        scene.render(gl)
    before = gl.compiles
    for css in frames:
        layer.style["filter"] = css
        scene.render(gl)
    assert gl.compiles == before, "animating sigma, angle and opacity must not compile programs"
