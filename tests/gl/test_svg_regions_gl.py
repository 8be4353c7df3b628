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
from lamina.filters.plan import RegionPass
from lamina.filters.svg import parse_svg
from lamina.filters.svg.compile import plan_graph
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


def test_a_subregion_changes_what_the_graph_draws(gl, rng):
    """The reference (what the tests hold the passes to) really clips: the same graph
    without the subregion differs outside it, and is transparent there with it."""
    img = random_image(rng, 23, 31)
    clipped = _markup("", "<feFlood flood-color='teal' x='4' y='3' width='13' height='9'/>")
    whole = _markup("", "<feFlood flood-color='teal'/>")
    a = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=clipped)
    b = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=whole)
    assert a[3:12, 4:17, 3].min() == b[3:12, 4:17, 3].min() == 255
    outside = np.ones(a.shape[:2], bool)
    outside[3:12, 4:17] = False
    assert a[outside][:, 3].max() == 0 and b[outside][:, 3].min() == 255


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


def test_region_passes_only_where_a_subregion_can_clip():
    """A clip after a primitive whose subregion is smaller than the image; none where it
    is the whole image, nor after a merge of inputs already inside its subregion."""
    def regions(body: str) -> list[RegionPass]:
        plan = plan_graph(parse_svg(_markup("", body)).filter("f"), (40, 30))
        return [p for p in plan.passes if isinstance(p, RegionPass)]

    assert regions("<feOffset dx='2'/>") == []
    assert regions("<feOffset dx='2' width='100' height='100'/>") == [], "clipped to the filter region: the image"
    (clip,) = regions("<feOffset dx='2' x='3.5' y='2' width='10' height='20.2'/>")
    assert clip.rect == (3, 2, 14, 23) and clip.tile is None, "rounded out to whole pixels"
    merged = regions("<feOffset dx='2' x='3' width='10' result='a'/><feFlood x='5' width='4' result='b'/>"
                     "<feMerge><feMergeNode in='a'/><feMergeNode in='b'/></feMerge>")
    assert [p.rect for p in merged] == [(3, 0, 13, 30), (5, 0, 9, 30)], "the merge inside their union is not clipped"
    (tile,) = regions("<feOffset x='4' y='5' width='6' height='7'/><feTile/>")[1:]
    assert tile.tile == (4, 5, 10, 12) and tile.rect == (0, 0, 40, 30)
