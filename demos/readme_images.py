"""``python -m demos.readme_images``: remake the README's pictures, or check they are current.

    python -m demos.readme_images              remake each picture; replace the stale ones
    python -m demos.readme_images NAME ...     only these (see --list); the README is then
                                               not searched for pictures nothing makes
    python -m demos.readme_images --check      replace nothing; name every stale picture
                                               (and any README picture nothing here makes)
    python -m demos.readme_images --list       the pictures, their files and commands
    options: --force (replace even current ones), --keep DIR (keep the fresh pictures)

Exit status: 0 every picture current (or replaced); 1 a picture stale under --check, one
that could not be made (the others are still made), or a README picture nothing makes;
2 a usage error. The commands run with the caller's environment less its ``LAMINA_*``
variables, as a reader's shell would run them.

Every picture is made by the command a reader would run, in a subprocess, and compared
with the committed file region by region. The committed pictures are made on the golden
scenes' reference renderer (Mesa llvmpipe, as CI runs; Chromium 156 for the report): on
another, the exact regions differ as its goldens would. What may differ is part of each picture's entry
and is no more than the picture has to allow:

* a scene file's render must match exactly (``lamina render``);
* a demo frame's scene area must match exactly; its panels show live timings (ms, FPS,
  the pass-time plot), so up to 8% of the panel's pixels may differ (measured: at most
  3.1% between recordings, four made at once; moving the lower part of a panel by one
  pixel, as a new control would, changes 11%);
* a demo GIF's scene area is quantized on its own: the recorder gives the scene half of
  each frame's palette, quantized from the scene's pixels alone (demos/ui/recording.py),
  so the panels' live numbers cannot recolour it (when the whole frame shared one
  palette, two recordings differed by up to 67 levels in 0.5% of the scene). Two
  recordings on one machine are identical; on a fresh machine the median cut mapped
  anti-aliased edges in 0.14% of the scene to other entries, so up to 0.25% of the
  scene's pixels may differ; its panels as a demo frame's;
* the golden report is a Chromium screenshot of ``lamina check`` run on a copy of
  ``tests/scenes`` with two scenes changed, time-stamped through ``SOURCE_DATE_EPOCH``:
  it must match exactly (two screenshots of one page are byte-identical).

Pictures under ``tests/scenes/goldens`` are golden images: the golden-scene tests keep
them current, so they have no entry here (``--check`` says so of each).
``tests/demos/test_readme_images.py`` runs ``--check`` for every picture.
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from lamina.fuzzy import Tolerance, compare
from lamina.image_formats import open_image
from lamina.output_files import write_bytes
from PIL import ImageSequence

from .chromium import INSTALL_HINT, ChromiumError, chromium_screenshot, find_chromium
from .registry import DEMOS
from .ui.runner import PANEL_WIDTH

__all__ = ["IMAGES", "ReadmeImage", "Region", "Verdict", "ReadmeImageError", "check", "readme_pictures", "main"]

ROOT = Path(__file__).resolve().parents[1]
GOLDENS = "tests/scenes/goldens/"

# The report picture's time stamp: 2026-12-01 00:00:00 UTC, so that remaking it changes
# nothing unless the report itself changed.
REPORT_EPOCH = calendar.timegm((2026, 12, 1, 0, 0, 0))


class ReadmeImageError(RuntimeError):
    """A picture could not be made: its command failed (the message has its output) or a
    tool it needs is missing (the message says what to install)."""


@dataclass(frozen=True)
class Region:
    """A rectangle of a picture (x, y, w, h; None: all of it) and how far it may differ."""

    name: str
    box: tuple[int, int, int, int] | None
    tolerance: Tolerance

    def crop(self, picture: np.ndarray) -> np.ndarray:
        if self.box is None:
            return picture
        x, y, w, h = self.box
        return picture[y:y + h, x:x + w]


@dataclass(frozen=True)
class ReadmeImage:
    """One README picture: its file, the command that makes it (as the README shows it),
    the function that runs that command into a work folder, and its regions."""

    name: str
    path: str  # relative to the checkout
    command: str
    make: Callable[[Path], Path]
    regions: tuple[Region, ...]


@dataclass(frozen=True)
class Verdict:
    image: ReadmeImage
    problems: tuple[str, ...]  # empty: the committed picture is current
    fresh: Path

    @property
    def current(self) -> bool:
        return not self.problems


# --------------------------------------------------------------------------------------
# Making pictures: each is a command run as the reader would run it


def _run(argv: list[str], cwd: Path, *, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)) -> None:
    # Without the caller's LAMINA_* settings (strict golden checks, fuzz seeds): a
    # reader's shell has none.
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LAMINA_")}
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, env={**clean, **(env or {})})
    except subprocess.TimeoutExpired:
        raise ReadmeImageError(f"{shlex.join(argv)} ran past 600 s") from None
    except OSError as err:
        raise ReadmeImageError(f"{shlex.join(argv)} did not run: {err}") from None
    if proc.returncode not in ok:
        tail = (proc.stdout + proc.stderr)[-3000:]
        raise ReadmeImageError(f"{shlex.join(argv)} exited {proc.returncode}:\n{tail}")


def _rendered(scene: str) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        out = work / Path(scene).with_suffix(".png").name
        _run([sys.executable, "-m", "lamina", "render", str(ROOT / scene), "-o", str(out)], cwd=work)
        return out
    return make


def _demo(name: str, frames: int, *, gif: bool = False, pick: int = -1) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        out = work / name
        argv = [sys.executable, "-m", "demos", name, "--headless", "--frames", str(frames), "--out", str(out)]
        _run(argv + (["--gif"] if gif else []), cwd=ROOT)
        return out / (f"{name}.gif" if gif else f"{name}-{pick % frames:04d}.png")
    return make


def _edit_scene(path: Path, layer_id: str, edit: Callable[[dict], None]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    layer = next(layer for layer in data["layers"] if layer.get("id") == layer_id)
    edit(layer)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _golden_report(work: Path) -> Path:
    """``lamina check tests/scenes`` after one scene's opacity went from .5 to .49 (3
    levels in a 44x44 square) and a layer of another moved one pixel, screenshot."""
    binary = find_chromium()
    if binary is None:
        raise ReadmeImageError(f"the golden report picture is a Chromium screenshot: {INSTALL_HINT}")
    scenes = work / "tests" / "scenes"
    shutil.copytree(ROOT / "tests" / "scenes", scenes)
    _edit_scene(scenes / "opacity-single-quad.json", "t0",
                lambda layer: layer.update(style=layer["style"].replace("opacity: .5", "opacity: .49")))
    _edit_scene(scenes / "radius-basic.json", "t0", lambda layer: layer["box"].__setitem__(0, layer["box"][0] + 1))
    _run([sys.executable, "-m", "lamina", "check", "tests/scenes", "--results", "golden-results"], cwd=work,
         env={"SOURCE_DATE_EPOCH": str(REPORT_EPOCH)}, ok=(1,))  # 1: the two changed scenes fail, as meant
    try:
        return chromium_screenshot(binary, work / "golden-results" / "report.html", work / "report.png", 1000, 800,
                                   transparent=False)
    except ChromiumError as err:
        raise ReadmeImageError(str(err)) from None


# --------------------------------------------------------------------------------------
# The pictures


def _exact(name: str = "all", box: tuple[int, int, int, int] | None = None) -> Region:
    return Region(name, box, Tolerance.of("0", "0"))


def _demo_regions(name: str, gif: bool = False) -> tuple[Region, ...]:
    w, h = DEMOS[name]().scene_size
    panel_px = PANEL_WIDTH * h
    # A GIF's scene is quantized (median cut): a palette made on another machine, from
    # pixels a level apart somewhere, maps some anti-aliased edges to other entries
    # (measured on a fresh machine: up to 89 levels in 851 px, 0.14% of the scene, with
    # every PNG picture exact). More than 0.25% is a change of the scene itself.
    scene = Region("scene", (0, 0, w, h), Tolerance.of("0-255", f"0-{w * h // 400}")) if gif \
        else _exact("scene", (0, 0, w, h))
    panels = Region("panels", (w, 0, PANEL_WIDTH, h), Tolerance.of("0-255", f"0-{panel_px * 8 // 100}"))
    return scene, panels


IMAGES: dict[str, ReadmeImage] = {image.name: image for image in (
    ReadmeImage("showcase", "demos/showcase/showcase.png",
                "lamina render demos/showcase/showcase.json -o demos/showcase/showcase.png",
                _rendered("demos/showcase/showcase.json"), (_exact(),)),
    ReadmeImage("filters", "demos/filters/filters.png",
                "lamina render demos/filters/filters.json -o demos/filters/filters.png",
                _rendered("demos/filters/filters.json"), (_exact(),)),
    ReadmeImage("blend-backdrop", "demos/blend/blend-backdrop.png",
                "python -m demos blend-backdrop --headless --frames 6 (its last frame)",
                _demo("blend-backdrop", 6), _demo_regions("blend-backdrop")),
    ReadmeImage("animation-cost", "demos/recordings/animation-cost.gif",
                "python -m demos animation-cost --headless --frames 20 --gif",
                _demo("animation-cost", 20, gif=True), _demo_regions("animation-cost", gif=True)),
    ReadmeImage("golden-report", "demos/golden/report.png",
                "lamina check tests/scenes (two scenes changed), screenshot by Chromium",
                _golden_report, (_exact(),)),
)}


# --------------------------------------------------------------------------------------
# Checking


def _frames(path: Path) -> list[np.ndarray]:
    with open_image(path.read_bytes(), resolved=str(path)) as im:  # checked like any image Lamina decodes
        return [np.asarray(frame.convert("RGBA")) for frame in ImageSequence.Iterator(im)]


def compare_pictures(image: ReadmeImage, fresh: Path, committed: Path) -> tuple[str, ...]:
    """What differs between the fresh and committed picture beyond the regions' tolerances."""
    if not committed.is_file():
        return (f"{image.path} does not exist",)
    new, old = _frames(fresh), _frames(committed)
    if len(new) != len(old):
        return (f"{len(new)} frames made, {len(old)} committed",)
    if new[0].shape != old[0].shape:
        return (f"made {new[0].shape[1]}x{new[0].shape[0]}, committed {old[0].shape[1]}x{old[0].shape[0]}",)
    problems = []
    for i, (a, b) in enumerate(zip(new, old)):
        for region in image.regions:
            result = compare(region.crop(a), region.crop(b), region.tolerance)
            if not result.passed:
                where = region.name + (f" of frame {i}" if len(new) > 1 else "")
                problems.append(f"{where}: {result.summary()}")
    return tuple(problems)


