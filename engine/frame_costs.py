"""What the frame-wide scheduler prices a frame's passes by, per device: ``FrameCosts``.

Every device the scheduler may use (GL first, then each OpenCL device) with the time of
a filter pass on it, of a pass only GL runs (raster, composite, backdrop copy, shadow),
and of a copy between two devices' memories. Two kinds:

* ``HistoryCosts``: a history model (``lamina.cost_history``) keyed per device: the one
  calibrated on this machine, or one a device profile recorded or synthesised from
  hand-written speeds (``lamina.device_profile``). Any number of OpenCL devices.
* ``ExecutorCosts``: a cost model that prices by executor (``filter_costs.CostModel``,
  written by hand for tests and what-if studies): GL and one OpenCL device, or each of
  the renderer's OpenCL devices priced alike (``frame_costs(model, devices)``).

Passes only GL runs are not in the calibration (it measures filter passes): they are
priced as a GL pass touching the same pixels, a one-step colour pass per pixel written
(a composite: its target's pixels plus each draw's source's), unless a profile gives
their own speeds. That is a proxy, said wherever a schedule is shown; it is what makes
GL busy in the schedule while filter work could run elsewhere.

A model corrected from measurement (``CorrectedModel``, made by ``lamina.cost_feedback``
from the times frames measured) prices each device's passes at its base price times the
device's load factor (``ScaledCosts``): a device measured slower than its history says
costs more, so the scheduler moves work off it.

Plain data and arithmetic: made before planning (from the executor's snapshot) or from a
file; pricing runs nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping, Protocol, runtime_checkable

from .cost_history import DeviceCosts, HistoryModel, Sample
from .devices import Device, DeviceType
from .filter_costs import FilterCostModel
from .filters.plan import MARGIN, ColorPass, CostKind, PassKind, PlannedPass
from .named import NamedEnum
from .textures import Executor, Transfer

__all__ = ["CorrectedModel", "DeviceCorrection", "ExecutorCosts", "FrameCosts", "HistoryCosts", "PassSeen", "PinnedKind",
           "PinnedRate", "ScaledCosts", "device_name", "footprint", "frame_costs", "source_size"]

_ONE_STEP = ColorPass.samples()[0]  # the proxy of a GL-only pass: a one-step colour pass


class PinnedKind(NamedEnum):
    """The kinds of pass only GL runs, as a profile names their speeds."""

    RASTER = "raster"
    COMPOSITE = "composite"
    BACKDROP = "backdrop"
    BOX_SHADOW = "box-shadow"  # a layer's outer box shadows (ShadowPass), not the filter pass "shadow"


@dataclass(frozen=True)
class PinnedRate:
    """A GL-only pass kind's time: ``fixed_ms`` + ``ms_per_px`` x pixels."""

    fixed_ms: float
    ms_per_px: float

    def ms(self, pixels: float) -> float:
        return self.fixed_ms + self.ms_per_px * pixels


def source_size(step: PlannedPass, width: int, height: int) -> tuple[int, int]:
    """The plan's input size that gives a ``width`` x ``height`` image at ``step.scale``
    (the inverse of ``filters.plan.image_size``, to a texel): what the cost models take."""
    if step.scale <= 1:
        return width, height
    margin = 2 * MARGIN
    return max(1, (width - margin) * step.scale), max(1, (height - margin) * step.scale)


def footprint(step: PlannedPass, width: int, height: int) -> tuple:
    """What a filter pass's price depends on, as StarPU keys its history by a task's
    footprint: its kind, fused colour steps, scale and taps, and its plan input size
    (``width`` x ``height``). Two passes with one footprint cost the same on every
    device (``FrameCosts.filter_ms``' contract): an animated hue-rotate or a moved
    shadow keeps its footprint, so its price is looked up, not predicted again."""
    return (step.pass_kind, len(step.steps) if step.pass_kind is PassKind.COLOR else 1, step.scale,
            step.taps if step.cost is CostKind.PIXEL_TAPS else 1, width, height)


@runtime_checkable
class FrameCosts(Protocol):
    """The scheduler's prices. ``devices[0]`` is GL; ``names`` say each device in a
    schedule's rows; ``label`` says where the numbers come from."""

    devices: tuple[Device, ...]
    names: tuple[str, ...]
    label: str

    def filter_ms(self, device: int, step: PlannedPass, width: int, height: int) -> float:
        """``step`` on a ``width`` x ``height`` plan input on device ``device``
        (``math.inf``: nothing says what it costs there, so it does not run there): a
        function of ``footprint(step, width, height)`` and the device alone."""
        ...

    def pinned_ms(self, kind: PinnedKind, pixels: float) -> float:
        """A GL-only pass touching ``pixels`` pixels, on GL."""
        ...

    def copy_ms(self, source: int, target: int, nbytes: int) -> float:
        """Copying ``nbytes`` from device ``source``'s memory to ``target``'s
        (``math.inf``: no way)."""
        ...


