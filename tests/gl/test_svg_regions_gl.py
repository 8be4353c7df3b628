"""SVG primitive subregions on GL and on OpenCL (issue 27 item 3): x, y, width, height on
primitives in both primitiveUnits, with the spec's defaults (the union of the inputs'
subregions, or the filter region), transparent black outside, feTile repeating its
input's subregion across its own, feTurbulence stitched to its subregion — through
``filters.apply`` and on scene layers whose filter region is larger than the box, against
the float64 SVG reference (lamina.filters.svg.reference), within 1 level (2 where the
graph blurs)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene, filters
from lamina.errors import UnsupportedFeatureError
from lamina.filters.svg import parse_svg
from lamina.filters.svg.reference import apply_filter

from .test_filters_gl import random_image

NS = 'xmlns="http://www.w3.org/2000/svg"'
SRGB = 'color-interpolation-filters="sRGB"'
BOX = 'x="0" y="0" width="1" height="1"'
OBB = 'primitiveUnits="objectBoundingBox"'


@pytest.fixture(params=["gl", "opencl"])
def backend(request):
    return request.param


# (filter attributes besides sRGB and the box region, primitives)
GRAPHS = {
    "flood-rect": ("", "<feFlood flood-color='teal' flood-opacity='.7' x='4.5' y='3' width='13' height='9.25'/>"
                       "<feComposite in2='SourceGraphic' operator='over'/>"),
    "offset-clipped": ("", "<feOffset dx='3' dy='2' x='2' y='5' width='20'/>"),
    "blur-in-rect": ("", "<feGaussianBlur stdDeviation='1.5' x='6' y='4' width='14' height='12'/>"),
    "default-union": ("", "<feOffset dx='-2' x='3' width='10' result='a'/><feOffset dy='3' y='6' height='8' "
                          "in='SourceGraphic' result='b'/><feMerge><feMergeNode in='a'/><feMergeNode in='b'/></feMerge>"
                          "<feColorMatrix values='0 0 0 0 1  0 0 0 0 0  0 0 0 0 0  0 0 0 0 .5'/>"),
    "tile": ("", "<feOffset dx='1' x='5' y='4' width='7' height='6'/><feTile x='2' y='1' width='25' height='18'/>"),
    "tile-default": ("", "<feFlood flood-color='red' x='3' y='3' width='4' height='5' result='f'/>"
                         "<feComposite in='SourceGraphic' in2='f' operator='in'/><feTile/>"),
    "bbox-units": (OBB, "<feMorphology operator='dilate' radius='.05' x='.2' y='10%' width='.5' height='.6'/>"
                        "<feFlood flood-color='navy' flood-opacity='.5' x='.6' width='.3' result='f'/>"
                        "<feMerge><feMergeNode/><feMergeNode in='SourceGraphic'/></feMerge>"),
    "colour-after-clip": ("", "<feColorMatrix type='saturate' values='.2' x='5' width='12'/>"
                              "<feColorMatrix values='1 0 0 0 0  0 1 0 0 0  0 0 1 0 0  0 0 0 .5 .25'/>"),
    "turbulence-stitched": ("", "<feTurbulence baseFrequency='.09' numOctaves='2' stitchTiles='stitch' seed='3' "
                                "x='3' y='2' width='15' height='11'/><feComposite in2='SourceAlpha' operator='in'/>"),
    "empty-subregion": ("", "<feFlood flood-color='red' width='0'/><feMerge><feMergeNode/>"
                            "<feMergeNode in='SourceGraphic'/></feMerge>"),
}


def _markup(attrs: str, body: str, region: str = BOX) -> str:
    return f'<svg {NS}><filter id="f" {SRGB} {region} {attrs}>{body}</filter></svg>'


@pytest.mark.parametrize("name", GRAPHS)
def test_subregions_match_the_svg_reference(gl, rng, backend, name):
    attrs, body = GRAPHS[name]
    markup = _markup(attrs, body)
    img = random_image(rng, 23, 31, transparent_border=1)
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=markup).astype(int)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup).astype(int)
    diff = np.abs(out - ref)
    assert diff.max() <= (2 if "Blur" in body else 1), f"{name} on {backend}: {diff.max()}"


X, Y, W, H = 12, 8, 30, 20


@pytest.mark.parametrize("name, attrs, body", [
    ("subregion-past-the-box", "",
     "<feFlood flood-color='rgb(200 40 0)' x='-4' y='-3' width='36' height='6'/>"
     "<feMerge><feMergeNode/><feMergeNode in='SourceGraphic'/></feMerge>"),
    ("turbulence-in-a-region", OBB,
     "<feTurbulence baseFrequency='.1' seed='2' type='fractalNoise' x='-.1' width='.6'/>"
     "<feComposite in2='SourceGraphic' operator='over'/>"),
    ("tile-past-the-box", "",
     "<feOffset dx='2' dy='1' x='0' y='0' width='8' height='7'/><feTile x='-5' y='-2' width='40' height='24'/>"),
])
def test_a_layer_filter_region_with_subregions_matches_the_reference(gl, rng, backend, name, attrs, body):
    """The default filter region (-10%, -10%, 120%, 120%): the plan's images start at the
    region's corner, so subregions and feTurbulence's positions are offset by it."""
    markup = f"<svg {NS}><filter id='f' {SRGB} {attrs}>{body}</filter></svg>"
    scene = Scene(56, 40, "transparent")
    scene.add_svg(markup)
    image = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
    scene.root.add(Layer("picture", (X, Y, W, H), image=image))
    plain = scene.render(gl).premultiplied.astype(np.float64) / 255.0
    scene.find("picture").style["filter"] = "url(#f)"
    frame = scene.render(gl, filter_backend=backend)
    filtered, (ox, oy) = apply_filter(parse_svg(markup).filter("f"), plain[Y:Y + H, X:X + W], grow=True)
    expected = np.zeros_like(plain)
    fh, fw = filtered.shape[:2]
    expected[Y + oy:Y + oy + fh, X + ox:X + ox + fw] = filtered
    past = expected[..., 3].copy()
    past[Y:Y + H, X:X + W] = 0
    assert past.max() > 0.05, "the graph draws past the box"
    diff = np.abs(frame.premultiplied.astype(int) - np.rint(expected * 255).astype(int))
    assert diff.max() <= 1, f"{name} on {backend}: {diff.max()}"


# -- SVG filters mixed with CSS functions (issue 27: "graphs mixed with CSS functions") --

GRAIN = ("<filter id='grain' color-interpolation-filters='sRGB' x='-5%' y='-10%' width='110%' height='115%'>"
         "<feTurbulence baseFrequency='.3' seed='4' type='fractalNoise' result='n'/>"
         "<feColorMatrix in='n' values='0 0 0 0 0  0 0 0 0 0  0 0 0 0 0  0 0 0 .5 0' result='g'/>"
         "<feComposite in='g' in2='SourceGraphic' operator='in' result='s'/>"
         "<feMerge><feMergeNode in='SourceGraphic'/><feMergeNode in='s'/></feMerge></filter>")
GLOW = ("<filter id='glow' color-interpolation-filters='sRGB'>"
        "<feMorphology operator='dilate' radius='1' in='SourceAlpha'/><feOffset dx='2' dy='1' result='d'/>"
        "<feFlood flood-color='orange'/><feComposite in2='d' operator='in'/>"
        "<feMerge><feMergeNode/><feMergeNode in='SourceGraphic'/></feMerge></filter>")
INSET = ("<filter id='inset' color-interpolation-filters='sRGB' x='.1' y='.15' width='.7' height='.6'>"
         "<feOffset dx='-1.5' dy='1'/></filter>")
MIXED_SVG = f"<svg {NS}>{GRAIN}{GLOW}{INSET}</svg>"
MIXED = ["url(#grain) blur(2px)", "blur(1.5px) url(#glow)", "url(#glow) sepia(.5) url(#inset)",
         "drop-shadow(3px 2px 1px teal) url(#inset) url(#grain)", "url(#inset) blur(3px) url(#glow)"]
CUT_TO_INSET = {"url(#glow) sepia(.5) url(#inset)", "drop-shadow(3px 2px 1px teal) url(#inset) url(#grain)"}


@pytest.mark.parametrize("css", MIXED)
def test_svg_filters_mixed_with_functions_on_a_layer_match_the_chain_reference(gl, rng, backend, css):
    """Each url() runs on its filter region of the layer's box, on what the chain made so
    far; the layer grows to hold every stage. The reference: the CSS functions' float64
    references and the SVG graph's, in order, on the scene-sized image
    (filters.reference.apply_on_element)."""
    from lamina.filters.reference import apply_on_element

    scene = Scene(64, 48, "transparent")
    scene.add_svg(MIXED_SVG)
    image = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
    image[..., 3] = np.maximum(image[..., 3], 40)
    scene.root.add(Layer("picture", (X + 4, Y + 4, W, H), image=image))
    plain = scene.render(gl).premultiplied.astype(np.float64) / 255.0
    scene.find("picture").style["filter"] = css
    frame = scene.render(gl, filter_backend=backend)
    chain = filters.parse(css).resolved_svg(parse_svg(MIXED_SVG))
    expected = apply_on_element(plain, chain, (X + 4, Y + 4, W, H))
    past = expected[..., 3].copy()
    past[Y + 4:Y + 4 + H, X + 4:X + 4 + W] = 0
    assert np.abs(expected - plain).max() > 0.1, "the chain changes the layer"
    assert (past.max() > 0.05) == (css not in CUT_TO_INSET), "it draws past the box unless #inset's region cuts it"
    diff = np.abs(frame.premultiplied.astype(int) - np.rint(expected * 255).astype(int))
    assert diff.max() <= 2, f"{css} on {backend}: {diff.max()} (blurs: 2 levels)"


@pytest.mark.parametrize("css", ["url(#inset) blur(2px)", "saturate(.3) blur(1px) url(#inset) url(#inset)"])
def test_svg_filters_mixed_with_functions_in_filters_apply_match_the_reference(gl, rng, backend, css):
    img = random_image(rng, 23, 31)
    out = filters.apply(img, css, backend, premultiplied=True, svg=MIXED_SVG).astype(int)
    ref = filters.apply(img, css, "reference", premultiplied=True, svg=MIXED_SVG).astype(int)
    assert np.abs(out - ref).max() <= 2, f"{css} on {backend}"


@pytest.mark.parametrize("css", ["url(#glow) blur(1px)", "blur(1.5px) url(#glow) url(#inset)",
                                 "url(#grain) blur(2px) sepia(.5) blur(1px)", "url(#glow) url(#glow)"])
def test_filters_apply_runs_mixed_chains_whose_regions_reach_past_the_image(gl, rng, backend, css):
    """The image holds every graph's filter region (the default one of #glow reaches 10%
    past it); each stage's result is cut to the image, as the reference runs each function
    and graph on the image alone."""
    img = random_image(rng, 23, 31)
    out = filters.apply(img, css, backend, premultiplied=True, svg=MIXED_SVG).astype(int)
    ref = filters.apply(img, css, "reference", premultiplied=True, svg=MIXED_SVG).astype(int)
    assert out.shape == img.shape
    assert np.abs(out - ref).max() <= 2, f"{css} on {backend}"


def test_filters_apply_refuses_drop_shadow_beside_a_region_past_the_image(gl):
    with pytest.raises(UnsupportedFeatureError, match="drop-shadow.*glow.*reaches past the image"):
        filters.apply(np.zeros((8, 8, 4), np.uint8), "url(#glow) drop-shadow(1px 1px red)", "gl", svg=MIXED_SVG)


@pytest.mark.parametrize("css", ["url(#glow) sepia(.5) url(#inset)", "blur(1.5px) url(#glow)"])
def test_svg_filters_at_device_scale_2_keep_user_units_in_css_px(gl, rng, backend, css):
    """At a device scale factor of 2 the layer's box and the CSS lengths are zoomed into
    device px (lamina.device_scale) while SVG markup stays in CSS px: a graph runs at 2
    pixels per user unit (its offsets, radii and regions twice as many pixels)."""
    from lamina.device_scale import _zoom
    from lamina.filters.reference import apply_on_element

    s = 2
    scene = Scene(64, 48, "transparent", device_scale_factor=s)
    scene.add_svg(MIXED_SVG)
    image = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
    image[..., 3] = np.maximum(image[..., 3], 40)
    scene.root.add(Layer("picture", (X + 4, Y + 4, W, H), image=image))
    plain = scene.render(gl).premultiplied.astype(np.float64) / 255.0
    scene.find("picture").style["filter"] = css
    frame = scene.render(gl, filter_backend=backend)
    chain = _zoom(filters.parse(css), s).resolved_svg(parse_svg(MIXED_SVG))  # CSS lengths in device px
    expected = apply_on_element(plain, chain, ((X + 4) * s, (Y + 4) * s, W * s, H * s), scale=s)
    assert np.abs(expected - plain).max() > 0.1, "the chain changes the layer"
    diff = np.abs(frame.premultiplied.astype(int) - np.rint(expected * 255).astype(int))
    assert diff.max() <= 2, f"{css} at DPR 2 on {backend}: {diff.max()}"


# -- filter regions that are not the box: a lone url() in filters.apply and on a layer --

# (filter region attributes, primitives): the default region past the image, regions
# cutting it and inside it; feFlood and feTile fill the region, feOffset brings in what
# the region holds past the image (a flood there), so the region's placement shows.
REGIONS = {
    "default-flood-offset": ("", "<feFlood flood-color='teal' flood-opacity='.6' result='f'/>"
                                 "<feOffset in='f' dx='4' dy='-3' result='o'/>"
                                 "<feMerge><feMergeNode in='o'/><feMergeNode in='SourceGraphic'/></feMerge>"),
    "default-blur": ("", "<feGaussianBlur stdDeviation='2'/>"),
    "inside": ("x='.2' y='.15' width='.5' height='.6'", "<feOffset dx='-2' dy='1'/>"),
    "user-space-cutting": ("filterUnits='userSpaceOnUse' x='-6' y='5' width='22' height='40'",
                           "<feFlood flood-color='navy' flood-opacity='.5'/><feComposite in2='SourceGraphic' "
                           "operator='xor'/>"),
    "past-tile": ("x='-.3' y='-.2' width='1.5' height='1.3'",
                  "<feOffset dx='1' x='2' y='3' width='6' height='5'/><feTile/>"),
}


@pytest.mark.parametrize("name", REGIONS)
def test_filters_apply_runs_a_lone_url_on_its_filter_region_cut_to_the_image(gl, rng, backend, name):
    """The image is the element's box; the graph runs on its whole filter region (past the
    image too) and the output keeps the input's size, transparent outside the region."""
    region, body = REGIONS[name]
    markup = _markup("", body, region=region)
    img = random_image(rng, 21, 27)
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=markup).astype(int)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup).astype(int)
    assert out.shape == img.shape, "the output keeps the input's size"
    assert np.abs(ref - img.astype(int)).max() > 20, "the filter changes the image"
    diff = np.abs(out - ref)
    assert diff.max() <= (2 if "Blur" in body else 1), f"{name} on {backend}: {diff.max()}"


