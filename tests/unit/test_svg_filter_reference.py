"""The float64 reference of SVG filter primitives (lamina.filters.svg.reference) against
values computed by hand from the spec's formulas and against properties that must hold
(identities, conservation, periodicity); feTurbulence against a plain scalar
transliteration of the spec's C code."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from lamina.errors import UnsupportedFeatureError
from lamina.filters.svg import parse_svg
from lamina.filters.svg import model as m
from lamina.filters.svg.reference import CONE_SMOOTHING, apply_filter, linear_to_srgb, run_filter, srgb_to_linear
from lamina.filters.svg.turbulence import lattice, random, setup_seed, turbulence

NS = 'xmlns="http://www.w3.org/2000/svg"'
# The filter region is the element's box and colour work is in sRGB unless a test says otherwise.
BOX_SRGB = 'id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB"'


def element(body: str, attrs: str = BOX_SRGB) -> m.FilterElement:
    return parse_svg(f"<svg {NS}><filter {attrs}>{body}</filter></svg>").filter("f")


def run(body: str, src: np.ndarray, attrs: str = BOX_SRGB, **kw) -> np.ndarray:
    out, _ = apply_filter(element(body, attrs), src, **kw)
    return out


def premult(rgba) -> np.ndarray:
    a = np.asarray(rgba, dtype=np.float64)
    out = a.copy()
    out[..., :3] *= out[..., 3:4]
    return out


def random_image(h: int = 9, w: int = 11, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return premult(rng.random((h, w, 4)))


def solid(h: int, w: int, rgba) -> np.ndarray:
    return np.broadcast_to(premult(np.array(rgba, dtype=np.float64)), (h, w, 4)).copy()


# -- colour spaces ---------------------------------------------------------------------------

def test_srgb_transfer_functions_are_inverse_and_hit_the_specs_values():
    c = np.linspace(0, 1, 101)
    assert np.allclose(linear_to_srgb(srgb_to_linear(c)), c, atol=1e-12)
    assert srgb_to_linear(np.array(0.5)) == pytest.approx(((0.5 + 0.055) / 1.055) ** 2.4)
    assert srgb_to_linear(np.array(0.04)) == pytest.approx(0.04 / 12.92)


def test_linear_rgb_round_trips_untouched_pixels_and_changes_colour_work():
    src = random_image()
    body = "<feOffset dx='0'/>"
    linear = 'id="f" x="0" y="0" width="1" height="1"'  # linearRGB: the default
    assert np.allclose(run(body, src, linear), src, atol=1e-12), "convert in and out: identity"
    # feFuncR linear slope .5 on opaque sRGB 0.5: in sRGB 0.25; in linearRGB lin(0.5)/2 back to sRGB.
    grey = solid(2, 2, [0.5, 0.5, 0.5, 1])
    half = "<feComponentTransfer><feFuncR type='linear' slope='.5'/></feComponentTransfer>"
    assert run(half, grey)[0, 0, 0] == pytest.approx(0.25)
    expected = 1.055 * (srgb_to_linear(np.array(0.5)) / 2) ** (1 / 2.4) - 0.055
    assert run(half, grey, linear)[0, 0, 0] == pytest.approx(expected)
    # A primitive's own colour-interpolation-filters overrides the filter's.
    per_primitive = half.replace("<feComponentTransfer>", "<feComponentTransfer color-interpolation-filters='sRGB'>")
    assert run(per_primitive, grey, linear)[0, 0, 0] == pytest.approx(0.25)


def test_flood_colour_is_srgb_and_comes_back_exactly_in_linear_rgb():
    out = run("<feFlood flood-color='rgb(128 64 32)' flood-opacity='.5'/>", random_image(),
              'id="f" x="0" y="0" width="1" height="1"')
    assert np.allclose(out[..., :3] / out[..., 3:4], [128 / 255, 64 / 255, 32 / 255]) and np.allclose(out[..., 3], .5)


# -- colour primitives ------------------------------------------------------------------------

def test_identity_colour_matrix_and_transfer_leave_pixels_alone():
    src = random_image()
    identity = "1 0 0 0 0 0 1 0 0 0 0 0 1 0 0 0 0 0 1 0"
    assert np.allclose(run(f"<feColorMatrix values='{identity}'/>", src), src, atol=1e-12)
    assert np.allclose(run("<feColorMatrix/>", src), src, atol=1e-12)
    assert np.allclose(run("<feColorMatrix type='hueRotate'/>", src), src, atol=1e-12)
    assert np.allclose(run("<feColorMatrix type='saturate' values='1'/>", src), src, atol=1e-12)
    funcs = "".join(f"<feFunc{c} type='identity'/>" for c in "RGBA")
    assert np.allclose(run(f"<feComponentTransfer>{funcs}</feComponentTransfer>", src), src, atol=1e-12)


def test_colour_matrix_hand_values():
    px = solid(1, 1, [0.2, 0.4, 0.6, 0.5])
    l2a = run("<feColorMatrix type='luminanceToAlpha'/>", px)[0, 0]
    assert np.allclose(l2a, [0, 0, 0, 0.2125 * .2 + 0.7154 * .4 + 0.0721 * .6])
    grey = run("<feColorMatrix type='saturate' values='0'/>", px)[0, 0]
    y = 0.213 * .2 + 0.715 * .4 + 0.072 * .6
    assert np.allclose(grey, [y * .5, y * .5, y * .5, .5])
    # A matrix reads straight colour and is clamped: R' = 2 R + 0.9 -> 1; A' = A.
    m2 = "2 0 0 0 .9  0 1 0 0 0  0 0 1 0 0  0 0 0 1 0"
    assert np.allclose(run(f"<feColorMatrix values='{m2}'/>", px)[0, 0], [.5, .2, .3, .5])


@pytest.mark.parametrize("func, c, expected", [
    ("type='table' tableValues='0 1 0'", 0.25, 0.5),
    ("type='table' tableValues='0 1 0'", 0.5, 1.0),
    ("type='table' tableValues='0 1 0'", 1.0, 0.0),
    ("type='table' tableValues='.3'", 0.9, 0.3),
    ("type='discrete' tableValues='.2 .8'", 0.4, 0.2),
    ("type='discrete' tableValues='.2 .8'", 0.6, 0.8),
    ("type='discrete' tableValues='.2 .8'", 1.0, 0.8),
    ("type='linear' slope='2' intercept='-.1'", 0.3, 0.5),
    ("type='gamma' amplitude='2' exponent='2' offset='.1'", 0.5, 0.6),
    ("type='linear' slope='5'", 0.5, 1.0),  # clamped
    ("type='table'", 0.7, 0.7),  # no values: identity
])
def test_component_transfer_hand_values(func, c, expected):
    out = run(f"<feComponentTransfer><feFuncG {func}/></feComponentTransfer>", solid(1, 1, [0, c, 0, 1]))
    assert out[0, 0, 1] == pytest.approx(expected)


# -- compositing --------------------------------------------------------------------------------

A = [0.8, 0.2, 0.4, 0.5]
B = [0.1, 0.6, 0.9, 0.25]


def _two(body: str) -> np.ndarray:
    """``body`` with in = flood A, in2 = flood B (sRGB colours as written)."""
    flood = lambda c, r: (f"<feFlood flood-color='color(srgb {c[0]} {c[1]} {c[2]})' flood-opacity='{c[3]}' "
                          f"result='{r}'/>")
    return run(flood(A, "a") + flood(B, "b") + body, solid(1, 1, [0, 0, 0, 1]))[0, 0]


@pytest.mark.parametrize("operator, formula", [
    ("over", lambda a, b: a + b * (1 - a[3])),
    ("in", lambda a, b: a * b[3]),
    ("out", lambda a, b: a * (1 - b[3])),
    ("atop", lambda a, b: a * b[3] + b * (1 - a[3])),
    ("xor", lambda a, b: a * (1 - b[3]) + b * (1 - a[3])),
    ("lighter", lambda a, b: np.minimum(a + b, 1)),
])
def test_composite_operators_are_porter_duff_on_premultiplied(operator, formula):
    a, b = premult(np.array(A)), premult(np.array(B))
    assert np.allclose(_two(f"<feComposite in='a' in2='b' operator='{operator}'/>"), formula(a, b))


def test_composite_arithmetic_hand_values():
    a, b = premult(np.array(A)), premult(np.array(B))
    out = _two("<feComposite in='a' in2='b' operator='arithmetic' k1='1' k2='.5' k3='.25' k4='.01'/>")
    assert np.allclose(out, a * b + .5 * a + .25 * b + .01)
    only_a = _two("<feComposite in='a' in2='b' operator='arithmetic' k2='1'/>")
    assert np.allclose(only_a, a)
    # Clamped to [0, 1] and colour to alpha: k4 = 1 alone gives opaque white.
    assert np.allclose(_two("<feComposite in='a' in2='b' operator='arithmetic' k4='2'/>"), [1, 1, 1, 1])
    assert np.allclose(_two("<feComposite in='a' in2='b' operator='arithmetic' k2='-1'/>"), 0)


def test_blend_and_merge():
    a, b = premult(np.array(A)), premult(np.array(B))
    assert np.allclose(_two("<feBlend in='a' in2='b'/>"), a + b * (1 - a[3]))
    mult = _two("<feBlend in='a' in2='b' mode='multiply'/>")
    # multiply: co = cs (1 - ab) + cb (1 - as) + cs cb (premultiplied), ao = as + ab - as ab
    expected = a[:3] * (1 - b[3]) + b[:3] * (1 - a[3]) + a[:3] * b[:3]
    assert np.allclose(mult[:3], expected) and mult[3] == pytest.approx(a[3] + b[3] - a[3] * b[3])
    merged = _two("<feMerge><feMergeNode in='b'/><feMergeNode in='a'/></feMerge>")
    assert np.allclose(merged, a + b * (1 - a[3])), "later nodes on top"


# -- spatial primitives ----------------------------------------------------------------------

def test_gaussian_blur_conserves_mass_and_is_separable_per_axis():
    src = np.zeros((41, 41, 4))
    src[20, 20] = [0.5, 0.25, 1.0, 1.0]
    wide = 'id="f" color-interpolation-filters="sRGB" x="-1" y="-1" width="3" height="3"'
    out = run("<feGaussianBlur stdDeviation='3'/>", src, wide)
    assert np.allclose(out.sum(axis=(0, 1)), src.sum(axis=(0, 1)), atol=1e-9)
    # The profile is the normalised sampled Gaussian: centre over its neighbour is exp(1 / (2 sigma^2)).
    assert out[20, 20, 3] / out[20, 21, 3] == pytest.approx(math.exp(1 / 18), rel=1e-6)
    only_x = run("<feGaussianBlur stdDeviation='3 0'/>", src, wide)
    assert np.count_nonzero(only_x[:, :, 3].sum(axis=1)) == 1, "stdDeviation y = 0 blurs along x only"
    assert np.allclose(run("<feGaussianBlur stdDeviation='0'/>", src, wide), src), "0 disables: the input"


@pytest.mark.parametrize("mode, corner", [("none", "lower"), ("duplicate", "same"), ("wrap", "same")])
def test_blur_edge_modes(mode, corner):
    src = solid(12, 12, [0.2, 0.4, 0.6, 1])
    out = run(f"<feGaussianBlur stdDeviation='2' edgeMode='{mode}'/>", src)
    if corner == "same":
        assert np.allclose(out, src), f"{mode}: a constant image extended stays constant"
    else:
        assert out[0, 0, 3] < 0.5 and out[6, 6, 3] > 0.9


def test_offset_shifts_with_transparent_black_coming_in():
    src = random_image()
    out = run("<feOffset dx='2' dy='1'/>", src)
    assert np.allclose(out[1:, 2:], src[:-1, :-2]) and not out[0].any() and not out[:, :2].any()


@pytest.mark.parametrize("mode, first", [("duplicate", 0), ("wrap", -1), ("none", None)])
def test_convolve_matrix_rotates_the_kernel_and_extends_edges(mode, first):
    src = random_image(4, 6)
    # RESULT(x) = sum_j SOURCE(x - targetX + j) kernel[orderX - j - 1]: kernel '0 0 1' reads x - 1.
    out = run(f"<feConvolveMatrix order='3 1' kernelMatrix='0 0 1' edgeMode='{mode}'/>", src)
    assert np.allclose(out[:, 1:], src[:, :-1])
    assert np.allclose(out[:, 0], 0 if first is None else src[:, first])


def test_convolve_divisor_bias_and_preserve_alpha():
    src = solid(3, 3, [0.5, 0.5, 0.5, 0.4])
    box = "kernelMatrix='1 1 1 1 1 1 1 1 1'"
    assert np.allclose(run(f"<feConvolveMatrix {box}/>", src), src), "divisor defaults to the kernel's sum"
    doubled = run(f"<feConvolveMatrix {box} divisor='4.5' bias='0.1'/>", src)[1, 1]
    assert np.allclose(doubled, [0.5, 0.5, 0.5, 0.9])  # 2 x premultiplied (0.2, 0.4) + bias
    assert np.allclose(run(f"<feConvolveMatrix {box} divisor='3'/>", src)[1, 1], [0.6, 0.6, 0.6, 1]), \
        "alpha clamped to 1, colour to alpha"
    kept = run(f"<feConvolveMatrix {box} divisor='4.5' preserveAlpha='true'/>", src)[1, 1]
    assert np.allclose(kept, [0.4, 0.4, 0.4, 0.4]), "straight colour 0.5 doubled to 1, times the kept alpha"


@pytest.mark.parametrize("edge", ["none", "duplicate", "wrap"])
def test_kernel_unit_length_of_whole_pixels_spreads_the_kernel_over_them(edge):
    """kernelUnitLength 2 x 1 px: the same sums as the kernel with a zero column between
    each of its columns (order 2 ox - 1, target 2 targetX), computed without it."""
    src = random_image(9, 13, seed=5)
    spread = run(f"<feConvolveMatrix order='3 2' kernelMatrix='1 -2 .5 3 0 -1' targetX='2' divisor='2' "
                 f"edgeMode='{edge}' kernelUnitLength='2 1'/>", src)
    zeros = run(f"<feConvolveMatrix order='5 2' kernelMatrix='1 0 -2 0 .5 3 0 0 0 -1' targetX='4' divisor='2' "
                f"edgeMode='{edge}'/>", src)
    assert np.allclose(spread, zeros, atol=1e-12)
    in_units = run("<feConvolveMatrix order='3 2' kernelMatrix='1 -2 .5 3 0 -1' targetX='2' divisor='2' "
                   f"edgeMode='{edge}' kernelUnitLength='1 .5'/>", src, scale=2.0)
    zeros_2x = run(f"<feConvolveMatrix order='5 2' kernelMatrix='1 0 -2 0 .5 3 0 0 0 -1' targetX='4' divisor='2' "
                   f"edgeMode='{edge}'/>", src, scale=2.0)
    assert np.allclose(in_units, zeros_2x, atol=1e-12), "in user units: 1 x .5 at 2 px a unit is 2 x 1 px"


def test_kernel_unit_length_between_pixels_reads_the_image_bilinearly():
    """kernelUnitLength 1.5 x 1 px, one cell of weight 1 at offset -1 x 1.5 px: each pixel is
    the mean of the two pixels 1 and 2 to its left (transparent past the edge), and with a
    quarter-pixel length the 3:1 mix of its own and its left neighbour's."""
    src = random_image(7, 12, seed=11)
    out = run("<feConvolveMatrix order='3 1' kernelMatrix='0 0 1' edgeMode='none' kernelUnitLength='1.5 1'/>", src)
    padded = np.concatenate([np.zeros((7, 2, 4)), src], axis=1)
    assert np.allclose(out, 0.5 * padded[:, 0:12] + 0.5 * padded[:, 1:13], atol=1e-12)
    quarter = run("<feConvolveMatrix order='3 1' kernelMatrix='0 0 1' edgeMode='duplicate' kernelUnitLength='.25 1'/>",
                  src)
    left = np.concatenate([src[:, :1], src[:, :-1]], axis=1)  # duplicate: the edge pixel past the left edge
    assert np.allclose(quarter, 0.75 * src + 0.25 * left, atol=1e-12)


