"""Filter plans as render-task graph nodes: the one place a FilterPlan becomes
FilterPass and TransferPass tasks, for scenes (the compositor's filtered surfaces) and
for ``filters.apply`` (a one-source graph: upload, filter passes, result).

Each planned pass becomes a FilterPass on the executor its placement chose
(``lamina.filter_costs.place``); wherever an image must cross between GL textures and
OpenCL buffers a TransferPass copies it, once per image and side.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ..filters.backend import FilterBackend
from ..filters.plan import ColorPass, CostKind, FilterPlan, image_format, image_size
from ..framegraph import Executor, FilterPass, FrameGraph, NoPolicy, Pass, TextureDesc, TextureRole, TransferPass, UploadPass
from ..filter_costs import Placement, place

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
                               format=t.format, location=location)
            passes.append(TransferPass(f"transfer:{owner}:{name}:{t.location.short}-{location.short}", owner, copy, t))
            copies[name, location] = copy
        return copies[name, location]

    last = len(plan.passes)
    for i, (step, executor, why) in enumerate(zip(plan.passes, placement.executors, placement.why), 1):
        w, h = image_size(source.width, source.height, step.scale)
        if i == last and result_texture is not None and executor is result_on:
            out = result_texture(w, h)
        else:
            out = TextureDesc(f"filter:{owner}:{step.output}", w, h, TextureRole.FILTER_OUTPUT, format=image_format(step),
                              location=executor)
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


def apply_graph(plan: FilterPlan, image: np.ndarray, executor: Executor, *, straight: bool = False) -> FrameGraph:
    """The graph ``filters.apply`` runs: upload ``image`` where ``executor`` works, run
    every pass there, read the result back from there (the graph's output; with no
    passes and premultiplied pixels that is the uploaded image itself).

    ``image`` is premultiplied, or straight RGBA when ``straight``: then the upload and
    the result are straight textures (``TextureDesc.straight``), so the passes that read
    the upload premultiply it as they read and the last pass un-premultiplies as it
    writes: the conversions cost no pass of their own, and no host loop. A plan with no
    passes gets one that converts and nothing else (``alpha_pass``)."""
    h, w = image.shape[:2]
    source = TextureDesc(f"{APPLY_OWNER}:source", w, h, TextureRole.UPLOAD, location=executor, straight=straight)
    upload = UploadPass(f"upload:{APPLY_OWNER}", APPLY_OWNER, source, image)
    backend = FilterBackend.OPENCL if executor is Executor.OPENCL else FilterBackend.GL
    result_texture = None
    if straight:
        if not plan.passes or not _premultiplies_on_read(plan):
            # Convert first (and with no passes, that is all): the rest reads premultiplied.
            first = alpha_pass("source", "premultiplied")
            renamed = tuple(replace(p, inputs=tuple("premultiplied" if i == "source" else i for i in p.inputs))
                            for p in plan.passes)
            plan = replace(plan, passes=(first, *renamed), output=plan.output if plan.passes else first.output)
        result_texture = lambda rw, rh: TextureDesc(f"filter:{APPLY_OWNER}:result", rw, rh,  # noqa: E731
                                                    TextureRole.FILTER_OUTPUT, location=executor, straight=True)
    tasks = filter_tasks(plan, source, place(plan, w, h, backend), APPLY_OWNER, result_texture=result_texture,
                         result_on=executor)
    return FrameGraph(w, h, [upload, *tasks.passes], tasks.result, policy=NoPolicy("filters.apply"))


def alpha_pass(source: str, output: str) -> ColorPass:
    """A colour pass of no steps: it only takes its input through premultiplied 8 bits,
    exactly (premultiply, divide out alpha, multiply it back in: the float error is far
    below the half unit that rounding to 8 bits removes). On a straight source with a
    straight result it is the round trip that filters.apply of an empty chain returns."""
    return ColorPass((source,), output, (), 1.0)


def _premultiplies_on_read(plan: FilterPlan) -> bool:
    """Whether the passes that read the source can premultiply it as they read: each
    must read it as its first input (as the planner's passes do) and read each texel
    once. A pass priced by its taps (a blur) reads every texel 2 r + 1 times: converting
    once, in a pass of its own, is cheaper there (measured at 1080p for a blur: +7 % for
    the pass, +17 % fused)."""
    return all("source" not in p.inputs[1:] and not ("source" in p.inputs and p.cost is CostKind.PIXEL_TAPS)
               for p in plan.passes)
