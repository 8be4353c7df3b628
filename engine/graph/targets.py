"""The planner's working data: where draws go (Target), a layer waiting for the policy
to decide how it is drawn (PendingDraw), and what the planner is told of the executor
(ExecutorFacts: a snapshot taken before planning, so the walk asks the executor nothing)."""

from __future__ import annotations

from dataclasses import dataclass

from ..compositor.tree import LayerNode
from ..devices import Device
from ..filter_costs import FilterCostModel
from ..framegraph import TextureDesc
from ..geometry import Affine, Rect
from ..limits import Limits

__all__ = ["PendingDraw", "Target", "ExecutorFacts", "BackdropRead"]


@dataclass(frozen=True)
class PendingDraw:
    """A layer to draw into a target, before the policy decides how (its own raster,
    or painted into a backing with others)."""

    node: LayerNode
    target: "Target"
    opacity: float
    clips: tuple


@dataclass(frozen=True)
class Target:
    """Where draws go: a texture whose pixel (0, 0) sits at ``origin`` of a space that
    ``space`` maps screen px into; ``cull`` (screen px) bounds what can still matter
    there (None: do not cull); clips above ``inherited_clips`` are applied here."""

    origin: tuple[int, int]
    space: Affine
    cull: Rect | None
    inherited_clips: int
    cull_from: int = 0  # clips from this index on may cull (those above a filter may not)
    size: tuple[int, int] | None = None  # the target texture's size in pixels
    backdrop_root: bool = True  # holds everything a backdrop-filter inside may read
    owner: str = "root"  # the layer whose group this target holds (the page: root)

    def from_screen(self) -> Affine:
        """Screen px -> this target's texels."""
        return Affine.translate(-self.origin[0], -self.origin[1]) @ self.space


@dataclass(frozen=True)
class ExecutorFacts:
    """What the planner knows of the executor that will run the graph: a snapshot taken
    before planning (Renderer.snapshot), so planning does no GPU work and asks the
    executor nothing. ``retained`` names the textures the executor keeps from earlier
    frames; ``limits`` are its GPU's; ``filter_costs`` is the cost model "auto" places
    filter passes by (measured, or loaded, before the frame is planned; None: none);
    ``opencl_unavailable`` says why OpenCL cannot be used, if it cannot.
    ``opencl_devices``: the OpenCL devices the renderer runs filter work on when it
    uses several (``LAMINA_OPENCL_DEVICES``), with their "P:D" indices, which the
    frame-wide schedule and forced placements place passes on; empty: its own one."""

    retained: frozenset[str] = frozenset()
    limits: Limits = Limits()
    filter_costs: FilterCostModel | None = None
    opencl_unavailable: str | None = None
    opencl_devices: tuple[Device, ...] = ()

    def available(self, name: str) -> bool:
        """Does a texture kept from an earlier frame still exist?"""
        return name in self.retained


@dataclass(frozen=True)
class BackdropRead:
    """What must happen in a target just before one of its draws: copy what lies under
    it (into ``copy``, texel -> target texel by ``to_source``, cut to ``mirror`` with
    reflected edges when given), then run ``after`` (a backdrop-filter's passes and the
    element's surface). The planner turns it into a BackdropPass where it splits the
    target's composite pass. ``local``: each texel of what it makes depends only on the
    copy's texels within the copy's growth past ``mirror`` (none without one) of it (a
    CSS filter read in the target's pixels, a blend's copy), so a split piece may copy
    only what lies under it, grown by that much: ``region`` (copy texels x, y, w, h;
    None: all of it)."""

    copy: TextureDesc
    to_source: Affine
    mirror: tuple[float, float, float, float] | None
    reason: str
    after: tuple = ()
    local: bool = False
    region: tuple[int, int, int, int] | None = None
