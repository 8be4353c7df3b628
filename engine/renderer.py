"""Renderer: runs the pipeline for a scene on one GPU context.

style -> compositor decisions (frame graph) -> GL executor -> Frame. A thread normally
uses its ``default_renderer()`` (one headless EGL context per thread); a window can make
its own with ``Renderer(GPUContext.from_current())``.

Threads and processes: a renderer belongs to the thread that made it (its GL context is
current in one thread at a time, and what it keeps between frames is not locked), so
using it — or reading a frame's pixels still on its GPU — from another thread raises
RendererThreadError; each thread's ``default_renderer()`` is its own, so threads that
render their own scenes all get exact pixels. A released renderer raises
RendererReleasedError, and ``default_renderer()`` then makes a new one. A process forked
after a GL context was made cannot use GL (ForkedContextError: the driver's state does
not survive fork); spawned processes make their own. A renderer dropped without
``release()`` is released when it is collected, in its own thread.
"""

from __future__ import annotations

import math
import os
import threading
import time
import weakref
from typing import Sequence

import moderngl

from .graph import ExecutorFacts, FrameState, RasterCache, build_frame_graph
from .filters.backend import FilterBackend
from .framegraph import Decision, Executor, FrameGraph
from .request import FrameRequest
from .images import ImageStore
from .frame import Frame
from .gpu import GPUContext, RendererInfo
from .gpu.executor import GLExecutor
from .gpu.opencl import CLFilterRunner
from .gpu.apply import install as install_filter_runners
from .gpu.calibrate import calibrate
from .cost_history import DeviceCosts
from .cost_feedback import FeedbackState, observe
from .devices import Device
from .filter_costs import FilterCostModel
from .frame_costs import CorrectedModel
from .gpu.device_set import opencl_devices_in_use
from .errors import LaminaInputError, OpenCLDeviceError, OpenCLUnavailableError, RendererReleasedError, RendererUseError
from .limits import Limits

__all__ = ["Renderer", "default_renderer", "current_limits", "renderer_info"]

# The style fields that make a layer filter (their passes are what "auto" places).
_FILTER_FIELDS = ("filter", "backdrop_filter")


