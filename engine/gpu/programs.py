"""Every shader program variant Lamina uses, enumerated in one place, compiled once.

A variant is a (vertex file, fragment file, #defines) triple, found by its key: a frozen
dataclass derived from what it draws (``LayerPaint.program``, ``Draw.program``, a
planned filter pass's ``ProgramCall``, shadow cells' ``ShadowRingProgram``) or a
NamedProgram. ``VARIANTS`` enumerates the keys' enums and fields; a key's ``str()`` is
the program's name in reports and traces. Parameters that animate
(colours, matrices, opacity, gradient stops) are uniforms, never defines, so changing
them never compiles anything; ``ProgramCache.compiles`` counts compilations to prove it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import Enum
from typing import Union

import moderngl

from ..compositor.paint_data import BorderKind, FillKind, InsetKind, RasterProgram
from ..compositor.shadow_cells import CornerBites, ShadowRingProgram
from ..filters.plan import COLOR_STEP_BUCKETS, SHADER_CONSTANTS, SVG_STEP_BUCKETS, FilterProgram, FilterShader, color_step_bucket
from ..limits import (MAX_BOX_SHADOWS, MAX_CLIPS_PER_DRAW, MAX_COLOR_STEPS, MAX_GRADIENT_STOPS, MAX_MASKS_PER_DRAW,
                      MAX_POLYGON_POINTS)
from ..textures import CompositeProgram
from .shader_source import assemble

__all__ = [
    "ProgramKey",
    "ProgramVariant",
    "NamedProgram",
    "VARIANTS",
    "VARIANTS_BY_NAME",
    "ProgramCache",
    "PREMULTIPLY",
    "UNPREMULTIPLY",
    "TEXT_RASTER",
    "POLYGON_MASK",
    "COMPOSITE_PLAIN",
    "COMPOSITE_BACKDROP",
]


class NamedProgram(Enum):
    """The programs that have one variant each; the value is the program's name."""

    # A polygon clip-path's coverage (shaders/mask/polygon.frag), rastered into a mask.
    POLYGON_MASK = "mask.polygon"
    # A quad at whole pixels without clips, masks or blending: texel-exact.
    COMPOSITE_PLAIN = "composite.plain"
    # What lies under an element, copied out of the target drawn so far (a BackdropPass).
    COMPOSITE_BACKDROP = "composite.backdrop"
    # Text coverage masks over a layer raster (shaders/raster/text.frag, lamina.gpu.text).
    TEXT_RASTER = "raster.text"
    # Pixels in and out (shaders/pixels/convert.frag): straight -> premultiplied where an
    # image goes up, premultiplied -> straight where a frame comes down.
    PREMULTIPLY = "pixels.premultiply"
    UNPREMULTIPLY = "pixels.unpremultiply"

    def __str__(self) -> str:
        return self.value


POLYGON_MASK = NamedProgram.POLYGON_MASK
COMPOSITE_PLAIN = NamedProgram.COMPOSITE_PLAIN
COMPOSITE_BACKDROP = NamedProgram.COMPOSITE_BACKDROP
TEXT_RASTER = NamedProgram.TEXT_RASTER
PREMULTIPLY = NamedProgram.PREMULTIPLY
UNPREMULTIPLY = NamedProgram.UNPREMULTIPLY

# What names a program: a key derived from what it draws (a paint, a draw, a planned
# filter pass, shadow cells), or one of the single programs. ``str(key)`` is its name.
ProgramKey = Union[RasterProgram, ShadowRingProgram, CompositeProgram, FilterProgram, NamedProgram]


@dataclass(frozen=True)
class ProgramVariant:
    """How to compile one program: its vertex and fragment files and #defines."""

    key: ProgramKey
    vertex: str
    fragment: str
    defines: tuple[tuple[str, int], ...] = ()

    @property
    def name(self) -> str:
        return str(self.key)


