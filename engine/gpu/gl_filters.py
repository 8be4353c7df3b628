"""Run planned filter passes with OpenGL (moderngl), one fragment-shader pass each.

The GL executor (``lamina.gpu.executor``) calls ``GLFilterRunner.run_pass`` for every
FilterPass placed on GL, in scenes and in ``filters.apply`` graphs alike. ``HANDLERS``
has one method per ``PassKind``; what the GLSL and OpenCL passes must agree on (tap
weights, offsets, step matrices, shared constants) comes from the plan.
"""

from __future__ import annotations

from typing import Callable

import moderngl
import numpy as np

from ..filters.plan import ColorPass, FilterProgram, PassKind, PlannedPass
from .pictures import KeptPictures
from .pool import PooledTarget
from .programs import ProgramCache

__all__ = ["GLFilterRunner", "HANDLERS", "CLAIMS"]

_IDENTITY = np.hstack([np.eye(3), np.zeros((3, 1))]).astype("f4")


class GLFilterRunner:
    def __init__(self, ctx: moderngl.Context, programs: ProgramCache) -> None:
        self.ctx = ctx
        self.programs = programs
        self._alpha = (False, False)  # the pass being drawn: (straight source, straight output)
        # ProgramCall.textures (feImage pictures) by key (gpu.pictures)
        self.pictures: KeptPictures[moderngl.Texture] = KeptPictures(self._texture, lambda t: t.release())

    def run_pass(self, p: PlannedPass, inputs: list[moderngl.Texture], target: PooledTarget, *,
                 straight_source: bool = False, straight_output: bool = False) -> None:
        """Draw one planned pass into ``target`` (blending off, full viewport). With
        ``straight_source`` the first input holds straight RGBA, premultiplied as it is
        read; with ``straight_output`` the result is written un-premultiplied (both
        rounded as lamina.images rounds: shaders/common/alpha.glsl)."""
        target.framebuffer.use()
        w, h = target.key[0], target.key[1]
        self.ctx.viewport = (0, 0, w, h)
        self.ctx.disable(moderngl.BLEND)
        self._alpha = (straight_source, straight_output)
        key = HANDLERS[p.pass_kind](self, p, inputs)
        program = self.programs.get(key)
        inputs[0].use(location=0)
        if "u_source" in program:
            program["u_source"].value = 0
        self.programs.vertex_array(key).render(moderngl.TRIANGLES, vertices=3)

    def _program(self, base: FilterProgram) -> tuple[FilterProgram, moderngl.Program]:
        """The variant of ``base`` for the pass being drawn (its alpha forms)."""
        key = base.with_alpha(*self._alpha)
        return key, self.programs.get(key)

    # -- one handler per pass kind: set the program's uniforms, return its key -----------
    def _color(self, p: ColorPass, inputs: list[moderngl.Texture]) -> FilterProgram:
        key, program = self._program(FilterProgram.color(len(p.steps)))
        program["u_alpha"].value = p.alpha
        if p.steps:
            mats = p.matrices()  # (n, 3, 4)
            pad = key.steps - len(p.steps)  # padded to the program's bucket with identity steps
            if pad:
                mats = np.concatenate([mats, np.repeat(_IDENTITY[None], pad, axis=0)])
            # GLSL mat3 is column-major: write each 3x3 transposed.
            program["u_matrix"].write(np.ascontiguousarray(mats[:, :, :3].transpose(0, 2, 1)).tobytes())
            program["u_offset"].write(np.ascontiguousarray(mats[:, :, 3]).tobytes())
        return key

    def _call(self, p: PlannedPass, inputs: list[moderngl.Texture]) -> FilterProgram:
        """Any pass that carries its program call (filters.plan.ProgramCall) as data."""
        call = p.gl()
        key, program = self._program(call.program)
        for warm in call.warm:
            self.programs.get(warm)
        for value_name, value in call.uniforms:
            program[value_name].value = value
        for unit, sampler in enumerate(call.samplers[1:], 1):  # run_pass binds the first
            inputs[unit].use(location=unit)
            program[sampler].value = unit
        for unit, (sampler, picture, pixels) in enumerate(call.textures, len(call.samplers)):
            self._picture(picture, pixels).use(location=unit)
            program[sampler].value = unit
        return key

    def _picture(self, key: str, pixels: np.ndarray) -> moderngl.Texture:
        """The texture of a pass's picture (feImage), uploaded once per key: an animation
        redraws it without uploading it again. A few are kept (the latest used)."""
        return self.pictures.get(key, pixels)

    def _texture(self, pixels: np.ndarray) -> moderngl.Texture:
        h, w = pixels.shape[:2]
        texture = self.ctx.texture((w, h), 4, pixels.tobytes())
        texture.filter = (moderngl.NEAREST, moderngl.NEAREST)
        return texture


# The planned pass kinds this runner executes: all of them (it runs every FilterPass
# placed on its executor). A kind it claims without a handler fails
# tests/unit/test_pass_protocol.py.
CLAIMS: frozenset[PassKind] = frozenset(PassKind)

# Every pass kind but colour carries its program call as data (filters.plan.ProgramCall):
# one generic handler for them, so a new spatial pass needs nothing here.
HANDLERS: dict[PassKind, Callable[[GLFilterRunner, PlannedPass, list], FilterProgram]] = {
    kind: GLFilterRunner._call for kind in PassKind
}
HANDLERS[PassKind.COLOR] = GLFilterRunner._color