def test_a_kernel_unit_length_far_past_the_image_reads_what_the_edge_mode_gives_there():
    """kernelUnitLength 1e5 px (under the 1e6 limit) on a 12 px image: the reference pads
    by the image, not by the reach (3e5 px each side was an untyped MemoryError). Wrap
    reads 1.5 px away (1e5 + 1.5 is a whole number of 12 px periods off it); duplicate
    reads the edge pixel, none reads nothing, for every cell but the centre."""
    src = random_image(7, 12, seed=12)
    body = "<feConvolveMatrix order='3 1' kernelMatrix='1 2 -1' divisor='1' edgeMode='{}' kernelUnitLength='{} 1'/>"
    far = run(body.format("wrap", 12 * 8000 + 1.5), src)
    assert np.allclose(far, run(body.format("wrap", 1.5), src), atol=1e-9)

    def clamped(v: np.ndarray) -> np.ndarray:  # alpha to [0, 1], colour to [0, alpha]
        v = np.clip(v, 0.0, 1.0)
        v[..., :3] = np.minimum(v[..., :3], v[..., 3:4])
        return v

    left, right = src[:, :1], src[:, -1:]  # the kernel is flipped: cell 0 reads +1e5 px, cell 2 -1e5 px
    assert np.allclose(run(body.format("duplicate", 1e5), src), clamped(right + 2.0 * src - left), atol=1e-12)
    assert np.allclose(run(body.format("none", 1e5), src), clamped(2.0 * src), atol=1e-12)


