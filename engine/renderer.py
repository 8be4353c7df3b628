"""Renderer: runs the pipeline for a scene on one GPU context.

style -> compositor decisions (frame graph) -> GL executor -> Frame. A process normally
uses one shared ``default_renderer()`` (one headless EGL context); a window can make its
own with ``Renderer(GPUContext.from_current())``.
"""

from __future__ import annotations

import threading

import moderngl

from .compositor import build_frame_graph
from .compositor.policy import check_policy
from .compositor.cache import RasterCache
from .images import ImageStore
from .frame import Frame
from .gpu import GPUContext, RendererInfo
from .gpu.executor import GLExecutor
from .gpu.apply import install as install_filter_runners
from .errors import OpenCLUnavailableError
from .limits import Limits

__all__ = ["Renderer", "default_renderer", "current_limits", "renderer_info"]


class Renderer:
    def __init__(self, gpu: GPUContext | None = None) -> None:
        self.gpu = gpu or GPUContext.headless()
        self.executor = GLExecutor(self.gpu)
        self.images = ImageStore()
        self.raster_cache = RasterCache()
        self._released = False

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

    def plan(self, scene, t: float = 0.0, policy: str = "browser", filter_backend: str | None = None):
        """The frame graph this renderer would execute now. Policy "all" keeps every
        layer's raster as its own texture and reuses it while unchanged; "none" keeps
        nothing between frames and rasters every layer every frame, as software
        rendering does. ``filter_backend`` ("gl", "opencl", "auto"; default: the
        scene's) says where filter passes run (filters.backend)."""
        from .filters.backend import check_backend

        check_policy(policy)
        backend = check_backend(filter_backend or getattr(scene, "filter_backend", "gl"))
        costs, unavailable = None, None
        if backend != "gl":
            try:
                runner = self.executor.opencl_runner  # "opencl" without a device: the error
            except OpenCLUnavailableError as err:
                if backend == "opencl":
                    raise
                unavailable = str(err)
            else:
                if backend == "auto":
                    costs = lambda: self._filter_costs(runner)  # noqa: E731 - measured only if a layer filters
        self.images.begin_frame()
        cache = self.raster_cache if policy != "none" else None  # "none" keeps nothing
        return build_frame_graph(scene, self.limits, self.images, t, cache, self.executor.has_retained, policy,
                                 backend, costs, unavailable)

    def _filter_costs(self, runner):
        """The measured cost model for filter_backend "auto" (filters.backend.calibrate)."""
        from .filters.backend import calibrate

        return calibrate(self, runner)

    def render(self, scene, t: float = 0.0, policy: str = "browser", filter_backend: str | None = None) -> Frame:
        """Render ``scene`` at time ``t`` (seconds, for its animations) under a
        compositing ``policy``; the frame is complete or an error is raised."""
        if self._released:
            raise RuntimeError("this Renderer was released")
        graph = self.plan(scene, t, policy, filter_backend)
        self.gpu.activate()
        try:
            premultiplied, stats = self.executor.execute(graph, self.images, scene.base_dir)
        except moderngl.Error:
            self.gpu.check_errors("a failed GL call")  # a typed error when it is memory
            raise
        self.executor.evict_images(self.images.end_frame())
        self.gpu.check_errors("rendering a frame")
        return Frame(premultiplied, graph, stats, self.info)

    def drop_caches(self) -> None:
        """Forget retained layer rasters and decoded images: the next frame is a first
        frame again (programs stay compiled)."""
        self.gpu.activate()
        self.executor.drop_retained()
        self.raster_cache = RasterCache()
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
