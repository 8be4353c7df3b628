"""The demos teach true things: what each one claims shows in the frames it renders."""

from __future__ import annotations

import pytest

from demos.animation_cost import AnimationCost, variant_costs
from demos.blend_backdrop import MODES, BlendBackdrop, read_backs
from demos.filter_playground import FilterPlayground, executed_passes
from demos.gl_vs_opencl import GLvsOpenCL
from demos.layer_promotion import LayerPromotion, composited_layers
from demos.scrolling import Scrolling, pinned_layers, tile_counts
from demos.ui.runner import Runner
from lamina.framegraph import SurfaceReason

pytestmark = pytest.mark.gl


@pytest.fixture
def runner_of(gl):
    runners = []

    def make(demo) -> Runner:
        runners.append(Runner(demo, headless=True))
        return runners[-1]

    yield make
    for runner in runners:
        runner.close()
    gl.gpu.activate()


def test_transform_and_opacity_animations_paint_nothing(runner_of):
    runner = runner_of(AnimationCost())
    runner.render_frame(0.5)  # a quarter into the animation: the blur is a few px
    for _ in range(3):
        costs = variant_costs(runner.render_frame(1 / 30))
        assert costs["transform"] == {"rasters": 0, "filter passes": 0, "repaints": 0, "ms": 0.0}
        assert costs["opacity"] == {"rasters": 0, "filter passes": 0, "repaints": 0, "ms": 0.0}
        assert costs["filter"]["filter passes"] >= 2 and costs["filter"]["rasters"] == 0  # blur-x and blur-y
        assert costs["background"]["rasters"] >= 1  # the card is painted again


def test_playground_shows_the_chain_it_renders(runner_of):
    demo = FilterPlayground()
    runner = runner_of(demo)
    demo.add("blur", 6.0)
    frame = runner.render_frame(0.0)
    assert runner.scene["stage"].style["filter"] == demo.css() == "saturate(1.60) blur(6.0px)"
    lines = executed_passes(frame)
    assert len(lines) == 1 + len(frame.graph.filter_passes()) >= 1 + 4  # colour, down, blur-x, blur-y, up
    for line, p in zip(lines[1:], frame.graph.filter_passes()):
        assert p.step.describe() in line


def test_promotion_is_contagious_and_all_explodes(runner_of):
    demo = LayerPromotion()
    runner = runner_of(demo)
    runner.render_frame(0.0)
    alone = composited_layers(runner.last_frame.graph)
    demo.set(banner=True)
    frame = runner.render_frame(0.0)
    reasons = {r for row in frame.graph.layer_table() for r in row.get("reasons", [])}
    assert composited_layers(frame.graph) > alone and "overlap" in " ".join(reasons)
    # The table plans the same frame under every policy: "all" keeps a texture per
    # drawing layer, "none" keeps nothing.
    runner.render_frame(0.0)
    all_layers, _ = demo.memory["all"]
    assert all_layers == len(runner.scene.plan(policy="all").layer_table()) > demo.memory["browser"][0]
    assert demo.memory["none"] == (0, 0)


def test_opencl_pays_two_transfers_and_auto_says_why(runner_of):
    demo = GLvsOpenCL()
    runner = runner_of(demo)
    runner.render_frame(0.3)
    rows = demo.rows
    assert {r["kind"] for r in rows["gl"]} == {"filter"} and all(r["executor"] == "gl" for r in rows["gl"])
    transfers = [r["direction"] for r in rows["opencl"] if r["kind"] == "transfer"]
    assert transfers == ["gl->cl", "cl->gl"]
    assert all(r["executor"] == "opencl" for r in rows["opencl"] if r["kind"] == "filter")
    assert all(r["why"] for r in rows["auto"] if r["kind"] == "filter")
    planned = [r["step"] for r in rows["gl"]]
    assert planned == [r["step"] for r in rows["opencl"] if r["kind"] == "filter"], "one plan, two executors"


