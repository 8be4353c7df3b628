"""feBlend with every blend mode and feColorMatrix luminanceToAlpha on GL and on OpenCL
(lamina.filters.svg.compile: combine passes running shaders/common/blend_modes.h, the
compositor's blend maths; svg colour passes) against the SVG float64 reference
(lamina.filters.svg.reference), through ``filters.apply`` on seeded random
premultiplied images with random alpha: within 1 level (issue 27's bar), in sRGB and in
linearRGB."""

from __future__ import annotations

import os

import numpy as np
import pytest

from lamina import filters
from lamina.blending.modes import BlendMode
from lamina.filters.plan import CombineOperator, CombinePass
from lamina.filters.svg import parse_svg
from lamina.filters.svg.compile import plan_graph

from .test_filters_gl import backend, random_image  # noqa: F401  (backend: the GL / OpenCL fixture)

NS = 'xmlns="http://www.w3.org/2000/svg"'
BOX = 'x="0" y="0" width="1" height="1"'

# in: the random source; in2: the source moved by whole pixels (exact in either space), so
# every pixel blends two unrelated random colours and alphas, and transparent meets opaque
# at the edges. Both are the 8-bit images the reference reads too: the modes with
# thresholds and divisions (dodge, burn, hard-light, the non-separable clip) turn an
# input's rounding into several levels, which would test the input, not the blend.
BLEND = "<feOffset dx='3' dy='2' result='o'/><feBlend in='SourceGraphic' in2='o' mode='{mode}'/>"
MODES = [m for m in BlendMode if m is not BlendMode.PLUS_LIGHTER]  # feBlend refuses it (a compositing operator)


def _markup(body: str, space: str) -> str:
    return f'<svg {NS}><filter id="f" {BOX} color-interpolation-filters="{space}">{body}</filter></svg>'


@pytest.mark.parametrize("space", ["sRGB", "linearRGB"])
@pytest.mark.parametrize("mode", [m.value for m in MODES])
def test_feblend_every_mode_matches_the_svg_reference(gl, rng, backend, mode, space):
    markup = _markup(BLEND.format(mode=mode), space)
    img = random_image(rng, 23, 31, transparent_border=2)
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=markup).astype(int)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup).astype(int)
    diff = np.abs(out - ref)
    assert diff.max() <= 1, f"feBlend {mode} in {space} on {backend}: {diff.max()} levels"
    # Off by one only where float32 and float64 round a value near a half level apart.
    assert (diff == 0).mean() >= 0.95, f"feBlend {mode} in {space} on {backend}: {(diff == 0).mean():.3%} exact"


def test_feblend_modes_plan_one_combine_pass_each():
    for mode in MODES:
        element = parse_svg(_markup(BLEND.format(mode=mode.value), "sRGB")).filter("f")
        combine = [p for p in plan_graph(element, (8, 8)).passes if isinstance(p, CombinePass)]
        assert len(combine) == 1
        expected = CombineOperator.OVER if mode is BlendMode.NORMAL else CombineOperator.BLEND
        assert combine[0].operator is expected and (mode is BlendMode.NORMAL or combine[0].blend_mode is mode)


@pytest.mark.parametrize("space", ["sRGB", "linearRGB"])
def test_luminance_to_alpha_makes_colour_black_and_alpha_the_luminance(gl, rng, backend, space):
    """Filter Effects 1: A' = 0.2125 R + 0.7154 G + 0.0721 B of the un-premultiplied
    colour (in the primitive's space), colour 0; computed here independently of the
    reference, in float64, then checked against the pass."""
    markup = _markup("<feColorMatrix type='luminanceToAlpha'/>", space)
    img = random_image(rng, 23, 31, transparent_border=2)
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=markup).astype(int)
    a = img[..., 3:4].astype(np.float64) / 255.0
    c = np.where(a > 0, np.minimum(img[..., :3] / 255.0 / np.maximum(a, 1e-12), 1.0), 0.0)
    if space == "linearRGB":
        c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    lum = np.clip(c @ np.array([0.2125, 0.7154, 0.0721]), 0.0, 1.0)
    assert np.all(out[..., :3] == 0), "luminanceToAlpha's colour is black"
    assert np.abs(out[..., 3] - np.rint(lum * 255)).max() <= 1


