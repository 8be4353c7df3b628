"""feDiffuseLighting and feSpecularLighting on GL and on OpenCL (filters/plan.py
LightingPass, shaders/common/lighting.h) against the float64 SVG reference
(lamina.filters.svg.reference: the spec's normal and light equations), through
``filters.apply`` and on scene layers, on seeded random bump maps: within 2 levels
(issue 27's bar for lighting), for each light source, several attribute combinations
(kernelUnitLength too), both colour spaces, objectBoundingBox primitive units, a filter
region past the box at device scales 1 and 2 (light positions move with the region's
origin and scale to pixels)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene, filters
from lamina.filters.svg import parse_svg
from lamina.filters.svg.reference import apply_filter

from .test_filters_gl import backend  # noqa: F401  (backend: the GL / OpenCL fixture)

NS = 'xmlns="http://www.w3.org/2000/svg"'
BOX = 'x="0" y="0" width="1" height="1"'

LIGHTS = {
    "diffuse-distant": "<feDiffuseLighting surfaceScale='3' diffuseConstant='1.2' lighting-color='#fc8'>"
                       "<feDistantLight azimuth='45' elevation='30'/></feDiffuseLighting>",
    "diffuse-distant-low-negative-scale": "<feDiffuseLighting surfaceScale='-7' diffuseConstant='.7'>"
                                          "<feDistantLight azimuth='200' elevation='10'/></feDiffuseLighting>",
    "diffuse-point": "<feDiffuseLighting surfaceScale='5' lighting-color='rgb(120 200 255)'>"
                     "<fePointLight x='12' y='9' z='15'/></feDiffuseLighting>",
    "diffuse-spot-no-cone": "<feDiffuseLighting surfaceScale='1.5'><feSpotLight x='50' y='40' z='25' pointsAtX='10' "
                            "pointsAtY='10' specularExponent='2'/></feDiffuseLighting>",
    "specular-distant": "<feSpecularLighting surfaceScale='4' specularConstant='.8' specularExponent='20'>"
                        "<feDistantLight azimuth='-60' elevation='55'/></feSpecularLighting>",
    "specular-point": "<feSpecularLighting surfaceScale='2' specularConstant='1.1' specularExponent='12' "
                      "lighting-color='#8cf'><fePointLight x='20' y='10' z='30'/></feSpecularLighting>",
    "specular-spot-cone": "<feSpecularLighting surfaceScale='4' specularExponent='5' lighting-color='rgba(255 160 0 / .6)'>"
                          "<feSpotLight x='-10' y='-5' z='40' pointsAtX='30' pointsAtY='20' specularExponent='3' "
                          "limitingConeAngle='30'/></feSpecularLighting>",
    "specular-spot-high-exponent": "<feSpecularLighting surfaceScale='10' specularConstant='3' specularExponent='64'>"
                                   "<feSpotLight x='20' y='15' z='20' pointsAtX='20' pointsAtY='18' pointsAtZ='0' "
                                   "specularExponent='.5' limitingConeAngle='-70'/></feSpecularLighting>",
    "diffuse-kernel-unit": "<feDiffuseLighting surfaceScale='6' kernelUnitLength='2 1.5'>"
                           "<feDistantLight azimuth='120' elevation='35'/></feDiffuseLighting>",
    "specular-kernel-unit-fraction": "<feSpecularLighting surfaceScale='8' specularExponent='6' kernelUnitLength='.6'>"
                                     "<fePointLight x='25' y='5' z='20'/></feSpecularLighting>",
    "bounding-box-units": ("primitiveUnits='objectBoundingBox'",
                           "<feSpecularLighting surfaceScale='3' specularExponent='8'><fePointLight x='.3' y='.6' "
                           "z='.5'/></feSpecularLighting>"),
}


def bumps(rng, h: int = 33, w: int = 41) -> np.ndarray:
    """Premultiplied RGBA8: a few smooth random bumps in alpha (the height map) with
    noise on them, random colour under it."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    alpha = np.zeros((h, w))
    for _ in range(5):
        cx, cy, r, a = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(3, 10), rng.uniform(.3, 1)
        alpha += a * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * r * r))
    alpha = np.clip(alpha + rng.uniform(-.05, .05, alpha.shape), 0, 1)
    img = np.empty((h, w, 4), np.uint8)
    img[..., 3] = np.rint(alpha * 255)
    img[..., :3] = rng.integers(0, 256, (h, w, 3)) * alpha[..., None]
    return img


def _markup(attrs: str, body: str, space: str) -> str:
    return f'<svg {NS}><filter id="f" {BOX} {attrs} color-interpolation-filters="{space}">{body}</filter></svg>'


@pytest.mark.parametrize("space", ["linearRGB", "sRGB"])
@pytest.mark.parametrize("name", LIGHTS)
def test_lighting_matches_the_svg_reference(gl, rng, backend, name, space):
    _lit_like_the_reference(rng, backend, LIGHTS, name, space)


