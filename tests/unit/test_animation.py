"""Animations without a GPU: CSS easing, CSS Animations 1 timing, interpolation of
opacity / premultiplied colours / transforms / filters, the Layer.animate API and its
typed errors, and animations in scene files.

Expected values are computed here independently of the engine: cubic-bezier by
de Casteljau + bisection, steps() from the CSS Easing 1 tables, transform matrices by
composing translate/rotate/scale by hand (for 2D matrices without skew the CSS
Transforms 1 decomposition interpolates translation, angle and scales linearly), and
premultiplied colours by hand.
"""

from __future__ import annotations

import copy
import json
import math

import jsonschema
import pytest

from lamina import filters
from lamina import Layer, Scene
from lamina.animation import Animation, parse_easing, parse_time
from lamina.compositor.tree import StackingContext, resolve_tree
from lamina.errors import (
    InvalidValueError,
    LaminaError,
    LaminaInputError,
    SceneFileError,
    StyleError,
    UnknownPropertyError,
)
from lamina.framegraph import Draw, FrameGraph, RasterPass
from lamina.scene_file import SCHEMA_PATH, load_scene, scene_from_dict
from lamina.style import ComputedStyle
from lamina.css.values import RGBA

RED = "background-color: red"


# -- helpers ------------------------------------------------------------------------------------


def casteljau(p: tuple[float, float, float, float], t: float) -> float:
    """One coordinate of the cubic Bézier with control values (0, p1, p2, 1) at t."""
    pts = [0.0, p[0], p[1], 1.0]
    while len(pts) > 1:
        pts = [a + (b - a) * t for a, b in zip(pts, pts[1:])]
    return pts[0]


def bezier_reference(x1: float, y1: float, x2: float, y2: float, x: float) -> float:
    """y at x of cubic-bezier(x1, y1, x2, y2): bisection on the monotone x(t)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if casteljau((x1, x2), mid) < x:
            lo = mid
        else:
            hi = mid
    return casteljau((y1, y2), (lo + hi) / 2)


def affine(a=1.0, b=0.0, c=0.0, d=1.0, e=0.0, f=0.0):
    """A 2D matrix as a plain tuple (a, b, c, d, e, f), CSS matrix() order."""
    return (float(a), float(b), float(c), float(d), float(e), float(f))


def mul(m, n):
    """m @ n: apply n first, then m (column vectors)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D, a * E + c * F + e, b * E + d * F + f)


def T(tx, ty=0.0):
    return affine(1, 0, 0, 1, tx, ty)


def R(deg):
    r = math.radians(deg)
    return affine(math.cos(r), math.sin(r), -math.sin(r), math.cos(r))


def S(sx, sy=None):
    return affine(sx, 0, 0, sx if sy is None else sy)


def chain(*ms):
    out = affine()
    for m in ms:
        out = mul(out, m)
    return out


def assert_matrix(actual, expected, tol=1e-9, what=""):
    values = actual.values() if hasattr(actual, "values") else tuple(actual)
    assert all(abs(p - q) <= tol for p, q in zip(values, expected)), (
        f"{what}: got matrix{tuple(round(v, 9) for v in values)}, expected matrix{tuple(round(v, 9) for v in expected)}"
    )


def draws(graph: FrameGraph, layer_id: str) -> list[Draw]:
    return [d for p in graph.composite_passes() for d in p.draws if d.layer_id == layer_id]


def draw_of(scene: Scene, layer_id: str, t: float) -> Draw:
    found = draws(scene.plan(t=t), layer_id)
    assert len(found) == 1, f"{layer_id} at t={t}: {len(found)} draws"
    return found[0]


def layer_to_target(scene: Scene, layer_id: str, t: float):
    """Layer px -> frame px at t. A translated-only layer is rastered at its sub-pixel
    offset and drawn at a whole pixel, so the raster's offset is part of the matrix; a
    scaled one at its raster scale s (compositor.raster_scale), so the raster's px are
    s layer px: that scale is part of it too."""
    graph = scene.plan(t=t)
    found = draws(graph, layer_id)
    assert len(found) == 1, f"{layer_id} at t={t}: {len(found)} draws"
    raster = [p for p in graph.raster_passes() if p.layer_id == layer_id]
    assert len(raster) == 1
    s = graph.raster_scales[layer_id].scale
    return mul(mul(found[0].transform.values(), T(*raster[0].paint.offset)), (s, 0.0, 0.0, s, 0.0, 0.0))


def raster_of(scene: Scene, layer_id: str, t: float) -> RasterPass:
    found = [p for p in scene.plan(t=t).raster_passes() if p.layer_id == layer_id]
    assert len(found) == 1, f"{layer_id} at t={t}: {len(found)} raster passes"
    return found[0]


def style_at(scene: Scene, layer_id: str, t: float) -> ComputedStyle:
    """The layer's sampled ComputedStyle in resolve_tree(root, t)."""

    def walk(ctx: StackingContext):
        if ctx.node.id == layer_id:
            return ctx.node.style
        for item in ctx.items:
            found = walk(item) if isinstance(item, StackingContext) else (item.style if item.id == layer_id else None)
            if found is not None:
                return found
        return None

    style = walk(resolve_tree(scene.root, t))
    assert style is not None, f"no layer {layer_id!r} in the resolved tree"
    return style


def one_layer(style: str = RED, box=(10, 20, 40, 20)) -> tuple[Scene, Layer]:
    scene = Scene(100, 80, "white")
    layer = scene.root.add(Layer("card", box, style))
    return scene, layer


def fade(**options) -> Animation:
    """opacity 0 -> 1 linear: the sampled opacity *is* the directed, eased progress."""
    options.setdefault("duration", 1)
    return Animation.create({"from": {"opacity": "0"}, "to": {"opacity": "1"}}, **options)


def opacity(anim: Animation, t: float) -> float | None:
    """Sampled opacity over a default style (opacity 1); None when the animation has no effect."""
    return anim.sample(t, ComputedStyle(), (10.0, 10.0)).get("opacity")


def approx(v):
    return pytest.approx(v, abs=1e-9)


def close_rgba(c: RGBA, expected, tol=1e-9) -> bool:
    return all(abs(p - q) <= tol for p, q in zip((c.r, c.g, c.b, c.a), expected))


# -- easing: keywords and cubic-bezier ------------------------------------------------------------


def test_reference_bezier_matches_a_known_value():
    # Sanity of the reference itself: 'ease' at 0.5 is 0.8024033877... (Blink, WebKit, Gecko).
    assert bezier_reference(0.25, 0.1, 0.25, 1.0, 0.5) == pytest.approx(0.8024033877399112, abs=1e-8)
    assert bezier_reference(0.42, 0.0, 0.58, 1.0, 0.5) == pytest.approx(0.5, abs=1e-12)  # symmetric curve


