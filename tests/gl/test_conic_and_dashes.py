"""Pixels of conic gradients and dashed / dotted borders against independent numpy models.

Conic gradients: the spec's definition (CSS Images 4 §3.3) computed here from the CSS
the test writes: the angle of each pixel centre around the centre, clockwise from up,
less ``from``; the colour-stop fix-up; premultiplied interpolation with transition hints;
repeating. Seeded cases, within 2 levels; pixels within a hair of a hard stop (where
float32 and float64 may pick different sides) are left out and counted.

Dashed and dotted borders: the layout (where each dash or dot goes) is the compositor's
(lamina.compositor.dashes, checked against Chromium in tests/unit/test_border_dashes.py);
here the shapes it describes are rasterized independently (16x16 supersampled rectangles,
circles and end squares; dots of two sides combined as two draws in one layer, as
Blink draws a corner dot twice) and compared
with what the shader drew. Rounded corners are checked for what must hold: inside the
solid ring, symmetric where the box is, a dash or dot on each corner's midpoint.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.compositor.dashes import border_pattern

TAU = 2.0 * math.pi


# ======================================================================================
# Conic gradients: an independent model of the spec
# ======================================================================================


def fixup(stops):
    """CSS Images 4 colour-stop fix-up on [(rgba, pos|None, hint|None)] in turns."""
    pos = [p for _, p, _ in stops]
    hints = [h for _, _, h in stops]
    if pos[0] is None:
        pos[0] = 0.0
    if pos[-1] is None:
        pos[-1] = 1.0
    running = pos[0]
    for i in range(len(stops)):
        if pos[i] is not None:
            running = pos[i] = max(running, pos[i])
        if hints[i] is not None:
            running = hints[i] = max(running, hints[i])
    i = 0
    while i < len(pos):
        if pos[i] is None:
            j = i
            while pos[j] is None:
                j += 1
            for k in range(i, j):
                pos[k] = pos[i - 1] + (pos[j] - pos[i - 1]) * (k - i + 1) / (j - i + 1)
            i = j
        i += 1
    colors = [np.array([c[0] * c[3], c[1] * c[3], c[2] * c[3], c[3]]) for c, _, _ in stops]
    return pos, hints, colors


def color_at(t: np.ndarray, pos, hints, colors, repeating: bool) -> np.ndarray:
    """Premultiplied colour at gradient positions t (turns)."""
    t = np.asarray(t, dtype=np.float64)
    if repeating:
        span = pos[-1] - pos[0]
        t = pos[0] + np.mod(t - pos[0], span)
    out = np.empty(t.shape + (4,))
    out[...] = colors[0]
    out[t >= pos[-1]] = colors[-1]
    for i in range(len(pos) - 1):
        a, b = pos[i], pos[i + 1]
        inside = (t >= a) & (t < b)
        if not inside.any() or b <= a:
            continue
        f = (t[inside] - a) / (b - a)
        if hints[i] is not None:
            h = (hints[i] - a) / (b - a)
            f = np.ones_like(f) if h <= 0 else (np.zeros_like(f) if h >= 1 else f ** (math.log(0.5) / math.log(h)))
        out[inside] = colors[i] + (colors[i + 1] - colors[i]) * f[:, None]
    return out


def conic_reference(w, h, cx, cy, from_deg, stops, repeating, tile=None):
    """(premultiplied image over white, turn position of each pixel)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64) + 0.5
    if tile is not None:
        xs, ys = np.mod(xs, tile[0]), np.mod(ys, tile[1])
    vx, vy = xs - cx, ys - cy
    t = np.mod(np.arctan2(vx, -vy) / TAU - from_deg / 360.0, 1.0)
    pos, hints, colors = fixup(stops)
    premul = color_at(t, pos, hints, colors, repeating)
    delta = 2e-5  # how far from a discontinuity a pixel must be to be compared
    jump = np.abs(color_at(np.mod(t - delta, 1.0), pos, hints, colors, repeating)
                  - color_at(np.mod(t + delta, 1.0), pos, hints, colors, repeating)).max(axis=-1)
    unsure = (jump > 1.5 / 255) | (np.hypot(vx, vy) < 1e-6)
    over_white = premul + (1.0 - premul[..., 3:4])
    return np.rint(np.clip(over_white[..., :3], 0, 1) * 255.0), unsure


