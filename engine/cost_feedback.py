"""Correction from measurement (issue 22, item 4): the times a frame's passes measured
judge each device against its history, and a device measured slower than that history
beyond its spread is priced higher for the next frames, so the frame-wide schedule moves
work off it; when it runs as its history says again, the correction is lifted and the
work comes back.

A stage of the pipeline in two pure parts, with one small value between frames:

* ``observe(graph, pass_ms)``: what a rendered frame measured of its filter passes
  (``Observation``: pass, executor, sample, size, ms). Only filter passes: they are what
  the schedule can move, and what the history model has samples of (GL's other passes
  are priced by a proxy).
* ``FeedbackState``: a renderer's correction state, a frozen value per base cost model
  (a new calibration or another request model starts a new one). ``update(observations)``
  returns the next state; ``model()`` is what the next snapshot gives the planner (a
  ``frame_costs.CorrectedModel``: plain data, taken before planning).

The rule (constants in ``Tuning``), per device per frame:

* The reference is what *frames* measured here: the last ``window`` times of each
  (sample, device, size class) (``Recent``), and a pass's predicted time and spread are
  their median and scaled median absolute deviation per work unit, times its units.
  Calibration runs each pass alone, at two sizes, and a frame's passes land elsewhere on
  that line (small passes are dominated by overheads calibration does not see), so
  judging frames by the calibration would call a device slow that is only mispredicted;
  and median and MAD are robust to the odd frame a shared machine measures (a mean and
  a standard deviation of three samples are not). A pass is judged once its key has
  ``min_samples`` frame samples; before that it only teaches.
* A frame is slow on a device when its judged passes' measured times sum to more than
  their predictions' sum times 1 + ``k`` spreads, the spread being that of the device's
  own recent calm frames' ratios (scaled MAD of the last ``window``), at least
  ``spread_floor``. The frame's ratio, not each pass's: on a shared machine one pass is
  often preempted for a time slice (a 0.3 ms pass measuring 3-8 ms) and a busy device
  slows its long passes most, which the sum weights. The frame ratios' own spread,
  because on this machine (2 cores shared by llvmpipe, PoCL and whatever else runs)
  whole frames vary by a third to a half with no change to the device, which the
  passes' spreads, learned over a few quiet frames, do not show. With the floor and
  k = 2 a device must measure at least 1.5x its prediction to be slow; two such frames
  in a row make it a correction. (k = 3 was tried: the spread of calm frames measured
  while other sessions loaded the machine reached 0.5, a limit of 2.5x, and a device
  slowed 3x by the benchmark's load took 6 frames to be corrected, its slow frames
  straddling that limit.)
* ``strikes`` slow frames in a row correct the device: its factor is their least ratio,
  and the schedule prices its passes at that many times their base price. Each later
  slow frame on it moves the factor toward the ratio measured (EWMA, weight ``ewma``).
  ``calm`` frames in a row within the spread lift it (hysteresis both ways: one odd
  frame neither corrects a device nor lifts its correction).
* A device whose work all moved away measures nothing: after ``probe_after`` frames
  without work its factor decays, each further frame without work, to its square root
  (to 1 below 1.1), so the passes that gain most from it return first and measure it.
  A probe that measures it still slow sets the factor to that ratio and doubles the
  wait (up to ``probe_max``): a device that stays loaded costs a probe per doubling
  wait, not one every few frames. Calm frames lift a correction only while the device
  carries at least ``probe_share`` of the work (predicted ms) it was found slow with;
  calm with less, its factor decays one more step, so more work comes back to measure
  it. (Measured: llvmpipe under three busy processes on its core ran a frame's 12
  filter passes 3-4x slower, yet one pass alone measured calm, because the OS favours
  the threads of a device that sleeps between passes over a load that never sleeps;
  lifting on that, all 12 came back and were slow again.)
* A device's first frame with work after frames without any is dropped (neither judged
  nor learned): it measures the device waking (buffers allocated again, threads woken),
  as StarPU drops a kernel's first run. So a probe costs two frames on the device.
* Samples from slow frames are not added to the reference (StarPU counts such outliers
  apart from the model); every other frame's are. The reference is the live model of
  measured samples; it stays in memory with the renderer, never in the stored
  calibration (that is what a fresh process starts from, each pass measured alone).

Frame samples change the prices only through a device's factor: the schedule prices by
the base model (the calibration) times the factors. Feeding frame samples into the
prices themselves (tried: the calibration's Welford entries plus each frame's samples)
moved work between frames with nothing in the report to say why (a device measured a
little slower, within its spread, under the machine's other load became dearer by the
history alone), and a device that lost all its work that way was never measured, nor
probed, again: its work never came back. A factor is reported, and probed back.

Frames that compiled shader programs (JIT: tens of ms of first use) are not observed: the
renderer skips them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Iterable, Mapping

from .cost_history import DeviceCosts, Sample, SizeClass
from .filter_costs import FilterCostModel, work_units
from .frame_costs import CorrectedModel, DeviceCorrection, PassSeen, device_name, source_size
from .framegraph import FrameGraph
from .named import NamedEnum
from .textures import Executor

__all__ = ["Comparison", "CorrectionReport", "DeviceHealth", "FeedbackState", "Move", "Observation", "Phase", "Recent",
           "Reported", "Tuning", "Verdict", "correction_report", "observe", "report_against", "reported_against"]


@dataclass(frozen=True)
class Observation:
    """One filter pass as a frame measured it: its name, the executor it ran on, what the
    history keys it by (sample, work units) and its measured milliseconds."""

    pass_name: str
    executor: Executor
    sample: Sample
    units: float
    measured_ms: float


def observe(graph: FrameGraph, pass_ms: Mapping[str, float],
            ran_on: Mapping[str, Executor] | None = None) -> tuple[Observation, ...]:
    """The observations of a rendered frame: each filter pass of ``graph`` with a time in
    ``pass_ms`` (``ExecutionStats.pass_ms``, by pass name), on the executor it ran on:
    the graph's, unless ``ran_on`` (``ExecutionStats.ran_on``) says the executor moved
    it at run time (graph.offload). Only graphs a frame-wide schedule placed are
    observed: elsewhere no device was chosen by the model."""
    if graph.schedule is None:
        return ()
    moved = ran_on or {}
    out = []
    for p in graph.filter_passes():
        ms = pass_ms.get(p.name)
        if ms is None or not math.isfinite(ms) or ms < 0:
            continue
        w, h = source_size(p.step, p.target.width, p.target.height)  # (what the schedule priced it at)
        executor = moved.get(p.name) or Executor.of(p.executor)
        out.append(Observation(p.name, executor, Sample.of(p.step), work_units(p.step, w, h), ms))
    return tuple(out)


@dataclass(frozen=True)
class Tuning:
    """The correction rule's constants (module docstring)."""

    k: float = 2.0
    spread_floor: float = 0.25
    min_samples: int = 3
    strikes: int = 2
    calm: int = 2
    ewma: float = 0.5
    probe_after: int = 3
    probe_max: int = 24
    window: int = 16
    probe_share: float = 0.5

    def __post_init__(self) -> None:
        if not (self.k > 0 and self.spread_floor >= 0 and 0 < self.ewma <= 1 and 0 <= self.probe_share <= 1):
            raise ValueError("k > 0, spread_floor >= 0, 0 < ewma <= 1 and 0 <= probe_share <= 1")
        if min(self.min_samples, self.strikes, self.calm, self.probe_after) < 1 or self.probe_max < self.probe_after:
            raise ValueError("counts are at least 1, and probe_max at least probe_after")