@pytest.mark.parametrize("x", [0.0, 0.1, 0.25, 1 / 3, 0.5, 0.9, 1.0])
def test_linear_is_identity(x):
    assert parse_easing("linear")(x) == approx(x)


KEYWORD_CURVES = {
    "ease": (0.25, 0.1, 0.25, 1.0),
    "ease-in": (0.42, 0.0, 1.0, 1.0),
    "ease-out": (0.0, 0.0, 0.58, 1.0),
    "ease-in-out": (0.42, 0.0, 0.58, 1.0),
}
SAMPLE_X = [0.01, 0.05, 0.1, 0.2, 0.25, 0.33, 0.4, 0.5, 0.6, 0.67, 0.75, 0.8, 0.9, 0.95, 0.99]


@pytest.mark.parametrize("name", sorted(KEYWORD_CURVES))
def test_keyword_easings_match_their_cubic_bezier(name):
    easing = parse_easing(name)
    params = KEYWORD_CURVES[name]
    assert easing(0.0) == 0.0 and easing(1.0) == 1.0
    for x in SAMPLE_X:
        assert easing(x) == pytest.approx(bezier_reference(*params, x), abs=1e-7), f"{name} at {x}"
    # ...and the same as writing the curve out.
    spelled = parse_easing("cubic-bezier({}, {}, {}, {})".format(*params))
    assert all(spelled(x) == pytest.approx(easing(x), abs=1e-12) for x in SAMPLE_X)


def test_keyword_easings_are_case_insensitive():
    assert parse_easing("EASE-In")(0.5) == pytest.approx(bezier_reference(0.42, 0, 1, 1, 0.5), abs=1e-7)


@pytest.mark.parametrize(
    "params",
    [
        (0.3, -0.6, 0.7, 1.6),  # overshoots both ends
        (0.5, -1.0, 0.5, 2.0),
        (0.1, 0.7, 1.0, 0.1),
        (1.0, 0.0, 0.0, 1.0),  # x'(t) = 0 at t = 0.5: Newton must fall back
        (0.0, 1.0, 1.0, 0.0),
        (0.0, 0.0, 1.0, 1.0),
    ],
)
def test_cubic_bezier_matches_reference(params):
    easing = parse_easing("cubic-bezier({}, {}, {}, {})".format(*params))
    # Where x'(t) = 0 (x = 0.5 on the (1, 0, 0, 1) curves) dy/dx is infinite and any
    # solver's y is only good to ~1e-5; elsewhere both agree to 1e-7.
    tol = 1e-5 if params[0] == 1.0 and params[2] == 0.0 else 1e-7
    for x in SAMPLE_X + [0.001, 0.4999, 0.5001, 0.999]:
        assert easing(x) == pytest.approx(bezier_reference(*params, x), abs=tol), f"{params} at {x}"
    assert easing(0.0) == 0.0 and easing(1.0) == 1.0


def test_cubic_bezier_y_outside_unit_interval_overshoots():
    easing = parse_easing("cubic-bezier(0.3, -0.6, 0.7, 1.6)")
    values = [easing(i / 100) for i in range(101)]
    assert min(values) < -0.05, "dips below 0 near the start"
    assert max(values) > 1.05, "overshoots 1 near the end"
    assert values[0] == 0.0 and values[-1] == 1.0


def test_overshooting_easing_is_not_clamped_for_transforms():
    scene, layer = one_layer(RED + "; transform-origin: 0 0")
    layer.animate(
        {"from": {"transform": "translateX(0px)"}, "to": {"transform": "translateX(40px)"}},
        duration=1, easing="cubic-bezier(0.3, -0.6, 0.7, 1.6)",
    )
    for x in (0.1, 0.9):
        expected = 40 * bezier_reference(0.3, -0.6, 0.7, 1.6, x)
        assert_matrix(layer_to_target(scene, "card", x), T(10 + expected, 20), 1e-5, f"t={x}")
    assert bezier_reference(0.3, -0.6, 0.7, 1.6, 0.1) < 0 < 1 < bezier_reference(0.3, -0.6, 0.7, 1.6, 0.9)


# -- easing: steps() ------------------------------------------------------------------------------

STEP_X = [0.0, 0.1, 0.3, 1 / 3, 0.34, 0.5, 0.66, 2 / 3, 0.7, 0.99, 1.0]


def steps_reference(n: int, position: str, x: float) -> float:
    """The CSS Easing 1 step function (no before flag), written from the spec's tables."""
    # Interval of x the output is in: which of the n equal intervals, closed on the left.
    k = min(int(math.floor(x * n + 1e-12)), n)  # 0..n (n only at x == 1)
    if position == "jump-start":
        return min(k + 1, n) / n
    if position == "jump-end":
        return k / n
    if position == "jump-none":
        return min(k, n - 1) / (n - 1)
    if position == "jump-both":
        return min(k + 1, n + 1) / (n + 1)
    raise AssertionError(position)


@pytest.mark.parametrize(
    "text, n, position",
    [
        ("steps(3, jump-start)", 3, "jump-start"),
        ("steps(3, start)", 3, "jump-start"),
        ("steps(3, jump-end)", 3, "jump-end"),
        ("steps(3, end)", 3, "jump-end"),
        ("steps(3)", 3, "jump-end"),
        ("steps(3, jump-none)", 3, "jump-none"),
        ("steps(3, jump-both)", 3, "jump-both"),
        ("steps(4, jump-both)", 4, "jump-both"),
        ("steps(2, jump-none)", 2, "jump-none"),
        ("steps(1, jump-both)", 1, "jump-both"),
    ],
)
def test_steps_follow_the_spec_step_function(text, n, position):
    easing = parse_easing(text)
    for x in STEP_X:
        assert easing(x) == approx(steps_reference(n, position, x)), f"{text} at {x}"


def test_steps_tables_from_the_css_easing_examples():
    # steps(3, ...) on [0, 1): the output levels per third (CSS Easing 1 §3.1 figures).
    table = {
        "jump-start": (1 / 3, 2 / 3, 1.0, 1.0),
        "jump-end": (0.0, 1 / 3, 2 / 3, 1.0),
        "jump-none": (0.0, 0.5, 1.0, 1.0),
        "jump-both": (0.25, 0.5, 0.75, 1.0),
    }
    for position, (first, second, third, at_one) in table.items():
        e = parse_easing(f"steps(3, {position})")
        assert [e(0.0), e(0.2), e(0.5), e(0.8), e(1.0)] == [
            approx(first), approx(first), approx(second), approx(third), approx(at_one)
        ], position


