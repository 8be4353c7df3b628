"""FrameRequest: everything a frame is planned for, parsed once — the one object that
``scene.plan()``, ``scene.render()``, ``Renderer.plan()`` and ``Renderer.render()`` take,
so a plan and a render of the same request build the same frame graph."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from .compositor.policy import DEFAULT_POLICY, Policy, parse_policy
from .device_scale import parse_device_scale
from .errors import GeometryError, LaminaInputError
from .filters.backend import FilterBackend
from .filter_costs import FilterCostModel
from .forced_placement import ForcedPlacement
from .tiling import Tiling
from .limits import MAX_TIME, Limits

__all__ = ["FrameRequest"]


@dataclass(frozen=True)
class FrameRequest:
    """``t``: seconds, where animations are sampled. ``policy``: what is kept between
    frames (lamina.compositor.policy). ``filter_backend``: where filter passes run (None:
    the scene's own ``filter_backend``). ``limits``: the GPU's limits (None: the
    renderer's, or defaults when planning without one). ``cost_model``: the measured
    costs "auto" places filter passes by (None: the renderer measures them on first
    need; a plan without a renderer keeps the passes on GL and says so). ``tiling``:
    how large layers and scroller contents are cut into tiles (lamina.tiling).
    ``capture_textures``: also read back every texture the frame's composites draw
    from or into (layers' rasters, backings, tiles, render surfaces: one CapturePass
    each, after the other passes), for ``Frame.textures``; off by default, and then
    the graph is exactly as without it. ``placement``: where each filter pass runs,
    forced before the frame runs (lamina.forced_placement: ``"all-opencl"``,
    ``"alternate"``, ``"random:7"``..., or pass name -> device): the passes are planned
    on GL and then moved as it says, in place of ``filter_backend`` (which may then only
    be None or "gl"); None: ``filter_backend`` decides. ``device_scale_factor``: device px
    per CSS px of the frame (lamina.device_scale: a finite number in (0, 8]); None: the
    scene's own ``device_scale_factor``."""

    t: float = 0.0
    policy: Policy = DEFAULT_POLICY
    filter_backend: FilterBackend | None = None
    limits: Limits | None = None
    cost_model: FilterCostModel | None = None
    tiling: Tiling = Tiling()
    capture_textures: bool = False
    placement: ForcedPlacement | None = None
    device_scale_factor: float | None = None

    def __post_init__(self) -> None:
        t = self.t
        if isinstance(t, bool) or not isinstance(t, numbers.Real) or abs(t) > MAX_TIME or not math.isfinite(t):
            raise GeometryError(f"the time must be a finite number of seconds within ±{MAX_TIME:g} "
                                f"(lamina.limits.MAX_TIME), got {t!r}"[:200])
        object.__setattr__(self, "t", float(t))
        object.__setattr__(self, "policy", parse_policy(self.policy))
        if self.filter_backend is not None:
            object.__setattr__(self, "filter_backend", FilterBackend.parse(self.filter_backend))
        if self.limits is not None and not isinstance(self.limits, Limits):
            raise LaminaInputError(f"limits must be a lamina.limits.Limits, got {type(self.limits).__name__}")
        if self.cost_model is not None and not isinstance(self.cost_model, FilterCostModel):
            raise LaminaInputError(f"cost_model must be a cost model (lamina.cost_history.DeviceCosts, "
                                   f"lamina.filter_costs.CostModel), got {type(self.cost_model).__name__}")
        if not isinstance(self.tiling, Tiling):
            raise LaminaInputError(f"tiling must be a lamina.tiling.Tiling, got {type(self.tiling).__name__}")
        if not isinstance(self.capture_textures, bool):
            raise LaminaInputError(f"capture_textures must be True or False, got {self.capture_textures!r}")
        if self.device_scale_factor is not None:
            object.__setattr__(self, "device_scale_factor", parse_device_scale(self.device_scale_factor))
        if self.placement is not None:
            object.__setattr__(self, "placement", ForcedPlacement.parse(self.placement))
            if self.filter_backend not in (None, FilterBackend.GL):
                raise LaminaInputError(f"placement {self.placement.label!r} forces where each filter pass runs: "
                                       f"give it without filter_backend {self.filter_backend.value!r}")

    @classmethod
    def of(cls, request: "FrameRequest | None" = None, **options) -> "FrameRequest":
        """``request`` itself, or one made from keyword options (``t``, ``policy``,
        ``filter_backend``, ``limits``, ``cost_model``, ``tiling``, ``capture_textures``,
        ``placement``, ``device_scale_factor``) —
        not both."""
        if request is None:
            return cls(**{k: v for k, v in options.items() if v is not None})
        if not isinstance(request, FrameRequest):
            raise LaminaInputError(f"request must be a FrameRequest, got {type(request).__name__}")
        given = sorted(k for k, v in options.items() if v is not None)
        if given:
            raise LaminaInputError(f"pass either a FrameRequest or {', '.join(given)}, not both")
        return request

    def device_scale_for(self, scene) -> float:
        """The device scale factor in force: the request's, else the scene's."""
        if self.device_scale_factor is not None:
            return self.device_scale_factor
        return getattr(scene, "device_scale_factor", 1.0)

    def backend_for(self, scene_backend: FilterBackend | str) -> FilterBackend:
        """The filter backend in force: the request's, else the scene's; GL under a
        forced placement (the passes are planned on GL, then moved)."""
        if self.placement is not None:
            return FilterBackend.GL
        return self.filter_backend if self.filter_backend is not None else FilterBackend.parse(scene_backend)