def css_angle(turns: float, rng) -> str:
    unit = rng.choice(["deg", "%", "turn", "grad"])
    value = {"deg": turns * 360, "%": turns * 100, "turn": turns, "grad": turns * 400}[unit]
    return f"{value:.4f}{unit}"


def random_conic(rng):
    """A random conic-gradient: CSS text and the same as data for the model."""
    n = int(rng.integers(2, 7))
    stops = []
    parts = []
    for i in range(n):
        c = rng.random(4)
        c[3] = 1.0 if rng.random() < 0.5 else 0.2 + 0.8 * c[3]
        color = f"rgb({c[0] * 255:.2f} {c[1] * 255:.2f} {c[2] * 255:.2f} / {c[3]:.4f})"
        kind = rng.choice(["none", "one", "two"], p=[0.35, 0.45, 0.2])
        positions = []
        if kind != "none":
            positions = sorted(float(v) for v in rng.uniform(-0.2, 1.2, 1 if kind == "one" else 2))
        texts = [css_angle(p, rng) for p in positions]
        # the model reads back the rounded text, so both see the same numbers
        parsed = [_parse_turns(tx) for tx in texts]
        parts.append(" ".join([color, *texts]))
        rgba = (c[0], c[1], c[2], c[3])
        rgba = tuple(round(v * 255, 2) / 255 for v in rgba[:3]) + (round(c[3], 4),)
        if not parsed:
            stops.append([rgba, None, None])
        for p in parsed:
            stops.append([rgba, p, None])
        if i < n - 1 and rng.random() < 0.3:
            hint = float(rng.uniform(-0.1, 1.1))
            text = css_angle(hint, rng)
            parts.append(text)
            stops[-1][2] = _parse_turns(text)
    return parts, [tuple(s) for s in stops]


