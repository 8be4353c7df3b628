"""What runs on a worker: one task's frames, on one GL context per worker thread.

A dask worker runs tasks in a thread of its own pool, not in the thread a WorkerPlugin's
``setup`` runs in, and an EGL context is current in one thread only: so the renderer is
made lazily in the task thread, on its first task, and kept there for every later task
(``threading.local``; workers run one thread each, so one context per worker process).
With two or more EGL GPU devices, worker i makes it on GPU i mod n (lamina.gpu.egl_devices).
The same code runs in-process for jobs without a cluster, so a serial and a distributed
run make their frames the same way.

Scenes are rebuilt from their bundles in a private mirror folder (one per process,
removed at exit): each image file is written at its own absolute path under the mirror,
and the scene is confined to the mirror's copies of its folder and allowed folders, so
relative ``url()`` paths, ``..`` into an allowed folder and the confinement all work as
on the submitting machine. The last few scenes are kept, so the next chunk of an
animation continues where the previous one left off (its kept textures too).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path

from ..errors import LaminaEnvironmentError, LaminaInputError
from ..file_access import FileAccess
from ..gpu.context import GPUContext
from ..gpu.egl_devices import device_for_worker, egl_devices, worker_ordinal
from ..renderer import Renderer, default_renderer
from ..scene import Scene
from ..scene_file import scene_from_dict
from .jobs import (FailureKind, FrameDone, OutputKind, RenderTask, SceneBundle, SceneFailure, TaskResult,
                   WorkItem)

__all__ = ["run_task", "worker_name", "egl_device"]

_KEEP_SCENES = 4  # scenes kept per thread: an animation's next chunk usually follows soon
_local = threading.local()
_mirror_lock = threading.Lock()
_mirror_root: Path | None = None


def _mirror() -> Path:
    global _mirror_root
    with _mirror_lock:
        if _mirror_root is None:
            _mirror_root = Path(tempfile.mkdtemp(prefix="lamina-batch-"))
            atexit.register(shutil.rmtree, _mirror_root, True)
        return _mirror_root


def _inside(root: Path, absolute: str) -> Path:
    return root / os.path.abspath(absolute).lstrip(os.sep)


def _rebuild(bundle: SceneBundle) -> tuple[Scene, Path]:
    """The bundle's scene, confined to its mirror (made once per bundle and process)."""
    root = _mirror() / bundle.digest
    if not (root / ".complete").exists():
        for path, data in bundle.files:
            target = _inside(root, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        for folder in (bundle.folder, *bundle.allowed):
            _inside(root, folder).mkdir(parents=True, exist_ok=True)
        (root / ".complete").touch()
    # Absolute paths (and file: URLs) the scene wrote name the submitter's files: looked
    # for under the mirror, as relative ones are through its copy of the folder.
    access = replace(FileAccess.confined_to(_inside(root, bundle.folder), [_inside(root, a) for a in bundle.allowed],
                                            scene_file=bundle.scene_file), mirror=root)
    scene = scene_from_dict(json.loads(bundle.text), file_access=access, file=bundle.scene_file)
    return scene, root


def _scene(bundle: SceneBundle) -> tuple[Scene, Path]:
    scenes: OrderedDict = _local.__dict__.setdefault("scenes", OrderedDict())
    if bundle.digest in scenes:
        scenes.move_to_end(bundle.digest)
        return scenes[bundle.digest]
    made = scenes[bundle.digest] = _rebuild(bundle)
    while len(scenes) > _KEEP_SCENES:
        scenes.popitem(last=False)
    return made


def _renderer() -> Renderer:
    """This thread's renderer: the process's default one in the main thread of a process
    that is not a dask worker (an in-process job renders as ``scene.render()`` does),
    else one made here on first use and kept for every later task."""
    renderer = getattr(_local, "renderer", None)
    if renderer is None:
        if threading.current_thread() is threading.main_thread() and worker_name() == "in-process":
            renderer = default_renderer()
        else:  # this thread's own GL context, on this worker's EGL device when there are several GPUs
            device = device_for_worker(worker_ordinal(worker_name()), egl_devices().devices)
            renderer = Renderer(GPUContext.headless(device))
        _local.renderer = renderer
    return renderer


def egl_device() -> int | None:
    """The EGL device this thread's renderer asked for (None: the default; the
    environment's GLCONTEXT_DEVICE_INDEX, when set, overrides it in any case)."""
    renderer = getattr(_local, "renderer", None)
    return renderer.gpu.device_index if renderer is not None else None


def worker_name() -> str:
    """The dask worker's name, or "in-process" outside a dask worker."""
    if "distributed" not in sys.modules:  # not in a dask worker (and importing it costs most of a second)
        return "in-process"
    try:
        from distributed import get_worker  # import here: distributed is an optional extra, present on workers
        return str(get_worker().name)
    except (ImportError, ValueError):
        return "in-process"


def _failure(item: WorkItem, kind: FailureKind, err: BaseException, mirror: Path | None,
             frames: tuple) -> SceneFailure:
    message = str(err)
    if mirror is not None:  # name the files as the scene's author knows them, not the mirror's copies
        message = message.replace(str(mirror), "")
    return SceneFailure(item.bundle.name, item.bundle.scene_file, kind, type(err).__name__, message, frames)


def _run_item(item: WorkItem, output: OutputKind) -> tuple[list[FrameDone], SceneFailure | None]:
    done: list[FrameDone] = []
    mirror = None
    try:
        scene, mirror = _scene(item.bundle)
        renderer = _renderer()
        for spec in item.frames:
            began = time.perf_counter()
            with scene.located_errors():
                frame = scene.render(renderer, t=spec.t, policy=spec.policy)
            if output is OutputKind.PNG:
                out = Path(spec.out)
                frame.save(out)  # atomic (lamina.output_files): whole or absent, and a re-run writes the same bytes
                done.append(FrameDone(item.bundle.name, item.bundle.scene_file, spec.index, str(out),
                                      (time.perf_counter() - began) * 1000))
            else:
                pixels = frame.premultiplied.copy()
                done.append(FrameDone(item.bundle.name, item.bundle.scene_file, spec.index, None,
                                      (time.perf_counter() - began) * 1000, pixels, frame.info))
    except LaminaInputError as err:  # the scene's fault: reported once, never retried
        left = tuple(s.index for s in item.frames[len(done):])
        return done, _failure(item, FailureKind.BAD_INPUT, err, mirror, left)
    except LaminaEnvironmentError as err:
        left = tuple(s.index for s in item.frames[len(done):])
        return done, _failure(item, FailureKind.ENVIRONMENT, err, mirror, left)
    return done, None


def run_task(task: RenderTask) -> TaskResult:
    """Render ``task``'s items in order; typed input errors come back as failures (so
    dask does not retry them), anything else raises (dask retries it)."""
    began = time.perf_counter()
    frames: list[FrameDone] = []
    failures: list[SceneFailure] = []
    for item in task.items:
        done, failure = _run_item(item, task.output)
        frames += done
        if failure is not None:
            failures.append(failure)
    return TaskResult(task.key, task.cost_class, task.predicted_s, time.perf_counter() - began, worker_name(),
                      os.getpid(), tuple(frames), tuple(failures), {"egl_device": egl_device()})