def test_step_start_and_step_end():
    start, end = parse_easing("step-start"), parse_easing("step-end")
    assert [start(x) for x in (0.0, 0.01, 0.5, 0.99, 1.0)] == [1.0] * 5
    assert [end(x) for x in (0.0, 0.01, 0.5, 0.99)] == [0.0] * 4
    assert end(1.0) == 1.0
    assert start == parse_easing("steps(1, start)") and end == parse_easing("steps(1, end)")


@pytest.mark.parametrize(
    "text",
    [
        "cubic-bezier(1.1, 0, 0.5, 1)",
        "cubic-bezier(-0.1, 0, 0.5, 1)",
        "cubic-bezier(0.5, 0, 1.5, 1)",
        "cubic-bezier(0.5, 0, -0.01, 1)",
        "cubic-bezier(0.1, 0.2, 0.3)",
        "cubic-bezier(0.1, 0.2, 0.3, 0.4, 0.5)",
        "cubic-bezier(a, 0, 1, 1)",
        "steps(0)",
        "steps(-2, end)",
        "steps(1, jump-none)",
        "steps(2.5)",
        "steps(2, middle)",
        "steps()",
        "bounce",
        "ease-inn",
        "linear linear",
        "",
    ],
)
def test_easing_parse_errors_are_invalid_value_errors(text):
    with pytest.raises(InvalidValueError):
        parse_easing(text)


def test_non_text_easing_is_an_invalid_value_error():
    with pytest.raises(InvalidValueError):
        parse_easing(42)  # type: ignore[arg-type]


# -- timing ----------------------------------------------------------------------------------------


def test_duration_as_seconds_and_css_time_strings():
    assert fade(duration=2).duration == 2.0
    assert fade(duration=0.5).duration == 0.5
    assert fade(duration="250ms").duration == pytest.approx(0.25)
    assert fade(duration="2s").duration == 2.0
    assert fade(duration="1.5S").duration == 1.5
    assert parse_time("250ms", "duration") == pytest.approx(0.25)
    assert parse_time(" 2s ", "delay") == 2.0
    # The strings mean the same time as the numbers when sampling.
    assert opacity(fade(duration="250ms"), 0.125) == approx(0.5)
    assert opacity(fade(duration="2s"), 0.5) == approx(0.25)


def test_delay_shifts_the_active_interval():
    a = fade(duration=2, delay=1)
    assert opacity(a, 0.5) is None
    assert opacity(a, 1.0) == approx(0.0)
    assert opacity(a, 2.0) == approx(0.5)
    assert opacity(a, 2.5) == approx(0.75)
    assert opacity(a, 3.0) is None
    b = fade(duration=1, delay="500ms")
    assert opacity(b, 0.75) == approx(0.25)


def test_negative_delay_starts_part_way_through():
    a = fade(duration=1, delay="-0.25s")
    assert opacity(a, 0.0) == approx(0.25)
    assert opacity(a, 0.5) == approx(0.75)
    assert opacity(a, 0.75) is None


@pytest.mark.parametrize(
    "fill, before, after",
    [
        ("none", None, None),
        ("forwards", None, 1.0),
        ("backwards", 0.0, None),
        ("both", 0.0, 1.0),
    ],
)
def test_fill_modes_before_and_after_the_active_interval(fill, before, after):
    a = fade(duration=2, delay=1, fill=fill)
    for t in (-5.0, 0.0, 0.999):
        assert opacity(a, t) == (None if before is None else approx(before)), f"before, t={t}"
    assert opacity(a, 1.0) == approx(0.0)
    assert opacity(a, 2.0) == approx(0.5)
    for t in (3.0, 3.5, 100.0):
        assert opacity(a, t) == (None if after is None else approx(after)), f"after, t={t}"


@pytest.mark.parametrize(
    "direction, before, after",
    [
        # Backwards fill shows iteration 0's start; forwards fill the end of the last
        # iteration (iteration 1 of 2 here), both after the direction is applied.
        ("normal", 0.0, 1.0),
        ("reverse", 1.0, 0.0),
        ("alternate", 0.0, 0.0),
        ("alternate-reverse", 1.0, 1.0),
    ],
)
def test_fill_values_follow_the_direction(direction, before, after):
    a = fade(duration=1, delay=1, iterations=2, direction=direction, fill="both")
    assert opacity(a, 0.0) == approx(before)
    assert opacity(a, 10.0) == approx(after)


@pytest.mark.parametrize(
    "direction, expected",
    [
        ("normal", [0.25, 0.25, 0.25, 0.25]),
        ("reverse", [0.75, 0.75, 0.75, 0.75]),
        ("alternate", [0.25, 0.75, 0.25, 0.75]),
        ("alternate-reverse", [0.75, 0.25, 0.75, 0.25]),
    ],
)
def test_direction_and_iteration_parity(direction, expected):
    a = fade(duration=2, iterations=4, direction=direction)
    got = [opacity(a, 2 * k + 0.5) for k in range(4)]
    assert got == [approx(v) for v in expected]


def test_easing_applies_after_the_direction():
    # Directed progress at t = 0.25 of a reversed iteration is 0.75; the timing function
    # maps that (not 1 - ease-in(0.25)).
    a = fade(duration=1, direction="reverse", easing="ease-in")
    expected = bezier_reference(0.42, 0.0, 1.0, 1.0, 0.75)
    assert opacity(a, 0.25) == pytest.approx(expected, abs=1e-7)
    assert abs(expected - (1 - bezier_reference(0.42, 0.0, 1.0, 1.0, 0.25))) > 0.05


def test_animation_easing_applies_per_iteration():
    a = fade(duration=1, iterations=3, easing="ease-out")
    for k in range(3):
        assert opacity(a, k + 0.3) == pytest.approx(bezier_reference(0.0, 0.0, 0.58, 1.0, 0.3), abs=1e-7)
    s = fade(duration=1, easing="steps(4)")
    assert [opacity(s, t) for t in (0.0, 0.2, 0.3, 0.6, 0.99)] == [approx(v) for v in (0, 0, 0.25, 0.5, 0.75)]


def test_fractional_iterations():
    a = fade(duration=1, iterations=1.5)
    assert opacity(a, 1.25) == approx(0.25)
    assert opacity(a, 1.5) is None
    assert a.is_active(1.49) and not a.is_active(1.5)
    f = fade(duration=1, iterations=1.5, fill="forwards")
    assert opacity(f, 7.0) == approx(0.5), "ends half way through the second iteration"
    # The last (partial) iteration's parity decides its direction.
    assert opacity(fade(duration=1, iterations=1.25, direction="alternate", fill="forwards"), 5) == approx(0.75)
    assert opacity(fade(duration=1, iterations=2.25, direction="alternate", fill="forwards"), 5) == approx(0.25)


