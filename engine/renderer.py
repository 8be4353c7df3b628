"""Renderer: runs the pipeline for a scene on one GPU context.

style -> compositor decisions (frame graph) -> GL executor -> Frame. A process normally
uses one shared ``default_renderer()`` (one headless EGL context); a window can make its
own with ``Renderer(GPUContext.from_current())``.
"""

from __future__ import annotations

import threading
import time

import moderngl

from .graph import ExecutorFacts, FrameState, RasterCache, build_frame_graph
from .filters.backend import FilterBackend
from .framegraph import FrameGraph
from .request import FrameRequest
from .images import ImageStore
from .frame import Frame
from .gpu import GPUContext, RendererInfo
from .gpu.executor import GLExecutor
from .gpu.apply import install as install_filter_runners
from .gpu.calibrate import calibrate
from .filter_costs import CostModel
from .errors import OpenCLUnavailableError
from .limits import Limits

__all__ = ["Renderer", "default_renderer", "current_limits", "renderer_info"]


class Renderer:
    def __init__(self, gpu: GPUContext | None = None) -> None:
        self.gpu = gpu or GPUContext.headless()
        self.executor = GLExecutor(self.gpu)
        self.images = ImageStore()
        self.state = FrameState()  # property trees, kept textures, the last plan
        self._released = False

    @property
    def raster_cache(self) -> RasterCache:
        """The textures this renderer keeps between frames, by what they hold."""
        return self.state.cache

    @property
    def info(self) -> RendererInfo:
        return self.gpu.info

    @property
    def limits(self) -> Limits:
        return self.gpu.info.limits()

    @property
    def compiles(self) -> int:
        """Shader programs compiled so far on this renderer."""
        return self.executor.programs.compiles

    def warm_up(self) -> int:
        """Compile every shader variant now (an app does this before animating);
        returns how many programs were compiled."""
        self.gpu.activate()
        before = self.compiles
        self.executor.programs.warm_up()
        return self.compiles - before

    def plan(self, scene, request: FrameRequest | None = None, **options) -> FrameGraph:
        """The frame graph this renderer would execute now for ``request`` (a
        FrameRequest, or its fields as keywords: ``t``, ``policy``, ``filter_backend``,
        ``limits``, ``cost_model``). Textures kept from earlier frames are reused where
        their content is unchanged; this records what the new frame keeps."""
        request = FrameRequest.of(request, **options)
        backend = request.backend_for(scene.filter_backend)
        costs, unavailable = request.cost_model, None
        if backend is not FilterBackend.GL:
            try:
                runner = self.executor.opencl_runner  # "opencl" without a device: the error
            except OpenCLUnavailableError as err:
                if backend is FilterBackend.OPENCL:
                    raise
                unavailable = str(err)
            else:
                if backend is FilterBackend.AUTO and costs is None:
                    costs = lambda: self._filter_costs(runner)  # noqa: E731 - measured only if a layer filters
        self.images.begin_frame(scene.file_access)  # the scene decides where its files may be read
        facts = ExecutorFacts(self.executor.has_retained, costs, unavailable)
        with scene.located_errors():  # a missing image names its scene file and JSON path
            return build_frame_graph(scene, request, request.limits or self.limits, self.images, self.state, facts)

    def _filter_costs(self, runner) -> CostModel:
        """The measured cost model for filter_backend "auto" (gpu.calibrate)."""
        return calibrate(self, runner)

    def render(self, scene, request: FrameRequest | None = None, **options) -> Frame:
        """Render ``scene`` for ``request`` (or its fields as keywords, as ``plan``
        takes them); the frame is complete or an error is raised."""
        if self._released:
            raise RuntimeError("this Renderer was released")
        began = time.perf_counter()  # the frame's clock starts with planning (lamina.trace)
        graph = self.plan(scene, request, **options)
        plan_ms = (time.perf_counter() - began) * 1000
        self.gpu.activate()
        try:
            pixels, stats = self.executor.execute(graph, self.images, scene.base_dir, origin=began, frame=True)
        except moderngl.Error:
            self.gpu.check_errors("a failed GL call")  # a typed error when it is memory
            raise
        self.executor.evict_images(self.images.end_frame())
        self.gpu.check_errors("rendering a frame")
        stats.plan_ms = plan_ms
        return Frame(pixels, graph, stats, self.info)

    def drop_caches(self) -> None:
        """Forget retained layer rasters and decoded images: the next frame is a first
        frame again (programs stay compiled)."""
        self.gpu.activate()
        self.executor.drop_retained()
        self.executor.text.release()  # text coverage masks (fonts, layouts and glyphs are per process)
        self.state = FrameState()
        self.executor.evict_images(list(self.executor._images))
        self.images = ImageStore()
        if self.executor._opencl is not None:
            self.executor._opencl.trim()

    def release(self) -> None:
        """Free the GPU objects and the context (the renderer cannot render after)."""
        if not self._released:
            self.gpu.activate()
            self.executor.release()
            self.gpu.release()
            self._released = True

    def __enter__(self) -> "Renderer":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


_default: Renderer | None = None
_lock = threading.Lock()


def default_renderer() -> Renderer:
    """The process-wide renderer (created on first use, one EGL context)."""
    global _default
    with _lock:
        if _default is None:
            _default = Renderer()
        return _default


install_filter_runners(default_renderer)  # filters.apply runs its graphs on the default renderer


def current_limits() -> Limits:
    """The default renderer's limits if it exists, else defaults (no GPU is touched)."""
    return _default.limits if _default is not None else Limits()


def renderer_info() -> RendererInfo:
    """The renderer fingerprint (GL_RENDERER, GL_VERSION) and limits of this machine."""
    return default_renderer().info
