"""The float64 blend-mode reference (lamina.blending.reference) against values worked out
by hand from Compositing and Blending Level 1 (and Level 2 for plus-lighter), and against
properties the spec's formulas must have. No GPU."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.blending import BlendMode
from lamina.blending import reference as ref
from lamina.blending.reference import blend

EXACT = dict(rtol=0.0, atol=1e-12)
MODES = list(BlendMode)
BLEND_FUNCTION_MODES = [m for m in BlendMode if m is not BlendMode.PLUS_LIGHTER]


def opaque(r: float, g: float, b: float) -> np.ndarray:
    return np.array([r, g, b, 1.0])


def random_premultiplied(rng: np.random.Generator, n: int) -> np.ndarray:
    """n premultiplied RGBA pixels: transparent, opaque and translucent, with channels at
    0 and at alpha (straight 0 and 1) mixed in."""
    kind = rng.choice(3, size=n, p=[0.15, 0.35, 0.5])
    alpha = np.select([kind == 0, kind == 1], [0.0, 1.0], rng.random(n))
    colour = rng.random((n, 3)) * alpha[:, None]
    edge = rng.random((n, 3))
    colour = np.where(edge < 0.1, 0.0, np.where(edge > 0.9, alpha[:, None], colour))
    return np.concatenate([colour, alpha[:, None]], axis=-1)


# -- normal and the general formula ---------------------------------------------------------


def test_normal_is_source_over(rng):
    b = random_premultiplied(rng, 2000)
    s = random_premultiplied(rng, 2000)
    over = s + b * (1.0 - s[:, 3:4])  # written out here, independently of the module
    assert np.array_equal(blend(b, s, BlendMode.NORMAL), over)
    # ... and the general formula with the spec's B(Cb, Cs) = Cs agrees with it.
    np.testing.assert_allclose(ref.mix_and_composite(b, s, ref.normal), over, **EXACT)


def test_general_formula_by_hand():
    # multiply, as = ab = 0.5, straight Cs = 0.4, Cb = 0.5 (cs = 0.2, cb = 0.25):
    # B = 0.2; Cs' = 0.5 x 0.4 + 0.5 x 0.2 = 0.3; co = 0.5 x 0.3 + 0.5 x 0.25 = 0.275.
    out = blend([0.25, 0.25, 0.25, 0.5], [0.2, 0.2, 0.2, 0.5], "multiply")
    np.testing.assert_allclose(out, [0.275, 0.275, 0.275, 0.75], **EXACT)
    # screen, as = 0.8, ab = 0.25, Cs = 0.5, Cb = 0.6 (cs = 0.4, cb = 0.15):
    # B = 0.8; Cs' = 0.75 x 0.5 + 0.25 x 0.8 = 0.575; co = 0.8 x 0.575 + 0.2 x 0.15 = 0.49;
    # ao = 0.8 + 0.25 x 0.2 = 0.85.
    out = blend([0.15, 0.15, 0.15, 0.25], [0.4, 0.4, 0.4, 0.8], BlendMode.SCREEN)
    np.testing.assert_allclose(out, [0.49, 0.49, 0.49, 0.85], **EXACT)


def test_mode_as_string_or_enum_and_bad_input():
    b, s = opaque(0.2, 0.4, 0.6), opaque(0.5, 0.1, 0.9)
    for mode in MODES:
        assert np.array_equal(blend(b, s, mode), blend(b, s, mode.value))
    with pytest.raises(ValueError):
        blend(b, s, "plus-darker")
    with pytest.raises(ValueError):
        blend(b[:3], s, "multiply")
    with pytest.raises(ValueError):
        ref.blend_function("plus-lighter")


def test_broadcasting_and_shapes():
    b = np.zeros((3, 5, 4))
    s = np.array([0.1, 0.2, 0.3, 0.5])
    for mode in MODES:
        out = blend(b, s, mode)
        assert out.shape == (3, 5, 4) and out.dtype == np.float64


# -- separable modes: the spec's formulas at hand-picked points -------------------------------

# (mode, Cb, Cs, B(Cb, Cs)), worked out from the spec's definitions.
SEPARABLE_CASES = [
    (BlendMode.NORMAL, 0.3, 0.7, 0.7),
    (BlendMode.MULTIPLY, 0.5, 0.4, 0.2),
    (BlendMode.MULTIPLY, 1.0, 0.3, 0.3),
    (BlendMode.SCREEN, 0.5, 0.4, 0.7),
    (BlendMode.SCREEN, 0.0, 0.3, 0.3),
    # overlay = HardLight(Cs, Cb): the backdrop picks the branch
    (BlendMode.OVERLAY, 0.25, 0.6, 0.3),  # Cb <= 0.5: Cs x 2 Cb
    (BlendMode.OVERLAY, 0.75, 0.6, 0.8),  # Cb > 0.5: Screen(Cs, 2 Cb - 1) = 0.6 + 0.5 - 0.3
    (BlendMode.DARKEN, 0.3, 0.7, 0.3),
    (BlendMode.LIGHTEN, 0.3, 0.7, 0.7),
    (BlendMode.COLOR_DODGE, 0.0, 1.0, 0.0),  # Cb == 0 is tested first
    (BlendMode.COLOR_DODGE, 0.0, 0.3, 0.0),
    (BlendMode.COLOR_DODGE, 0.5, 1.0, 1.0),  # Cs == 1
    (BlendMode.COLOR_DODGE, 0.2, 0.5, 0.4),  # 0.2 / 0.5
    (BlendMode.COLOR_DODGE, 0.6, 0.5, 1.0),  # min(1, 1.2)
    (BlendMode.COLOR_BURN, 1.0, 0.0, 1.0),  # Cb == 1 is tested first
    (BlendMode.COLOR_BURN, 1.0, 0.4, 1.0),
    (BlendMode.COLOR_BURN, 0.5, 0.0, 0.0),  # Cs == 0
    (BlendMode.COLOR_BURN, 0.8, 0.5, 0.6),  # 1 - 0.2 / 0.5
    (BlendMode.COLOR_BURN, 0.2, 0.5, 0.0),  # 1 - min(1, 1.6)
    (BlendMode.HARD_LIGHT, 0.6, 0.25, 0.3),  # Cs <= 0.5: Multiply(0.6, 0.5)
    (BlendMode.HARD_LIGHT, 0.6, 0.75, 0.8),  # Cs > 0.5: Screen(0.6, 0.5)
    (BlendMode.HARD_LIGHT, 0.6, 0.5, 0.6),  # the branch point, Multiply(0.6, 1)
    (BlendMode.SOFT_LIGHT, 0.6, 0.25, 0.48),  # Cs <= 0.5: 0.6 - 0.5 x 0.6 x 0.4
    (BlendMode.SOFT_LIGHT, 0.2, 0.75, 0.324),  # Cs > 0.5, Cb <= 0.25: D = (-8.8 x 0.2 + 4) x 0.2 = 0.448
    (BlendMode.SOFT_LIGHT, 0.22, 1.0, 0.469568),  # Cs = 1: B = D(0.22), still the polynomial
    (BlendMode.SOFT_LIGHT, 0.64, 1.0, 0.8),  # Cs > 0.5, Cb > 0.25: D = sqrt(0.64) = 0.8
    (BlendMode.SOFT_LIGHT, 0.36, 0.75, 0.48),  # 0.36 + 0.5 x (0.6 - 0.36)
    (BlendMode.DIFFERENCE, 0.3, 0.8, 0.5),
    (BlendMode.DIFFERENCE, 0.8, 0.3, 0.5),
    (BlendMode.EXCLUSION, 0.5, 0.4, 0.5),  # 0.9 - 0.4
    (BlendMode.EXCLUSION, 0.2, 0.6, 0.56),  # 0.8 - 0.24
]


@pytest.mark.parametrize(("mode", "cb", "cs", "expected"), SEPARABLE_CASES, ids=lambda v: str(v))
def test_separable_modes_by_hand(mode, cb, cs, expected):
    function = ref.blend_function(mode)
    assert function(np.float64(cb), np.float64(cs)) == pytest.approx(expected, abs=1e-12)
    # The same through blend(): opaque grey inputs, so the result is B on every channel.
    out = blend(opaque(cb, cb, cb), opaque(cs, cs, cs), mode)
    np.testing.assert_allclose(out, [expected] * 3 + [1.0], **EXACT)


def test_soft_light_d_is_the_spec_polynomial_then_sqrt():
    cb = np.array([0.0, 0.1, 0.2, 0.25, 0.3, 0.81, 1.0])
    poly = ((16 * cb - 12) * cb + 4) * cb
    np.testing.assert_allclose(ref.soft_light_d(cb), np.where(cb <= 0.25, poly, np.sqrt(cb)), **EXACT)
    assert ref.soft_light_d(0.2) == pytest.approx(0.448, abs=1e-12)  # not sqrt(0.2) = 0.4472
    assert ref.soft_light_d(0.22) == pytest.approx(0.469568, abs=1e-12)  # ((3.52 - 12) x 0.22 + 4) x 0.22
    assert ref.soft_light_d(0.3) == pytest.approx(0.3**0.5, abs=1e-12)  # not the polynomial's 0.552
    assert ref.soft_light_d(0.25) == pytest.approx(0.5, abs=1e-12)  # continuous at the switch


def test_overlay_is_hard_light_with_roles_swapped(rng):
    cb, cs = rng.random((2, 1000))
    np.testing.assert_allclose(ref.overlay(cb, cs), ref.hard_light(cs, cb), **EXACT)
    assert not np.allclose(ref.overlay(cb, cs), ref.hard_light(cb, cs))


SYMMETRIC = [BlendMode.MULTIPLY, BlendMode.SCREEN, BlendMode.DIFFERENCE, BlendMode.EXCLUSION,
             BlendMode.DARKEN, BlendMode.LIGHTEN]


@pytest.mark.parametrize("mode", SYMMETRIC, ids=str)
def test_symmetric_modes_commute_on_opaque_inputs(rng, mode):
    a = np.concatenate([rng.random((1000, 3)), np.ones((1000, 1))], axis=-1)
    b = np.concatenate([rng.random((1000, 3)), np.ones((1000, 1))], axis=-1)
    np.testing.assert_allclose(blend(a, b, mode), blend(b, a, mode), **EXACT)


@pytest.mark.parametrize("mode", [BlendMode.OVERLAY, BlendMode.HARD_LIGHT, BlendMode.SOFT_LIGHT,
                                  BlendMode.COLOR_DODGE, BlendMode.COLOR_BURN, BlendMode.HUE], ids=str)
def test_asymmetric_modes_do_not_commute(rng, mode):
    # Guards the argument order: these modes treat backdrop and source differently.
    a = np.concatenate([rng.random((1000, 3)), np.ones((1000, 1))], axis=-1)
    b = np.concatenate([rng.random((1000, 3)), np.ones((1000, 1))], axis=-1)
    assert not np.allclose(blend(a, b, mode), blend(b, a, mode))


# -- non-separable modes ---------------------------------------------------------------------


def test_lum_and_sat():
    assert ref.lum(np.array([1.0, 0.0, 0.0]))[0] == pytest.approx(0.3)
    assert ref.lum(np.array([0.0, 1.0, 0.0]))[0] == pytest.approx(0.59)
    assert ref.lum(np.array([0.0, 0.0, 1.0]))[0] == pytest.approx(0.11)
    assert ref.lum(np.array([0.2, 0.4, 0.6]))[0] == pytest.approx(0.362)
    assert ref.sat(np.array([0.2, 0.9, 0.6]))[0] == pytest.approx(0.7)
    assert ref.sat(np.array([0.5, 0.5, 0.5]))[0] == 0.0


def test_set_lum_properties(rng):
    c = rng.random((5000, 3))
    l = rng.random((5000, 1))
    out = ref.set_lum(c, l)
    # ClipColor keeps the luminosity, so SetLum always reaches l ...
    np.testing.assert_allclose(ref.lum(out), l, rtol=0, atol=1e-12)
    # ... within the colour range ...
    assert out.min() >= -1e-12 and out.max() <= 1 + 1e-12
    # ... and where no clipping is needed, it is a plain shift by l - Lum(C).
    shifted = c + (l - ref.lum(c))
    fits = np.all((shifted >= 0) & (shifted <= 1), axis=-1)
    assert fits.sum() > 500 and (~fits).sum() > 500
    np.testing.assert_allclose(out[fits], shifted[fits], **EXACT)
    # Clipping moves along the line to grey at L: the hue's direction is kept.
    direction = out[~fits] - ref.lum(out[~fits])
    original = shifted[~fits] - l[~fits]
    cross = np.cross(direction, original)
    np.testing.assert_allclose(cross, 0, atol=1e-12)


def test_set_sat_properties(rng):
    c = rng.random((5000, 3))
    s = rng.random((5000, 1))
    out = ref.set_sat(c, s)
    np.testing.assert_allclose(ref.sat(out), s, **EXACT)
    np.testing.assert_allclose(out.min(axis=-1), 0, **EXACT)
    # The order of the components is kept (the hue's ordering).
    assert np.array_equal(np.argsort(c, axis=-1), np.argsort(out, axis=-1))
    # A grey becomes black whatever s is; ties give equal components.
    assert np.array_equal(ref.set_sat(np.array([0.4, 0.4, 0.4]), 0.7), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(ref.set_sat(np.array([0.2, 0.6, 0.6]), 0.5), [0.0, 0.5, 0.5], **EXACT)
    np.testing.assert_allclose(ref.set_sat(np.array([0.2, 0.2, 0.6]), 0.5), [0.0, 0.0, 0.5], **EXACT)
    np.testing.assert_allclose(ref.set_sat(np.array([1.0, 0.5, 0.0]), 0.4), [0.4, 0.2, 0.0], **EXACT)


def test_clip_color_by_hand():
    # SetLum(red, 0.5): C = (1.2, 0.2, 0.2), L = 0.5, x = 1.2 > 1:
    # C = 0.5 + (C - 0.5) x 0.5 / 0.7 = (1, 2/7, 2/7).
    np.testing.assert_allclose(ref.clip_color(np.array([1.2, 0.2, 0.2])), [1.0, 2 / 7, 2 / 7], **EXACT)
    # n < 0: (-0.043, 0.457, 0.957), L = 0.362: C = L + (C - L) x L / (L + 0.043).
    k = 0.362 / 0.405
    expected = [0.0, 0.362 + 0.095 * k, 0.362 + 0.595 * k]
    np.testing.assert_allclose(ref.clip_color(np.array([-0.043, 0.457, 0.957])), expected, **EXACT)
    # In range: unchanged.
    assert np.array_equal(ref.clip_color(np.array([0.1, 0.5, 0.9])), [0.1, 0.5, 0.9])


# (mode, Cb, Cs, B(Cb, Cs)) for opaque inputs, worked out by hand from the spec.
_K = 0.362 / 0.405
NON_SEPARABLE_CASES = [
    # color = SetLum(Cs, Lum(Cb)): red on 50% grey -> (1.2, 0.2, 0.2) clipped -> (1, 2/7, 2/7)
    (BlendMode.COLOR, (0.5, 0.5, 0.5), (1.0, 0.0, 0.0), (1.0, 2 / 7, 2 / 7)),
    # color of a grey source: the backdrop's luminosity as grey
    (BlendMode.COLOR, (0.2, 0.4, 0.6), (0.9, 0.9, 0.9), (0.362, 0.362, 0.362)),
    # luminosity = SetLum(Cb, Lum(Cs)): (0.2, 0.4, 0.6) + (0.5 - 0.362), no clip
    (BlendMode.LUMINOSITY, (0.2, 0.4, 0.6), (0.5, 0.5, 0.5), (0.338, 0.538, 0.738)),
    # luminosity of black is black (n < 0, L = 0 collapses to grey 0)
    (BlendMode.LUMINOSITY, (0.2, 0.4, 0.6), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
    # hue: SetSat(orange, 0.4) = (0.4, 0.2, 0), Lum 0.238, + 0.124 -> (0.524, 0.324, 0.124)
    (BlendMode.HUE, (0.2, 0.4, 0.6), (1.0, 0.5, 0.0), (0.524, 0.324, 0.124)),
    # hue on a grey backdrop (Sat 0): the backdrop unchanged
    (BlendMode.HUE, (0.3, 0.3, 0.3), (1.0, 0.5, 0.0), (0.3, 0.3, 0.3)),
    # saturation: SetSat(Cb, 1) = (0, 0.5, 1), Lum 0.405, - 0.043 -> (-0.043, 0.457, 0.957),
    # then ClipColor (n < 0) with L = 0.362
    (BlendMode.SATURATION, (0.2, 0.4, 0.6), (1.0, 0.5, 0.0), (0.0, 0.362 + 0.095 * _K, 0.362 + 0.595 * _K)),
    # saturation on a pure grey backdrop produces no change (the spec says so)
    (BlendMode.SATURATION, (0.7, 0.7, 0.7), (1.0, 0.0, 0.5), (0.7, 0.7, 0.7)),
    # a grey source's saturation (0) turns the backdrop grey at its luminosity
    (BlendMode.SATURATION, (0.2, 0.4, 0.6), (0.5, 0.5, 0.5), (0.362, 0.362, 0.362)),
]


@pytest.mark.parametrize(("mode", "cb", "cs", "expected"), NON_SEPARABLE_CASES, ids=lambda v: str(v))
def test_non_separable_modes_by_hand(mode, cb, cs, expected):
    out = blend(opaque(*cb), opaque(*cs), mode)
    np.testing.assert_allclose(out, [*expected, 1.0], **EXACT)


def test_color_and_luminosity_are_each_others_inverse(rng):
    cb, cs = rng.random((2, 1000, 3))
    np.testing.assert_allclose(ref.color(cb, cs), ref.luminosity(cs, cb), **EXACT)


@pytest.mark.parametrize("mode", [BlendMode.HUE, BlendMode.SATURATION, BlendMode.COLOR, BlendMode.LUMINOSITY], ids=str)
def test_non_separable_keep_the_luminosity_they_promise(rng, mode):
    cb, cs = rng.random((2, 2000, 3))
    out = ref.blend_function(mode)(cb, cs)
    kept = cs if mode is BlendMode.LUMINOSITY else cb
    np.testing.assert_allclose(ref.lum(out), ref.lum(kept), rtol=0, atol=1e-12)


# -- alpha handling, plus-lighter, ranges -----------------------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_transparent_backdrop_gives_the_source(rng, mode):
    s = random_premultiplied(rng, 2000)
    np.testing.assert_allclose(blend(np.zeros(4), s, mode), s, **EXACT)


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_transparent_source_gives_the_backdrop(rng, mode):
    b = random_premultiplied(rng, 2000)
    np.testing.assert_allclose(blend(b, np.zeros(4), mode), b, **EXACT)


@pytest.mark.parametrize("mode", BLEND_FUNCTION_MODES, ids=str)
def test_alpha_is_source_over_alpha(rng, mode):
    b = random_premultiplied(rng, 2000)
    s = random_premultiplied(rng, 2000)
    expected = s[:, 3] + b[:, 3] * (1 - s[:, 3])
    np.testing.assert_allclose(blend(b, s, mode)[:, 3], expected, **EXACT)


def test_plus_lighter_is_a_clamped_sum():
    b = np.array([0.5, 0.2, 0.0, 0.6])
    s = np.array([0.4, 0.6, 0.1, 0.7])
    np.testing.assert_allclose(blend(b, s, "plus-lighter"), [0.9, 0.8, 0.1, 1.0], **EXACT)
    b = np.array([0.3, 0.1, 0.2, 0.4])
    s = np.array([0.2, 0.3, 0.1, 0.5])
    np.testing.assert_allclose(blend(b, s, "plus-lighter"), [0.5, 0.4, 0.3, 0.9], **EXACT)
    # white plus white stays white; it is symmetric.
    assert np.array_equal(blend(np.ones(4), np.ones(4), "plus-lighter"), np.ones(4))


def test_plus_lighter_clamps_and_commutes(rng):
    b = random_premultiplied(rng, 2000)
    s = random_premultiplied(rng, 2000)
    out = blend(b, s, BlendMode.PLUS_LIGHTER)
    np.testing.assert_allclose(out, np.minimum(1.0, b + s), **EXACT)
    assert out.max() <= 1.0 and (b + s).max() > 1.0
    assert np.array_equal(out, blend(s, b, BlendMode.PLUS_LIGHTER))


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_results_in_range_and_premultiplied(rng, mode):
    b = random_premultiplied(rng, 20000)
    s = random_premultiplied(rng, 20000)
    out = blend(b, s, mode)
    assert np.all(np.isfinite(out))
    assert out.min() >= 0.0 and out.max() <= 1.0 + 1e-12
    assert np.all(out[:, :3] <= out[:, 3:4] + 1e-12), "colour must not exceed alpha"


@pytest.mark.parametrize("mode", BLEND_FUNCTION_MODES, ids=str)
def test_blend_functions_stay_in_range(rng, mode):
    # Edges included: straight 0 and 1 in every combination, plus random colours.
    grid = np.array(np.meshgrid(*[[0.0, 0.5, 1.0]] * 3)).reshape(3, -1).T  # 27 colours
    cb = np.concatenate([np.repeat(grid, len(grid), axis=0), rng.random((2000, 3))])
    cs = np.concatenate([np.tile(grid, (len(grid), 1)), rng.random((2000, 3))])
    out = ref.blend_function(mode)(cb, cs)
    assert np.all(np.isfinite(out))
    assert out.min() >= -1e-12 and out.max() <= 1 + 1e-12