def _parse_turns(text: str) -> float:
    for unit, per_turn in (("deg", 360.0), ("%", 100.0), ("turn", 1.0), ("grad", 400.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) / per_turn
    raise AssertionError(text)


def render_rgb(scene, gl):
    img = scene.render(gl).image
    assert img[..., 3].min() == 255
    return img[..., :3].astype(np.int64)


@pytest.mark.parametrize("seed", range(16))
def test_conic_gradient_matches_the_spec(gl, seed):
    rng = np.random.default_rng(1000 + seed)
    w, h = int(rng.integers(30, 140)), int(rng.integers(30, 110))
    parts, stops = random_conic(rng)
    repeating = bool(rng.random() < 0.35)
    if repeating:
        pos, _, _ = fixup([list(s) for s in stops])
        if pos[-1] - pos[0] < 0.05:  # a degenerate repeat paints its average: tested elsewhere
            repeating = False
    from_deg = float(np.round(rng.uniform(-360, 720), 3))
    if rng.random() < 0.5:
        cx, cy = (float(v) for v in np.round(rng.uniform(-0.3, 1.3, 2) * (w, h), 2))
        at = f"{cx}px {cy}px"
    else:
        px_, py_ = (float(v) for v in np.round(rng.uniform(-10, 110, 2), 2))
        cx, cy = px_ * w / 100, py_ * h / 100
        at = f"{px_}% {py_}%"
    css = f"{'repeating-' if repeating else ''}conic-gradient(from {from_deg}deg at {at}, {', '.join(parts)})"
    scene = Scene(w + 8, h + 8, "white")
    scene.root.add(Layer("g", (4, 4, w, h), f"background-image: {css}"))
    got = render_rgb(scene, gl)[4:4 + h, 4:4 + w]
    expected, unsure = conic_reference(w, h, cx, cy, from_deg, [list(s) for s in stops], repeating)
    diff = np.abs(got - expected).max(axis=-1)
    assert unsure.mean() < 0.02, f"too many pixels on a discontinuity to test: {css}"
    assert diff[~unsure].max() <= 2, f"{css}: max {diff[~unsure].max()} at {np.argwhere(diff * ~unsure > 2)[:5]}"
    assert (diff[~unsure] <= 1).mean() > 0.99, css


def _stops(*stops):
    return [list(stop) for stop in stops]


RED, BLUE = (1, 0, 0, 1), (0, 0, 1, 1)
# (CSS, tile size or None, the model's data written out by hand: from, centre in px in a
# 120x80 box, stops as (straight rgba, turn or None, hint turn or None), repeating)
CONIC_CASES = [
    ("conic-gradient(red, yellow, lime, aqua, blue, magenta, red)", None,
     (0.0, (60, 40), _stops((RED, None, None), ((1, 1, 0, 1), None, None), ((0, 1, 0, 1), None, None),
                            ((0, 1, 1, 1), None, None), (BLUE, None, None), ((1, 0, 1, 1), None, None),
                            (RED, None, None)), False)),
    ("conic-gradient(from 45deg at 30% 70%, #f06, #fc0 25%, 60%, #06f 75%)", None,
     (45.0, (36, 56), _stops(((1, 0, 0.4, 1), None, None), ((1, 0.8, 0, 1), 0.25, 0.6),
                             ((0, 0.4, 1, 1), 0.75, None)), False)),
    ("conic-gradient(#e33 0 20%, #3a3 0 45%, #36e 0 80%, #fc3 0)", None,
     (0.0, (60, 40), _stops(((14 / 15, 0.2, 0.2, 1), 0.0, None), ((14 / 15, 0.2, 0.2, 1), 0.2, None),
                            ((0.2, 10 / 15, 0.2, 1), 0.0, None), ((0.2, 10 / 15, 0.2, 1), 0.45, None),
                            ((0.2, 0.4, 14 / 15, 1), 0.0, None), ((0.2, 0.4, 14 / 15, 1), 0.8, None),
                            ((1, 0.8, 0.2, 1), 0.0, None)), False)),
    ("repeating-conic-gradient(from 10deg, #222 0 15deg, #eee 0 30deg)", None,
     (10.0, (60, 40), _stops(((2 / 15,) * 3 + (1,), 0.0, None), ((2 / 15,) * 3 + (1,), 15 / 360, None),
                             ((14 / 15,) * 3 + (1,), 0.0, None), ((14 / 15,) * 3 + (1,), 30 / 360, None)), True)),
    ("conic-gradient(at 12px 9px, red, rgb(0 0 255 / 0.3) 70%, transparent)", None,
     (0.0, (12, 9), _stops((RED, None, None), ((0, 0, 1, 0.3), 0.7, None), ((0, 0, 0, 0), None, None)), False)),
    ("conic-gradient(from -90deg, blue -30%, red 50%, lime 130%)", None,
     (-90.0, (60, 40), _stops((BLUE, -0.3, None), (RED, 0.5, None), ((0, 1, 0, 1), 1.3, None)), False)),
    ("conic-gradient(#fff 0.25turn, #000 0.25turn 0.5turn, #fff 0.5turn 0.75turn, #000 0.75turn)", (20, 20),
     (0.0, (10, 10), _stops(((1, 1, 1, 1), 0.25, None), ((0, 0, 0, 1), 0.25, None), ((0, 0, 0, 1), 0.5, None),
                            ((1, 1, 1, 1), 0.5, None), ((1, 1, 1, 1), 0.75, None), ((0, 0, 0, 1), 0.75, None)),
      False)),
    ("conic-gradient(from 0.1turn at 5px 15px, red, blue)", (24, 30),
     (36.0, (5, 15), _stops((RED, None, None), (BLUE, None, None)), False)),
]


@pytest.mark.parametrize("css, tile, model", CONIC_CASES, ids=[c[0] for c in CONIC_CASES])
def test_conic_cases_match_the_spec(gl, css, tile, model):
    w, h = 120, 80
    size = f" 0 0 / {tile[0]}px {tile[1]}px" if tile else ""
    scene = Scene(w, h, "white")
    scene.root.add(Layer("g", (0, 0, w, h), f"background: {css}{size}"))
    got = render_rgb(scene, gl)
    from_deg, (cx, cy), stops, repeating = model
    expected, unsure = conic_reference(w, h, cx, cy, from_deg, stops, repeating, tile)
    diff = np.abs(got - expected).max(axis=-1)
    assert unsure.mean() < 0.03
    assert diff[~unsure].max() <= 2, f"max {diff[~unsure].max()} at {np.argwhere(diff * ~unsure > 2)[:5]}"


def test_hard_stops_and_the_seam_are_sampled_at_pixel_centres(gl):
    # A half-and-half wheel: left of the vertical through the centre is blue, right red,
    # with no blending pixels in between (as Skia's sweep gradient draws it).
    scene = Scene(40, 40, "white")
    scene.root.add(Layer("g", (0, 0, 40, 40), "background: conic-gradient(red 0 50%, blue 0)"))
    got = render_rgb(scene, gl)
    assert np.all(got[:, 20:] == (255, 0, 0)) and np.all(got[:, :20] == (0, 0, 255))


def test_conic_gradient_as_a_mask_image(gl):
    # mask-image takes every gradient a background does: a quarter pie keeps the top
    # right quarter, a luminance ramp fades around the centre.
    scene = Scene(40, 40, "white")
    scene.root.add(Layer("m", (0, 0, 40, 40),
                         "background: red; mask-image: conic-gradient(black 0 25%, transparent 0)"))
    got = render_rgb(scene, gl)
    assert np.all(got[:20, 20:] == (255, 0, 0)) and np.all(got[20:] == 255) and np.all(got[:, :20] == 255)
    scene = Scene(40, 40, "white")
    scene.root.add(Layer("m", (0, 0, 40, 40), "background: black; mask: conic-gradient(white, black) luminance"))
    got = render_rgb(scene, gl)
    w, h = 40, 40
    expected, _ = conic_reference(w, h, 20, 20, 0.0, [[(1, 1, 1, 1), None, None], [(0, 0, 0, 1), None, None]], False)
    # black masked by luminance l over white: 255 * (1 - l)
    assert np.abs(got[..., 0] - (255 - expected[..., 0])).max() <= 2


def test_conic_gradient_is_drawn_by_its_own_program_and_needs_no_recompile(gl):
    scene = Scene(20, 20, "white")
    layer = scene.root.add(Layer("g", (0, 0, 20, 20), "background: conic-gradient(red, blue)"))
    scene.render(gl)
    compiles = gl.executor.programs.compiles
    for angle in (10, 20, 30):
        layer.style["background"] = f"conic-gradient(from {angle}deg at 30% 30%, red, lime 40%, blue)"
        scene.render(gl)
    assert gl.executor.programs.compiles == compiles, "stops, angle and centre are uniforms"


# ======================================================================================
# Dashed and dotted borders
# ======================================================================================

SS = 16  # supersampling of the reference, per axis


def _to_frame(side: int, x: np.ndarray, y: np.ndarray, w: float, h: float):
    """Box -> the side's frame: x along the side from its start corner (clockwise), y
    across the border from the outer edge (as lamina.compositor.dashes lays them out)."""
    if side == 0:
        return x, y
    if side == 1:
        return y, w - x
    if side == 2:
        return w - x, h - y
    return h - y, x


def dashes_reference(style, widths, w, h):
    """Coverage of a square-cornered dashed / dotted border, per the layout, supersampled."""
    pattern = border_pattern(style, widths, ((0.0, 0.0),) * 4, w, h)
    gw, gh = int(math.ceil(w)), int(math.ceil(h))
    sub = (np.arange(SS) + 0.5) / SS
    # SS x SS samples per pixel, row-major so that a reshape averages them per pixel
    Y = (np.arange(gh)[:, None] + sub[None, :]).reshape(-1)
    X = (np.arange(gw)[:, None] + sub[None, :]).reshape(-1)
    X, Y = np.meshgrid(X, Y)
    inside_box = (X < w) & (Y < h)
    dashes = np.zeros(X.shape, bool)  # dashes: the union of the shapes
    dots = np.zeros((gh, gw))  # dots: per side, combined as two draws in one layer
    for i in range(4):
        sw = widths[i]
        if sw <= 0:
            continue
        length = w if i % 2 == 0 else h
        fx, fy = _to_frame(i, X, Y, w, h)
        start, period, dash, n = pattern.start[i], pattern.period[i], pattern.length[i], pattern.count[i]
        if pattern.dots[i]:
            if n == 0:
                a, b = start, start + period
                t = np.clip(fx, a, b)
                hit = np.hypot(fx - t, fy - sw / 2) <= sw / 2
            else:
                k = np.clip(np.rint((fx - start) / period), 0, n - 1)  # the nearest dot
                hit = np.hypot(fx - (start + k * period), fy - sw / 2) <= sw / 2
        else:
            band = (fy >= 0) & (fy < sw) & (fx >= 0) & (fx < length)
            if n == 0:
                hit = band
            else:
                u = fx - start
                k = np.floor(u / period)
                hit = band & (k >= 0) & (k <= n - 1) & (u - k * period < dash)
                if pattern.caps[i]:
                    hit |= band & ((fx < sw) | (fx >= length - sw))
        if pattern.dots[i]:
            cov = (hit & inside_box).reshape(gh, SS, gw, SS).mean(axis=(1, 3))
            dots = dots + cov - dots * cov
        else:
            dashes |= hit & inside_box
    union = dashes.reshape(gh, SS, gw, SS).mean(axis=(1, 3))
    return np.maximum(union, dots), pattern


def render_alpha(style_css, w, h, gl, offset=(3, 3)):
    scene = Scene(int(math.ceil(w)) + 6, int(math.ceil(h)) + 6, "transparent")
    scene.root.add(Layer("b", (offset[0], offset[1], w, h), style_css))
    img = scene.render(gl).image
    return img[..., 3].astype(np.float64) / 255.0


def _check_square(gl, style, widths, w, h, tol):
    css = (f"border-style: {style}; border-color: white; "
           f"border-width: {' '.join(f'{v}px' for v in widths)}")
    alpha = render_alpha(css, w, h, gl)
    expected, pattern = dashes_reference(style, widths, w, h)
    got = alpha[3:3 + expected.shape[0], 3:3 + expected.shape[1]]
    diff = np.abs(got - expected)
    assert np.all(alpha[:3] == 0) and np.all(alpha[:, :3] == 0), "nothing outside the box"
    assert diff.max() <= tol, f"{css} {w}x{h}: max {diff.max():.3f} at {np.argwhere(diff > tol)[:6]} ({pattern})"
    assert diff.mean() <= 0.01


@pytest.mark.parametrize("style, widths, w, h", [
    ("dashed", (4, 4, 4, 4), 100, 60),
    ("dashed", (2, 2, 2, 2), 100, 60),
    ("dashed", (1, 1, 1, 1), 100, 60),
    ("dashed", (3, 3, 3, 3), 97, 31),
    ("dashed", (4, 4, 4, 4), 38, 17),   # short sides: two shrunk dashes, and solid
    ("dashed", (2, 6, 4, 8), 100, 60),
    ("dashed", (5, 0, 5, 0), 70, 40),
    ("dotted", (1, 1, 1, 1), 100, 60),
    ("dotted", (2, 2, 2, 2), 97, 57),
    ("dotted", (3, 3, 3, 3), 100, 60),
])
def test_square_dashes_match_their_layout(gl, style, widths, w, h):
    _check_square(gl, style, widths, w, h, tol=0.04)


@pytest.mark.parametrize("style, widths, w, h", [
    ("dotted", (4, 4, 4, 4), 100, 60),
    ("dotted", (8, 8, 8, 8), 100, 60),
    ("dotted", (10, 10, 10, 10), 130, 70),
    ("dotted", (8, 8, 8, 8), 40, 17),   # a side too short for two dots: one stroke
    ("dotted", (6, 8, 4, 10), 120, 70),
    ("dotted", (12, 2, 12, 2), 90, 50),
])
def test_square_dots_match_their_layout(gl, style, widths, w, h):
    # The shader ramps a circle's edge over one pixel, the model counts area: a circle of
    # a few pixels differs by up to ~0.1 at its rim.
    _check_square(gl, style, widths, w, h, tol=0.13)


@pytest.mark.parametrize("seed", range(10))
def test_random_square_borders_match_their_layout(gl, seed):
    rng = np.random.default_rng(seed)
    style = str(rng.choice(["dashed", "dotted"]))
    widths = tuple(int(v) for v in rng.choice([0, 1, 2, 3, 4, 5, 8, 12], 4))
    if not any(widths):
        widths = (3, 3, 3, 3)
    w, h = int(rng.integers(16, 150)), int(rng.integers(16, 100))
    _check_square(gl, style, widths, w, h, tol=0.13 if style == "dotted" else 0.04)


def test_fractional_box_and_widths_keep_coverage_exact_along_the_sides(gl):
    _check_square(gl, "dashed", (2.5, 3.5, 2.5, 3.5), 90.5, 50.25, tol=0.05)


def solid_ring(css, w, h, gl):
    return render_alpha(css.replace("dashed", "solid").replace("dotted", "solid"), w, h, gl)


@pytest.mark.parametrize("css, w, h", [
    ("border: 10px dashed white; border-radius: 20px", 100, 60),
    ("border: 6px dashed white; border-radius: 30px", 100, 100),
    ("border: 4px dashed white; border-radius: 40px / 16px", 120, 70),
    ("border: 6px dotted white; border-radius: 20px", 100, 60),
    ("border: 2px dotted white; border-radius: 12px", 80, 50),
    ("border: 8px dashed white; border-radius: 50%", 90, 90),
])
def test_rounded_dashes_are_symmetric_and_inside_the_ring(gl, css, w, h):
    alpha = render_alpha(css, w, h, gl)
    ring = solid_ring(css, w, h, gl)
    box = alpha[3:3 + h, 3:3 + w]
    assert np.all(alpha <= ring + 1.5 / 255 + (0.0 if "dashed" in css else 0.02)), "dashes are cut from the ring"
    assert np.abs(box - box[::-1, :]).max() <= 3 / 255, "top / bottom symmetric"
    assert np.abs(box - box[:, ::-1]).max() <= 3 / 255, "left / right symmetric"
    assert 0.25 < box.sum() / ring.sum() < 0.8, "about half of the ring is drawn"


@pytest.mark.parametrize("style", ["dashed", "dotted"])
def test_rounded_corners_have_a_dash_or_dot_on_their_midpoint(gl, style):
    w, h, bw, r = 100, 60, 8, 24
    alpha = render_alpha(f"border: {bw}px {style} white; border-radius: {r}px", w, h, gl, offset=(0, 0))
    m = r - bw / 2  # the middle line's radius
    for cx, cy, sx, sy in ((r, r, -1, -1), (w - r, r, 1, -1), (w - r, h - r, 1, 1), (r, h - r, -1, 1)):
        x = cx + sx * m / math.sqrt(2)
        y = cy + sy * m / math.sqrt(2)
        assert alpha[int(y), int(x)] == 1.0, (style, x, y)


def test_a_dashed_border_redraws_when_its_style_changes(gl):
    scene = Scene(60, 40, "transparent")
    layer = scene.root.add(Layer("b", (0, 0, 60, 40), "border: 4px solid white"))
    solid = scene.render(gl).image[..., 3].copy()
    layer.style["border-style"] = "dashed"
    dashed = scene.render(gl).image[..., 3]
    assert dashed.sum() < solid.sum() and dashed[2, 10] == 0 and solid[2, 10] == 255
