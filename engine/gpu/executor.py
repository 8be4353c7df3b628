"""Run a FrameGraph: raster, filter, transfer, upload, composite and capture passes over pooled
GL textures and OpenCL buffers; read the output back as premultiplied RGBA8.

The executor makes no decisions: everything it draws is in the graph. It only maps
virtual textures to pooled GPU textures (or OpenCL buffers, by ``TextureDesc.location``)
by lifetime, uploads images, sets uniforms. Passes are dispatched by kind through one
table (``TASK_HANDLERS``); filter passes go on to the runner of their ``Executor``
(gpu.gl_filters, gpu.opencl), which has a handler per planned pass kind: for OpenCL, the
runner of the pass's device (one per device, by its "P:D" index; the executor's own when
the pass names none). Scenes and ``filters.apply`` graphs run here alike.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import moderngl
import numpy as np

from ..blending import BlendMode
from ..compositor.mask_paint import PolygonPaint
from ..css.values import ClipKind
from ..compositor.paint_data import ImagePaint
from ..geometry import Affine, Projective, Rect, clipped_polygon
from ..framegraph import (
    ShadowPass,
    BackdropPass,
    CompositePass,
    Draw,
    Executor,
    FilterPass,
    FrameGraph,
    Pass,
    RasterPass,
    TaskKind,
    TransferPass,
    UploadPass,
)
from ..errors import OpenCLDeviceError
from ..textures import Place
from ..limits import MAX_POLYGON_POINTS, MAX_SPLIT_PLANES
from ..passes import CapturePass
from ..progress import step
from . import opencl as cl_filters
from .context import GPUContext
from .gl_filters import GLFilterRunner
from ..graph.offload import Choice, Offload, choose
from .cl_queue import Ticket
from .opencl import CLFilterRunner
from .pixels import PixelPasses
from .pool import PooledTarget, TexturePool
from .programs import COMPOSITE_BACKDROP, COMPOSITE_PLAIN, POLYGON_MASK, UNPREMULTIPLY, ProgramCache
from .shadow_draws import BoxShadowPainter
from .text import TextPainter
from .readback import ENCODE_WORK, READBACK_WORK, UNPREMULTIPLY_WORK, FramePixels, FrameReader

__all__ = ["GLExecutor", "ExecutionStats", "CLAIMS", "TASK_HANDLERS", "FILTER_EXECUTORS", "UNPREMULTIPLY_WORK", "ENCODE_WORK",
           "READBACK_WORK"]


@dataclass
class ExecutionStats:
    """What one execution cost. Times are CPU wall-clock around ``ctx.finish()``: GL
    timer queries do not see llvmpipe's rasterization, so they are not used.

    One owner: ``execute`` makes the record and fills in the execution; it hands it to
    its caller and never touches it again. A scene's frame owns it from there
    (lamina.frame.Frame: the planning time, and the work on the pixels later through
    ``record``)."""

    raster_ms: float = 0.0
    filter_ms: float = 0.0
    composite_ms: float = 0.0
    transfer_ms: float = 0.0  # GL <-> OpenCL copies of filter images (via the host)
    transfer_bytes: int = 0
    readback_ms: float = 0.0
    total_ms: float = 0.0
    pass_ms: dict[str, float] = field(default_factory=dict)
    textures_allocated: int = 0
    textures_reused: int = 0
    compiles: int = 0
    images_uploaded: int = 0
    # How much of the frame was worked on, in pixels (overlapping rects count twice):
    composited_px: int = 0  # drawn by the frame's composite passes (their damage rects, or all of it)
    read_back_px: int = 0  # premultiplied pixels read from the GPU (a large frame's when first asked for)
    unpremultiplied_px: int = 0  # converted by the un-premultiply pass for the straight pixels, so far
    # Where the work sat on the frame's clock, for the trace (lamina.trace): ms after
    # ``origin``, the time.perf_counter() at which the frame began (Renderer.render's
    # call; for a graph executed directly, the execution's own start).
    plan_ms: float = 0.0  # building the frame graph, before the execution (given to the Frame)
    pass_start_ms: dict[str, float] = field(default_factory=dict)
    # The part of a pass that an OpenCL device ran while the pass itself is the GL
    # thread's (a copy to OpenCL: GL reads, the device writes): pass name -> (start, ms)
    # of that part, which ``pass_ms`` includes.
    device_part_ms: dict[str, tuple[float, float]] = field(default_factory=dict)
    # Where a pass ran when not where the graph placed it (an offload moved to GL at run
    # time), and the run-time choices made (graph.offload.Choice), in the order made.
    ran_on: dict[str, Executor] = field(default_factory=dict)
    runtime_choices: list = field(default_factory=list)
    readback_start_ms: float = 0.0
    after: list[tuple[str, float, float]] = field(default_factory=list)  # (what, start, ms): work on the pixels later
    origin: float = field(default=0.0, repr=False)

    def record(self, what: str, started: float, ms: float | None = None) -> None:
        """Note work on this frame's pixels after the execution (late read-back,
        un-premultiply, encode) that began at ``started`` (a time.perf_counter()) and
        took ``ms`` (default: until now)."""
        if ms is None:
            ms = (time.perf_counter() - started) * 1000
        self.after.append((what, (started - self.origin) * 1000, ms))

    def after_ms(self, what: str | None = None) -> float:
        """Time spent on the pixels after the execution (all of it, or one kind)."""
        return sum(ms for kind, _, ms in self.after if what is None or kind == what)

    @property
    def unpremultiply_ms(self) -> float:
        """Straight pixels out: the GPU un-premultiply pass and its read-back."""
        return self.after_ms(UNPREMULTIPLY_WORK)

    @property
    def encode_ms(self) -> float:
        return self.after_ms(ENCODE_WORK)

    @property
    def frame_ms(self) -> float:
        """All the frame's work so far: planning, the execution, and pixels out
        (late read-back, un-premultiply, PNG encode)."""
        return self.plan_ms + self.total_ms + self.after_ms()

    def to_dict(self) -> dict:
        return {
            "raster_ms": round(self.raster_ms, 3),
            "filter_ms": round(self.filter_ms, 3),
            "composite_ms": round(self.composite_ms, 3),
            "transfer_ms": round(self.transfer_ms, 3),
            "transfer_bytes": self.transfer_bytes,
            "readback_ms": round(self.readback_ms, 3),
            "total_ms": round(self.total_ms, 3),
            "plan_ms": round(self.plan_ms, 3),
            "unpremultiply_ms": round(self.unpremultiply_ms, 3),
            "encode_ms": round(self.encode_ms, 3),
            "frame_ms": round(self.frame_ms, 3),
            "pass_ms": {k: round(v, 3) for k, v in self.pass_ms.items()},
            "ran_on": {k: v.value for k, v in self.ran_on.items()},
            "runtime_choices": [c.to_dict() for c in self.runtime_choices],
            "textures_allocated": self.textures_allocated,
            "textures_reused": self.textures_reused,
            "compiles": self.compiles,
            "images_uploaded": self.images_uploaded,
            "composited_px": self.composited_px,
            "read_back_px": self.read_back_px,
            "unpremultiplied_px": self.unpremultiplied_px,
        }


def _set(program: moderngl.Program, name: str, value) -> None:
    # The GLSL compiler drops uniforms a variant does not use; skipping those is fine
    # because every name we set is checked to exist in some variant by the GL tests.
    if name in program:
        program[name].value = value


def _set_array(program: moderngl.Program, name: str, rows) -> None:
    """A float uniform array (of floats, vecN or matN), written tightly packed."""
    if name in program:
        program[name].write(np.asarray(rows, dtype="f4").tobytes())


class GLExecutor:
    def __init__(self, gpu: GPUContext) -> None:
        self.gpu = gpu
        self.ctx = gpu.ctx
        self.programs = ProgramCache(self.ctx)
        self.pool = TexturePool(self.ctx)
        self.pixels = PixelPasses(self.ctx, self.programs, self.pool)
        self.reader = FrameReader(self.pixels, self.pool, gpu.activate)
        self._images: dict[object, PooledTarget] = {}  # uploads by image key, premultiplied: each has a framebuffer
        self._image_content: dict[object, object] = {}
        self._retained: dict[str, PooledTarget] = {}
        self._filters = None
        self._opencl = None
        self._runners: dict[str, CLFilterRunner] = {}  # OpenCL device "P:D" -> its runner (several in use)
        self.text = TextPainter(self.ctx, self.programs)  # layers' text, drawn in their raster passes
        self.box_shadows = BoxShadowPainter(self.ctx, self.programs)  # layers' outer box shadows, likewise

    @property
    def filter_runner(self) -> GLFilterRunner:
        """The GLSL executor of filter passes (gpu.gl_filters), sharing the programs."""
        if self._filters is None:
            self._filters = GLFilterRunner(self.ctx, self.programs)
        return self._filters

    @property
    def opencl_runner(self) -> CLFilterRunner:
        """The OpenCL executor of filter passes (gpu.opencl), made on first use;
        OpenCLUnavailableError when there is no device."""
        runner = cl_filters.default_runner()  # follows gpu.opencl.use_device
        if runner is not self._opencl and self._opencl is not None:
            self._opencl.trim()
        self._opencl = runner
        return runner

    def runner_for(self, device: str) -> CLFilterRunner:
        """The OpenCL runner of the device with "P:D" index ``device`` (a frame placed on
        several: FilterPass.device); "" is this executor's own (``opencl_runner``). One
        runner, so one command queue, per device, shared process-wide
        (gpu.opencl.default_runner); OpenCLUnavailableError naming the index when no
        device has it."""
        if not device:
            return self.opencl_runner
        runner = self._runners.get(device)
        if runner is None:
            runner = self._runners[device] = cl_filters.default_runner(cl_filters.select_device(device))
        return runner

    def evict_images(self, keys) -> None:
        """Release the textures of images no longer used."""
        for key in keys:
            self._image_content.pop(key, None)
            image = self._images.pop(key, None)
            if image is not None:
                self.pool.park()  # never release the bound framebuffer (see TexturePool.park)
                image.framebuffer.release()
                image.texture.release()

    def drop_retained(self) -> None:
        """Return every retained layer raster to the pool."""
        self.reader.begin()  # textures change: the latest frame stops reading from its own
        for target in self._retained.values():
            self._let_go(target)
        self._retained.clear()

    def retained_names(self) -> frozenset[str]:
        """The textures kept from earlier frames, by name: what the planner's snapshot of
        this executor says exists (lamina.graph.ExecutorFacts)."""
        return frozenset(self._retained)

    def _let_go(self, target: PooledTarget) -> None:
        """A kept texture is not kept any more: a large frame holding it takes it (its
        pixels stay), else it goes back to the pool."""
        if not self.reader.adopt(target):
            self.pool.release(target)

    @property
    def retained_bytes(self) -> int:
        return sum(t.bytes for t in self._retained.values())

    def retained_sizes(self) -> dict[str, tuple[int, int, int]]:
        """What is kept between frames: texture name -> (width, height, bytes)."""
        return {name: (t.key[0], t.key[1], t.bytes) for name, t in self._retained.items()}

    def drop_pictures(self) -> None:
        """Release the feImage textures the GL filter runner keeps (gpu.pictures), as
        the OpenCL runners' trim does theirs: the next frame uploads what it draws."""
        if self._filters is not None:
            self._filters.pictures.clear()

    def release(self) -> None:
        """Release every GL object this executor made."""
        self.reader.release()
        self.drop_pictures()
        self.evict_images(list(self._images))
        for target in self._retained.values():
            self.pool.release(target)
        self._retained.clear()
        self.pool.close()
        self.text.release()
        self.box_shadows.release()
        self.programs.release()
        for runner in {id(r): r for r in (self._opencl, *self._runners.values()) if r is not None}.values():
            runner.trim()  # the runners are shared per device; their idle buffers go

    # -- images -------------------------------------------------------------------------
    def _image_texture(self, paint: ImagePaint, run: "_Execution") -> moderngl.Texture:
        # Textures are per source (file path+mtime, data: URL, array identity); the full
        # key also holds an array's content checksum, so a changed array is re-uploaded.
        # The pixels come with the graph (FrameGraph.images): straight, they go up and a
        # GPU pass premultiplies them into the texture.
        key = paint.key.identity
        image = self._images.get(key)
        if image is None or self._image_content.get(key) != paint.key:
            self._image_content[key] = paint.key
            pixels = run.graph.images[paint.key].pixels
            h, w = pixels.shape[:2]
            if image is None or image.key[:2] != (w, h):
                if image is not None:
                    self.evict_images([key])
                    self._image_content[key] = paint.key
                tex = self.ctx.texture((w, h), 4, dtype="f1")
                tex.filter = (moderngl.LINEAR, moderngl.LINEAR)
                image = self._images[key] = PooledTarget(tex, self.ctx.framebuffer(color_attachments=[tex]), (w, h, "rgba8"))
            self.pixels.premultiply_into(pixels, image)
            run.stats.images_uploaded += 1
        return image.texture

    # -- passes -------------------------------------------------------------------------
    def _raster(self, p: RasterPass, target: PooledTarget, run: "_Execution",
                shadows: PooledTarget | None = None) -> None:
        paint = p.paint
        # The paint says its program and uniforms (compositor.paint_data.RasterCall):
        # bind, set what it hands over, bind its image, draw.
        call = paint.raster_call(p.origin)
        # An image upload premultiplies in a pass of its own: before this target is bound.
        texture = self._image_texture(call.image.image, run) if call.image is not None else None
        program = self.programs.get(call.program)
        target.framebuffer.use()
        self.ctx.viewport = (0, 0, p.target.width, p.target.height)
        self.ctx.disable(moderngl.BLEND)
        for name, value in call.uniforms:
            _set(program, name, value)
        for name, rows in call.arrays:
            _set_array(program, name, rows)
        if call.image is not None:
            texture.repeat_x, texture.repeat_y = call.image.wrap
            nearest = moderngl.NEAREST if call.image.nearest else moderngl.LINEAR
            texture.filter = (nearest, nearest)
            texture.use(location=0)
            _set(program, call.image.uniform, 0)
        self.box_shadows.begin(paint, p.origin, (p.target.width, p.target.height))
        self.programs.vertex_array(call.program).render(moderngl.TRIANGLES, vertices=3)
        self.box_shadows.end_paint()
        if paint.text is not None:  # text paints after the background and border (CSS 2.1 Appendix E)
            self.text.draw(paint.text, p.origin, (p.target.width, p.target.height))
        if shadows is not None:  # outer ones, under it all: drawn already, kept (a ShadowPass)
            self._under(shadows, (p.target.width, p.target.height))
        else:
            self.box_shadows.draw(paint, p.origin, (p.target.width, p.target.height))

    def _under(self, source: PooledTarget, size: tuple[int, int]) -> None:
        """Copy a texture of the target's size under what the target holds ("destination
        over", as BoxShadowPainter draws the shadows themselves)."""
        self.ctx.enable(moderngl.BLEND)
        self.ctx.blend_func = (moderngl.ONE_MINUS_DST_ALPHA, moderngl.ONE)
        self.ctx.blend_equation = moderngl.FUNC_ADD
        try:
            program = self.programs.get(COMPOSITE_PLAIN)
            program["u_transform"].value = Affine().to_mat3()
            program["u_target_size"].value = (float(size[0]), float(size[1]))
            program["u_draw_rect"].value = (0.0, 0.0, float(size[0]), float(size[1]))
            program["u_opacity"].value = 1.0
            source.texture.use(location=0)
            self.programs.vertex_array(COMPOSITE_PLAIN).render(moderngl.TRIANGLE_STRIP, vertices=4)
        finally:
            self.ctx.disable(moderngl.BLEND)

    def _shadow_task(self, run: "_Execution", p: ShadowPass, target: PooledTarget) -> None:
        """A layer's outer box shadows alone, into a texture kept for its repaints."""
        target.framebuffer.use()
        size = (p.target.width, p.target.height)
        self.ctx.viewport = (0, 0, *size)
        self.ctx.clear(0.0, 0.0, 0.0, 0.0)
        self.box_shadows.draw(p.paint, p.origin, size)

    def _draw(self, d: Draw, source: PooledTarget, target_size: tuple[int, int],
              backdrop: PooledTarget | None = None, masks: tuple[PooledTarget, ...] = ()) -> None:
        m = d.transform
        blend = d.blend is not BlendMode.NORMAL
        if not blend and not d.clips and not d.masks and not d.split_planes and m.is_translation() and float(m.e).is_integer() \
                and float(m.f).is_integer():
            self._plain_draw(d, source, target_size)
            return
        rect = _draw_rect(d, target_size)
        if rect is None:
            return
        projected = m.__class__ is Projective
        edges = _edge_lines(d) if projected else None
        # Split only where the inset cell has a program without the area code (unblended,
        # unmasked draws: the 3D cards that are most of a projected frame).
        cells = _projected_cells(m, d, rect, edges) if projected and not blend and not d.masks else None
        key = d.program
        keys = (key, replace(key, edge_area=False)) if cells is not None else (key,)
        for program in map(self.programs.get, keys):
            if blend:
                # The result already holds the backdrop: written as is, not blended again.
                backdrop.texture.use(location=1)
                _set(program, "u_backdrop", 1)
                _set(program, "u_backdrop_origin", (float(d.backdrop_origin[0]), float(d.backdrop_origin[1])))
                _set(program, "u_blend_mode", d.blend.index)
                self.ctx.disable(moderngl.BLEND)
            _set(program, "u_transform", m.to_mat3())
            _set(program, "u_quad_size", (float(d.source.width), float(d.source.height)))
            _set(program, "u_target_size", (float(target_size[0]), float(target_size[1])))
            _set(program, "u_draw_rect", rect)
            _set(program, "u_cell", int(cells is not None))
            _set(program, "u_opacity", float(d.opacity))
            _set(program, "u_exact", int(m.is_translation() and float(m.e).is_integer() and float(m.f).is_integer()))
            _set(program, "u_hard_edges", tuple(1.0 if e else 0.0 for e in d.hard_edges))
            _set(program, "u_projected", int(projected))
            if projected:
                _set_array(program, "u_edges", edges)
            _set(program, "u_split_count", len(d.split_planes))
            if d.split_planes:
                _set_array(program, "u_split_planes", list(d.split_planes) + [(0.0, 0.0, 1.0)] * (MAX_SPLIT_PLANES - len(d.split_planes)))
            if d.clips:
                _set_array(program, "u_clip_to_local", [c.to_local.to_mat3() for c in d.clips])
                _set_array(program, "u_clip_rect", [(c.rect[0], c.rect[1], c.rect[0] + c.rect[2], c.rect[1] + c.rect[3]) for c in d.clips])
                _set_array(program, "u_clip_rx", [tuple(r[0] for r in c.radii) for c in d.clips])
                _set_array(program, "u_clip_ry", [tuple(r[1] for r in c.radii) for c in d.clips])
                _set_array(program, "u_clip_px", [tuple(max(v, 1e-9) for v in c.px_per_target_px) for c in d.clips])
                _set_array(program, "u_clip_kind", [1.0 if c.kind is ClipKind.CLIP_PATH else 0.0 for c in d.clips])
            if d.masks:
                # Units 2, 3...: 0 is the source, 1 the backdrop.
                for i, mask in enumerate(masks):
                    mask.texture.use(location=2 + i)
                if "u_mask" in program:
                    program["u_mask"].write(np.arange(2, 2 + len(masks), dtype="i4").tobytes())
                _set_array(program, "u_mask_to_texel", [k.to_texel.to_mat3() for k in d.masks])
                _set_array(program, "u_mask_mode", [(1.0 if k.luminance else 0.0, 1.0 if _whole_texels(k.to_texel) else 0.0)
                                                    for k in d.masks])
            source.texture.use(location=0)
            _set(program, "u_source", 0)
        if cells is None:
            self.programs.vertex_array(key).render(moderngl.TRIANGLE_STRIP, vertices=4)
        else:
            for cell, fringe in cells:
                cell_key = keys[0] if fringe else keys[1]
                _set(self.programs.get(cell_key), "u_draw_rect", cell)
                self.programs.vertex_array(cell_key).render(moderngl.TRIANGLE_STRIP, vertices=4)
        if blend:
            self.ctx.enable(moderngl.BLEND)

    def _plain_draw(self, d: Draw, source: PooledTarget, target_size: tuple[int, int]) -> None:
        """A quad at whole pixels without clips: texel-exact, no coverage maths."""
        m = d.transform
        w, h = d.source.width, d.source.height
        x0, y0 = max(0.0, -m.e), max(0.0, -m.f)
        x1, y1 = min(float(w), target_size[0] - m.e), min(float(h), target_size[1] - m.f)
        if x0 >= x1 or y0 >= y1:
            return
        program = self.programs.get(COMPOSITE_PLAIN)
        program["u_transform"].value = m.to_mat3()
        program["u_target_size"].value = (float(target_size[0]), float(target_size[1]))
        program["u_draw_rect"].value = (x0, y0, x1, y1)
        program["u_opacity"].value = float(d.opacity)
        source.texture.use(location=0)
        self.programs.vertex_array(COMPOSITE_PLAIN).render(moderngl.TRIANGLE_STRIP, vertices=4)

    def _composite(self, p: CompositePass, target: PooledTarget, targets: dict[str, PooledTarget]) -> None:
        target.framebuffer.use()
        self.ctx.viewport = (0, 0, p.target.width, p.target.height)
        damage = p.damage
        if damage is not None:
            x, y, w, h = damage
            if w <= 0 or h <= 0:
                return  # nothing changed: the kept target is already right
            # Row 0 is the top in every Lamina texture, so CSS y is the window y here.
            if not p.continues:
                target.framebuffer.clear(*p.clear, viewport=damage)
            self.ctx.scissor = damage
        elif not p.continues:
            target.framebuffer.clear(*p.clear)
        self.ctx.enable(moderngl.BLEND)
        self.ctx.blend_func = (moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA)
        self.ctx.blend_equation = moderngl.FUNC_ADD
        try:
            for d in p.draws:
                if damage is not None and not _touches(d, damage):
                    continue
                backdrop = targets[d.backdrop.name] if d.backdrop is not None else None
                masks = tuple(targets[m.texture.name] for m in d.masks)
                self._draw(d, targets[d.source.name], (p.target.width, p.target.height), backdrop, masks)
        finally:
            self.ctx.disable(moderngl.BLEND)
            self.ctx.scissor = None

    def _backdrop(self, run: "_Execution", p: BackdropPass, target: PooledTarget) -> None:
        """Copy what lies under an element out of the target drawn so far (BackdropPass)."""
        source = run.targets[p.source.name]
        target.framebuffer.use()
        self.ctx.viewport = (0, 0, p.target.width, p.target.height)
        program = self.programs.get(COMPOSITE_BACKDROP)
        m = p.to_source
        exact = m.is_translation() and float(m.e).is_integer() and float(m.f).is_integer()
        _set(program, "u_to_source", m.to_mat3())
        _set(program, "u_mirror", p.mirror if p.mirror is not None else (0.0, 0.0, 0.0, 0.0))
        _set(program, "u_exact", int(exact))
        source.texture.use(location=0)
        _set(program, "u_source", 0)
        self.ctx.scissor = p.region  # (a split piece's part; None: all of it)
        try:
            self.programs.vertex_array(COMPOSITE_BACKDROP).render(moderngl.TRIANGLES, vertices=3)
        finally:
            self.ctx.scissor = None

    # -- the tasks that are not drawing: filters, transfers, uploads ------------------------
    def _filter(self, run: "_Execution", p: FilterPass, target) -> Ticket | None:
        return FILTER_EXECUTORS[p.executor](self, run, p, target)

    def _gl_filter(self, run: "_Execution", p: FilterPass, target: PooledTarget) -> None:
        self.filter_runner.run_pass(p.step, [run.targets[t.name].texture for t in p.inputs], target,
                                    **_alpha_forms(p))

    def _cl_filter(self, run: "_Execution", p: FilterPass, target) -> Ticket:
        """Queued on its device, not waited for (gpu.cl_queue): the GL thread goes on at
        once, and work on another device runs beside it (each has its own queue)."""
        inputs = [run.targets[t.name] for t in p.inputs]
        return run.queued(p.target.name, run.opencl(p.device).queue_pass(p.step, inputs, target, **_alpha_forms(p)))

    def _transfer(self, run: "_Execution", p: TransferPass, target) -> Ticket | None:
        """GL texture -> OpenCL buffer, back, or one OpenCL device's buffer -> another's,
        through host memory (no cl_khr_gl_sharing on this path). To OpenCL: GL reads the
        texture here (or, from another device, the pass that wrote the buffer is waited
        for and the buffer read), and the write is queued on the target device behind its
        work. To GL: only the pass that wrote the buffer is waited for (the graph's
        edge), then it is copied into the texture."""
        source = run.targets[p.source.name]
        if p.target.location is Executor.OPENCL:
            cl = run.opencl(p.target.device)
            if p.source.location is Executor.GL:
                pixels = cl.read_texture(source.texture, p.source.width, p.source.height, p.source.format)
            else:
                run.wait_for(p.source.name)
                run.began[p.name] = time.perf_counter()  # (the wait is idle time, not the copy's)
                pixels = run.opencl(p.source.device).read_buffer(source)
            return run.queued(p.target.name, cl.queue_write(target, pixels))
        run.wait_for(p.source.name)
        run.began[p.name] = time.perf_counter()  # its time is the copy's: the wait is idle time, not the pass's
        run.opencl(p.source.device).buffer_to_texture(source, target.texture)
        return None

    def _upload(self, run: "_Execution", p: UploadPass, target) -> Ticket | None:
        """Host pixels into a GL texture (buffer protocol: no extra copy) or a buffer."""
        if p.target.location is Executor.OPENCL:
            return run.queued(p.target.name, run.opencl(p.target.device).queue_write(target, np.ascontiguousarray(p.image)))
        target.texture.write(np.ascontiguousarray(p.image))
        return None

    def _capture(self, run: "_Execution", p: CapturePass, target: PooledTarget) -> None:
        """Read a texture back to the host as ``Frame.image`` is read (straight RGBA8,
        top row first): un-premultiplied on the GPU into the pass's target, then read
        from there into ``run.captures`` under the pass's label."""
        if p.source.location is not Executor.GL:
            raise AssertionError(f"{p.name}: only GL textures are captured (the planner captures what composites draw)")
        source = run.targets[p.source.name]
        w, h = p.source.width, p.source.height
        pixels = np.empty((h, w, 4), np.uint8)
        if p.source.straight:  # (a filters.apply result: straight already)
            source.texture.read_into(pixels, alignment=1)
        else:
            self.pixels.convert(UNPREMULTIPLY, source.texture, (0, 0, w, h), target, (0, 0))
            target.texture.read_into(pixels, alignment=1)
        run.captures[p.label] = pixels

    def _raster_task(self, run: "_Execution", p: RasterPass, target: PooledTarget) -> None:
        if isinstance(p.paint, PolygonPaint):
            self._raster_polygon(p.paint, target, (p.target.width, p.target.height))
        else:
            shadows = run.targets[p.shadows.name] if p.shadows is not None else None
            self._raster(p, target, run, shadows)

    def _raster_polygon(self, paint: PolygonPaint, target: PooledTarget, size: tuple[int, int]) -> None:
        """A polygon clip-path's coverage into its mask texture (shaders/mask/polygon.frag)."""
        program = self.programs.get(POLYGON_MASK)
        target.framebuffer.use()
        self.ctx.viewport = (0, 0, size[0], size[1])
        self.ctx.disable(moderngl.BLEND)
        _set_array(program, "u_points", list(paint.points) + [(0.0, 0.0)] * (MAX_POLYGON_POINTS - len(paint.points)))
        _set(program, "u_point_count", len(paint.points))
        _set(program, "u_evenodd", int(paint.evenodd))
        self.programs.vertex_array(POLYGON_MASK).render(moderngl.TRIANGLES, vertices=3)

    def _composite_task(self, run: "_Execution", p: CompositePass, target: PooledTarget) -> None:
        self._composite(p, target, run.targets)
        if p.target.name == run.graph.output.name:
            run.frame_drawn.add(p.damage if p.damage is not None else (0, 0, p.target.width, p.target.height))

    def _offload_on_gl(self, run: "_Execution", offload: Offload) -> None:
        """Run an offload's GL version (graph.offload) the first time one of its passes
        is reached after ``choose`` moved it: the filter passes as planned on GL, writing
        the textures its copies back would have; the in-between textures go back to the
        pool at once."""
        if offload.name in run.ran_on_gl:
            return
        run.ran_on_gl.add(offload.name)
        targets, stats = run.targets, run.stats
        for p in offload.gl_passes:
            t0 = time.perf_counter()
            target = targets.get(p.target.name)
            if target is None:
                target = targets[p.target.name] = self._acquire(run, p.target)
                run.locations[p.target.name] = p.target.place
            self._gl_filter(run, p, target)
            if run.timed:
                self.ctx.finish()
                ms = (time.perf_counter() - t0) * 1000
                stats.pass_ms[p.name] = ms
                stats.pass_start_ms[p.name] = (t0 - stats.origin) * 1000
                stats.ran_on[p.name] = Executor.GL
                _count_filter(stats, p, ms)
        for p in offload.gl_passes:
            name = p.target.name
            if name not in offload.outputs and name in targets:
                self._release(run, name, targets.pop(name))

    # -- textures by location ---------------------------------------------------------------
    def _acquire(self, run: "_Execution", desc) -> Any:
        if desc.location is Executor.OPENCL:
            return run.opencl(desc.device).acquire(desc.width, desc.height, desc.format)
        stale = self._retained.pop(desc.name, None)
        if stale is not None:  # an older kept texture of that name: replaced
            self._let_go(stale)
        return self.pool.acquire(desc.width, desc.height, desc.format)

    def _release(self, run: "_Execution", name: str, target) -> None:
        """Back to its pool: GL textures to the texture pool, OpenCL buffers to the runner's."""
        place = run.locations.get(name)
        if place is not None and place.executor is Executor.OPENCL:
            run.opencl(place.device).release(target)
        else:
            self.pool.release(target)

    def _frame_done(self, run: "_Execution", graph: FrameGraph, retained_now: set[str]) -> FramePixels:
        """Give the frame's texture to the reader (lamina.gpu.readback: a small frame's
        stays out of the pool until the next execution, a large frame holds its own until
        it has its pixels; a kept frame texture stays kept, as always)."""
        name = graph.output.name
        if graph.output.location is not Executor.GL:
            raise AssertionError("a frame is a GL texture")
        kept = name in retained_now or name in graph.reused
        target = run.targets[name] if kept else run.targets.pop(name)
        return self.reader.frame_done(graph, target, owned=not kept)

    def _read_back(self, run: "_Execution", graph: FrameGraph) -> np.ndarray:
        pixels = np.empty((graph.height, graph.width, 4), np.uint8)
        target = run.targets[graph.output.name]
        if graph.output.location is Executor.OPENCL:
            run.wait_for(graph.output.name)
            pixels[...] = run.opencl(graph.output.device).read_buffer(target)
        else:
            target.texture.read_into(pixels, alignment=1)
        return pixels

    # -- the frame ----------------------------------------------------------------------
    def execute(self, graph: FrameGraph, *, opencl: CLFilterRunner | None = None, timed: bool = True,
                origin: float | None = None, frame: bool = False,
                captures: dict[str, np.ndarray] | None = None,
                overlap: bool = True) -> tuple[np.ndarray | FramePixels, ExecutionStats]:
        """Run every pass; return the output as RGBA8 (H, W, 4), top row first, as the
        passes left it (premultiplied, or straight where ``graph.output.straight``).
        The graph is all it needs: its images come with it (``graph.images``), and
        textures it reuses are this executor's (``retained_names()``). With ``frame``,
        the output is a frame's: its FramePixels come back instead (lamina.gpu.readback:
        a large frame is read only when asked, in strips, and keeps its texture until
        then). The stats are new and the caller's (a scene's Frame owns them).

        ``opencl`` runs the OpenCL passes (default: the process's runner, made only if
        the graph has any); passes and textures naming an OpenCL device ("P:D": a frame
        placed on several) run on that device's runner (``runner_for``), one queue each. When ``timed``, each pass is timed with ``finish()`` around
        it: on llvmpipe that costs little, and it is the only honest per-pass time there.
        Untimed (``filters.apply``), passes queue up and only the read-back waits: 1-5 %
        faster at 1080p, and only ``total_ms`` and ``readback_ms`` are measured.
        ``origin`` (a time.perf_counter()) is when the frame began, so start times
        (``pass_start_ms``...) are on the frame's clock; default: now. The graph's
        capture passes put the textures they read back into ``captures`` (by each pass's
        ``label``: straight RGBA8 (H, W, 4), top row first), when given.

        OpenCL work is queued on its device and not waited for (gpu.cl_queue): the device
        runs it while this thread goes on with GL passes. GL waits for an OpenCL result
        only where a pass reads it (a transfer back), OpenCL for a GL result only where a
        transfer copies it, and the execution ends once its OpenCL work is done. An
        OpenCL pass's time is the device's (its events' profiling times), so the spans of
        the two devices overlap. ``overlap=False`` waits for each OpenCL item as it is
        queued: the same passes in the same order, one after another (what the overlap
        is measured against)."""
        written = {p.target.name for p in graph.passes}
        # Textures are about to change: a frame still reading a kept one gets a copy first.
        self.reader.begin((self._retained[n] for n in graph.reused if n in written and n in self._retained),
                          frame=frame)
        stats = ExecutionStats()
        run = _Execution(self, graph, stats, opencl, timed, overlap)
        if captures is not None:
            run.captures = captures
        targets = run.targets
        alloc0, reuse0, compiles0 = self.pool.allocations, self.pool.reuses, self.programs.compiles
        lifetimes = graph.lifetimes()
        last_use: dict[int, list[str]] = {}
        for name, (_, last) in lifetimes.items():
            if name != graph.output.name:
                last_use.setdefault(last, []).append(name)
        targets.update((name, self._retained[name]) for name in graph.reused)
        retained_now = {t.name for p in graph.passes for t in (p.target,) if t.retained}
        t_start = time.perf_counter()
        stats.origin = t_start if origin is None else origin
        i = -1  # (the pass running, for an error's message)
        try:
            for i, p in enumerate(graph.passes):
                offload = run.offload_of.get(p.name)
                if offload is not None and run.on_gl(offload):
                    self._offload_on_gl(run, offload)  # (once; its OpenCL passes are skipped)
                    ticket = handler = None
                else:
                    t0 = time.perf_counter()
                    target = targets.get(p.target.name)
                    if target is None:
                        target = targets[p.target.name] = self._acquire(run, p.target)
                        run.locations[p.target.name] = p.target.place
                    handler, counter = TASK_HANDLERS[p.kind]
                    ticket = handler(self, run, p, target)
                if handler is None:
                    pass
                elif ticket is not None:  # queued on an OpenCL device: timed by it (run.finish)
                    run.handed.append((p, t0, time.perf_counter(), ticket, counter))
                    if not overlap:
                        ticket.wait()
                elif timed:
                    self.ctx.finish()
                    t0 = run.began.pop(p.name, t0)
                    ms = (time.perf_counter() - t0) * 1000
                    stats.pass_ms[p.name] = ms
                    stats.pass_start_ms[p.name] = (t0 - stats.origin) * 1000
                    counter(stats, p, ms)
                step("rendering: passes", i + 1, len(graph.passes))
                # Return textures whose last reader has run (never the frame itself);
                # layer rasters are kept for later frames instead.
                for name in last_use.get(i, ()):
                    if name in targets:
                        target = targets.pop(name)
                        if name in retained_now or name in graph.reused:
                            self._retained[name] = target
                        else:
                            self._release(run, name, target)
            t0 = time.perf_counter()
            pixels = self._frame_done(run, graph, retained_now) if frame else self._read_back(run, graph)
            stats.read_back_px = pixels.read_px if frame else graph.width * graph.height
            stats.readback_ms = (time.perf_counter() - t0) * 1000
            stats.readback_start_ms = (t0 - stats.origin) * 1000
            run.finish()  # the frame's OpenCL work done (a result no pass read back: still the frame's)
        except BaseException as exc:
            run.finish(raising=False)  # nothing of it still queued when its buffers go back
            failed = _device_failure(exc, run, graph.passes[i] if 0 <= i < len(graph.passes) else None)
            # A failed frame keeps nothing it wrote (a texture repainted in place may be
            # half done): those are released, so the planner's cache does not find them
            # (retained_names) and paints them again.
            for name in retained_now:
                kept = self._retained.pop(name, None)
                current = targets.pop(name, None)
                for target in {id(t): t for t in (kept, current) if t is not None}.values():
                    self._let_go(target)
            if failed is not None:
                raise failed from exc
            raise
        finally:
            for name, target in targets.items():
                if name in graph.reused or name in retained_now:
                    self._retained[name] = target
                else:
                    self._release(run, name, target)
            for cl in {id(c): c for c in (*run.cl.values(), self._opencl) if c is not None}.values():
                cl.end_frame()  # idle buffers age by frames, as the texture pool's do
            for name in graph.released:
                target = self._retained.pop(name, None)
                if target is not None:
                    self._let_go(target)
            self.pool.end_frame()
        stats.total_ms = (time.perf_counter() - t_start) * 1000
        stats.textures_allocated = self.pool.allocations - alloc0
        stats.textures_reused = self.pool.reuses - reuse0
        stats.compiles = self.programs.compiles - compiles0
        stats.composited_px = sum(w * h for _, _, w, h in run.frame_drawn)  # a rect drawn twice counts once
        return pixels, stats


