"""The seam between ``filters.apply`` and the executors that run a plan on a GPU.

``lamina.filters`` sits below the render-task graph and the executors (README, "How it
works"), so it cannot import them; yet ``filters.apply(image, chain, backend="gl")`` must
run the plan with the same graph executor that renders scenes. Dependency inversion
closes the gap: this module defines what a *plan runner* is (``PlanRunner``) and keeps
one per backend; the executor layer provides the runners, and the renderer registers
them when it is imported (``lamina/__init__`` imports it, so they are in place before
user code runs). ``filters.apply`` parses and checks its arguments, plans the chain,
and hands the premultiplied image and the plan to the runner of its backend (with straight pixels as they are: the
runner's graph converts them on the device).

The runners registered by Lamina build a one-source FrameGraph (upload, the plan's
filter passes, the result read back) and run it on the renderer's GL executor; see
``lamina.graph.filter_tasks`` (building) and ``lamina.gpu.apply`` (running).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .backend import APPLY_BACKENDS, FilterBackend
from .plan import FilterPlan

__all__ = ["ApplyBackend", "PlanRunner", "register_plan_runner", "plan_runner"]


# filters.apply's backends are FilterBackend's APPLY_BACKENDS; the name it had before
# the three backend enums became one stays for code that imported it.
ApplyBackend = FilterBackend


class PlanRunner(Protocol):
    """Runs ``plan`` on a premultiplied (H, W, 4) uint8 ``image`` — straight RGBA when
    ``straight`` — and returns the result in the same form, same size. ``renderer`` (GL)
    and ``device`` (OpenCL) are the caller's choices, or None for the process defaults."""

    def __call__(self, image: np.ndarray, plan: FilterPlan, *, renderer: object | None,
                 device: object | None, straight: bool = False) -> np.ndarray: ...

    def check_size(self, width: int, height: int, *, renderer: object | None, device: object | None,
                   plan: FilterPlan | None = None) -> None:
        """Raise the typed error a call on a ``width`` x ``height`` image would (a
        TextureTooLargeError past the GPU's texture limit), before any image is made
        (``plan``: the images it holds, some wider than 8-bit)."""


_RUNNERS: dict[FilterBackend, PlanRunner] = {}


def register_plan_runner(backend: FilterBackend, runner: PlanRunner) -> None:
    """Make ``runner`` run the plans of ``backend`` (the last registration wins)."""
    if backend is FilterBackend.REFERENCE:
        raise ValueError("the reference backend runs no plan: it is the oracle")
    if backend not in APPLY_BACKENDS:
        raise ValueError(f"filters.apply never runs on backend {backend.value!r}")
    _RUNNERS[backend] = runner


def plan_runner(backend: FilterBackend) -> PlanRunner:
    """The runner registered for ``backend``."""
    runner = _RUNNERS.get(backend)
    if runner is None:
        raise RuntimeError(
            f"no executor is registered for filter backend {backend.value!r}: "
            "import lamina (its renderer registers them) before filters.apply"
        )
    return runner
