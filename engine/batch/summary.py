"""The job summary: what was made and what failed, how the work spread over the
workers (frames and busy time each: the balance), and how the up-front costs compared
with the measured ones per cost class."""

from __future__ import annotations

from dataclasses import dataclass, field

from .jobs import CostClass, FrameDone, SceneFailure, TaskResult

__all__ = ["WorkerLoad", "ClassCost", "JobSummary"]


@dataclass
class WorkerLoad:
    """One worker's share: tasks, frames, seconds busy rendering."""

    name: str
    tasks: int = 0
    frames: int = 0
    busy_s: float = 0.0
    egl_device: int | None = None  # the EGL device its context was asked on (None: the default)


@dataclass
class ClassCost:
    """One cost class: predicted against measured seconds over its tasks."""

    cost_class: CostClass
    tasks: int = 0
    frames: int = 0
    predicted_s: float = 0.0
    measured_s: float = 0.0

    @property
    def ratio(self) -> float:
        """Measured over predicted (1.0: the model was right; above: too optimistic)."""
        return self.measured_s / self.predicted_s if self.predicted_s else float("nan")


@dataclass
class JobSummary:
    """A finished (or interrupted) job. ``wall_s`` counts from the first submission;
    ``setup_s`` is the time spent bundling and costing before it. ``retried`` counts
    tasks that were on a worker when it died and ran again elsewhere."""

    frames_total: int
    wall_s: float = 0.0
    setup_s: float = 0.0
    outputs: list[FrameDone] = field(default_factory=list)
    failures: list[SceneFailure] = field(default_factory=list)
    workers: dict[str, WorkerLoad] = field(default_factory=dict)
    classes: dict[CostClass, ClassCost] = field(default_factory=dict)
    tasks: int = 0
    retried: int = 0

    @property
    def frames_done(self) -> int:
        return len(self.outputs)

    @property
    def ok(self) -> bool:
        return not self.failures and self.frames_done == self.frames_total

    def add(self, result: TaskResult) -> None:
        self.tasks += 1
        self.outputs.extend(result.frames)
        self.failures.extend(result.failures)
        if not result.worker:  # lost: it finished on no worker, so it is no worker's load and no class's time
            return
        load = self.workers.setdefault(result.worker, WorkerLoad(result.worker))
        load.tasks += 1
        load.frames += len(result.frames)
        load.busy_s += result.busy_s
        if result.extra.get("egl_device") is not None:
            load.egl_device = result.extra["egl_device"]
        cls = self.classes.setdefault(result.cost_class, ClassCost(result.cost_class))
        cls.tasks += 1
        cls.frames += len(result.frames)
        cls.predicted_s += result.predicted_s
        cls.measured_s += result.busy_s

    def lines(self) -> list[str]:
        """The summary as text, one fact a line."""
        rate = self.frames_done / self.wall_s if self.wall_s > 0 else 0.0
        out = [f"{self.frames_done}/{self.frames_total} frames in {self.wall_s:.2f} s ({rate:.1f} frames/s; "
               f"{self.tasks} tasks; setup {self.setup_s:.2f} s), {len(self.failures)} failed, {self.retried} retried"]
        for load in sorted(self.workers.values(), key=lambda w: w.name):
            share = load.busy_s / self.wall_s if self.wall_s > 0 else 0.0
            device = f" (EGL device {load.egl_device})" if load.egl_device is not None else ""
            out.append(f"  worker {load.name}{device}: {load.frames} frames, {load.tasks} tasks, busy {load.busy_s:.2f} s "
                       f"({share:.0%} of the job)")
        for cls in sorted(self.classes.values(), key=lambda c: list(CostClass).index(c.cost_class)):
            out.append(f"  class {cls.cost_class}: {cls.tasks} tasks, {cls.frames} frames, predicted "
                       f"{cls.predicted_s:.2f} s, measured {cls.measured_s:.2f} s (x{cls.ratio:.2f})")
        for failure in self.failures:
            out.append(f"  failed: {failure.describe()}")
        return out
