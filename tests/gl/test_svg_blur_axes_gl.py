"""feGaussianBlur and feDropShadow with two different stdDeviation values (edgeMode none:
the downscaled separable blur passes, one sigma per axis, ``filters.plan.blur_levels_axes``)
on GL and on OpenCL against the SVG float64 reference, on seeded random premultiplied
images: within 2 levels, issue 27's bar for blurs; and the golden scene svg-filter-axes
(also feConvolveMatrix with kernelUnitLength between pixels) layer by layer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from lamina import filters
from lamina.scene_file import load_scene

from .test_filters_gl import backend, random_image  # noqa: F401  (backend: the GL / OpenCL fixture)
from .test_svg_spatial_gl import _layer_references

NS = 'xmlns="http://www.w3.org/2000/svg"'

# (filter attributes, primitive, image size): full-size levels, one axis only, and sigmas
# whose smaller one halves (so the larger axis blurs with more taps at that level).
SRGB = 'color-interpolation-filters="sRGB"'  # linearRGB blurs run on the GPU only on SourceAlpha
BLURS = {
    "2-8-full-size": (SRGB, "<feGaussianBlur stdDeviation='2 8'/>", (48, 40)),
    "0-5-x-untouched": (SRGB, "<feGaussianBlur stdDeviation='0 5'/>", (30, 36)),
    "7-0-y-untouched-alpha-linear": ('color-interpolation-filters="linearRGB"',
                                     "<feGaussianBlur in='SourceAlpha' stdDeviation='7 0'/>",
                               (40, 30)),
    "6-19-halved": (SRGB, "<feGaussianBlur stdDeviation='19 6'/>", (90, 70)),
    # 90 taps a side along y at full size: OpenCL's untiled blur_wide kernel (the tile would not fit a GPU)
    "0.5-30-wide-axis": (SRGB, "<feGaussianBlur stdDeviation='0.5 30'/>", (24, 100)),
    "shadow-1-6": (SRGB, "<feDropShadow dx='3' dy='-2' stdDeviation='1 6' flood-color='teal' flood-opacity='.8'/>",
                   (44, 40)),
}


@pytest.mark.parametrize("name", BLURS)
def test_per_axis_blur_matches_the_svg_reference(gl, rng, backend, name):
    attrs, body, (w, h) = BLURS[name]
    markup = f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" {attrs}>{body}</filter></svg>'
    img = random_image(rng, h, w, transparent_border=3)
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=markup).astype(int)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup).astype(int)
    assert out.shape == ref.shape
    assert np.abs(ref - img.astype(int)).max() > 32, "the blur changes the image"
    assert np.abs(out - ref).max() <= 2, f"{name} on {backend}: {np.abs(out - ref).max()}"


def test_a_zero_axis_is_not_blurred_at_all(gl, rng, backend):
    """stdDeviation '0 5': every column is blurred on its own; a single bright column
    stays one pixel wide (no halving spreads it along x)."""
    img = np.zeros((32, 24, 4), np.uint8)
    img[:, 11] = 255
    markup = f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" {SRGB}><feGaussianBlur stdDeviation="0 5"/></filter></svg>'
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=markup)
    assert out[:, 11].min() > 0 and not np.delete(out, 11, axis=1).any(), "only column 11 is lit"


SCENE = Path(__file__).resolve().parents[1] / "scenes" / "svg-filter-axes.json"


def test_the_axes_golden_scene_matches_the_svg_reference_of_each_layer(gl, tmp_path):
    """The scene the golden holds: each layer's pixels are its filter's float64 reference
    run on the same scene's layer drawn without the filter on a transparent background
    (composited on white, as test_svg_spatial_gl's scene test does): convolutions within 1 level; blurs within 3,
    as a filter result within 2 in colour and alpha each composites on white: where the
    colour is 2 under and the alpha 1 over, c + 255 - a is 3 off (measured: #halved, 8 px
    of 4200; its filter result alone is within 2, as the random tests above check)."""
    data = json.loads(SCENE.read_text())
    filtered = load_scene(SCENE).render().premultiplied.astype(int)
    plain_data = dict(data, background="transparent",  # #shadowed's SourceGraphic is not opaque
                      layers=[dict(la, style=re.sub(r"; filter: url\(#[\w-]+\)", "", la["style"]))
                              for la in data["layers"]])
    plain_path = tmp_path / "plain.json"
    plain_path.write_text(json.dumps(plain_data))
    refs = _layer_references(data, load_scene(plain_path).render().premultiplied)
    for layer in data["layers"]:
        x, y, w, h = layer["box"]
        diff = np.abs(filtered[y:y + h, x:x + w] - refs[layer["id"]]).max()
        assert diff <= (1 if "spread" in layer["id"] else 3), f"layer {layer['id']}: {diff}"
