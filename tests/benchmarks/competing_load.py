"""The dynamic-correction scenario (issue 22, item 4), run in a process of its own:
``python -m tests.benchmarks.competing_load`` prints its numbers as JSON.

What "one device slowed by a competing load" means on this machine: GL (llvmpipe) and
OpenCL (PoCL) both run on the same 2 CPU cores, so any CPU load slows both about
equally, and a scheduler rightly moves nothing. To make them two devices, the scenario
partitions the cores: llvmpipe's rasterizer threads ("llvmpipe-N") run on core 0, PoCL's
worker thread (one: POCL_MAX_PTHREAD_COUNT=1, set by the caller) on core 1; the host side
(Python, GL's submission, the copies) may run on either, and the kernel's scheduler puts
it on the less busy one. The competing load is busy processes pinned to the core of the
device auto gives filter work to with the calibrated model: 2 on core 1 slow PoCL about
2.7x and GL not at all, 3 on core 0 slow llvmpipe about 2.8x and PoCL not at all
(measured, frames of every filter pass on one device, forced; fewer busy processes slow
a device less than their count says, because a device's threads sleep between passes and
the kernel's scheduler favours a thread that wakes). That is a GPU shared with another
application, as a machine with two real devices sees it.

The calibration is measured under the partition (LAMINA_CACHE_DIR points at a fresh
folder, set by the caller: the stored model of the unpartitioned machine is neither read
nor overwritten). Frames animate a filter parameter (a uniform: no recompile), so every
frame runs every filter pass.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from lamina import Layer, Renderer, Scene
from lamina.framegraph import Executor

GL_CORE, CL_CORE = 0, 1
HOGS = {Executor.GL: 3, Executor.OPENCL: 2}  # busy processes on the loaded device's core (docstring)
CORE = {Executor.GL: GL_CORE, Executor.OPENCL: CL_CORE}
CALM_FRAMES = 8
MAX_FRAMES_TO_MOVE = 10  # frames rendered under load waiting for the move (the test asserts <= 5)
AFTER_FRAMES = 8
RETURN_FRAMES = 60
SETTLE_FRAMES = 40
HOG = "import os\nos.sched_setaffinity(0, {{{core}}})\nwhile True:\n    pass\n"


def scene() -> Scene:
    """Two large filtered cards: their blurs are where PoCL beats llvmpipe."""
    s = Scene(1280, 720, background="#fff")
    for i in range(2):
        s.root.add(Layer(f"card{i}", (40 + 620 * i, 60, 560, 560),
                         "background: linear-gradient(#f06, #48f); will-change: filter"))
    return s


def animate(s: Scene, frame: int) -> None:
    for i in range(2):
        s.find(f"card{i}").style["filter"] = f"blur(6px) hue-rotate({7 * frame + i}deg)"


def _threads() -> set[int]:
    return {int(t) for t in os.listdir("/proc/self/task")}


def _name(tid: int) -> str:
    try:
        with open(f"/proc/self/task/{tid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def _cpu_ticks(tid: int) -> int:
    try:
        with open(f"/proc/self/task/{tid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    except (OSError, IndexError, ValueError):
        return 0


def partition(r: Renderer, s: Scene) -> dict:
    """Pin llvmpipe's threads to GL_CORE and PoCL's to CL_CORE (the others stay free).
    PoCL names no thread:
    its workers are the threads, other than llvmpipe's and the main one, that burn CPU
    while frames run their filter passes on OpenCL (PoCL starts them when the platform
    is first listed, so "the threads new since" finds nothing)."""
    animate(s, 0)
    s.render(r, filter_backend="opencl")  # programs, buffers, PoCL's worker started
    before = {t: _cpu_ticks(t) for t in _threads()}
    for i in range(4):
        animate(s, i + 1)
        s.render(r, filter_backend="opencl")
    spent = {t: _cpu_ticks(t) - before.get(t, 0) for t in _threads()}
    gl = {t for t in spent if _name(t).startswith("llvmpipe")}
    others = {t: n for t, n in spent.items() if t not in gl and t != os.getpid()}
    most = max(others.values(), default=0)
    pocl = {t for t, n in others.items() if most and n >= most / 4}
    if not pocl or not gl:
        raise RuntimeError(f"cannot find the devices' threads (PoCL {pocl}, llvmpipe {gl}; CPU ticks {spent})")
    for t in gl:
        os.sched_setaffinity(t, {GL_CORE})
    for t in pocl:
        os.sched_setaffinity(t, {CL_CORE})
    return {"pocl_threads": len(pocl), "llvmpipe_threads": len(gl),
            "cpu_ticks_while_opencl_ran": {_name(t) + f"/{t}": n for t, n in spent.items()}}


def device_ms(frame) -> dict[str, float]:
    """The frame's measured filter pass ms per executor."""
    out = {"gl": 0.0, "opencl": 0.0}
    for p in frame.graph.filter_passes():
        out[Executor.of(p.executor).value] += frame.stats.pass_ms.get(p.name, 0.0)
    return out


def on(frame, executor: Executor) -> int:
    return sum(Executor.of(p.executor) is executor for p in frame.graph.filter_passes())


