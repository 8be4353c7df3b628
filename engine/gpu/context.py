"""The OpenGL context: headless through EGL, or adopted from a window.

``GPUContext.headless()`` makes a standalone OpenGL 3.3+ core context with EGL and no
display (Mesa llvmpipe on machines without a GPU). ``GPUContext.from_current()`` wraps
the context a window toolkit (glfw) made current, so the same renderer can draw there.
"""

from __future__ import annotations

import os
import threading
from dataclasses import asdict, dataclass

import moderngl

from ..errors import ForkedContextError, GPUOutOfMemoryError, GPUUnavailableError, RendererThreadError
from ..limits import Limits

__all__ = ["GPUContext", "RendererInfo", "GLError", "INSTALL_HINT", "REQUIRED_GL"]

REQUIRED_GL = 330
INSTALL_HINT = (
    "Lamina needs OpenGL 3.3 through EGL. On Debian/Ubuntu install Mesa's EGL and GL "
    "drivers: apt-get install -y libegl1 libegl-mesa0 libgl1-mesa-dri libgl1 "
    "(software rendering with llvmpipe works without a GPU)"
)


# The process that made a GL context (None: none yet). Mesa's driver threads and locks do
# not survive fork: in a child forked after this, making or using any context hangs.
_CONTEXT_PID: int | None = None


def refuse_forked() -> None:
    """Raise ForkedContextError in a process forked after its parent made a GL context
    (before anything could hang)."""
    if _CONTEXT_PID is not None and _CONTEXT_PID != os.getpid():
        raise ForkedContextError(
            f"this process (pid {os.getpid()}) was forked from one that had made a GL context (pid {_CONTEXT_PID}); "
            "GL cannot be used in it (the driver's state does not survive fork, and a new context would hang): "
            "start worker processes with the 'spawn' method (multiprocessing.get_context('spawn'))")


def _made_here() -> None:
    global _CONTEXT_PID
    _CONTEXT_PID = os.getpid()


# Headless contexts whose renderers were released, kept to be used again by this thread's
# next renderer: moderngl keeps some 37 KB of every context it makes after release, so a
# program that makes and releases renderers in a loop would grow by that much each time.
# Per thread: an EGL context still current in the thread that released it cannot be
# made current in another.
_idle = threading.local()
IDLE_CONTEXTS = 2  # per thread; more released at once are released for good


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
        self.backend = backend
        self.device_index: int | None = None  # the EGL device asked for (headless; None: the default)
        # A context is current in one thread at a time, and what a renderer keeps is not
        # locked: the thread that made it is the one that uses it (activate checks).
        self.thread = threading.get_ident()
        self.thread_name = threading.current_thread().name
        self.pid = os.getpid()
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
    def headless(cls, device_index: int | None = None) -> "GPUContext":
        """A standalone EGL context (no display, no window): one this thread's released
        renderers left on the same device, else a new one. ``device_index``: the EGL
        device (lamina.gpu.egl_devices; None: glcontext's default, device 0); the
        environment's GLCONTEXT_DEVICE_INDEX, when set, overrides it (glcontext does)."""
        refuse_forked()
        idle = getattr(_idle, "contexts", None)
        same = [g for g in idle or () if g.device_index == device_index]
        if same:
            gpu = same[-1]
            idle.remove(gpu)
            gpu.activate()
            # The framebuffer bound last was the released renderer's (deleted): bind the
            # default one, or making the next framebuffer rebinds the deleted one.
            gpu.ctx.detect_framebuffer(0).use()
            return gpu
        env = os.environ.get("GLCONTEXT_DEVICE_INDEX")
        if env and not env.strip().isdigit():  # glcontext would fail with int()'s message
            raise GPUUnavailableError(f"GLCONTEXT_DEVICE_INDEX={env!r} in the environment: expected an EGL device "
                                      "index (0, 1, ...; lamina info lists them) or nothing")
        device = {} if device_index is None else {"device_index": device_index}
        try:
            ctx = moderngl.create_standalone_context(backend="egl", require=REQUIRED_GL, **device)
        except Exception as exc:  # glcontext raises bare Exceptions with driver text
            where = f" on EGL device {device_index}" if device_index is not None else ""
            raise GPUUnavailableError(f"cannot create a headless OpenGL context{where} ({exc}). {INSTALL_HINT}") from None
        _made_here()
        gpu = cls(ctx, "egl")
        gpu.device_index = device_index
        return gpu

    @classmethod
    def from_current(cls) -> "GPUContext":
        """Adopt the OpenGL context current on this thread through the window system
        (GLX on X11: a glfw window's), so the same renderer can draw there."""
        try:
            ctx = moderngl.create_context(require=REQUIRED_GL)
        except Exception as exc:
            raise GPUUnavailableError(f"no usable current OpenGL context ({exc}). {INSTALL_HINT}") from None
        _made_here()
        return cls(ctx, "current")

    def activate(self) -> None:
        """Make this context current on this thread. Several contexts (a window's, a
        headless one) can live in one thread and creating one makes it current, so
        every entry point calls this first. (moderngl's ``with ctx:`` is not used: on
        EGL its exit unbinds the context instead of restoring the previous one.)
        Raises RendererThreadError in another thread than the one that made it, and
        ForkedContextError in a forked child."""
        self.check_owner()
        self.ctx.__enter__()

    def check_owner(self) -> None:
        """Raise unless this thread of this process may use the context (see activate)."""
        if self.pid != os.getpid():
            refuse_forked()
        if threading.get_ident() != self.thread:
            raise RendererThreadError(
                f"this renderer's GL context belongs to thread {self.thread_name!r}, and was used from thread "
                f"{threading.current_thread().name!r}: use a renderer per thread (lamina.default_renderer() is one "
                "per thread; lamina.Renderer() makes one for the thread that calls it), and read a frame's "
                "pixels (frame.image) in the thread that rendered it, or before handing the frame over")

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
        """Done with the context (its renderer released every GL object it made): a
        headless one is kept for this thread's next renderer (up to IDLE_CONTEXTS),
        others are released."""
        idle = _idle.__dict__.setdefault("contexts", [])
        if self.backend == "egl" and self.pid == os.getpid() and self.thread == threading.get_ident() \
                and len(idle) < IDLE_CONTEXTS and self not in idle:
            idle.append(self)
            return
        self.ctx.release()
