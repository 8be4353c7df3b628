"""The demos teach from the screen, read in headless frames (pixels and the panels' text):
animation-cost's cards carry their names in their table rows' colours, every overlay
draws its legend on the canvas, paint flashing keeps a colour animation visible, a
paused blur keeps its cost in the table, the Layers table keeps its row order, a cut
cell shows whole in a tooltip, the UI scales, a recording shows the render time, and
filter-playground at rest shows its plan marked reused."""

from __future__ import annotations

import numpy as np
import pytest
from imgui_bundle import imgui

from demos.animation_cost import VARIANT_COLOURS, VARIANTS, WINDOW_S, AnimationCost, cost_table
from demos.filter_playground import FilterPlayground, executed_passes
from demos.registry import DEMOS
from demos.ui.panels import layer_rows
from demos.ui.runner import PANEL_WIDTH, Runner
from lamina.overlays import LEGENDS, OVERLAYS

pytestmark = pytest.mark.gl


@pytest.fixture
def headless(gl):
    """Demo runners on their own headless context; the shared one is current again after."""
    runners = []

    def make(demo, **options) -> Runner:
        runners.append(Runner(demo, headless=True, **options))
        return runners[-1]

    yield make
    for runner in runners:
        runner.close()
    gl.gpu.activate()


def pixels_of(picture: np.ndarray, colour, tolerance: int = 0) -> np.ndarray:
    """Mask of the pixels within ``tolerance`` levels of ``colour`` (RGB)."""
    return np.abs(picture[..., :3].astype(int) - np.array(colour)).max(axis=-1) <= tolerance


def test_cards_are_labelled_in_their_rows_colours(headless):
    runner = headless(AnimationCost())
    runner.render_frame(0.0)
    runner.t = 2.0 - 1 / 30  # next frame: the blur and the fade at their strongest
    runner.render_frame(1 / 30)
    picture = runner.snapshot()
    scene_w, _ = runner.demo.scene_size
    for variant in VARIANTS:
        label = runner.scene[f"{variant}-label"]
        assert label.text == variant, "the label names what the card animates"
        box = label.box
        area = picture[int(box.y):int(box.y + box.height), int(box.x):int(box.x + box.width)]
        # Its row's colour behind white letters, unblurred and unfaded at the animations' peak.
        assert pixels_of(area, VARIANT_COLOURS[variant], 2).mean() > 0.5, variant
        assert pixels_of(area, (255, 255, 255), 10).sum() > 150, f"{variant}: no white text"
        # The cost table's row for it has the same colour (its first cell's background).
        assert pixels_of(picture[:, scene_w:], VARIANT_COLOURS[variant]).sum() > 300, f"{variant}'s row"


@pytest.mark.parametrize("kind", OVERLAYS)
def test_every_overlay_draws_its_legend_on_the_canvas(headless, kind):
    runner = headless(DEMOS["animation-cost"]())
    runner.state.overlay = kind
    runner.render_frame(0.0)
    picture = runner.snapshot()
    assert runner.state.legend == [f"{kind} overlay", *(text for _, text in LEGENDS[kind])]
    x0, y0, x1, y1 = (int(v) for v in runner.state.legend_box)
    scene_w, scene_h = runner.demo.scene_size
    assert 0 <= x0 < x1 <= scene_w and 0 <= y0 < y1 <= scene_h, "on the scene, beside nothing of the panels"
    legend = picture[y0:y1, x0:x1]
    for colour, text in LEGENDS[kind]:
        assert pixels_of(legend, colour).sum() >= 49, f"the swatch of {text!r}"
    assert pixels_of(legend, (240, 240, 240), 15).sum() > 40 * len(LEGENDS[kind]), "the legend's words"