def test_morphology_dilates_a_point_into_a_rectangle_and_erodes_it_away():
    src = np.zeros((9, 9, 4))
    src[4, 4] = [0.3, 0.2, 0.1, 0.5]
    out = run("<feMorphology operator='dilate' radius='2 1'/>", src)
    assert np.allclose(out[3:6, 2:7], src[4, 4]) and np.count_nonzero(out[..., 3]) == 15
    assert not run("<feMorphology radius='1'/>", src).any()
    assert np.allclose(run("<feMorphology operator='dilate' radius='0 3'/>", src), src), "0 disables"


def test_tile_repeats_the_inputs_subregion():
    src = random_image(8, 8)
    out = run("<feOffset x='0' y='0' width='3' height='2'/><feTile/>", src,
              BOX_SRGB.replace('width="1"', 'width="1" primitiveUnits="userSpaceOnUse"'))
    tile = src[:2, :3]
    expected = np.tile(tile, (4, 3, 1))[:8, :8]
    assert np.allclose(out, expected)


def test_displacement_map():
    src = random_image(6, 8)
    still = run("<feFlood flood-color='color(srgb .5 .5 .5)' result='m'/>"
                "<feDisplacementMap in='SourceGraphic' in2='m' scale='10' xChannelSelector='R' yChannelSelector='B'/>",
                src)
    assert np.allclose(still, src), "a map of 0.5 moves nothing"
    # R = 1: dx = scale * (1 - 0.5) = 2 px: out(x) = in(x + 2); transparent where it reads outside.
    moved = run("<feFlood flood-color='rgb(255 0 0)' result='m'/>"
                "<feDisplacementMap in='SourceGraphic' in2='m' scale='4' xChannelSelector='R' yChannelSelector='G'/>",
                src)
    # G = 0: dy = 4 * (0 - 0.5) = -2: out(y) = in(y - 2).
    assert np.allclose(moved[2:, :-2], src[:-2, 2:]) and not moved[:2].any() and not moved[:, -2:].any()


