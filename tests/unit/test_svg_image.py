"""feImage's pictures (lamina.filters.svg.images, compile_image): read under the scene's
file policy, as every scene image is, and planned as an image pass; a missing, outside,
unreadable or non-image file is an SvgImageError naming the feImage, href and its value,
raised while planning (no GPU here: before any GPU work)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Scene, filters, load_scene
from lamina.errors import FileAccessError, SvgImageError, UnsupportedFeatureError
from lamina.file_access import FileAccess
from lamina.filters.plan import ImagePass, RegionPass
from lamina.filters.svg import parse_svg
from lamina.filters.svg.compile import plan_graph
from lamina.filters.svg.images import svg_files

NS = 'xmlns="http://www.w3.org/2000/svg"'


def markup(href: str, attrs: str = "") -> str:
    return (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB">'
            f'<feImage href="{href}" {attrs}/></filter></svg>')


@pytest.fixture
def folder(tmp_path):
    scene_dir = tmp_path / "scene"
    scene_dir.mkdir()
    Image.fromarray(np.full((4, 8, 4), 200, np.uint8), "RGBA").save(scene_dir / "pic.png")
    Image.fromarray(np.full((4, 8, 4), 90, np.uint8), "RGBA").save(tmp_path / "secret.png")  # outside the folder
    (scene_dir / "notes.png").write_text("not an image")
    return scene_dir


def plan(href: str, access: FileAccess | None, attrs: str = ""):
    with svg_files(access):
        return plan_graph(parse_svg(markup(href, attrs)).filter("f"), (16, 8))


def test_a_picture_in_the_folder_is_one_image_pass_placed_by_preserve_aspect_ratio(folder):
    p = plan("pic.png", FileAccess.confined_to(folder), "preserveAspectRatio='xMaxYMid meet'")
    [image] = p.passes
    assert isinstance(image, ImagePass) and p.output == image.output
    assert image.pixels.shape == (4, 8, 4) and image.clip == (0, 0, 16, 8)
    # meet: 8x4 px picture in a 16x8 box at scale 2 fills it; one picture px per two output px
    assert image.step == (0.5, 0.5) and image.origin == (-0.25, -0.25)


def test_x_y_width_height_clip_the_picture_to_its_subregion(folder):
    [image] = plan("pic.png", FileAccess.confined_to(folder), "x='4' y='2' width='8' height='4'").passes
    assert image.clip == (4, 2, 12, 6)
    assert image.step == (1.0, 1.0) and image.origin == (-4.0, -2.0)


@pytest.mark.parametrize("href, refused, why", [
    ("missing.png", False, "file not found"),
    ("../secret.png", True, "outside the folders"),
    ("notes.png", False, "cannot use the image"),
])
def test_bad_files_are_typed_errors_naming_element_attribute_and_value(folder, href, refused, why):
    with pytest.raises(SvgImageError) as info:
        plan(href, FileAccess.confined_to(folder))
    err = info.value
    assert err.element == "<feImage>" and err.property == "href" and err.value == href and err.refused is refused
    assert why in str(err) and "<feImage>" in str(err) and "'href'" in str(err)
    if refused:
        assert isinstance(err.__cause__, FileAccessError)


def test_an_absolute_path_outside_the_folder_is_refused_before_the_file_is_read(folder):
    with pytest.raises(SvgImageError, match="outside the folders") as info:
        plan(str(folder.parent / "secret.png"), FileAccess.confined_to(folder))
    assert info.value.refused


def test_without_a_policy_a_file_is_refused_and_a_data_url_needs_none(folder):
    with pytest.raises(SvgImageError, match="no scene"):
        plan("pic.png", None)
    from lamina.images import encode_png_data_url  # import here: only this test makes a data: URL
    [image] = plan(encode_png_data_url(np.zeros((2, 2, 4), np.uint8)), None).passes
    assert isinstance(image, ImagePass)


def test_a_fragment_reference_is_refused_when_the_markup_is_read():
    with pytest.raises(UnsupportedFeatureError, match="feImage referring to an element"):
        parse_svg(markup("#shape"))


def test_filters_apply_reads_only_inside_files_and_checks_before_any_gpu_work(folder):
    img = np.zeros((8, 16, 4), np.uint8)
    with pytest.raises(SvgImageError, match="outside the folders"):
        filters.apply(img, "url(#f)", "gl", svg=markup("../secret.png"), files=folder)
    with pytest.raises(SvgImageError, match="outside the folders"):
        filters.apply(img, "url(#f)", "reference", svg=markup("../secret.png"), files=folder)
    out = filters.apply(img, "url(#f)", "reference", svg=markup("pic.png", "preserveAspectRatio='none'"),
                        files=folder)
    # the picture stretched over the image, drawn to its edges as browsers draw an image
    assert np.all(np.abs(out.astype(int) - 200) <= 1)


def test_a_scene_file_reads_feimage_only_inside_its_folder(folder):
    def scene_file(href: str):
        path = folder / "scene.json"
        path.write_text(json.dumps({"lamina": 1, "width": 40, "height": 30, "svg": markup(href),
                                    "layers": [{"id": "card", "box": [4, 4, 16, 8],
                                                "style": "background: teal; filter: url(#f)"}]}))
        return load_scene(path)

    graph = scene_file("pic.png").plan()
    assert any(p.step.kind == "image" for p in graph.filter_passes())
    with pytest.raises(SvgImageError, match="outside the folders"):
        scene_file("../secret.png").plan()


def test_a_python_scene_reads_where_its_code_points(folder):
    scene = Scene(40, 30, base_dir=folder.parent)
    scene.add_svg(markup("secret.png"))
    scene.root.add(Layer("card", (4, 4, 16, 8), "background: teal; filter: url(#f)"))
    assert any(p.step.kind == "image" for p in scene.plan().filter_passes())


def test_a_placed_picture_clips_itself_and_ftile_repeats_its_rect(folder):
    access = FileAccess.confined_to(folder)
    body = "<feImage href='pic.png' x='4' y='2' width='8' height='4'/>"

    def graph(after: str):
        with svg_files(access):
            svg = (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1">{body}{after}</filter></svg>')
            return plan_graph(parse_svg(svg).filter("f"), (16, 8))

    [image] = graph("").passes  # transparent outside its subregion already: no region pass after it
    assert isinstance(image, ImagePass) and image.clip == (4, 2, 12, 6)
    image, tile = graph("<feTile/>").passes  # feTile: a region pass repeating the picture's rect
    assert isinstance(image, ImagePass) and isinstance(tile, RegionPass) and tile.tile == (4, 2, 12, 6)


def test_an_empty_subregion_draws_nothing(folder):
    svg = markup("pic.png", "height='0'")
    out = filters.apply(np.zeros((8, 16, 4), np.uint8), "url(#f)", "reference", svg=svg, files=folder)
    assert not out.any()
    [empty] = plan("pic.png", FileAccess.confined_to(folder), "height='0'").passes
    assert not isinstance(empty, ImagePass)  # a transparent pass: nothing to sample


def test_a_file_replaced_keeping_its_modification_time_is_read_again(folder):
    """A picture replaced by other pixels with the same mtime (a copy keeping times,
    os.utime, two writes in one timestamp tick) is a new picture with a new key, so no
    runner draws the old upload (gpu.pictures keeps copies by that key)."""
    access = FileAccess.confined_to(folder)
    path = folder / "pic.png"
    [before] = plan("pic.png", access).passes
    st = path.stat()
    rgba = np.random.default_rng(27).integers(0, 256, (4, 8, 4), dtype=np.uint8)
    Image.fromarray(rgba).save(path)  # same size, other pixels
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns
    [after] = plan("pic.png", access).passes
    assert np.array_equal(after.pixels, rgba), "the new file's pixels"
    assert after.key != before.key