class _Execution:
    """The state of one ``execute``: the pooled texture (or buffer) of every live virtual
    texture, where it lives, and the OpenCL runner, fetched on the first OpenCL task."""

    def __init__(self, executor: GLExecutor, graph: FrameGraph, stats: ExecutionStats,
                 opencl: CLFilterRunner | None, timed: bool, overlap: bool = True) -> None:
        self.executor = executor
        self.graph = graph
        self.timed = timed
        self.overlap = overlap
        # Work queued on an OpenCL device: (pass, when this thread began it and when it
        # queued it, its ticket, its stats counter), and the ticket of the last item
        # writing each texture name.
        self.handed: list[tuple[Pass, float, float, Ticket, Callable]] = []
        self.writes: dict[str, Ticket] = {}
        self.began: dict[str, float] = {}  # a pass whose own work began after it waited for an input
        # The offloads the graph lets this execution move to GL (graph.offload), by each
        # of their passes' names; each one's choice, once made; those run on GL.
        self.offload_of: dict[str, Offload] = {name: o for o in graph.offloads for name in o.cl_passes}
        self.predicted: dict[str, float] = {name: ms for o in graph.offloads for name, ms in o.pass_ms}
        self.choices: dict[str, Choice | None] = {}  # (None: left where the schedule put it, undecided)
        self.ran_on_gl: set[str] = set()
        self.stats = stats
        self.targets: dict[str, Any] = {}
        self.locations: dict[str, Place] = {}
        # The runner of each OpenCL device the frame used, by "P:D" ("": the executor's own).
        self.cl: dict[str, CLFilterRunner] = {"": opencl} if opencl is not None else {}
        self.frame_drawn: set[tuple[int, int, int, int]] = set()  # rects of the output its composite passes drew
        self.captures: dict[str, np.ndarray] = {}  # what capture passes read back, by label

    def opencl(self, device: str = "") -> CLFilterRunner:
        """The runner of OpenCL device ``device`` ("P:D"; "": the executor's own)."""
        runner = self.cl.get(device)
        if runner is None:
            runner = self.cl[device] = self.executor.runner_for(device)
        return runner

    def on_gl(self, offload: Offload) -> bool:
        """Does ``offload`` run on GL? Decided when its first pass is reached, if its GL
        inputs are drawn by then (else it stays where the schedule put it), by the dmda
        rule over the device's actual queue (graph.offload.choose); kept in the stats."""
        if offload.name in self.choices:
            choice = self.choices[offload.name]
            return choice is not None and choice.moved
        if not all(name in self.targets for name in offload.inputs):
            self.choices[offload.name] = None  # its first pass runs on OpenCL: so does the rest
            return False
        backlog, measured, predicted = 0.0, 0.0, 0.0
        for p, _, _, ticket, _ in self.handed:
            if _device_of(p) != offload.device:
                continue  # another device's queue: not the one the offload waits behind
            expected = self.predicted.get(p.name, 0.0)
            if ticket.done:
                measured, predicted = measured + ticket.ms, predicted + expected
            else:
                backlog += expected
        choice = self.choices[offload.name] = choose(offload, backlog, measured / predicted if predicted else 1.0)
        self.stats.runtime_choices.append(choice)
        return choice.moved

    def queued(self, name: str, ticket: Ticket) -> Ticket:
        """Note that the item of ``ticket`` writes the texture ``name``."""
        self.writes[name] = ticket
        return ticket

    def wait_for(self, name: str) -> None:
        """Wait until the OpenCL item that wrote ``name`` is done (the graph's edge)."""
        ticket = self.writes.get(name)
        if ticket is not None:
            ticket.wait()

    def finish(self, raising: bool = True) -> None:
        """Wait for every item queued on an OpenCL device, then put their times in the
        stats, as the device measured them: a filter pass from when the device began
        it; a copy to OpenCL from when GL began reading the texture, for the GL read and
        the device's write (not the wait between them in the device's queue). The first
        error an item raised is raised (``raising``), after all are done."""
        error = None
        done = []
        for item in self.handed:
            try:
                item[3].wait()
            except BaseException as exc:  # noqa: BLE001 - the first is raised once all are done
                error = error or exc
                continue
            done.append(item)
        for p, began, handed, ticket, counter in done if self.timed else ():  # (times once every clock sample is in)
            stats, origin = self.stats, self.stats.origin
            if isinstance(p, FilterPass):  # all of it the device's
                start, ms = ticket.start, ticket.ms
            else:  # GL's read, then the device's write
                start, ms = began, (handed - began) * 1000 + ticket.ms
                stats.device_part_ms[p.name] = ((ticket.start - origin) * 1000, ticket.ms)
            stats.pass_ms[p.name] = ms
            stats.pass_start_ms[p.name] = (start - origin) * 1000
            counter(stats, p, ms)
        self.handed.clear()
        if error is not None and raising:
            raise error