def test_drop_shadow_is_its_equivalent_graph():
    src = np.zeros((8, 8, 4))
    src[2:4, 2:4] = premult(np.array([1.0, 0.0, 0.0, 0.5]))
    out = run("<feDropShadow dx='2' dy='1' stdDeviation='0' flood-color='blue' flood-opacity='.5'/>", src)
    shadow = np.zeros_like(src)
    shadow[3:5, 4:6] = [0, 0, 0.25, 0.25]
    assert np.allclose(out, src + shadow * (1 - src[..., 3:4]))


def test_image_places_the_loaded_picture_in_its_subregion():
    picture = premult(np.random.default_rng(5).random((4, 4, 4)))
    out = run("<feImage href='p.png' preserveAspectRatio='none'/>", np.zeros((4, 4, 4)),
              image_loader=lambda href: picture)
    assert np.allclose(out, picture)


# -- lighting ----------------------------------------------------------------------------------

FLAT = solid(6, 6, [0, 0, 0, 1])


@pytest.mark.parametrize("elevation", [90, 30, 0])
def test_diffuse_distant_light_on_a_flat_surface_is_kd_n_dot_l(elevation):
    out = run(f"<feDiffuseLighting diffuseConstant='.8' lighting-color='rgb(255 128 0)'>"
              f"<feDistantLight azimuth='10' elevation='{elevation}'/></feDiffuseLighting>", FLAT)
    n_dot_l = math.sin(math.radians(elevation))
    assert np.allclose(out[..., :3], np.array([1, 128 / 255, 0]) * 0.8 * n_dot_l) and np.allclose(out[..., 3], 1)


