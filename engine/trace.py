"""Trace: one frame's work as Chrome Trace Event JSON, for Perfetto and chrome://tracing.

``build_trace`` is a pure function of the frame graph that ran and the stats its
execution measured: it touches no GPU and reads no clock, so it can be tested with
hand-made stats. The result is the Trace Event Format's JSON object form
(``{"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}``):

* complete events (``"ph": "X"``) with ``ts``/``dur`` in microseconds since the frame
  began (``Renderer.render`` was called): planning (building the frame graph), every
  executed pass at the time it was measured, the read-back and the work done on the
  pixels afterwards (un-premultiply, PNG encode), and one ``frame`` event spanning it all;
* metadata events (``"ph": "M"``) naming the process and one track (thread) per kind
  of work, so a viewer shows planning, GL, OpenCL, transfers and read-back as lanes.

Two kinds of track. The GL thread (where the context is current) plans, draws, copies
and reads back, one thing after another, each GL pass timed with ``finish()`` around it:
its lanes (planning, GL, transfers, readback) never overlap each other. An OpenCL device
runs what is queued on it while the GL thread goes on (lamina.gpu.cl_queue), timed by the
device (its events' profiling times): its lane ("OpenCL": filter passes, and the
device's half of a copy to it) overlaps the GL thread's where the two worked at once.
A frame placed on several OpenCL devices has one such lane per device, named by its
index ("OpenCL 0:0", "OpenCL 0:1": ``device_track``), after the fixed ones; they overlap
the GL thread's and each other's. ``otherData.concurrent_tracks`` names the lanes that
may overlap the others.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .framegraph import FrameGraph
from .gpu.executor import ExecutionStats
from .output_files import write_text
from .version import __version__

__all__ = ["build_trace", "write_trace", "CONCURRENT_TRACKS", "TRACKS", "PID"]

PID = 1  # one process: the frame; the tracks below are its "threads"

# Track (tid) -> its name in the viewer, in the order shown (thread_sort_index).
TRACKS: dict[int, str] = {
    0: "frame",
    1: "planning",
    2: "GL",
    3: "OpenCL",
    4: "transfers",
    5: "readback",
}
_TID = {name: tid for tid, name in TRACKS.items()}
# The lanes of a device that works beside the GL thread: they may overlap the others in
# time. The "OpenCL" lane is the renderer's own device's; a frame on several devices adds
# a lane per device (device_track), each concurrent too.
CONCURRENT_TRACKS: tuple[str, ...] = ("OpenCL",)


def device_track(device: str) -> str:
    """The lane of the OpenCL device with "P:D" index ``device`` ("": the renderer's
    own, the "OpenCL" lane): what FilterPass.trace_lane names."""
    return f"OpenCL {device}" if device else "OpenCL"


def _us(ms: float) -> float:
    # Microseconds with nanosecond digits: the format allows fractional ts/dur, and
    # sub-microsecond passes (a tiny raster) would otherwise round to nothing.
    return round(ms * 1000.0, 3)


def _complete(name: str, cat: str, tid: int, start_ms: float, dur_ms: float, args: dict[str, Any]) -> dict[str, Any]:
    ts = _us(start_ms)
    # dur from the rounded end, so an event ends exactly where the next one may start.
    return {"name": name, "cat": cat, "ph": "X", "pid": PID, "tid": tid, "ts": ts,
            "dur": round(_us(start_ms + dur_ms) - ts, 3), "args": args}


def _metadata(name: str, tid: int, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "ph": "M", "pid": PID, "tid": tid, "ts": 0, "args": args}


def build_trace(graph: FrameGraph, stats: ExecutionStats, *, renderer: dict[str, str] | None = None) -> dict[str, Any]:
    """The frame's work as a Trace Event Format JSON object (plain data, ready for
    ``json.dumps``).

    Each pass of ``graph`` that ``stats`` timed (``pass_ms`` with its ``pass_start_ms``)
    is one complete event named as the pass, on the track it names (``trace_lane``),
    with the facts it gives (``trace_args``: kind, target texture, size, reason...) in
    ``args``. An execution run untimed
    (``filters.apply``) measured no passes, so it has none; ``otherData.passes_timed``
    says so. ``renderer`` (the GL fingerprint) goes into ``otherData``."""
    events: list[dict[str, Any]] = []
    tracks = dict(TRACKS)
    tids = dict(_TID)

    def tid_of(lane: str) -> int:
        """The track of ``lane``: a fixed one, or a device's, added after them."""
        if lane not in tids:
            tids[lane] = max(tracks) + 1
            tracks[tids[lane]] = lane
        return tids[lane]

    if stats.plan_ms > 0:
        events.append(_complete("build frame graph", "planning", _TID["planning"], 0.0, stats.plan_ms,
                                {"passes": len(graph.passes), "policy": str(graph.policy),
                                 "textures_reused": len(graph.reused)}))
    for index, p in enumerate(graph.passes, 1):
        if p.name not in stats.pass_ms:
            continue
        # Each pass says which lane it ran on and what its event shows (lamina.passes).
        args = {**p.trace_args(), "index": index}
        ms = stats.pass_ms[p.name]
        part = stats.device_part_ms.get(p.name)
        if part is not None:  # a copy to OpenCL: the device's write on its own lane
            events.append(_complete(f"{p.name} (write)", p.kind.value, tid_of(device_track(p.target.device)), part[0],
                                    part[1], args))
            ms -= part[1]
        lane = "GL" if stats.ran_on.get(p.name) is not None else p.trace_lane()  # (moved to GL at run time)
        events.append(_complete(p.name, p.kind.value, tid_of(lane), stats.pass_start_ms.get(p.name, 0.0), ms, args))
    out_args = {"texture": graph.output.name, "size": [graph.width, graph.height],
                "bytes": graph.width * graph.height * 4}
    events.append(_complete("readback", "readback", _TID["readback"], stats.readback_start_ms, stats.readback_ms, out_args))
    for what, start_ms, ms in stats.after:
        events.append(_complete(what, "readback", _TID["readback"], start_ms, ms, {"size": [graph.width, graph.height]}))

    end_ms = max((e["ts"] + e["dur"]) / 1000.0 for e in events)
    frame = _complete("frame", "frame", _TID["frame"], 0.0, end_ms,
                      {"size": [graph.width, graph.height], "passes": len(graph.passes),
                       "total_ms": round(stats.total_ms, 3), "plan_ms": round(stats.plan_ms, 3)})
    events.sort(key=lambda e: (e["ts"], e["tid"]))

    used = {e["tid"] for e in events} | {_TID["frame"]}
    meta = [_metadata("process_name", 0, {"name": f"lamina frame {graph.width}x{graph.height}"})]
    for tid in sorted(used):
        meta.append(_metadata("thread_name", tid, {"name": tracks[tid]}))
        meta.append(_metadata("thread_sort_index", tid, {"sort_index": tid}))
    return {
        "traceEvents": meta + [frame] + events,
        "displayTimeUnit": "ms",
        "otherData": {
            "lamina": __version__,
            **(renderer or {}),
            "frame": f"{graph.width}x{graph.height}",
            "policy": str(graph.policy),
            "passes": len(graph.passes),
            "passes_timed": bool(stats.pass_ms),
            "concurrent_tracks": [*CONCURRENT_TRACKS, *(name for tid, name in sorted(tracks.items())
                                                         if tid not in TRACKS and tid in used)],
            "clock": "CPU wall clock around glFinish() per GL pass (GL timer queries miss llvmpipe's work), and "
                     "OpenCL work as its device's events timed it (profiling), on the same clock; "
                     "ts/dur in microseconds since the frame began",
        },
    }


def write_trace(trace: dict[str, Any], path: str | Path) -> Path:
    """Write a trace built by ``build_trace`` as JSON (compact: traces get long),
    atomically (lamina.output_files)."""
    return write_text(path, json.dumps(trace, separators=(",", ":")) + "\n")
