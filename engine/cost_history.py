"""The history-based cost model: what each pass kind and each copy has measured on each
device, kept as StarPU's history-based performance models keep it.

An entry per (pass sample, device, size class) holds the running mean and spread of the
measured milliseconds (Welford's update: count, mean, sum of squared deviations) and of
the work units measured (pixels, or pixels x taps for blurs: ``filter_costs.work_units``),
which places the entry on the size axis. Copies have the same entries per (source
device, target device, size class), over bytes. A size class is a power of two of units:
StarPU keys its history by the data's footprint and regresses over sizes where it has
none; here, between and beyond the measured classes, a prediction follows the line
through the nearest two (the rule the linear model fitted before: slope and intercept
clamped at zero), so two calibrated sizes predict as the old fit did.

The model is a frozen value: ``observe`` returns a new model. A planner holding one (in
an ``ExecutorFacts`` snapshot) sees the same numbers for the whole frame, while measured
frames feed the renderer's next model (issue 22, item 4). ``DeviceCosts`` binds one model
to the GL device and one OpenCL device: the view ``filter_costs.place`` prices passes by
(a renderer using several OpenCL devices has each one's history in the same model, and
``lamina.frame_costs`` prices each by its id).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Mapping

from .filter_costs import SpelledKey, work_units
from .filters.plan import PassKind, PlannedPass
from .textures import Executor, Transfer

__all__ = ["COLOR_SAMPLE_STEPS", "CopyKey", "DeviceCosts", "Entry", "Estimate", "HistoryModel", "ModelFormatError",
           "PassKey", "Sample", "SizeClass", "Stats"]

COLOR_SAMPLE_STEPS = 8  # a fused colour pass is measured at 1 and at this many clamped steps


class ModelFormatError(ValueError):
    """A stored model that is not one this code wrote (a key naming no pass kind, a
    negative count): the store ignores it and the model is measured again."""


@dataclass(frozen=True)
class Stats:
    """Count, mean and sum of squared deviations from the mean (``m2``) of a series,
    updated one value at a time by Welford's rule (stable where sum and sum of squares
    cancel)."""

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, x: float) -> "Stats":
        n = self.count + 1
        delta = x - self.mean
        mean = self.mean + delta / n
        return Stats(n, mean, self.m2 + delta * (x - mean))

    @property
    def variance(self) -> float:
        """The sample variance (n - 1 in the denominator); 0 below two values."""
        return self.m2 / (self.count - 1) if self.count > 1 else 0.0

    @property
    def std(self) -> float:
        return math.sqrt(self.variance)


@dataclass(frozen=True, order=True)
class SizeClass:
    """The power of two a measured size falls in: class k holds [2^k, 2^(k+1)) units."""

    log2: int

    @classmethod
    def of(cls, units: float) -> "SizeClass":
        return cls(max(0, math.floor(math.log2(units))) if units >= 1 else 0)

    @property
    def bounds(self) -> tuple[int, int]:
        return (1 << self.log2, 1 << (self.log2 + 1))


@dataclass(frozen=True, eq=False)
class Sample(SpelledKey):
    """What an entry measures: a pass kind at ``steps`` fused clamped steps (colour passes
    are measured at one and at ``COLOR_SAMPLE_STEPS``; what each further step adds is the
    difference). ``str()`` is "blur", "color", "color8"."""

    kind: PassKind
    steps: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", PassKind(self.kind))

    @classmethod
    def of(cls, step: PlannedPass) -> "Sample":
        return cls(step.pass_kind, len(step.steps) if step.pass_kind is PassKind.COLOR else 1)

    @classmethod
    def parse(cls, text: str) -> "Sample":
        kind = text.rstrip("0123456789")
        return cls(PassKind(kind), int(text[len(kind):] or 1))

    def __str__(self) -> str:
        return f"{self.kind.value}{self.steps if self.steps != 1 else ''}"


@dataclass(frozen=True)
class PassKey:
    sample: Sample
    device: str  # a Device.id
    size: SizeClass


@dataclass(frozen=True)
class CopyKey:
    source: str  # Device.id the image is read from
    target: str  # Device.id it is written to
    size: SizeClass


@dataclass(frozen=True)
class Entry:
    """The history of one key: measured milliseconds, and the units each measured (their
    mean is where the entry sits on the size axis)."""

    ms: Stats = Stats()
    units: Stats = Stats()

    def observe(self, units: float, ms: float) -> "Entry":
        return Entry(self.ms.add(ms), self.units.add(units))


@dataclass(frozen=True)
class Estimate:
    """A predicted time: mean and spread (ms), the samples behind it, and whether they were
    measured in this size class (``exact``) or interpolated from others."""

    mean: float
    std: float
    samples: int
    exact: bool


Point = tuple[float, float, float, int]  # (mean units, mean ms, std ms, count), one per size class


def _predict(points: tuple[Point, ...], units: float) -> Estimate:
    """The estimate at ``units`` from one series' size classes, sorted by units: between
    two classes on the line through them, beyond them on the line through the nearest two
    (slope and intercept clamped at 0, as the linear fit was); the spread is the nearest
    class's, in proportion to the mean."""
    if len(points) == 1:
        u, t, s, n = points[0]
        mean = t * units / u if u > 0 else t
        return Estimate(mean, s * (mean / t) if t > 0 else s, n, SizeClass.of(units) == SizeClass.of(u))
    i = bisect_left([p[0] for p in points], units)
    if 0 < i < len(points):
        (u1, t1, _, _), (u2, t2, _, _) = points[i - 1], points[i]
        mean = t1 + (t2 - t1) * (units - u1) / (u2 - u1) if u2 != u1 else t1
    else:
        (u1, t1, _, _), (u2, t2, _, _) = points[:2] if i == 0 else points[-2:]
        per = max((t2 - t1) / (u2 - u1), 0.0) if u2 != u1 else 0.0
        mean = max(t1 - per * u1, 0.0) + per * units
    near = min(points, key=lambda p: abs(math.log2(max(p[0], 1.0)) - math.log2(max(units, 1.0))))
    _, t, s, n = near
    exact = SizeClass.of(units) == SizeClass.of(near[0])
    return Estimate(mean, s * (mean / t) if t > 0 else s, n, exact)


