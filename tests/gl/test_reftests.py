"""Reftests: two ways of writing the same picture must render the same, checked with the
golden fixture's ``assert_same`` (no stored image). Colours are fresh random each run."""

from __future__ import annotations

import pytest

from lamina import Layer, Scene


def content(rng) -> str:
    a, b = (f"rgb({rng.integers(0, 256)} {rng.integers(0, 256)} {rng.integers(0, 256)} / {rng.uniform(0.4, 1):.3f})"
            for _ in range(2))
    return f"background: linear-gradient({int(rng.integers(0, 360))}deg, {a}, {b}); border-radius: 9px"


def one(style: str, *, size=(72, 56), box=(12, 10, 48, 36), bg="white") -> Scene:
    scene = Scene(*size, bg)
    scene.root.add(Layer("a", box, style))
    return scene


def nested(styles: list[str], leaf: str, box=(12, 10, 48, 36)) -> Scene:
    """Layers inside each other, same box, outermost first; only the leaf paints."""
    scene = Scene(72, 56, "white")
    parent = scene.root
    for i, style in enumerate(styles):
        parent = parent.add(Layer(f"n{i}", box if i == 0 else (0, 0, box[2], box[3]), style))
    parent.add(Layer("leaf", (0, 0, box[2], box[3]), leaf))
    return scene


def test_fused_colour_chain_equals_the_functions_on_nested_layers(gl, golden, rng):
    paint = content(rng)
    fused = one(f"{paint}; filter: sepia(0.6) saturate(1.5) hue-rotate(40deg) contrast(1.2)").render(gl)
    # filter: a b c applies a first: on nested layers the innermost filter runs first.
    layered = nested(["filter: contrast(1.2)", "filter: hue-rotate(40deg)", "filter: saturate(1.5)"],
                     f"{paint}; filter: sepia(0.6)").render(gl)
    # Nested layers round to 8 bits between the steps; the fused pass does not.
    golden.assert_same(fused, layered, max_diff="0-3", max_pixels="0-1728")


def test_opacity_function_equals_the_opacity_property(gl, golden, rng):
    paint = content(rng)
    golden.assert_same(one(f"{paint}; filter: opacity(0.5)").render(gl), one(f"{paint}; opacity: 0.5").render(gl),
                       max_diff="0-1", max_pixels="0-1728")


@pytest.mark.parametrize("noop", ["blur(0)", "none", "grayscale(0) sepia(0)", "hue-rotate(0deg) brightness(1)", "opacity(1)"])
def test_no_op_filters_equal_no_filter(gl, golden, rng, noop):
    paint = content(rng)
    golden.assert_same(one(f"{paint}; filter: {noop}").render(gl), one(paint).render(gl))


def test_translate_equals_moving_the_box(gl, golden, rng):
    paint = content(rng)
    golden.assert_same(one(f"{paint}; transform: translate(7px, -3px)").render(gl),
                       one(paint, box=(19, 7, 48, 36)).render(gl))


def test_opacity_of_a_group_with_one_child_equals_opacity_on_the_child(gl, golden, rng):
    paint = content(rng)
    group = nested(["opacity: 0.6"], paint).render(gl)
    golden.assert_same(group, one(f"{paint}; opacity: 0.6").render(gl), max_diff="0-1", max_pixels="0-1728")


@pytest.mark.parametrize("policy", ["all", "none", "budget"])
def test_policies_equal_browser(gl, golden, rng, policy):
    scene = Scene(96, 64, "white")
    for i in range(6):
        x, y = (float(v) for v in rng.integers(0, 60, 2))
        extra = "; will-change: transform" if i == 2 else ""
        scene.root.add(Layer(f"l{i}", (x, y, 30, 24), content(rng) + extra))
    # Within a level, except that translucent layers overlapping inside a squashing
    # backing (8-bit, as browsers' are) round twice: a rare pixel can be 2 apart there.
    golden.assert_same(scene.render(gl, policy=policy), scene.render(gl, policy="browser"), max_diff="0-2", max_pixels="0-6144")