RecentKey = tuple[Sample, str, SizeClass]  # (sample, device key, size class)


@dataclass(frozen=True)
class Recent:
    """The last ``window`` (units, ms) a key measured in frames, per key: the reference
    frames are judged against (module docstring)."""

    window: int = Tuning.window
    times: Mapping[RecentKey, tuple[tuple[float, float], ...]] = field(default_factory=dict)

    def add(self, sample: Sample, device: str, units: float, ms: float) -> "Recent":
        key = (sample, device, SizeClass.of(units))
        kept = (*self.times.get(key, ()), (units, ms))[-self.window:]
        return replace(self, times={**self.times, key: kept})

    def count(self, device: str) -> int:
        """Samples kept for ``device``, over all its keys."""
        return sum(len(v) for k, v in self.times.items() if k[1] == device)

    def predict(self, sample: Sample, device: str, units: float) -> tuple[float, float, int]:
        """(median, spread, samples) of ``sample`` on ``device`` at ``units``: the median
        ms per unit of its size class times ``units``, the spread 1.4826 x their median
        absolute deviation (a standard deviation where times are normal) times units."""
        kept = self.times.get((sample, device, SizeClass.of(units)), ())
        if not kept:
            return math.nan, math.nan, 0
        rates = [ms / u if u > 0 else ms for u, ms in kept]
        mid = _median(rates)
        mad = _median([abs(r - mid) for r in rates])
        scale = units if units > 0 else 1.0
        return mid * scale, 1.4826 * mad * scale, len(kept)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