def test_zero_iterations():
    a = fade(duration=1, iterations=0)
    for t in (-1.0, 0.0, 0.5, 2.0):
        assert opacity(a, t) is None
        assert not a.is_active(t)
    f = fade(duration=1, iterations=0, fill="forwards")
    assert opacity(f, 0.0) == approx(0.0), "the after phase shows the start of iteration 0"
    assert opacity(fade(duration=1, iterations=0, fill="forwards", direction="reverse"), 3.0) == approx(1.0)
    b = fade(duration=1, iterations=0, delay=1, fill="backwards")
    assert opacity(b, 0.0) == approx(0.0)
    assert opacity(b, 1.0) is None


def test_infinite_iterations():
    a = fade(duration=2, iterations="infinite")
    assert math.isinf(a.iterations)
    assert opacity(a, 0.5) == approx(0.25)
    assert opacity(a, 2000.5) == approx(0.25)
    assert a.is_active(1e6)
    alt = fade(duration=2, iterations="infinite", direction="alternate", fill="forwards")
    assert opacity(alt, 2 * 1001 + 0.5) == approx(0.75), "odd iteration runs backwards"
    assert opacity(alt, 2 * 1000 + 0.5) == approx(0.25)
    assert opacity(fade(duration=1, iterations="INFINITE"), 3.5) == approx(0.5)


def test_zero_duration():
    assert opacity(fade(duration=0), 0.0) is None
    assert opacity(fade(duration=0, fill="forwards"), 0.0) == approx(1.0)
    assert opacity(fade(duration=0, fill="backwards", delay=1), 0.5) == approx(0.0)
    assert opacity(fade(duration=0, iterations=3, direction="alternate", fill="forwards"), 1) == approx(1.0)
    assert opacity(fade(duration=0, iterations=2, direction="alternate", fill="forwards"), 1) == approx(0.0)


def test_zero_duration_infinite_iterations_without_fill_has_no_effect():
    # Web Animations: the active duration is 0 whenever the iteration duration is 0
    # (even with infinite iterations), so t >= delay is the after phase and, without a
    # forwards fill, the animation has no effect.
    a = fade(duration=0, iterations="infinite")
    assert not a.is_active(1.0)
    assert opacity(a, 1.0) is None, f"got opacity {opacity(a, 1.0)}; expected no effect"
    assert opacity(fade(duration=0, iterations="infinite", fill="forwards"), 1.0) == approx(1.0)


def test_is_active():
    a = fade(duration=2, delay=1)
    assert [a.is_active(t) for t in (0.0, 0.99, 1.0, 2.0, 2.99, 3.0, 4.0)] == [
        False, False, True, True, True, False, False
    ]


def test_plan_defaults_to_t_zero_and_samples_draw_opacity():
    scene, layer = one_layer()
    layer.animate({"from": {"opacity": "0.2"}, "to": {"opacity": "0.6"}}, duration=2, delay=1, fill="backwards")
    assert draws(scene.plan(), "card")[0].opacity == approx(0.2)
    assert draw_of(scene, "card", 2.0).opacity == approx(0.4)
    assert draw_of(scene, "card", 2.5).opacity == approx(0.5)
    assert draw_of(scene, "card", 5.0).opacity == approx(1.0), "no fill forwards: back to the layer's own opacity"


def test_animation_to_zero_opacity_skips_the_draw():
    scene, layer = one_layer()
    layer.animate({"from": {"opacity": "1"}, "to": {"opacity": "0"}}, duration=1, fill="forwards")
    assert draws(scene.plan(t=0.5), "card")
    assert draws(scene.plan(t=1.0), "card") == []


# -- interpolation: opacity, colours ------------------------------------------------------------


def test_opacity_interpolates_linearly():
    scene, layer = one_layer(RED + "; opacity: 0.9")
    layer.animate({"0%": {"opacity": "0.2"}, "100%": {"opacity": "60%"}}, duration=4)
    for t, expected in ((0, 0.2), (1, 0.3), (2, 0.4), (3, 0.5)):
        assert draw_of(scene, "card", t).opacity == approx(expected)
    assert draw_of(scene, "card", 4).opacity == approx(0.9)


def test_colours_interpolate_premultiplied():
    scene, layer = one_layer()
    layer.animate({"from": {"background-color": "red"}, "to": {"background-color": "transparent"}}, duration=1)
    c = style_at(scene, "card", 0.5).background_color
    assert close_rgba(c, (1.0, 0.0, 0.0, 0.5)), f"red -> transparent stays red and fades, got {c}"
    c = style_at(scene, "card", 0.75).background_color
    assert close_rgba(c, (1.0, 0.0, 0.0, 0.25)), c
    # The raster pass paints the premultiplied value.
    assert raster_of(scene, "card", 0.5).paint.background == pytest.approx((0.5, 0.0, 0.0, 0.5), abs=1e-9)


def test_colours_with_different_alphas_interpolate_premultiplied():
    scene, layer = one_layer()
    layer.animate({"from": {"background-color": "red"}, "to": {"background-color": "rgb(0 0 255 / 50%)"}}, duration=1)
    # premultiplied: (1, 0, 0, 1) and (0, 0, 0.5, 0.5) -> half way (0.5, 0, 0.25, 0.75)
    c = style_at(scene, "card", 0.5).background_color
    assert close_rgba(c, (2 / 3, 0.0, 1 / 3, 0.75)), c
    assert raster_of(scene, "card", 0.5).paint.background == pytest.approx((0.5, 0.0, 0.25, 0.75), abs=1e-9)
    # from transparent: the colour is the end colour all along, only alpha changes
    scene2, layer2 = one_layer()
    layer2.animate({"from": {"background-color": "transparent"}, "to": {"background-color": "blue"}}, duration=1)
    assert close_rgba(style_at(scene2, "card", 0.25).background_color, (0.0, 0.0, 1.0, 0.25))


def test_opaque_colours_interpolate_per_channel():
    scene, layer = one_layer()
    layer.animate({"from": {"background-color": "red"}, "to": {"background-color": "blue"}}, duration=2)
    assert close_rgba(style_at(scene, "card", 1.0).background_color, (0.5, 0.0, 0.5, 1.0))
    assert close_rgba(style_at(scene, "card", 0.5).background_color, (0.75, 0.0, 0.25, 1.0))


def test_currentcolor_interpolates_as_a_colour():
    # A border's default colour is currentcolor (here red); animating it to blue must
    # blend through purple (CSS Color 4), not jump at 50%.
    scene, layer = one_layer("color: red; border: 4px solid; background-color: white")
    layer.animate({"to": {"border-color": "blue"}}, duration=1)
    c = style_at(scene, "card", 0.5).used_border_color
    assert close_rgba(c, (0.5, 0.0, 0.5, 1.0)), f"got {c}, expected rgb(50% 0% 50%)"