class Renderer:
    def __init__(self, gpu: GPUContext | None = None, *, opencl_devices: str | Sequence[str] | None = None) -> None:
        """A renderer on ``gpu`` (default: a headless context of its own).
        ``opencl_devices``: the OpenCL devices filter work may run on, ``"all"`` or "P:D"
        indices ("0:0,0:1", or a list); default ``LAMINA_OPENCL_DEVICES``, else the one
        selected device, as always (gpu.device_set). Read here, once: a bad value is an
        OpenCLDevicesError naming it."""
        _release_dropped_here()
        self.opencl_devices: tuple[Device, ...] = opencl_devices_in_use(opencl_devices)  # () : the selected one
        self.gpu = gpu or GPUContext.headless()
        self.executor = GLExecutor(self.gpu)
        self.images = ImageStore()
        self.state = FrameState()  # property trees, kept textures, the last plan
        self._cost_model: tuple[tuple[CLFilterRunner, ...], DeviceCosts] | None = None  # "auto"'s, per runner set
        # OpenCL runners whose device failed mid-frame -> why: out of auto's schedule.
        self._failed_devices: dict[int, str] = {}
        self._no_filter_at: tuple[weakref.ref, int] | None = None  # see _may_filter
        # "auto"'s correction from measurement (lamina.cost_feedback), for the base model
        # it was made for: what frames measured, and the load factors found.
        self._feedback: FeedbackState | None = None
        self._simulated_load: dict[Executor, float] = {}
        self._released = False
        # Dropped without release(): its context and GL objects go when it is collected
        # (each renderer holds an EGL context of some megabytes). Not at exit: the
        # driver tears its contexts down itself.
        self._finalizer = weakref.finalize(self, _dropped, self.gpu, self.executor)
        self._finalizer.atexit = False

    def _check_use(self) -> None:
        """Raise a RendererUseError where this renderer cannot be used: released, in a
        thread other than its own, in a forked child (lamina.errors)."""
        if self._released:
            raise RendererReleasedError("this Renderer was released: make a new one (lamina.Renderer()) or use "
                                        "lamina.default_renderer()")
        self.gpu.check_owner()

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
        self._check_use()
        self.gpu.activate()
        before = self.compiles
        self.executor.programs.warm_up()
        return self.compiles - before

    def snapshot(self, scene, request: FrameRequest | None = None, **options) -> ExecutorFacts:
        """What planning ``scene`` for ``request`` may know of this renderer's executor,
        taken now, before planning: the textures it keeps, its limits, and where filter
        passes can run. For filter_backend "auto" that is the cost model, made here when
        a layer of the scene may filter and this renderer holds none yet: loaded from
        the history stored under LAMINA_CACHE_DIR, or measured on the GPU
        (lamina.gpu.calibrate), then corrected by what earlier frames measured
        (lamina.cost_feedback). Planning with it does no GPU work and asks the executor
        nothing."""
        self._check_use()  # (its kept state is this thread's)
        request = FrameRequest.of(request, **options)
        backend = request.backend_for(scene.filter_backend)
        costs, unavailable = request.cost_model, None
        if backend is not FilterBackend.GL and self.opencl_devices:
            return self._snapshot_devices(scene, backend, costs)
        if backend is not FilterBackend.GL:
            try:
                runner = self.executor.opencl_runner  # "opencl" without a device: the error
            except OpenCLUnavailableError as err:
                if backend is FilterBackend.OPENCL:
                    raise
                unavailable = str(err)
            else:
                failed = self._failed_devices.get(id(runner))
                if failed is not None and backend is FilterBackend.AUTO:
                    return ExecutorFacts(self.executor.retained_names(), self.limits, None,
                                         f"taken out of the schedule: {failed}")
                if backend is FilterBackend.AUTO and costs is None:
                    try:
                        costs = self._filter_costs(scene, runner)
                    except OpenCLUnavailableError as err:  # its kernels failed to run
                        unavailable = str(err)
                if backend is FilterBackend.AUTO and costs is not None and unavailable is None:
                    costs = self._corrected(costs)
        # (A forced placement plans on GL, then moves passes to the devices in use: it is
        # handed them too.)
        return ExecutorFacts(self.executor.retained_names(), self.limits, costs, unavailable, self.opencl_devices)

    def _snapshot_devices(self, scene, backend: FilterBackend, costs) -> ExecutorFacts:
        """``snapshot``'s facts when the renderer uses several OpenCL devices: those
        whose runner works and that have not failed, each by its index, and for "auto"
        the cost model over GL and all of them (one calibration, before planning)."""
        retained = self.executor.retained_names()
        runners, why = [], []
        for device in self.opencl_devices:
            try:
                runner = self.executor.runner_for(device.index)
            except OpenCLUnavailableError as err:
                if backend is FilterBackend.OPENCL:
                    raise
                why.append(str(err))
                continue
            failed = self._failed_devices.get(id(runner))
            if failed is not None and backend is FilterBackend.AUTO:
                why.append(f"{runner.label} taken out of the schedule: {failed}")
                continue
            runners.append(runner)
        if not runners:
            return ExecutorFacts(retained, self.limits, None, "; ".join(why) or "no OpenCL device in use")
        if backend is FilterBackend.AUTO and costs is None:
            try:
                costs = self._filter_costs(scene, tuple(runners))
            except OpenCLUnavailableError as err:  # its kernels failed to run
                return ExecutorFacts(retained, self.limits, None, str(err))
        if backend is FilterBackend.AUTO and costs is not None:
            costs = self._corrected(costs)
        used = tuple(d for d in self.opencl_devices if d.index in {r.index for r in runners})
        return ExecutorFacts(retained, self.limits, costs, None, used)

    def plan(self, scene, request: FrameRequest | None = None, *, snapshot: ExecutorFacts | None = None,
             **options) -> FrameGraph:
        """The frame graph this renderer would execute now for ``request`` (a
        FrameRequest, or its fields as keywords: ``t``, ``policy``, ``filter_backend``,
        ``limits``, ``cost_model``). Textures kept from earlier frames are reused where
        their content is unchanged. The planner sees the executor through ``snapshot``
        (default: ``self.snapshot(...)`` now).

        A look: it records nothing. What the renderer keeps between frames (its kept
        textures and what they hold, the frame texture's draws for the next damage rect,
        the last frame's plan) stays that of the last frame it rendered, since a plan that
        never executed made none of the textures it names; only ``render`` records, what
        it executes. The next frame after a look is planned from scratch (the look brought
        the property trees to ``scene``, so the last frame's plan cannot tell what changed
        since); it still reuses the kept textures. Run a frame with ``render``: executing a
        look's graph yourself (``executor.execute``) draws into textures this renderer
        keeps without its knowing (``drop_caches()`` after it)."""
        self._check_use()  # (planning reads this renderer's kept state)
        request = FrameRequest.of(request, **options)
        state = self.state
        kept, fast_frames, scales = state.cache.snapshot(), state.fast_frames, dict(state.raster_scales)
        try:
            return self._plan(scene, request, snapshot)
        finally:
            state.cache.restore(kept)
            state.fast_frames, state.last, state.raster_scales = fast_frames, None, scales

    def _plan(self, scene, request: FrameRequest, snapshot: ExecutorFacts | None = None) -> FrameGraph:
        """``plan``'s graph, recording what the new frame keeps (self.state): for the
        frame ``render`` executes next, and for nothing else."""
        facts = snapshot if snapshot is not None else self.snapshot(scene, request)
        self.images.begin_frame(scene.file_access)  # the scene decides where its files may be read
        with scene.planning, scene.located_errors():  # (one thread's renderer plans it at a time)
            return build_frame_graph(scene, request, request.limits or facts.limits, self.images, self.state, facts)

    def _filter_costs(self, scene, runners: CLFilterRunner | tuple[CLFilterRunner, ...]) -> DeviceCosts | None:
        """The cost model filter_backend "auto" places passes by: the history model of GL
        and the runners' OpenCL devices (lamina.cost_history, gpu.calibrate: each
        measured before planning, unless the stored history has it), made once per set
        of runners, and only once a layer may filter (None until then: with no filter
        there is no pass to place, and nothing worth a second of measuring)."""
        runners = runners if isinstance(runners, tuple) else (runners,)
        held = self._cost_model
        if held is not None and len(held[0]) == len(runners) and all(a is b for a, b in zip(held[0], runners)):
            return held[1]
        if not self._may_filter(scene):
            return None
        model = calibrate(self, runners[0], more=runners[1:])
        self._cost_model = (runners, model)
        return model

    def _corrected(self, costs: FilterCostModel) -> FilterCostModel:
        """``costs`` as measured frames corrected it: by the feedback state held for it,
        else uncorrected (a fresh state's model). Records nothing: a look (``plan``)
        with another model must not reset what rendered frames taught."""
        held = self._feedback
        return (held if held is not None and held.base is costs else FeedbackState.start(costs)).model()

    def _learn(self, graph: FrameGraph, stats, costs: FilterCostModel | None) -> None:
        """Feed a rendered frame's measured filter pass times to the correction state of
        the model it was planned by (``costs``, the snapshot's: a new state when the base
        model changed, a new calibration or another request model). A frame that compiled
        shader programs is skipped: its passes' times hold the JIT."""
        if not isinstance(costs, CorrectedModel) or graph.schedule is None or stats.compiles:
            return
        held = self._feedback
        if held is None or held.base is not costs.base:
            held = FeedbackState.start(costs.base)
        moved = graph.corrections.moved() if graph.corrections is not None else {}
        measured = stats.pass_ms
        if self._simulated_load:  # (teaching: what the correction learns from, not the frame's stats)
            ran_on = stats.ran_on
            executor_of = {p.name: ran_on.get(p.name) or p.executor for p in graph.filter_passes()}
            measured = {name: ms * self._simulated_load.get(executor_of.get(name), 1.0) for name, ms in measured.items()}
        self._feedback = held.update(observe(graph, measured, stats.ran_on), moved)

    @property
    def simulated_load(self) -> dict[Executor, float]:
        """A pretended load, for teaching and what-if runs: each executor's factor on the
        filter pass times "auto"'s correction from measurement learns from (its frames'
        own stats stay as measured). On a machine whose GL and OpenCL both run on the
        CPU a real load slows both alike, and rightly nothing moves; this shows what the
        scheduler does when one device alone slows (the gl-vs-opencl demo's switch)."""
        return dict(self._simulated_load)

    @simulated_load.setter
    def simulated_load(self, factors: "dict[Executor | str, float]") -> None:
        parsed: dict[Executor, float] = {}
        for key, factor in dict(factors).items():
            try:
                executor = Executor.of(key)
            except ValueError:
                raise LaminaInputError(f"simulated_load: unknown executor {key!r} (gl or opencl)") from None
            if not (isinstance(factor, (int, float)) and math.isfinite(factor) and 0 < factor <= 1000):
                raise LaminaInputError(f"simulated_load[{executor.value}]: {factor!r} is not a factor in (0, 1000]")
            if factor != 1:
                parsed[executor] = float(factor)
        self._simulated_load = parsed

    @property
    def feedback(self) -> FeedbackState | None:
        """The correction state of filter_backend "auto" (None before an auto frame)."""
        return self._feedback

    def _may_filter(self, scene) -> bool:
        """May a layer of ``scene`` filter? Read from the layers as declared (a filter or
        backdrop-filter in a style or in an animation's keyframes), not from the property
        trees: those are what planning makes of them, so before planning they still hold
        the last frame. Only the layers changed since a look that found none are looked
        at again (the scene's change log), so an unchanged scene costs nothing."""
        seen = self._no_filter_at  # (scene, version) where no layer filtered
        changed = scene.changes_since(seen[1]) if seen is not None and seen[0]() is scene else None
        if any(_declares_filter(layer) for layer in (scene.layers() if changed is None else changed)):
            return True
        self._no_filter_at = (weakref.ref(scene), scene.version)
        return False

    def render(self, scene, request: FrameRequest | None = None, **options) -> Frame:
        """Render ``scene`` for ``request`` (or its fields as keywords, as ``plan``
        takes them); the frame is complete or an error is raised."""
        self._check_use()
        _release_dropped_here()  # (a safe point: this renderer activates its context below)
        began = time.perf_counter()  # the frame's clock starts with planning (lamina.trace)
        request = FrameRequest.of(request, **options)
        facts = self.snapshot(scene, request)  # first: a cost model is measured there
        graph = self._plan(scene, request, facts)
        plan_ms = (time.perf_counter() - began) * 1000
        self.gpu.activate()
        textures: dict = {}  # what the graph's capture passes read back (capture_textures)
        try:
            try:
                pixels, stats = self.executor.execute(graph, origin=began, frame=True, captures=textures)  # the graph holds its images
            except OpenCLDeviceError as err:
                if request.backend_for(scene.filter_backend) is not FilterBackend.AUTO:
                    raise  # OpenCL was asked for: no other device may stand in
                # auto placed work there: the device leaves the schedule, and the frame
                # is planned again from scratch and drawn on the others. The failed
                # execution let go of every texture it wrote (retained_names no longer
                # has them), so the new plan draws them again.
                self._failed_devices[id(self._failed_runner(err))] = str(err)
                self.state.last = None
                facts = self.snapshot(scene, request)
                graph = self._plan(scene, request, facts)
                graph.decisions.append(Decision("root", f"warning: {err}; the device is taken out of the schedule "
                                                        "and the frame was drawn again without it"))
                textures.clear()
                pixels, stats = self.executor.execute(graph, origin=began, frame=True, captures=textures)
        except moderngl.Error:
            self.gpu.check_errors("a failed GL call")  # a typed error when it is memory
            raise
        self.executor.evict_images(self.images.end_frame())  # uploads of images the scene no longer shows
        self._learn(graph, stats, facts.filter_costs)  # measured times correct the next frames' prices
        self.gpu.check_errors("rendering a frame")
        return Frame(pixels, graph, stats, self.info, plan_ms, textures)  # the frame owns its stats from here

    def _failed_runner(self, err: OpenCLDeviceError) -> CLFilterRunner:
        """The runner of the device ``err`` names (its label), among those this renderer
        uses; its own when it uses one."""
        if self.opencl_devices:
            for device in self.opencl_devices:
                runner = self.executor.runner_for(device.index)
                if runner.label == err.device:
                    return runner
        return self.executor.opencl_runner

    def drop_caches(self) -> None:
        """Forget retained layer rasters and decoded images: the next frame is a first
        frame again (programs stay compiled)."""
        self._check_use()
        self.gpu.activate()
        self.executor.drop_retained()
        self.executor.text.release()  # text coverage masks (fonts, layouts and glyphs are per process)
        self.state = FrameState()
        self.executor.evict_images(list(self.executor._images))
        self.images = ImageStore()
        self.executor.drop_pictures()
        for runner in {id(r): r for r in (self.executor._opencl, *self.executor._runners.values()) if r is not None}.values():
            runner.trim()  # (their feImage pictures too)

    def release(self) -> None:
        """Free the GPU objects and the context (the renderer cannot render after)."""
        if not self._released:
            self.gpu.check_owner()  # (from another thread: an error, and it stays usable)
            self._finalizer.detach()
            _release_dropped(self.gpu, self.executor)
            self._released = True

    def __enter__(self) -> "Renderer":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _release_dropped(gpu: GPUContext, executor: GLExecutor) -> None:
    """Free a renderer's GL objects and context (release(), or after its collection)."""
    gpu.activate()
    executor.release()
    gpu.release()