# feImage: (filter attributes, feImage attributes, what follows it). The picture is 13 x 9
# px, placed in a 31 x 23 px box: scaled up, fractional, so every output pixel mixes four.
P = "href='picture.png'"
IMAGE_GRAPHS = {
    "stretched": ("", f"{P} preserveAspectRatio='none'", ""),
    "meet-centred": ("", P, ""),
    "slice-min-max": ("", f"{P} preserveAspectRatio='xMinYMax slice'", ""),
    "meet-in-subregion": ("", f"{P} x='3.5' y='2' width='20' height='11.25' preserveAspectRatio='xMaxYMin meet'", ""),
    "bounding-box-units": ("primitiveUnits='objectBoundingBox'", f"{P} x='.1' y='.2' width='.6' height='.5' "
                           "preserveAspectRatio='xMidYMax slice'", ""),
    "multiplied-over-source": ("", f"{P} preserveAspectRatio='none' result='i'",
                               "<feBlend in='i' in2='SourceGraphic' mode='multiply'/>"),
    # feTile of a placed picture (the one subregion-making input here): its rect repeated
    "tiled-pattern": ("", f"{P} x='5.5' y='3' width='9' height='7' preserveAspectRatio='none'", "<feTile/>"),
    "tiled-then-blended": ("", "href='opaque.png' x='-2' y='4' width='13' height='9' "
                           "preserveAspectRatio='xMidYMid slice'",
                           "<feTile/><feBlend in2='SourceGraphic' mode='screen'/>"),
    # an opaque picture, as luminance masks are: luminanceToAlpha un-premultiplies the
    # 8-bit image between the passes, which a low alpha would magnify (up to 5 levels at
    # random alpha, where the reference keeps the picture in float)
    "luminance-mask": ("", "href='opaque.png' preserveAspectRatio='none'",
                       "<feColorMatrix type='luminanceToAlpha' result='l'/>"
                       "<feComposite in='SourceGraphic' in2='l' operator='in'/>"),
}


@pytest.fixture
def picture_folder(tmp_path, rng):
    from PIL import Image  # import here: only these tests write a picture file
    pixels = rng.integers(0, 256, (9, 13, 4), dtype=np.uint8)
    pixels[0, 0, 3] = 0  # a transparent texel (its colour must not show)
    Image.fromarray(pixels, "RGBA").save(tmp_path / "picture.png")
    Image.fromarray(pixels[..., :3], "RGB").save(tmp_path / "opaque.png")
    return tmp_path


@pytest.mark.parametrize("space", ["sRGB", "linearRGB"])
@pytest.mark.parametrize("name", IMAGE_GRAPHS)
def test_feimage_places_its_picture_as_the_svg_reference_does(gl, rng, backend, picture_folder, name, space):
    """Within 1 level; 2 where a linearRGB primitive reads the picture: it reaches it as
    the 8-bit sRGB image between passes, where the reference keeps it in float (the bar
    tests/gl/test_svg_color_gl.py declares for the same reason; on a picture of random
    alpha a blend in linearRGB measured up to 4: the tiled one uses the opaque one)."""
    attrs, image_attrs, after = IMAGE_GRAPHS[name]
    markup = (f'<svg {NS}><filter id="f" {BOX} {attrs} color-interpolation-filters="{space}">'
              f"<feImage {image_attrs}/>{after}</filter></svg>")
    img = random_image(rng, 23, 31)
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=markup, files=picture_folder).astype(int)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup, files=picture_folder).astype(int)
    bar = 2 if after and after != "<feTile/>" and space == "linearRGB" else 1
    assert np.abs(out - ref).max() <= bar, f"feImage {name} in {space} on {backend}"
    assert out[..., 3].max() > 0, "the picture shows"