@dataclass(frozen=True)
class HistoryCosts:
    """Prices from a history model, ``keys[i]`` being device i's key in it (its
    ``Device.id``, or a profile's name for it); ``pinned``: GL-only pass speeds, where
    known (else the one-step colour proxy). Copies between two OpenCL devices with no
    measured path go through GL's memory (both copies)."""

    devices: tuple[Device, ...]
    keys: tuple[str, ...]
    model: HistoryModel
    names: tuple[str, ...] = ()
    pinned: Mapping[PinnedKind, PinnedRate] = field(default_factory=dict)
    label: str = "history model"

    def __post_init__(self) -> None:
        if not self.devices or self.devices[0].kind is not Executor.GL:
            raise ValueError("the first device of a frame's costs is GL")
        if len(self.keys) != len(self.devices):
            raise ValueError("one key per device")
        if not self.names:
            object.__setattr__(self, "names", tuple(d.short for d in self.devices))
        object.__setattr__(self, "_memo", {})  # predictions repeat: the same pass size on many layers

    def filter_ms(self, device: int, step: PlannedPass, width: int, height: int) -> float:
        key = ("f", device, step, width, height)
        memo = self._memo
        if key not in memo:
            try:
                memo[key] = self.model.predict_pass(self.keys[device], step, width, height).mean
            except KeyError:
                memo[key] = math.inf
        return memo[key]

    def pinned_ms(self, kind: PinnedKind, pixels: float) -> float:
        rate = self.pinned.get(kind)
        if rate is not None:
            return rate.ms(pixels)
        key = ("p", pixels)
        memo = self._memo
        if key not in memo:
            try:
                memo[key] = self.model.predict(Sample(PassKind.COLOR), self.keys[0], max(pixels, 1.0)).mean
            except KeyError:
                memo[key] = 0.0  # GL alone runs it: its cost moves nothing, only the predicted times
        return memo[key]

    def copy_ms(self, source: int, target: int, nbytes: int) -> float:
        if source == target:
            return 0.0
        key = ("c", source, target, nbytes)
        memo = self._memo
        if key not in memo:
            a, b = self.keys[source], self.keys[target]
            if self.model.has_copies(a, b):
                memo[key] = self.model.predict_copy(a, b, nbytes).mean
            elif source != 0 and target != 0:
                memo[key] = self.copy_ms(source, 0, nbytes) + self.copy_ms(0, target, nbytes)
            else:
                memo[key] = math.inf
        return memo[key]


@dataclass(frozen=True)
class ExecutorCosts:
    """Prices from a cost model that prices by executor (a ``filter_costs.CostModel``):
    device 0 is GL, the others OpenCL devices (one by default), each priced as the
    model prices OpenCL. A copy between two OpenCL devices goes through the host: the
    copy to GL and the copy from it."""

    model: FilterCostModel
    devices: tuple[Device, ...] = (Device(Executor.GL, "GL", "cost model", ""),
                                   Device(Executor.OPENCL, "OpenCL", "cost model", ""))
    names: tuple[str, ...] = ("GL", "OpenCL")

    @property
    def label(self) -> str:
        return self.model.label

    def _executor(self, device: int) -> Executor:
        return self.devices[device].kind

    def filter_ms(self, device: int, step: PlannedPass, width: int, height: int) -> float:
        try:
            return self.model.pass_ms(self._executor(device), step, width, height)
        except KeyError:
            return math.inf

    def pinned_ms(self, kind: PinnedKind, pixels: float) -> float:
        try:
            return self.model.pass_ms(Executor.GL, _ONE_STEP, max(int(pixels), 1), 1)
        except KeyError:
            return 0.0

    def copy_ms(self, source: int, target: int, nbytes: int) -> float:
        if source == target:
            return 0.0
        if self._executor(source) is self._executor(target):  # two OpenCL devices: through the host
            return self.copy_ms(source, 0, nbytes) + self.copy_ms(0, target, nbytes)
        try:
            return self.model.transfer_ms(Transfer.to(self._executor(target)), nbytes)
        except KeyError:
            return math.inf


def device_name(executor: "Executor | str") -> str:
    """An executor as a schedule's rows name its device ("GL", "OpenCL")."""
    return "OpenCL" if Executor.of(executor) is Executor.OPENCL else "GL"


@dataclass(frozen=True)
class DeviceCorrection:
    """One device's load factor from measurement: its passes are priced ``factor`` times
    what the base model says. ``measured_ms`` and ``predicted_ms`` are the sums over the
    passes of the last frame that judged it (``spread_ms`` the predicted sum's), ``why``
    says it in words."""

    executor: Executor
    factor: float
    measured_ms: float
    predicted_ms: float
    spread_ms: float
    why: str

    def to_dict(self) -> dict:
        return {"device": device_name(self.executor), "factor": self.factor, "measured_ms": self.measured_ms,
                "predicted_ms": self.predicted_ms, "spread_ms": self.spread_ms, "why": self.why}


@dataclass(frozen=True)
class PassSeen:
    """What a pass measured the last time it ran: where, in ms, and what its history
    predicted (mean and spread) there."""

    executor: Executor
    measured_ms: float
    predicted_ms: float
    spread_ms: float