# Renderers collected without release(): their GL objects are freed at the next safe point
# in the thread that made them (a new renderer, a render), not by the collector itself,
# which may run in the middle of another renderer's GL work (or in another thread, where
# the context cannot be made current).
_collected: list[tuple[GPUContext, GLExecutor]] = []
_collected_lock = threading.Lock()


def _dropped(gpu: GPUContext, executor: GLExecutor) -> None:
    with _collected_lock:
        _collected.append((gpu, executor))


def _release_dropped_here() -> None:
    """Release the collected renderers made by this thread of this process."""
    if not _collected:
        return
    me, pid = threading.get_ident(), os.getpid()
    with _collected_lock:
        mine = [c for c in _collected if c[0].thread == me and c[0].pid == pid]
        _collected[:] = [c for c in _collected if c not in mine]
    for gpu, executor in mine:
        try:
            _release_dropped(gpu, executor)
        except RendererUseError:
            pass  # (cannot happen here: its own thread and process)


_defaults = threading.local()  # .renderer: this thread's default renderer


def default_renderer() -> Renderer:
    """This thread's renderer (created on first use, one EGL context; a new one after
    the last was released). Each thread has its own: a renderer is used by the thread
    that made it."""
    renderer = getattr(_defaults, "renderer", None)
    if renderer is None or renderer._released or renderer.gpu.pid != os.getpid():
        renderer = _defaults.renderer = Renderer()  # (in a forked child: ForkedContextError)
    return renderer


install_filter_runners(default_renderer)  # filters.apply runs its graphs on the default renderer


def current_limits() -> Limits:
    """This thread's default renderer's limits if it exists, else defaults (no GPU is
    touched)."""
    renderer = getattr(_defaults, "renderer", None)
    return renderer.limits if renderer is not None and not renderer._released else Limits()


def renderer_info() -> RendererInfo:
    """The renderer fingerprint (GL_RENDERER, GL_VERSION) and limits of this machine."""
    return default_renderer().info


def _declares_filter(layer) -> bool:
    """Does ``layer`` declare a filter or backdrop-filter, in its style or its animations?
    (``inherit`` gives None here: it copies a parent's declaration, found on the parent.)"""
    return (any(layer.style.cascaded(f) is not None for f in _FILTER_FIELDS)
            or any(f in animation.fields for animation in layer.animations for f in _FILTER_FIELDS))
