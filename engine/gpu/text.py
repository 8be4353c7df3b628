"""Draw a layer's text into its raster: the TextPaint's coverage mask (and one blurred
mask per shadow blur) made on the CPU by lamina.text.raster, uploaded as R8 textures
and drawn over the background and border with premultiplied source-over — shadows
first, the text last (CSS paints the first shadow on top, all under the text).

A raster pass draws one region of the layer (the whole raster, or one tile): masks are
made for that region grown by the shadows' reach, and kept in a small LRU, keyed by
what the coverage depends on, so a colour change or a second tile of the same region
uploads nothing. The raster itself is cached by the planner like any paint: a text
layer that moves or fades is not drawn here again.
"""

from __future__ import annotations

from collections import OrderedDict

import moderngl

from ..text.paint import TextPaint
from ..text.raster import blurred, coverage
from .programs import TEXT_RASTER, ProgramCache

__all__ = ["TextPainter"]

_MAX_ENTRIES = 32
_MAX_BYTES = 64 * 2**20


class _Masks:
    """The R8 textures of one region: the coverage (sigma 0) and each blurred version."""

    def __init__(self) -> None:
        self.textures: dict[float, moderngl.Texture] = {}
        self.bytes = 0

    def release(self) -> None:
        for tex in self.textures.values():
            tex.release()
        self.textures.clear()


class TextPainter:
    def __init__(self, ctx: moderngl.Context, programs: ProgramCache) -> None:
        self.ctx = ctx
        self.programs = programs
        self._masks: OrderedDict[tuple, _Masks] = OrderedDict()
        self.masks_made = 0  # coverage masks rasterized on the CPU (tests, stats)

    def draw(self, text: TextPaint, origin: tuple[int, int], size: tuple[int, int]) -> None:
        """Draw ``text`` into the bound framebuffer, whose pixel (0, 0) is the layer
        raster's pixel ``origin`` and which is ``size`` px."""
        margin = text.margin
        entry = self._entry(text, origin, size, margin)
        program = self.programs.get(TEXT_RASTER)
        vao = self.programs.vertex_array(TEXT_RASTER)
        self.ctx.enable(moderngl.BLEND)
        self.ctx.blend_func = (moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA)
        self.ctx.blend_equation = moderngl.FUNC_ADD
        try:
            for shadow in text.shadows:
                self._draw_mask(program, vao, entry.textures[shadow.sigma], shadow.color,
                                (shadow.offset[0] - margin, shadow.offset[1] - margin))
            self._draw_mask(program, vao, entry.textures[0.0], text.color, (-margin, -margin))
        finally:
            self.ctx.disable(moderngl.BLEND)

    def _draw_mask(self, program, vao, texture: moderngl.Texture, color, shift: tuple[float, float]) -> None:
        if color[3] <= 0.0:
            return
        texture.use(location=0)
        program["u_mask"].value = 0
        program["u_shift"].value = (float(shift[0]), float(shift[1]))
        program["u_color"].value = tuple(float(c) for c in color)
        program["u_exact"].value = int(float(shift[0]).is_integer() and float(shift[1]).is_integer())
        vao.render(moderngl.TRIANGLES, vertices=3)

    def _entry(self, text: TextPaint, origin: tuple[int, int], size: tuple[int, int], margin: int) -> _Masks:
        sigmas = tuple(sorted({s.sigma for s in text.shadows} | {0.0}))
        key = (text.mask_key, origin, size, margin, sigmas)
        entry = self._masks.get(key)
        if entry is not None:
            self._masks.move_to_end(key)
            return entry
        width, height = size[0] + 2 * margin, size[1] + 2 * margin
        # The mask's (0, 0) is the raster's (origin - margin): the content box lies at
        # text.origin - origin + margin in it.
        at = (text.origin[0] - origin[0] + margin, text.origin[1] - origin[1] + margin)
        mask = coverage(text.layout, at, (height, width))
        self.masks_made += 1
        entry = _Masks()
        for sigma in sigmas:
            pixels = blurred(mask, sigma)
            tex = self.ctx.texture((width, height), 1, pixels.tobytes(), dtype="f1", alignment=1)
            tex.filter = (moderngl.LINEAR, moderngl.LINEAR)
            tex.repeat_x = tex.repeat_y = False
            entry.textures[sigma] = tex
            entry.bytes += width * height
        self._masks[key] = entry
        self._trim()
        return entry

    def _trim(self) -> None:
        total = sum(e.bytes for e in self._masks.values())
        while len(self._masks) > 1 and (len(self._masks) > _MAX_ENTRIES or total > _MAX_BYTES):
            _, old = self._masks.popitem(last=False)
            total -= old.bytes
            old.release()

    @property
    def bytes(self) -> int:
        return sum(e.bytes for e in self._masks.values())

    def release(self) -> None:
        for entry in self._masks.values():
            entry.release()
        self._masks.clear()