def _device_of(p: Pass) -> str:
    """The OpenCL device ("P:D"; "": the executor's own) whose queue an item handed to
    a device is on: a filter pass's, or a copy's target's."""
    return p.device if isinstance(p, FilterPass) else p.target.device


def _device_failure(exc: BaseException, run: _Execution, p: Pass | None) -> OpenCLDeviceError | None:
    """``exc`` as the typed error of a failed OpenCL device, when pyopencl raised it
    (an OpenCL call or a queued item that failed; a lost device fails every call)."""
    if isinstance(exc, OpenCLDeviceError) or not type(exc).__module__.startswith("pyopencl") or not run.cl:
        return None
    # The device of the pass that noticed, when it names one the frame used; else the first used.
    named = (p.device if isinstance(p, FilterPass) else getattr(getattr(p, "target", None), "device", "")) if p else ""
    device = (run.cl.get(named) or next(iter(run.cl.values()))).label
    where = f" (noticed at pass {p.name})" if p is not None else ""
    return OpenCLDeviceError(f"the OpenCL device {device} failed{where}: {exc}", device=device,
                             pass_name=p.name if p is not None else "")


def _alpha_forms(p: FilterPass) -> dict[str, bool]:
    """Which ends of a filter pass hold straight RGBA (filters.apply of straight pixels):
    the pass premultiplies its first input as it reads it, un-premultiplies as it writes."""
    if any(t.straight for t in p.inputs[1:]):
        raise AssertionError(f"{p.name}: only a pass's first input can be straight (graph.filter_tasks converts first)")
    return {"straight_source": p.inputs[0].straight, "straight_output": p.target.straight}


