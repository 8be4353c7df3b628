"""Run by tests/gl/test_multi_opencl_gl.py in a process of its own, under
``POCL_DEVICES="pthread pthread"`` (PoCL reads it when the OpenCL ICD loads, so it must be
set before pyopencl first loads: a fresh process). Renders frames over GL and two OpenCL
devices and prints what the test asserts, as one JSON object on the last line: plain
facts (devices in use, where each pass ran, pixel differences, trace tracks), no verdicts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from lamina import Layer, Scene, load_scene
from lamina.filter_costs import CostModel
from lamina.framegraph import Executor
from lamina.renderer import Renderer
from lamina.trace import build_trace
from tests.gl.test_forced_placements_gl import allowed_levels

SCENES = Path(__file__).resolve().parents[1] / "scenes"
NAMES = ("filter-drop-shadow", "backdrop-filter-chain", "filter-blur-large", "filter-chain-fused")


def two_device_model() -> CostModel:
    """OpenCL far cheaper than GL, copies nearly free, and the devices said to overlap:
    "auto" then spreads the frame's independent filter work over both OpenCL devices."""
    kinds = ("color", "blur", "down", "up", "shadow", "morphology")
    passes = {f"gl:{k}": (1.0, 1e-4) for k in kinds} | {f"opencl:{k}": (0.1, 1e-5) for k in kinds}
    return CostModel("two devices", passes, {"gl->cl": (0.001, 1e-12), "cl->gl": (0.001, 1e-12)})


def diff(a, b) -> int:
    return int(np.abs(a.premultiplied.astype(np.int16) - b.premultiplied.astype(np.int16)).max())


def frame_facts(frame, expected) -> dict:
    moved = [p for p in frame.graph.filter_passes() if p.executor is Executor.OPENCL]
    return {"devices": sorted({p.device for p in moved}), "moved": len(moved),
            "passes": len(frame.graph.filter_passes()), "diff": diff(frame, expected), "allowed": allowed_levels(moved),
            "cl_to_cl": sum(t.source.device != "" and t.target.device != "" and t.source.device != t.target.device
                            for t in frame.graph.transfer_passes()),
            "described": sum(f"[OpenCL {p.device}]" in frame.graph.describe() for p in moved if p.device),
            "report_devices": sorted({p.get("device", "") for p in frame.graph.to_dict()["passes"]
                                      if p.get("executor") == "opencl"})}


def render(renderer: Renderer, scene_path: Path, **request):
    renderer.drop_caches()
    scene = load_scene(scene_path)
    return scene.render(renderer, t=scene.golden.get("t", 0.0), policy=scene.golden.get("policy"), **request)


def split(renderer: Renderer, path: Path) -> dict[str, str]:
    """Each layer's first filter pass on device 0:0, the rest on 0:1: every chain of two
    passes or more crosses between the devices."""
    scene = load_scene(path)
    passes = scene.plan(t=scene.golden.get("t", 0.0), policy=scene.golden.get("policy"), filter_backend="gl").filter_passes()
    seen: set[str] = set()
    on = {}
    for p in passes:
        on[p.name] = "opencl:0:1" if p.layer_id in seen else "opencl:0:0"
        seen.add(p.layer_id)
    return on


def overlap_scene() -> Scene:
    """Two layers, cheap to raster (one colour) and costly to filter (full-size blurs):
    the first device is still at work when the second layer's work reaches the other."""
    scene = Scene(800, 600, background="white")
    for i, (name, colour) in enumerate((("left", "#f06"), ("right", "#48f"))):
        scene.root.add(Layer(name, box=(20 + 390 * i, 20, 370, 560),
                             style=f"background: {colour}; filter: blur(4px) contrast(1.5) blur(4px) sepia(1)"))
    return scene


def overlapping(trace: dict) -> tuple[list[str], bool]:
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    spans: dict[str, list[tuple[float, float]]] = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and names.get(e["tid"], "").startswith("OpenCL "):
            spans.setdefault(names[e["tid"]], []).append((e["ts"], e["ts"] + e["dur"]))
    a, b = spans.get("OpenCL 0:0", []), spans.get("OpenCL 0:1", [])
    return sorted(spans), any(s < f2 and s2 < f for s, f in a for s2, f2 in b)


def main() -> None:
    out: dict = {}
    renderer = Renderer(opencl_devices="all")
    out["in_use"] = [d.index for d in renderer.opencl_devices]
    if len(out["in_use"]) < 2:
        print(json.dumps(out))
        return
    model = two_device_model()
    for name in NAMES:
        path = SCENES / f"{name}.json"
        gl = render(renderer, path, filter_backend="gl")
        out[name] = {
            "spread-layers": frame_facts(render(renderer, path, placement="spread-layers"), gl),
            "split": frame_facts(render(renderer, path, placement=split(renderer, path)), gl),
            "auto": frame_facts(render(renderer, path, filter_backend="auto", cost_model=model), gl),
        }
    # auto with the model calibrated here: every device in use measured (before
    # planning) and priced; whether the schedule is applied is the model's call
    # (devices sharing the CPU: only when one after another beats all GL).
    path = SCENES / "filter-drop-shadow.json"
    gl = render(renderer, path, filter_backend="gl")
    frame = render(renderer, path, filter_backend="auto")
    slots = frame.graph.schedule.to_dict()["slots"] if frame.graph.schedule is not None else []
    out["calibrated"] = {"priced_on": sorted({d for s in slots for d in s["costs_ms"]}), "diff": diff(frame, gl),
                         "allowed": allowed_levels([p for p in frame.graph.filter_passes()
                                                    if p.executor is Executor.OPENCL])}
    tracks, seen = [], False
    for _ in range(3):  # (two devices at work at once: seen on almost every frame; three tries)
        scene = overlap_scene()
        renderer.drop_caches()
        frame = scene.render(renderer, placement={p.name: f"opencl:0:{0 if p.layer_id == 'left' else 1}"
                                                  for p in scene.plan(filter_backend="gl").filter_passes()})
        trace = build_trace(frame.graph, frame.stats)
        tracks, seen = overlapping(trace)
        if seen:
            break
    out["overlap"] = {"tracks": tracks, "overlapping": seen, "concurrent": trace["otherData"]["concurrent_tracks"]}
    out["failure"] = device_failure(model)
    print(json.dumps(out))


def device_failure(model: CostModel) -> dict:
    """Device 0:1 fails mid-frame under auto (its queue_pass raises a real pyopencl
    error): the frame is drawn again on GL and 0:0, and later frames keep off 0:1. Last:
    runners are shared per device in the process, so the broken one is put back after."""
    path = SCENES / "filter-drop-shadow.json"
    renderer = Renderer(opencl_devices="all")
    gl = render(renderer, path, filter_backend="gl")
    broken = renderer.executor.runner_for("0:1")

    def queue_pass(*args, **kwargs):
        broken.cl.Buffer(broken.context, broken.cl.mem_flags.READ_WRITE, 0)  # INVALID_BUFFER_SIZE

    broken.queue_pass = queue_pass
    try:
        frame = render(renderer, path, filter_backend="auto", cost_model=model)
        later = render(renderer, path, filter_backend="auto", cost_model=model)
    finally:
        del broken.queue_pass
    return {"frame": frame_facts(frame, gl), "later": frame_facts(later, gl),
            "warned": "warning: the OpenCL device 0:1" in frame.explain() and "taken out of the schedule" in frame.explain()}


if __name__ == "__main__":
    sys.exit(main())
