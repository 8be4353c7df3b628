"""The OpenGL context: headless through EGL, or adopted from a window.

``GPUContext.headless()`` makes a standalone OpenGL 3.3+ core context with EGL and no
display (Mesa llvmpipe on machines without a GPU). ``GPUContext.from_current()`` wraps
the context a window toolkit (glfw) made current, so the same renderer can draw there.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import moderngl

from ..errors import GPUOutOfMemoryError, GPUUnavailableError
from ..limits import Limits

__all__ = ["GPUContext", "RendererInfo", "GLError", "INSTALL_HINT", "REQUIRED_GL"]

REQUIRED_GL = 330
INSTALL_HINT = (
    "Lamina needs OpenGL 3.3 through EGL. On Debian/Ubuntu install Mesa's EGL and GL "
    "drivers: apt-get install -y libegl1 libegl-mesa0 libgl1-mesa-dri libgl1 "
    "(software rendering with llvmpipe works without a GPU)"
)


class GLError(RuntimeError):
    """OpenGL reported an error: a bug in Lamina (inputs are validated before the GPU)."""


@dataclass(frozen=True)
class RendererInfo:
    """The renderer fingerprint (what golden images are valid for) and its limits."""

    renderer: str
    vendor: str
    version: str
    version_code: int
    max_texture_size: int
    max_viewport: tuple[int, int]
    max_samples: int
    backend: str

    @property
    def fingerprint(self) -> dict[str, str]:
        return {"GL_RENDERER": self.renderer, "GL_VERSION": self.version}

    def limits(self) -> Limits:
        return Limits(max_texture_size=self.max_texture_size, source=self.renderer)

    def to_dict(self) -> dict:
        return asdict(self)


class GPUContext:
    """A moderngl context plus what Lamina knows about it."""

    def __init__(self, ctx: moderngl.Context, backend: str) -> None:
        if ctx.version_code < REQUIRED_GL:
            raise GPUUnavailableError(
                f"OpenGL {ctx.version_code / 100:.1f} found, Lamina needs 3.3 or newer. {INSTALL_HINT}"
            )
        self.ctx = ctx
        info = ctx.info
        viewport = info.get("GL_MAX_VIEWPORT_DIMS", (0, 0))
        self.info = RendererInfo(
            renderer=str(info.get("GL_RENDERER", "unknown")),
            vendor=str(info.get("GL_VENDOR", "unknown")),
            version=str(info.get("GL_VERSION", "unknown")),
            version_code=int(ctx.version_code),
            max_texture_size=int(info.get("GL_MAX_TEXTURE_SIZE", 0)),
            max_viewport=(int(viewport[0]), int(viewport[1])),
            max_samples=int(info.get("GL_MAX_SAMPLES", 0)),
            backend=backend,
        )

    @classmethod
    def headless(cls) -> "GPUContext":
        """A standalone EGL context (no display, no window)."""
        try:
            ctx = moderngl.create_standalone_context(backend="egl", require=REQUIRED_GL)
        except Exception as exc:  # glcontext raises bare Exceptions with driver text
            raise GPUUnavailableError(f"cannot create a headless OpenGL context ({exc}). {INSTALL_HINT}") from None
        return cls(ctx, "egl")

    @classmethod
    def from_current(cls) -> "GPUContext":
        """Adopt the OpenGL context current on this thread through the window system
        (GLX on X11: a glfw window's), so the same renderer can draw there."""
        try:
            ctx = moderngl.create_context(require=REQUIRED_GL)
        except Exception as exc:
            raise GPUUnavailableError(f"no usable current OpenGL context ({exc}). {INSTALL_HINT}") from None
        return cls(ctx, "current")

    def activate(self) -> None:
        """Make this context current on this thread. Several contexts (a window's, a
        headless one) can live in one thread and creating one makes it current, so
        every entry point calls this first. (moderngl's ``with ctx:`` is not used: on
        EGL its exit unbinds the context instead of restoring the previous one.)"""
        self.ctx.__enter__()

    def check_errors(self, where: str) -> None:
        """Raise GLError if OpenGL recorded an error (tests call this after each step)."""
        self.activate()
        err = self.ctx.error
        if err == "GL_OUT_OF_MEMORY":
            raise GPUOutOfMemoryError(
                f"the GPU ran out of memory after {where}: the scene needs too many or too large "
                "layers/surfaces for this machine"
            )
        if err != "GL_NO_ERROR":
            raise GLError(f"OpenGL error {err} after {where}")

    def release(self) -> None:
        self.ctx.release()