def test_every_blend_and_the_panel_reads_back_and_isolation_stops_the_blend(runner_of):
    demo = BlendBackdrop()
    runner = runner_of(demo)
    runner.render_frame(1.0)
    before = runner.scene["glass"].style["transform"]
    frame = runner.render_frame(0.5)
    assert runner.scene["glass"].style["transform"] != before, "the panel moved"
    reads = read_backs(frame)
    assert {r["layer"] for r in reads} == {f"tile-{m}" for m in MODES} | {"disc", "glass"}
    assert [r["mirrored"] for r in reads if r["layer"] == "glass"] == [True], "the panel's edges are mirrored"
    assert frame.graph.raster_passes() == [], "the moving panel re-rasters nothing"
    blended = frame.premultiplied[40:60, 40:100].copy()
    assert not any(p.reason is SurfaceReason.ISOLATION for p in frame.graph.composite_passes())
    demo.isolate = True
    frame = runner.render_frame(1 / 30)
    groups = [p for p in frame.graph.composite_passes() if p.reason is SurfaceReason.ISOLATION and not p.continues]
    assert [p.target.name for p in groups] == ["surface:tiles"]
    assert (frame.premultiplied[40:60, 40:100] != blended).any(), "isolated, the tiles stop blending with the sky"


def test_scrolling_moves_tiles_and_pinned_layers_and_none_paints_again(runner_of):
    demo = Scrolling(auto=False)
    runner = runner_of(demo)
    first = tile_counts(runner.render_frame(0.0).graph)
    assert first["kept"] > 0 and first["rastered"] == first["kept"]
    demo.scroll = 100.0
    frame = runner.render_frame(1 / 30)
    counts = tile_counts(frame.graph)
    # 100 px reaches at most one new row of 512 px tiles (860 px wide: 2 tiles a row).
    assert counts["rastered"] <= 2 and counts["reused"] >= first["kept"] - 2
    pinned = pinned_layers(frame.graph)  # the layers drawn this frame
    assert pinned["bar"] == "fixed position over scrolling content"
    assert pinned["head0"] == "sticky position in a composited scroller"
    assert all(pinned[lid] == "sticky position in a composited scroller" for lid in pinned if lid.startswith("head"))
    assert not {p.layer_id for p in frame.graph.raster_passes()} & {"bar", "head0"}, "a scroll moves them"
    assert runner.scene["head0"].style["position"] == "sticky"
    demo.set(sticky=False)
    frame = runner.render_frame(1 / 30)
    assert runner.scene["head0"].style["top"] == "auto" and "head0" not in pinned_layers(frame.graph)
    runner.state.policy = "none"
    demo.scroll = 200.0
    frame = runner.render_frame(1 / 30)
    assert tile_counts(frame.graph)["kept"] == 0 and frame.graph.raster_passes(), "'none' paints the page again"


def test_gl_vs_opencl_shows_the_last_frame_per_device_and_loads_opencl(runner_of):
    from demos.gl_vs_opencl import SLOW_OPENCL, schedule_lines
    from lamina.framegraph import Executor

    demo = GLvsOpenCL()
    runner = runner_of(demo)
    demo.show("opencl")
    runner.render_frame(0.3)
    lines = schedule_lines(runner.last_frame)
    assert lines[0] == "as it ran (measured):"
    tracks = {line.split("|")[0].strip() for line in lines[1:] if "|" in line}
    assert {"GL", "OpenCL", "transfers"} <= tracks, "one row per device, the copies between them"
    demo.load_opencl(True)
    assert runner.renderer.simulated_load == {Executor.OPENCL: SLOW_OPENCL}
    demo.load_opencl(False)
    assert runner.renderer.simulated_load == {}


def test_3d_contexts_sort_split_and_flatten_as_the_lesson_says(runner_of):
    from demos.contexts_3d import Contexts3D, context_rows

    demo = Contexts3D()
    runner = runner_of(demo)
    graph = runner.render_frame(0.1).graph
    rows = {root: (draws, splits, dropped) for root, draws, splits, dropped in context_rows(graph)}
    assert set(rows) == {"card", "ring", "cross"}
    assert rows["cross"][1] >= 1, "the crossing planes are split"
    assert rows["card"][2] in ("front", "back") and rows["card"][0] == 1, "the face turned away is dropped"
    assert graph.routes["front"].surface is SurfaceReason.FLATTENING_3D, "the labelled face is flattened first"
    demo.set(preserve=False)
    assert runner.render_frame(0.1).graph.contexts3d == [], "flat: no context, paint order"