def test_animated_inherited_property_reaches_children():
    scene = Scene(50, 50)
    parent = scene.root.add(Layer("p", (0, 0, 40, 40), "color: red"))
    parent.add(Layer("c", (5, 5, 10, 10), "border: 2px solid"))
    parent.animate({"from": {"color": "red"}, "to": {"color": "blue"}}, duration=1)
    assert close_rgba(style_at(scene, "c", 0.5).color, (0.5, 0.0, 0.5, 1.0))
    assert close_rgba(style_at(scene, "c", 0.5).used_border_color, (0.5, 0.0, 0.5, 1.0))


# -- interpolation: transforms ------------------------------------------------------------------


def animated_transform(frm: str, to: str, box=(10, 20, 40, 20), origin="0 0", **options) -> Scene:
    scene, layer = one_layer(f"{RED}; transform-origin: {origin}", box)
    options.setdefault("fill", "forwards")
    layer.animate({"from": {"transform": frm}, "to": {"transform": to}}, duration=1, **options)
    return scene


def local_matrix(scene: Scene, t: float, box=(10, 20, 40, 20)):
    """The layer's own transform at t: the draw's matrix without the box offset."""
    return mul(T(-box[0], -box[1]), layer_to_target(scene, "card", t))


@pytest.mark.parametrize(
    "frm, to, expected",
    [
        ("translate(0px, 0px)", "translate(40px, -20px)", lambda t: T(40 * t, -20 * t)),
        ("translateX(-10px)", "translateX(30px)", lambda t: T(-10 + 40 * t, 0)),
        # box 40 x 20: 50% of the width is 20px, 100% of the height 20px
        ("translate(0%, 0%)", "translate(50%, 100%)", lambda t: T(20 * t, 20 * t)),
        ("translate(10px)", "translate(50%)", lambda t: T(10 + (20 - 10) * t, 0)),
        ("rotate(0deg)", "rotate(90deg)", lambda t: R(90 * t)),
        ("rotate(0deg)", "rotate(720deg)", lambda t: R(720 * t)),  # pairwise: no short way
        ("rotate(-0.25turn)", "rotate(0.25turn)", lambda t: R(-90 + 180 * t)),
        ("scale(1)", "scale(3, 5)", lambda t: S(1 + 2 * t, 1 + 4 * t)),
        (
            "translate(0px) rotate(0deg) scale(1)",
            "translate(20px, 10px) rotate(60deg) scale(2)",
            lambda t: chain(T(20 * t, 10 * t), R(60 * t), S(1 + t)),
        ),
        ("none", "translate(20px) rotate(90deg)", lambda t: chain(T(20 * t), R(90 * t))),
        ("rotate(90deg) scale(2)", "none", lambda t: chain(R(90 * (1 - t)), S(2 - t))),
    ],
)
def test_matching_transform_lists_interpolate_pairwise(frm, to, expected):
    scene = animated_transform(frm, to)
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        assert_matrix(local_matrix(scene, t), expected(t), 1e-9, f"{frm} -> {to} at {t}")


def test_pairwise_rotation_keeps_angles_beyond_a_turn():
    scene = animated_transform("rotate(0deg)", "rotate(720deg)")
    assert_matrix(local_matrix(scene, 0.25), affine(-1, 0, 0, -1), 1e-9, "rotate(180deg)")


def test_pairwise_transform_rotates_about_the_transform_origin():
    box = (10, 20, 40, 20)
    scene = animated_transform("rotate(0deg)", "rotate(90deg)", box, origin="50% 50%")
    about_centre = chain(T(10 + 20, 20 + 10), R(45), T(-20, -10))
    assert_matrix(layer_to_target(scene, "card", 0.5), about_centre, 1e-9)


# Mismatched lists interpolate the decomposed matrices. The endpoint matrices here have
# no skew, so (CSS Transforms 1 §9 "unmatrix") the interpolated matrix is
# translate(lerp) rotate(lerp angle, the short way) scale(lerp).
MATRIX = chain(T(30, 10), R(60), S(2, 0.5))


@pytest.mark.parametrize(
    "frm, to, start, end, expected",
    [
        (
            "rotate(0deg)",
            "matrix({}, {}, {}, {}, {}, {})".format(*MATRIX),
            affine(),
            MATRIX,
            lambda t: chain(T(30 * t, 10 * t), R(60 * t), S(1 + t, 1 - 0.5 * t)),
        ),
        (
            "translate(10px) rotate(90deg)",
            "rotate(90deg) translate(10px)",
            chain(T(10), R(90)),
            chain(R(90), T(10)),  # = translate(0, 10px) rotate(90deg)
            lambda t: chain(T(10 * (1 - t), 10 * t), R(90)),
        ),
        (
            "rotate(10deg)",
            "rotate(350deg) scale(1)",  # different lists: the decomposed angle goes the short way
            R(10),
            R(350),
            lambda t: R(10 - 20 * t),
        ),
        (
            "translate(50%, 100%)",  # percentages resolve against the 40 x 20 box
            "rotate(90deg) translate(0px)",
            T(20, 20),
            R(90),
            lambda t: chain(T(20 * (1 - t), 20 * (1 - t)), R(90 * t)),
        ),
        (
            "scale(2)",
            "matrix(1, 0, 0, 1, 40, 0)",
            S(2),
            T(40),
            lambda t: chain(T(40 * t), S(2 - t)),
        ),
    ],
)
def test_mismatched_transform_lists_interpolate_decomposed_matrices(frm, to, start, end, expected):
    scene = animated_transform(frm, to)
    assert_matrix(local_matrix(scene, 0.0), start, 1e-9, f"{frm} at 0")
    assert_matrix(local_matrix(scene, 1.0), end, 1e-9, f"{to} at 1")
    for t in (0.25, 0.5, 0.75):
        assert_matrix(local_matrix(scene, t), expected(t), 1e-9, f"{frm} -> {to} at {t}")


def test_mismatched_lists_apply_the_transform_origin_around_the_result():
    box = (10, 20, 40, 20)
    scene = animated_transform("translate(10px) rotate(90deg)", "rotate(90deg) translate(10px)", box, origin="50% 50%")
    mid = chain(T(5, 5), R(90))
    expected = chain(T(10, 20), T(20, 10), mid, T(-20, -10))
    assert_matrix(layer_to_target(scene, "card", 0.5), expected, 1e-9)


# -- interpolation: filters ---------------------------------------------------------------------


def animated_filter(frm: str, to: str) -> Scene:
    scene, layer = one_layer()
    layer.animate({"from": {"filter": frm}, "to": {"filter": to}}, duration=1)
    return scene


