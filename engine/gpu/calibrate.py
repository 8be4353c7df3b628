"""Calibrate the history cost model (``lamina.cost_history``) on this machine's devices:
every planned pass kind on GL and on each OpenCL device asked for, at two sizes, and the
copies between GL and each OpenCL device (about a second per device).
``filter_backend="auto"`` places passes by it.

Measuring runs GPU passes, so it is executor work, done before a frame is planned
(``Renderer.snapshot``); the planner only reads the model. Each timed run after a warm-up
one is a sample of the history (StarPU drops the first run likewise: it holds the JIT and
the first allocation). The model is kept in memory per stamp (renderer fingerprint,
thread settings, driver versions) and in the cache folder (``lamina.cost_store``), so a
new process measures only what the stored model lacks: a device never measured, or one
whose driver changed.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..cost_history import DeviceCosts, HistoryModel, Sample
from ..cost_store import Loaded, LoadStatus, Stamp, cache_dir, load, save, thread_settings
from ..devices import Device, DeviceType
from ..errors import OpenCLUnavailableError
from ..filter_costs import KINDS, work_units
from ..filters.plan import PASS_TYPES, ImageFormat, PlannedPass, image_format, image_size, input_format
from .devices import gl_device, runner_device

__all__ = ["CALIBRATION_SIZES", "Calibration", "KINDS", "Sample", "cache_dir", "calibrate", "calibrate_devices"]

CALIBRATION_SIZES = ((256, 256), (1024, 1024))

_MODELS: dict[str, HistoryModel] = {}  # stamp (JSON) -> the model measured or loaded in this process


@dataclass(frozen=True)
class Calibration:
    """The history model for some devices, and how it was had: loaded from the store
    (``loaded``, with its reason), and which devices' passes and which copies this call
    measured."""

    model: HistoryModel
    gl: Device
    opencl: tuple[Device, ...]
    loaded: Loaded | None
    measured: tuple[str, ...]  # "passes on <id>", "copies <id> -> <id>"


def _samples() -> dict[Sample, PlannedPass]:
    """The passes measured for the cost model: each planned pass type's samples."""
    return {Sample.of(step): step for cls in PASS_TYPES for step in cls.samples()}


def calibrate(renderer, cl_runner, *, more: Sequence = (), repeats: int = 3, use_cache: bool = True) -> DeviceCosts:
    """The history model of GL and ``cl_runner``'s OpenCL device (and of the runners in
    ``more``: a renderer using several devices), as ``auto`` prices passes by: loaded,
    or measured where the stored one lacks a device (about a second per device).
    ``use_cache=False`` measures them again (e.g. after measuring on a busy machine) and
    stores the new history. The DeviceCosts binds GL and ``cl_runner``'s device; the
    model holds every device's history (lamina.frame_costs prices each by its id)."""
    cal = calibrate_devices(renderer, [cl_runner, *more], repeats=repeats, use_cache=use_cache)
    cpu = cal.gl.type is DeviceType.CPU and all(d.type is DeviceType.CPU for d in cal.opencl)
    return DeviceCosts(cal.model, cal.gl.id, cal.opencl[0].id, shares_cpu=cpu)


def calibrate_devices(renderer, cl_runners: Sequence, *, repeats: int = 3, use_cache: bool = True) -> Calibration:
    """The history model of GL and every OpenCL runner in ``cl_runners``, measuring what
    the model in memory or in the store lacks."""
    gl = gl_device(renderer.info)
    cls = [runner_device(r) for r in cl_runners]
    stamp = Stamp(renderer.info.fingerprint, thread_settings(), {d.id: d.driver_version for d in (gl, *cls)})
    key = json.dumps(stamp.to_dict(), sort_keys=True)
    loaded = None
    model = _MODELS.get(key) if use_cache else None
    if model is None:
        loaded = load(stamp)
        model = loaded.model if use_cache else HistoryModel()
    samples = _samples()
    todo_gl = not model.has_passes(gl.id, samples)
    # Devices with one id (the same kind, platform and name: two PoCL pthread devices,
    # two like GPUs) share one history, as StarPU shares a performance model among the
    # workers of one architecture: one speed describes them. The first is measured.
    first = {d.id: (r, d) for r, d in reversed(list(zip(cl_runners, cls)))}
    todo = [(r, d, not model.has_passes(d.id, samples), not (model.has_copies(gl.id, d.id) and model.has_copies(d.id, gl.id)))
            for r, d in first.values()]
    measured: list[str] = []
    if todo_gl or any(p or c for _, _, p, c in todo):
        renderer.gpu.activate()
        if todo_gl:
            model = _measure(renderer, None, gl, None, model, repeats, samples, passes_gl=True)
            measured.append(f"passes on {gl.id}")
        for runner, device, passes, copies in todo:
            if not (passes or copies):
                continue
            try:
                model = _measure(renderer, runner, gl, device, model, repeats, samples, passes_cl=passes, copies=copies)
            except runner.cl.Error as exc:
                raise OpenCLUnavailableError(f"measuring the OpenCL filter kernels failed on {runner.label}: {exc}") from None
            if passes:
                measured.append(f"passes on {device.id}")
            if copies:
                measured.append(f"copies {gl.id} <-> {device.id}")
        kept = dict(loaded.drivers) if loaded is not None and loaded.status is LoadStatus.LOADED else {}
        save(model, Stamp(stamp.fingerprint, stamp.threads, {**kept, **stamp.drivers}))
    _MODELS[key] = model
    return Calibration(model, gl, tuple(cls), loaded, tuple(measured))


