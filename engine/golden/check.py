"""``lamina check DIR``: render every scene file in DIR and compare it with its golden
(``DIR/goldens/NAME.png``) — golden testing without pytest, with a progress bar (on a
terminal only, unless asked for), a summary table, the HTML report and an exit code
(0 all match, 1 some fail, 2 bad input)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterable, TextIO

from ..batch import ClusterKind, ClusterSpec, FrameDone, SceneFailure, open_client, plan_job, run_job
from ..errors import GoldenError, LaminaInputError
from ..file_access import FileAccess
from ..fuzzy import TOLERANCE_KEYS, Tolerance
from ..scene_file import load_scene
from .artefacts import ResultsDir
from .report import write_report
from .store import GoldenDir, Status, UpdateMode

__all__ = ["check_directory", "render_scene_for_golden", "scene_tolerance"]


def render_scene_for_golden(scene, renderer=None):
    """Render a scene the way its golden was made: at the time and with the policy its
    file's ``golden`` object names (t=0 and "browser" otherwise)."""
    return scene.render(renderer, t=scene.golden.get("t", 0.0), policy=scene.golden.get("policy"))


def scene_tolerance(scene, default: Tolerance) -> Tolerance:
    """The scene file's own fuzzy ranges where it declares them, else ``default``."""
    return Tolerance.of(**{**default.to_dict(), **{k: scene.golden[k] for k in TOLERANCE_KEYS if k in scene.golden}})


@dataclass(frozen=True)
class _Rendered:
    """A frame rendered by a batch worker, as GoldenDir.check reads a Frame: its exact
    premultiplied pixels and the renderer that made them."""

    premultiplied: Any
    info: Any


def _render_distributed(scenes: list[Path], allow_files: list, cluster: ClusterSpec,
                        progress: TextIO | None) -> dict[str, FrameDone | SceneFailure]:
    """Render every scene as its golden was made, on ``cluster``'s workers: each scene's
    pixels (compared here, as a serial check compares them) or its failure, by name."""
    with open_client(cluster, say=lambda line: print(f"lamina: {line}", file=sys.stderr)) as client:
        workers = max(1, len(client.scheduler_info().get("workers", {}))) if client is not None else 1
        plan = plan_job(scenes, golden=True, allow_files=allow_files, workers=workers)
        summary = run_job(plan, client, progress=progress)
    done: dict[str, FrameDone | SceneFailure] = {f.scene: f for f in summary.failures}
    done.update({f.scene: f for f in summary.outputs})
    return done


def _bar(done: int, total: int, name: str, stream: TextIO | None) -> None:
    """One step of the progress bar: redrawn in place on a terminal, a line each elsewhere
    (only when asked for: a CI log is not a terminal); nothing without a stream."""
    if stream is None:
        return
    width = 28
    filled = width * done // max(total, 1)
    line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {name}"
    if stream.isatty():
        stream.write("\r" + line[:100].ljust(100))
        if done == total:
            stream.write("\n")
    else:
        stream.write(line + "\n")
    stream.flush()