def _count_raster(stats: ExecutionStats, p: Pass, ms: float) -> None:
    stats.raster_ms += ms


def _count_filter(stats: ExecutionStats, p: Pass, ms: float) -> None:
    stats.filter_ms += ms


def _count_composite(stats: ExecutionStats, p: Pass, ms: float) -> None:
    stats.composite_ms += ms


def _count_nothing(stats: ExecutionStats, p: Pass, ms: float) -> None:
    """A pass counted in no sum but ``total_ms`` (and its own ``pass_ms``)."""


def _count_transfer(stats: ExecutionStats, p: Pass, ms: float) -> None:
    stats.transfer_ms += ms
    stats.transfer_bytes += p.bytes


# The pass kinds this executor runs: all of them (it runs whole graphs; filter passes
# placed on OpenCL go on to the OpenCL runner, FILTER_EXECUTORS). A kind it claims
# without a handler fails tests/unit/test_pass_protocol.py.
CLAIMS: frozenset[TaskKind] = frozenset(TaskKind)

# Every pass kind it claims -> (how this executor runs it, where its time is counted).
# A handler returns the Ticket of work it queued on an OpenCL device, else None.
TASK_HANDLERS: dict[TaskKind, tuple[Callable[[GLExecutor, _Execution, Any, Any], Ticket | None],
                                    Callable[[ExecutionStats, Pass, float], None]]] = {
    TaskKind.RASTER: (GLExecutor._raster_task, _count_raster),
    TaskKind.SHADOW: (GLExecutor._shadow_task, _count_raster),
    TaskKind.FILTER: (GLExecutor._filter, _count_filter),
    TaskKind.TRANSFER: (GLExecutor._transfer, _count_transfer),
    TaskKind.UPLOAD: (GLExecutor._upload, _count_transfer),
    TaskKind.COMPOSITE: (GLExecutor._composite_task, _count_composite),
    TaskKind.BACKDROP: (GLExecutor._backdrop, _count_composite),
    TaskKind.CAPTURE: (GLExecutor._capture, _count_nothing),  # a debugging read-back: no stage of the frame
}