# The #defines that pick a raster program's code (shaders/raster/layer.frag).
_PAINT_VALUES = {FillKind.COLOR: 0, FillKind.LINEAR: 1, FillKind.RADIAL: 2, FillKind.IMAGE: 3, FillKind.CONIC: 4}
_PAINT_DEFINES = {f"PAINT_{kind.value.upper()}": value for kind, value in _PAINT_VALUES.items()}
_BORDER_DASHES = {BorderKind.SOLID: 0, BorderKind.DASHES: 1, BorderKind.DOTS: 2}
# Inset box shadows (shaders/common/box_shadow.glsl): any number with the exact kernel,
# or one soft one with the folded kernel and no loop.
_INSET_DEFINES = {InsetKind.NONE: (),
                  InsetKind.SHADOWS: (("BS_MODE", 0), ("BS_SHARP", 1), ("SHADOWS", MAX_BOX_SHADOWS)),
                  InsetKind.ONE_SOFT: (("BS_MODE", 0), ("BS_ONE", 1), ("BS_SHARP", 0), ("SHADOWS", 1))}
_BITES_MODE = {CornerBites.ALL: 0, CornerBites.CORNER: 1, CornerBites.NONE: 2}  # BS_MODE


def _enumerate() -> dict[ProgramKey, ProgramVariant]:
    variants: dict[ProgramKey, ProgramVariant] = {}

    def add(key: ProgramKey, vertex: str, fragment: str, defines=()) -> None:
        variants[key] = ProgramVariant(key, vertex, fragment, tuple(sorted(dict(defines).items())))

    # A layer's raster: every fill, border pattern and inset shadow form.
    for fill, border, inset in itertools.product(FillKind, BorderKind, InsetKind):
        defines = {**_PAINT_DEFINES, "PAINT": _PAINT_VALUES[fill], "MAX_STOPS": MAX_GRADIENT_STOPS,
                   "BORDER_DASHES": _BORDER_DASHES[border], **dict(_INSET_DEFINES[inset])}
        add(RasterProgram(fill, border, inset), "common/fullscreen.vert", "raster/layer.frag", defines)
    # Outer box shadows (gpu.shadow_draws): one shadow a draw (most regions), or all of a
    # layer's at once where they are clipped out by the box (the clip applies to them
    # composited).
    for bites, sharp, clip, one in itertools.product(CornerBites, (False, True), (False, True), (True, False)):
        if not one and not clip:
            continue
        count = (("BS_ONE", 1), ("SHADOWS", 1)) if one else (("SHADOWS", MAX_BOX_SHADOWS),)
        add(ShadowRingProgram(bites, sharp, clip, one), "raster/cells.vert", "raster/box_shadow.frag",
            (("BS_CLIP", int(clip)), ("BS_MODE", _BITES_MODE[bites]), ("BS_SHARP", int(sharp)), *count))
    for clips, blend, masks in itertools.product(range(MAX_CLIPS_PER_DRAW + 1), (False, True),
                                                 range(MAX_MASKS_PER_DRAW + 1)):
        add(CompositeProgram(clips, blend, masks), "composite/quad.vert", "composite/quad.frag",
            (("BLEND", int(blend)), ("CLIP_COUNT", clips), ("MASK_COUNT", masks)))
    # The inset cell of a split projected draw (executor._projected_cells): no edge area
    # code; only unblended, unmasked draws are split.
    for clips in range(MAX_CLIPS_PER_DRAW + 1):
        add(CompositeProgram(clips, edge_area=False), "composite/quad.vert", "composite/quad.frag",
            (("BLEND", 0), ("CLIP_COUNT", clips), ("EDGE_AREA", 0), ("MASK_COUNT", 0)))
    add(POLYGON_MASK, "common/fullscreen.vert", "mask/polygon.frag", (("MAX_POLYGON_POINTS", MAX_POLYGON_POINTS),))
    add(COMPOSITE_PLAIN, "composite/quad.vert", "composite/plain.frag")
    add(COMPOSITE_BACKDROP, "common/fullscreen.vert", "composite/backdrop.frag")
    add(TEXT_RASTER, "common/fullscreen.vert", "raster/text.frag")
    # Filter passes get the constants they share with the OpenCL kernels (filters.plan),
    # each in four alpha forms; colour passes one program per step bucket.
    # SVG colour passes one per step bucket and form; turbulence and the way back from a
    # float image (to_srgb) the same with the colour steps fused after their work, and
    # one without (FilterProgram.svg_color).
    buckets = [b for b in COLOR_STEP_BUCKETS if b <= color_step_bucket(MAX_COLOR_STEPS)]
    svg_forms = {shader: [FilterProgram(shader, b, svg_linear=lin, svg_transfer=tr)
                          for b, lin, tr in itertools.product(SVG_STEP_BUCKETS, (False, True), (False, True))]
                 for shader in (FilterShader.SVG_COLOR, FilterShader.TURBULENCE, FilterShader.TO_SRGB)}
    for shader in (FilterShader.TURBULENCE, FilterShader.TO_SRGB):  # no fused steps
        svg_forms[shader].insert(0, FilterProgram(shader))
    for shader in FilterShader:
        forms = svg_forms.get(shader, [FilterProgram(shader, steps) for steps in
                                       (buckets if shader is FilterShader.COLOR else (0,))])
        for form in forms:
            extra = (("STEPS", form.steps),) if shader is FilterShader.COLOR else ()
            extra = form.svg_defines() if shader in svg_forms else extra
            for source, output in itertools.product((False, True), (False, True)):
                add(form.with_alpha(source, output), "common/fullscreen.vert", f"filters/{shader.value}.frag",
                    (*SHADER_CONSTANTS.items(), *extra, ("OUTPUT_STRAIGHT", int(output)), ("SOURCE_STRAIGHT", int(source))))
    for key, source, output in ((PREMULTIPLY, 1, 0), (UNPREMULTIPLY, 0, 1)):
        add(key, "common/fullscreen.vert", "pixels/convert.frag", (("OUTPUT_STRAIGHT", output), ("SOURCE_STRAIGHT", source)))
    return variants


