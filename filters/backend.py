"""Which executor runs each pass of a filter plan: the ``filter_backend`` setting.

* ``"gl"``: every pass is a GLSL pass (the default).
* ``"opencl"``: every pass is an OpenCL kernel; the plan's input is read back from its
  GL texture into an OpenCL buffer first and the result written back to a texture.
* ``"auto"``: per pass, whichever is cheaper, transfers included, by a cost model
  measured on this machine (``calibrate``): for each executor and pass kind, a fixed
  cost plus a cost per unit of work (pixels, or pixels x taps for blurs, bytes for
  transfers), fitted from two image sizes. The placement is exact and cheap: a dynamic
  programme over the passes whose state is where each still-needed image lives (at most
  two images are live in a plan), so ``auto`` is never worse than all-GL or all-OpenCL
  by the model.

The model is cached per (GL renderer, OpenCL device, Lamina version): in memory, and
as JSON under ``LAMINA_CACHE_DIR`` (default ``$XDG_CACHE_HOME/lamina`` or
``~/.cache/lamina``) so that a new process does not measure again.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import numpy as np

from ..errors import LaminaInputError, OpenCLUnavailableError
from ..framegraph import Executor
from ..version import __version__

from .plan import BlurPass, ColorPass, ColorStep, FilterPlan, PassKind, PlannedPass, ResamplePass, ShadowPass, image_size

__all__ = ["FilterBackend", "FILTER_BACKENDS", "CostModel", "Placement", "check_backend", "place", "calibrate", "cache_dir"]


class FilterBackend(Enum):
    """Where a scene's filter passes run: the ``filter_backend`` setting, parsed once."""

    GL = "gl"
    OPENCL = "opencl"
    AUTO = "auto"

    @classmethod
    def parse(cls, value: "FilterBackend | str") -> "FilterBackend":
        """The backend named by ``value`` (the enum itself, or its name in a scene file or
        on the command line); a LaminaInputError for anything else."""
        if isinstance(value, cls):
            return value
        try:
            return cls(value)
        except ValueError:
            choices = ", ".join(b.value for b in cls)
            raise LaminaInputError(f"unknown filter backend {value!r} (choose from {choices})") from None


FILTER_BACKENDS = tuple(b.value for b in FilterBackend)
EXECUTORS = tuple(Executor)
KINDS = tuple(k.value for k in PassKind)  # the cost model's pass keys: "executor:kind"
MODEL_VERSION = 3  # in the cache key: models measured by older code are measured again


def check_backend(backend: "FilterBackend | str") -> str:
    """The name of a valid backend (for callers that still carry the setting as text)."""
    return FilterBackend.parse(backend).value


def work_units(step: PlannedPass, width: int, height: int) -> float:
    """The unit of work a pass's cost grows with: output pixels (times taps for a blur)."""
    w, h = image_size(width, height, step.scale)
    px = float(w * h)
    return px * (2 * step.radius + 1) if step.pass_kind is PassKind.BLUR else px