@pytest.mark.parametrize(
    "frm, to, t, expected",
    [
        ("blur(0)", "blur(4px)", 0.25, "blur(1px)"),
        ("blur(0px)", "blur(4px)", 0.5, "blur(2px)"),
        ("none", "sepia(1)", 0.5, "sepia(0.5)"),
        ("none", "sepia(1)", 0.25, "sepia(0.25)"),
        ("sepia(1)", "none", 0.25, "sepia(0.75)"),
        ("grayscale(0) opacity(1)", "grayscale(1) opacity(0.5)", 0.5, "grayscale(0.5) opacity(0.75)"),
        ("blur(2px)", "blur(4px) sepia(1)", 0.5, "blur(3px) sepia(0.5)"),  # shorter list padded
        ("hue-rotate(0deg)", "hue-rotate(360deg)", 0.5, "hue-rotate(180deg)"),
        ("blur(2px)", "sepia(1)", 0.49, "blur(2px)"),  # different functions: discrete
        ("blur(2px)", "sepia(1)", 0.5, "sepia(1)"),
    ],
)
def test_filters_interpolate(frm, to, t, expected):
    got = style_at(animated_filter(frm, to), "card", t).filter
    assert got == filters.parse(expected), f"{frm} -> {to} at {t}: got {got}"


def test_filter_animation_appears_in_the_plan():
    scene = animated_filter("blur(0px)", "blur(4px)")
    assert scene.plan(t=0.5).filter_passes(), "blur(2px) at t=0.5 needs filter passes"
    assert scene.plan(t=2.0).filter_passes() == [], "after the animation (no fill) the layer has no filter"


# -- keyframes: implicit ends, own easing, inherit ----------------------------------------------


def test_implicit_keyframes_use_the_layers_own_style():
    scene, layer = one_layer(RED + "; opacity: 0.2")
    layer.animate({"50%": {"opacity": "1"}}, duration=1)
    for t, expected in ((0.0, 0.2), (0.25, 0.6), (0.5, 1.0), (0.75, 0.6), (0.99, 0.2 + 0.8 * 0.02)):
        assert draw_of(scene, "card", t).opacity == approx(expected), t


def test_implicit_from_keyframe_follows_style_changes():
    scene, layer = one_layer(RED + "; opacity: 0.2")
    layer.animate({"to": {"opacity": "1"}}, duration=1)
    assert draw_of(scene, "card", 0.5).opacity == approx(0.6)
    layer.style["opacity"] = "0.6"
    assert draw_of(scene, "card", 0.5).opacity == approx(0.8)


def test_implicit_keyframes_for_transforms():
    scene, layer = one_layer(RED + "; transform-origin: 0 0; transform: rotate(90deg)")
    layer.animate({"to": {"transform": "rotate(180deg)"}}, duration=1)
    assert_matrix(local_matrix(scene, 0.5), R(135), 1e-9)


def test_keyframes_with_their_own_easing():
    scene, layer = one_layer()
    layer.animate(
        {
            "0%": {"opacity": "0.2", "easing": "step-end"},
            "50%": {"opacity": "0.6"},
            "100%": {"opacity": "1"},
        },
        duration=1,
    )
    # The first segment holds its start value (step-end), the second is linear.
    assert draw_of(scene, "card", 0.25).opacity == approx(0.2)
    assert draw_of(scene, "card", 0.49).opacity == approx(0.2)
    assert draw_of(scene, "card", 0.75).opacity == approx(0.8)


def test_keyframe_easing_is_applied_within_its_segment():
    a = Animation.create(
        {"from": {"opacity": "0", "animation-timing-function": "ease-in"}, "to": {"opacity": "1"}},
        duration=2,
    )
    assert a.keyframes[0].easing is not None
    assert opacity(a, 0.6) == pytest.approx(bezier_reference(0.42, 0, 1, 1, 0.3), abs=1e-7)


def test_keyframe_easing_combines_with_animation_easing():
    # The animation's steps(2) maps time first; the keyframe's ease-out then maps the
    # segment progress.
    a = Animation.create(
        {"from": {"opacity": "0", "easing": "ease-out"}, "to": {"opacity": "1"}},
        duration=1, easing="steps(2, jump-end)",
    )
    assert opacity(a, 0.3) == approx(0.0)
    assert opacity(a, 0.7) == pytest.approx(bezier_reference(0, 0, 0.58, 1, 0.5), abs=1e-7)


def test_inherit_in_a_keyframe_uses_the_inherited_value():
    # The child has no colour of its own, so its colour is the parent's: both readings
    # of 'inherit' agree here.
    scene = Scene(50, 50)
    parent = scene.root.add(Layer("p", (0, 0, 40, 40), "color: blue"))
    child = parent.add(Layer("c", (0, 0, 10, 10), RED))
    child.animate({"from": {"color": "inherit"}, "to": {"color": "red"}}, duration=1)
    assert close_rgba(style_at(scene, "c", 0.0).color, (0.0, 0.0, 1.0, 1.0))
    assert close_rgba(style_at(scene, "c", 0.5).color, (0.5, 0.0, 0.5, 1.0))


def test_inherit_in_a_keyframe_is_the_parents_value_not_the_layers_own():
    # CSS: 'inherit' computes to the parent's computed value. The child's own values
    # (color: red, opacity: 1) must not be used.
    scene = Scene(50, 50)
    parent = scene.root.add(Layer("p", (0, 0, 40, 40), "color: blue; opacity: 0.5"))
    child = parent.add(Layer("c", (0, 0, 10, 10), RED + "; color: red"))
    child.animate({"from": {"color": "inherit", "opacity": "inherit"}, "to": {"color": "red", "opacity": "0"}},
                  duration=1)
    style = style_at(scene, "c", 0.0)
    assert close_rgba(style.color, (0.0, 0.0, 1.0, 1.0)), f"color at t=0: got {style.color}, expected blue (parent's)"
    assert style.opacity == approx(0.5), f"opacity at t=0: got {style.opacity}, expected the parent's 0.5"


def test_later_animation_wins_and_sees_the_earlier_one_as_underlying():
    scene, layer = one_layer()
    layer.animate({"from": {"opacity": "0"}, "to": {"opacity": "1"}}, duration=1)
    layer.animate({"to": {"opacity": "0"}}, duration=1)
    # Underlying for the second animation at t = 0.5 is 0.5 (the first's result).
    assert draw_of(scene, "card", 0.5).opacity == approx(0.25)
    layer.animate({"from": {"opacity": "0.7"}, "to": {"opacity": "0.7"}}, duration=1)
    assert draw_of(scene, "card", 0.5).opacity == approx(0.7)


# -- API and errors ------------------------------------------------------------------------------


def test_animate_returns_the_animation_and_marks_the_scene_changed():
    scene, layer = one_layer()
    version = scene.version
    anim = layer.animate({"to": {"opacity": "0"}}, duration="2s", delay="250ms", easing="ease",
                         iterations=3, direction="alternate", fill="both", name="fade")
    assert isinstance(anim, Animation)
    assert layer.animations == [anim]
    assert scene.version > version
    assert (anim.duration, anim.delay, anim.iterations, anim.direction, anim.fill, anim.name) == (
        2.0, pytest.approx(0.25), 3.0, "alternate", "both", "fade"
    )
    assert anim.properties == frozenset({"opacity"})


