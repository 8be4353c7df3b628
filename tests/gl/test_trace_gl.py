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
    pass_events = [e for e in events if e["cat"] not in ("planning", "readback")]
    assert [e["name"] for e in pass_events] == [p["name"] for p in passes], "each pass once, in order"
    for e, p in zip(pass_events, passes):
        for key in ("kind", "target", "size", "reason"):
            assert e["args"][key] == p[key], (p["name"], key)
        # The report rounds to 1 us (3 decimals of a ms).
        assert e["dur"] == pytest.approx(stats["pass_ms"][p["name"]] * 1000, abs=1.0), p["name"]
    (plan,) = [e for e in events if e["cat"] == "planning"]
    assert plan["ts"] == 0 and plan["dur"] == pytest.approx(stats["plan_ms"] * 1000, abs=1.0)
    (readback,) = [e for e in events if e["name"] == "readback"]
    assert readback["dur"] == pytest.approx(stats["readback_ms"] * 1000, abs=1.0)
    assert readback["ts"] >= max(e["ts"] + e["dur"] for e in pass_events) - 0.002, "read back after the last pass"
    (frame,) = [e for e in trace["traceEvents"] if e["name"] == "frame"]
    assert frame["dur"] >= sum(e["dur"] for e in pass_events) + plan["dur"] + readback["dur"] - 0.01
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