class Phase(NamedEnum):
    NOMINAL = "nominal"  # priced by its history
    CORRECTED = "corrected"  # priced at its load factor


@dataclass(frozen=True)
class Verdict:
    """One device's judgement in one frame: the sum of its judged passes' measured ms
    over the sum predicted (``ratio``), the limit it was held to (1 + k x the spread of
    its recent calm frames' ratios, floored), and the two sums."""

    frame: int
    executor: Executor
    passes: int
    measured_ms: float
    predicted_ms: float
    ratio: float
    limit: float
    slow: bool

    @property
    def spread_ms(self) -> float:
        """The limit's spread in ms over the predicted sum (what a report shows as +/-)."""
        return (self.limit - 1.0) * self.predicted_ms

    def words(self) -> str:
        return (f"its passes measured {self.measured_ms:.2f} ms against {self.predicted_ms:.2f} ms predicted "
                f"over {self.passes} pass{'es' if self.passes != 1 else ''}: {self.ratio:.2f}x (limit "
                f"{self.limit:.2f}x)")


@dataclass(frozen=True)
class DeviceHealth:
    """Where one device stands: its phase and factor, the slow frames in a row (and their
    ratios), the calm frames in a row, frames without work in a row, the wait before its
    next probe, whether it is being probed, the last verdict, the ratios of its last
    frames within the spread (``ratios``: how much its frames vary on their own), and how
    much work (predicted ms) it carried when it was last found slow (``work_ms``)."""

    phase: Phase = Phase.NOMINAL
    factor: float = 1.0
    strikes: tuple[float, ...] = ()
    calm: int = 0
    idle: int = 0
    wait: int = 0
    probing: bool = False
    last: Verdict | None = None
    ratios: tuple[float, ...] = ()
    work_ms: float = 0.0  # the predicted ms of its judged passes when it was found slow


