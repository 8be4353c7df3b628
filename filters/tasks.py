"""Filter plans as render-task graph nodes: the one place a FilterPlan becomes
FilterPass and TransferPass tasks, for scenes (the compositor's filtered surfaces) and
for ``filters.apply`` (a one-source graph: upload, filter passes, result).

Each planned pass becomes a FilterPass on the executor its placement chose
(``filters.backend.place``); wherever an image must cross between GL textures and
OpenCL buffers a TransferPass copies it, once per image and side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..framegraph import Executor, FilterPass, FrameGraph, Pass, TextureDesc, TextureRole, TransferPass, UploadPass

from .backend import FilterBackend, Placement, place
from .plan import FilterPlan, image_size

__all__ = ["FilterTasks", "filter_tasks", "apply_graph", "APPLY_OWNER"]

APPLY_OWNER = "apply"  # the owner (layer id) of the tasks in a filters.apply graph


@dataclass(frozen=True)
class FilterTasks:
    """The tasks of one plan, in execution order, and the texture holding its result."""

    passes: tuple[Pass, ...]
    result: TextureDesc


def filter_tasks(
    plan: FilterPlan,
    source: TextureDesc,
    placement: Placement,
    owner: str,
    *,
    result_texture: Callable[[int, int], TextureDesc] | None = None,
    result_on: Executor = Executor.GL,
) -> FilterTasks:
    """The tasks that run ``plan`` on ``source`` for ``owner`` (a layer id: it names the
    tasks and their textures), each pass on the executor ``placement`` gives it.

    The result ends on ``result_on`` (copied there if the last pass ran elsewhere);
    ``result_texture(w, h)``, when given, makes the texture that holds it (a scene keeps
    a filter's result between frames under a name of its cache's)."""
    passes: list[Pass] = []
    images = {"source": source}
    copies: dict[tuple[str, Executor], TextureDesc] = {}

    def on(name: str, location: Executor) -> TextureDesc:
        t = images[name]
        if t.location is location:
            return t
        if (name, location) not in copies:
            copy = TextureDesc(f"{t.name}@{location.short}", t.width, t.height, TextureRole.FILTER_OUTPUT,
                               location=location)
            passes.append(TransferPass(f"transfer:{owner}:{name}:{t.location.short}-{location.short}", owner, copy, t))
            copies[name, location] = copy
        return copies[name, location]

    last = len(plan.passes)
    for i, (step, executor, why) in enumerate(zip(plan.passes, placement.executors, placement.why), 1):
        w, h = image_size(source.width, source.height, step.scale)
        if i == last and result_texture is not None and executor is result_on:
            out = result_texture(w, h)
        else:
            out = TextureDesc(f"filter:{owner}:{step.output}", w, h, TextureRole.FILTER_OUTPUT, location=executor)
        inputs = tuple(on(name, executor) for name in step.inputs)
        passes.append(FilterPass(f"filter:{owner}:{i}:{step.kind}", owner, out, inputs, step, executor=executor, why=why))
        images[step.output] = out
    result = images[plan.output]
    if result.location is not result_on:
        w, h = result.width, result.height
        back = (result_texture(w, h) if result_texture is not None
                else TextureDesc(f"filter:{owner}:result", w, h, TextureRole.FILTER_OUTPUT, location=result_on))
        passes.append(TransferPass(f"transfer:{owner}:result:{result.location.short}-{result_on.short}", owner, back, result))
        result = back
    return FilterTasks(tuple(passes), result)


def apply_graph(plan: FilterPlan, image: np.ndarray, executor: Executor) -> FrameGraph:
    """The graph ``filters.apply`` runs: upload the premultiplied ``image`` where
    ``executor`` works, run every pass there, read the result back from there (the
    graph's output; with no passes that is the uploaded image itself)."""
    h, w = image.shape[:2]
    source = TextureDesc(f"{APPLY_OWNER}:source", w, h, TextureRole.UPLOAD, location=executor)
    upload = UploadPass(f"upload:{APPLY_OWNER}", APPLY_OWNER, source, image)
    backend = FilterBackend.OPENCL if executor is Executor.OPENCL else FilterBackend.GL
    tasks = filter_tasks(plan, source, place(plan, w, h, backend), APPLY_OWNER, result_on=executor)
    return FrameGraph(w, h, [upload, *tasks.passes], tasks.result, policy="filters.apply")
