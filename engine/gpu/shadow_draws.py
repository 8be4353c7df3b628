"""Draw a layer's box shadows into its raster (the analytic shader: shaders/common/
box_shadow.glsl). Inset shadows are part of the layer's own program (above the
background, below the border: raster/layer.frag, the ".shadows" variants). Outer ones
are drawn after the layer's paint, under it ("destination over": dst + src (1 - dst.a),
exactly over(paint, shadows) as CSS paints them), over the cells compositor.shadow_cells
cuts the raster into: two triangles a cell (raster/cells.vert), one draw per program,
so llvmpipe shades only those pixels, each with the program its cell needs.

The raster was cleared first and the paint drawn only over the box (``begin``), since
the grown raster holds more than the paint covers.
"""

from __future__ import annotations

import math

import moderngl
import numpy as np

from ..compositor.paint_data import LayerPaint
from ..compositor.shadow_cells import CornerBites, ShadowRingProgram, shadow_cells, sharp_kernel
from ..compositor.shadows import ShadowPaint, shadow_uniforms
from .programs import ProgramCache

__all__ = ["BoxShadowPainter", "set_shadow_uniforms", "outer_shadows"]

_PICK = ((1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0))
_SIDE = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))  # tl, tr, br, bl: right?, bottom?


def set_shadow_uniforms(program: moderngl.Program, shadows: tuple[ShadowPaint, ...], one: bool) -> None:
    """Write ``shadows`` into a shadow program's uniforms (compositor.shadows.
    shadow_uniforms: ``one`` for a program of one shadow, which has no count)."""
    counts, arrays = shadow_uniforms(shadows, one)
    for name, value in counts:
        if name in program:  # the compiler drops what a variant does not read
            program[name].value = value
    for name, rows in arrays:
        if name in program:
            program[name].write(np.asarray(rows, dtype="f4").tobytes())


def outer_shadows(paint: LayerPaint) -> tuple[ShadowPaint, ...]:
    """The paint's outer shadows that have a shape (inset ones are the layer program's)."""
    return tuple(s for s in paint.shadows if not s.inset and not s.empty)


