"""lamina.trace without a GPU: a planned graph (scene.plan) and hand-made stats give a
trace whose events sit exactly where the stats say, on the right tracks."""

from __future__ import annotations

import json

import pytest

from lamina import Layer, Scene
from lamina.devices import Device
from lamina.framegraph import Executor
from lamina.graph.placed import place_by
from lamina.gpu.executor import ExecutionStats
from lamina.trace import TRACKS, build_trace, write_trace
from tests.trace_check import check_trace, work_events


def _scene() -> Scene:
    scene = Scene(64, 48, background="white")
    scene.root.add(Layer("card", box=(4, 4, 30, 20), style="background: red; filter: blur(2px) sepia(1)"))
    scene.root.add(Layer("badge", box=(40, 10, 10, 10), style="background: blue"))
    return scene


def _timed(graph, plan_ms: float = 2.0, gap_ms: float = 0.05) -> ExecutionStats:
    """Stats as a timed execution would record them: the passes one after another,
    pass i lasting i + 0.25 ms, a small gap between (the texture releases)."""
    stats = ExecutionStats(plan_ms=plan_ms)
    t = plan_ms + 0.1
    for i, p in enumerate(graph.passes, 1):
        stats.pass_start_ms[p.name] = t
        stats.pass_ms[p.name] = i + 0.25
        t += i + 0.25 + gap_ms
    stats.readback_start_ms, stats.readback_ms = t, 0.5
    stats.total_ms = t + 0.5 - plan_ms
    stats.after.append(("un-premultiply", t + 3.0, 1.5))
    stats.after.append(("encode PNG", t + 4.5, 2.0))
    return stats


def test_events_are_where_the_stats_put_them():
    graph = _scene().plan(filter_backend="opencl")
    stats = _timed(graph)
    trace = build_trace(graph, stats, renderer={"GL_RENDERER": "test", "GL_VERSION": "0"})
    check_trace(trace)

    by_name = {e["name"]: e for e in work_events(trace)}
    assert [e["name"] for e in work_events(trace) if e["cat"] not in ("planning", "readback")] == \
        [p.name for p in graph.passes], "every pass once, in execution order"
    for index, p in enumerate(graph.passes, 1):
        e = by_name[p.name]
        assert e["ts"] == pytest.approx(stats.pass_start_ms[p.name] * 1000, abs=0.001)
        assert e["dur"] == pytest.approx(stats.pass_ms[p.name] * 1000, abs=0.002)
        assert e["cat"] == p.kind
        assert e["args"]["kind"] == p.kind and e["args"]["target"] == p.target.name
        assert e["args"]["size"] == [p.target.width, p.target.height]
        assert e["args"]["index"] == index and "reason" in e["args"]

    tracks = TRACKS
    where = {p.name: tracks[by_name[p.name]["tid"]] for p in graph.passes}
    assert {where[p.name] for p in graph.filter_passes()} == {"OpenCL"}
    assert {where[p.name] for p in graph.transfer_passes()} == {"transfers"}
    assert {where[p.name] for p in graph.raster_passes() + graph.composite_passes()} == {"GL"}
    assert by_name["filter:card:1:blur"]["args"]["executor"] == "opencl"
    assert by_name["composite:frame"]["args"]["draws"] == len(graph.passes[-1].draws)

    plan = by_name["build frame graph"]
    assert (plan["ts"], plan["dur"], tracks[plan["tid"]]) == (0.0, 2000.0, "planning")
    assert tracks[by_name["readback"]["tid"]] == "readback"
    assert by_name["readback"]["dur"] == pytest.approx(500.0)
    assert by_name["un-premultiply"]["ts"] == pytest.approx((stats.readback_start_ms + 3.0) * 1000)
    assert by_name["encode PNG"]["dur"] == pytest.approx(2000.0)

    (frame,) = [e for e in trace["traceEvents"] if e["name"] == "frame"]
    end = by_name["encode PNG"]["ts"] + by_name["encode PNG"]["dur"]
    assert frame["ts"] == 0 and frame["dur"] == pytest.approx(end, abs=0.002)
    assert trace["otherData"]["GL_RENDERER"] == "test" and trace["otherData"]["passes_timed"] is True
    names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    assert names == {"frame", "planning", "GL", "OpenCL", "transfers", "readback"}


def test_gl_only_frame_names_only_its_tracks():
    graph = _scene().plan(filter_backend="gl")
    trace = build_trace(graph, _timed(graph))
    check_trace(trace)
    names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    assert names == {"frame", "planning", "GL", "readback"}, "no empty OpenCL or transfer lanes"


def test_untimed_execution_has_no_pass_events_and_says_so():
    # filters.apply runs graphs untimed: only the read-back and the total are measured.
    graph = _scene().plan()
    stats = ExecutionStats(readback_start_ms=3.0, readback_ms=0.5, total_ms=3.5)
    trace = build_trace(graph, stats)
    check_trace(trace)
    assert [e["name"] for e in work_events(trace)] == ["readback"]
    assert trace["otherData"]["passes_timed"] is False


def test_write_trace_is_json(tmp_path):
    graph = _scene().plan()
    trace = build_trace(graph, _timed(graph))
    path = write_trace(trace, tmp_path / "t.json")
    assert json.loads(path.read_text(encoding="utf-8")) == trace


def test_a_frame_on_two_opencl_devices_has_a_track_per_device_overlapping_each_other():
    scene = _scene()
    scene.root.add(Layer("second", box=(10, 26, 30, 20), style="background: green; filter: blur(3px) invert(1)"))
    devices = tuple(Device(Executor.OPENCL, "pthread", "PoCL", "3.1", i) for i in ("0:0", "0:1"))
    layers = [p.layer_id for p in scene.plan(filter_backend="gl").filter_passes()]
    on = {p.name: f"opencl:0:{layers.index(p.layer_id) % 2}"
          for p in scene.plan(filter_backend="gl").filter_passes()}  # card on 0:0, second on 0:1
    graph = place_by(scene.plan(filter_backend="gl"), on, devices)
    stats = _timed(graph)
    # The two devices' first passes ran at the same time, beside the GL thread.
    first = {d: next(p for p in graph.filter_passes() if p.device == d) for d in ("0:0", "0:1")}
    stats.pass_start_ms[first["0:1"].name] = stats.pass_start_ms[first["0:0"].name]
    stats.pass_ms[first["0:1"].name] = stats.pass_ms[first["0:0"].name]
    trace = build_trace(graph, stats)
    check_trace(trace)
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    assert {"OpenCL 0:0", "OpenCL 0:1"} <= set(names.values()) and "OpenCL" not in names.values()
    assert {"OpenCL 0:0", "OpenCL 0:1"} <= set(trace["otherData"]["concurrent_tracks"])
    on_track = {e["name"]: names[e["tid"]] for e in work_events(trace)}
    for p in graph.filter_passes():
        assert on_track[p.name] == f"OpenCL {p.device}"
    a, b = (next(e for e in work_events(trace) if e["name"] == first[d].name) for d in ("0:0", "0:1"))
    assert a["ts"] == b["ts"] and a["tid"] != b["tid"]  # overlapping, on their own tracks