# Every Executor -> how a FilterPass placed on it runs.
FILTER_EXECUTORS: dict[Executor, Callable[[GLExecutor, _Execution, FilterPass, Any], Ticket | None]] = {
    Executor.GL: GLExecutor._gl_filter,
    Executor.OPENCL: GLExecutor._cl_filter,
}


def _touches(d: Draw, rect: tuple[int, int, int, int]) -> bool:
    m = d.transform
    w, h = d.source.width, d.source.height
    pts = clipped_polygon(Rect(0, 0, w, h), m)  # projected: what lies in front of the eye
    if not pts:
        return False
    x, y, rw, rh = rect
    return (
        max(p[0] for p in pts) >= x - 2
        and min(p[0] for p in pts) <= x + rw + 2
        and max(p[1] for p in pts) >= y - 2
        and min(p[1] for p in pts) <= y + rh + 2
    )


def _whole_texels(m) -> bool:
    """Does ``m`` (target px -> texel) put pixel centres on texel centres (a whole-px shift)?"""
    return m.is_translation() and float(m.e).is_integer() and float(m.f).is_integer()


def _draw_rect(d: Draw, target_size: tuple[int, int]) -> tuple[float, float, float, float] | None:
    """The part of a quad to draw, in source px: grown so anti-aliased edges get
    fragments (pixel-aligned translations need no growth; else ~1.5 target px per
    axis), then cut to the part that maps into the target. None if nothing does."""
    m = d.transform
    w, h = float(d.source.width), float(d.source.height)
    if m.__class__ is Projective:
        return _projected_draw_rect(m, w, h)
    if m.is_translation() and float(m.e).is_integer() and float(m.f).is_integer():
        ex = ey = 0.0
    else:
        ex = 1.5 / max(math.hypot(m.a, m.b), 1e-6)
        ey = 1.5 / max(math.hypot(m.c, m.d), 1e-6)
    x0, y0, x1, y1 = -ex, -ey, w + ex, h + ey
    inv = m.inverse()
    tw, th = target_size
    pts = [inv.apply(x, y) for x, y in ((-2, -2), (tw + 2, -2), (tw + 2, th + 2), (-2, th + 2))]
    x0 = max(x0, min(p[0] for p in pts))
    y0 = max(y0, min(p[1] for p in pts))
    x1 = min(x1, max(p[0] for p in pts))
    y1 = min(y1, max(p[1] for p in pts))
    # Nothing outside a clip's rect can show: cut a whole-pixel quad to each clip's bounds
    # (grown by the anti-aliasing fringe), so a clipped quad (a filtered backdrop padded
    # for its blur's reach, say) shades only what its clip lets through. (Only there:
    # moving a sampled quad's corners moves its interpolation's roundings.)
    exact = ex == 0.0
    for clip in d.clips if exact else ():
        if not clip.to_local.is_invertible():
            continue
        cx, cy, cw, ch = clip.rect
        to_source = inv @ clip.to_local.inverse()
        corners = [to_source.apply(x, y) for x, y in ((cx, cy), (cx + cw, cy), (cx + cw, cy + ch), (cx, cy + ch))]
        grow_x, grow_y = 2.0 * ex + 2.0, 2.0 * ey + 2.0
        x0 = max(x0, min(p[0] for p in corners) - grow_x)
        y0 = max(y0, min(p[1] for p in corners) - grow_y)
        x1 = min(x1, max(p[0] for p in corners) + grow_x)
        y1 = min(y1, max(p[1] for p in corners) + grow_y)
    if x0 >= x1 or y0 >= y1:
        return None
    return (x0, y0, x1, y1)