def test_keyframes_as_a_list_with_offsets():
    scene, layer = one_layer()
    layer.animate([{"offset": 0, "opacity": "0"}, {"offset": "50%", "opacity": "1"}, {"offset": 1.0, "opacity": "0"}],
                  duration=1)
    assert draw_of(scene, "card", 0.25).opacity == approx(0.5)
    assert draw_of(scene, "card", 0.75).opacity == approx(0.5)


BAD_OPTIONS = [
    # (keyframes, options, error type, property)
    ({}, {}, InvalidValueError, "keyframes"),
    ({"0%": {}}, {}, InvalidValueError, "keyframes"),
    ({"150%": {"opacity": "1"}}, {}, InvalidValueError, "keyframes"),
    ({"-10%": {"opacity": "1"}}, {}, InvalidValueError, "keyframes"),
    ({"half": {"opacity": "1"}}, {}, InvalidValueError, "keyframes"),
    ({"0%": "opacity: 1"}, {}, InvalidValueError, "keyframes"),
    (5, {}, InvalidValueError, "keyframes"),
    ([{"opacity": "1"}], {}, InvalidValueError, "keyframes"),
    ({"0%": {"opacity": "lots"}}, {}, InvalidValueError, "opacity"),
    ({"0%": {"transform": "rotate(10)"}}, {}, InvalidValueError, "transform"),
    ({"to": {"opacity": "0"}}, {"duration": -1}, InvalidValueError, "duration"),
    ({"to": {"opacity": "0"}}, {"duration": "-1s"}, InvalidValueError, "duration"),
    ({"to": {"opacity": "0"}}, {"duration": "fast"}, InvalidValueError, "duration"),
    ({"to": {"opacity": "0"}}, {"duration": "2"}, InvalidValueError, "duration"),
    ({"to": {"opacity": "0"}}, {"duration": None}, InvalidValueError, "duration"),
    ({"to": {"opacity": "0"}}, {"duration": True}, InvalidValueError, "duration"),
    ({"to": {"opacity": "0"}}, {"duration": math.nan}, InvalidValueError, "duration"),
    ({"to": {"opacity": "0"}}, {"duration": math.inf}, InvalidValueError, "duration"),
    ({"to": {"opacity": "0"}}, {"delay": "soon"}, InvalidValueError, "delay"),
    ({"to": {"opacity": "0"}}, {"delay": math.inf}, InvalidValueError, "delay"),
    ({"to": {"opacity": "0"}}, {"iterations": -1}, InvalidValueError, "iterations"),
    ({"to": {"opacity": "0"}}, {"iterations": "forever"}, InvalidValueError, "iterations"),
    ({"to": {"opacity": "0"}}, {"iterations": True}, InvalidValueError, "iterations"),
    ({"to": {"opacity": "0"}}, {"iterations": math.nan}, InvalidValueError, "iterations"),
    ({"to": {"opacity": "0"}}, {"iterations": None}, InvalidValueError, "iterations"),
    ({"to": {"opacity": "0"}}, {"direction": "sideways"}, InvalidValueError, "direction"),
    ({"to": {"opacity": "0"}}, {"direction": None}, InvalidValueError, "direction"),
    ({"to": {"opacity": "0"}}, {"fill": "forward"}, InvalidValueError, "fill"),
    ({"to": {"opacity": "0"}}, {"easing": "bouncy"}, InvalidValueError, None),
    ({"to": {"opacity": "0"}}, {"easing": "steps(0)"}, InvalidValueError, None),
]


@pytest.mark.parametrize("keyframes, options, error, prop", BAD_OPTIONS)
def test_bad_animations_raise_typed_errors_naming_the_layer(keyframes, options, error, prop):
    scene, layer = one_layer()
    version = scene.version
    options = {"duration": 1, **options}
    with pytest.raises(error) as info:
        layer.animate(keyframes, **options)
    err = info.value
    assert isinstance(err, LaminaInputError) and isinstance(err, StyleError)
    assert err.layer == "card" and "'card'" in str(err)
    if prop is not None:
        assert err.property == prop
    assert layer.animations == [] and scene.version == version, "a failed animate() changes nothing"


def test_unknown_property_in_a_keyframe():
    scene, layer = one_layer()
    with pytest.raises(UnknownPropertyError) as info:
        layer.animate({"0%": {"colour": "red"}, "100%": {"opacity": "0"}}, duration=1)
    assert info.value.property == "colour" and info.value.layer == "card"
    assert "'card'" in str(info.value) and "colour" in str(info.value)


# -- scene files ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def animated_scene_dict() -> dict:
    return {
        "lamina": 1,
        "width": 120,
        "height": 90,
        "background": "white",
        "layers": [
            {
                "id": "card",
                "box": [10, 10, 60, 40],
                "style": "background-color: red; opacity: 0.9",
                "animations": [
                    {
                        "keyframes": {
                            "0%": {"transform": "rotate(0deg)", "easing": "ease-in"},
                            "37.5%": {"opacity": 0.25},
                            "100%": {"transform": "rotate(90deg) translate(10px)"},
                        },
                        "duration": "2s",
                        "delay": "250ms",
                        "easing": "cubic-bezier(0.1, 0.7, 1, 0.1)",
                        "iterations": "infinite",
                        "direction": "alternate",
                        "fill": "both",
                        "name": "spin",
                    },
                    {
                        "keyframes": {"from": {"filter": "blur(0px)"}, "to": {"filter": "blur(4px) sepia(1)"}},
                        "duration": 0.5,
                        "iterations": 2.5,
                        "easing": "steps(4, start)",
                    },
                ],
                "children": [
                    {
                        "id": "dot",
                        "box": [5, 5, 10, 10],
                        "style": {"background-color": "blue"},
                        "animations": [
                            {"keyframes": {"to": {"background-color": "transparent"}}, "duration": 1,
                             "direction": "reverse"}
                        ],
                    }
                ],
            }
        ],
    }


def sampled(scene: Scene, t: float) -> list:
    graph = scene.plan(t=t)
    return [(d.layer_id, round(d.opacity, 9), tuple(round(v, 9) for v in d.transform.values()))
            for p in graph.composite_passes() for d in p.draws] + [
        (p.layer_id, p.paint.background) for p in graph.raster_passes()
    ] + [(p.layer_id, p.step.describe()) for p in graph.filter_passes()]


