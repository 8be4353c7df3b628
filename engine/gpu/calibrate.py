"""Measure the filter cost model (``lamina.filter_costs.CostModel``) on this
machine's executors: every planned pass kind on GL and on OpenCL at two sizes, and the
copies between them (about a second). ``filter_backend="auto"`` places passes by it.

Measuring runs GPU passes, so it is executor work, done before a frame is planned; the
planner only reads the model. A model is cached per (GL renderer, OpenCL device, Lamina
version): in memory, and as JSON under ``LAMINA_CACHE_DIR`` (default
``$XDG_CACHE_HOME/lamina`` or ``~/.cache/lamina``) so that a new process does not
measure again.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import OpenCLUnavailableError, OutputFileError
from ..filters.plan import PASS_TYPES, PassKind, PlannedPass, image_size
from ..filter_costs import EXECUTORS, KINDS, CostModel, PassCost, SpelledKey, Transfer, work_units
from ..textures import Executor
from ..output_files import write_text
from ..version import __version__

__all__ = ["calibrate", "cache_dir", "Sample", "CALIBRATION_SIZES", "MODEL_VERSION", "KINDS"]

MODEL_VERSION = 3  # in the cache key: models measured by older code are measured again
CALIBRATION_SIZES = ((256, 256), (1024, 1024))

_MODELS: dict[str, CostModel] = {}


def cache_dir() -> Path:
    env = os.environ.get("LAMINA_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lamina"


@dataclass(frozen=True, eq=False)
class Sample(SpelledKey):
    """What one calibration sample measures: a pass kind, at ``steps`` fused clamped
    steps (colour passes: one, and eight for what each further step adds). ``str()`` is
    "blur", "color", "color8"."""

    kind: PassKind
    steps: int = 1

    @classmethod
    def of(cls, step: PlannedPass) -> "Sample":
        return cls(step.pass_kind, len(step.steps) if step.pass_kind is PassKind.COLOR else 1)

    def __str__(self) -> str:
        return f"{self.kind.value}{self.steps if self.steps != 1 else ''}"


def _samples() -> dict[Sample, PlannedPass]:
    """The passes measured for the cost model: each planned pass type's samples."""
    return {Sample.of(step): step for cls in PASS_TYPES for step in cls.samples()}


def _complete(model: CostModel) -> bool:
    """Whether a stored model prices every pass kind there is now on both executors (a
    model measured before a pass kind was added is measured again)."""
    return all(PassCost(executor, kind) in model.passes for executor in EXECUTORS for kind in KINDS)


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
            if label in stored and _complete(model := CostModel.from_dict(stored[label])):
                _MODELS[label] = model
                return model
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is measured again and rewritten
    renderer.gpu.activate()
    try:
        points = _measure(renderer, cl_runner, repeats)
    except cl_runner.cl.Error as exc:
        raise OpenCLUnavailableError(f"measuring the OpenCL filter kernels failed on {cl_runner.label}: {exc}") from None
    passes, transfers = points
    model_passes = {PassCost(executor, sample.kind): _fit(p) for (executor, sample), p in passes.items() if sample.steps == 1}
    for (executor, sample), many in passes.items():  # per extra clamped step and pixel, from 1 vs n steps
        if sample.steps > 1:
            one, extra = passes[executor, Sample(sample.kind)], sample.steps - 1.0
            per_step = statistics.median((tn - t1) / (extra * u) for (u, t1), (_, tn) in zip(one, many))
            model_passes[PassCost(executor, sample.kind, per_step=True)] = (0.0, max(per_step, 0.0))
    model = CostModel(label, model_passes, {direction: _fit(transfers[direction]) for direction in Transfer})
    _MODELS[label] = model
    try:
        stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        stored = {}
    stored[label] = model.to_dict()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(stored, indent=2) + "\n")  # atomic: parallel calibrations never see half a file
    except (OSError, OutputFileError):
        pass  # a read-only home: the model stays in memory for this process
    return model


Points = list[tuple[float, float]]  # (units, median ms) at each calibration size


def _measure(renderer, cl_runner, repeats: int) -> tuple[dict[tuple[Executor, Sample], Points], dict[Transfer, Points]]:
    """(units, median ms) at each calibration size, per executor and sample, and per
    transfer direction."""
    executor = renderer.executor
    gl_runner, pool, ctx = executor.filter_runner, executor.pool, renderer.gpu.ctx
    rng = np.random.default_rng(0)
    points: tuple[dict, dict] = ({}, {})
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

    passes, transfers = points
    for sample, step in _samples().items():
        units = work_units(step, w, h)
        out_size = image_size(w, h, step.scale)
        gl_out = pool.acquire(*out_size)
        try:
            ms = timed(lambda: gl_runner.run_pass(step, [src.texture] * len(step.inputs), gl_out), ctx.finish)
        finally:
            pool.release(gl_out)
        passes.setdefault((Executor.GL, sample), []).append((units, ms))
        cl_out = cl_runner.acquire(*out_size)
        try:
            ms = timed(lambda: cl_runner.run_pass(step, [cl_src] * len(step.inputs), cl_out), cl_runner.queue.finish)
        finally:
            cl_runner.release(cl_out)
        passes.setdefault((Executor.OPENCL, sample), []).append((units, ms))
    copy = cl_runner.acquire(w, h)
    try:
        to_cl = timed(lambda: cl_runner.from_texture(src.texture, copy), ctx.finish)
        to_gl = timed(lambda: cl_runner.to_texture(copy, src.texture), ctx.finish)
        transfers.setdefault(Transfer.TO_OPENCL, []).append((w * h * 4, to_cl))
        transfers.setdefault(Transfer.TO_GL, []).append((w * h * 4, to_gl))
    finally:
        cl_runner.release(copy)
