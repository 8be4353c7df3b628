"""Where each pass of a filter plan runs: the placement the ``filter_backend`` setting asks
for, priced by a cost model when it is ``"auto"``.

* ``gl``: every pass is a GLSL pass (the default).
* ``opencl``: every pass is an OpenCL kernel; the plan's input is read back from its GL
  texture into an OpenCL buffer first and the result written back to a texture.
* ``auto``: per pass, whichever is cheaper, transfers included, by a cost model measured
  on this machine (``lamina.gpu.calibrate``): for each executor and pass kind, a fixed
  cost plus a cost per unit of work (pixels, or pixels x taps for blurs, bytes for
  transfers), fitted from two image sizes. The placement is exact and cheap: a dynamic
  programme over the passes whose state is where each still-needed image lives (at most
  two images are live in a plan), so ``auto`` is never worse than all-GL or all-OpenCL
  by the model.

Plain data and arithmetic: the model is measured by the executors, before planning, and
handed to the planner in the frame request or the executor's snapshot; placing a plan
runs nothing. (A module beside ``request``, not inside ``graph/``: the request carries a
cost model, and the graph builder reads the request.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .filters.backend import FilterBackend
from .filters.plan import CostKind, FilterPlan, PassKind, PlannedPass, image_size
from .framegraph import Executor

__all__ = ["CostModel", "Placement", "place", "work_units", "KINDS", "EXECUTORS"]

EXECUTORS = tuple(Executor)
KINDS = tuple(k.value for k in PassKind)  # the cost model's pass keys: "executor:kind"


def work_units(step: PlannedPass, width: int, height: int) -> float:
    """The unit of work a pass's cost grows with, as its cost kind says: output pixels,
    or output pixels times taps (a blur's 2 r + 1)."""
    w, h = image_size(width, height, step.scale)
    px = float(w * h)
    return px * step.taps if step.cost is CostKind.PIXEL_TAPS else px


@dataclass(frozen=True)
class CostModel:
    """Milliseconds = fixed + per_unit x units, per (executor, kind), and per transfer
    direction ("gl->cl", "cl->gl") per byte."""

    label: str
    passes: dict = field(default_factory=dict)  # "executor:kind" -> (fixed_ms, ms_per_unit)
    transfers: dict = field(default_factory=dict)  # "gl->cl" / "cl->gl" -> (fixed_ms, ms_per_byte)

    def pass_ms(self, executor: "Executor | str", step: PlannedPass, width: int, height: int) -> float:
        fixed, per = self.passes[f"{executor}:{step.pass_kind.value}"]
        ms = fixed + per * work_units(step, width, height)
        if step.pass_kind is PassKind.COLOR and len(step.steps) > 1:
            # The colour model is measured at one step; each further clamped step costs
            # what the calibration's 8-step pass added per step and pixel.
            _, per_step = self.passes.get(f"{executor}:color_step", (0.0, 0.0))
            ms += per_step * work_units(step, width, height) * (len(step.steps) - 1)
        return ms

    def transfer_ms(self, direction: str, nbytes: int) -> float:
        fixed, per = self.transfers[direction]
        return fixed + per * nbytes

    def to_dict(self) -> dict:
        return {"label": self.label, "passes": {k: list(v) for k, v in self.passes.items()},
                "transfers": {k: list(v) for k, v in self.transfers.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> "CostModel":
        return cls(data["label"], {k: tuple(v) for k, v in data["passes"].items()},
                   {k: tuple(v) for k, v in data["transfers"].items()})


@dataclass(frozen=True)
class Placement:
    """Where each pass of a plan runs, and why; ``estimate_ms`` per option when auto."""

    executors: tuple[Executor, ...]
    why: tuple[str, ...]
    summary: str
    estimates: dict = field(default_factory=dict)  # "gl" / "opencl" / "chosen" -> ms


def _price(plan: FilterPlan, width: int, height: int, model: CostModel, executors: tuple[Executor, ...]) -> float:
    """Estimated ms of running ``plan`` with ``executors``, transfers included (an image
    moves at most once to each side; the result must end as a GL texture)."""
    where = {"source": {"gl"}}
    sizes = {"source": (width, height)}
    total = 0.0
    for step, exe in zip(plan.passes, executors):
        loc = Executor.of(exe).short
        for name in step.inputs:
            if loc not in where[name]:
                w, h = sizes[name]
                total += model.transfer_ms(f"{next(iter(where[name]))}->{loc}", w * h * 4)
                where[name].add(loc)
        total += model.pass_ms(exe, step, width, height)
        where[step.output] = {loc}
        sizes[step.output] = image_size(width, height, step.scale)
    if "gl" not in where[plan.output]:
        w, h = sizes[plan.output]
        total += model.transfer_ms("cl->gl", w * h * 4)
    return total


def _cheapest(plan: FilterPlan, width: int, height: int, model: CostModel) -> tuple[Executor, ...]:
    """The placement of least estimated cost (ties: fewer OpenCL passes). Dynamic
    programming over the passes; a state is where each image still needed lives."""
    passes = plan.passes
    end = len(passes)
    last_use = {name: i for i, p in enumerate(passes) for name in p.inputs}
    last_use[plan.output] = end  # needed at the end, on GL
    sizes = {"source": (width, height)}
    for p in passes:
        sizes[p.output] = image_size(width, height, p.scale)

    def moved(name: str, to: str) -> float:
        w, h = sizes[name]
        return model.transfer_ms(f"{'cl' if to == 'gl' else 'gl'}->{to}", w * h * 4)

    # state: ((image, frozenset of locations), ...) -> (cost, OpenCL passes, executors)
    states = {(("source", frozenset({"gl"})),): (0.0, 0, ())}
    for i, step in enumerate(passes):
        nxt: dict = {}
        for state, (cost, n_cl, chosen) in states.items():
            for executor in EXECUTORS:
                loc = executor.short
                where = dict(state)
                c = cost + model.pass_ms(executor, step, width, height)
                for name in dict.fromkeys(step.inputs):
                    if loc not in where[name]:
                        c += moved(name, loc)
                        where[name] = where[name] | {loc}
                where[step.output] = frozenset({loc})
                key = tuple(sorted((k, v) for k, v in where.items() if last_use.get(k, -1) > i))
                value = (c, n_cl + (executor is Executor.OPENCL), chosen + (executor,))
                if key not in nxt or value[:2] < nxt[key][:2]:
                    nxt[key] = value
        states = nxt
    finals = []
    for state, (cost, n_cl, chosen) in states.items():
        where = dict(state)
        finals.append((cost + (0.0 if "gl" in where[plan.output] else moved(plan.output, "gl")), n_cl, chosen))
    return min(finals)[2]


def place(plan: FilterPlan, width: int, height: int, backend: "FilterBackend | str", model: CostModel | None = None,
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