def check_directory(
    folder: str | Path,
    *,
    update: bool = False,
    force: bool = False,
    max_diff: str = "0",
    max_pixels: str | None = None,
    max_alpha_diff: str | None = None,
    max_pixel_ratio: float | str | None = None,
    results: str | Path = "golden-results",
    only: list[str] | None = None,
    out: TextIO | None = None,
    progress: TextIO | None = None,
    show_progress: bool | None = None,
    allow_files: Iterable[str | Path] = (),
    cluster: ClusterSpec | None = None,
) -> int:
    """Check every scene of ``folder``; the exit code. The progress bar goes to
    ``progress`` (stderr) when ``show_progress`` is True, or, when it is None, only if
    that stream is a terminal. With a ``cluster`` (workers or a scheduler) the scenes
    render there (lamina.batch) and are compared here: the same verdicts as serially."""
    out = out or sys.stdout
    progress = progress or sys.stderr
    if not (progress.isatty() if show_progress is None else show_progress):
        progress = None
    folder = Path(folder)
    if not folder.is_dir():
        raise LaminaInputError(f"{folder}: not a folder of scene files")
    scenes = sorted(folder.glob("*.json"))
    if only:
        wanted = set(only)
        unknown = wanted - {p.stem for p in scenes}
        if unknown:
            raise LaminaInputError(f"no scene named {sorted(unknown)[0]!r} in {folder}")
        scenes = [p for p in scenes if p.stem in wanted]
    if not scenes:
        raise LaminaInputError(f"{folder}: no scene files (*.json)")
    allow_files = [allow_files] if isinstance(allow_files, (str, Path)) else list(allow_files)
    FileAccess.confined_to(folder, allow_files)  # a mistyped --allow-files is one error, not one per scene
    tolerance = Tolerance.of(max_diff, max_pixels, max_alpha_diff, max_pixel_ratio)
    store = GoldenDir(folder / "goldens", UpdateMode.CHANGED if update else UpdateMode.NONE, force,
                      how_to_update=("lamina check --update", "lamina check --update"))
    res = ResultsDir(results)
    res.start_run()
    rows = []
    distributed = cluster is not None and cluster.kind is not ClusterKind.IN_PROCESS
    rendered = _render_distributed(scenes, allow_files, cluster, progress) if distributed else {}
    for i, path in enumerate(scenes):
        if not distributed:
            _bar(i, len(scenes), path.stem, progress)
        try:
            scene = load_scene(path, allow_files=allow_files)  # images beyond FOLDER: only those allowed
            if distributed:
                made = rendered[path.stem]
                if isinstance(made, SceneFailure):
                    rows.append((path.stem, "failed", "-", "-", f"cannot render: {made.message}"))
                    res.record_error(f"{folder.name}/{path.stem}", path.stem, f"cannot render: {made.message}",
                                     test=str(path))
                    continue
                frame = _Rendered(made.premultiplied, made.info)
            else:
                frame = render_scene_for_golden(scene)
            # The scene's own DPR (a worker's frame does not carry it): its golden records it.
            outcome = store.check(frame, path.stem, scene_tolerance(scene, tolerance),
                                  device_scale_factor=scene.device_scale_factor)
        except LaminaInputError as exc:  # one bad scene or golden does not stop the run
            what = "cannot check" if isinstance(exc, GoldenError) else "cannot render"
            rows.append((path.stem, "failed", "-", "-", f"{what}: {exc}"))
            res.record_error(f"{folder.name}/{path.stem}", path.stem, f"{what}: {exc}", test=str(path))
            continue
        accept = f"lamina check {shlex.quote(str(folder))} --update --only {shlex.quote(path.stem)}"
        accept += "".join(f" --allow-files {shlex.quote(str(a))}" for a in allow_files)
        if outcome.needs_force:
            accept += " --force"
        res.record(f"{folder.name}/{path.stem}", outcome, test=str(path), accept=accept)
        c = outcome.comparison
        rows.append((
            path.stem,
            outcome.status.value,
            str(c.max_colour if c else "-") + "/" + str(c.max_alpha if c else "-"),
            str(c.differing_pixels if c else "-"),
            outcome.message if outcome.status is not Status.PASSED else "",
        ))
    if not distributed:
        _bar(len(scenes), len(scenes), "done", progress)
    report = write_report(res, title=str(folder))

    headers = ("scene", "result", "max diff rgb/a", "pixels", "")
    widths = [max(len(str(r[k])) for r in rows + [headers]) for k in range(4)]
    out.write("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip() + "\n")
    for row in rows:
        out.write("  ".join(str(v).ljust(w) for v, w in zip(row, widths)) + "  " + row[4][:160] + "\n")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row[1]] = counts.get(row[1], 0) + 1
    out.write(", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f"; report: {report}\n")
    if not only:
        orphans = sorted(set(store.goldens()) - {p.stem for p in scenes})
        if orphans:
            out.write(f"goldens without a scene (delete them?): {', '.join(orphans)}\n")
    return 1 if counts.get("failed") else 0