@dataclass(frozen=True)
class FeedbackState:
    """A renderer's correction state for one base cost model (module docstring)."""

    base: FilterCostModel = field(compare=False)
    tuning: Tuning = Tuning()
    reference: Recent = Recent()
    health: Mapping[Executor, DeviceHealth] = field(default_factory=dict)
    frame: int = 0  # frames observed
    seen: Mapping[tuple[str, Executor], PassSeen] = field(default_factory=dict)  # (pass, where it ran) ->
    moved: Mapping[str, tuple[Executor, Executor]] = field(default_factory=dict)
    events: tuple[str, ...] = ()  # what the last update changed

    @classmethod
    def start(cls, base: FilterCostModel, tuning: Tuning = Tuning()) -> "FeedbackState":
        return cls(base, tuning, reference=Recent(tuning.window))

    # -- the next frame's prices -----------------------------------------------------------
    def key(self, executor: Executor) -> str:
        """The device's key in the history models: its Device.id under a history model,
        else the executor's name."""
        return self.base.device(executor) if isinstance(self.base, DeviceCosts) else executor.value

    def model(self) -> CorrectedModel:
        """The cost model the next frame is planned by: the base model with each
        corrected device's factor, and what the report says of it."""
        corrections = tuple(_correction(e, h) for e, h in self.health.items() if h.phase is Phase.CORRECTED)
        return CorrectedModel(self.base, corrections, self.seen, self.moved, self.events)

    def factor(self, executor: Executor) -> float:
        h = self.health.get(executor)
        return h.factor if h is not None else 1.0

    # -- a measured frame ------------------------------------------------------------------
    def update(self, observations: Iterable[Observation], moved: Mapping[str, tuple[Executor, Executor]] | None = None
               ) -> "FeedbackState":
        """The state after a frame that measured ``observations``; ``moved``: the passes
        that frame ran away from the uncorrected plan (its CorrectionReport's moves)."""
        t = self.tuning
        frame = self.frame + 1
        by_device: dict[Executor, list[Observation]] = {}
        for o in observations:
            by_device.setdefault(o.executor, []).append(o)
        reference = self.reference
        health = dict(self.health)
        seen = dict(self.seen)
        events: list[str] = []
        for executor in sorted(set(by_device) | set(health)):
            obs = by_device.get(executor, [])
            key = self.key(executor)
            # (A device's first frame is its first after none: dropped, as below.)
            was = health.get(executor, DeviceHealth(idle=1, wait=t.probe_after))
            if obs and was.idle:
                # Its first frame after frames without work measures its waking (buffers
                # made again, threads woken), as a calibration's first run does: dropped.
                health[executor] = replace(was, idle=0)
                continue
            verdict, predictions = self._judge(frame, executor, key, obs, was.ratios)
            for o in obs:
                est = predictions.get(o.pass_name)
                seen[o.pass_name, executor] = PassSeen(executor, o.measured_ms, *(est or (math.nan, math.nan)))
            h, said = _next_health(was, verdict, bool(obs), t)
            if verdict is not None and not verdict.slow:
                h = replace(h, ratios=(*h.ratios, verdict.ratio)[-t.window:])
            health[executor] = h
            events.extend(f"{device_name(executor)} {text}" for text in said)
            if verdict is None or not verdict.slow:
                for o in obs:  # within the spread (or not yet judged): it teaches the history
                    reference = reference.add(o.sample, key, o.units, o.measured_ms)
        return replace(self, reference=reference, health=health, frame=frame, seen=seen,
                       moved=dict(moved or {}), events=tuple(events))

    def _judge(self, frame: int, executor: Executor, key: str, obs: list[Observation], calm: tuple[float, ...]
               ) -> tuple[Verdict | None, dict[str, tuple[float, float]]]:
        """The verdict on ``obs`` (None: no pass has enough frame samples to judge) and
        each judged pass's predicted (median, spread); ``calm``: the device's recent
        ratios within the spread."""
        t = self.tuning
        predictions: dict[str, tuple[float, float]] = {}
        measured = predicted = 0.0
        for o in obs:
            mean, std, samples = self.reference.predict(o.sample, key, o.units)
            if samples < t.min_samples or not mean > 0:
                continue
            predictions[o.pass_name] = (mean, std)
            measured += o.measured_ms
            predicted += mean
        if not predictions:
            return None, predictions
        ratio = measured / predicted
        # The spread of the device's own frame ratios, once it has a few: on a shared
        # machine whole frames vary more than the passes' spreads say.
        spread = 0.0
        if len(calm) >= t.min_samples:
            mid = _median(list(calm))
            spread = 1.4826 * _median([abs(r - mid) for r in calm])
        limit = 1.0 + t.k * max(spread, t.spread_floor)
        return Verdict(frame, executor, len(predictions), measured, predicted, ratio, limit, ratio > limit), predictions

    def to_dict(self) -> dict[str, Any]:
        return {"frame": self.frame, "devices": {device_name(e): {"phase": h.phase.value, "factor": h.factor,
                                                                 "wait": h.wait, "probing": h.probing}
                                                 for e, h in self.health.items()},
                "events": list(self.events)}


