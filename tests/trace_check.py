"""What every trace Lamina writes must be: valid Chrome Trace Event JSON (the JSON object
form) whose complete events lie on one honest timeline. Shared by the unit test of the
builder and the GL tests of real frames."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

EPS_US = 0.002  # ts and dur carry 3 decimals of a microsecond: two roundings may meet


def complete_events(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in trace["traceEvents"] if e["ph"] == "X"]


def work_events(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """The complete events other than the frame's own span."""
    return [e for e in complete_events(trace) if e["name"] != "frame"]


def check_trace(trace: dict[str, Any]) -> None:
    """Fails on anything Perfetto or chrome://tracing would reject or show wrongly, and
    on events that overlap where the work ran one after another."""
    text = json.dumps(trace, allow_nan=False)  # plain JSON: no NaN, no objects
    assert json.loads(text) == trace
    assert isinstance(trace["traceEvents"], list) and trace["traceEvents"]
    assert trace["displayTimeUnit"] in ("ms", "ns")
    assert isinstance(trace["otherData"], dict)

    named: dict[int, str] = {}
    for e in trace["traceEvents"]:
        assert e["ph"] in ("X", "M"), e
        assert isinstance(e["name"], str) and e["name"]
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        assert isinstance(e.get("args", {}), dict)
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "thread_name", "thread_sort_index"), e
            if e["name"] == "thread_name":
                assert isinstance(e["args"]["name"], str)
                assert e["tid"] not in named, f"track {e['tid']} named twice"
                named[e["tid"]] = e["args"]["name"]
            elif e["name"] == "process_name":
                assert isinstance(e["args"]["name"], str)
            else:
                assert isinstance(e["args"]["sort_index"], int)
        else:
            assert isinstance(e["cat"], str) and e["cat"]
            for key in ("ts", "dur"):
                assert isinstance(e[key], (int, float)) and e[key] >= 0, (key, e)

    events = complete_events(trace)
    assert {e["tid"] for e in events} <= set(named), "every track with events has a name"
    assert len({e["pid"] for e in trace["traceEvents"]}) == 1

    # Per track: in time order and never overlapping.
    by_track: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        by_track[e["tid"]].append(e)
    for tid, track in by_track.items():
        for a, b in zip(track, track[1:]):
            assert a["ts"] <= b["ts"], f"{named[tid]}: {a['name']} listed before {b['name']} but starts later"
            assert a["ts"] + a["dur"] <= b["ts"] + EPS_US, f"{named[tid]}: {a['name']} overlaps {b['name']}"

    # The GL thread's tracks ran one after another, so across them too nothing overlaps;
    # only the tracks of other threads (an OpenCL device's) may overlap them. The
    # frame's span holds all of it.
    concurrent = set(trace["otherData"].get("concurrent_tracks", ()))
    # Only OpenCL devices work beside the GL thread: "OpenCL" (the renderer's own) and
    # one lane per device of a frame placed on several ("OpenCL 0:1").
    assert all(name == "OpenCL" or name.startswith("OpenCL ") for name in concurrent), concurrent
    work = sorted(work_events(trace), key=lambda e: e["ts"])
    one_thread = [e for e in work if named[e["tid"]] not in concurrent]
    for a, b in zip(one_thread, one_thread[1:]):
        assert a["ts"] + a["dur"] <= b["ts"] + EPS_US, f"{a['name']} overlaps {b['name']}"
    (frame,) = [e for e in events if e["name"] == "frame"]
    assert frame["ts"] <= min(e["ts"] for e in work)
    assert frame["ts"] + frame["dur"] + EPS_US >= max(e["ts"] + e["dur"] for e in work)
    assert frame["dur"] + EPS_US * len(one_thread) >= sum(e["dur"] for e in one_thread)
