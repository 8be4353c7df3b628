"""Gradient geometry (CSS Images 3 §3), colour-stop fix-up (§3.5.3), transform matrices
(CSS Transforms 1) against an independent numpy implementation, and Affine algebra."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina.geometry import Affine
from lamina.style import Style
from lamina.style.gradients import linear_gradient_line, radial_gradient_radii, resolve_stops
from lamina.style.transforms import transform_matrix
from lamina.css.values import RGBA, LinearGradient, RadialGradient

GREEN = RGBA(0.0, 1.0, 0.0, 1.0)


def image(css_value: str):
    return Style({"background-image": css_value}).computed().background_image


def linear(args: str) -> LinearGradient:
    g = image(f"linear-gradient({args})")
    assert isinstance(g, LinearGradient)
    return g


def radial(args: str) -> RadialGradient:
    g = image(f"radial-gradient({args})")
    assert isinstance(g, RadialGradient)
    return g


# --------------------------------------------------------------------------------------
# resolve_stops: CSS Images 3 §3.5.3 colour-stop fix-up
# --------------------------------------------------------------------------------------

STOP_CASES = [
    # Missing first/last positions become 0% / 100%.
    ("red, blue", 100, [0.0, 1.0]),
    ("red 30%, blue", 100, [0.3, 1.0]),
    ("red, blue 70%", 100, [0.0, 0.7]),
    # Runs of unpositioned stops are spread evenly between their positioned neighbours.
    ("red, lime, blue", 100, [0.0, 0.5, 1.0]),
    ("red, lime, yellow, blue", 100, [0.0, 1 / 3, 2 / 3, 1.0]),
    ("red 20%, lime, blue 80%", 100, [0.2, 0.5, 0.8]),
    ("red 20%, lime, yellow, blue 80%", 100, [0.2, 0.4, 0.6, 0.8]),
    ("red 10%, lime, blue", 100, [0.1, 0.55, 1.0]),
    ("red, lime 40%, yellow, aqua, blue", 100, [0.0, 0.4, 0.6, 0.8, 1.0]),
    # A position smaller than an earlier one is clamped up to it.
    ("red 50%, blue 20%", 100, [0.5, 0.5]),
    ("red 40%, lime 10%, blue", 100, [0.4, 0.4, 1.0]),
    ("red 30%, lime, blue 10%", 100, [0.3, 0.3, 0.3]),
    ("red 60%, lime 20%, yellow, blue 90%", 100, [0.6, 0.6, 0.75, 0.9]),
    ("red, lime 150%, blue", 100, [0.0, 1.5, 1.5]),
    # Two-position stops, out-of-box positions, px positions against the line length.
    ("red 10% 30%, blue", 100, [0.1, 0.3, 1.0]),
    ("red -20%, blue 120%", 100, [-0.2, 1.2]),
    ("red 50px, blue", 200, [0.25, 1.0]),
    ("red, blue 150px", 100, [0.0, 1.5]),
    ("red 20px, lime 50%, blue", 200, [0.1, 0.5, 1.0]),
]


@pytest.mark.parametrize("stops, length, expected", STOP_CASES)
def test_resolve_stop_positions(stops, length, expected):
    got = resolve_stops(linear(stops).stops, length, GREEN)
    assert [s.position for s in got] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "stops, expected_hint",
    [
        ("red, blue", 0.5),  # no hint: linear interpolation
        ("red, 25%, blue", 0.25),
        ("red, 50%, blue", 0.5),
        ("red 20%, 30%, blue 60%", 0.25),  # (30 - 20) / (60 - 20)
        ("red 20%, 10%, blue 60%", 0.0),  # a hint before its stop clamps to the stop
        ("red 0%, 90%, blue 50%", 1.0),  # hint beyond the next stop clamps there
    ],
)
def test_resolve_hint_fractions(stops, expected_hint):
    got = resolve_stops(linear(stops).stops, 100, GREEN)
    assert got[0].hint == pytest.approx(expected_hint, abs=1e-12)
    assert got[-1].hint == 0.5


def test_hint_in_px_is_a_fraction_of_the_span():
    got = resolve_stops(linear("red, 50px, blue").stops, 200, GREEN)
    assert got[0].hint == pytest.approx(0.25)
    got = resolve_stops(linear("red 100px, 120px, blue 200px").stops, 400, GREEN)
    assert [s.position for s in got] == pytest.approx([0.25, 0.5])
    assert got[0].hint == pytest.approx(0.2)


def test_hints_take_part_in_monotonic_fixup():
    # §3.5.3 step 2: "a colour stop *or transition hint*" is clamped to the largest
    # position of any stop *or hint* before it, so blue moves up to the 80% hint.
    got = resolve_stops(linear("red 0%, 80%, blue 50%").stops, 100, GREEN)
    assert [s.position for s in got] == pytest.approx([0.0, 0.8])


def test_resolved_colours_are_premultiplied():
    got = resolve_stops(linear("rgba(255, 0, 0, 0.5), rgb(0 0 255 / 25%)").stops, 100, GREEN)
    assert got[0].color == pytest.approx((0.5, 0.0, 0.0, 0.5))
    assert got[1].color == pytest.approx((0.0, 0.0, 0.25, 0.25))


def test_currentcolor_stop_uses_given_colour():
    current = RGBA(0.2, 0.4, 0.6, 0.5)
    got = resolve_stops(linear("currentcolor, blue").stops, 100, current)
    assert got[0].color == pytest.approx((0.1, 0.2, 0.3, 0.5))
    assert got[1].color == pytest.approx((0.0, 0.0, 1.0, 1.0))


def test_resolved_positions_never_decrease(rng):
    for _ in range(50):
        n = int(rng.integers(2, 7))
        parts = []
        for i in range(n):
            if rng.random() < 0.5:
                parts.append(f"red {rng.uniform(-50, 150):.3f}%")
            else:
                parts.append("blue")
        got = resolve_stops(linear(", ".join(parts)).stops, 100, GREEN)
        positions = [s.position for s in got]
        assert all(b >= a for a, b in zip(positions, positions[1:])), (parts, positions)


# --------------------------------------------------------------------------------------
# linear_gradient_line (§3.1.1)
# --------------------------------------------------------------------------------------

W, H = 200.0, 100.0
CORNERS = np.array([(0, 0), (W, 0), (W, H), (0, H)], dtype=float)
CENTER = np.array([W / 2, H / 2])


def _line(args, w=W, h=H):
    start, direction, length = linear_gradient_line(linear(args), w, h)
    return np.array(start, dtype=float), np.array(direction, dtype=float), float(length)


def test_angle_90_on_wide_box():
    start, d, length = _line("90deg, red, blue")
    assert length == pytest.approx(200.0)
    assert d == pytest.approx([1.0, 0.0], abs=1e-12)
    assert start == pytest.approx([0.0, 50.0], abs=1e-9)


@pytest.mark.parametrize(
    "args, direction, length, start",
    [
        ("red, blue", (0, 1), 100, (100, 0)),  # default: to bottom
        ("to bottom, red, blue", (0, 1), 100, (100, 0)),
        ("0deg, red, blue", (0, -1), 100, (100, 100)),
        ("to top, red, blue", (0, -1), 100, (100, 100)),
        ("to right, red, blue", (1, 0), 200, (0, 50)),
        ("270deg, red, blue", (-1, 0), 200, (200, 50)),
        ("to left, red, blue", (-1, 0), 200, (200, 50)),
        ("-90deg, red, blue", (-1, 0), 200, (200, 50)),
        ("0.5turn, red, blue", (0, 1), 100, (100, 0)),
    ],
)
def test_axis_aligned_lines(args, direction, length, start):
    s, d, ln = _line(args)
    assert d == pytest.approx(direction, abs=1e-12)
    assert ln == pytest.approx(length)
    assert s == pytest.approx(start, abs=1e-9)


def test_angle_45_length():
    _, d, length = _line("45deg, red, blue")
    rad = math.radians(45)
    assert length == pytest.approx(abs(W * math.sin(rad)) + abs(H * math.cos(rad)))
    assert length == pytest.approx(300 / math.sqrt(2))
    assert d == pytest.approx([math.sqrt(0.5), -math.sqrt(0.5)])


@pytest.mark.parametrize(
    "corner, target, other_diagonal",
    [
        # target corner, and the two corners whose diagonal the line is perpendicular to
        ("top right", (W, 0), ((0, 0), (W, H))),
        ("right top", (W, 0), ((0, 0), (W, H))),
        ("bottom right", (W, H), ((W, 0), (0, H))),
        ("bottom left", (0, H), ((0, 0), (W, H))),
        ("left top", (0, 0), ((W, 0), (0, H))),
    ],
)
@pytest.mark.parametrize("w, h", [(200.0, 100.0), (50.0, 300.0), (123.0, 7.0)])
def test_corner_lines(corner, target, other_diagonal, w, h):
    scale = np.array([w / W, h / H])
    target = np.array(target) * scale
    (p, q) = (np.array(other_diagonal[0]) * scale, np.array(other_diagonal[1]) * scale)
    start, d, length = _line(f"to {corner}, red, blue", w, h)
    center = np.array([w / 2, h / 2])
    assert np.linalg.norm(d) == pytest.approx(1.0)
    # Perpendicular to the diagonal that joins the two neighbouring corners ...
    assert float(np.dot(d, q - p)) == pytest.approx(0.0, abs=1e-9)
    # ... pointing into the quadrant of the named corner ...
    assert np.all(np.sign(d) == np.sign(target - center))
    # ... and the 100% line passes through that corner, the 0% line through the opposite.
    assert float(np.dot(target - center, d)) == pytest.approx(length / 2)
    opposite = np.array([w, h]) - target
    assert float(np.dot(opposite - center, d)) == pytest.approx(-length / 2)
    assert start == pytest.approx(center - d * length / 2)


def test_corner_line_is_not_45_degrees_on_a_non_square_box():
    _, d, _ = _line("to top right, red, blue")
    # Perpendicular to the (200, 100) diagonal: direction ∝ (100, -200).
    assert d == pytest.approx(np.array([100.0, -200.0]) / math.hypot(100, 200))


def test_random_angles_touch_the_farthest_corners(rng):
    for _ in range(40):
        angle = float(rng.uniform(-720, 720))
        w, h = float(rng.uniform(1, 500)), float(rng.uniform(1, 500))
        start, d, length = _line(f"{angle:.6f}deg, red, blue", w, h)
        rad = math.radians(round(angle, 6))
        assert d == pytest.approx([math.sin(rad), -math.cos(rad)], abs=1e-9)
        corners = np.array([(0, 0), (w, 0), (w, h), (0, h)])
        center = np.array([w / 2, h / 2])
        projections = (corners - center) @ d
        assert length / 2 == pytest.approx(projections.max(), rel=1e-9, abs=1e-9)
        assert -length / 2 == pytest.approx(projections.min(), rel=1e-9, abs=1e-9)
        assert start == pytest.approx(center - d * length / 2)


# --------------------------------------------------------------------------------------
# radial_gradient_radii (§3.2.2)
# --------------------------------------------------------------------------------------

# Box 200x100, centre "at 20% 30%" = (40, 30): sides at 40/160 (x) and 30/70 (y).
S2 = math.sqrt(2.0)
RADIAL_EXTENTS = [
    ("circle closest-side", (30.0, 30.0)),  # min(40, 160, 30, 70)
    ("circle farthest-side", (160.0, 160.0)),  # max of the four
    ("circle closest-corner", (50.0, 50.0)),  # hypot(40, 30)
    ("circle farthest-corner", (math.hypot(160, 70),) * 2),
    ("circle", (math.hypot(160, 70),) * 2),  # default extent
    ("ellipse closest-side", (40.0, 30.0)),
    ("ellipse farthest-side", (160.0, 70.0)),
    # closest-/farthest-corner ellipses keep the *-side aspect ratio and pass through
    # the corner: (dx / (k dx))^2 + (dy / (k dy))^2 = 1  =>  k = sqrt(2).
    ("ellipse closest-corner", (40.0 * S2, 30.0 * S2)),
    ("ellipse farthest-corner", (160.0 * S2, 70.0 * S2)),
    ("closest-side", (40.0, 30.0)),  # shape defaults to ellipse
    ("", (160.0 * S2, 70.0 * S2)),
]


@pytest.mark.parametrize("prelude, radii", RADIAL_EXTENTS)
def test_radial_extent_keywords(prelude, radii):
    g = radial(f"{prelude} at 20% 30%, red, blue")
    center, got = radial_gradient_radii(g, 200.0, 100.0)
    assert center == pytest.approx((40.0, 30.0))
    assert got == pytest.approx(radii)


@pytest.mark.parametrize(
    "prelude, corner",
    [("ellipse closest-corner", (0.0, 0.0)), ("ellipse farthest-corner", (200.0, 100.0))],
)
def test_corner_ellipses_pass_through_their_corner(prelude, corner):
    g = radial(f"{prelude} at 20% 30%, red, blue")
    (cx, cy), (rx, ry) = radial_gradient_radii(g, 200.0, 100.0)
    x, y = corner
    assert ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 == pytest.approx(1.0)


@pytest.mark.parametrize(
    "args, w, h, center, radii",
    [
        ("red, blue", 200, 100, (100, 50), (100 * S2, 50 * S2)),
        ("circle, red, blue", 200, 100, (100, 50), (math.hypot(100, 50),) * 2),
        ("circle closest-side, red, blue", 200, 100, (100, 50), (50, 50)),
        ("circle 25px, red, blue", 200, 100, (100, 50), (25, 25)),
        ("25px, red, blue", 200, 100, (100, 50), (25, 25)),
        ("ellipse 50% 25%, red, blue", 200, 100, (100, 50), (100, 25)),
        ("40px 20% at left top, red, blue", 200, 100, (0, 0), (40, 20)),
        ("circle farthest-side at right 10px, red, blue", 200, 100, (200, 10), (200, 200)),
        # Centre outside the box: distances to the side lines, not clamped to the box.
        ("circle closest-side at -20px 50%, red, blue", 200, 100, (-20, 50), (20, 20)),
        ("ellipse farthest-side at 250px -10px, red, blue", 200, 100, (250, -10), (250, 110)),
    ],
)
def test_radial_geometry(args, w, h, center, radii):
    c, r = radial_gradient_radii(radial(args), float(w), float(h))
    assert c == pytest.approx(center)
    assert r == pytest.approx(radii)


# --------------------------------------------------------------------------------------
# transform_matrix vs an independent numpy implementation
# --------------------------------------------------------------------------------------


def _np_translate(tx, ty):
    return np.array([[1.0, 0.0, tx], [0.0, 1.0, ty], [0.0, 0.0, 1.0]])


def _np_rotate(deg):
    t = math.radians(deg)
    return np.array([[math.cos(t), -math.sin(t), 0.0], [math.sin(t), math.cos(t), 0.0], [0.0, 0.0, 1.0]])


def _np_scale(sx, sy):
    return np.diag([sx, sy, 1.0])


def _np_skew(ax, ay):
    return np.array([[1.0, math.tan(math.radians(ax)), 0.0], [math.tan(math.radians(ay)), 1.0, 0.0], [0.0, 0.0, 1.0]])


def _np_matrix(a, b, c, d, e, f):
    return np.array([[a, c, e], [b, d, f], [0.0, 0.0, 1.0]])


def _len(rng, w_or_h):
    """A random <length-percentage> as (css text, value in px against w_or_h)."""
    v = round(float(rng.uniform(-100, 100)), 3)
    if rng.random() < 0.5:
        return f"{v}px", v
    return f"{v}%", v * w_or_h / 100.0


def _random_function(rng, w, h):
    kind = rng.choice(["translate", "translateX", "translateY", "scale", "scale1", "scaleX", "rotate",
                       "rotate_rad", "rotate_turn", "skew", "skewX", "skewY", "matrix"])
    num = lambda lo, hi: round(float(rng.uniform(lo, hi)), 4)  # noqa: E731
    if kind == "translate":
        (tx, x), (ty, y) = _len(rng, w), _len(rng, h)
        return f"translate({tx}, {ty})", _np_translate(x, y)
    if kind == "translateX":
        tx, x = _len(rng, w)
        return f"translateX({tx})", _np_translate(x, 0)
    if kind == "translateY":
        ty, y = _len(rng, h)
        return f"translateY({ty})", _np_translate(0, y)
    if kind == "scale":
        sx, sy = num(-3, 3), num(-3, 3)
        return f"scale({sx}, {sy})", _np_scale(sx, sy)
    if kind == "scale1":
        s = num(0.1, 3)
        return f"scale({s * 100}%)", _np_scale(s, s)
    if kind == "scaleX":
        s = num(-2, 2)
        return f"scaleX({s})", _np_scale(s, 1)
    if kind == "rotate":
        a = num(-400, 400)
        return f"rotate({a}deg)", _np_rotate(a)
    if kind == "rotate_rad":
        a = num(-7, 7)
        return f"rotate({a}rad)", _np_rotate(math.degrees(a))
    if kind == "rotate_turn":
        a = num(-2, 2)
        return f"rotate({a}turn)", _np_rotate(a * 360)
    if kind == "skew":
        ax, ay = num(-60, 60), num(-60, 60)
        return f"skew({ax}deg, {ay}deg)", _np_skew(ax, ay)
    if kind == "skewX":
        ax = num(-60, 60)
        return f"skewX({ax}deg)", _np_skew(ax, 0)
    if kind == "skewY":
        ay = num(-60, 60)
        return f"skewY({ay}deg)", _np_skew(0, ay)
    vals = [num(-3, 3) for _ in range(4)] + [num(-200, 200) for _ in range(2)]
    return "matrix({})".format(", ".join(str(v) for v in vals)), _np_matrix(*vals)


def _affine_as_np(m: Affine) -> np.ndarray:
    return np.array([[m.a, m.c, m.e], [m.b, m.d, m.f], [0.0, 0.0, 1.0]])


def _computed(css: str):
    return Style(css).computed()


@pytest.mark.parametrize("trial", range(25))
def test_transform_matrix_matches_numpy(rng, trial):
    w, h = round(float(rng.uniform(1, 400)), 2), round(float(rng.uniform(1, 400)), 2)
    n = int(rng.integers(1, 6))
    texts, expected = [], np.eye(3)
    for _ in range(n):
        text, mat = _random_function(rng, w, h)
        texts.append(text)
        expected = expected @ mat
    (ox_text, ox), (oy_text, oy) = _len(rng, w), _len(rng, h)
    expected = _np_translate(ox, oy) @ expected @ _np_translate(-ox, -oy)
    css = f"transform: {' '.join(texts)}; transform-origin: {ox_text} {oy_text}"
    style = _computed(css)
    got = transform_matrix(style.transform, style.transform_origin, w, h)
    assert np.allclose(_affine_as_np(got), expected, rtol=1e-9, atol=1e-6), css
    # And it maps points like the matrix does.
    p = rng.uniform(-100, 100, size=2)
    assert np.allclose(got.apply(*p), (expected @ [p[0], p[1], 1.0])[:2], atol=1e-6)


def _matrix(css: str, w=100.0, h=50.0) -> Affine:
    style = _computed(css)
    return transform_matrix(style.transform, style.transform_origin, w, h)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("rotate(90deg)", (0, 1, -1, 0, 0, 0)),
        ("rotate(180deg)", (-1, 0, 0, -1, 0, 0)),
        ("rotate(-90deg)", (0, -1, 1, 0, 0, 0)),
        ("rotate(450deg)", (0, 1, -1, 0, 0, 0)),
        ("rotate(0.25turn)", (0, 1, -1, 0, 0, 0)),
        ("rotate(360deg)", (1, 0, 0, 1, 0, 0)),
    ],
)
def test_right_angle_rotations_are_exact(value, expected):
    assert _matrix(f"transform: {value}; transform-origin: 0 0").values() == expected


def test_rotate_90_about_the_centre_is_exact():
    # T(50, 25) R(90) T(-50, -25): (x, y) -> (-y + 75, x - 25)
    m = _matrix("transform: rotate(90deg)", 100, 50)
    assert m.values() == (0, 1, -1, 0, 75, -25)
    assert m.apply(0, 0) == (75, -25)
    assert m.apply(50, 25) == (50, 25)  # the origin is fixed


def test_no_transform_is_identity():
    assert _matrix("transform: none") == Affine()
    assert _matrix("transform-origin: 3px 4px") == Affine()


@pytest.mark.parametrize(
    "value, w, h, translation",
    [
        ("translate(50%, 10%)", 200, 100, (100, 10)),
        ("translate(50%)", 200, 100, (100, 0)),
        ("translateX(-25%)", 80, 40, (-20, 0)),
        ("translateY(-25%)", 80, 40, (0, -10)),
        ("translate(10px, 200%)", 80, 40, (10, 80)),
        ("translate3d(10%, 20%, 0)", 80, 40, (8, 8)),
    ],
)
def test_translate_percentages_resolve_against_the_box(value, w, h, translation):
    m = _matrix(f"transform: {value}", w, h)
    assert m.is_translation()
    assert (m.e, m.f) == pytest.approx(translation)


def test_skew():
    m = _matrix("transform: skewX(45deg); transform-origin: 0 0")
    assert m.values() == pytest.approx((1, 0, 1, 1, 0, 0))
    m = _matrix("transform: skew(10deg, 20deg); transform-origin: 0 0")
    x, y = 3.0, 7.0
    assert m.apply(x, y) == pytest.approx(
        (x + math.tan(math.radians(10)) * y, math.tan(math.radians(20)) * x + y)
    )


def test_skew_about_the_centre_fixes_the_centre():
    m = _matrix("transform: skewY(30deg)", 100, 50)
    assert m.apply(50, 25) == pytest.approx((50, 25))
    assert m.apply(50, 0) == pytest.approx((50, 0))  # on the vertical through the origin
    assert m.apply(100, 25) == pytest.approx((100, 25 + 50 * math.tan(math.radians(30))))


def test_matrix_function():
    m = _matrix("transform: matrix(1, 2, 3, 4, 5, 6); transform-origin: 0 0")
    assert m.values() == (1, 2, 3, 4, 5, 6)
    assert m.apply(1, 1) == (1 + 3 + 5, 2 + 4 + 6)
    # About the centre (50, 25) of a 100x50 box: T(50,25) M T(-50,-25).
    m = _matrix("transform: matrix(1, 2, 3, 4, 5, 6)", 100, 50)
    expected = _np_translate(50, 25) @ _np_matrix(1, 2, 3, 4, 5, 6) @ _np_translate(-50, -25)
    assert np.allclose(_affine_as_np(m), expected)


def test_functions_apply_right_to_left():
    # transform: A B maps p to A(B(p)).
    m = _matrix("transform: translate(10px) rotate(90deg); transform-origin: 0 0")
    assert m.apply(1, 0) == (10, 1)
    m = _matrix("transform: rotate(90deg) translate(10px); transform-origin: 0 0")
    assert m.apply(1, 0) == (0, 11)


def test_scale_about_origin_keyword():
    m = _matrix("transform: scale(2); transform-origin: right bottom", 100, 50)
    assert m.apply(100, 50) == (100, 50)
    assert m.apply(0, 0) == (-100, -50)


# --------------------------------------------------------------------------------------
# Affine algebra
# --------------------------------------------------------------------------------------


def _random_affine(rng, min_det=0.2) -> Affine:
    while True:
        a, b, c, d = rng.uniform(-3, 3, size=4)
        e, f = rng.uniform(-500, 500, size=2)
        if abs(a * d - b * c) >= min_det:
            return Affine(*(float(v) for v in (a, b, c, d, e, f)))


def _close(m: Affine, n: Affine, tol=1e-8):
    return np.allclose(m.values(), n.values(), rtol=tol, atol=tol)


def test_inverse_composes_to_identity(rng):
    for _ in range(100):
        m = _random_affine(rng)
        inv = m.inverse()
        assert _close(m @ inv, Affine()), m
        assert _close(inv @ m, Affine()), m
        assert _close(inv.inverse(), m), m


def test_inverse_matches_numpy(rng):
    for _ in range(100):
        m = _random_affine(rng)
        assert np.allclose(_affine_as_np(m.inverse()), np.linalg.inv(_affine_as_np(m)), rtol=1e-9, atol=1e-9)
        assert m.determinant == pytest.approx(np.linalg.det(_affine_as_np(m)))


def test_compose_matches_numpy_and_apply(rng):
    for _ in range(100):
        m, n = _random_affine(rng), _random_affine(rng)
        assert np.allclose(_affine_as_np(m @ n), _affine_as_np(m) @ _affine_as_np(n), rtol=1e-12, atol=1e-9)
        x, y = (float(v) for v in rng.uniform(-1000, 1000, size=2))
        assert np.allclose((m @ n).apply(x, y), m.apply(*n.apply(x, y)), rtol=1e-12, atol=1e-8)


def test_compose_is_associative_and_not_commutative(rng):
    noncommuting = 0
    for _ in range(50):
        a, b, c = _random_affine(rng), _random_affine(rng), _random_affine(rng)
        assert _close((a @ b) @ c, a @ (b @ c), tol=1e-7)
        noncommuting += not _close(a @ b, b @ a)
    assert noncommuting > 40


def test_inverse_of_product_reverses_order(rng):
    for _ in range(50):
        a, b = _random_affine(rng), _random_affine(rng)
        assert _close((a @ b).inverse(), b.inverse() @ a.inverse(), tol=1e-7)


def test_inverse_undoes_apply(rng):
    for _ in range(50):
        m = _random_affine(rng)
        x, y = (float(v) for v in rng.uniform(-1000, 1000, size=2))
        assert np.allclose(m.inverse().apply(*m.apply(x, y)), (x, y), atol=1e-7)


def test_identity_is_neutral(rng):
    m = _random_affine(rng)
    assert Affine() @ m == m
    assert m @ Affine() == m


@pytest.mark.parametrize(
    "m",
    [Affine(0, 0, 0, 0, 1, 2), Affine(1, 2, 2, 4, 0, 0), Affine(1, 0, 0, 0, 5, 5)],
)
def test_singular_matrices_have_no_inverse(m):
    assert not m.is_invertible()
    with pytest.raises(ZeroDivisionError):
        m.inverse()


def test_non_finite_matrix_is_not_invertible():
    assert not Affine(1, 0, 0, 1, float("nan"), 0).is_invertible()
    assert not Affine(float("inf"), 0, 0, 1, 0, 0).is_invertible()
    assert Affine(2, 0, 0, 3, 1, 1).is_invertible()


def test_to_mat3_is_column_major():
    m = Affine(1, 2, 3, 4, 5, 6)
    assert m.to_mat3() == tuple(_affine_as_np(m).flatten(order="F"))


def test_constructors_match_numpy(rng):
    for _ in range(20):
        deg = float(rng.uniform(-360, 360))
        assert np.allclose(_affine_as_np(Affine.rotate(deg)), _np_rotate(deg))
        ax, ay = (float(v) for v in rng.uniform(-70, 70, size=2))
        assert np.allclose(_affine_as_np(Affine.skew(ax, ay)), _np_skew(ax, ay))
        sx, sy, tx, ty = (float(v) for v in rng.uniform(-5, 5, size=4))
        assert np.allclose(_affine_as_np(Affine.scale(sx, sy)), _np_scale(sx, sy))
        assert np.allclose(_affine_as_np(Affine.translate(tx, ty)), _np_translate(tx, ty))


def test_max_scale_is_the_longest_mapped_axis(rng):
    for _ in range(50):
        sx, sy = rng.uniform(-4, 4, 2)
        m = Affine.translate(*rng.uniform(-50, 50, 2)) @ Affine.rotate(rng.uniform(0, 360)) @ Affine.scale(sx, sy)
        assert m.max_scale() == pytest.approx(max(abs(sx), abs(sy)))
        columns = _affine_as_np(m)[:2, :2]
        assert m.max_scale() == pytest.approx(np.linalg.norm(columns, axis=0).max())