def test_no_overlay_no_legend(headless):
    runner = headless(DEMOS["animation-cost"]())
    runner.state.overlay = None
    frame = runner.render_frame(0.0)
    picture = runner.snapshot()
    assert runner.state.legend == [] and runner.state.legend_box is None
    scene_w, scene_h = runner.demo.scene_size
    corner = np.s_[scene_h - 120:scene_h, :300]
    shown = picture[corner][..., :3].astype(int)
    assert np.abs(shown - frame.image[corner][..., :3].astype(int)).max() <= 1, "the corner shows the scene"


def test_paint_flashing_keeps_the_colour_animation_visible(headless):
    runner = headless(AnimationCost())
    assert runner.state.overlay == "paint"
    runner.render_frame(0.0)
    card = runner.scene["background-card"].box
    centre = (int(card.y + card.height / 2), int(card.x + card.width / 2))
    red = runner.snapshot()[centre][:3].astype(int)
    runner.render_frame(2.0)  # the colour's other end: blue
    blue = runner.snapshot()[centre][:3].astype(int)
    assert red[0] > red[1] and blue[2] > blue[1], f"the card's own colour shows under the flash: {red}, {blue}"
    assert np.abs(red - blue).max() > 80, "the animation is visible through the flash"


def test_a_paused_blur_keeps_its_cost(headless):
    runner = headless(AnimationCost())
    demo = runner.demo
    runner.render_frame(0.0)
    for _ in range(4):
        runner.render_frame(0.25)  # to 1 s: the blur half-way
    assert demo.caption.startswith("per frame: mean")
    running = demo.shown["filter"]
    assert running["filter passes"] > 0 and 0 < running["ms"] <= running["max ms"]
    runner.key("Space")
    for _ in range(3):
        frame = runner.render_frame(0.25)
    assert not frame.graph.filter_passes(), "paused: the blur's result is reused, nothing runs"
    assert demo.caption.startswith("paused")
    assert demo.shown["filter"]["filter passes"] >= 2 and demo.shown["filter"]["ms"] > 0, demo.shown
    runner.key("Right")
    frame = runner.render_frame(0.25)
    assert frame.graph.filter_passes() and runner.paused
    assert demo.shown["filter"]["filter passes"] == len(frame.graph.filter_passes()), "stepped: that frame's work"


def test_cost_table_means_over_a_second_and_keeps_the_slowest():
    def costs(ms: float) -> dict:
        return {v: {"rasters": 1, "filter passes": 2 if v == "filter" else 0, "repaints": 0, "ms": ms} for v in VARIANTS}

    history = [(0.0, costs(90.0)), (1.5, costs(4.0)), (1.8, costs(8.0)), (2.2, costs(6.0))]
    caption, table = cost_table(history, 2.2, paused=False)
    assert "3 frames" in caption  # the frame at t=0 is more than WINDOW_S old
    assert WINDOW_S == 1.0 and table["filter"]["ms"] == pytest.approx(6.0) and table["filter"]["max ms"] == 8.0
    assert table["filter"]["filter passes"] == 2.0
    caption, table = cost_table(history, 2.2, paused=True)
    assert caption.startswith("paused") and table["filter"]["ms"] == 6.0, "paused: the last frame as it was"


def test_layers_table_keeps_its_row_order(headless):
    runner = headless(AnimationCost())
    orders = []
    for i in range(6):
        frame = runner.render_frame(0.0 if i == 0 else 0.3)
        orders.append([row["layer"] for row in layer_rows(runner.scene, frame)])
    tree = [layer.id for layer in runner.scene.layers()]
    assert all(order == orders[0] for order in orders), orders
    assert orders[0] == [lid for lid in tree if lid in orders[0]], "in the scene's tree order"
    assert {f"{v}-card" for v in VARIANTS} <= set(orders[0])


def _is_number(text: str) -> bool:
    try:
        float(text.replace("ms", "").strip())
    except ValueError:
        return False
    return True