@dataclass(frozen=True)
class CorrectedModel:
    """A cost model (``base``) with the load factors measurement found (``corrections``,
    one per corrected device; none: the base prices stand), and what the report says of
    them: ``seen`` ((pass name, executor) -> its last time measured there), ``moved`` (pass name -> (from,
    to) executors, as the last frame ran it against the uncorrected plan), ``events``
    (what the last measured frame changed, in words). Plain data, made before planning
    (``lamina.cost_feedback.FeedbackState.model``); a ``FilterCostModel``, so the
    per-chain placement prices by it too."""

    base: FilterCostModel
    corrections: tuple[DeviceCorrection, ...] = ()
    seen: Mapping[tuple[str, Executor], PassSeen] = field(default_factory=dict)
    moved: Mapping[str, tuple[Executor, Executor]] = field(default_factory=dict)
    events: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        """Whether any device is priced other than the base model prices it."""
        return any(c.factor != 1.0 for c in self.corrections)

    @property
    def label(self) -> str:
        if not self.active:
            return self.base.label
        return f"{self.base.label}, corrected from measurement ({', '.join(f'{device_name(c.executor)} x{c.factor:.2f}' for c in self.corrections)})"

    def factor(self, executor: "Executor | str") -> float:
        executor = Executor.of(executor)
        return next((c.factor for c in self.corrections if c.executor is executor), 1.0)

    def pass_ms(self, executor: "Executor | str", step: PlannedPass, width: int, height: int) -> float:
        return self.base.pass_ms(executor, step, width, height) * self.factor(executor)

    def transfer_ms(self, direction: "Transfer | str", nbytes: int) -> float:
        return self.base.transfer_ms(direction, nbytes)  # copies are host work: no device's load factor


@dataclass(frozen=True)
class ScaledCosts:
    """``base``'s prices with device i's passes (filter passes, and GL's pinned passes
    on device 0) times ``factors[i]``; copies as ``base`` prices them."""

    base: FrameCosts
    factors: tuple[float, ...]
    label: str

    @property
    def devices(self) -> tuple[Device, ...]:
        return self.base.devices

    @property
    def names(self) -> tuple[str, ...]:
        return self.base.names

    def filter_ms(self, device: int, step: PlannedPass, width: int, height: int) -> float:
        return self.base.filter_ms(device, step, width, height) * self.factors[device]

    def pinned_ms(self, kind: PinnedKind, pixels: float) -> float:
        return self.base.pinned_ms(kind, pixels) * self.factors[0]

    def copy_ms(self, source: int, target: int, nbytes: int) -> float:
        return self.base.copy_ms(source, target, nbytes)


def _device_of(device_id: str) -> Device:
    """A device record from its id ("opencl:Portable Computing Language / cpu-...")."""
    kind, _, rest = device_id.partition(":")
    platform, _, name = rest.partition(" / ")
    return Device(Executor.of(kind), name or platform, platform, "")


def frame_costs(model: FilterCostModel, devices: tuple[Device, ...] = ()) -> FrameCosts:
    """The scheduler's prices from the cost model ``auto`` was given: a ``DeviceCosts``
    (the history model calibrated here: GL and the OpenCL device the executor drives)
    or a model that prices by executor. ``devices``: the OpenCL devices the renderer
    uses, with their "P:D" indices, when it uses several (``LAMINA_OPENCL_DEVICES``):
    each is priced (a history model by its ``Device.id``, so devices of one kind share
    their history; a model by executor as its OpenCL) and named by its index ("OpenCL
    0:1"). None given: GL and the renderer's own OpenCL device, named "OpenCL". A
    ``CorrectedModel``'s with its load factors (one per executor: every OpenCL device in
    use shares the factor its kind was corrected by)."""
    if isinstance(model, CorrectedModel):
        base = frame_costs(model.base, devices)
        if not model.active:
            return base
        return ScaledCosts(base, tuple(model.factor(d.kind) for d in base.devices), model.label)
    kind = DeviceType.CPU if getattr(model, "shares_cpu", False) else DeviceType.UNKNOWN
    if isinstance(model, DeviceCosts):
        gl = replace(_device_of(model.gl), type=kind)
        if devices:
            cls = tuple(replace(d, type=kind) for d in devices)
            return HistoryCosts((gl, *cls), (model.gl, *(d.id for d in cls)), model.model,
                                ("GL", *(d.short for d in cls)), label="history model measured here")
        cl = replace(_device_of(model.opencl), type=kind)
        return HistoryCosts((gl, cl), (model.gl, model.opencl), model.model, ("GL", "OpenCL"),
                            label="history model measured here")
    if devices:
        gl_device = replace(ExecutorCosts.devices[0], type=kind)
        cls = tuple(Device(Executor.OPENCL, "OpenCL", "cost model", "", d.index, kind) for d in devices)
        return ExecutorCosts(model, (gl_device, *cls), ("GL", *(d.short for d in cls)))
    return ExecutorCosts(model, tuple(replace(d, type=kind) for d in ExecutorCosts.devices))