@dataclass(frozen=True)
class HistoryModel:
    """Measured pass and copy times per device and size class (see the module docstring)."""

    passes: Mapping[PassKey, Entry] = field(default_factory=dict)
    copies: Mapping[CopyKey, Entry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Prediction reads a series (one sample on one device, or one copy path) sorted by
        # size; made once here, as placement predicts for every pass it explores.
        series: dict = {}
        for key, entry in self.passes.items():
            series.setdefault((key.sample, key.device), []).append(entry)
        for key, entry in self.copies.items():
            series.setdefault((key.source, key.target), []).append(entry)
        object.__setattr__(self, "_series", {k: tuple(sorted((e.units.mean, e.ms.mean, e.ms.std, e.ms.count)
                                                             for e in v if e.ms.count)) for k, v in series.items()})

    # -- measuring ----------------------------------------------------------------------
    def observe_pass(self, sample: Sample, device: str, units: float, ms: float) -> "HistoryModel":
        key = PassKey(sample, device, SizeClass.of(units))
        return HistoryModel({**self.passes, key: self.passes.get(key, Entry()).observe(units, ms)}, self.copies)

    def observe_copy(self, source: str, target: str, nbytes: int, ms: float) -> "HistoryModel":
        key = CopyKey(source, target, SizeClass.of(nbytes))
        return HistoryModel(self.passes, {**self.copies, key: self.copies.get(key, Entry()).observe(nbytes, ms)})

    def merged(self, other: "HistoryModel") -> "HistoryModel":
        """This model with ``other``'s entries added (where both have a key, other's wins)."""
        return HistoryModel({**self.passes, **other.passes}, {**self.copies, **other.copies})

    def without_device(self, device: str) -> "HistoryModel":
        """This model less every entry measured on or to or from ``device`` (its driver
        changed: its history no longer says how it runs)."""
        return HistoryModel({k: v for k, v in self.passes.items() if k.device != device},
                            {k: v for k, v in self.copies.items() if device not in (k.source, k.target)})

    # -- reading ------------------------------------------------------------------------
    def devices(self) -> frozenset[str]:
        return frozenset(k.device for k in self.passes) | frozenset(d for k in self.copies for d in (k.source, k.target))

    def has_passes(self, device: str, samples) -> bool:
        """Whether every sample in ``samples`` has history on ``device``."""
        return all((s, device) in self._series for s in samples)

    def has_copies(self, source: str, target: str) -> bool:
        return (source, target) in self._series

    def predict(self, sample: Sample, device: str, units: float) -> Estimate:
        """The time of ``sample`` on ``device`` at ``units``; KeyError without history."""
        return _predict(self._series[sample, device], units)

    def predict_pass(self, device: str, step: PlannedPass, width: int, height: int) -> Estimate:
        """The time of planned pass ``step`` on a width x height input on ``device``. A
        fused colour pass of n steps costs the one-step pass plus n - 1 times what each
        step added between the calibration's one- and eight-step passes."""
        units = work_units(step, width, height)
        sample = Sample.of(step)
        if step.pass_kind is not PassKind.COLOR or sample.steps == 1:
            return self.predict(Sample(step.pass_kind), device, units)
        one = self.predict(Sample(PassKind.COLOR), device, units)
        many = self.predict(Sample(PassKind.COLOR, COLOR_SAMPLE_STEPS), device, units)
        per_step = max(many.mean - one.mean, 0.0) / (COLOR_SAMPLE_STEPS - 1)
        mean = one.mean + per_step * (sample.steps - 1)
        return Estimate(mean, max(one.std, many.std) * (mean / many.mean if many.mean > 0 else 1.0),
                        min(one.samples, many.samples), one.exact and many.exact)

    def predict_copy(self, source: str, target: str, nbytes: int) -> Estimate:
        """The time of copying ``nbytes`` from ``source`` to ``target``; KeyError without
        history."""
        return _predict(self._series[source, target], nbytes)

    def speed(self, source: str, target: str) -> float | None:
        """Measured copy speed, bytes per ms, at the largest size class measured (None
        without history)."""
        series = self._series.get((source, target))
        if not series:
            return None
        u, t, _, _ = series[-1]
        return u / t if t > 0 else math.inf

    # -- stored form --------------------------------------------------------------------
    def to_dict(self) -> dict:
        """JSON: one row per entry, keys spelled as reports spell them."""
        def row(entry: Entry) -> dict:
            return {"n": entry.ms.count, "mean_ms": entry.ms.mean, "m2_ms": entry.ms.m2,
                    "mean_units": entry.units.mean, "m2_units": entry.units.m2}
        passes = [{"sample": str(k.sample), "device": k.device, "size_class": k.size.log2, **row(e)}
                  for k, e in sorted(self.passes.items(), key=lambda kv: (kv[0].device, str(kv[0].sample), kv[0].size))]
        copies = [{"source": k.source, "target": k.target, "size_class": k.size.log2, **row(e)}
                  for k, e in sorted(self.copies.items(), key=lambda kv: (kv[0].source, kv[0].target, kv[0].size))]
        return {"passes": passes, "copies": copies}

    @classmethod
    def from_dict(cls, data: dict) -> "HistoryModel":
        """The model ``to_dict`` stored; ModelFormatError for anything else."""
        try:
            def entry(r: dict) -> Entry:
                n, mean, m2, mu, m2u = (int(r["n"]), float(r["mean_ms"]), float(r["m2_ms"]), float(r["mean_units"]),
                                        float(r["m2_units"]))
                if n < 1 or not all(math.isfinite(v) and v >= 0 for v in (mean, m2, mu, m2u)):
                    raise ValueError(f"a count below 1 or a negative or non-finite statistic: {r}")
                return Entry(Stats(n, mean, m2), Stats(n, mu, m2u))
            passes = {PassKey(Sample.parse(str(r["sample"])), str(r["device"]), SizeClass(int(r["size_class"]))): entry(r)
                      for r in data["passes"]}
            copies = {CopyKey(str(r["source"]), str(r["target"]), SizeClass(int(r["size_class"]))): entry(r)
                      for r in data["copies"]}
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ModelFormatError(f"not a stored cost history: {exc}") from None
        return cls(passes, copies)


@dataclass(frozen=True)
class DeviceCosts:
    """A history model seen through the two executors a frame has now: GL on device
    ``gl`` and OpenCL on device ``opencl`` (Device ids). It prices passes and copies as
    ``filter_costs.place`` asks (``pass_ms``, ``transfer_ms``), so ``auto`` places by the
    history model; the scheduler of the later items reads ``model`` per device."""

    model: HistoryModel
    gl: str
    opencl: str
    # Both devices run on the CPU (llvmpipe and PoCL): their work cannot overlap
    # (graph.placed.overlaps); calibration knows it from the devices' types.
    shares_cpu: bool = False

    @property
    def label(self) -> str:
        return f"history model: {self.gl} + {self.opencl}"

    def device(self, executor: "Executor | str") -> str:
        return self.opencl if Executor.of(executor) is Executor.OPENCL else self.gl

    def pass_ms(self, executor: "Executor | str", step: PlannedPass, width: int, height: int) -> float:
        try:
            return self.model.predict_pass(self.device(executor), step, width, height).mean
        except KeyError:
            raise KeyError(f"{Executor.of(executor).value}:{step.pass_kind.value}") from None

    def transfer_ms(self, direction: "Transfer | str", nbytes: int) -> float:
        direction = Transfer(direction)
        return self.model.predict_copy(self.device(direction.source), self.device(direction.target), nbytes).mean
