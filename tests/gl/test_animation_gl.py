"""Animations on the GPU: reftests (an animated scene sampled at t renders the same
pixels as the same scene written statically with the hand-interpolated values),
periodicity of infinite alternate animations, and no shader compiles while animating."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.errors import LaminaError


def render(scene: Scene, gl, t: float) -> np.ndarray:
    frame = scene.render(gl, t=t)
    assert frame.image.shape == (scene.height, scene.width, 4)
    return frame.image.astype(int)


def assert_same(actual: np.ndarray, expected: np.ndarray, tol: int = 1, what: str = "") -> None:
    diff = np.abs(actual - expected)
    worst = int(diff.max())
    if worst > tol:
        y, x = np.unravel_index(int(diff.max(axis=2).argmax()), diff.shape[:2])
        raise AssertionError(
            f"{what}: off by {worst} levels (> {tol}) at x={x} y={y}: got {actual[y, x].tolist()}, "
            f"expected {expected[y, x].tolist()}; {int((diff.max(axis=2) > tol).sum())} pixels differ"
        )


def scene_with(style: str, box=(6, 6, 20, 20), size=(32, 32)) -> tuple[Scene, Layer]:
    scene = Scene(*size, "white")
    layer = scene.root.add(Layer("box", box, style))
    return scene, layer


def test_opacity_at_a_quarter_of_a_linear_fade(gl):
    animated, layer = scene_with("background-color: red")
    layer.animate({"from": {"opacity": "0"}, "to": {"opacity": "1"}}, duration=2)
    static, _ = scene_with("background-color: red; opacity: 0.25")
    got = render(animated, gl, 0.5)
    assert_same(got, render(static, gl, 0.0), 1, "opacity 0.25")
    assert got[15, 15].tolist() != [255, 255, 255, 255], "the layer is visible at t=0.5"
    # Not a constant: t = 1.5 is opacity 0.75.
    static75, _ = scene_with("background-color: red; opacity: 0.75")
    assert_same(render(animated, gl, 1.5), render(static75, gl, 0.0), 1, "opacity 0.75")


@pytest.mark.parametrize(
    "frm, to, static",
    [
        # Opaque ends: half way is the channel average.
        ("red", "blue", "rgb(50% 0% 50%)"),
        # Premultiplied: (1, 0, 0, 1) and (0, 0, .5, .5) average to (.5, 0, .25, .75),
        # i.e. straight rgb(2/3, 0, 1/3) at alpha .75 (straight averaging would give
        # rgb(.5, 0, .5) / .75).
        ("red", "rgb(0 0 255 / 50%)", "rgb(66.66667% 0% 33.33333% / 0.75)"),
        # Red to transparent stays red and fades.
        ("red", "transparent", "rgb(255 0 0 / 0.5)"),
    ],
)
def test_background_colour_half_way_is_premultiplied(gl, frm, to, static):
    animated, layer = scene_with("background-color: red")
    layer.animate({"from": {"background-color": frm}, "to": {"background-color": to}}, duration=1)
    render(animated, gl, 0.0)  # a frame at another time first: the raster must not be stale
    got = render(animated, gl, 0.5)
    reference, _ = scene_with(f"background-color: {static}")
    assert_same(got, render(reference, gl, 0.0), 1, f"{frm} -> {to} at 0.5")
    start, _ = scene_with(f"background-color: {frm}")
    assert np.abs(got - render(start, gl, 0.0)).max() > 20, "the colour changed from the start"


@pytest.mark.parametrize(
    "frm, to",
    [
        ("rotate(0deg)", "rotate(90deg)"),  # pairwise
        ("rotate(0deg)", "rotate(90deg) translate(0px)"),  # different lists: decomposed matrices
    ],
)
def test_rotation_half_way_equals_static_rotate_45deg(gl, frm, to):
    animated, layer = scene_with("background-color: red; border: 2px solid blue")
    layer.animate({"from": {"transform": frm}, "to": {"transform": to}}, duration=1)
    static, _ = scene_with("background-color: red; border: 2px solid blue; transform: rotate(45deg)")
    got = render(animated, gl, 0.5)
    assert_same(got, render(static, gl, 0.0), 1, f"{frm} -> {to} at 0.5")
    unrotated, _ = scene_with("background-color: red; border: 2px solid blue")
    assert np.abs(got - render(unrotated, gl, 0.0)).max() > 100, "the layer is rotated"


def test_infinite_alternate_animation_repeats_every_two_durations(gl):
    scene, layer = scene_with("background-color: #3a6; border-radius: 4px")
    layer.animate(
        {"from": {"transform": "rotate(0deg) scale(1)", "opacity": "1"},
         "to": {"transform": "rotate(40deg) scale(0.6)", "opacity": "0.3"}},
        duration=0.5, iterations="infinite", direction="alternate", easing="ease-in-out",
    )
    # Dyadic times: the iteration progress is exact at t and t + 2 * duration.
    for t in (0.125, 0.375, 0.625):
        a = render(scene, gl, t)
        b = render(scene, gl, t + 1.0)
        c = render(scene, gl, t + 5.0)
        assert np.array_equal(a, b), f"t={t} and t+2*duration differ by {np.abs(a - b).max()}"
        assert np.array_equal(a, c), f"t={t} and t+10*duration differ by {np.abs(a - c).max()}"
    # One duration later the iteration runs backwards: 0.125 -> 0.375 of the way.
    assert not np.array_equal(render(scene, gl, 0.125), render(scene, gl, 0.625))
    assert np.array_equal(render(scene, gl, 0.125), render(scene, gl, 0.875)), "0.75 - p mirrors p"


def test_animating_transform_opacity_and_filter_compiles_nothing_after_two_frames(gl):
    scene = Scene(48, 48, "white")
    layer = scene.root.add(Layer("card", (12, 12, 24, 24),
                                 "background: linear-gradient(red, blue); border-radius: 5px"))
    layer.animate(
        {"from": {"transform": "rotate(0deg)", "opacity": "0.4", "filter": "blur(1px) sepia(0.2)"},
         "to": {"transform": "rotate(30deg) translate(3px, 2px)", "opacity": "1", "filter": "blur(3px) sepia(0.9)"}},
        duration=1, iterations="infinite", direction="alternate",
    )
    frames = []
    after_two = None
    for i in range(30):
        frames.append(render(scene, gl, i / 20))
        if i == 1:
            after_two = gl.compiles
    assert gl.compiles == after_two, f"{gl.compiles - after_two} shader programs compiled after frame 2"
    assert np.abs(frames[0] - frames[10]).max() > 20, "the animation changes the frame"


@pytest.mark.parametrize("t", [math.nan, math.inf])
def test_rendering_at_a_non_finite_time_is_an_error(gl, t):
    scene, layer = scene_with("background-color: red")
    layer.animate({"to": {"opacity": "0"}}, duration=1)
    with pytest.raises(LaminaError):
        scene.render(gl, t=t)
