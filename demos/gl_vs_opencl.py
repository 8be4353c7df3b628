"""GL vs OpenCL: one filter chain on both executors, and what ``auto`` chose and why.

What the student learns: the same plan of filter passes can run as GLSL fragment passes
on textures or as OpenCL kernels on buffers. OpenCL pays two transfers (the input read
back from its texture into a buffer, the result written back) but its blur kernels,
tiled through local memory, beat fragment shaders on a CPU device; colour passes cost
about the same on both. ``auto`` prices every placement of the passes with costs
measured on this machine, transfers included, and picks the cheapest — each pass says
why it went where it went.

Drive it: the scene shows the backend chosen in the "filters on" switch; the table
renders the same frame on all three every frame (keeping nothing, so each runs the
whole chain) and lists each pass's executor and time, the transfers, and auto's reasons.

Under ``auto`` the "schedule" panel shows the last frame as it ran, one row per device
(GL, the copies, OpenCL, at the times measured: where both worked at once the marks
share columns), the frame-wide schedule HEFT predicted for it, and what correction from
measurement did. The "OpenCL 3x slower" switch pretends a load on the OpenCL device
(``Renderer.simulated_load``: the times the correction learns from are scaled; a real
load on this CPU-only machine slows llvmpipe and PoCL alike, and rightly nothing
moves): within a few frames the scheduler moves work off it, and the panel says which
pass moved and why; switch it off and the work comes back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from imgui_bundle import imgui

from lamina import FrameRequest, Layer, Scene
from lamina.gantt import measured_rows

from .ui.runner import Demo

__all__ = ["GLvsOpenCL", "BACKENDS", "SLOW_OPENCL", "compare_backends", "schedule_lines"]

PHOTO = Path(__file__).resolve().parent / "showcase" / "sunset.png"
BACKENDS = ("gl", "opencl", "auto")
REFRESH_S = 0.5  # seconds between the table's comparisons
CHAIN = "blur({:.1f}px) saturate(1.8) drop-shadow(10px 12px 8px rgb(30 20 60 / 55%))"


SLOW_OPENCL = 3.0  # the switch's pretended load on the OpenCL device


def schedule_lines(frame) -> list[str]:
    """The schedule panel's text for a rendered frame: the frame per device as it ran,
    the schedule predicted for it, and what correction from measurement and the
    run-time rule did (nothing to show but the first under gl or opencl)."""
    graph = frame.graph
    lines = ["as it ran (measured):", *measured_rows(frame.trace(), width=56)]
    if graph.schedule is not None:
        lines += ["", *graph.schedule.describe_lines()[:3], graph.schedule.gantt(width=56)]
    if graph.corrections is not None:
        lines += ["", *graph.corrections.describe_lines()]
    for c in frame.stats.runtime_choices:
        lines.append(f"run time: {c.offload} {'moved to GL' if c.moved else 'stayed on OpenCL'}: {c.why()}")
    return lines


def compare_backends(runner) -> dict[str, list[dict]]:
    """The current frame rendered on each filter backend: per backend, its filter and
    transfer passes from the frame's report, with measured times. Rendered with nothing
    kept (policy "none"), so each backend runs the whole chain even when paused."""
    out = {}
    for backend in BACKENDS:
        request = FrameRequest(t=runner.t, policy="none", filter_backend=backend)
        frame = runner.scene.render(runner.renderer, request)
        times = frame.report["stats"]["pass_ms"]
        rows = []
        for p in frame.report["graph"]["passes"]:
            if p["kind"] in ("filter", "transfer"):
                rows.append({**p, "ms": times.get(p["name"], 0.0)})
        out[backend] = rows
    return out


@dataclass
class GLvsOpenCL(Demo):
    name: str = "gl-vs-opencl"
    title: str = "GL vs OpenCL"
    lesson: str = (
        "One filter plan, two executors: GLSL passes on textures or OpenCL kernels on "
        "buffers (plus two transfers). 'auto' prices each placement and says why."
    )

    blur: float = 5.0  # px, the chain's blur (it animates to 1.4x this)
    slow_opencl: bool = False  # the switch: pretend OpenCL runs SLOW_OPENCL times slower

    def __post_init__(self) -> None:
        self.rows: dict[str, list[dict]] = {}
        self._compared: tuple[float, float] | None = None  # (clock, blur) of the last comparison
        self.script = [(6, lambda d: d.show("opencl")), (12, lambda d: d.show("auto"))]

    def show(self, backend: str) -> None:
        self.runner.state.filter_backend = backend

    def load_opencl(self, on: bool) -> None:
        """The switch: a pretended load on the OpenCL device (module docstring)."""
        self.slow_opencl = on
        self.runner.renderer.simulated_load = {"opencl": SLOW_OPENCL} if on else {}

    def build(self) -> Scene:
        scene = Scene(*self.scene_size, background="#f4f1ea")
        scene.root.add(Layer("photo", (110, 110, 600, 420),
                             f"background: url({PHOTO.as_posix()}) center / cover; border-radius: 18px"))
        self._animated_blur = None
        return scene

    def update(self, scene: Scene, t: float) -> None:
        if self._animated_blur != self.blur:
            photo = scene["photo"]
            photo.animations.clear()
            photo.animate({"from": {"filter": CHAIN.format(self.blur)}, "to": {"filter": CHAIN.format(self.blur * 1.4)}},
                          duration=2.0, iterations="infinite", direction="alternate")
            self._animated_blur = self.blur

    def controls(self) -> None:
        _, self.blur = imgui.slider_float("blur (px)", self.blur, 0.0, 16.0)
        self.mark_probe(self.blur)
        changed, slow = imgui.checkbox(f"OpenCL {SLOW_OPENCL:g}x slower (pretended load)", self.slow_opencl)
        if changed:
            self.load_opencl(slow)
        frame = self.runner.last_frame
        if frame is not None and imgui.tree_node_ex("schedule of the last frame", imgui.TreeNodeFlags_.default_open):
            for line in schedule_lines(frame):
                imgui.text(line)
            imgui.tree_pop()
        # Three more renders of the chain: the table refreshes twice a second (and when the
        # blur moves), as a profiler's would, not every frame.
        now = time.perf_counter()
        if self._compared is None or now - self._compared[0] >= REFRESH_S or self._compared[1] != self.blur:
            self.rows = compare_backends(self.runner)
            self._compared = (now, self.blur)
        for backend, rows in self.rows.items():
            total = sum(r["ms"] for r in rows)
            if imgui.tree_node_ex(f"{backend}: {len(rows)} passes, {total:.1f} ms", imgui.TreeNodeFlags_.default_open):
                for r in rows:
                    where = r.get("executor") or r.get("direction", "")
                    extra = f"{r['bytes'] / 2**20:.1f} MB" if r["kind"] == "transfer" else r.get("step", "")
                    imgui.text(f"{r['ms']:6.2f} ms  {where:<8} {extra}")
                    if backend == "auto" and r.get("why"):
                        imgui.indent()
                        imgui.push_text_wrap_pos(0.0)
                        imgui.text_disabled(r["why"])
                        imgui.pop_text_wrap_pos()
                        imgui.unindent()
                imgui.tree_pop()