def test_diffuse_light_on_a_slope_follows_the_specs_normal():
    d = 0.1
    ramp = np.zeros((5, 7, 4))
    ramp[..., 3] = np.arange(7)[None, :] * d  # alpha rises along x
    body = "<feDiffuseLighting surfaceScale='2'><feDistantLight azimuth='180' elevation='0'/></feDiffuseLighting>"
    out = run(body, ramp)
    # Interior: Nx = -ss/4 (4 A(x+1) - 4 A(x-1)) = -2 ss d; L = (-1, 0, 0); N.L = 2 ss d / |N|.
    nx = -2 * 2 * d
    assert out[2, 3, 0] == pytest.approx(-nx / math.sqrt(nx * nx + 1))
    # Left column (the spec's table): Nx = -ss * 1/2 * ((I(x+1,y-1) + 2 I(x+1,y) + I(x+1,y+1))
    #                                                 - (I(x,y-1) + 2 I(x,y) + I(x,y+1)))
    left = -2 * (1 / 2) * ((ramp[1, 1, 3] + 2 * ramp[2, 1, 3] + ramp[3, 1, 3])
                           - (ramp[1, 0, 3] + 2 * ramp[2, 0, 3] + ramp[3, 0, 3]))
    # Top-left corner: Nx = -ss * 2/3 * ((2 I(x+1,y) + I(x+1,y+1)) - (2 I(x,y) + I(x,y+1))).
    corner = -2 * (2 / 3) * ((2 * ramp[0, 1, 3] + ramp[1, 1, 3]) - (2 * ramp[0, 0, 3] + ramp[1, 0, 3]))
    assert out[0, 0, 0] == pytest.approx(-corner / math.sqrt(corner * corner + 1))
    assert out[2, 0, 0] == pytest.approx(-left / math.sqrt(left * left + 1))


def test_specular_and_point_and_spot_lights():
    spec = run("<feSpecularLighting specularConstant='.5' specularExponent='7'>"
               "<feDistantLight elevation='90'/></feSpecularLighting>", FLAT)
    # H = (L + (0, 0, 1)) normalised = (0, 0, 1): N.H = 1; alpha is the largest channel.
    assert np.allclose(spec, 0.5)
    coloured = run("<feSpecularLighting lighting-color='rgb(255 0 0)'><feDistantLight elevation='90'/>"
                   "</feSpecularLighting>", FLAT)
    assert np.allclose(coloured, [1, 0, 0, 1])
    point = run("<feDiffuseLighting><fePointLight x='3.5' y='2.5' z='4'/></feDiffuseLighting>", FLAT)
    # Pixel (2, 4): centre (4.5, 2.5), Z = 1; L = (-1, 0, 3) / sqrt(10); N = (0, 0, 1).
    assert point[2, 4, 0] == pytest.approx(3 / math.sqrt(10))
    assert point[2, 3, 0] == pytest.approx(1.0), "right under the light"
    spot = run("<feDiffuseLighting><feSpotLight x='3.5' y='2.5' z='4' pointsAtX='3.5' pointsAtY='2.5' pointsAtZ='0' "
               "specularExponent='2' limitingConeAngle='30'/></feDiffuseLighting>", FLAT)
    assert spot[2, 3, 0] == pytest.approx(1.0)
    # At (4.5, 2.5): -L.S = 3 / sqrt(10) (cos 18.4 deg, inside the cone): factor (3/sqrt(10))^2.
    assert spot[2, 4, 0] == pytest.approx((3 / math.sqrt(10)) ** 3)
    # At (0.5, 2.5): -L.S = 3 / sqrt(18) = cos 45 deg: outside the 30 deg cone.
    assert spot[2, 0, 0] == 0


# -- turbulence ---------------------------------------------------------------------------------

def test_park_miller_generator_and_seed_setup_are_the_specs():
    seq = [1]
    for _ in range(3):
        seq.append(random(seq[-1]))
    assert seq == [1, 16807, 282475249, 1622650073]  # the minimal standard generator
    assert setup_seed(0) == 1 and setup_seed(-5) == 6 and setup_seed(2 ** 31) == 2 ** 31 - 2
    selector, gradient = lattice(0)
    assert sorted(selector[:256]) == list(range(256)) and np.array_equal(selector[256:512], selector[:256])
    assert np.allclose(np.hypot(gradient[..., 0], gradient[..., 1]), 1), "gradients are unit vectors"


