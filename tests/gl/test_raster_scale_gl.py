"""Raster scale on the GPU (lamina.compositor.raster_scale, graph.scaled): a layer under a
static scale is rastered at that scale, so it equals the same content drawn directly at
the larger size (every length times the scale, no transform) -- text, a rounded disc,
borders, a gradient, a box shadow, a filter, mask-images (gradients, tiles, an image, by
luminance) and polygon clip-paths, also at DPR 2 and on a backdrop-filter -- and a disc's edge matches its analytic
area coverage computed in float64 (an independent computation), where a scale-1 raster
stretched by the composite would blur it over several pixels. Rotation+scale and skew are
compared with the same content drawn at the larger size under the rotation or skew alone.

A scale animation keeps one raster (no re-raster after the first frame) and re-rasters
once when it ends; its last frame then equals the static scene at the final scale."""

from __future__ import annotations

import json
import re

import freetype
import numpy as np
import pytest
from PIL import Image

from pathlib import Path

from lamina import Layer, Renderer, Scene
from lamina.cli import main

pytestmark = pytest.mark.gl

SANS = "font-family: 'DejaVu Sans'"
IMAGES = Path(__file__).resolve().parents[1] / "scenes" / "images"
_PX = re.compile(r"(-?\d+(?:\.\d+)?)px")


def _times(css: str, k: float) -> str:
    return _PX.sub(lambda m: f"{float(m.group(1)) * k:g}px", css)


def _pair(css: str, box, k: float, transform: str = "", size=(360, 260), **extra):
    """(the layer under ``transform`` scale(k), the layer k times larger under ``transform``)."""
    x, y, w, h = box
    scaled, direct = Scene(*size, background="#fff"), Scene(*size, background="#fff")
    scaled.root.add(Layer("a", box, f"{css}; transform-origin: 0 0; transform: {transform} scale({k})", **extra))
    direct.root.add(Layer("a", (x, y, w * k, h * k), f"{_times(css, k)}; transform-origin: 0 0"
                          + (f"; transform: {transform}" if transform else ""), **extra))
    return scaled, direct