@dataclass(frozen=True)
class CostModel:
    """Milliseconds = fixed + per_unit x units, per (executor, kind), and per transfer
    direction ("gl->cl", "cl->gl") per byte."""

    label: str
    passes: dict = field(default_factory=dict)  # "executor:kind" -> (fixed_ms, ms_per_unit)
    transfers: dict = field(default_factory=dict)  # "gl->cl" / "cl->gl" -> (fixed_ms, ms_per_byte)

    def pass_ms(self, executor: "Executor | str", step: PlannedPass, width: int, height: int) -> float:
        fixed, per = self.passes[f"{executor}:{step.pass_kind.value}"]
        ms = fixed + per * work_units(step, width, height)
        if step.pass_kind is PassKind.COLOR and len(step.steps) > 1:
            # The colour model is measured at one step; each further clamped step costs
            # what the calibration's 8-step pass added per step and pixel.
            _, per_step = self.passes.get(f"{executor}:color_step", (0.0, 0.0))
            ms += per_step * work_units(step, width, height) * (len(step.steps) - 1)
        return ms

    def transfer_ms(self, direction: str, nbytes: int) -> float:
        fixed, per = self.transfers[direction]
        return fixed + per * nbytes

    def to_dict(self) -> dict:
        return {"label": self.label, "passes": {k: list(v) for k, v in self.passes.items()},
                "transfers": {k: list(v) for k, v in self.transfers.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> "CostModel":
        return cls(data["label"], {k: tuple(v) for k, v in data["passes"].items()},
                   {k: tuple(v) for k, v in data["transfers"].items()})


@dataclass(frozen=True)
class Placement:
    """Where each pass of a plan runs, and why; ``estimate_ms`` per option when auto."""

    executors: tuple[Executor, ...]
    why: tuple[str, ...]
    summary: str
    estimates: dict = field(default_factory=dict)  # "gl" / "opencl" / "chosen" -> ms


def _price(plan: FilterPlan, width: int, height: int, model: CostModel, executors: tuple[Executor, ...]) -> float:
    """Estimated ms of running ``plan`` with ``executors``, transfers included (an image
    moves at most once to each side; the result must end as a GL texture)."""
    where = {"source": {"gl"}}
    sizes = {"source": (width, height)}
    total = 0.0
    for step, exe in zip(plan.passes, executors):
        loc = Executor.of(exe).short
        for name in step.inputs:
            if loc not in where[name]:
                w, h = sizes[name]
                total += model.transfer_ms(f"{next(iter(where[name]))}->{loc}", w * h * 4)
                where[name].add(loc)
        total += model.pass_ms(exe, step, width, height)
        where[step.output] = {loc}
        sizes[step.output] = image_size(width, height, step.scale)
    if "gl" not in where[plan.output]:
        w, h = sizes[plan.output]
        total += model.transfer_ms("cl->gl", w * h * 4)
    return total


def _cheapest(plan: FilterPlan, width: int, height: int, model: CostModel) -> tuple[Executor, ...]:
    """The placement of least estimated cost (ties: fewer OpenCL passes). Dynamic
    programming over the passes; a state is where each image still needed lives."""
    passes = plan.passes
    end = len(passes)
    last_use = {name: i for i, p in enumerate(passes) for name in p.inputs}
    last_use[plan.output] = end  # needed at the end, on GL
    sizes = {"source": (width, height)}
    for p in passes:
        sizes[p.output] = image_size(width, height, p.scale)

    def moved(name: str, to: str) -> float:
        w, h = sizes[name]
        return model.transfer_ms(f"{'cl' if to == 'gl' else 'gl'}->{to}", w * h * 4)

    # state: ((image, frozenset of locations), ...) -> (cost, OpenCL passes, executors)
    states = {(("source", frozenset({"gl"})),): (0.0, 0, ())}
    for i, step in enumerate(passes):
        nxt: dict = {}
        for state, (cost, n_cl, chosen) in states.items():
            for executor in EXECUTORS:
                loc = executor.short
                where = dict(state)
                c = cost + model.pass_ms(executor, step, width, height)
                for name in dict.fromkeys(step.inputs):
                    if loc not in where[name]:
                        c += moved(name, loc)
                        where[name] = where[name] | {loc}
                where[step.output] = frozenset({loc})
                key = tuple(sorted((k, v) for k, v in where.items() if last_use.get(k, -1) > i))
                value = (c, n_cl + (executor is Executor.OPENCL), chosen + (executor,))
                if key not in nxt or value[:2] < nxt[key][:2]:
                    nxt[key] = value
        states = nxt
    finals = []
    for state, (cost, n_cl, chosen) in states.items():
        where = dict(state)
        finals.append((cost + (0.0 if "gl" in where[plan.output] else moved(plan.output, "gl")), n_cl, chosen))
    return min(finals)[2]


def place(plan: FilterPlan, width: int, height: int, backend: "FilterBackend | str", model: CostModel | None = None,
          unavailable: str | None = None) -> Placement:
    """Choose an executor for every pass of ``plan`` on a width x height input."""
    backend = FilterBackend.parse(backend)
    n = len(plan.passes)
    if backend is FilterBackend.GL or n == 0:
        return Placement((Executor.GL,) * n, ("",) * n, "")
    if backend is FilterBackend.OPENCL:
        return Placement((Executor.OPENCL,) * n, ("filter_backend opencl",) * n,
                         "all passes on OpenCL (filter_backend opencl)")
    if unavailable is not None or model is None:
        why = f"auto: no OpenCL ({unavailable})" if unavailable else "auto: no cost model"
        return Placement((Executor.GL,) * n, (why,) * n, why)
    best = _cheapest(plan, width, height, model)
    chosen = _price(plan, width, height, model, best)
    all_gl = _price(plan, width, height, model, (Executor.GL,) * n)
    all_cl = _price(plan, width, height, model, (Executor.OPENCL,) * n)
    why = []
    for step, exe in zip(plan.passes, best):
        g, c = model.pass_ms(Executor.GL, step, width, height), model.pass_ms(Executor.OPENCL, step, width, height)
        why.append(f"auto: {exe}, est. GL {g:.2f} ms / OpenCL {c:.2f} ms")
    on_cl = best.count(Executor.OPENCL)
    summary = (f"auto placed {on_cl} of {n} passes on OpenCL: est. {chosen:.2f} ms with transfers "
               f"(all GL {all_gl:.2f} ms, all OpenCL {all_cl:.2f} ms, by the cost model measured here)")
    return Placement(tuple(best), tuple(why), summary, {"gl": all_gl, "opencl": all_cl, "chosen": chosen})


# -- calibration ---------------------------------------------------------------------------

def cache_dir() -> Path:
    env = os.environ.get("LAMINA_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lamina"


_MODELS: dict[str, CostModel] = {}
CALIBRATION_SIZES = ((256, 256), (1024, 1024))


def _samples() -> dict[str, PlannedPass]:
    step = ColorStep(("sepia(0.5)",), ((0.5, 0.3, 0.1, 0.0), (0.2, 0.6, 0.1, 0.0), (0.1, 0.2, 0.5, 0.0)))
    return {
        "color": ColorPass(("source",), "out", (step,), 0.9, ("sample",)),
        "color8": ColorPass(("source",), "out", (step,) * 8, 0.9, ("sample",)),
        "blur": BlurPass(("source",), "out", "x", 2.0, 6),
        "down": ResamplePass(("source",), "out", "down", 2, 1),
        "up": ResamplePass(("source",), "out", "up", 1, 4),
        "shadow": ShadowPass(("source", "source"), "out", (3.0, 2.0), (0.0, 0.0, 0.0, 0.5)),
    }


def _fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    (u1, t1), (u2, t2) = points
    per = max((t2 - t1) / (u2 - u1), 0.0) if u2 != u1 else 0.0
    return (max(t1 - per * u1, 0.0), per)


def calibrate(renderer, cl_runner, *, repeats: int = 3, use_cache: bool = True) -> CostModel:
    """Measure both executors on every pass kind at two sizes (about a second), or load
    the model measured before on this GL renderer and OpenCL device (delete
    ``filter-costs.json`` in ``cache_dir()``, or pass ``use_cache=False``, to measure
    again, e.g. after measuring on a busy machine)."""
    info = renderer.info
    threads = ",".join(f"{k}={os.environ[k]}" for k in ("LP_NUM_THREADS", "POCL_MAX_PTHREAD_COUNT") if k in os.environ)
    label = (f"{info.renderer} | {info.version} + {cl_runner.label} "
             f"(Lamina {__version__}, model {MODEL_VERSION}{'; ' + threads if threads else ''})")
    if use_cache and label in _MODELS:
        return _MODELS[label]
    path = cache_dir() / "filter-costs.json"
    if use_cache and path.is_file():
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if label in stored:
                model = _MODELS[label] = CostModel.from_dict(stored[label])
                return model
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is measured again and rewritten
    renderer.gpu.activate()
    try:
        points = _measure(renderer, cl_runner, repeats)
    except cl_runner.cl.Error as exc:
        raise OpenCLUnavailableError(f"measuring the OpenCL filter kernels failed on {cl_runner.label}: {exc}") from None
    passes = {key: _fit(points[key]) for key in points if ":" in key and not key.endswith("color8")}
    for executor in EXECUTORS:  # per extra clamped step and pixel, from 1 vs 8 steps
        one, eight = points[f"{executor}:color"], points[f"{executor}:color8"]
        per_step = statistics.median((t8 - t1) / (7.0 * u) for (u, t1), (_, t8) in zip(one, eight))
        passes[f"{executor}:color_step"] = (0.0, max(per_step, 0.0))
    model = CostModel(label, passes, {key: _fit(points[key]) for key in ("gl->cl", "cl->gl")})
    _MODELS[label] = model
    try:
        stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        stored = {}
    stored[label] = model.to_dict()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only home: the model stays in memory for this process
    return model


def _measure(renderer, cl_runner, repeats: int) -> dict[str, list]:
    """(units, median ms) at each calibration size, per "executor:kind" and transfer."""
    executor = renderer.executor
    gl_runner, pool, ctx = executor.filter_runner, executor.pool, renderer.gpu.ctx
    rng = np.random.default_rng(0)
    points: dict[str, list] = {}
    for w, h in CALIBRATION_SIZES:
        img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
        img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
        src = pool.acquire(w, h)
        src.texture.write(img)
        cl_src = cl_runner.upload(img)
        try:
            _measure_size(w, h, src, cl_src, gl_runner, pool, ctx, cl_runner, repeats, points)
        finally:
            pool.release(src)
            cl_runner.release(cl_src)
    pool.end_frame()
    return points


def _measure_size(w, h, src, cl_src, gl_runner, pool, ctx, cl_runner, repeats, points) -> None:
    def timed(run, finish) -> float:
        times = []
        for _ in range(repeats + 1):  # the first run warms up
            finish()
            t0 = time.perf_counter()
            run()
            finish()
            times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times[1:])

    for kind, step in _samples().items():
        units = work_units(step, w, h)
        out_size = image_size(w, h, step.scale)
        gl_out = pool.acquire(*out_size)
        try:
            ms = timed(lambda: gl_runner.run_pass(step, [src.texture] * len(step.inputs), gl_out), ctx.finish)
        finally:
            pool.release(gl_out)
        points.setdefault(f"gl:{kind}", []).append((units, ms))
        cl_out = cl_runner.acquire(*out_size)
        try:
            ms = timed(lambda: cl_runner.run_pass(step, [cl_src] * len(step.inputs), cl_out), cl_runner.queue.finish)
        finally:
            cl_runner.release(cl_out)
        points.setdefault(f"opencl:{kind}", []).append((units, ms))
    copy = cl_runner.acquire(w, h)
    try:
        to_cl = timed(lambda: cl_runner.from_texture(src.texture, copy), ctx.finish)
        to_gl = timed(lambda: cl_runner.to_texture(copy, src.texture), ctx.finish)
        points.setdefault("gl->cl", []).append((w * h * 4, to_cl))
        points.setdefault("cl->gl", []).append((w * h * 4, to_gl))
    finally:
        cl_runner.release(copy)
