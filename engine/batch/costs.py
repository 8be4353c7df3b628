"""Costs up front: each frame is costed from its plan (``scene.plan()``: no GPU, no
pixels drawn) as pixels x passes, and frames are grouped into tasks worth about a
second, so that a task is worth dask's per-task overhead and a job still splits into
enough tasks to keep every worker busy to the end.

The model is linear and deliberately rough: a fixed cost per frame (scheduling the
passes, the read-back call), a cost per pixel a pass writes, and a cost per output pixel
(un-premultiply and PNG encode). Its constants were fitted on this machine kind
(llvmpipe, 2 cores) on the golden suite, first frames included (a new shader
variant costs tens of ms of JIT in each process); the job summary prints predicted against
measured time per cost class, which says how far off it is elsewhere. Dask then
corrects for the error at run time: task keys carry the class, so its duration estimates
and work stealing learn each class from the first tasks that finish.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Sequence

from ..scene import Scene
from .jobs import CostClass, FrameSpec, OutputKind, RenderTask, SceneBundle, WorkItem

__all__ = ["CostModel", "FrameCost", "frame_cost", "cost_class", "make_tasks"]

# Upper bounds, in ms a frame, of each class but the last (CostClass's comments).
_CLASS_BOUNDS = ((4.0, CostClass.TINY), (16.0, CostClass.LIGHT), (64.0, CostClass.MEDIUM), (256.0, CostClass.HEAVY))


@dataclass(frozen=True)
class CostModel:
    """Predicted ms of a frame: ``fixed_ms`` + ``pass_px_ms`` per pixel its passes write
    + ``out_px_ms`` per pixel of the frame. ``task_s`` is the time a task should be
    worth; ``tasks_per_worker`` how many tasks per worker a job should at least make
    (so the last ones balance), as long as each is worth ``min_task_s``."""

    fixed_ms: float = 20.0
    pass_px_ms: float = 2e-5
    out_px_ms: float = 2e-4
    task_s: float = 1.0
    min_task_s: float = 0.05
    tasks_per_worker: int = 4


@dataclass(frozen=True)
class FrameCost:
    """What a frame's plan says of its cost: passes, pixels they write, frame pixels."""

    passes: int
    pass_pixels: int
    out_pixels: int
    predicted_ms: float


def frame_cost(scene: Scene, spec: FrameSpec, model: CostModel = CostModel()) -> FrameCost:
    """Cost one frame from its plan (no GPU work)."""
    graph = scene.plan(t=spec.t, policy=spec.policy)
    pass_px = sum(p.pixels for p in graph.passes)
    out_px = scene.width * scene.height
    ms = model.fixed_ms + model.pass_px_ms * pass_px + model.out_px_ms * out_px
    return FrameCost(len(graph.passes), pass_px, out_px, ms)


def animation_cost(scene: Scene, frames: Sequence[FrameSpec], model: CostModel = CostModel()) -> float:
    """Predicted ms per frame of an animation: the mean of its first, middle and last
    frames' costs (planning every frame of a 600-frame job would cost seconds)."""
    picks = sorted({0, len(frames) // 2, len(frames) - 1}) if frames else []
    costs = [frame_cost(scene, frames[i], model).predicted_ms for i in picks]
    return sum(costs) / len(costs) if costs else 0.0


def cost_class(frame_ms: float) -> CostClass:
    for bound, cls in _CLASS_BOUNDS:
        if frame_ms < bound:
            return cls
    return CostClass.HUGE


def make_tasks(
    work: Sequence[tuple[SceneBundle, Sequence[FrameSpec], float]],
    *,
    output: OutputKind,
    workers: int,
    model: CostModel = CostModel(),
    job: str | None = None,
) -> list[RenderTask]:
    """Group ``work`` — (bundle, frames, predicted ms per frame) per scene — into tasks.

    A task's budget is ``task_s``, less when the job is small (at least
    ``tasks_per_worker`` tasks per worker, none under ``min_task_s``). An animation's
    frames split into runs of consecutive frames; small scenes of one cost class are
    packed together (a task per scene would cost more in overhead than in rendering)."""
    job = job or uuid.uuid4().hex[:8]
    total_s = sum(len(frames) * ms for _, frames, ms in work) / 1000
    budget = max(model.min_task_s, min(model.task_s, total_s / max(1, workers * model.tasks_per_worker)))
    tasks: list[RenderTask] = []
    # Pieces: (class, bundle, frames, predicted s) — an animation's runs, or a whole still.
    pieces: list[tuple[CostClass, SceneBundle, tuple[FrameSpec, ...], float]] = []
    for bundle, frames, ms in work:
        cls = cost_class(ms)
        per_task = max(1, int(budget * 1000 // max(ms, 1e-3)))
        for i in range(0, len(frames), per_task):
            run = tuple(frames[i:i + per_task])
            pieces.append((cls, bundle, run, len(run) * ms / 1000))

    def emit(cls: CostClass, group: list[tuple[SceneBundle, tuple[FrameSpec, ...], float]]) -> None:
        kind = "frames" if any(len(f) > 1 or f[0].index is not None for _, f, _ in group) else "scenes"
        key = f"lamina-{kind}-{cls}-{len(tasks):05d}-{job}"
        items = tuple(WorkItem(b, f) for b, f, _ in group)
        tasks.append(RenderTask(key, cls, sum(s for _, _, s in group), items, output, job))

    open_groups: dict[CostClass, list] = {}
    for cls, bundle, run, s in pieces:
        group = open_groups.setdefault(cls, [])
        # A relative tolerance: the budget is itself a sum of the same predictions, summed in
        # another order, so work that exactly fills it must not spill into a task of its own.
        if group and sum(g[2] for g in group) + s > budget * (1 + 1e-9):
            emit(cls, group)
            group = open_groups[cls] = []
        group.append((bundle, run, s))
    for cls, group in open_groups.items():
        if group:
            emit(cls, group)
    return tasks