def check(image: ReadmeImage, work: Path) -> Verdict:
    """Make ``image`` in ``work`` (emptied first) and compare it with the committed file."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    fresh = image.make(work)
    committed = ROOT / image.path
    if not fresh.is_file():
        raise ReadmeImageError(f"its command made no {fresh.name}")
    if committed.exists() and fresh.resolve() == committed.resolve():
        raise ReadmeImageError(f"its command wrote {image.path} itself: it must write into the work folder")
    return Verdict(image, compare_pictures(image, fresh, committed), fresh)


def readme_pictures(text: str) -> list[str]:
    """The local files the README shows as pictures (``![alt](path)``), in order."""
    return [m.group(1) for m in re.finditer(r"!\[[^\]]*\]\(([^)\s]+)\)", text) if "://" not in m.group(1)]


def unmade_pictures(text: str) -> list[str]:
    """README pictures that no entry makes and that are not golden images of a scene."""
    made = {image.path for image in IMAGES.values()}
    out = []
    for path in readme_pictures(text):
        if path in made:
            continue
        golden = path.startswith(GOLDENS) and (ROOT / "tests/scenes" / Path(path).with_suffix(".json").name).is_file()
        if not golden:
            out.append(path)
    return out


# --------------------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demos.readme_images",
                                     description="Remake the README's pictures, or check that they are current.")
    parser.add_argument("names", nargs="*", help="pictures to make (default: all; see --list)")
    parser.add_argument("--check", action="store_true", help="replace nothing; exit 1 if any picture is stale")
    parser.add_argument("--force", action="store_true", help="replace pictures even when current")
    parser.add_argument("--keep", metavar="DIR", help="keep the fresh pictures (and their work files) in DIR")
    parser.add_argument("--list", action="store_true", help="list the pictures and exit")
    args = parser.parse_args(argv)
    if args.list:
        for image in IMAGES.values():
            print(f"{image.name:<16} {image.path:<38} {image.command}")
        return 0
    unknown = [n for n in args.names if n not in IMAGES]
    if unknown:
        print(f"unknown picture {unknown[0]!r}; the pictures: {', '.join(IMAGES)}", file=sys.stderr)
        return 2
    if args.check and args.force:
        print("--check replaces nothing: drop --force", file=sys.stderr)
        return 2
    chosen = [IMAGES[n] for n in args.names] if args.names else list(IMAGES.values())
    failed = 0
    if not args.names:
        for path in unmade_pictures((ROOT / "README.md").read_text(encoding="utf-8")):
            print(f"{path}: shown by README.md, but nothing here makes it (add an entry to IMAGES)")
            failed += 1
    # Absolute: the commands run in other folders.
    root = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="readme-images-"))
    try:
        for image in chosen:
            try:
                verdict = check(image, root / image.name)
            except ReadmeImageError as err:
                print(f"{image.path}: cannot make it: {err}", file=sys.stderr)
                failed += 1
                continue  # the other pictures are still made
            if verdict.current and not args.force:
                print(f"{image.path}: current")
                continue
            if args.check:
                failed += 1
                print(f"{image.path}: stale ({'; '.join(verdict.problems)})\n"
                      f"  remake it: python -m demos.readme_images {image.name}")
                continue
            (ROOT / image.path).parent.mkdir(parents=True, exist_ok=True)
            write_bytes(ROOT / image.path, verdict.fresh.read_bytes())  # atomic: a README picture is whole or as it was
            why = "; ".join(verdict.problems) or "forced"
            print(f"{image.path}: replaced ({why})")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