class BoxShadowPainter:
    """The outer box shadows of raster passes, drawn with the programs and one vertex
    buffer it keeps for the executor's lifetime."""

    def __init__(self, ctx: moderngl.Context, programs: ProgramCache) -> None:
        self.ctx = ctx
        self.programs = programs
        self._buffer: moderngl.Buffer | None = None
        self._vaos: dict[ShadowRingProgram, moderngl.VertexArray] = {}

    def begin(self, paint: LayerPaint, origin: tuple[int, int], size: tuple[int, int]) -> None:
        """Before the layer's own draw: with outer shadows, clear the raster and keep
        the draw to the box (the shadows are drawn around it after)."""
        if not outer_shadows(paint):
            return
        self.ctx.clear(0.0, 0.0, 0.0, 0.0)
        x, y = paint.offset[0] - origin[0], paint.offset[1] - origin[1]
        x0, y0 = max(math.floor(x), 0), max(math.floor(y), 0)
        x1, y1 = min(math.ceil(x + paint.width), size[0]), min(math.ceil(y + paint.height), size[1])
        self.ctx.scissor = (x0, y0, max(x1 - x0, 0), max(y1 - y0, 0))

    def end_paint(self) -> None:
        self.ctx.scissor = None

    def draw(self, paint: LayerPaint, origin: tuple[int, int], size: tuple[int, int]) -> None:
        """After the layer's own draws: its outer shadows, under them. One draw per
        program, each over all the cells it shades (two triangles a cell)."""
        shadows = outer_shadows(paint)
        if not shadows:
            return
        offset = (paint.offset[0] - origin[0], paint.offset[1] - origin[1])
        cells = shadow_cells(shadows, (*offset, paint.width, paint.height), paint.radii, size)
        if not cells:
            return  # a tile inside the box: the shadows are clipped out of all of it
        sharp = sharp_kernel(shadows)
        by_mode: dict[tuple[CornerBites, bool], list] = {}
        for cell in cells:
            by_mode.setdefault((cell.bites, cell.clip), []).append(cell)
        groups = list(by_mode.items())
        # All the cells' vertices in one write, into fresh storage (orphaned): rewriting
        # a buffer a queued draw still reads would make llvmpipe wait for that draw.
        data = [_vertices(group) for _, group in groups]
        self._upload(np.concatenate(data))
        self.ctx.enable(moderngl.BLEND)
        self.ctx.blend_func = (moderngl.ONE_MINUS_DST_ALPHA, moderngl.ONE)
        self.ctx.blend_equation = moderngl.FUNC_ADD
        box = (("u_target_size", (float(size[0]), float(size[1]))), ("u_offset", offset),
               ("u_size", (paint.width, paint.height)), ("u_radii_x", tuple(r[0] for r in paint.radii)),
               ("u_radii_y", tuple(r[1] for r in paint.radii)))
        try:
            first = 0
            for ((bites, clip), _), vertices in zip(groups, data):
                if clip and len(shadows) > 1:
                    # Where the box clips them out, the clip applies to the shadows
                    # composited: all in one program.
                    passes = [(ShadowRingProgram(bites, sharp, clip, one=False), shadows)]
                else:
                    # Elsewhere one draw a shadow, the first first: each lands under the
                    # last ("destination over"), so they stack as CSS paints them.
                    passes = [(ShadowRingProgram(bites, s.sigma < 1.0, clip), (s,)) for s in shadows]
                for key, drawn in passes:
                    program = self.programs.get(key)
                    for uniform, value in box:
                        if uniform in program:  # the compiler drops what a mode does not read
                            program[uniform].value = value
                    set_shadow_uniforms(program, drawn, key.one)
                    self._vertex_array(key, program).render(moderngl.TRIANGLES, vertices=len(vertices), first=first)
                first += len(vertices)
        finally:
            self.ctx.disable(moderngl.BLEND)

    def _upload(self, data: np.ndarray) -> None:
        if self._buffer is None or self._buffer.size < data.nbytes:
            for vao in self._vaos.values():
                vao.release()
            self._vaos.clear()
            if self._buffer is not None:
                self._buffer.release()
            self._buffer = self.ctx.buffer(reserve=max(data.nbytes, 256 * _VERTEX_BYTES))
        else:
            self._buffer.orphan()
        self._buffer.write(data.tobytes())

    def _vertex_array(self, key: ShadowRingProgram, program: moderngl.Program) -> moderngl.VertexArray:
        """The program's VAO over the shared vertex buffer."""
        vao = self._vaos.get(key)
        if vao is None:
            # The corner attributes are read by the one-corner programs only (the
            # compiler drops them elsewhere): the others skip those bytes.
            layout = ("2f 4f 2f", "in_pos", "in_pick", "in_side") if "in_pick" in program else ("2f 24x", "in_pos")
            vao = self._vaos[key] = self.ctx.vertex_array(program, [(self._buffer, *layout)])
        return vao

    def release(self) -> None:
        for vao in self._vaos.values():
            vao.release()
        self._vaos.clear()
        if self._buffer is not None:
            self._buffer.release()
            self._buffer = None


_VERTEX_BYTES = 32  # in_pos, in_pick, in_side: 8 floats


def _vertices(cells) -> np.ndarray:
    """Two triangles per cell: position (texture px), corner pick and side, per vertex."""
    rows = []
    for cell in cells:
        x, y, w, h = cell.rect
        extra = (*_PICK[cell.corner], *_SIDE[cell.corner]) if 0 <= cell.corner < 4 else (0.0,) * 6
        for vx, vy in ((x, y), (x + w, y), (x, y + h), (x + w, y), (x + w, y + h), (x, y + h)):
            rows.append((vx, vy, *extra))
    return np.asarray(rows, dtype="f4")