def _next_health(h: DeviceHealth, verdict: Verdict | None, worked: bool, t: Tuning) -> tuple[DeviceHealth, list[str]]:
    """One device's health after a frame (module docstring's rule), and what changed, in words."""
    said: list[str] = []
    if not worked:
        idle = h.idle + 1
        if h.phase is Phase.NOMINAL:
            return replace(h, idle=idle), said
        if idle < h.wait:
            return replace(h, idle=idle), said
        # The wait is over: decay every frame without work until some comes back.
        factor = math.sqrt(h.factor)
        factor = 1.0 if factor < 1.1 else factor
        said.append(f"probe: no work for {idle} frames, its factor decays x{h.factor:.2f} -> x{factor:.2f} so "
                    "the passes that gain most from it come back and measure it")
        if factor == 1.0:
            return DeviceHealth(wait=t.probe_after, last=h.last, ratios=h.ratios), said + ["correction lifted (decayed)"]
        return replace(h, factor=factor, idle=idle, probing=True, calm=0), said
    if verdict is None:
        return replace(h, idle=0), said
    if h.phase is Phase.NOMINAL:
        if not verdict.slow:
            return replace(h, strikes=(), last=verdict), said
        strikes = (*h.strikes, verdict.ratio)
        if len(strikes) < t.strikes:
            return replace(h, strikes=strikes, last=verdict), said
        factor = min(strikes)  # as slow as every one of them was: one spike does not set it
        said.append(f"corrected x{factor:.2f}: {len(strikes)} frames in a row beyond its spread, the last "
                    f"{verdict.words()}")
        return DeviceHealth(Phase.CORRECTED, factor, (), 0, 0, h.wait or t.probe_after, False, verdict, h.ratios,
                            verdict.predicted_ms), said
    # corrected, and measured this frame
    if verdict.slow:
        if h.probing:
            wait = min(2 * h.wait, t.probe_max)
            said.append(f"probe found it still slow ({verdict.words()}): x{verdict.ratio:.2f}, next probe after "
                        f"{wait} frames without work")
            return replace(h, factor=max(verdict.ratio, 1.0), calm=0, idle=0, wait=wait, probing=False,
                           last=verdict, work_ms=max(h.work_ms, verdict.predicted_ms)), said
        factor = max((1 - t.ewma) * h.factor + t.ewma * verdict.ratio, 1.0)
        return replace(h, factor=factor, calm=0, idle=0, last=verdict), said
    if verdict.predicted_ms < t.probe_share * h.work_ms:
        # Calm with a little of the work it was slow with: a shared device's threads,
        # woken for a pass or two, are favoured by the OS scheduler over a load that
        # never sleeps, so this says little. Give it more work: decay one more step.
        factor = math.sqrt(h.factor)
        if factor < 1.1:
            said.append(f"recovered: calm while its factor decayed to 1, the last {verdict.words()}; correction "
                        "lifted")
            return DeviceHealth(wait=t.probe_after, last=verdict, ratios=h.ratios), said
        said.append(f"probe: calm with {verdict.predicted_ms:.2f} of the {h.work_ms:.2f} ms of work it was slow "
                    f"with; its factor decays x{h.factor:.2f} -> x{factor:.2f} to give it more")
        return replace(h, factor=factor, idle=0, probing=True, calm=0, last=verdict), said
    calm = h.calm + 1
    if calm >= t.calm:
        said.append(f"recovered: {calm} frames in a row within its spread, the last {verdict.words()}; correction "
                    "lifted")
        return DeviceHealth(wait=t.probe_after, last=verdict, ratios=h.ratios), said
    return replace(h, calm=calm, idle=0, last=verdict), said


def _correction(executor: Executor, h: DeviceHealth) -> DeviceCorrection:
    v = h.last
    why = (f"priced x{h.factor:.2f}: last judged frame {v.words()}" if v is not None
           else f"priced x{h.factor:.2f}")
    if h.probing:
        why += "; being probed (its factor decayed while it had no work)"
    return DeviceCorrection(executor, h.factor, v.measured_ms if v else math.nan, v.predicted_ms if v else math.nan,
                            v.spread_ms if v else math.nan, why)


# -- the report ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Move:
    """A filter pass placed on another device than the uncorrected plan puts it on
    (``back``: a pass that ran moved last frame and now runs where the plan puts it):
    its name and layer, from where to where, and why in words (predicted vs measured)."""

    pass_name: str
    layer: str
    source: Executor
    target: Executor
    back: bool
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {"pass": self.pass_name, "layer": self.layer, "from": device_name(self.source),
                "to": device_name(self.target), "back": self.back, "why": self.why}


@dataclass(frozen=True)
class CorrectionReport:
    """What correction from measurement did to a frame's placement: each corrected
    device's factor and why, each pass moved (or moved back), and what the last measured
    frame changed. A frame graph carries it (``FrameGraph.corrections``)."""

    devices: tuple[DeviceCorrection, ...]
    moves: tuple[Move, ...]
    events: tuple[str, ...]

    def moved(self) -> dict[str, tuple[Executor, Executor]]:
        """Pass name -> (from, to), for the passes this frame runs away from the plan."""
        return {m.pass_name: (m.source, m.target) for m in self.moves if not m.back}

    def describe_lines(self) -> list[str]:
        lines = ["Correction from measurement (measured pass times against their history):"]
        lines += [f"  {e}" for e in self.events]
        lines += [f"  {device_name(c.executor)} {c.why}" for c in self.devices]
        for m in self.moves:
            verb = "moved back" if m.back else "moved"
            lines.append(f"  {verb} {m.pass_name}: {device_name(m.source)} -> {device_name(m.target)} ({m.why})")
        if not self.moves and self.devices:
            lines.append("  no pass moved: the corrected prices leave every pass where it was")
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {"devices": [c.to_dict() for c in self.devices], "moves": [m.to_dict() for m in self.moves],
                "events": list(self.events)}