def _timed(run: Callable[[], None], finish: Callable[[], None], repeats: int) -> list[float]:
    """Milliseconds of ``repeats`` runs, each finished (CPU clock around finish(): GL timer
    queries do not see llvmpipe's work), after one warm-up run that is not kept."""
    times = []
    for i in range(repeats + 1):
        finish()
        t0 = time.perf_counter()
        run()
        finish()
        if i:
            times.append((time.perf_counter() - t0) * 1000)
    return times


def _measure(renderer, cl_runner, gl: Device, cl: Device | None, model: HistoryModel, repeats: int,
             samples: dict[Sample, PlannedPass], *, passes_gl: bool = False, passes_cl: bool = False,
             copies: bool = False) -> HistoryModel:
    """``model`` with the samples measured at each calibration size: every sample on GL
    (``passes_gl``), on ``cl_runner``'s device (``passes_cl``), and the copies each way
    between GL and it (``copies``)."""
    executor = renderer.executor
    gl_runner, pool, ctx = executor.filter_runner, executor.pool, renderer.gpu.ctx
    rng = np.random.default_rng(0)
    for w, h in CALIBRATION_SIZES:
        img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
        img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
        # The sample image in each format a sample reads (a SpacePass to sRGB reads floats).
        sources = {fmt: _sources(pool, cl_runner, img, fmt) for fmt in ImageFormat}
        src, cl_src = sources[ImageFormat.RGBA8]
        try:
            for sample, step in samples.items():
                units = work_units(step, w, h)
                out_size = image_size(w, h, step.scale)
                reads, writes = sources[input_format(step)], image_format(step)
                if passes_gl:
                    out = pool.acquire(*out_size, writes)
                    try:
                        for ms in _timed(lambda: gl_runner.run_pass(step, [reads[0].texture] * len(step.inputs), out),
                                         ctx.finish, repeats):
                            model = model.observe_pass(sample, gl.id, units, ms)
                    finally:
                        pool.release(out)
                if passes_cl:
                    out = cl_runner.acquire(*out_size, writes)
                    try:
                        for ms in _timed(lambda: cl_runner.run_pass(step, [reads[1]] * len(step.inputs), out),
                                         cl_runner.queue.finish, repeats):
                            model = model.observe_pass(sample, cl.id, units, ms)
                    finally:
                        cl_runner.release(out)
            if copies:
                copy = cl_runner.acquire(w, h)
                try:
                    for ms in _timed(lambda: cl_runner.from_texture(src.texture, copy), ctx.finish, repeats):
                        model = model.observe_copy(gl.id, cl.id, w * h * 4, ms)
                    for ms in _timed(lambda: cl_runner.to_texture(copy, src.texture), ctx.finish, repeats):
                        model = model.observe_copy(cl.id, gl.id, w * h * 4, ms)
                finally:
                    cl_runner.release(copy)
        finally:
            for gl_image, cl_image in sources.values():
                pool.release(gl_image)
                if cl_image is not None:
                    cl_runner.release(cl_image)
    pool.end_frame()
    return model


def _sources(pool, cl_runner, img: np.ndarray, fmt: ImageFormat) -> tuple:
    """``img`` (premultiplied RGBA8) as a GL texture and an OpenCL buffer (None without a
    runner) of format ``fmt`` (floats hold its values / 255)."""
    h, w = img.shape[:2]
    pixels = img if fmt is ImageFormat.RGBA8 else (img / 255.0).astype(np.float32)
    texture = pool.acquire(w, h, fmt)
    texture.texture.write(pixels)
    if cl_runner is None:
        return texture, None
    buffer = cl_runner.acquire(w, h, fmt)
    cl_runner.write(buffer, pixels)
    return texture, buffer
