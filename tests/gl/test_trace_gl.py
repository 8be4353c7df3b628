"""frame.trace() and ``lamina render --trace`` on real frames: the Chrome Trace Event JSON
agrees with the frame's report — every pass once, with the time the report measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lamina import Layer, Scene, load_scene
from lamina.cli import main
from tests.trace_check import check_trace, work_events

ROOT = Path(__file__).resolve().parents[2]
SHOWCASE = ROOT / "demos" / "showcase" / "showcase.json"


def check_against_report(trace: dict, report: dict) -> None:
    """Every pass of the report's graph is one event with the report's name, kind,
    target, size, reason and measured time; planning and read-back too."""
    check_trace(trace)
    stats, passes = report["stats"], report["graph"]["passes"]
    events = work_events(trace)
    # A copy to OpenCL is two events: GL's read, and the device's write on its own track.
    writes = {e["name"].removesuffix(" (write)"): e for e in events if e["name"].endswith(" (write)")}
    pass_events = sorted((e for e in events if e["cat"] not in ("planning", "readback") and e["name"] not in
                          {f"{n} (write)" for n in writes}), key=lambda e: e["args"]["index"])
    assert [e["name"] for e in pass_events] == [p["name"] for p in passes], "each pass once"
    for e, p in zip(pass_events, passes):
        for key in ("kind", "target", "size", "reason"):
            assert e["args"][key] == p[key], (p["name"], key)
        # The report rounds to 1 us (3 decimals of a ms).
        dur = e["dur"] + (writes[p["name"]]["dur"] if p["name"] in writes else 0.0)
        assert dur == pytest.approx(stats["pass_ms"][p["name"]] * 1000, abs=1.0), p["name"]
    concurrent = set(trace["otherData"]["concurrent_tracks"])
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    gl_thread = [e for e in pass_events if names[e["tid"]] not in concurrent]
    (plan,) = [e for e in events if e["cat"] == "planning"]
    assert plan["ts"] == 0 and plan["dur"] == pytest.approx(stats["plan_ms"] * 1000, abs=1.0)
    (readback,) = [e for e in events if e["name"] == "readback"]
    assert readback["dur"] == pytest.approx(stats["readback_ms"] * 1000, abs=1.0)
    assert readback["ts"] >= max(e["ts"] + e["dur"] for e in gl_thread) - 0.002, "read back after GL's last pass"
    (frame,) = [e for e in trace["traceEvents"] if e["name"] == "frame"]
    assert frame["dur"] >= sum(e["dur"] for e in gl_thread) + plan["dur"] + readback["dur"] - 0.01
    assert frame["dur"] >= max(e["ts"] + e["dur"] for e in events) - 0.01, "the frame holds the devices' work"
    assert trace["otherData"]["GL_RENDERER"] == report["renderer"]["GL_RENDERER"]


def test_frame_trace_matches_report(gl, tmp_path):
    gl.drop_caches()  # a first frame: raster, filter and composite passes all run
    frame = load_scene(SHOWCASE).render(gl)
    frame.save(tmp_path / "f.png")
    trace = frame.trace(tmp_path / "f.trace.json")
    assert json.loads((tmp_path / "f.trace.json").read_text(encoding="utf-8")) == trace
    check_against_report(trace, frame.report)
    names = [e["name"] for e in work_events(trace)]
    assert names[-2:] == ["un-premultiply", "encode PNG"], "pixels out after the read-back, in order"
    (span,) = [e for e in trace["traceEvents"] if e["name"] == "frame"]
    assert span["dur"] >= (frame.stats.plan_ms + frame.stats.total_ms) * 1000, "the frame's span holds the execution"
    assert frame.trace() == trace, "a frame does not change: the same trace again"


def test_trace_before_pixels_holds_no_unpremultiply(gl):
    scene = Scene(40, 30, background="white")
    scene.root.add(Layer("a", box=(5, 5, 20, 10), style="background: red"))
    frame = scene.render(gl)
    names = [e["name"] for e in work_events(frame.trace())]
    assert "un-premultiply" not in names and "encode PNG" not in names
    frame.image
    assert [e["name"] for e in work_events(frame.trace())][-1] == "un-premultiply"


@pytest.mark.opencl  # without a device, tests/opencl_gate.py skips it (or fails it when strict)
def test_opencl_passes_get_their_own_track(gl):
    scene = Scene(64, 48, background="white")
    scene.root.add(Layer("card", box=(4, 4, 30, 20), style="background: red; filter: blur(2px) sepia(1)"))
    frame = scene.render(gl, filter_backend="opencl")
    trace = frame.trace()
    check_against_report(trace, frame.report)
    tracks = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    by_name = {e["name"]: tracks[e["tid"]] for e in work_events(trace)}
    assert {by_name[p.name] for p in frame.graph.filter_passes()} == {"OpenCL"}
    assert {by_name[p.name] for p in frame.graph.transfer_passes()} == {"transfers"}


# The device's clock is tied to the host's by a sample late by an enqueue's time
# (gpu.cl_queue): spans on the two sides may seem to touch by that much.
SLACK_US = 100.0


def _two_filtered_layers() -> Scene:
    """A layer whose OpenCL blur takes a while, then a layer GL draws meanwhile."""
    scene = Scene(480, 320, background="white")
    scene.root.add(Layer("photo", box=(10, 10, 300, 220),
                         style="background: linear-gradient(45deg, #f80, #08f); filter: blur(10px)"))
    scene.root.add(Layer("tint", box=(200, 60, 260, 240),
                         style="background: radial-gradient(#0a4, #fe2); border-radius: 30px; filter: sepia(.8)"))
    return scene


def _spans(trace: dict) -> dict[str, list[tuple[float, float, str]]]:
    tracks = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    out: dict[str, list[tuple[float, float, str]]] = {}
    for e in work_events(trace):
        out.setdefault(tracks[e["tid"]], []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
    return out


@pytest.mark.opencl
def test_opencl_work_overlaps_gl_work(gl):
    """The device's track overlaps the GL thread's: the blur runs on OpenCL while GL
    draws the next layer (gpu.cl_queue; graph.issue_order copies results back late)."""
    scene = _two_filtered_layers()
    for attempt in range(6):  # (on 2 cores shared with other work, a frame's threads may not get both at once)
        gl.drop_caches()  # a first frame each time: both layers rastered and filtered
        frame = scene.render(gl, filter_backend="opencl")
        trace = frame.trace()
        check_against_report(trace, frame.report)
        spans = _spans(trace)
        both = [(cl, g) for cl in spans["OpenCL"] for g in spans["GL"]
                if cl[0] < g[1] - SLACK_US and g[0] < cl[1] - SLACK_US]
        if both:
            break
    assert both, f"no OpenCL span overlaps a GL-thread one in 6 first frames: {spans}"


@pytest.mark.opencl
def test_serialised_execution_draws_the_same_pixels_without_overlap(gl):
    """``overlap=False`` runs the same passes one after another: same pixels, and no
    OpenCL span overlaps the GL thread's work."""
    scene = _two_filtered_layers()
    runs = []
    for overlap in (True, False):
        gl.drop_caches()  # (a first frame each time: nothing kept to reuse)
        graph = gl.plan(scene, filter_backend="opencl")
        runs.append(gl.executor.execute(graph, overlap=overlap))
    (overlapped, _), (serial, stats) = runs
    assert (overlapped == serial).all()
    from lamina.trace import build_trace
    spans = _spans(build_trace(graph, stats))
    others = [s for track, ss in spans.items() if track != "OpenCL" for s in ss]
    for cl in spans["OpenCL"]:
        assert not any(cl[0] < g[1] - SLACK_US and g[0] < cl[1] - SLACK_US for g in others), cl


def test_render_cli_writes_trace(gl, tmp_path, capsys):
    out, trace_path, report_path = tmp_path / "s.png", tmp_path / "s.trace.json", tmp_path / "s.report.json"
    assert main(["render", str(SHOWCASE), "-o", str(out), "--trace", str(trace_path), "--report", str(report_path)]) == 0
    capsys.readouterr()
    trace = json.loads(trace_path.read_text(encoding="utf-8"))
    check_against_report(trace, json.loads(report_path.read_text(encoding="utf-8")))
    assert trace["displayTimeUnit"] == "ms"
    assert [e["name"] for e in work_events(trace)][-1] == "encode PNG", "written after the PNG"


def test_render_cli_trace_into_missing_folder_exits_2(gl, tmp_path, capsys):
    out = tmp_path / "s.png"
    assert main(["render", str(SHOWCASE), "-o", str(out), "--trace", str(tmp_path / "nope" / "t.json")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "nope" in err
    assert not out.exists(), "nothing rendered when an output cannot be written"
