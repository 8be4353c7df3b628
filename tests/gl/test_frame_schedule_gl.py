"""Frames placed frame-wide (issue 22, item 3) render the pixels the all-GL frame does,
within the documented levels: 1, and 2 where a blur is downscaled (a reduced image is
rounded to 8 bits on each device)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Renderer, load_scene
from lamina.filter_costs import CostModel
from lamina.filters.plan import PassKind
from lamina.framegraph import Executor

pytestmark = pytest.mark.opencl

SCENES = ["filter-drop-shadow", "backdrop-filter-blur", "filter-chain-fused", "filter-blur-large", "filter-on-group"]


def model(cl_factor: float) -> CostModel:
    kinds = ("color", "blur", "down", "up", "shadow", "morphology")
    passes = {f"gl:{k}": (0.1, 1e-5) for k in kinds} | {f"opencl:{k}": (0.1, 1e-5 * cl_factor) for k in kinds}
    return CostModel("hand-written", passes, {"gl->cl": (0.05, 1e-9), "cl->gl": (0.05, 1e-9)})


def levels(graph) -> int:
    return 2 if any(p.step.pass_kind is PassKind.DOWNSAMPLE for p in graph.filter_passes()) else 1


@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("cl_factor", [0.05, 0.7])
def test_a_frame_placed_frame_wide_matches_all_gl(name, cl_factor):
    scene = load_scene(f"tests/scenes/{name}.json")
    with Renderer() as r:
        on_gl = scene.render(r, filter_backend="gl")
    with Renderer() as r:
        auto = scene.render(r, filter_backend="auto", cost_model=model(cl_factor))
    graph = auto.graph
    assert graph.schedule is not None
    on_cl = [p for p in graph.filter_passes() if p.executor == "opencl"]
    if cl_factor == 0.05:
        assert on_cl, "OpenCL twenty times cheaper takes filter work"
    diff = np.abs(auto.premultiplied.astype(int) - on_gl.premultiplied.astype(int)).max()
    assert diff <= levels(graph), f"{name}: {diff} levels apart ({len(on_cl)} passes on OpenCL)"


def test_auto_with_the_measured_model_explains_its_schedule(fresh):
    scene = load_scene("tests/scenes/filter-drop-shadow.json")
    frame = scene.render(fresh, filter_backend="auto")
    graph = frame.graph
    assert graph.schedule is not None and graph.schedule.costs == "history model measured here"
    text = frame.explain()
    assert "Frame-wide schedule" in text and "predicted makespan" in text and "all OpenCL" in text
    for s in graph.schedule.slots:
        if not s.pinned:
            assert s.why.startswith("HEFT rank") and s.why in text
    with Renderer() as r:
        on_gl = scene.render(r, filter_backend="gl")
    assert np.abs(frame.premultiplied.astype(int) - on_gl.premultiplied.astype(int)).max() <= levels(graph)
    again = scene.render(fresh, filter_backend="auto")  # kept filter results: nothing to place
    assert np.array_equal(again.premultiplied, frame.premultiplied)


def _lost_device(runner):
    """A queue_pass that fails as an OpenCL call does (a real pyopencl error)."""
    def queue_pass(*args, **kwargs):
        runner.cl.Buffer(runner.context, runner.cl.mem_flags.READ_WRITE, 0)  # INVALID_BUFFER_SIZE
    return queue_pass


def test_a_device_failing_mid_frame_leaves_the_schedule_and_the_frame_is_drawn_without_it(monkeypatch):
    scene = load_scene("tests/scenes/filter-drop-shadow.json")
    with Renderer() as r:
        on_gl = scene.render(r, filter_backend="gl")
    with Renderer() as r:
        monkeypatch.setattr(r.executor.opencl_runner, "queue_pass", _lost_device(r.executor.opencl_runner))
        frame = scene.render(r, filter_backend="auto", cost_model=model(0.05))
        assert frame.graph.filter_passes() and all(p.executor == "gl" for p in frame.graph.filter_passes())
        assert np.array_equal(frame.premultiplied, on_gl.premultiplied), "a whole frame, drawn on GL"
        text = frame.explain()
        assert "warning: the OpenCL device" in text and "failed" in text and "taken out of the schedule" in text
        later = scene.render(r, filter_backend="auto", cost_model=model(0.05), t=0.5)
        assert all(p.executor == "gl" for p in later.graph.filter_passes()), "the device stays out"


def test_a_device_failing_where_opencl_was_forced_is_a_typed_error(monkeypatch):
    from lamina.errors import OpenCLDeviceError

    scene = load_scene("tests/scenes/filter-drop-shadow.json")
    with Renderer() as r:
        monkeypatch.setattr(r.executor.opencl_runner, "queue_pass", _lost_device(r.executor.opencl_runner))
        with pytest.raises(OpenCLDeviceError) as info:
            scene.render(r, filter_backend="opencl")
    assert info.value.pass_name.startswith("filter:") and info.value.device in str(info.value)
    assert "INVALID_BUFFER_SIZE" in str(info.value), "what OpenCL said"


@pytest.mark.parametrize("moved", ["none", "every other", "all"])
def test_offloads_moved_to_gl_at_run_time_draw_the_same_frame(monkeypatch, moved):
    """The executor's side of the dmda rule (graph.offload): an offload moved at run time
    runs its GL version instead of its OpenCL passes and copies; the frame matches all-GL
    within the levels. (Which offloads move is forced here: the rule is tested without a
    GPU in tests/unit/test_offload.py.)"""
    import lamina.gpu.executor as executor_module
    from lamina.graph.offload import Choice
    from lamina.trace import build_trace
    from tests.trace_check import check_trace

    scene = load_scene("tests/scenes/filter-drop-shadow.json")
    with Renderer() as r:
        on_gl = scene.render(r, filter_backend="gl")
    decided: list[str] = []

    def forced(offload, backlog_ms, slowdown=1.0):
        decided.append(offload.name)
        go = moved == "all" or (moved == "every other" and len(decided) % 2 == 1)
        return Choice(offload.name, Executor.GL if go else Executor.OPENCL, 1.0, 2.0, 1.0, backlog_ms, slowdown)

    monkeypatch.setattr(executor_module, "choose", forced)
    with Renderer() as r:
        frame = scene.render(r, filter_backend="auto", cost_model=model(0.05))
    graph, stats = frame.graph, frame.stats
    assert graph.offloads and sorted(decided) == sorted(o.name for o in graph.offloads)
    moved_offloads = [o for o in graph.offloads if o.name in {c.offload for c in stats.runtime_choices if c.moved}]
    assert len(moved_offloads) == {"none": 0, "every other": (len(decided) + 1) // 2, "all": len(decided)}[moved]
    for o in moved_offloads:
        assert all(stats.ran_on[p.name] is Executor.GL for p in o.gl_passes)
        assert not any(n in stats.pass_ms for n in o.cl_passes if n.startswith("transfer:")), "no copy ran"
    diff = np.abs(frame.premultiplied.astype(int) - on_gl.premultiplied.astype(int)).max()
    assert diff <= levels(graph)
    check_trace(build_trace(graph, stats))
    assert ("moved to GL" in frame.explain()) == bool(moved_offloads)


def test_a_device_failing_in_a_later_frame_redraws_that_frame_whole(monkeypatch):
    """Frames before the failure kept textures; the frame drawn again after it is the
    frame a fresh renderer draws (nothing the failed execution wrote is reused)."""
    scene = load_scene("tests/scenes/animation-filter.json")
    with Renderer() as r:
        expected = scene.render(r, filter_backend="gl", t=0.7).premultiplied
    with Renderer() as r:
        first = scene.render(r, filter_backend="auto", cost_model=model(0.05), t=0.2)
        assert any(p.executor == "opencl" for p in first.graph.filter_passes()), "the device had work"
        monkeypatch.setattr(r.executor.opencl_runner, "queue_pass", _lost_device(r.executor.opencl_runner))
        frame = scene.render(r, filter_backend="auto", cost_model=model(0.05), t=0.7)
    assert "taken out of the schedule" in frame.explain()
    assert np.abs(frame.premultiplied.astype(int) - expected.astype(int)).max() <= levels(frame.graph)