def test_scene_file_animations_round_trip(validator):
    original = animated_scene_dict()
    validator.validate(original)
    scene = scene_from_dict(copy.deepcopy(original))
    first = scene.to_dict()
    validator.validate(first)
    assert json.loads(json.dumps(first)) == first, "plain JSON: no inf/nan, no objects"
    again = scene_from_dict(copy.deepcopy(first))
    assert again.to_dict() == first
    anim = first["layers"][0]["animations"][0]
    assert anim["duration"] == 2.0 and anim["delay"] == pytest.approx(0.25)
    assert anim["iterations"] == "infinite" and anim["direction"] == "alternate" and anim["fill"] == "both"
    assert anim["name"] == "spin" and anim["easing"] == "cubic-bezier(0.1, 0.7, 1, 0.1)"
    assert anim["keyframes"]["0%"]["easing"] == "ease-in"
    assert first["layers"][0]["children"][0]["animations"][0]["direction"] == "reverse"
    for t in (0.0, 0.3, 0.8, 1.2, 2.9, 7.3):
        assert sampled(again, t) == sampled(scene, t), f"t={t}"


def test_api_built_animation_round_trips_and_validates(validator):
    scene, layer = one_layer()
    layer.animate({"from": {"opacity": "0"}, "50%": {"opacity": "0.5", "easing": "steps(3, jump-both)"}},
                  duration="750ms", iterations=0, fill="forwards")
    d = scene.to_dict()
    validator.validate(d)
    assert scene_from_dict(copy.deepcopy(d)).to_dict() == d


def test_round_trip_keeps_keyframes_that_share_an_offset():
    # Keyframes given as a list may set different properties at the same offset; the
    # scene file must keep all of them.
    scene, layer = one_layer()
    anim = layer.animate(
        [
            {"offset": 0, "opacity": "0", "transform": "translate(0px)"},
            {"offset": 1, "opacity": "0.5"},
            {"offset": 1, "transform": "translate(10px)"},
        ],
        duration=1,
    )
    assert draw_of(scene, "card", 0.5).opacity == approx(0.25)
    data = scene.to_dict()
    reloaded = scene_from_dict(copy.deepcopy(data))
    pairs = lambda a: sorted((f.offset, p, v) for f in a.keyframes for p, v in f.declarations)  # noqa: E731
    assert pairs(reloaded["card"].animations[0]) == pairs(anim), data["layers"][0]["animations"]
    assert sampled(reloaded, 0.5) == sampled(scene, 0.5)


def test_load_scene_file_with_animations(tmp_path):
    path = tmp_path / "anim.json"
    path.write_text(json.dumps(animated_scene_dict()), encoding="utf-8")
    scene = load_scene(path)
    assert len(scene["card"].animations) == 2 and len(scene["dot"].animations) == 1
    assert sampled(scene, 1.0) == sampled(scene_from_dict(animated_scene_dict()), 1.0)


def with_animation(spec, key: str = "animations") -> dict:
    return {"width": 50, "height": 50, "layers": [{"id": "a", "box": [0, 0, 10, 10], key: spec}]}


GOOD = {"keyframes": {"to": {"opacity": "0"}}, "duration": 1}

BAD_FILES = [
    # (animation spec or animations value, JSON path, also rejected by the schema)
    ({**GOOD, "duration": "-1s"}, "$.layers[0].animations[0].duration", False),
    ({**GOOD, "duration": -1}, "$.layers[0].animations[0].duration", False),
    ({**GOOD, "duration": "fast"}, "$.layers[0].animations[0].duration", False),
    ({**GOOD, "delay": "soon"}, "$.layers[0].animations[0].delay", False),
    ({**GOOD, "iterations": -1}, "$.layers[0].animations[0].iterations", True),
    ({**GOOD, "iterations": "forever"}, "$.layers[0].animations[0].iterations", True),
    ({**GOOD, "direction": "sideways"}, "$.layers[0].animations[0].direction", True),
    ({**GOOD, "fill": "forward"}, "$.layers[0].animations[0].fill", True),
    ({**GOOD, "keyframes": {"200%": {"opacity": "0"}}}, "$.layers[0].animations[0].keyframes['200%']", False),
    ({**GOOD, "keyframes": {"to": {"opacity": "lots"}}}, "$.layers[0].animations[0].keyframes['to'].opacity", False),
    ({**GOOD, "keyframes": [{"offset": 0, "opacity": 1}, {"opacity": 0}]}, "$.layers[0].animations[0].keyframes[1]", False),
    ({**GOOD, "keyframes": {}}, "$.layers[0].animations[0].keyframes", False),
    ({**GOOD, "speed": 2}, "$.layers[0].animations[0].speed", True),
    ({"keyframes": {"to": {"opacity": "0"}}}, "$.layers[0].animations[0]", True),
    ({"duration": 1}, "$.layers[0].animations[0]", True),
]


@pytest.mark.parametrize("spec, path, schema_rejects", BAD_FILES)
def test_scene_file_animation_errors_carry_json_paths(spec, path, schema_rejects, validator):
    data = with_animation([spec])
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(copy.deepcopy(data))
    assert info.value.path == path, str(info.value)
    assert isinstance(info.value, LaminaInputError)
    if schema_rejects:
        assert not validator.is_valid(data), "the schema rejects it too"


def test_scene_file_easing_error_points_at_the_easing_key():
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(with_animation([{**GOOD, "easing": "bouncy"}]))
    assert info.value.path == "$.layers[0].animations[0].easing", str(info.value)


def test_scene_file_animation_container_errors(validator):
    for value, path in (({}, "$.layers[0].animations"), ([5], "$.layers[0].animations[0]")):
        data = with_animation(value)
        with pytest.raises(SceneFileError) as info:
            scene_from_dict(copy.deepcopy(data))
        assert info.value.path == path
        assert not validator.is_valid(data)


def test_scene_file_unknown_property_in_keyframe_names_the_animation():
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(with_animation([{"keyframes": {"to": {"colour": "red"}}, "duration": 1}]))
    assert info.value.path.startswith("$.layers[0].animations[0]")
    assert "colour" in str(info.value)


def test_scene_file_error_path_in_a_nested_child():
    data = {
        "width": 50, "height": 50,
        "layers": [{"id": "a", "children": [{"id": "b", "animations": [GOOD, {**GOOD, "fill": "sometimes"}]}]}],
    }
    with pytest.raises(SceneFileError) as info:
        scene_from_dict(data)
    assert info.value.path == "$.layers[0].children[0].animations[1].fill"


# -- time must be finite ---------------------------------------------------------------------------


@pytest.mark.parametrize("t", [math.nan, math.inf, -math.inf])
def test_non_finite_time_is_an_error(t):
    scene, layer = one_layer()
    layer.animate({"to": {"opacity": "0"}}, duration=1)
    with pytest.raises(LaminaError):
        scene.plan(t=t)
    plain = Scene(10, 10)
    with pytest.raises(LaminaError):
        plain.plan(t=t)
