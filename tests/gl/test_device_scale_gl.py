"""Device pixel ratio (lamina.device_scale): a frame at device_scale_factor k is the frame
of the same scene with every CSS length multiplied by k, drawn at 1 -- effect by effect
(geometry, borders, radii, gradients, box shadows, blur and drop-shadow sigmas,
transforms, clip-paths, masks, images, text and text shadows, scrolling, tiles, damage) --
as Chromium draws a page at --force-device-scale-factor=k (it lays the page out zoomed).

Where the equivalence does not hold, and why:
* an image's natural size: at k an image px is k device px (the image is drawn at its
  CSS size, upscaled), where the doubled scene draws it at its natural size -- so the
  image test doubles the image too, with nearest-neighbour upscaling (image-rendering:
  pixelated) on both sides;
* text at k > 1 uses Blink's rule for that scale (subpixel positioning, ascent and
  descent rounded in device px: lamina.text.baseline), which is not the rule of a k
  times larger font at 1: the two are equal on the cases below, and the baselines at
  k = 2 are checked against Chromium's own rows (test_dpr2_baselines_on_chromiums_rows);
* a fractional k (1.5) rounds the frame's size and puts boxes on half pixels: the
  comparison there is "same size, close pixels", not equality.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from lamina import FrameRequest, Layer, Renderer, Scene
from lamina.device_scale import DeviceScale
from lamina.errors import TextureTooLargeError
from lamina.text import layout as text_layout
from lamina.text.layout import TextSpec, lay_out

pytestmark = pytest.mark.gl

_PX = re.compile(r"(-?\d+(?:\.\d+)?)px")


def _doubled(css: str, k: float = 2) -> str:
    return _PX.sub(lambda m: f"{float(m.group(1)) * k:g}px", css)


def _scene(layers, k=1.0, size=(120, 90), scale_lengths=False, **opts) -> Scene:
    f = 2 if scale_lengths else 1
    scene = Scene(size[0] * f, size[1] * f, device_scale_factor=k, **opts)

    def add(parent, spec):
        id, box, css, kids = spec[0], spec[1], spec[2], spec[3] if len(spec) > 3 else ()
        extra = spec[4] if len(spec) > 4 else {}
        layer = Layer(id, tuple(v * f for v in box), _doubled(css) if scale_lengths else css, **extra)
        parent.add(layer)
        for kid in kids:
            add(layer, kid)

    for spec in layers:
        add(scene.root, spec)
    return scene


def _diff(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    assert a.shape == b.shape
    d = np.abs(a.astype(int) - b.astype(int)).max(axis=-1)
    return int(d.max()), int((d > 0).sum())


EFFECTS = {
    "geometry": [("a", (10, 10, 50, 30), "background: #3a6"), ("b", (33.5, 40.25, 20, 17), "background: #a36")],
    "borders": [("a", (10, 10, 60, 40), "background: #fc0; border: 3px solid #036; border-left-width: 1px")],
    "dashed-border": [("a", (10, 10, 70, 50), "border: 2px dashed #036")],
    "radii": [("a", (10, 10, 70, 50), "background: #06c; border-radius: 14px 6px / 10px 20px; border: 2px solid #000")],
    "gradient": [("a", (10, 10, 90, 50), "background: linear-gradient(90deg, red 10px, blue 40px, green)")],
    "radial-gradient": [("a", (10, 10, 90, 50), "background: radial-gradient(circle 20px at 30px 20px, red, blue)")],
    "box-shadow": [("a", (20, 20, 50, 30), "background: #fff; box-shadow: 4px 5px 6px 2px rgba(0,0,0,.6), "
                                           "inset 2px 3px 4px #c00")],
    "blur": [("a", (20, 20, 50, 30), "background: #c30; filter: blur(3px)")],
    "drop-shadow": [("a", (20, 20, 50, 30), "background: #c30; border-radius: 8px; "
                                            "filter: drop-shadow(4px 3px 2px #036)")],
    "transform": [("a", (20, 20, 50, 30), "background: #c30; transform: translate(7px, 3px) rotate(12deg) scale(1.2)")],
    "transform-origin": [("a", (20, 20, 50, 30), "background: #c30; transform-origin: 5px 5px; transform: rotate(30deg)")],
    "opacity-group": [("g", (10, 10, 80, 60), "opacity: .6", [("a", (0, 0, 40, 40), "background: red"),
                                                              ("b", (20, 20, 40, 30), "background: blue")])],
    "clip-overflow": [("c", (10, 10, 60, 40), "overflow: hidden; border-radius: 10px",
                       [("a", (-10, -10, 90, 70), "background: #393")])],
    "clip-path": [("a", (10, 10, 80, 60), "background: #339; clip-path: inset(5px 8px round 6px)")],
    "clip-path-polygon": [("a", (10, 10, 80, 60), "background: #339; clip-path: polygon(0 0, 60px 10px, 30px 50px)")],
    "mask-gradient": [("a", (10, 10, 80, 60), "background: #339; mask-image: linear-gradient(black 10px, transparent 40px)")],
    "backdrop-filter": [("bg", (0, 0, 120, 90), "background: linear-gradient(90deg, red, blue)"),
                        ("a", (20, 20, 60, 40), "backdrop-filter: blur(4px)")],
}

TEXTS = {
    "text": [("t", (8, 6, 110, 80), "font-family: 'DejaVu Sans'; font-size: 13px; line-height: 17px; color: #222",
              (), {"text": "Device pixels, twice as many."})],
    "text-shadow": [("t", (8, 6, 110, 80), "font-family: 'DejaVu Serif'; font-size: 15px; color: #222; "
                                           "text-shadow: 2px 1px 2px #c00", (), {"text": "Shadowed text"})],
    "text-bold-normal-line": [("t", (8, 6, 110, 80), "font-family: 'DejaVu Serif'; font-weight: bold; "
                                                     "font-size: 14px; color: #222", (), {"text": "Bold, line-height normal"})],
}


def _first_baseline(spec, k: float) -> float:
    """Where Lamina's layout puts the first baseline of the text layer ``spec``, in device px
    below its content top, at device scale ``k`` (the scene at k) or 1 (the doubled scene)."""
    id, box, css, _, extra = spec
    style = Layer(id, box, css, **extra).computed_style()
    zoomed = DeviceScale(k).style(style) if k != 1 else style
    text = TextSpec(text=extra["text"], families=zoomed.font_family, size=zoomed.font_size,
                    weight=zoomed.font_weight, style=zoomed.font_style, line_height=zoomed.line_height,
                    align=zoomed.text_align, letter_spacing=zoomed.letter_spacing, white_space=zoomed.white_space,
                    width=box[2] * k, scale=k)
    return lay_out(text).lines[0].baseline


@pytest.mark.parametrize("effect", sorted(EFFECTS))
def test_dpr2_frame_is_the_doubled_scene_at_dpr1(gl, effect):
    at2 = _scene(EFFECTS[effect], k=2).render(gl).image
    doubled = _scene(EFFECTS[effect], k=1, scale_lengths=True).render(gl).image
    assert at2.shape == (180, 240, 4)
    assert _diff(at2, doubled) == (0, 0), effect


@pytest.mark.parametrize("case", sorted(TEXTS))
def test_dpr2_text_is_the_doubled_font_moved_by_blinks_rule(gl, case, monkeypatch):
    """Text at k = 2 is not a 2x font at 1: Blink rounds the font's ascent and descent in
    device px at the device scale (and positions glyphs at subpixels above 1), so the
    baseline may land a device pixel off the doubled font's, and above 1 glyphs are not
    hinted (Chromium's font render params on Linux). The glyphs are the doubled font's
    rendered unhinted, at the same x; the rows differ by exactly what the rule says (its
    k = 2 rows are Chromium's: test_dpr2_baselines_on_chromiums_rows)."""
    at2 = _scene(TEXTS[case], k=2).render(gl).image
    with monkeypatch.context() as patch, Renderer() as own:  # the doubled font at 1, unhinted as at 2
        patch.setattr(text_layout, "subpixel_positioning", lambda scale: True)
        doubled = own.render(_scene(TEXTS[case], k=1, scale_lengths=True)).image
    hinted = _scene(TEXTS[case], k=1, scale_lengths=True).render(gl).image
    assert _diff(doubled, hinted) != (0, 0), "at 1 glyphs are hinted: the two differ"
    spec = TEXTS[case][0]
    doubled_spec = (spec[0], tuple(v * 2 for v in spec[1]), _doubled(spec[2]), (), spec[4])
    shift = _first_baseline(spec, 2) - _first_baseline(doubled_spec, 1)
    assert shift == int(shift) and abs(shift) <= 1
    moved = np.roll(doubled, int(shift), axis=0)
    assert _diff(at2[4:-4], moved[4:-4]) == (0, 0), (case, shift)


def test_matrix_translation_is_in_css_px(gl):
    at2 = _scene([("a", (10, 10, 30, 20), "background: red; transform: matrix(1, 0, 0, 1, 5, 3)")], k=2).render(gl).image
    doubled = _scene([("a", (20, 20, 60, 40), "background: red; transform: matrix(1, 0, 0, 1, 10, 6)")],
                     size=(240, 180)).render(gl).image
    assert _diff(at2, doubled) == (0, 0)


def test_image_px_is_a_css_px(gl):
    img = np.zeros((8, 10, 4), np.uint8)
    img[..., 3] = 255
    img[::2, ::3, 0] = 255
    img[1::2, :, 2] = 200
    big = img.repeat(2, axis=0).repeat(2, axis=1)
    css = "image-rendering: pixelated"
    at2 = Scene(60, 40, device_scale_factor=2)
    at2.root.add(Layer("i", (5, 5, 10, 8), css, image=img))
    at2.root.add(Layer("j", (20, 5, 30, 24), css + "; background-repeat: repeat", image=img))
    doubled = Scene(120, 80)
    doubled.root.add(Layer("i", (10, 10, 20, 16), css, image=big))
    doubled.root.add(Layer("j", (40, 10, 60, 48), css + "; background-repeat: repeat", image=big))
    assert _diff(at2.render(gl).image, doubled.render(gl).image) == (0, 0)


def test_scrolled_and_tiled_contents(gl):
    """A composited scroller's tiles, its interest rect and the scroll offset are device px."""
    kids = [(f"r{i}", (0, 40 * i, 100, 30), f"background: hsl({i * 37}, 70%, 50%)") for i in range(30)]
    spec = [("s", (10, 10, 100, 70), "overflow: auto; scroll-top: 45px; will-change: transform", kids)]
    at2 = _scene(spec, k=2).render(gl)
    doubled = _scene(spec, k=1, scale_lengths=True).render(gl)
    assert _diff(at2.image, doubled.image) == (0, 0)


def test_incremental_frames_and_damage_are_device_px(gl):
    spec = [("a", (10, 10, 30, 20), "background: red"), ("b", (60, 40, 30, 20), "background: blue")]
    renderer = Renderer()
    try:
        at2 = _scene(spec, k=2)
        renderer.render(at2)
        at2["a"].style["background-color"] = "green"
        frame = renderer.render(at2)
        damage = frame.graph.passes[-1].damage if hasattr(frame.graph.passes[-1], "damage") else None
        fresh = _scene(spec, k=1, scale_lengths=True)
        fresh["a"].style["background-color"] = "green"
        assert _diff(frame.image, fresh.render(gl).image) == (0, 0)
        if damage is not None:
            x, y, w, h = damage
            assert (x, y) <= (20, 20) and x + w >= 80 and y + h >= 60, damage  # the layer's device rect
            assert x + w <= 120 and y + h <= 100
    finally:
        renderer.close() if hasattr(renderer, "close") else None


def test_request_overrides_the_scene_and_a_change_rebuilds(gl):
    scene = _scene(EFFECTS["radii"], k=1)
    assert scene.render(gl).image.shape == (90, 120, 4)
    assert scene.render(gl, request=FrameRequest(device_scale_factor=2)).image.shape == (180, 240, 4)
    scene.device_scale_factor = 3
    assert scene.render(gl).image.shape == (270, 360, 4)
    assert scene.plan().width == 360


def test_fractional_scale_rounds_the_frame(gl):
    scene = _scene(EFFECTS["borders"], k=1.5, size=(101, 61))
    assert scene.render(gl).image.shape == (92, 152, 4)  # 101 * 1.5 = 151.5 -> 152; 61 * 1.5 = 91.5 -> 92


def test_frame_too_large_for_a_texture_names_it():
    scene = Scene(4000, 100)
    with pytest.raises(TextureTooLargeError, match="device_scale_factor"):
        scene.device_scale_factor = 5
    assert scene.device_scale_factor == 1.0
    with pytest.raises(TextureTooLargeError, match="device_scale_factor"):
        scene.plan(request=FrameRequest(device_scale_factor=5))


def test_dpr2_baselines_on_chromiums_rows(gl):
    """Blink's baseline rule at device scale 2 (lamina.text.baseline), drawn: each k = 2 case
    of the Chromium fixture lands on Chromium's device-pixel row."""
    from tests.chromium.text_baselines import fixture_cases, measure
    from tests.gl.test_text_baseline_gl import CELL_H, CELL_W, COLUMNS, DATA, ROWS, _style

    cases = [c for c in fixture_cases(DATA) if c["scale"] == 2]
    assert cases
    wrong, total = [], 0
    per = COLUMNS * ROWS
    for start in range(0, len(cases), per):
        batch = cases[start:start + per]
        scene = Scene(CELL_W * COLUMNS, CELL_H * ROWS, background="transparent", device_scale_factor=2)
        placed = []
        for i, case in enumerate(batch):
            col, row = i % COLUMNS, i // COLUMNS
            x0, y0 = col * CELL_W, row * CELL_H
            frac = case["top"] - math.floor(case["top"])
            scene.root.add(Layer(f"c{i}", (x0 + 4, y0 + 20 + frac, CELL_W - 8, CELL_H - 22), _style(case),
                                 text=DATA["text"]))
            placed.append((case, (x0 + 2, y0, x0 + CELL_W - 2, y0 + CELL_H), 2 * (y0 + 20 - math.floor(case["top"]))))
        alpha = scene.render(gl).image[..., 3]
        for case, region, shift in placed:
            total += 1
            ours, theirs = measure(alpha, region, 2), [b + shift for b in case["baselines"]]
            if ours != theirs:
                wrong.append((case["family"], case["size"], case["line_height"], case["top"], ours, theirs))
    assert not wrong, f"{len(wrong)} of {total} cases off Chromium's rows: {wrong[:5]}"


def test_goldens_record_their_dpr_and_compare_like_with_like(gl, tmp_path):
    from lamina.fuzzy import Tolerance
    from lamina.golden.store import DPR_KEY, GoldenDir, Status, golden_name, read_golden

    store = GoldenDir(tmp_path, update="missing", force=True)
    at2 = _scene(EFFECTS["radii"], k=2).render(gl)
    assert at2.graph.device_scale_factor == 2.0
    assert store.check(at2, golden_name("radii", 2), Tolerance()).status is Status.WRITTEN
    assert (tmp_path / "radii.2x.png").is_file()
    _, fp = read_golden(tmp_path / "radii.2x.png")
    assert fp.device_scale_factor == 2.0
    at1 = _scene(EFFECTS["radii"], k=1).render(gl)
    assert store.check(at1, "radii", Tolerance()).status is Status.WRITTEN
    from PIL import Image
    assert DPR_KEY not in Image.open(tmp_path / "radii.png").text  # DPR 1: as every golden before DPR
    compare = GoldenDir(tmp_path)
    assert compare.check(at2, "radii.2x", Tolerance()).status is Status.PASSED
    # The doubled scene at DPR 1 has the very same pixels, but is not like with like.
    doubled = _scene(EFFECTS["radii"], k=1, scale_lengths=True).render(gl)
    out = compare.check(doubled, "radii.2x", Tolerance())
    assert out.status is Status.FAILED and "device pixel ratio 2" in out.message
    # An array says its DPR through the check.
    assert compare.check(at2.image, "radii.2x", Tolerance(), device_scale_factor=2).status is Status.PASSED
    assert compare.check(at2.image, "radii.2x", Tolerance()).status is Status.FAILED


def test_animation_frames_are_sampled_in_css_px_then_scaled(gl):
    """Keyframes are CSS px: sampled at t, then zoomed; an incremental frame on a kept
    renderer (transform and filter animating) equals a fresh doubled scene at the same t."""

    def make(k, f):
        scene = Scene(120 * f, 90 * f, device_scale_factor=k)
        layer = scene.root.add(Layer("a", (10 * f, 10 * f, 40 * f, 30 * f), "background: #36c; will-change: transform"))
        layer.animate({"from": {"transform": f"translate(0px, 0px)", "filter": "blur(0px)"},
                       "to": {"transform": f"translate({30 * f}px, {20 * f}px)", "filter": f"blur({3 * f}px)"}},
                      duration=1)
        return scene

    kept = make(2, 1)
    with Renderer() as renderer:
        for t in (0.0, 0.25, 0.5):
            frame = renderer.render(kept, t=t)
            with Renderer() as fresh:
                doubled = fresh.render(make(1, 2), t=t)
            assert _diff(frame.image, doubled.image) == (0, 0), t


def test_overlay_at_dpr2_is_device_px(gl):
    frame = _scene(EFFECTS["opacity-group"], k=2).render(gl)
    assert frame.overlay("borders").shape == frame.image.shape
