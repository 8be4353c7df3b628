"""Every shader program variant Lamina uses, enumerated in one place, compiled once.

A variant is a (vertex file, fragment file, #defines) triple. Parameters that animate
(colours, matrices, opacity, gradient stops) are uniforms, never defines, so changing
them never compiles anything; ``ProgramCache.compiles`` counts compilations to prove it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import moderngl

from ..filters.plan import FILTER_PROGRAMS, SHADER_CONSTANTS
from ..compositor.paint_data import DASHES_SUFFIX, DOTS_SUFFIX, SHADOW_SUFFIX, SOFT_SHADOW_SUFFIX
from ..limits import (MAX_BOX_SHADOWS, MAX_CLIPS_PER_DRAW, MAX_COLOR_STEPS, MAX_GRADIENT_STOPS, MAX_MASKS_PER_DRAW,
                      MAX_POLYGON_POINTS)
from .shader_source import assemble

__all__ = [
    "ProgramVariant",
    "VARIANTS",
    "ProgramCache",
    "raster_variant",
    "composite_variant",
    "color_filter_variant",
    "color_step_bucket",
    "straight_variant",
    "shadow_ring_variant",
    "PREMULTIPLY",
    "UNPREMULTIPLY",
    "TEXT_RASTER",
    "POLYGON_MASK",
]

_PAINT_KINDS = {"color": 0, "linear": 1, "radial": 2, "image": 3, "conic": 4}
_PAINT_DEFINES = {f"PAINT_{k.upper()}": v for k, v in _PAINT_KINDS.items()}


@dataclass(frozen=True)
class ProgramVariant:
    name: str
    vertex: str
    fragment: str
    defines: tuple[tuple[str, int], ...] = ()


def raster_variant(paint_kind: str) -> str:
    """The raster program for a LayerPaint.shader_variant: a paint kind, with
    ``.dashes`` / ``.dots`` for dashed / dotted borders ("linear", "image.dots")."""
    return f"raster.{paint_kind}"


_SHADOW_MODES = {"all": 0, "corner": 1, "none": 2}  # which corner bites a region evaluates


def shadow_ring_variant(mode: str, sharp: bool, clip: bool = True, one: bool = True) -> str:
    """The program of a layer's outer box shadows over one region of its raster: the
    bites it evaluates ("all", "corner", "none"), the kernel (exact or folded), whether
    the region touches the border box the shadows are clipped out by, and whether it
    draws one shadow (else all of them: only with ``clip``)."""
    return f"raster.shadow.{mode}.{'sharp' if sharp else 'soft'}{'.clip' if clip else ''}{'' if one else '.all'}"


def composite_variant(clip_count: int, blend: bool = False, masks: int = 0) -> str:
    """The quad program for a draw with ``clip_count`` clips, a blend mode or not, and
    ``masks`` masks multiplied in (0: the programs every unmasked draw always had)."""
    return f"composite.{'blend.' if blend else ''}{f'mask{masks}.' if masks else ''}clip{clip_count}"


# A polygon clip-path's coverage (shaders/mask/polygon.frag), rastered into a mask.
POLYGON_MASK = "mask.polygon"


def color_step_bucket(steps: int) -> int:
    """Fused colour passes compile for 0-4, 6, 8, 12 and 16 steps; other counts are
    padded with identity steps (exact: the values are already clamped). An animation
    whose amounts cross a no-op (an amount reaching 1, say) then mostly keeps its
    program, and padding costs at most a third more arithmetic."""
    return next(b for b in _COLOR_BUCKETS if b >= steps)


_COLOR_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16)


def color_filter_variant(steps: int) -> str:
    return f"filter.color{color_step_bucket(steps)}"


# Text coverage masks over a layer raster (shaders/raster/text.frag, lamina.gpu.text).
TEXT_RASTER = "raster.text"

# Pixels in and out (shaders/pixels/convert.frag): straight -> premultiplied where an
# image goes up, premultiplied -> straight where a frame comes down.
PREMULTIPLY = "pixels.premultiply"
UNPREMULTIPLY = "pixels.unpremultiply"
_STRAIGHT_SUFFIX = {(False, False): "", (True, False): ".straight-in", (False, True): ".straight-out",
                    (True, True): ".straight-in-out"}


def straight_variant(name: str, source: bool, output: bool) -> str:
    """The filter program ``name`` that premultiplies its straight source as it reads it
    (``source``) and/or un-premultiplies what it writes (``output``): the first and last
    passes of a ``filters.apply`` of straight pixels (shaders/common/alpha.glsl)."""
    return name + _STRAIGHT_SUFFIX[bool(source), bool(output)]


def _enumerate() -> dict[str, ProgramVariant]:
    variants = {}
    for kind, value in _PAINT_KINDS.items():
        # Dashed and dotted borders (shaders/common/dashes.glsl) compile apart, so a solid
        # border pays nothing for them, nor a dashed one for dots.
        for dashes, suffix in enumerate(("", DASHES_SUFFIX, DOTS_SUFFIX)):
            defines = {**_PAINT_DEFINES, "PAINT": value, "MAX_STOPS": MAX_GRADIENT_STOPS, "BORDER_DASHES": dashes}
            name = raster_variant(kind + suffix)
            variants[name] = ProgramVariant(name, "common/fullscreen.vert", "raster/layer.frag",
                                            tuple(sorted(defines.items())))
    # Box shadows (shaders/common/box_shadow.glsl) compile apart too, so layers without
    # them run the programs they had: each raster variant again with inset shadows (the
    # exact kernel), and the outer shadows' own programs (gpu.shadow_draws).
    # A single soft inset shadow has a variant of its own: the folded kernel, and no loop
    # over uniform arrays (which llvmpipe indexes by gathers).
    shadow = {SHADOW_SUFFIX: (("BS_MODE", 0), ("BS_SHARP", 1), ("SHADOWS", MAX_BOX_SHADOWS)),
              SOFT_SHADOW_SUFFIX: (("BS_MODE", 0), ("BS_ONE", 1), ("BS_SHARP", 0), ("SHADOWS", 1))}
    for name, base in [(n, v) for n, v in variants.items() if n.startswith("raster.")]:
        for suffix, defines in shadow.items():
            shadowed = raster_variant(name[len("raster."):] + suffix)
            variants[shadowed] = replace(base, name=shadowed, defines=tuple(sorted((*base.defines, *defines))))
    # Outer ones: one shadow a draw (most regions), or all of a layer's at once where
    # they are clipped out by the box (the clip applies to them composited).
    for mode, value in _SHADOW_MODES.items():
        for sharp, clip, one in itertools.product((False, True), (False, True), (True, False)):
            if not one and not clip:
                continue
            name = shadow_ring_variant(mode, sharp, clip, one)
            count = (("BS_ONE", 1), ("SHADOWS", 1)) if one else (("SHADOWS", MAX_BOX_SHADOWS),)
            variants[name] = ProgramVariant(name, "raster/cells.vert", "raster/box_shadow.frag",
                                            tuple(sorted((("BS_CLIP", int(clip)), ("BS_MODE", value),
                                                          ("BS_SHARP", int(sharp)), *count))))
    for clips in range(MAX_CLIPS_PER_DRAW + 1):
        for blend in (False, True):
            for masks in range(MAX_MASKS_PER_DRAW + 1):
                name = composite_variant(clips, blend, masks)
                variants[name] = ProgramVariant(name, "composite/quad.vert", "composite/quad.frag",
                                                (("BLEND", int(blend)), ("CLIP_COUNT", clips), ("MASK_COUNT", masks)))
    variants[POLYGON_MASK] = ProgramVariant(POLYGON_MASK, "common/fullscreen.vert", "mask/polygon.frag",
                                            (("MAX_POLYGON_POINTS", MAX_POLYGON_POINTS),))
    variants["composite.plain"] = ProgramVariant("composite.plain", "composite/quad.vert", "composite/plain.frag")
    variants["composite.backdrop"] = ProgramVariant("composite.backdrop", "common/fullscreen.vert", "composite/backdrop.frag")
    # A layer's text: its coverage masks drawn over its raster (lamina.gpu.text).
    variants[TEXT_RASTER] = ProgramVariant(TEXT_RASTER, "common/fullscreen.vert", "raster/text.frag")
    # Filter passes get the constants they share with the OpenCL kernels (filters.plan),
    # each in four alpha forms (straight_variant).
    shared = tuple(SHADER_CONSTANTS.items())
    filters = {color_filter_variant(steps): ("filters/color.frag", (*shared, ("STEPS", steps)))
               for steps in sorted({color_step_bucket(n) for n in range(0, MAX_COLOR_STEPS + 1)})}
    filters.update({key: (fragment, shared) for key, fragment in FILTER_PROGRAMS.items()})
    for base, (fragment, defines) in filters.items():
        for source, output in _STRAIGHT_SUFFIX:
            name = straight_variant(base, source, output)
            alpha = (("OUTPUT_STRAIGHT", int(output)), ("SOURCE_STRAIGHT", int(source)))
            variants[name] = ProgramVariant(name, "common/fullscreen.vert", fragment, tuple(sorted((*defines, *alpha))))
    for name, source, output in ((PREMULTIPLY, 1, 0), (UNPREMULTIPLY, 0, 1)):
        variants[name] = ProgramVariant(name, "common/fullscreen.vert", "pixels/convert.frag",
                                        (("OUTPUT_STRAIGHT", output), ("SOURCE_STRAIGHT", source)))
    return variants


VARIANTS: dict[str, ProgramVariant] = _enumerate()


class ProgramCache:
    """Compiles variants on first use and keeps them for the context's lifetime."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self._programs: dict[str, moderngl.Program] = {}
        self._vaos: dict[str, moderngl.VertexArray] = {}
        self.compiles = 0

    def get(self, name: str) -> moderngl.Program:
        program = self._programs.get(name)
        if program is None:
            variant = VARIANTS[name]
            defines = dict(variant.defines)
            program = self.ctx.program(
                vertex_shader=assemble(variant.vertex, defines),
                fragment_shader=assemble(variant.fragment, defines),
            )
            self._programs[name] = program
            self.compiles += 1
        return program

    def vertex_array(self, name: str) -> moderngl.VertexArray:
        """An attribute-less VAO: the vertex shaders build geometry from gl_VertexID."""
        vao = self._vaos.get(name)
        if vao is None:
            vao = self.ctx.vertex_array(self.get(name), [])
            self._vaos[name] = vao
        return vao

    def release(self) -> None:
        for vao in self._vaos.values():
            vao.release()
        for program in self._programs.values():
            program.release()
        self._vaos.clear()
        self._programs.clear()

    def warm_up(self) -> None:
        for name in VARIANTS:
            self.vertex_array(name)