def _diff(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    d = np.abs(a.astype(int) - b.astype(int)).max(axis=-1)
    return int(d.max()), int((d > 2).sum())


CASES = {
    "text": (f"{SANS}; font-size: 20px; line-height: 24px; color: #111", (10, 10, 80, 50), {"text": "Crisp ag"}),
    "disc": ("background: #0a4; border-radius: 50%", (10, 10, 20, 20), {}),
    "border-radius": ("background: #fc0; border: 2px solid #036; border-radius: 6px", (10, 10, 40, 30), {}),
    "gradient": ("background: linear-gradient(90deg, red 5px, blue 30px, green)", (10, 10, 50, 20), {}),
    "box-shadow": ("background: #fff; border-radius: 4px; box-shadow: 3px 2px 4px rgba(0,0,0,.6)", (12, 12, 40, 25), {}),
    "blur": ("background: #c30; filter: blur(2px)", (12, 12, 30, 20), {}),
    "mask-linear": ("background: #c30; mask-image: linear-gradient(90deg, #000, transparent)", (12, 12, 30, 20), {}),
    "mask-radial": ("background: #c30; mask-image: radial-gradient(circle 8px, #000 90%, transparent 100%)",
                    (12, 12, 30, 20), {}),
    "mask-tiles": ("background: #c30; mask-image: linear-gradient(#000 50%, transparent 50%); mask-size: 10px 8px; "
                   "mask-position: 3px 2px; mask-repeat: repeat", (12, 12, 30, 20), {}),
    "mask-image-luminance": (f"background: #c30; mask-image: url('{IMAGES / 'quad-16.png'}'); mask-size: 30px 20px; "
                             "mask-mode: luminance", (12, 12, 30, 20), {}),
    "clip-path-polygon": ("background: #c30; clip-path: polygon(0 0, 30px 0, 0 20px)", (12, 12, 30, 20), {}),
    "clip-path-polygon-percent": ("background: #c30; clip-path: polygon(evenodd, 10% 0, 100% 50%, 0 100%)",
                                  (12, 12, 30, 20), {}),
}


def _blink_baseline(size: float, line_height: float) -> int:
    """DejaVu Sans's first baseline at DPR 1 by Blink's rule, from FreeType's reading of
    the font: ascent and descent rounded, the half-leading floored, in whole px."""
    from lamina.style.text import FontFamily, FontStyle
    from lamina.text.fonts import resolve_families
    face = freetype.Face(resolve_families((FontFamily("DejaVu Sans"),), 400.0, FontStyle()).primary.file.path)
    k = size / face.units_per_EM
    ascent, descent = round(face.ascender * k), round(-face.descender * k)
    return int((line_height - ascent - descent) // 2 + ascent)


@pytest.mark.parametrize("case", list(CASES))
def test_a_static_scale_equals_the_content_drawn_at_that_size(gl, case):
    css, box, extra = CASES[case]
    scaled, direct = _pair(css, box, 4, **extra)
    a, b = scaled.render(gl).image, direct.render(gl).image
    if case == "text":
        # Text at scale 4 is laid out at the device scale and multiplied (as Chromium
        # does), the direct 80 px text by Blink's rule for 80 px: its baseline is where
        # the rounded metrics put it, which may be a row apart; the glyphs are the same.
        b = np.roll(b, 4 * _blink_baseline(20.0, 24.0) - _blink_baseline(80.0, 96.0), axis=0)
    worst, over = _diff(a, b)
    # A blur's surface is planned in the scaled layer's own space at its scale: its sigma
    # is 4 x 2 px in both.
    assert worst <= 2 and over == 0, f"{case}: max diff {worst}, {over} px off by more than 2"
    assert scaled.plan().raster_scales["a"].scale == 4.0


def _mask_sizes(scene: Scene) -> dict[str, tuple[int, int]]:
    """The mask textures rastered for the scene: kind -> (width, height)."""
    return {p.target.name.split(":")[0]: (p.target.width, p.target.height) for p in scene.plan().passes
            if getattr(p, "target", None) is not None and p.target.name.startswith(("mask-image", "clip-path"))}


def test_masks_under_dpr_2_and_scale_3_equal_them_drawn_6_times_larger(gl):
    """DPR 2 zooms the layer's box into device px; scale(3) is then its raster scale: the
    mask and the polygon are rastered 6x (one texel per device px of the drawn layer, and
    a transparent texel all round), so the edges equal those of the layer drawn 6x."""
    css = ("background: #c30; clip-path: polygon(0 0, 30px 0, 0 20px); "
           "mask-image: linear-gradient(90deg, #000, transparent 80%)")
    scaled = Scene(180, 130, background="#fff", device_scale_factor=2)
    scaled.root.add(Layer("a", (10, 10, 30, 20), f"{css}; transform-origin: 0 0; transform: scale(3)"))
    direct = Scene(360, 260, background="#fff")
    direct.root.add(Layer("a", (20, 20, 180, 120), _times(css, 6)))
    worst, over = _diff(scaled.render(gl).image, direct.render(gl).image)
    assert worst <= 2 and over == 0, f"max diff {worst}, {over} px off by more than 2"
    assert _mask_sizes(scaled) == {"mask-image": (182, 122), "clip-path": (182, 122)}


def _stripes(scene: Scene) -> None:
    for i in range(0, 360, 20):
        scene.root.add(Layer(f"stripe{i}", (i, 0, 10, 260), "background: #048"))


@pytest.mark.parametrize("mask", ["mask-image: linear-gradient(#000, transparent)",
                                  "clip-path: polygon(0 0, 40px 0, 0 30px)"])
def test_a_scaled_backdrop_filter_is_masked_like_the_larger_element(gl, mask):
    """The mask of a backdrop-filter element applies to its surface (the filtered
    backdrop and the element): rastered at the element's scale, as the direct one's."""
    css = f"backdrop-filter: blur(2px); background: rgba(255, 255, 255, .3); {mask}"
    scaled, direct = Scene(360, 260, background="#fff"), Scene(360, 260, background="#fff")
    _stripes(scaled), _stripes(direct)
    scaled.root.add(Layer("a", (10, 10, 40, 30), f"{css}; transform-origin: 0 0; transform: scale(4)"))
    direct.root.add(Layer("a", (10, 10, 160, 120), _times(css, 4)))
    worst, over = _diff(scaled.render(gl).image, direct.render(gl).image)
    assert worst <= 2 and over == 0, f"{mask}: max diff {worst}, {over} px off by more than 2"


def test_a_scaled_disc_edge_has_the_analytic_coverage(gl):
    """A 20 px disc under scale(4) at (10, 10): a circle of radius 40 centred at (50, 50).
    Its alpha per pixel is the area of the pixel inside the circle (float64, 16x16
    supersampled): within 12 levels (the rounded-rect coverage is an approximation), and
    as many partly covered pixels as the circle has, within 10%. A scale-1 raster
    stretched 4x (Lamina before raster scales) was off by up to 180 levels, with 1796
    partly covered pixels for the circle's 284 (its 1 px edge spread over 4 px)."""
    scene = Scene(120, 120, background="transparent")
    scene.root.add(Layer("a", (10, 10, 20, 20), "background: #000; border-radius: 50%; transform-origin: 0 0; "
                                                 "transform: scale(4)"))
    alpha = scene.render(gl).image[..., 3].astype(float)
    n = 16
    ys, xs = np.mgrid[0:120 * n, 0:120 * n]
    inside = ((xs + 0.5) / n - 50.0) ** 2 + ((ys + 0.5) / n - 50.0) ** 2 <= 40.0 ** 2
    coverage = inside.reshape(120, n, 120, n).mean(axis=(1, 3)) * 255
    assert np.abs(alpha - coverage).max() <= 12
    partial, exact = ((alpha > 0) & (alpha < 255)).sum(), ((coverage > 0) & (coverage < 255)).sum()
    assert abs(partial - exact) <= 0.1 * exact, (partial, exact)


SHAPES = "background: linear-gradient(90deg, #c00, #00c); border: 2px solid #036; border-radius: 8px"


@pytest.mark.parametrize("transform", ["rotate(30deg)", "skewX(20deg)"])
def test_rotation_or_skew_with_scale_draws_like_the_larger_content_under_it(gl, transform):
    scaled, direct = _pair(SHAPES, (80, 10, 50, 30), 3, transform)
    a, b = scaled.render(gl).image, direct.render(gl).image
    worst, over = _diff(a, b)
    # Both are sampled through the same rotation or skew from rasters of the same size.
    assert worst <= 2 and over == 0, f"{transform}: max diff {worst}, {over} px off by more than 2"


MASKED = ("background: #c30; clip-path: polygon(0 0, 30px 0, 0 20px); "
          "mask-image: linear-gradient(#000 50%, transparent 50%); mask-size: 10px 8px")


@pytest.mark.parametrize("transform", ["rotate(30deg)", "skewX(20deg)"])
def test_masks_under_rotation_or_skew_with_scale_draw_like_the_larger_masks_under_it(gl, transform):
    scaled, direct = _pair(MASKED, (80, 10, 30, 20), 3, transform)
    worst, over = _diff(scaled.render(gl).image, direct.render(gl).image)
    # The masks are rastered at 3 (as the layer) and read through the rotation or skew.
    assert worst <= 2 and over == 0, f"{transform}: max diff {worst}, {over} px off by more than 2"


def _soft(image: np.ndarray) -> int:
    """Pixels of text between ink and paper (edge pixels): a blurred edge has more."""
    grey = image[..., :3].astype(float).mean(-1)
    return int(((grey > 40) & (grey < 215)).sum())


@pytest.mark.parametrize("transform", ["rotate(30deg)", "skewX(20deg)"])
def test_text_under_rotation_or_skew_and_scale_is_as_sharp_as_the_larger_text(gl, transform):
    """Text at scale 3 is laid out by Blink's rule for a 20 px font and multiplied by 3
    (lamina.text.layout), a 60 px font by the rule for 60 px, so a line may sit a px
    apart: the comparison is of sharpness (edge pixels), not of pixels. A scale-1 raster
    stretched 3x has about twice the edge pixels."""
    css, box, extra = CASES["text"]
    scaled, direct = _pair(css, (60, 10, 80, 50), 3, transform, **extra)
    soft, reference = _soft(scaled.render(gl).image), _soft(direct.render(gl).image)
    assert 0.9 <= soft / reference <= 1.1, (soft, reference)


def _animate_frames(scene, frames):
    """(raster passes of layer "a", its raster-scale text) for frames i/60, i < frames,
    on one renderer, and the last frame's image."""
    with Renderer() as own:
        rasters, reasons = [], []
        for i in range(frames):
            frame = own.render(scene, t=i / 60)
            rasters.append(sum(1 for p in frame.graph.raster_passes() if p.layer_id == "a"))
            reasons.append(str(frame.graph.raster_scales["a"]))
        return rasters, reasons, frame.image


def test_a_scale_animation_ending_at_its_maximum_keeps_its_one_raster_at_rest(gl):
    """1 -> 3: one raster at the held 3 (float noise leaves it 2.999998, the same
    texture as 3's); at rest the ideal is that scale: no re-raster, "ideal 3.0", and the
    frame is the static scene's."""
    css, box, extra = CASES["text"]
    scene = Scene(360, 260, background="#fff")
    layer = scene.root.add(Layer("a", box, f"{css}; background: #eef; transform-origin: 0 0", **extra))
    layer.animate({"from": {"transform": "scale(1)"}, "to": {"transform": "scale(3)"}}, duration=1, fill="forwards")
    static, _ = _pair(f"{css}; background: #eef", box, 3, **extra)
    rasters, reasons, last = _animate_frames(scene, 63)
    assert rasters[0] == 1 and sum(rasters[1:]) == 0, rasters
    assert reasons[0].startswith("animating: fixed at 3") and reasons[60:] == ["ideal 3.0"] * 3, reasons[58:]
    assert _diff(last, static.render(gl).image)[0] == 0


def test_a_scale_animation_settling_below_its_maximum_re_rasters_once(gl):
    """1 -> 3 -> 2: held at 3 throughout; at rest 2 differs from the held 3, so the
    first frame at rest re-rasters once ("settled"), the frames after it say "ideal 2.0"
    and re-raster nothing, and the frame is the static scene's."""
    css, box, extra = CASES["text"]
    scene = Scene(360, 260, background="#fff")
    layer = scene.root.add(Layer("a", box, f"{css}; background: #eef; transform-origin: 0 0", **extra))
    layer.animate({"from": {"transform": "scale(1)"}, "50%": {"transform": "scale(3)"}, "to": {"transform": "scale(2)"}},
                  duration=1, fill="forwards")
    static, _ = _pair(f"{css}; background: #eef", box, 2, **extra)
    rasters, reasons, last = _animate_frames(scene, 63)
    assert rasters[0] == 1 and sum(rasters[1:60]) == 0 and rasters[60:] == [1, 0, 0], rasters
    assert reasons[0].startswith("animating: fixed at 3")
    assert reasons[60:] == ["settled: re-rastered at 2.0", "ideal 2.0", "ideal 2.0"], reasons[58:]
    assert _diff(last, static.render(gl).image)[0] == 0


def test_an_animation_ending_at_the_held_scale_never_says_settled(gl):
    """rotate(0 -> 90deg) scale(2): the scale is 2 throughout; the frames at rest
    (planned or carried by the fast path) re-raster nothing and say "ideal 2.0"."""
    css, box, extra = CASES["text"]
    scene = Scene(360, 260, background="#fff")
    layer = scene.root.add(Layer("a", box, f"{css}; background: #eef; transform-origin: 0 0", **extra))
    layer.animate({"from": {"transform": "rotate(0deg) scale(2)"}, "to": {"transform": "rotate(90deg) scale(2)"}},
                  duration=1, fill="forwards")
    with Renderer() as own:
        for t in (0.9, 1.0, 1.1, 1.2, 1.3):
            graph = own.render(scene, t=t).graph
            if t >= 1.0:
                assert str(graph.raster_scales["a"]) == "ideal 2.0", t
                assert "settled" not in graph.describe()
                assert not [p for p in graph.raster_passes() if p.layer_id == "a"], t


def test_an_animation_ending_within_two_percent_keeps_its_raster(gl):
    """1 -> 1.01: held at its maximum 1.01 (float noise aside); at rest the ideal is within
    the 2% threshold of it, so the rest keeps the raster."""
    css, box, extra = CASES["text"]
    scene = Scene(360, 260, background="#fff")
    layer = scene.root.add(Layer("a", box, f"{css}; background: #eef; transform-origin: 0 0", **extra))
    layer.animate({"from": {"transform": "scale(1)"}, "to": {"transform": "scale(1.01)"}}, duration=1, fill="forwards")
    rasters, reasons, _ = _animate_frames(scene, 63)
    assert rasters[0] == 1 and sum(rasters[1:]) == 0, rasters
    assert reasons[60:] == ["ideal 1.01"] * 3, reasons[60:]


def test_will_change_with_a_changing_scale_keeps_its_raster_until_the_hint_goes():
    """As cc: a will-change: transform layer keeps the scale it was first rastered at
    (at least 1) while a script changes its scale; when the hint goes it settles."""
    scene = Scene(300, 200, background="#fff")
    card = scene.root.add(Layer("card", (10, 10, 40, 20), "background: #36c; transform-origin: 0 0; "
                                                          "transform: scale(2); will-change: transform"))
    with Renderer() as own:
        assert own.render(scene).graph.raster_scales["card"].scale == 2.0
        for s in (2.5, 3.0, 4.0):
            card.style["transform"] = f"scale({s})"
            graph = own.render(scene).graph
            assert graph.raster_scales["card"].scale == 2.0
            assert not [p for p in graph.raster_passes() if p.layer_id == "card"]
        card.style["will-change"] = "auto"
        graph = own.render(scene).graph
        assert str(graph.raster_scales["card"]) == "settled: re-rastered at 4.0"
        assert [p for p in graph.raster_passes() if p.layer_id == "card"]
        graph = own.render(scene).graph
        assert str(graph.raster_scales["card"]) == "ideal 4.0"
        assert not [p for p in graph.raster_passes() if p.layer_id == "card"]


def test_a_layer_of_another_scene_with_the_same_id_starts_without_history(fresh):
    """Raster-scale history (a will-change layer's kept scale) belongs to its Layer, not
    to its id: another scene's layer "card" on the same renderer is decided afresh."""
    def scene(transform):
        s = Scene(300, 200, background="#fff")
        s.root.add(Layer("card", (10, 10, 40, 20), f"background: #36c; will-change: transform; transform: {transform}"))
        return s

    assert fresh.render(scene("scale(3)")).graph.raster_scales["card"].scale == 3.0
    assert fresh.render(scene("none")).graph.raster_scales["card"].scale == 1.0


@pytest.mark.parametrize("x", [10.0, 10.3])
def test_a_kept_raster_is_reused_when_a_script_changes_the_scale_within_two_percent(x):
    """A promoted layer at a fractional x, scale(4) changed by a script within 2% (4.03,
    3.95, back to 4): "kept at 4.0" reuses the one raster (its offset is the layer's,
    not the composite's), and the frame stays what the ideal raster draws within
    resampling (the kept raster is sampled by the 0.75% left)."""
    scene = Scene(360, 260, background="#fff")
    a = scene.root.add(Layer("a", (x, 10, 20, 20), "background: #0a4; border-radius: 50%; transform-origin: 0 0; "
                                                   "transform: scale(4); will-change: opacity"))
    with Renderer() as own:
        first = own.render(scene)
        assert [p for p in first.graph.raster_passes() if p.layer_id == "a"]
        for k in (4.03, 3.95, 4.0, 4.01):
            a.style["transform"] = f"scale({k})"
            frame = own.render(scene)
            assert not [p for p in frame.graph.raster_passes() if p.layer_id == "a"], k
            reason = str(frame.graph.raster_scales["a"])
            assert reason == ("ideal 4.0" if k == 4.0 else f"kept at 4.0: within 2% of ideal {k:.3g}"), reason
            if k == 4.0:  # back at 4: the kept raster drawn as the first frame drew it
                assert _diff(frame.image, first.image)[0] == 0


_ANIMATED = {"width": 200, "height": 120, "background": "#fff",
             "layers": [{"id": "card", "box": [10, 10, 40, 20], "style": "background: #36c; transform-origin: 0 0",
                         "animations": [{"keyframes": {"from": {"transform": "scale(1)"}, "50%": {"transform": "scale(3)"},
                                                       "to": {"transform": "scale(2)"}},
                                         "duration": 1, "fill": "forwards"}]}]}


def test_cli_explain_from_renders_the_animation_in_order_and_shows_the_settle(tmp_path, capsys):
    """``explain -t 1 --from 0``: the frames 0..1 s on one renderer, the last explained --
    the settle appears; without --from the one frame at 1 s has no history (plainly ideal)."""
    path = tmp_path / "anim.json"
    path.write_text(json.dumps(_ANIMATED))
    assert main(["explain", str(path), "-t", "1.0", "--from", "0", "--fps", "10"]) == 0
    text = capsys.readouterr().out
    assert "Rendered 11 frame(s) in order on one renderer" in text and "card: settled: re-rastered at 2.0" in text
    assert main(["explain", str(path), "-t", "1.0", "--from", "0", "--fps", "10", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["frames_rendered"]["count"] == 11
    assert report["graph"]["raster_scales"]["card"]["reason"] == "settled: re-rastered"
    assert main(["explain", str(path), "-t", "1.0"]) == 0
    assert "card: ideal 2.0" in capsys.readouterr().out


def test_cli_render_frames_with_dpr_overlay_and_a_json_report(tmp_path, capsys):
    """``render --frames 58:62 --dpr 2 --overlay raster-scale --report r.json``: the
    frames in order on one renderer, each PNG at 2x with the overlay, and each frame's
    report (held at 6 = 3 x DPR 2, settled once at 4, then ideal)."""
    path = tmp_path / "anim.json"
    path.write_text(json.dumps(_ANIMATED))
    out = tmp_path / "out"
    out.mkdir()
    assert main(["render", str(path), "--frames", "58:63", "--out", str(out), "--dpr", "2",
                 "--overlay", "raster-scale", "--report", str(tmp_path / "r.json")]) == 0
    pngs = sorted(p.name for p in out.iterdir())
    assert pngs == [f"anim-{i:06d}.png" for i in range(58, 63)]
    with Image.open(out / pngs[0]) as im:
        assert im.size == (400, 240)
    frames = json.loads((tmp_path / "r.json").read_text())["frames"]
    texts = [f["report"]["graph"]["raster_scales"]["card"]["text"] for f in frames]
    assert texts[0].startswith("animating: fixed at 6.0")
    assert texts[2:] == ["settled: re-rastered at 4.0", "ideal 4.0", "ideal 4.0"]
    assert [f["report"]["graph"]["raster_scales"]["card"]["raster_scale"] for f in frames][3] == 4.0


def test_a_scaled_layer_in_a_shared_backing_draws_the_part_the_backing_shows(gl):
    """Layer "a" under scale(50) shares the page's backing with "b": only the part of its
    raster the backing shows is rastered, and the frame is "a"'s colour everywhere but
    where "b" is drawn over it, and white outside its top-left corner: a circle of radius
    8 x 50 = 400 px about (400, 400) (edge pixels, within 1 px of it, are not compared)."""
    scene = Scene(400, 300, background="#fff")
    scene.root.add(Layer("a", (0, 0, 300, 200), "background:#eef; border-radius:8px; transform-origin:0 0; transform: scale(50)"))
    scene.root.add(Layer("b", (350, 250, 20, 20), "background:#00f"))
    image = scene.render(gl).image[..., :3].astype(int)
    expected = np.empty_like(image)
    expected[...] = (0xEE, 0xEE, 0xFF)
    ys, xs = np.mgrid[0:300, 0:400] + 0.5
    r = np.hypot(xs - 400.0, ys - 400.0)
    outside = (xs < 400) & (ys < 400) & (r > 400.0)
    expected[outside] = (0xFF, 0xFF, 0xFF)
    expected[250:270, 350:370] = (0, 0, 0xFF)
    edge = (xs < 400) & (ys < 400) & (np.abs(r - 400.0) <= 1.0)
    assert outside[0, 0] and np.abs(image - expected)[~edge].max() <= 1