def test_filters_apply_clears_what_lies_outside_a_region_inside_the_image(gl, rng):
    markup = _markup("", "<feOffset/>", region="x='.25' y='.25' width='.5' height='.5'")
    img = random_image(rng, 20, 24)
    img[..., 3] = 255
    out = filters.apply(img, "url(#f)", "gl", premultiplied=True, svg=markup)
    inside = np.zeros((20, 24), bool)
    inside[5:15, 6:18] = True
    assert (out[~inside] == 0).all(), "transparent outside the region"
    assert np.array_equal(out[inside], img[inside]), "feOffset 0 keeps the region as it is"


@pytest.mark.parametrize("name", ["inside", "user-space-cutting"])
def test_a_layer_filter_region_cutting_the_box_clips_the_lone_url(gl, rng, backend, name):
    """A region that does not hold the box (inside it, or a userSpaceOnUse rect cutting
    it) clips the layer's filtered content to it, and grows the layer by any part past it."""
    from lamina.filters.reference import apply_on_element

    region, body = REGIONS[name]
    markup = _markup("", body, region=region)
    scene = Scene(56, 48, "transparent")
    scene.add_svg(markup)
    image = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
    image[..., 3] = np.maximum(image[..., 3], 40)
    scene.root.add(Layer("picture", (X, Y, W, H), image=image))
    plain = scene.render(gl).premultiplied.astype(np.float64) / 255.0
    scene.find("picture").style["filter"] = "url(#f)"
    frame = scene.render(gl, filter_backend=backend)
    chain = filters.parse("url(#f)").resolved_svg(parse_svg(markup))
    expected = apply_on_element(plain, chain, (X, Y, W, H))
    inside_box = np.zeros(expected.shape[:2], bool)
    inside_box[Y:Y + H, X:X + W] = True
    assert (expected[inside_box][..., 3] == 0).any(), "the region cuts the box"
    diff = np.abs(frame.premultiplied.astype(int) - np.rint(expected * 255).astype(int))
    assert diff.max() <= 1, f"{name} on {backend}: {diff.max()}"


def test_filters_apply_refuses_a_filter_region_past_the_texture_limit_naming_the_filter(gl):
    from lamina.errors import LaminaInputError, TextureTooLargeError

    markup = _markup("", "<feOffset/>", region="x='-1000' y='-1000' width='3000' height='3000'")
    with pytest.raises(TextureTooLargeError) as info:
        filters.apply(np.zeros((21, 27, 4), np.uint8), "url(#f)", "gl", svg=markup)
    assert (info.value.element, info.value.property) == ('<filter id="f">', "x, y, width, height")
    assert "81000x63000" in str(info.value), str(info.value)
    with pytest.raises(LaminaInputError, match='filter region of <filter id="f">.*largest buffer'):
        filters.apply(np.zeros((21, 27, 4), np.uint8), "url(#f)", "opencl", svg=markup)