def _median(values) -> float | None:
    values = list(values)
    return round(statistics.median(values), 2) if values else None


class Load:
    """The competing load on ``device``: HOGS[device] busy processes pinned to its core
    (a context manager)."""

    def __init__(self, device: Executor) -> None:
        self.device = device

    def __enter__(self) -> "Load":
        hog = HOG.format(core=CORE[self.device])
        self.procs = [subprocess.Popen([sys.executable, "-c", hog]) for _ in range(HOGS[self.device])]
        time.sleep(0.2)  # (they are running)
        return self

    def __exit__(self, *exc) -> None:
        for p in self.procs:
            p.kill()
            p.wait()


def run() -> dict:
    """The scenario (module docstring); its numbers, by name."""
    if len(os.sched_getaffinity(0)) < 2:
        return {"skipped": "needs 2 cores to give each device one"}
    s = scene()
    out: dict = {"load_average_at_start": round(os.getloadavg()[0], 2)}
    counter = iter(range(1, 10 ** 6))

    trace: list[str] = []  # one line per auto frame: what the feedback saw and did

    def frame(r: Renderer, backend: str = "auto"):
        n = next(counter)
        animate(s, n)
        t0 = time.perf_counter()
        f = s.render(r, filter_backend=backend)
        ms = (time.perf_counter() - t0) * 1000
        if backend == "auto" and r.feedback is not None:
            cells = []
            for e, h in sorted(r.feedback.health.items()):
                ratio = f"{h.last.ratio:.2f}/{h.last.limit:.2f}" if h.last is not None else "-"
                cells.append(f"{e.value} {on(f, e)} passes, {h.phase.value} x{h.factor:.2f}, last ratio/limit {ratio}")
            trace.append(f"{n:3d} {ms:7.1f} ms  " + "; ".join(cells))
        return f, ms

    with Renderer() as r:
        out.update(partition(r, s))
        for _ in range(10):  # auto: calibration (under the partition), compiles, the history's first samples
            frame(r)
        calm = [frame(r) for _ in range(CALM_FRAMES)]
        last = calm[-1][0]
        out["filter_passes"] = len(last.graph.filter_passes())
        out["opencl_passes_calm"] = on(last, Executor.OPENCL)
        # Load the device auto gives filter work to: OpenCL if it has any, else GL.
        device = Executor.OPENCL if out["opencl_passes_calm"] else Executor.GL
        other = Executor.GL if device is Executor.OPENCL else Executor.OPENCL
        out["loaded_device"], out["busy_processes"] = device.value, HOGS[device]
        # How much the load slows each device kept busy: every filter pass on it, forced
        # (frames auto does not plan: the feedback sees none of them).
        for d in (device, other):
            quiet = [frame(r, d.value) for _ in range(6)][2:]
            with Load(device):
                busy = [frame(r, d.value) for _ in range(5)]
            slowdown = _median(device_ms(f)[d.value] for f, _ in busy) / _median(device_ms(f)[d.value] for f, _ in quiet)
            out[f"{d.value}_slowdown_steady"] = round(slowdown, 2)
        calm += [frame(r) for _ in range(4)]
        # The count starts from a device the feedback holds nominal: the machine's other
        # load may have corrected it already (then it is no count of this load's frames).
        settle = 0
        while r.feedback.model().active and settle < SETTLE_FRAMES:
            calm.append(frame(r))
            settle += 1
        out["frames_to_settle_before_load"] = settle
        if r.feedback.model().active:
            out["error"] = f"a device was still corrected after {settle} calm frames: the machine is too busy"
            return out
        slow, after, moved = [], [], None
        with Load(device):
            for i in range(MAX_FRAMES_TO_MOVE):
                f, ms = frame(r)
                report = f.graph.corrections
                if report is not None and any(not m.back and m.source == device for m in report.moves):
                    moved = i
                    after.append((f, ms))
                    break
                slow.append((f, ms))
            out["frames_until_moved"] = moved
            if moved is not None:
                out["report"] = f.graph.corrections.describe_lines()
                after += [frame(r) for _ in range(AFTER_FRAMES - 1)]
        back = None
        for i in range(RETURN_FRAMES):
            frame(r)
            if not r.feedback.model().active:
                back = i
                break
        out["frames_until_back_after_load_ends"] = back
        out["frame_ms_calm"] = _median(ms for _, ms in calm[-8:])
        out["frame_ms_loaded_before_move"] = _median(ms for _, ms in slow)
        out["frame_ms_loaded_after_move"] = _median(ms for _, ms in after)
        out[f"{device.value}_passes_calm"] = on(last, device)
        out[f"{device.value}_passes_after_move"] = [on(f, device) for f, _ in after]
        out[f"{device.value}_filter_ms_auto_calm"] = _median(device_ms(f)[device.value] for f, _ in calm[-8:])
        out[f"{device.value}_filter_ms_auto_loaded_before_move"] = _median(device_ms(f)[device.value] for f, _ in slow)
        out["load_average_at_end"] = round(os.getloadavg()[0], 2)
        out["trace"] = trace
    return out


if __name__ == "__main__":
    print(json.dumps(run()))