_NEVER_FADED = (0.0, 0.0, 1e6)  # an edge line every pixel lies far inside


def _edge_lines(d: Draw) -> list[tuple[float, float, float]]:
    """The draw's quad edges (left, top, right, bottom) as lines in target px for
    composite/quad.frag: (nx, ny, c) with a unit normal pointing inside, so a pixel
    centre's distance from the edge is one dot product, exact under a projection.
    Taken from the inverse map's rows r0, r1, r2 (target -> source homogeneous): the
    source edge x = k is the target line r0 - k r2, and r2 . (x, y, 1) = 1 / w > 0
    wherever the quad shows, so the sign says inside. The adjugate times the sign of the
    determinant has those rows up to a positive scale, which the normalising drops:
    a tiny determinant costs nothing. In float64 here, not in the shader, where a huge
    scale would cost the distances their precision."""
    a, b, c, dd, e, f, g, h_, i = Projective.of(d.transform).values()
    det = a * (dd * i - f * h_) - c * (b * i - f * g) + e * (b * h_ - dd * g)
    if det == 0.0 or not math.isfinite(det):
        return [_NEVER_FADED] * 4
    k = math.copysign(1.0, det)
    r0 = ((dd * i - f * h_) * k, (e * h_ - c * i) * k, (c * f - e * dd) * k)
    r1 = ((f * g - b * i) * k, (a * i - e * g) * k, (e * b - a * f) * k)
    r2 = ((b * h_ - dd * g) * k, (c * g - a * h_) * k, (a * dd - c * b) * k)
    w, h = float(d.source.width), float(d.source.height)
    lines = (r0, r1, tuple(w * q - p for p, q in zip(r0, r2)), tuple(h * q - p for p, q in zip(r1, r2)))
    out = []
    for line, hard in zip(lines, d.hard_edges):
        length = math.hypot(line[0], line[1])
        # A hard (tile) edge is not faded; nor is an edge whose line lies at infinity
        # (length 0: the quad reaches the horizon there, past what GL draws).
        out.append(_NEVER_FADED if hard or not length > 1e-12 else tuple(v / length for v in line))
    return out


