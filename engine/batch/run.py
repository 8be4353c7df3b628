"""A batch job from scenes to results: bundle and cost each scene up front, group its
frames into tasks, submit them to a distributed.Client (or run them here), and hand
back each task's result as it completes, with progress lines and a summary.

Faults: a scene that fails with a typed error comes back as a failure (never retried);
a task whose worker dies runs again on another worker (the nanny restarts the dead
one), and after dask's allowed failures it is reported with its scenes' names while the
rest of the job finishes; an interrupt (Ctrl-C) cancels what is left, and the job's
temporary files are swept from the output folders.
"""

from __future__ import annotations

import time
import uuid
from collections import deque
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence, TextIO

from ..errors import LaminaEnvironmentError, LaminaInputError
from ..output_files import part_owner
from .cluster import require_distributed
from .costs import CostModel, animation_cost, make_tasks
from .jobs import (FailureKind, FrameSpec, OutputKind, RenderTask, SceneFailure, TaskResult, bundle_scene)
from .summary import JobSummary
from .worker import run_task

__all__ = ["JobPlan", "plan_job", "submit", "isolate", "results", "run_job", "ProgressLine", "frame_path"]


def frame_path(out: Path, name: str, index: int | None) -> Path:
    """``OUT/NAME.png`` for a still, ``OUT/NAME-000123.png`` for frame 123."""
    return out / (f"{name}.png" if index is None else f"{name}-{index:06d}.png")


@dataclass
class JobPlan:
    """A job ready to submit: its tasks, the scenes that failed before any was sent
    (bad input found while bundling or costing), the frames it will make, and the output
    folders (swept at the end of the part files a killed worker left beside its outputs)."""

    tasks: list[RenderTask]
    failures: list[SceneFailure]
    frames_total: int
    job: str
    folders: tuple[Path, ...] = ()
    setup_s: float = 0.0

    def sweep(self) -> list[Path]:
        """Remove the part files a worker killed mid-write left beside the job's outputs
        (every write is atomic: lamina.output_files); the paths removed. Another job's
        parts, beside other names, stay."""
        names = {Path(spec.out).name for task in self.tasks for item in task.items for spec in item.frames
                 if spec.out is not None}
        removed = []
        for folder in self.folders:
            for part in folder.iterdir():
                if part_owner(part.name) in names:
                    part.unlink(missing_ok=True)
                    removed.append(part)
        return removed


def plan_job(
    scenes: Sequence[str | Path],
    *,
    out: str | Path | None = None,
    frames: range | None = None,
    fps: float = 60.0,
    t: float = 0.0,
    policy: str | None = None,
    golden: bool = False,
    allow_files: Iterable[str | Path] = (),
    workers: int = 1,
    model: CostModel = CostModel(),
) -> JobPlan:
    """Bundle, cost and group the scene files ``scenes``.

    Each scene renders once (at ``t``, or at its golden time and policy when ``golden``),
    or at each frame of ``frames`` (t = frame / fps). PNGs go to ``out``; without ``out``
    the tasks hand back pixels (golden checks). ``workers`` sizes the tasks."""
    began = time.perf_counter()
    if fps <= 0:
        raise LaminaInputError(f"--fps must be above 0, got {fps}")
    output = OutputKind.PIXELS if out is None else OutputKind.PNG
    folder = Path(out) if out is not None else None
    if folder is not None and not folder.is_dir():
        raise LaminaInputError(f"cannot write into {folder}: " + ("it is not a folder" if folder.exists()
                                                                   else "folder does not exist"))
    allow = list(allow_files)
    names = [Path(s).stem for s in scenes]
    if folder is not None:
        seen: dict[str, str] = {}
        for s, n in zip(scenes, names):
            if n in seen:  # both would write OUT/NAME.png: one would silently replace the other
                raise LaminaInputError(f"{s} and {seen[n]} would both write {frame_path(folder, n, None).name}: "
                                       "rename one or render them into separate --out folders")
            seen[n] = str(s)
    work, failures, total = [], [], 0
    for path in scenes:
        try:
            bundle, scene = bundle_scene(path, allow)
            t0 = scene.golden.get("t", 0.0) if golden else t
            pol = scene.golden.get("policy") if golden else policy
            indices = list(frames) if frames is not None else [None]
            specs = tuple(
                FrameSpec(t=t0 if i is None else i / fps, index=i,
                          out=None if folder is None else str(frame_path(folder, bundle.name, i)), policy=pol)
                for i in indices)
            total += len(specs)
            work.append((bundle, specs, animation_cost(scene, specs, model)))
        except LaminaInputError as err:  # found before anything was sent: reported once, not submitted
            n = len(frames) if frames is not None else 1
            total += n
            failures.append(SceneFailure(Path(path).stem, str(path), FailureKind.BAD_INPUT, type(err).__name__,
                                         str(err), tuple(frames) if frames is not None else (None,)))
    job = uuid.uuid4().hex[:8]
    tasks = make_tasks(work, output=output, workers=max(1, workers), model=model, job=job)
    plan = JobPlan(tasks, failures, total, job, (folder,) if folder is not None else (),
                   time.perf_counter() - began)
    return plan