def _placement(graph: FrameGraph) -> dict[str, tuple[Executor, str]]:
    of = Executor.of
    return {p.name: (e if type(e) is Executor else of(e), p.layer_id)
            for p in graph.filter_passes() for e in (p.executor,)}


def correction_report(static: FrameGraph, corrected: FrameGraph, model: CorrectedModel) -> CorrectionReport | None:
    """The report of ``corrected`` (the frame placed by ``model``) against ``static`` (the
    same frame placed by ``model.base``): the passes that run elsewhere, and those moved
    last frame that are back where the plan puts them. None when nothing is corrected,
    nothing moved back and no event is to be told."""
    return report_against(_placement(static), corrected, model)


@dataclass(frozen=True)
class Comparison:
    """A corrected frame's filter passes against the uncorrected plan, as columns in the
    corrected frame's pass order (its moves are reported in that order): each pass's
    name, layer and executor, the executor the plan puts it on (its own where the plan
    does not name it), and the positions where the two differ. Made once per pair of
    plans: a frame whose corrected and uncorrected plans are both last frame's (reused
    by their memos) compares them as last frame did."""

    names: tuple[str, ...]
    layers: tuple[str, ...]
    now: tuple[Executor, ...]
    planned: tuple[Executor, ...]
    differ: tuple[int, ...]

    @classmethod
    def of(cls, plan: Mapping[str, tuple[Executor, str]], corrected: FrameGraph) -> "Comparison":
        of = Executor.of
        filters = corrected.filter_passes()
        names = tuple([p.name for p in filters])
        now = tuple([e if type(e) is Executor else of(e) for e in (p.executor for p in filters)])
        get = plan.get
        planned = tuple([found[0] if found is not None else e for found, e in zip(map(get, names), now)])
        differ = tuple([i for i, (a, b) in enumerate(zip(planned, now)) if a is not b])
        return cls(names, tuple([p.layer_id for p in filters]), now, planned, differ)

    @cached_property
    def at(self) -> dict[str, int]:
        """Position by pass name (the passes moved last frame are looked up by name)."""
        return {name: i for i, name in enumerate(self.names)}


@dataclass(frozen=True)
class Reported:
    """What a frame's correction report was made from, kept for the next frame's
    (graph.corrected keeps it in the renderer's ScheduleMemo): the corrected frame's
    placement (``_placed_by``) and the uncorrected plan (by identity: their memos hand
    back the same objects while they reuse them), their ``Comparison``, what the report
    says of the model (its corrections, what each pass measured, last frame's moves,
    events), the report, and each move written, by pass, with what its words depend on:
    (what the pass measured where the plan puts it, that device's factor, the pass's
    prices, (layer, from, to), the Move)."""

    placed_by: tuple | None
    plan: Any
    compared: Comparison
    said: tuple
    report: "CorrectionReport | None"
    written: Mapping[str, tuple]


def _placed_by(schedule: Any) -> tuple | None:
    """What says a corrected frame is placed as another one was (``Reported.placed_by``):
    its schedule's table, by identity (held, so no other takes its id: each scheduling
    makes its own, and a frame that reuses last frame's outcome gets the same, its
    copies renamed), and whether the schedule was applied (the same table is kept on GL
    when its gain is below the shared-CPU margin: graph.placed). None without one."""
    return None if schedule is None else (schedule.table, schedule.applied)


def _said(model: CorrectedModel) -> tuple:
    """What a report depends on of ``model`` besides the plans (``Reported.said``)."""
    return model.corrections, model.seen, model.moved, model.events


def _same_said(a: tuple, b: tuple) -> bool:
    # (Identity first: a renderer hands the same mappings on until a measured frame
    # makes new ones, and equal values write equal words.)
    return all(x is y or x == y for x, y in zip(a, b))


