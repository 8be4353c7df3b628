"""Filter edge cases found in review: shadows cut by their own surface, tiny sigmas,
clips above a filter, far offsets, leaks on errors, untyped exceptions, huge values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import filters
from lamina import Layer, Scene
from lamina.errors import LaminaError
from lamina.style import Style


def _unfiltered_then_reference(build, css):
    plain = build(None).render().premultiplied / 255.0
    expected = filters.reference.apply_premultiplied(plain, filters.parse(css))
    return np.rint(expected * 255).astype(int)


@pytest.mark.parametrize("css", ["drop-shadow(10px 10px 4px black)", "drop-shadow(12px -5px 2px red)", "drop-shadow(-9px 3px 6px blue) blur(1px)"])
def test_blurred_shadow_is_not_cut_by_its_surface(gl, css):
    def build(f):
        scene = Scene(150, 150, "transparent")
        scene.root.add(Layer("box", (50, 50, 40, 40), "background: rgb(0 0 255)" + (f"; filter: {f}" if f else "")))
        return scene

    expected = _unfiltered_then_reference(build, css)
    got = build(css).render(gl).premultiplied.astype(int)
    assert np.abs(got - expected).max() <= 2


def test_tiny_sigma_keeps_the_layer(gl):
    scene = Scene(40, 40, "white")
    scene.root.add(Layer("a", (10, 10, 20, 20), "background: black; filter: blur(0.05px)"))
    holder = scene.root.add(Layer("h", (0, 0, 40, 40), "transform: scale(0.05); transform-origin: 0 0"))
    holder.add(Layer("b", (0, 0, 400, 400), "background: red; filter: blur(1px)"))
    img = scene.render(gl).image
    assert tuple(img[20, 20]) == (0, 0, 0, 255)
    assert img[10, 10, 1] < 60, "the scaled-down blurred layer is still drawn"


def test_clip_above_a_filter_applies_to_its_result(gl):
    scene = Scene(300, 100, "white")
    clip = scene.root.add(Layer("clip", (0, 0, 100, 100), "overflow: hidden"))
    clip.add(Layer("box", (200, 20, 40, 40), "background: blue; filter: drop-shadow(-150px 0 0 red)"))
    img = scene.render(gl).image
    assert tuple(img[40, 70]) == (255, 0, 0, 255), "the shadow falls inside the clip"
    assert tuple(img[40, 220]) == (255, 255, 255, 255), "the box itself is clipped away"


def test_inner_shadow_not_cut_by_an_outer_group(gl):
    scene = Scene(120, 120, "white")
    outer = scene.root.add(Layer("outer", (0, 0, 120, 120), "opacity: 0.999"))
    outer.add(Layer("sibling", (0, 0, 5, 5), "background: green"))
    inner = outer.add(Layer("inner", (20, 20, 40, 40), "overflow: hidden; background: red; filter: drop-shadow(30px 30px 0 blue)"))
    inner.add(Layer("kid", (0, 0, 80, 80), "background: red"))
    img = scene.render(gl).image.astype(int)
    assert np.all(np.abs(img[75, 75] - (0, 0, 255, 255)) <= 1)


def test_far_shadow_offset_needs_no_huge_surface(gl):
    scene = Scene(50, 50, "white")
    scene.root.add(Layer("a", (0, 0, 20, 20), "background: black; filter: drop-shadow(5000px 0 0 red)"))
    frame = scene.render(gl)
    (surface,) = [p for p in frame.graph.composite_passes() if p.target.name == "surface:a"]
    assert surface.target.width <= 100 and surface.target.height <= 100
    assert tuple(frame.image[10, 10]) == (0, 0, 0, 255)


def test_filter_runner_releases_textures_when_a_pass_fails(gl, monkeypatch):
    from lamina.gpu.gl_filters import GLFilterRunner

    pool = gl.executor.pool
    before = pool.in_use
    calls = {"n": 0}
    real = GLFilterRunner.run_pass

    def failing(self, p, inputs, target, **alpha_forms):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("simulated")
        return real(self, p, inputs, target, **alpha_forms)

    monkeypatch.setattr(GLFilterRunner, "run_pass", failing)
    with pytest.raises(RuntimeError):
        filters.apply(np.zeros((64, 64, 4), np.uint8), "blur(10px)")
    assert pool.in_use == before


@pytest.mark.parametrize(
    "call",
    [
        lambda: filters.parse("drop-shadow(1px 1px oklch(0.5 1e308 30))"),
        lambda: Style("background-color: lab(50 1e308 0)"),
        lambda: filters.apply([[1, 2], [3]], "blur(1px)", "reference"),
        lambda: filters.apply(np.zeros((2, 2, 4), np.uint8), "blur(1px)", "reference", current_color="red"),
        lambda: filters.parse("blur(1px)").plan(scale=float("nan")),
        lambda: filters.parse("blur(1px)").interpolate(filters.parse("blur(2px)"), float("nan")),
        lambda: filters.Blur(float("nan")),
        lambda: filters.Blur(-3.0),
        lambda: filters.Grayscale(float("inf")),
    ],
)
def test_bad_input_is_always_a_lamina_error(call):
    with pytest.raises(LaminaError):
        call()


def test_interpolate_accepts_css_text():
    assert filters.parse("blur(2px)").interpolate("none", 0.5) == filters.parse("blur(1px)")


def test_huge_amounts_stay_finite_and_agree(gl, rng):
    img = rng.integers(0, 256, (16, 16, 4), dtype=np.uint8)
    img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
    for css in ("saturate(1e39)", "contrast(1e39)", "hue-rotate(1e20deg)"):
        got = filters.apply(img, css, premultiplied=True).astype(int)
        ref = filters.apply(img, css, "reference", premultiplied=True).astype(int)
        assert np.abs(got - ref).max() <= 1, css
    big = filters.parse("hue-rotate(1e20deg)")[0].matrix()
    same = filters.parse(f"hue-rotate({math.fmod(1e20, 360.0)}deg)")[0].matrix()
    assert np.allclose(big, same)