VARIANTS: dict[ProgramKey, ProgramVariant] = _enumerate()
# The same programs by name, for reports and tests (each key's str()).
VARIANTS_BY_NAME: dict[str, ProgramVariant] = {variant.name: variant for variant in VARIANTS.values()}
if len(VARIANTS_BY_NAME) != len(VARIANTS):
    raise AssertionError("two program keys share a name")


class ProgramCache:
    """Compiles variants on first use and keeps them for the context's lifetime."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self._programs: dict[ProgramKey, moderngl.Program] = {}
        self._vaos: dict[ProgramKey, moderngl.VertexArray] = {}
        self.compiles = 0

    def get(self, key: ProgramKey) -> moderngl.Program:
        program = self._programs.get(key)
        if program is None:
            variant = VARIANTS[key]
            defines = dict(variant.defines)
            program = self.ctx.program(
                vertex_shader=assemble(variant.vertex, defines),
                fragment_shader=assemble(variant.fragment, defines),
            )
            self._programs[key] = program
            self.compiles += 1
        return program

    def vertex_array(self, key: ProgramKey) -> moderngl.VertexArray:
        """An attribute-less VAO: the vertex shaders build geometry from gl_VertexID."""
        vao = self._vaos.get(key)
        if vao is None:
            vao = self.ctx.vertex_array(self.get(key), [])
            self._vaos[key] = vao
        return vao

    def release(self) -> None:
        for vao in self._vaos.values():
            vao.release()
        for program in self._programs.values():
            program.release()
        self._vaos.clear()
        self._programs.clear()

    def warm_up(self) -> None:
        for key in VARIANTS:
            self.vertex_array(key)