def submit(client: Any, plan: JobPlan, *, retries: int = 1) -> list[Any]:
    """Submit the plan's tasks to ``client``; their futures, in plan order. ``retries``
    covers untyped exceptions only (typed scene errors come back as results); a dead
    worker's task is re-run by the scheduler regardless, up to its allowed failures."""
    return [_submit_one(client, task, retries) for task in plan.tasks]


def _submit_one(client: Any, task: RenderTask, retries: int) -> Any:
    return client.submit(run_task, task, key=task.key, pure=False, retries=retries)


def _killed(err: BaseException) -> bool:
    """dask's KilledWorker: the task was on a worker that died, more than allowed-failures times."""
    return type(err).__name__ == "KilledWorker"


def isolate(task: RenderTask) -> list[RenderTask]:
    """``task``'s items, each as a task of its own (same cost class, its share of the
    prediction; keys ``…-00003-1-JOB``): a task that killed its workers is run again
    this way, once, so that only the item that kills them is lost, and the others (and
    tasks that were merely queued on the dying workers) are made."""
    base = task.key[:-len(task.job) - 1] if task.key.endswith("-" + task.job) else task.key
    frames = max(1, task.frame_count)
    return [RenderTask(f"{base}-{i}-{task.job}", task.cost_class, task.predicted_s * len(item.frames) / frames,
                       (item,), task.output, task.job) for i, item in enumerate(task.items)]


def _lost(plan: JobPlan, task: RenderTask, err: BaseException) -> TaskResult:
    kind = FailureKind.LOST if _killed(err) else (
        FailureKind.ENVIRONMENT if isinstance(err, LaminaEnvironmentError) else FailureKind.INTERNAL)
    message = str(err)
    if kind is FailureKind.LOST:
        message = ("its worker process died every time it ran, dask's allowed failures over, also when run "
                   f"alone ({message})")
    failures = tuple(SceneFailure(i.bundle.name, i.bundle.scene_file, kind, type(err).__name__, message,
                                  tuple(f.index for f in i.frames)) for i in task.items)
    return TaskResult(task.key, task.cost_class, task.predicted_s, 0.0, "", 0, (), failures)  # ran on no worker


def results(client: Any, plan: JobPlan, futures: list[Any] | None = None, *, retries: int = 1) -> Iterator[TaskResult]:
    """Each task's result as it completes (in plan order when ``client`` is None: the
    tasks then run here, one after another, on this process's renderer).

    A task that killed its workers (dask's KilledWorker, after its allowed failures) is
    run again as one task per scene (``isolate``), once, and these re-runs go one at a
    time: a worker that dies takes with it every task it held (queued, or finished and
    not yet reported), so two re-runs on one worker could lose the innocent one with the
    one that kills. What still kills its workers is reported lost with its scene's name;
    every other task's result comes as usual. The futures of the re-runs are appended to
    ``futures`` (so a caller that cancels them on Ctrl-C cancels those too)."""
    if client is None:
        for task in plan.tasks:
            yield run_task(task)
        return
    distributed = require_distributed()
    futures = futures if futures is not None else submit(client, plan, retries=retries)
    by_key = {t.key: t for t in plan.tasks}
    second_chance: set[str] = set()
    waiting: deque[RenderTask] = deque()  # isolated re-runs, submitted one at a time
    in_flight: list[str] = []  # the key of the re-run submitted, if one is
    pending = distributed.as_completed(futures)

    def next_alone() -> None:
        if waiting and not in_flight:
            alone = waiting.popleft()
            again = _submit_one(client, alone, retries)
            in_flight.append(alone.key)
            futures.append(again)
            pending.add(again)

    for future in pending:
        task = by_key[future.key]
        if task.key in in_flight:
            in_flight.remove(task.key)
        try:
            result = future.result()
        except Exception as err:  # KilledWorker after allowed-failures, or an untyped error after retries
            if _killed(err) and task.key not in second_chance:
                for alone in isolate(task):
                    by_key[alone.key] = alone
                    second_chance.add(alone.key)
                    waiting.append(alone)
                next_alone()
                continue
            result = _lost(plan, task, err)
        next_alone()
        yield result