def _scalar_turbulence(channel, x, y, bfx, bfy, octaves, fractal, seed):
    """The spec's turbulence() for one point, a plain transliteration (no stitching)."""
    sel, grad = lattice(seed)

    def noise2(vx, vy):
        t = vx + 4096
        bx0 = int(t)
        bx1 = (bx0 + 1) & 255
        bx0 &= 255
        rx0 = t - int(t)
        rx1 = rx0 - 1
        t = vy + 4096
        by0 = int(t)
        by1 = (by0 + 1) & 255
        by0 &= 255
        ry0 = t - int(t)
        ry1 = ry0 - 1
        i, j = sel[bx0], sel[bx1]
        b00, b10, b01, b11 = sel[i + by0], sel[j + by0], sel[i + by1], sel[j + by1]
        sx, sy = rx0 * rx0 * (3 - 2 * rx0), ry0 * ry0 * (3 - 2 * ry0)
        q = grad[channel]
        u, v = rx0 * q[b00][0] + ry0 * q[b00][1], rx1 * q[b10][0] + ry0 * q[b10][1]
        a = u + sx * (v - u)
        u, v = rx0 * q[b01][0] + ry1 * q[b01][1], rx1 * q[b11][0] + ry1 * q[b11][1]
        b = u + sx * (v - u)
        return a + sy * (b - a)

    total, vx, vy, ratio = 0.0, x * bfx, y * bfy, 1.0
    for _ in range(octaves):
        n = noise2(vx, vy)
        total += (n if fractal else abs(n)) / ratio
        vx, vy, ratio = vx * 2, vy * 2, ratio * 2
    return total


def test_turbulence_matches_the_specs_code_point_by_point():
    rng = np.random.default_rng(11)
    xs, ys = rng.uniform(0, 300, 40), rng.uniform(0, 300, 40)
    for channel in range(4):
        for fractal in (True, False):
            got = turbulence(channel, xs, ys, 0.05, 0.02, 4, fractal, False, (0, 0, 100, 100), 17)
            want = [_scalar_turbulence(channel, x, y, 0.05, 0.02, 4, fractal, 17) for x, y in zip(xs, ys)]
            assert np.allclose(got, want, atol=0, rtol=0)


def test_turbulence_at_lattice_points_is_zero_and_fractal_noise_is_half_grey():
    # At whole lattice coordinates every gradient term is 0 (rx0 = ry0 = 0, weights 0).
    out = run("<feTurbulence type='fractalNoise' baseFrequency='0'/>", np.zeros((3, 3, 4)))
    assert np.allclose(out, premult(np.array([.5, .5, .5, .5])))  # (0 + 1) / 2, un-premultiplied
    assert not run("<feTurbulence baseFrequency='0'/>", np.zeros((3, 3, 4))).any()


def test_stitched_turbulence_meets_itself_across_the_tiles_edges():
    # stitchTiles adjusts the frequency to whole lattice cells per tile and wraps the
    # lattice there: the noise at the tile's right (bottom) edge is the noise at its left (top).
    tile = (8.0, 4.0, 64.0, 48.0)
    along = np.linspace(4.0, 52.0, 25)
    for octaves in (1, 3):
        common = (0.047, 0.061, octaves, True, True, tile, 5)
        left = turbulence(1, np.full_like(along, 8.0), along, *common)
        right = turbulence(1, np.full_like(along, 72.0), along, *common)
        assert np.allclose(left, right, atol=1e-12)
        top = turbulence(1, along + 8.0, np.full_like(along, 4.0), *common)
        bottom = turbulence(1, along + 8.0, np.full_like(along, 52.0), *common)
        assert np.allclose(top, bottom, atol=1e-12)
    free = (0.047, 0.061, 3, True, False, tile, 5)
    assert not np.allclose(turbulence(1, np.full_like(along, 8.0), along, *free),
                           turbulence(1, np.full_like(along, 72.0), along, *free))


def test_turbulence_seed_is_truncated_and_changes_the_noise():
    src = np.zeros((6, 6, 4))
    body = "<feTurbulence baseFrequency='.2' seed='{}'/>"
    assert np.array_equal(run(body.format("3.9"), src), run(body.format("3"), src))
    assert not np.array_equal(run(body.format("3"), src), run(body.format("4"), src))


# -- regions and units ---------------------------------------------------------------------------

def test_default_filter_region_grows_the_box_by_ten_percent_each_side():
    src = solid(10, 20, [1, 0, 0, 1])
    out, canvas = run_filter(element("<feFlood flood-color='lime'/>", 'id="f"'), src)
    assert canvas.origin == (-2, -1) and canvas.size == (24, 12)
    assert np.allclose(out[..., 1], 1) and np.allclose(out[..., 3], 1)


