"""The device pixel ratio's input (lamina.device_scale): Scene(device_scale_factor=),
FrameRequest(device_scale_factor=), a scene file's "device_scale_factor", the CLI's --dpr
-- a finite number in [0.25, 8] whose frame fits one texture, else a typed error naming it --
and the zoom of a resolved style into device px (no GPU here)."""

from __future__ import annotations

import json
import math

import pytest

from lamina import FrameRequest, Layer, Scene
from lamina.cli import main
from lamina.device_scale import MAX_DEVICE_SCALE, MIN_DEVICE_SCALE, DeviceScale, check_frame_fits, device_size, parse_device_scale
from lamina.errors import GeometryError, SceneFileError, TextureTooLargeError
from lamina.geometry import Rect
from lamina.scene_file import load_scene, scene_from_dict

BAD = [0, -1, 0.0, -0.5, 1e-9, 1e-3, 0.2499, 8.000001, 9, math.nan, math.inf, -math.inf, "2", None, True, False, [2], 1e308]


@pytest.mark.parametrize("value", [1, 2, 1.5, MIN_DEVICE_SCALE, 0.25, 3, MAX_DEVICE_SCALE])
def test_good_values(value):
    assert parse_device_scale(value) == float(value)
    assert Scene(10, 10, device_scale_factor=value).device_scale_factor == float(value)
    assert FrameRequest(device_scale_factor=value).device_scale_factor == float(value)


@pytest.mark.parametrize("value", BAD, ids=repr)
def test_bad_values_are_geometry_errors_naming_it(value):
    with pytest.raises(GeometryError, match="device_scale_factor"):
        parse_device_scale(value)
    with pytest.raises(GeometryError, match="device_scale_factor"):
        Scene(10, 10, device_scale_factor=value)
    if value is not None:  # a request's None is "the scene's"
        with pytest.raises(GeometryError, match="device_scale_factor"):
            FrameRequest(device_scale_factor=value)
    scene = Scene(10, 10)
    with pytest.raises(GeometryError, match="device_scale_factor"):
        scene.device_scale_factor = value
    assert scene.device_scale_factor == 1.0


def test_frame_past_the_texture_limit():
    with pytest.raises(TextureTooLargeError, match=r"device_scale_factor 2 makes the 9000x10 CSS px frame 18000x20"):
        Scene(9000, 10, device_scale_factor=2)
    Scene(8192, 10, device_scale_factor=2)  # 16384: fits
    with pytest.raises(TextureTooLargeError, match="device_scale_factor"):
        Scene(8192, 10, device_scale_factor=2.001)
    with pytest.raises(TextureTooLargeError, match="--dpr"):
        check_frame_fits(5000, 5000, 4, 16384, "--dpr")
    # A request's factor is checked when planned (its limits may be smaller than 16384).
    with pytest.raises(TextureTooLargeError, match="device_scale_factor"):
        Scene(3000, 10).plan(request=FrameRequest(device_scale_factor=6))


def test_device_size_rounds_as_chromium():
    assert device_size(101, 61, 1.5) == (152, 92)
    assert device_size(100, 50, 2) == (200, 100)
    assert device_size(1, 1, 0.25) == (1, 1)
    assert Scene(101, 61, device_scale_factor=1.5).device_size == (152, 92)


def test_request_overrides_scene():
    scene = Scene(10, 10, device_scale_factor=3)
    assert FrameRequest().device_scale_for(scene) == 3.0
    assert FrameRequest(device_scale_factor=2).device_scale_for(scene) == 2.0
    assert FrameRequest.of(device_scale_factor=2).device_scale_factor == 2.0


def test_scene_file_key_and_round_trip():
    data = {"width": 40, "height": 30, "device_scale_factor": 2, "layers": [{"id": "a", "box": [1, 2, 3, 4]}]}
    scene = scene_from_dict(data)
    assert scene.device_scale_factor == 2.0
    assert scene.to_dict()["device_scale_factor"] == 2.0
    assert "device_scale_factor" not in Scene(4, 4).to_dict()
    assert scene_from_dict(json.loads(scene.to_json())).device_scale_factor == 2.0


@pytest.mark.parametrize("value", [0, -2, 9, "2", None, [1]])
def test_scene_file_bad_value_names_its_path(value):
    with pytest.raises(SceneFileError, match="device_scale_factor") as err:
        scene_from_dict({"width": 40, "height": 30, "device_scale_factor": value})
    assert err.value.path == "$.device_scale_factor"
    with pytest.raises(SceneFileError) as err:
        scene_from_dict({"width": 9000, "height": 30, "device_scale_factor": 2})
    assert err.value.path == "$.device_scale_factor"


@pytest.mark.parametrize("value", ["0", "nan", "inf", "-1", "9", "two"])
def test_cli_dpr_bad_value(tmp_path, capsys, value):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"width": 20, "height": 20}))
    assert main(["render", str(path), "-o", str(tmp_path / "o.png"), "--dpr", value]) == 2
    assert "--dpr" in capsys.readouterr().err
    assert not (tmp_path / "o.png").exists()