def _suspicious(keys: list[str], dask_scheduler: Any = None) -> int:
    """On the scheduler: how many of ``keys`` were on a worker that died (and re-ran)."""
    return sum(1 for k in keys if k in dask_scheduler.tasks and dask_scheduler.tasks[k].suspicious)


class ProgressLine:
    """Frames done, rate and ETA: redrawn in place on a terminal, a plain line at most
    every ``every_s`` seconds elsewhere."""

    def __init__(self, stream: TextIO, total: int, every_s: float = 1.0) -> None:
        self.stream, self.total, self.every_s = stream, total, every_s
        self.tty = stream.isatty()
        self.started = time.perf_counter()
        self._last = float("-inf")

    def update(self, done: int, failed: int = 0) -> None:
        now = time.perf_counter()
        last = done + failed >= self.total
        if now - self._last < (0.1 if self.tty else self.every_s) and not last:
            return
        self._last = now
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done - failed) / rate if rate > 0 else float("nan")
        line = (f"{done}/{self.total} frames, {rate:.1f} frames/s, ETA {eta:.0f} s"
                + (f", {failed} failed" if failed else ""))
        if self.tty:
            width = 28
            filled = width * (done + failed) // max(self.total, 1)
            self.stream.write(f"\r\x1b[Klamina: [{'#' * filled}{'.' * (width - filled)}] {line}" + ("\n" if last else ""))
        else:
            self.stream.write(f"lamina: {line}\n")
        self.stream.flush()


def run_job(
    plan: JobPlan,
    client: Any = None,
    *,
    progress: TextIO | None = None,
    perf_report: str | Path | None = None,
    on_result: Callable[[TaskResult], None] | None = None,
) -> JobSummary:
    """Run ``plan`` to the end and summarise it. ``progress``: a stream for progress
    lines; ``perf_report``: an HTML file for dask's performance report (needs a client).
    On Ctrl-C the remaining tasks are cancelled, the job's temporary files are removed
    and KeyboardInterrupt propagates (a cluster Lamina started is closed by its owner)."""
    summary = JobSummary(plan.frames_total, setup_s=plan.setup_s)
    summary.failures.extend(plan.failures)
    bar = ProgressLine(progress, plan.frames_total) if progress is not None else None
    if perf_report is not None and client is None:
        raise LaminaInputError("--report (dask's performance report) needs --workers or --scheduler")
    report = require_distributed().performance_report(filename=str(perf_report)) if perf_report else nullcontext()
    began = time.perf_counter()
    futures = None
    failed_frames = sum(len(f.frames) for f in plan.failures)
    try:
        with report:
            futures = submit(client, plan) if client is not None else None
            for result in results(client, plan, futures):
                summary.add(result)
                failed_frames += sum(len(f.frames) for f in result.failures)
                if on_result is not None:
                    on_result(result)
                if bar is not None:
                    bar.update(summary.frames_done, failed_frames)
            if client is not None and futures:
                summary.retried = client.run_on_scheduler(_suspicious, [f.key for f in futures])
    except BaseException:
        if client is not None and futures:
            try:
                client.cancel(futures)
            except Exception:  # the client may already be closing: the cluster's owner stops the rest
                pass
        raise
    finally:
        summary.wall_s = time.perf_counter() - began
        plan.sweep()  # what a worker killed mid-write left (the owner of a cluster sweeps again after closing it)
    return summary