_HALF_DIAGONAL = 0.70711  # quad.frag's HALF_DIAGONAL: a centre this far inside an edge is all inside
_INSET_MARGIN = 0.02      # target px: float32 distances and GL's vertex snapping (1/256 px)


def _projected_cells(m: Projective, d: Draw, rect: tuple[float, float, float, float],
                     edges: list[tuple[float, float, float]]
                     ) -> list[tuple[tuple[float, float, float, float], bool]] | None:
    """A projected draw split into a 3x3 grid of source-px rects, each with whether it
    needs quad.frag's exact-area edge coverage: the centre cell is the quad inset until
    every point of its image lies HALF_DIAGONAL or more inside all four edge lines
    (coverage 1, so its pixels skip the area code, which llvmpipe would otherwise run
    for every pixel of the quad), the eight around it the fringe. The cells share their
    corners' very floats, so GL rasterises each pixel centre in exactly one of them; the
    result is the single draw's but where the source position, interpolated over other
    triangles, rounds a bilinear read the other way (1 level, rarely). None (draw it
    whole) where the inset leaves nothing or the grown rect reaches behind the eye
    (where GL's near-plane clipping could cut the shared sides of two cells apart)."""
    w, h = float(d.source.width), float(d.source.height)
    scales = [m.axis_scales(x, y) for x, y in ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h))]
    if any(s is None for s in scales):
        return None
    # Per side, where the map squeezes across it most (at one of its two corners): half
    # a diagonal (and a bit) in target px. A tile's side that a neighbour continues is
    # not faded: not inset either.
    across = ((scales[0][0], scales[3][0]), (scales[0][1], scales[1][1]),
              (scales[1][0], scales[2][0]), (scales[3][1], scales[2][1]))
    x0, y0, x1, y1 = _fringe_bounds(m, w, h, rect, edges, across)
    if any(m.homogeneous(x, y)[2] <= 1e-6 for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))):
        return None
    steps = [0.0 if hard else 0.75 / max(min(pair), 1e-9) for pair, hard in zip(across, d.hard_edges)]
    for _ in range(4):
        ix0, iy0, ix1, iy1 = steps[0], steps[1], w - steps[2], h - steps[3]
        if not (x0 <= ix0 < ix1 <= x1 and y0 <= iy0 < iy1 <= y1):
            return None
        corners = [m.homogeneous(x, y) for x, y in ((ix0, iy0), (ix1, iy0), (ix1, iy1), (ix0, iy1))]
        # The image of the inset rect is convex and each distance is linear in target
        # px, so its least value over the cell is at a corner.
        if all(W > 0.0 and nx * X / W + ny * Y / W + c >= _HALF_DIAGONAL + _INSET_MARGIN
               for X, Y, W in corners for nx, ny, c in edges):
            break
        steps = [1.5 * step for step in steps]
    else:
        return None
    xs, ys = (x0, ix0, ix1, x1), (y0, iy0, iy1, y1)
    cells = []
    for j in range(3):
        for i in range(3):
            if xs[i] < xs[i + 1] and ys[j] < ys[j + 1]:
                cells.append(((xs[i], ys[j], xs[i + 1], ys[j + 1]), not (i == 1 and j == 1)))
    return cells