def test_cli_dpr_too_large_for_a_texture(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"width": 5000, "height": 20}))
    assert main(["explain", str(path), "--plan-only", "--dpr", "4"]) == 2
    assert "--dpr" in capsys.readouterr().err


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "true", "0", "8.5"])
def test_scene_file_text_with_a_bad_value_is_refused_by_file_and_cli(tmp_path, capsys, literal):
    """The JSON text as a user writes it (Python's json reads NaN and Infinity, and 1e400 is
    inf): load_scene and ``lamina render`` refuse it, naming the key's JSON path."""
    path = tmp_path / "s.json"
    path.write_text(f'{{"lamina": 1, "width": 20, "height": 20, "device_scale_factor": {literal}, "layers": []}}')
    with pytest.raises(SceneFileError, match="device_scale_factor") as err:
        load_scene(path)
    assert err.value.path == "$.device_scale_factor"
    assert main(["render", str(path), "-o", str(tmp_path / "o.png")]) == 2
    assert "$.device_scale_factor" in capsys.readouterr().err
    assert not (tmp_path / "o.png").exists()


def test_cli_frame_past_the_texture_limit_by_file_flag_and_batch(tmp_path, capsys):
    """A frame that would exceed the texture limit (the frame is one texture): ``render``
    with the scene file's ratio, with --dpr, and a batch job (--out) each refuse it naming
    where the ratio came from, and write nothing."""
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"lamina": 1, "width": 5000, "height": 20, "device_scale_factor": 4, "layers": []}))
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"lamina": 1, "width": 5000, "height": 20, "layers": []}))
    assert main(["render", str(big), "-o", str(tmp_path / "a.png")]) == 2
    assert "$.device_scale_factor" in capsys.readouterr().err
    assert main(["render", str(plain), "-o", str(tmp_path / "b.png"), "--dpr", "4"]) == 2
    assert "--dpr 4 makes the 5000x20 CSS px frame 20000x80 device px" in capsys.readouterr().err
    assert main(["render", str(big), "--out", str(tmp_path / "batch")]) == 2
    assert "$.device_scale_factor" in capsys.readouterr().out
    assert not list(tmp_path.glob("*.png")) and not list((tmp_path / "batch").glob("*.png"))


def test_zoom_box_and_identity():
    z = DeviceScale(2)
    assert z.box(Rect(1, 2, 3, 4.5)) == Rect(2, 4, 6, 9)
    one = DeviceScale(1)
    style = Layer("a", (0, 0, 1, 1), "border: 2px solid red").computed_style()
    assert one.style(style) is style
    assert DeviceScale.of(2) is DeviceScale.of(2.0)


def test_zoom_style_scales_every_length_and_nothing_else():
    css = ("border: 2px solid red; border-radius: 5px 10% / 3px; box-shadow: 1px 2px 3px 4px black; "
           "filter: blur(2px) drop-shadow(1px 2px 3px red) grayscale(50%); backdrop-filter: blur(1px); "
           "transform: translate(3px, 10%) rotate(10deg) scale(2) matrix(1, 0, 0, 1, 4, 5); "
           "transform-origin: 2px 50%; font-size: 12px; line-height: 15px; letter-spacing: 1px; "
           "text-shadow: 1px 1px 2px red; background: linear-gradient(red 4px, blue 50%); "
           "background-size: 10px auto; background-position: 3px 20%; clip-path: inset(2px round 3px); "
           "opacity: .5")
    s = Layer("a", (0, 0, 100, 100), css).computed_style()
    z = DeviceScale.of(2).style(s)
    assert z.device_scale == 2 and s.device_scale == 1
    assert (z.border_top_width, z.border_left_width) == (4, 4)
    assert z.radius_top_left.x.px == 10 and z.radius_top_right.x.percent == 10 and z.radius_top_left.y.px == 6
    assert (z.box_shadow[0].x, z.box_shadow[0].y, z.box_shadow[0].blur, z.box_shadow[0].spread) == (2, 4, 6, 8)
    blur, shadow, gray = z.filter.ops
    assert blur.sigma == 4 and (shadow.dx, shadow.dy, shadow.sigma) == (2, 4, 6) and gray == s.filter.ops[2]
    assert z.backdrop_filter.ops[0].sigma == 2
    translate, rotate, scale, matrix = z.transform
    assert translate.args[0].px == 6 and translate.args[1].percent == 10
    assert rotate == s.transform[1] and scale == s.transform[2]
    assert matrix.args == (1, 0, 0, 1, 8, 10)
    assert z.transform_origin[0].px == 4 and z.transform_origin[1].percent == 50
    assert (z.font_size, z.line_height.value, z.letter_spacing) == (24, 30, 2)
    assert (z.text_shadow[0].x, z.text_shadow[0].blur) == (2, 4)
    assert z.background_image.stops[0].position.px == 8 and z.background_image.stops[1].position.percent == 50
    assert z.background_size.width.px == 20 and z.background_position[0].px == 6
    assert z.clip_path.shape.top.px == 4 and z.clip_path.shape.radii.top_left.x.px == 6
    assert z.opacity == 0.5
    assert DeviceScale.of(2).style(s) is z  # memoised: an unchanged style gives the same zoomed one


def test_unitless_line_height_and_em_are_not_zoomed_twice():
    parent = Layer("p", (0, 0, 10, 10), "font-size: 10px; line-height: 1.5")
    child = Layer("c", (0, 0, 10, 10), "font-size: 2em")
    parent.add(child)
    z = DeviceScale(2)
    ps = parent.computed_style()
    cs = child.computed_style(ps)  # computed from the CSS px parent, then zoomed
    assert z.style(ps).line_height == ps.line_height  # a number: times the (zoomed) font size
    assert z.style(cs).font_size == 40