def test_subregions_leave_transparent_black_outside_in_both_unit_systems():
    src = np.zeros((10, 10, 4))
    user = run("<feFlood flood-color='red' x='2' y='3' width='4' height='5'/>", src)
    assert np.allclose(user[3:8, 2:6, 0], 1) and user[..., 3].sum() == 20
    box = run("<feFlood flood-color='red' x='.2' y='30%' width='.4' height='.5'/>", src,
              BOX_SRGB + ' primitiveUnits="objectBoundingBox"')
    assert np.array_equal(box, user), "fractions of the bounding box are the same pixels"


def test_a_primitive_defaults_to_the_union_of_its_inputs_subregions():
    src = np.zeros((10, 10, 4))
    out = run("<feFlood flood-color='red' x='1' y='1' width='2' height='2' result='a'/>"
              "<feFlood flood-color='blue' x='5' y='5' width='2' height='2' result='b'/>"
              "<feComposite in='a' in2='b' operator='arithmetic' k4='1'/>", src)
    # The union of the two subregions, (1, 1)-(7, 7), is filled; outside it stays transparent.
    assert np.allclose(out[1:7, 1:7], 1) and out[..., 3].sum() == 36


def test_object_bounding_box_primitive_units_scale_lengths():
    src = np.zeros((10, 20, 4))
    src[0, 0] = [0, 0, 0, 1]
    out = run("<feOffset dx='.25' dy='.5'/>", src, BOX_SRGB + ' primitiveUnits="objectBoundingBox"')
    assert out[5, 5, 3] == 1, "dx = .25 of 20 px, dy = .5 of 10 px"


def test_user_space_percentages_and_huge_regions_are_refused():
    from lamina.errors import SvgFilterError, UnsupportedFeatureError
    with pytest.raises(UnsupportedFeatureError, match="viewport"):
        run("<feFlood/>", np.zeros((2, 2, 4)), 'id="f" filterUnits="userSpaceOnUse"')
    with pytest.raises(UnsupportedFeatureError, match="viewport"):
        run("<feFlood x='10%'/>", np.zeros((2, 2, 4)))
    with pytest.raises(SvgFilterError, match="over the 16384 px"):
        run("<feFlood/>", np.zeros((2, 2, 4)), 'id="f" width="100000"')


def test_scale_maps_user_units_to_pixels():
    src = np.zeros((8, 8, 4))
    src[0, 0] = [0, 0, 0, 1]
    out = run("<feOffset dx='1' dy='2'/>", src, scale=2.0)
    assert out[4, 2, 3] == 1, "1 and 2 user units at 2 px per unit"


def test_pruned_primitives_do_not_run_and_a_live_fe_image_needs_a_loader():
    from lamina.errors import UnsupportedFeatureError
    src = random_image()
    # The feImage's result is unused: pruned, so no loader is needed.
    out = run("<feImage href='x.png' result='unused'/><feOffset in='SourceGraphic'/>", src)
    assert np.allclose(out, src)
    with pytest.raises(UnsupportedFeatureError, match="feImage needs its image"):
        run("<feImage href='x.png'/>", src)


def _spec_normal(a: np.ndarray, x: int, y: int, ss: float) -> tuple[float, float]:
    """The spec's table of surface normals (feDiffuseLighting), case by case, written out."""
    h, w = a.shape
    I = lambda i, j: a[j, i]  # noqa: E731  I(x, y)
    top, bottom, left, right = y == 0, y == h - 1, x == 0, x == w - 1
    if top and left:
        return (-ss * 2 / 3 * ((2 * I(x + 1, y) + I(x + 1, y + 1)) - (2 * I(x, y) + I(x, y + 1))),
                -ss * 2 / 3 * ((2 * I(x, y + 1) + I(x + 1, y + 1)) - (2 * I(x, y) + I(x + 1, y))))
    if top and right:
        return (-ss * 2 / 3 * ((2 * I(x, y) + I(x, y + 1)) - (2 * I(x - 1, y) + I(x - 1, y + 1))),
                -ss * 2 / 3 * ((I(x - 1, y + 1) + 2 * I(x, y + 1)) - (I(x - 1, y) + 2 * I(x, y))))
    if bottom and left:
        return (-ss * 2 / 3 * ((I(x + 1, y - 1) + 2 * I(x + 1, y)) - (I(x, y - 1) + 2 * I(x, y))),
                -ss * 2 / 3 * ((2 * I(x, y) + I(x + 1, y)) - (2 * I(x, y - 1) + I(x + 1, y - 1))))
    if bottom and right:
        return (-ss * 2 / 3 * ((I(x, y - 1) + 2 * I(x, y)) - (I(x - 1, y - 1) + 2 * I(x - 1, y))),
                -ss * 2 / 3 * ((I(x - 1, y) + 2 * I(x, y)) - (I(x - 1, y - 1) + 2 * I(x, y - 1))))
    if top:
        return (-ss / 3 * ((2 * I(x + 1, y) + I(x + 1, y + 1)) - (2 * I(x - 1, y) + I(x - 1, y + 1))),
                -ss / 2 * ((I(x - 1, y + 1) + 2 * I(x, y + 1) + I(x + 1, y + 1))
                           - (I(x - 1, y) + 2 * I(x, y) + I(x + 1, y))))
    if bottom:
        return (-ss / 3 * ((I(x + 1, y - 1) + 2 * I(x + 1, y)) - (I(x - 1, y - 1) + 2 * I(x - 1, y))),
                -ss / 2 * ((I(x - 1, y) + 2 * I(x, y) + I(x + 1, y))
                           - (I(x - 1, y - 1) + 2 * I(x, y - 1) + I(x + 1, y - 1))))
    if left:
        return (-ss / 2 * ((I(x + 1, y - 1) + 2 * I(x + 1, y) + I(x + 1, y + 1))
                           - (I(x, y - 1) + 2 * I(x, y) + I(x, y + 1))),
                -ss / 3 * ((2 * I(x, y + 1) + I(x + 1, y + 1)) - (2 * I(x, y - 1) + I(x + 1, y - 1))))
    if right:
        return (-ss / 2 * ((I(x, y - 1) + 2 * I(x, y) + I(x, y + 1))
                           - (I(x - 1, y - 1) + 2 * I(x - 1, y) + I(x - 1, y + 1))),
                -ss / 3 * ((I(x - 1, y + 1) + 2 * I(x, y + 1)) - (I(x - 1, y - 1) + 2 * I(x, y - 1))))
    return (-ss / 4 * ((I(x + 1, y - 1) + 2 * I(x + 1, y) + I(x + 1, y + 1))
                       - (I(x - 1, y - 1) + 2 * I(x - 1, y) + I(x - 1, y + 1))),
            -ss / 4 * ((I(x - 1, y + 1) + 2 * I(x, y + 1) + I(x + 1, y + 1))
                       - (I(x - 1, y - 1) + 2 * I(x, y - 1) + I(x + 1, y - 1))))