def _fringe_bounds(m: Projective, w: float, h: float, rect: tuple[float, float, float, float],
                   edges: list[tuple[float, float, float]], across) -> tuple[float, float, float, float]:
    """The part of ``rect`` (source px) a split projected draw needs: the quad grown per
    side until its image holds every pixel centre less than HALF_DIAGONAL outside all
    four edges (any other pixel lies wholly outside an edge: coverage 0). That set is
    the quad with each edge line moved out (convex, its corners where neighbouring moved
    lines meet), and the grown quad's image is convex: it holds the set if it holds
    those four corners, mapped back here by the inverse. ``rect`` itself (the whole
    draw's, grown by the least scale on every side) where a side is hard, the check
    fails or the grown part would pass it."""
    if any(edge == _NEVER_FADED for edge in edges) or not m.is_invertible():
        return rect
    inv = m.inverse()
    out = _HALF_DIAGONAL + _INSET_MARGIN
    corners = []
    for (a1, b1, c1), (a2, b2, c2) in zip(edges, edges[1:] + edges[:1]):  # left-top, top-right...
        det = a1 * b2 - a2 * b1
        if abs(det) < 1e-9:
            return rect
        c1, c2 = c1 + out, c2 + out
        sx, sy, sw = inv.homogeneous((c2 * b1 - c1 * b2) / det, (a2 * c1 - a1 * c2) / det)
        if sw == 0.0 or not m.homogeneous(sx / sw, sy / sw)[2] > 0.0:
            return rect
        corners.append((sx / sw, sy / sw))
    grow = [0.75 / max(min(pair), 1e-9) for pair in across]
    for _ in range(3):
        bounds = (max(rect[0], -grow[0]), max(rect[1], -grow[1]), min(rect[2], w + grow[2]), min(rect[3], h + grow[3]))
        if all(bounds[0] <= x <= bounds[2] and bounds[1] <= y <= bounds[3] for x, y in corners):
            return bounds
        grow = [1.5 * g for g in grow]
    return rect


def _projected_draw_rect(m: Projective, w: float, h: float) -> tuple[float, float, float, float] | None:
    """A projected quad's part to draw: all of it, grown along each axis by ~1.5 target
    px at the corner where that axis is drawn smallest. GL clips it in homogeneous space (w > 0 and the target's
    edges) before the divide, so corners behind the eye need no cutting here; the
    target cannot cut it in source px either (its preimage is unbounded past the
    horizon)."""
    scales = [m.axis_scales(x, y) for x, y in ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h))]
    shown = [s for s in scales if s is not None]
    if not shown:
        return None
    # Per axis: a steep projection squeezes one axis only, and growing that one by what
    # the other needs left its edge's fringe unshaded.
    grow_x = min(1.5 / max(min(s[0] for s in shown), 1e-6), max(w, h))
    grow_y = min(1.5 / max(min(s[1] for s in shown), 1e-6), max(w, h))
    return (-grow_x, -grow_y, w + grow_x, h + grow_y)