def test_opencl_keeps_an_feimage_picture_by_its_content_key(gl, rng, tmp_path):
    """The OpenCL runner uploads a picture once per content key (gpu.pictures), as GL
    keeps its texture: a second frame whose image pass runs again (the layer's colour
    changed) uploads nothing; the file rewritten with other pixels (a new key) is
    uploaded again and drawn, not the kept one."""
    from PIL import Image  # import here: only these tests write a picture file
    from lamina import Layer, Scene
    from lamina.gpu.opencl import default_runner
    pixels = rng.integers(0, 256, (6, 8, 4), dtype=np.uint8)
    pixels[..., 3] = 255
    Image.fromarray(pixels, "RGBA").save(tmp_path / "kept.png")
    markup = (f'<svg {NS}><filter id="f" {BOX} color-interpolation-filters="sRGB"><feImage href="kept.png" '
              'preserveAspectRatio="none" result="p"/><feComposite in="p" in2="SourceGraphic" operator="in"/>'
              "</filter></svg>")
    scene = Scene(40, 30, "transparent", base_dir=tmp_path)
    scene.add_svg(markup)
    card = scene.root.add(Layer("card", (4, 3, 32, 24), "background: #123; filter: url(#f)"))
    runner = default_runner()
    kept = runner.pictures
    before = kept.uploads
    first = scene.render(gl, filter_backend="opencl")
    uploads = kept.uploads
    assert uploads == before + 1, "the first frame uploads the picture"
    card.style["background"] = "#456"  # the filter runs again on new content
    second = scene.render(gl, filter_backend="opencl")
    assert second.graph.filter_passes(), "the image pass ran in the second frame"
    assert kept.uploads == uploads, "the second frame uploads nothing"
    np.testing.assert_array_equal(first.image, second.image)  # (the picture, inside an opaque card)
    changed = 255 - pixels
    changed[..., 3] = 255
    Image.fromarray(changed, "RGBA").save(tmp_path / "kept.png")
    os.utime(tmp_path / "kept.png", ns=(1, 1))  # a modification time of its own, however fast the file system
    card.style["background"] = "#789"
    third = scene.render(gl, filter_backend="opencl")
    assert kept.uploads == uploads + 1, "the changed picture is uploaded again"
    assert np.abs(third.image[15, 20, :3].astype(int) - second.image[15, 20, :3]).max() > 0, "and drawn"
    on_gl = scene.render(gl, filter_backend="gl")
    assert np.abs(third.image.astype(int) - on_gl.image).max() <= 1, "the new picture, as GL draws it (1 level)"
    assert len(kept) <= kept.kept



def test_drop_caches_forgets_the_gl_feimage_textures_as_it_does_opencls(gl, rng, tmp_path):
    """Renderer.drop_caches makes the next frame a first frame: GL's kept feImage
    textures (gpu.pictures) are released, as the OpenCL runners' trim releases theirs,
    and the next frame uploads the picture again and draws it the same."""
    from PIL import Image  # import here: only these tests write a picture file
    from lamina import Layer, Scene
    pixels = rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)
    pixels[..., 3] = 255
    Image.fromarray(pixels, "RGBA").save(tmp_path / "dropped.png")
    scene = Scene(30, 20, "transparent", base_dir=tmp_path)
    scene.add_svg(f'<svg {NS}><filter id="f" {BOX} color-interpolation-filters="sRGB"><feImage href="dropped.png" '
                  'preserveAspectRatio="none"/></filter></svg>')
    scene.root.add(Layer("card", (3, 2, 24, 16), "background: #123; filter: url(#f)"))
    kept = gl.executor.filter_runner.pictures
    first = scene.render(gl, filter_backend="gl")
    uploads = kept.uploads
    assert first.graph.filter_passes() and len(kept) >= 1, "the picture is kept"
    gl.drop_caches()
    assert len(kept) == 0, "dropped with the other caches"
    again = scene.render(gl, filter_backend="gl")
    assert kept.uploads == uploads + 1 and len(kept) >= 1, "uploaded again"
    np.testing.assert_array_equal(first.image, again.image)
