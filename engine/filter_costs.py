"""Where each pass of a filter plan runs: the placement the ``filter_backend`` setting asks
for, priced by a cost model when it is ``"auto"``.

* ``gl``: every pass is a GLSL pass (the default).
* ``opencl``: every pass is an OpenCL kernel; the plan's input is read back from its GL
  texture into an OpenCL buffer first and the result written back to a texture.
* ``auto``: per pass, whichever is cheaper, transfers included, by a cost model
  (``FilterCostModel``): the history model measured on this machine's devices
  (``lamina.cost_history``, calibrated by ``lamina.gpu.calibrate``), or a ``CostModel``
  written by hand — for each executor and pass kind, a fixed cost plus a cost per unit
  of work (pixels, or pixels x taps for blurs, bytes for transfers). The placement is exact and cheap: a dynamic
  programme over the passes whose state is where each still-needed image lives (at most
  two images are live in a plan), so ``auto`` is never worse than all-GL or all-OpenCL
  by the model.

Plain data and arithmetic: the model is measured by the executors, before planning, and
handed to the planner in the frame request or the executor's snapshot; placing a plan
runs nothing. (A module beside ``request``, not inside ``graph/``: the request carries a
cost model, and the graph builder reads the request.)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Mapping, Protocol, runtime_checkable

from .filters.backend import FilterBackend
from .filters.plan import CostKind, FilterPlan, ImageFormat, PassKind, PlannedPass, image_format, image_size
from .framegraph import Executor
from .textures import Transfer

__all__ = ["CostModel", "FilterCostModel", "PassCost", "Placement", "place", "work_units", "KINDS", "EXECUTORS", "Transfer"]

EXECUTORS = tuple(Executor)
KINDS = tuple(PassKind)  # the pass kinds the cost model prices, on each executor (PassCost)
_PER_STEP = "_step"  # how a stored key spells the per-step entry ("gl:color_step")


def work_units(step: PlannedPass, width: int, height: int) -> float:
    """The unit of work a pass's cost grows with, as its cost kind says: output pixels,
    or output pixels times taps (a blur's 2 r + 1)."""
    w, h = image_size(width, height, step.scale)
    px = float(w * h)
    return px * step.taps if step.cost is CostKind.PIXEL_TAPS else px


class SpelledKey:
    """A key (a frozen dataclass with ``eq=False``) that hashes and compares equal to its
    ``str()``, the spelling stored and reported before it was a type, as the str enums
    do: a dict keyed by it can be looked up by the spelling."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(str(self))

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(self))
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented


@dataclass(frozen=True, eq=False)
class PassCost(SpelledKey):
    """The key of one pass entry of the cost model: the executor, the planned pass kind,
    and whether the entry prices each further clamped step of a fused colour pass
    (``per_step``) rather than the pass. Stored as "executor:kind" ("gl:blur",
    "opencl:color_step"), which ``str()`` gives and ``parse`` reads; it hashes and
    compares equal to that spelling too, so a model keyed by the spelling (a stored one,
    or one written by hand) reads as it always did."""

    executor: Executor
    kind: PassKind
    per_step: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "executor", Executor.of(self.executor))
        object.__setattr__(self, "kind", PassKind(self.kind))
        if self.per_step and self.kind is not PassKind.COLOR:
            raise ValueError(f"only colour passes are priced per step, not {self.kind.value!r}")

    @classmethod
    def parse(cls, key: "PassCost | str") -> "PassCost":
        """The key spelled ``key`` ("gl:color", "opencl:color_step"); a ValueError for a
        spelling that names no executor or pass kind."""
        if isinstance(key, cls):
            return key
        executor, sep, kind = str(key).partition(":")
        if not sep:
            raise ValueError(f"a cost-model pass key is 'executor:kind', got {key!r}")
        per_step = kind.endswith(_PER_STEP)
        return cls(Executor.of(executor), PassKind(kind.removesuffix(_PER_STEP) if per_step else kind), per_step)

    def __str__(self) -> str:
        return f"{self.executor.value}:{self.kind.value}{_PER_STEP if self.per_step else ''}"


@runtime_checkable
class FilterCostModel(Protocol):
    """What placement asks of a cost model: a label for reports, the milliseconds of a
    planned pass on an executor, and of a copy between the executors' memories."""

    label: str

    def pass_ms(self, executor: "Executor | str", step: PlannedPass, width: int, height: int) -> float: ...

    def transfer_ms(self, direction: "Transfer | str", nbytes: int) -> float: ...


@dataclass(frozen=True)
class CostModel:
    """A linear model written by hand (tests, what-if studies): milliseconds = fixed + per_unit x units, per pass entry (PassCost: executor and
    kind), and per transfer direction (Transfer) per byte. Keys may be given spelled as
    the stored JSON spells them ("gl:blur", "gl->cl"): they are parsed once, here."""

    label: str
    passes: Mapping[PassCost, tuple[float, float]] = field(default_factory=dict)  # -> (fixed_ms, ms_per_unit)
    transfers: Mapping[Transfer, tuple[float, float]] = field(default_factory=dict)  # -> (fixed_ms, ms_per_byte)
    # GL and OpenCL run on the same CPU cores (llvmpipe and PoCL, as on this machine):
    # their work cannot overlap, and the frame-wide schedule is judged one pass after another.
    shares_cpu: bool = False

    def __post_init__(self) -> None:
        passes = {PassCost.parse(k): tuple(v) for k, v in self.passes.items()}
        object.__setattr__(self, "passes", passes)
        object.__setattr__(self, "transfers", {Transfer(k): tuple(v) for k, v in self.transfers.items()})
        # Placement prices every pass on every executor for every state it explores: look
        # entries up by (executor, kind, per_step) without making a key each time.
        object.__setattr__(self, "_table", {(k.executor, k.kind, k.per_step): v for k, v in passes.items()})

    def pass_ms(self, executor: "Executor | str", step: PlannedPass, width: int, height: int) -> float:
        if type(executor) is not Executor:
            executor = Executor.of(executor)
        kind = step.pass_kind
        try:
            fixed, per = self._table[executor, kind, False]
        except KeyError:
            raise KeyError(str(PassCost(executor, kind))) from None  # as a model keyed by spelling said
        ms = fixed + per * work_units(step, width, height)
        if kind is PassKind.COLOR and len(step.steps) > 1:
            # The colour model is measured at one step; each further clamped step costs
            # what the calibration's 8-step pass added per step and pixel.
            _, per_step = self._table.get((executor, kind, True), (0.0, 0.0))
            ms += per_step * work_units(step, width, height) * (len(step.steps) - 1)
        return ms

    def transfer_ms(self, direction: "Transfer | str", nbytes: int) -> float:
        fixed, per = self.transfers[direction if type(direction) is Transfer else Transfer(direction)]
        return fixed + per * nbytes

    def to_dict(self) -> dict:
        """The stored form (JSON): keys spelled "executor:kind" and "gl->cl"."""
        return {"label": self.label, "passes": {str(k): list(v) for k, v in self.passes.items()},
                "transfers": {k.value: list(v) for k, v in self.transfers.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> "CostModel":
        """The model ``to_dict`` stored; a ValueError or KeyError when it is not one (a
        key naming no executor, pass kind or transfer)."""
        return cls(data["label"], dict(data["passes"]), dict(data["transfers"]))


@dataclass(frozen=True)
class Placement:
    """Where each pass of a plan runs, and why; ``estimate_ms`` per option when auto."""

    executors: tuple[Executor, ...]
    why: tuple[str, ...]
    summary: str
    estimates: dict = field(default_factory=dict)  # "gl" / "opencl" / "chosen" -> ms


def _price(plan: FilterPlan, width: int, height: int, model: FilterCostModel, executors: tuple[Executor, ...]) -> float:
    """Estimated ms of running ``plan`` with ``executors``, transfers included (an image
    moves at most once to each side; the result must end as a GL texture)."""
    where = {"source": {Executor.GL}}
    sizes = _image_bytes(plan, width, height)
    total = 0.0
    for step, exe in zip(plan.passes, executors):
        loc = Executor.of(exe)
        for name in step.inputs:
            if loc not in where[name]:
                total += model.transfer_ms(Transfer.to(loc), sizes[name])
                where[name].add(loc)
        total += model.pass_ms(loc, step, width, height)
        where[step.output] = {loc}
    if Executor.GL not in where[plan.output]:
        total += model.transfer_ms(Transfer.TO_GL, sizes[plan.output])
    return total


def _image_bytes(plan: FilterPlan, width: int, height: int) -> dict[str, int]:
    """The bytes of every image of ``plan`` on a width x height input (what a copy of it
    moves: a float linear image four times an 8-bit one's)."""
    sizes = {"source": width * height * ImageFormat.RGBA8.texel_bytes}
    for p in plan.passes:
        w, h = image_size(width, height, p.scale)
        sizes[p.output] = w * h * image_format(p).texel_bytes
    return sizes


def _cheapest(plan: FilterPlan, width: int, height: int, model: FilterCostModel) -> tuple[Executor, ...]:
    """The placement of least estimated cost (ties: fewer OpenCL passes). Dynamic
    programming over the passes; a state is where each image still needed lives."""
    passes = plan.passes
    end = len(passes)
    last_use = {name: i for i, p in enumerate(passes) for name in p.inputs}
    last_use[plan.output] = end  # needed at the end, on GL
    sizes = _image_bytes(plan, width, height)

    def moved(name: str, to: Executor) -> float:
        return model.transfer_ms(Transfer.to(to), sizes[name])

    # state: ((image, frozenset of executors holding it), ...) -> (cost, OpenCL passes, executors)
    states = {(("source", frozenset({Executor.GL})),): (0.0, 0, ())}
    for i, step in enumerate(passes):
        nxt: dict = {}
        for state, (cost, n_cl, chosen) in states.items():
            for executor in EXECUTORS:
                where = dict(state)
                c = cost + model.pass_ms(executor, step, width, height)
                for name in dict.fromkeys(step.inputs):
                    if executor not in where[name]:
                        c += moved(name, executor)
                        where[name] = where[name] | {executor}
                where[step.output] = frozenset({executor})
                key = tuple(sorted((k, v) for k, v in where.items() if last_use.get(k, -1) > i))
                value = (c, n_cl + (executor is Executor.OPENCL), chosen + (executor,))
                if key not in nxt or value[:2] < nxt[key][:2]:
                    nxt[key] = value
        states = nxt
    finals = []
    for state, (cost, n_cl, chosen) in states.items():
        where = dict(state)
        finals.append((cost + (0.0 if Executor.GL in where[plan.output] else moved(plan.output, Executor.GL)), n_cl, chosen))
    return min(finals)[2]


def place(plan: FilterPlan, width: int, height: int, backend: "FilterBackend | str", model: FilterCostModel | None = None,
          unavailable: str | None = None) -> Placement:
    """Choose an executor for every pass of ``plan`` on a width x height input."""
    backend = FilterBackend.parse(backend)
    n = len(plan.passes)
    if backend is FilterBackend.GL or n == 0:
        return Placement((Executor.GL,) * n, ("",) * n, "")
    if backend is FilterBackend.OPENCL:
        return Placement((Executor.OPENCL,) * n, ("filter_backend opencl",) * n,
                         "all passes on OpenCL (filter_backend opencl)")
    if unavailable is not None or model is None:
        why = f"auto: no OpenCL ({unavailable})" if unavailable else "auto: no cost model"
        return Placement((Executor.GL,) * n, (why,) * n, why)
    best = _cheapest(plan, width, height, model)
    chosen = _price(plan, width, height, model, best)
    all_gl = _price(plan, width, height, model, (Executor.GL,) * n)
    all_cl = _price(plan, width, height, model, (Executor.OPENCL,) * n)
    why = []
    for step, exe in zip(plan.passes, best):
        g, c = model.pass_ms(Executor.GL, step, width, height), model.pass_ms(Executor.OPENCL, step, width, height)
        why.append(f"auto: {exe}, est. GL {g:.2f} ms / OpenCL {c:.2f} ms")
    on_cl = best.count(Executor.OPENCL)
    summary = (f"auto placed {on_cl} of {n} passes on OpenCL: est. {chosen:.2f} ms with transfers "
               f"(all GL {all_gl:.2f} ms, all OpenCL {all_cl:.2f} ms, by the cost model measured here)")
    return Placement(tuple(best), tuple(why), summary, {"gl": all_gl, "opencl": all_cl, "chosen": chosen})