def report_against(plan: Mapping[str, tuple[Executor, str]], corrected: FrameGraph,
                   model: CorrectedModel) -> CorrectionReport | None:
    """``correction_report`` with the uncorrected plan said as pass name -> (executor,
    layer) of each filter pass (graph.placed.planned_on makes it without placing the
    frame a second time)."""
    return reported_against(plan, corrected, model).report


def reported_against(plan: Mapping[str, tuple[Executor, str]], corrected: FrameGraph, model: CorrectedModel,
                     last: Reported | None = None) -> Reported:
    """``report_against``'s report, with what it was made from, for the next frame
    (``Reported``; graph.corrected keeps it). ``last``: the previous frame's. A frame
    whose plans are both that frame's (the same table placed alike, the same plan
    object) compares them as it did; with the same model's words as well, its report
    is that frame's. A move whose words depend on the very same things (what the pass
    measured where the plan puts it, that device's factor, the pass's prices, its
    layer, from and to) is the one written before, not written again: by pass name, so
    a frame scheduled anew (another key: a resized blur) writes only the moves that
    changed."""
    schedule, said = corrected.schedule, _said(model)
    placed_by = _placed_by(schedule)
    same_plans = (placed_by is not None and last is not None and last.placed_by is not None
                  and last.placed_by[0] is placed_by[0] and last.placed_by[1] == placed_by[1] and last.plan is plan)
    if same_plans and _same_said(last.said, said):
        return last
    compared = last.compared if same_plans else Comparison.of(plan, corrected)
    written = last.written if last is not None else {}
    names, layers, now, planned = compared.names, compared.layers, compared.now, compared.planned
    moved = model.moved
    back = [i for i in map(compared.at.get, moved) if i is not None and planned[i] is now[i]
            and moved[names[i]][1] is not now[i]] if moved else []
    kept: dict[str, tuple] = {}
    factors: dict[Executor, float] = {}  # (by device: a frame's moves come from one or two)
    moves = []
    for i in sorted({*compared.differ, *back}) if back else compared.differ:
        name, layer, where, source = names[i], layers[i], now[i], planned[i]
        if source is where:  # (moved last frame, and back where the plan puts it)
            moves.append(Move(name, layer, moved[name][1], where, True, _why_back(name, where, model)))
            continue
        factor = factors.get(source)
        if factor is None:
            factor = factors[source] = model.factor(source)
        seen = model.seen.get((name, source))
        costs = schedule.prices_of(name) if schedule is not None else None  # (device names, its row)
        held = written.get(name)
        if (held is not None and held[0] is seen and held[1] == factor and held[2] == costs
                and held[3] == (layer, source, where)):
            move = held[4]
        else:
            prices = {} if costs is None else {name: {n: c for n, c in zip(*costs) if math.isfinite(c)}}
            move = Move(name, layer, source, where, False, _why(name, source, where, model, prices))
        kept[name] = (seen, factor, costs, (layer, source, where), move)
        moves.append(move)
    report = (CorrectionReport(model.corrections, tuple(moves), model.events)
              if model.corrections or moves or model.events else None)
    return Reported(placed_by, plan, compared, said, report, kept)


def _why(name: str, source: Executor, target: Executor, model: CorrectedModel, prices: dict) -> str:
    seen = model.seen.get((name, source))
    measured = (f"it measured {seen.measured_ms:.2f} ms on {device_name(seen.executor)} against "
                f"{seen.predicted_ms:.2f} +/- {seen.spread_ms:.2f} ms predicted; "
                if seen is not None and math.isfinite(seen.predicted_ms) else "")
    cost = prices.get(name, {})
    priced = " vs ".join(f"{d} {cost[d]:.2f} ms" for d in (device_name(source), device_name(target)) if d in cost)
    return (f"{measured}{device_name(source)} priced x{model.factor(source):.2f} from measurement"
            + (f": {priced}" if priced else ""))


def _why_back(name: str, where: Executor, model: CorrectedModel) -> str:
    factor = model.factor(where)
    state = f"{device_name(where)} priced x{factor:.2f}" if factor != 1.0 else f"{device_name(where)} uncorrected"
    return f"{state}: the plan by history places it there again"
