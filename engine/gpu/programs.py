"""Every shader program variant Lamina uses, enumerated in one place, compiled once.

A variant is a (vertex file, fragment file, #defines) triple. Parameters that animate
(colours, matrices, opacity, gradient stops) are uniforms, never defines, so changing
them never compiles anything; ``ProgramCache.compiles`` counts compilations to prove it.
"""

from __future__ import annotations

from dataclasses import dataclass

import moderngl

from ..filters.plan import SHADER_CONSTANTS
from ..limits import MAX_CLIPS_PER_DRAW, MAX_COLOR_STEPS, MAX_GRADIENT_STOPS
from .shader_source import assemble

__all__ = [
    "ProgramVariant",
    "VARIANTS",
    "ProgramCache",
    "raster_variant",
    "composite_variant",
    "color_filter_variant",
    "color_step_bucket",
]

_PAINT_KINDS = {"color": 0, "linear": 1, "radial": 2, "image": 3}
_PAINT_DEFINES = {f"PAINT_{k.upper()}": v for k, v in _PAINT_KINDS.items()}


@dataclass(frozen=True)
class ProgramVariant:
    name: str
    vertex: str
    fragment: str
    defines: tuple[tuple[str, int], ...] = ()


def raster_variant(paint_kind: str) -> str:
    return f"raster.{paint_kind}"


def composite_variant(clip_count: int, blend: bool = False) -> str:
    return f"composite.{'blend.' if blend else ''}clip{clip_count}"


def color_step_bucket(steps: int) -> int:
    """Fused colour passes compile for 0-4, 6, 8, 12 and 16 steps; other counts are
    padded with identity steps (exact: the values are already clamped). An animation
    whose amounts cross a no-op (an amount reaching 1, say) then mostly keeps its
    program, and padding costs at most a third more arithmetic."""
    return next(b for b in _COLOR_BUCKETS if b >= steps)


_COLOR_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16)


def color_filter_variant(steps: int) -> str:
    return f"filter.color{color_step_bucket(steps)}"


def _enumerate() -> dict[str, ProgramVariant]:
    variants = {}
    for kind, value in _PAINT_KINDS.items():
        defines = {**_PAINT_DEFINES, "PAINT": value, "MAX_STOPS": MAX_GRADIENT_STOPS}
        name = raster_variant(kind)
        variants[name] = ProgramVariant(name, "common/fullscreen.vert", "raster/layer.frag", tuple(sorted(defines.items())))
    for clips in range(MAX_CLIPS_PER_DRAW + 1):
        for blend in (False, True):
            name = composite_variant(clips, blend)
            variants[name] = ProgramVariant(name, "composite/quad.vert", "composite/quad.frag",
                                            (("BLEND", int(blend)), ("CLIP_COUNT", clips)))
    variants["composite.plain"] = ProgramVariant("composite.plain", "composite/quad.vert", "composite/plain.frag")
    variants["composite.backdrop"] = ProgramVariant("composite.backdrop", "common/fullscreen.vert", "composite/backdrop.frag")
    # Filter passes get the constants they share with the OpenCL kernels (filters.plan).
    shared = tuple(sorted(SHADER_CONSTANTS.items()))
    for steps in sorted({color_step_bucket(n) for n in range(0, MAX_COLOR_STEPS + 1)}):
        name = color_filter_variant(steps)
        variants[name] = ProgramVariant(name, "common/fullscreen.vert", "filters/color.frag",
                                        tuple(sorted((*shared, ("STEPS", steps)))))
    for kind in ("blur", "downsample", "upsample", "shadow"):
        name = f"filter.{kind}"
        variants[name] = ProgramVariant(name, "common/fullscreen.vert", f"filters/{kind}.frag", shared)
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