def _lit_like_the_reference(rng, backend, table: dict, name: str, space: str):
    """``table[name]`` (a body, or attributes and a body) on a bump map on ``backend``,
    asserted within 2 levels of the reference and lit; the map, attributes, body and the
    reference's result."""
    attrs, body = table[name] if isinstance(table[name], tuple) else ("", table[name])
    markup = _markup(attrs, body, space)
    img = bumps(rng)
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=markup).astype(int)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup).astype(int)
    assert ref[..., :3].std() > 5, "the light shows the bumps"
    assert np.abs(out - ref).max() <= 2, f"{name} in {space} on {backend}"
    return img, attrs, body, ref


def test_the_edge_and_corner_kernels_light_a_ramp_as_its_interior(gl, backend):
    """On a plane (alpha a linear ramp) the spec's reduced edge and corner kernels give
    the interior's normal: one colour over the whole image, the reference's."""
    ramp = np.zeros((9, 12, 4), np.uint8)
    ramp[..., 3] = (np.arange(12) * 20)[None, :]
    markup = _markup("", "<feDiffuseLighting surfaceScale='10'><feDistantLight azimuth='0' elevation='45'/>"
                         "</feDiffuseLighting>", "sRGB")
    out = filters.apply(ramp, "url(#f)", backend, premultiplied=True, svg=markup).astype(int)
    ref = filters.apply(ramp, "url(#f)", "reference", premultiplied=True, svg=markup).astype(int)
    assert np.ptp(out[..., 0]) == 0 and np.abs(out - ref).max() <= 1, f"{backend}: {np.unique(out[..., 0])}"


@pytest.mark.parametrize("dpr", [1, 2])
def test_a_layer_lit_by_a_point_light_in_a_grown_region_matches_the_reference(gl, rng, backend, dpr):
    """The default filter region grows the layer; the light's user-space position (CSS
    px) is scaled to device pixels and moved by the region's origin, as the reference's.
    (The lighting is linearRGB, the sum sRGB: a linearRGB arithmetic composite would read
    the light through 8-bit sRGB, 5 levels off, as test_svg_color_gl says of such
    composites.)"""
    markup = (f"<svg {NS}><filter id='f'><feSpecularLighting in='SourceAlpha' surfaceScale='4' specularExponent='6' "
              "lighting-color='gold'><fePointLight x='10' y='6' z='12'/></feSpecularLighting>"
              "<feComposite in2='SourceGraphic' operator='arithmetic' k2='1' k3='1' color-interpolation-filters='sRGB'/>"
              "</filter></svg>")
    frame, expected, (ox, oy) = _lit_layer(gl, rng, backend, markup, dpr)
    assert (ox, oy) == (-3 * dpr, -2 * dpr) and expected[..., 3].std() > .1
    diff = np.abs(frame.premultiplied.astype(int) - np.rint(expected * 255).astype(int))
    assert diff.max() <= 2, f"DPR {dpr} on {backend}: {diff.max()}"


def _lit_layer(gl, rng, backend, markup: str, dpr: int):
    """A bump-mapped picture layer (12, 8, 30x20 CSS px) filtered by ``url(#f)`` at device
    scale ``dpr``: the frame, the reference's frame (the filter run on the unfiltered
    frame's pixels of the layer, its region placed where it grew to), and that region's
    offset from the layer in device pixels."""
    x, y, w, h = 12, 8, 30, 20
    scene = Scene(56, 40, "transparent", device_scale_factor=dpr)
    scene.add_svg(markup)
    scene.root.add(Layer("picture", (x, y, w, h), image=bumps(rng, h * dpr, w * dpr)))
    plain = scene.render(gl).premultiplied.astype(np.float64) / 255.0
    scene.find("picture").style["filter"] = "url(#f)"
    frame = scene.render(gl, filter_backend=backend)
    x, y, w, h = (v * dpr for v in (x, y, w, h))
    filtered, (ox, oy) = apply_filter(parse_svg(markup).filter("f"), plain[y:y + h, x:x + w], scale=dpr, grow=True)
    expected = np.zeros_like(plain)
    fh, fw = filtered.shape[:2]
    expected[y + oy:y + oy + fh, x + ox:x + ox + fw] = filtered
    return frame, expected, (ox, oy)


def test_lighting_a_blur_reads_it_in_floats_within_the_bar(gl, backend):
    """Blurred alpha lit (the emboss idiom): the blur is held in floats for the lighting
    (filters.svg.compile_linear HeldFor.LIGHTING), so the GPU's chain is within 2 of the
    float64 chain. Rounding the blur to 8 bits between them alone misses the bar: the
    reference lighting the reference blur rounded to 8 bits is 10-13 levels off at
    surfaceScale 3-4 (the GPU chain was 11-15 off when it stored the blur in 8 bits)."""
    img = np.zeros((50, 70, 4), np.uint8)
    ys, xs = np.mgrid[0:50, 0:70]
    img[((xs - 35) / 24.0) ** 2 + ((ys - 25) / 16.0) ** 2 < 1] = (200, 80, 40, 255)
    blur = "<feGaussianBlur in='SourceAlpha' stdDeviation='3' result='b'/>"
    light = ("<feDiffuseLighting surfaceScale='4'><feSpotLight x='-10' y='-10' z='60' pointsAtX='35' pointsAtY='25' "
             "specularExponent='4' limitingConeAngle='35'/></feDiffuseLighting>")
    run = lambda image, body, where: filters.apply(image, "url(#f)", where, premultiplied=True,  # noqa: E731
                                                   svg=_markup("", body, "linearRGB"))
    chain = run(img, blur + light, backend).astype(int)
    float_chain = run(img, blur + light, "reference").astype(int)
    assert np.abs(chain - float_chain).max() <= 2
    on_rounded_blur = run(run(img, blur, "reference"), light, "reference").astype(int)
    assert np.abs(float_chain - on_rounded_blur).max() > 2  # rounding the blur alone misses the bar


