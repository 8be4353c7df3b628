"""What a renderer keeps between frames for the frame-wide schedule (``auto``): the
prices of the cost model it plans with, and the last frame's schedule and placement,
reused while the frame's task graph and the prices are the same.

An animation frame that re-runs filter passes (an animated hue-rotate, a moving
filtered layer's new raster) mostly plans the same passes over the same textures as the
frame before, with the same prices: its schedule and rewrite are last frame's. The key
is ``graph.frame_schedule.frame_key`` (every pass's name, textures and footprint, in
order). The version of the prices (``version``) is the cost model's value: the model
itself (a frozen value: a new calibration gives the renderer a new one) and, for a
model corrected from measurement (lamina.frame_costs.CorrectedModel, made anew for
every frame by lamina.cost_feedback.FeedbackState.model), its base model and the load
factors it prices by (what it says in reports does not price anything), with the OpenCL
devices in use. An equal key under other prices is never mistaken for a hit; a
corrected model whose factors did not change reuses last frame's. One entry: the last
frame's (and, in ``uncorrected``, the last frame's plan by the uncorrected prices).

Pure data and lookups; ``graph.placed.scheduled`` decides what to keep.
"""

from __future__ import annotations

from typing import Any

from ..devices import Device
from ..filter_costs import FilterCostModel
from ..frame_costs import CorrectedModel, FrameCosts, frame_costs

__all__ = ["ScheduleMemo", "version"]


def version(model: FilterCostModel, devices: tuple[Device, ...] = ()) -> tuple:
    """What ``model``'s prices over GL and ``devices`` depend on: ``(base model, load
    factors, devices)``, the base compared by identity (a frozen model: the same object
    prices alike), the rest by value. A CorrectedModel without an active factor prices
    as its base (lamina.frame_costs.frame_costs), and has the base's version."""
    if isinstance(model, CorrectedModel):
        factors = tuple((c.executor, c.factor) for c in model.corrections if c.factor != 1.0)
        return model.base, factors, devices
    return model, (), devices


def _same(a: tuple | None, b: tuple) -> bool:
    return a is not None and a[0] is b[0] and a[1] == b[1] and a[2] == b[2]


class ScheduleMemo:
    """The prices and last outcome of one renderer's frame-wide schedules (FrameState
    holds one; ``scene.plan()`` starts from an empty one, as a first frame does)."""

    __slots__ = ("_version", "_costs", "_prices", "_key", "_value", "_uncorrected", "made", "basis", "reported", "off_gl", "hits",
                 "misses")

    def __init__(self) -> None:
        self._version: tuple | None = None
        self._costs: FrameCosts | None = None
        self._prices: dict = {}
        self._key: tuple | None = None
        self._value: Any = None
        self._uncorrected: ScheduleMemo | None = None
        # What applying the kept outcome made last frame (OpenCL buffers' descriptions,
        # copies, with their textures' names: under one key, one description), for the
        # next frame to reuse (graph.placed). Replaced each frame (kept results are named
        # anew) and forgotten with the key.
        self.made: Any = None
        # Last frame's scheduling by number and position (graph.rescheduled.Basis): a frame
        # whose key differs from it only in some passes' and textures' sizes reprices
        # those instead of scheduling from nothing. Forgotten with the prices.
        self.basis: Any = None
        # What last frame's corrections report was made from, and its moves by pass
        # (lamina.cost_feedback.Reported: report_against checks each is still what it
        # would write). Kept across keys and prices: each move is checked against what
        # its words depend on, so a frame scheduled anew rewrites only the moves that changed.
        self.reported: Any = None
        # Whether the last frame placed ran filter work off GL: graph.placed.SharedCpuMargin
        # asks less gain to keep it there than to move it (hysteresis). Kept across new
        # prices and keys: it is what the last frame did, whatever priced it.
        self.off_gl = False
        self.hits = 0  # frames that reused the last frame's schedule (reports, tests)
        self.misses = 0

    def _bind(self, model: FilterCostModel, devices: tuple[Device, ...]) -> None:
        """Forget everything priced otherwise (``version``)."""
        v = version(model, devices)
        if not _same(self._version, v):
            self._version, self._costs, self._prices = v, frame_costs(model, devices), {}
            self._key = self._value = None
            self.made = self.basis = None

    def costs(self, model: FilterCostModel, devices: tuple[Device, ...] = ()) -> FrameCosts:
        """``frame_costs(model, devices)``, made once per version of the prices."""
        self._bind(model, devices)
        return self._costs

    def prices(self, model: FilterCostModel, devices: tuple[Device, ...] = ()) -> dict:
        """The memo of ``model``'s prices by footprint (graph.frame_schedule.frame_dag)."""
        self._bind(model, devices)
        return self._prices

    def uncorrected(self) -> "ScheduleMemo":
        """A memo of its own for the plan the uncorrected prices make, which
        graph.corrected compares each frame's with while a correction is active: one
        entry per memo, so the two plans do not evict each other."""
        if self._uncorrected is None:
            self._uncorrected = ScheduleMemo()
        return self._uncorrected

    def recall(self, model: FilterCostModel, devices: tuple[Device, ...], key: tuple) -> Any:
        """The outcome kept for ``key`` under ``model``'s prices, or None."""
        if key == self._key and _same(self._version, version(model, devices)):
            self.hits += 1
            return self._value
        self.misses += 1
        return None

    def keep(self, model: FilterCostModel, devices: tuple[Device, ...], key: tuple, value: Any) -> None:
        self._bind(model, devices)
        self._key, self._value, self.made = key, value, None
