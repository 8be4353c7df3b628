"""What a renderer keeps between frames for the frame-wide schedule (``auto``): the
prices of the cost model it plans with, and the last frame's schedule and placement,
reused while the frame's task graph and the model are the same.

An animation frame that re-runs filter passes (an animated hue-rotate, a moving
filtered layer's new raster) mostly plans the same passes over the same textures as the
frame before, with the same prices: its schedule and rewrite are last frame's. The key
is ``graph.frame_schedule.frame_key`` (every pass's name, textures and footprint, in
order) and the version of the prices is the cost model itself (a frozen value: a
measured frame gives the renderer a new one), held here so that an equal key under
another model is never mistaken for a hit. One entry: the last frame's.

Pure data and lookups; ``graph.placed.scheduled`` decides what to keep.
"""

from __future__ import annotations

from typing import Any

from ..filter_costs import FilterCostModel
from ..frame_costs import FrameCosts, frame_costs

__all__ = ["ScheduleMemo"]


class ScheduleMemo:
    """The prices and last outcome of one renderer's frame-wide schedules (FrameState
    holds one; ``scene.plan()`` starts from an empty one, as a first frame does)."""

    __slots__ = ("_model", "_costs", "_prices", "_key", "_value", "made", "hits", "misses")

    def __init__(self) -> None:
        self._model: FilterCostModel | None = None
        self._costs: FrameCosts | None = None
        self._prices: dict = {}
        self._key: tuple | None = None
        self._value: Any = None
        # What applying the kept outcome made last frame (OpenCL buffers' descriptions,
        # copies), by texture number and name: under one key, one description. Replaced
        # each frame (kept results are named anew) and emptied with the key.
        self.made: dict = {}
        self.hits = 0  # frames that reused the last frame's schedule (reports, tests)
        self.misses = 0

    def _bind(self, model: FilterCostModel) -> None:
        """Forget everything priced by another model (the model is the prices' version)."""
        if model is not self._model:
            self._model, self._costs, self._prices = model, frame_costs(model), {}
            self._key = self._value = None
            self.made = {}

    def costs(self, model: FilterCostModel) -> FrameCosts:
        """``frame_costs(model)``, made once per model."""
        self._bind(model)
        return self._costs

    def prices(self, model: FilterCostModel) -> dict:
        """The memo of ``model``'s prices by footprint (graph.frame_schedule.frame_dag)."""
        self._bind(model)
        return self._prices

    def recall(self, model: FilterCostModel, key: tuple) -> Any:
        """The outcome kept for ``key`` under ``model``, or None."""
        if model is self._model and key == self._key:
            self.hits += 1
            return self._value
        self.misses += 1
        return None

    def keep(self, model: FilterCostModel, key: tuple, value: Any) -> None:
        self._bind(model)
        self._key, self._value, self.made = key, value, {}
