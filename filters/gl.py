"""Run FilterPlan passes with OpenGL (moderngl), one fragment-shader pass each.

Used by ``filters.apply(..., backend="gl")`` and by the scene executor for filtered
layers. Every image of a plan at divisor ``s`` is ceil(W / s) x ceil(H / s) of the
plan's input; intermediate textures come from the renderer's pool.
"""

from __future__ import annotations

import moderngl
import numpy as np

from ..gpu.pool import PooledTarget, TexturePool
from ..gpu.programs import ProgramCache, color_filter_variant, color_step_bucket

from .plan import MARGIN, BlurPass, ColorPass, FilterPlan, PlannedPass, ResamplePass, ShadowPass, image_size
from .schedule import run_plan

__all__ = ["GLFilterRunner", "image_size", "blur_norm"]





_IDENTITY = np.hstack([np.eye(3), np.zeros((3, 1))]).astype("f4")


def blur_norm(sigma: float, radius: int) -> float:
    """1 / the sum of the 2 radius + 1 Gaussian weights the blur shader produces."""
    i = np.arange(1, radius + 1, dtype=np.float64)
    return float(1.0 / (1.0 + 2.0 * np.exp(-(i * i) / (2.0 * sigma * sigma)).sum()))


class GLFilterRunner:
    def __init__(self, ctx: moderngl.Context, programs: ProgramCache, pool: TexturePool) -> None:
        self.ctx = ctx
        self.programs = programs
        self.pool = pool

    def run_pass(self, p: PlannedPass, inputs: list[moderngl.Texture], target: PooledTarget) -> None:
        """Draw one planned pass into ``target`` (blending off, full viewport)."""
        target.framebuffer.use()
        w, h = target.key[0], target.key[1]
        self.ctx.viewport = (0, 0, w, h)
        self.ctx.disable(moderngl.BLEND)
        if isinstance(p, ColorPass):
            name = color_filter_variant(len(p.steps))
            program = self.programs.get(name)
            program["u_alpha"].value = p.alpha
            if p.steps:
                mats = np.array([s.matrix for s in p.steps], dtype="f4")  # (n, 3, 4)
                pad = color_step_bucket(len(p.steps)) - len(p.steps)
                if pad:
                    mats = np.concatenate([mats, np.repeat(_IDENTITY[None], pad, axis=0)])
                # GLSL mat3 is column-major: write each 3x3 transposed.
                program["u_matrix"].write(np.ascontiguousarray(mats[:, :, :3].transpose(0, 2, 1)).tobytes())
                program["u_offset"].write(np.ascontiguousarray(mats[:, :, 3]).tobytes())
        elif isinstance(p, BlurPass):
            name = "filter.blur"
            program = self.programs.get(name)
            # A blur animated past sigma 4 starts halving: compile those programs with the
            # blur so the animation does not hitch on a compile half way.
            self.programs.get("filter.downsample")
            self.programs.get("filter.upsample")
            program["u_axis"].value = (1, 0) if p.axis == "x" else (0, 1)
            program["u_radius"].value = p.radius
            program["u_sigma"].value = p.sigma
            program["u_norm"].value = blur_norm(p.sigma, p.radius)
        elif isinstance(p, ResamplePass):
            name = "filter.downsample" if p.direction == "down" else "filter.upsample"
            program = self.programs.get(name)
            if p.direction == "up":
                program["u_scale"].value = float(p.source_scale)
            else:
                # Output texel t starts at full-size x = (t - 1) * scale; the input's texel
                # u at (u - margin) * source_scale.
                off = -2 * MARGIN + (MARGIN if p.source_scale > 1 else 0)
                program["u_offset"].value = (off, off)
        elif isinstance(p, ShadowPass):
            name = "filter.shadow"
            program = self.programs.get(name)
            program["u_offset"].value = p.offset
            program["u_color"].value = p.color
            inputs[1].use(location=1)
            program["u_blurred"].value = 1
        else:  # pragma: no cover
            raise AssertionError(f"unknown pass {p!r}")
        inputs[0].use(location=0)
        if "u_source" in program:
            program["u_source"].value = 0
        self.programs.vertex_array(name).render(moderngl.TRIANGLES, vertices=3)

    def run(self, plan: FilterPlan, source: PooledTarget, width: int, height: int) -> PooledTarget:
        """Run every pass (filters.schedule); return the target holding ``plan.output``."""
        return run_plan(plan, source, width, height, self.pool.acquire, self.pool.release,
                        lambda p, inputs, target: self.run_pass(p, [t.texture for t in inputs], target))