# An input clipped to a subregion: the spec's edge and corner kernels start at its edges
# (the input's subregion is the spec's "input image"), not at the image's.
CLIPPED = "<feOffset dx='0' x='{x}' y='{y}' width='{w}' height='{h}' result='o'/>"
SUBREGION_LIGHTS = {
    "specular-point": (CLIPPED.format(x=7, y=5, w=20, h=15) + "<feSpecularLighting in='o' surfaceScale='4' "
                       "specularExponent='8'><fePointLight x='15' y='10' z='20'/></feSpecularLighting>"),
    "diffuse-distant-own-larger-subregion": (
        CLIPPED.format(x=7, y=5, w=20, h=15) + "<feDiffuseLighting in='o' x='2' y='2' width='35' height='28' "
        "surfaceScale='6'><feDistantLight azimuth='30' elevation='40'/></feDiffuseLighting>"),
    "diffuse-kernel-unit-fractional-subregion": (
        CLIPPED.format(x=7.5, y=5.2, w=20, h=15) + "<feDiffuseLighting in='o' surfaceScale='6' "
        "kernelUnitLength='1.6 .7'><feDistantLight azimuth='120' elevation='35'/></feDiffuseLighting>"),
    "specular-spot-bounding-box-units": ("primitiveUnits='objectBoundingBox'", (
        CLIPPED.format(x=.2, y=.15, w=.55, h=.6) + "<feSpecularLighting in='o' surfaceScale='3' specularExponent='6'>"
        "<feSpotLight x='.2' y='.1' z='.6' pointsAtX='.5' pointsAtY='.5' limitingConeAngle='50'/>"
        "</feSpecularLighting>")),
}


@pytest.mark.parametrize("space", ["linearRGB", "sRGB"])
@pytest.mark.parametrize("name", SUBREGION_LIGHTS)
def test_lighting_an_input_clipped_to_a_subregion_matches_the_svg_reference(gl, rng, backend, name, space):
    """Within 2 levels of the reference, which starts the edge kernels at the input's
    subregion; lighting the same pixels with the image's edges (the input cut out in
    numpy first, no subregion) differs there, so the rect is what makes the match."""
    img, attrs, body, ref = _lit_like_the_reference(rng, backend, SUBREGION_LIGHTS, name, space)
    clipped = filters.apply(img, "url(#f)", "reference", premultiplied=True,
                            svg=_markup(attrs, body[:body.index("<feDiffuse" if "<feDiffuse" in body else "<feSpec")],
                                        space)).astype(int)
    assert clipped[..., 3].min() == 0, "the input is cut to its subregion"
    light = body[body.index("<feDiffuse" if "<feDiffuse" in body else "<feSpec"):].replace(" in='o'", "")
    light = light.replace("x='2' y='2' width='35' height='28' ", "")
    image_edges = filters.apply(clipped.astype(np.uint8), "url(#f)", "reference", premultiplied=True,
                                svg=_markup(attrs, light, space)).astype(int)
    inside = ref[..., 3] > 0
    assert np.abs(image_edges - ref)[inside].max() > 10, "edge kernels at the image's edge would not match"


@pytest.mark.parametrize("dpr", [1, 2])
def test_a_layer_lighting_a_subregion_at_device_scale_matches_the_reference(gl, rng, backend, dpr):
    """On a scene layer at DPR 1 and 2: the input's subregion (user units, CSS px) is
    scaled to device pixels, and the edge kernels start at its edges there."""
    markup = (f"<svg {NS}><filter id='f' {BOX} color-interpolation-filters='sRGB'>"
              "<feOffset in='SourceAlpha' dx='0' x='4' y='3' width='19' height='13' result='o'/>"
              "<feDiffuseLighting in='o' surfaceScale='5' lighting-color='#fd9'><fePointLight x='10' y='6' z='14'/>"
              "</feDiffuseLighting></filter></svg>")
    frame, expected, _ = _lit_layer(gl, rng, backend, markup, dpr)
    assert expected[..., 3].sum() == pytest.approx(19 * 13 * dpr * dpr), "lit (opaque) only on the subregion"
    diff = np.abs(frame.premultiplied.astype(int) - np.rint(expected * 255).astype(int))
    assert diff.max() <= 2, f"DPR {dpr} on {backend}: {diff.max()}"