def test_a_cut_cell_shows_whole_in_a_tooltip(headless):
    runner = headless(DEMOS["layer-promotion"]())  # its reasons are long: the Layers table cuts them
    for _ in range(3):  # a table fits its fixed columns to their contents over the first frames
        runner.render_frame(0.0)
    width, height = runner.size
    io = imgui.get_io()
    io.add_mouse_pos_event(width - 100, height / 2)  # over the panels, which scroll to their tables
    visible = []
    for _ in range(20):
        # a reason (words) rather than a live cost in ms, whose digits change from frame to frame
        visible = [(text, box) for text, box in runner.state.cut_cells
                   if 0 < box[1] and box[3] < height - 4 and not _is_number(text)]
        if visible:
            break
        io.add_mouse_wheel_event(0.0, -2.0)
        runner.render_frame(0.0)
    assert visible, f"no cut cell scrolled into view: {runner.state.cut_cells[:3]}"
    text, (x0, y0, x1, y1) = visible[0]
    assert imgui.calc_text_size(text).x > x1 - x0, "the cell is narrower than its text"
    imgui.get_io().add_mouse_pos_event((x0 + x1) / 2, (y0 + y1) / 2)
    for _ in range(2):
        runner.render_frame(0.0)
    assert runner.state.tooltip == text


def test_ui_scale_flag_and_keys(headless):
    runner = headless(AnimationCost(), ui_scale=1.5)
    runner.render_frame(0.0)
    scene_w, scene_h = runner.demo.scene_size
    assert runner.snapshot().shape[:2] == (scene_h, scene_w + round(PANEL_WIDTH * 1.5)), "a wider panels' column"
    assert abs(runner.state.font_px - 13 * 1.5) <= 0.5, "ImGui's 13 px font, scaled (to whole px)"
    padding = imgui.get_style().window_padding.x
    runner.key("Ctrl+=")
    runner.render_frame(0.0)
    assert runner.ui_scale == 1.75 and abs(runner.state.font_px - 13 * 1.75) <= 0.5
    assert runner.snapshot().shape[1] == scene_w + round(PANEL_WIDTH * 1.75)
    assert imgui.get_style().window_padding.x > padding, "the layout scales with the font"
    runner.key("Ctrl+-")
    runner.key("Ctrl+-")
    assert runner.ui_scale == 1.25
    runner.key("Ctrl+0")
    runner.render_frame(0.0)
    assert runner.ui_scale == 1.5 and imgui.get_style().window_padding.x == padding, "back where it started, exactly"


def test_a_recording_shows_the_render_time_not_fps(headless):
    runner = headless(AnimationCost())
    for i in range(3):
        runner.render_frame(0.0 if i == 0 else 1 / 30)
    counters = runner.state.shown["counters"]
    assert counters.startswith("render ") and " ms" in counters and "FPS" not in counters, counters
    assert float(counters.split()[1]) > 0


def test_keys_line_is_whole(headless):
    runner = headless(AnimationCost())
    runner.key("H")
    runner.render_frame(0.0)
    assert runner.state.shown["help"].endswith("Esc quit"), "wrapped, the keys line keeps its end"


def test_playground_at_rest_shows_its_plan_reused(headless):
    demo = FilterPlayground()
    runner = headless(demo)
    demo.add("blur", 6.0)
    ran = executed_passes(runner.render_frame(0.0))
    assert len(ran) > 2 and demo.shown == ran, "the first frame runs the plan"
    frame = runner.render_frame(1 / 30)
    assert not frame.graph.filter_passes(), "nothing changed: the filter's result is reused"
    header, *steps = demo.shown
    assert "reused" in header and not header.startswith("0 filter")
    assert len(steps) == len(ran) - 1 and all("reused" in line for line in steps)
    for old, new in zip(ran[1:], steps):
        assert new.startswith(old.rsplit("  ", 1)[0]), "the same passes, sizes included"


def test_screenshots_go_to_the_folder_named(headless, tmp_path):
    runner = headless(AnimationCost(), screenshots=tmp_path / "shots")
    runner.render_frame(0.0)
    runner.key("S")
    assert [p.name for p in (tmp_path / "shots").iterdir()] == ["animation-cost-001.png"]