def test_surface_normals_follow_the_specs_table_at_corners_edges_and_inside():
    from lamina.filters.svg.reference import surface_normals
    a = np.random.default_rng(9).random((7, 9))
    rect = (2, 1, 7, 5)  # the input's pixels: its own edges, inside a larger canvas
    nx, ny = surface_normals(a, rect, 1.7)
    sub = a[1:5, 2:7]
    for y in range(4):
        for x in range(5):
            ex, ey = _spec_normal(sub, x, y, 1.7)
            assert (nx[1 + y, 2 + x], ny[1 + y, 2 + x]) == (pytest.approx(ex), pytest.approx(ey)), (x, y)
    assert not nx[0].any() and not ny[:, :2].any(), "nothing outside the input"


def test_stitched_turbulence_in_an_empty_subregion_is_transparent():
    out = run("<feTurbulence stitchTiles='stitch' baseFrequency='.1' width='0'/>", np.zeros((4, 4, 4)))
    assert not out.any()


def test_a_spot_lights_cone_edge_fades_over_the_smoothing_band():
    """Within CONE_SMOOTHING of the cone's cosine the light fades linearly (Skia's soft
    edge; the spec asks for smoothing): half way in, half the light; the GPU header uses
    the same band."""
    inside = 3 / math.sqrt(10)  # -L.S at pixel (2, 4) of the spot above
    angle = math.degrees(math.acos(inside - CONE_SMOOTHING / 2))
    spot = run("<feDiffuseLighting><feSpotLight x='3.5' y='2.5' z='4' pointsAtX='3.5' pointsAtY='2.5' pointsAtZ='0' "
               f"specularExponent='2' limitingConeAngle='{angle!r}'/></feDiffuseLighting>", FLAT)
    assert spot[2, 4, 0] == pytest.approx(inside ** 3 / 2)
    assert spot[2, 3, 0] == pytest.approx(1.0), "on the axis, past the band: all of it"
    header = (Path(__file__).resolve().parents[2] / "shaders" / "common" / "lighting.h").read_text()
    assert f"#define SVG_CONE_SMOOTHING {CONE_SMOOTHING}f" in header


def test_kernel_unit_length_spaces_the_normals_taps():
    """The normal's kernel reads neighbours kernelUnitLength away (the spec's dx, dy),
    with no division by it: on an alpha ramp of slope s a pixel, taps 2 apart see slope
    2 s (the x normal doubles); 1 is the plain kernel; the edge kernels start where a tap
    would fall past the image (2 columns in from each side here)."""
    ramp = np.zeros((5, 12, 4))
    ramp[..., 3] = np.arange(12)[None, :] * 0.05
    body = "<feDiffuseLighting surfaceScale='4' {}><feDistantLight azimuth='0' elevation='90'/></feDiffuseLighting>"
    plain, one, two = (run(body.format(k), ramp) for k in ("", "kernelUnitLength='1'", "kernelUnitLength='2 1'"))
    np.testing.assert_allclose(one, plain)
    nz = lambda slope: 1 / math.sqrt((2 * 4 * slope) ** 2 + 1)  # noqa: E731  (N.L, L straight up: Nx = -2 ss slope)
    np.testing.assert_allclose(plain[2, 1:-1, 0], nz(0.05))
    np.testing.assert_allclose(two[2, 2:-2, 0], nz(0.1))
    np.testing.assert_allclose(two[2, [0, 1, -2, -1], 0], nz(0.1))  # edge kernel: one tap 2 away, factor doubled
