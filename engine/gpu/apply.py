"""``filters.apply`` on the GPU: the plan runners behind ``filters.runners``.

Each runner builds the one-source graph of ``graph.filter_tasks.apply_graph`` (upload, the
plan's filter passes, the result read back) and runs it with the renderer's GL executor,
the one that renders scenes. The renderer registers them (``install``) with the process's
default renderer, since this layer sits below the renderer and cannot name it.
"""

from __future__ import annotations

from typing import Callable, Protocol

import numpy as np

from ..errors import LaminaInputError, TextureTooLargeError
from ..filters.backend import FilterBackend
from ..filters.plan import FilterPlan, ImageFormat, image_format
from ..filters.runners import register_plan_runner
from ..framegraph import Executor, FrameGraph
from ..graph.filter_tasks import apply_graph
from ..limits import Limits
from . import opencl as cl_filters
from .context import GPUContext
from .executor import GLExecutor

__all__ = ["GraphPlanRunner", "install"]


class RendererLike(Protocol):
    """What a runner needs of a lamina.Renderer."""

    gpu: GPUContext
    executor: GLExecutor

    @property
    def limits(self) -> Limits: ...


class GraphPlanRunner:
    """Runs a FilterPlan as a one-source frame graph on ``executor`` (GL or OpenCL passes)."""

    def __init__(self, executor: Executor, default_renderer: Callable[[], RendererLike]) -> None:
        self.executor = executor
        self.default_renderer = default_renderer

    def graph(self, image: np.ndarray, plan: FilterPlan, *, straight: bool = False) -> FrameGraph:
        """The graph a call runs (plain data: inspect it without a GPU)."""
        return apply_graph(plan, image, self.executor, straight=straight)

    def check_size(self, w: int, h: int, *, renderer: RendererLike | None = None, device: object | None = None,
                   plan: FilterPlan | None = None) -> None:
        """Refuse a ``w`` x ``h`` image the executor cannot hold: past the GL texture limit
        (TextureTooLargeError), or OpenCL's largest buffer (LaminaInputError) for the
        widest image ``plan`` holds (8-bit without a plan)."""
        if self.executor is Executor.OPENCL:
            opencl = cl_filters.default_runner(device)
            passes = plan.passes if plan is not None else ()
            texel = max((image_format(p).texel_bytes for p in passes), default=ImageFormat.RGBA8.texel_bytes)
            if w * h * texel > opencl.device.max_mem_alloc_size:  # (a float linear image: 16 bytes a pixel)
                raise LaminaInputError(
                    f"a {w}x{h} image ({texel} bytes a pixel) is larger than the largest buffer of {opencl.label} "
                    f"({opencl.device.max_mem_alloc_size} bytes): use backend='gl' or another device "
                    f"({cl_filters.DEVICE_ENV})"
                )
            return
        limit = (renderer or self.default_renderer()).limits.max_texture_size
        if w > limit or h > limit:
            raise TextureTooLargeError(f"a {w}x{h} image is larger than this GPU's {limit}x{limit} texture limit")

    def __call__(self, image: np.ndarray, plan: FilterPlan, *, renderer: RendererLike | None = None,
                 device: object | None = None, straight: bool = False) -> np.ndarray:
        renderer = renderer or self.default_renderer()
        h, w = image.shape[:2]
        self.check_size(w, h, renderer=renderer, device=device, plan=plan)
        opencl = cl_filters.default_runner(device) if self.executor is Executor.OPENCL else None
        graph = self.graph(image, plan, straight=straight)
        renderer.gpu.activate()
        out, _ = renderer.executor.execute(graph, opencl=opencl, timed=False)  # no per-pass waits
        renderer.gpu.check_errors("filters.apply")
        return out


def install(default_renderer: Callable[[], RendererLike]) -> None:
    """Register the GL and OpenCL plan runners for ``filters.apply``; renderers it is not
    given come from ``default_renderer()``."""
    register_plan_runner(FilterBackend.GL, GraphPlanRunner(Executor.GL, default_renderer))
    register_plan_runner(FilterBackend.OPENCL, GraphPlanRunner(Executor.OPENCL, default_renderer))
