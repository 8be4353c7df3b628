"""Where filter work runs, as a user asks for it: one enum, ``FilterBackend``, for the
``filter_backend`` setting of scenes and for ``filters.apply(..., backend=...)``.

A backend is a *request*; ``lamina.framegraph.Executor`` is the *fact* a frame graph
records (which device runs a pass, whose memory a texture lives in). They differ in what
they can be: ``auto`` asks the planner to choose an executor per pass by a measured cost
model (``lamina.filter_costs``), and ``reference`` asks for the float64 numpy oracle,
which runs no pass at all; neither can be where a texture lives.

Scenes take ``gl``, ``opencl`` and ``auto`` (``SCENE_BACKENDS``); ``filters.apply`` takes
``gl``, ``opencl`` and ``reference`` (``APPLY_BACKENDS``).
"""

from __future__ import annotations

from enum import Enum

from ..errors import LaminaInputError

__all__ = ["FilterBackend", "SCENE_BACKENDS", "APPLY_BACKENDS", "FILTER_BACKENDS", "check_backend"]


class FilterBackend(Enum):
    """Where filter passes run: ``gl`` (GLSL passes), ``opencl`` (the same plan as OpenCL
    kernels), ``auto`` (per pass, the cheaper by the cost model; scenes), ``reference``
    (the float64 numpy oracle; ``filters.apply``). Parsed once from its name."""

    GL = "gl"
    OPENCL = "opencl"
    AUTO = "auto"
    REFERENCE = "reference"

    @classmethod
    def parse(cls, value: "FilterBackend | str",
              among: "tuple[FilterBackend, ...] | None" = None) -> "FilterBackend":
        """The backend named by ``value`` (the enum itself, or its name in a scene file, on
        the command line or in a call), one of ``among`` (default: the scene backends); a
        LaminaInputError for anything else, naming the choices."""
        among = SCENE_BACKENDS if among is None else among
        choices = ", ".join(b.value for b in among)
        try:
            backend = value if isinstance(value, cls) else cls(value)
        except ValueError:
            raise LaminaInputError(f"unknown filter backend {value!r} (choose from {choices})") from None
        if backend not in among:
            raise LaminaInputError(f"filter backend {backend.value!r} {_NOT_HERE.get(backend, 'is not taken here')} (choose from {choices})")
        return backend


SCENE_BACKENDS: tuple[FilterBackend, ...] = (FilterBackend.GL, FilterBackend.OPENCL, FilterBackend.AUTO)
APPLY_BACKENDS: tuple[FilterBackend, ...] = (FilterBackend.GL, FilterBackend.OPENCL, FilterBackend.REFERENCE)
# Why a backend is refused where it does not belong.
_NOT_HERE = {
    FilterBackend.AUTO: "places a scene's passes by a cost model; filters.apply runs one executor",
    FilterBackend.REFERENCE: "is filters.apply's numpy oracle; a scene's passes run on GL or OpenCL",
}
FILTER_BACKENDS = tuple(b.value for b in SCENE_BACKENDS)  # the names a scene file or the command line may use


def check_backend(backend: "FilterBackend | str") -> str:
    """The name of a valid scene backend (for callers that still carry the setting as text)."""
    return FilterBackend.parse(backend).value
