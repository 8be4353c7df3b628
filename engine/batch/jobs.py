"""What a batch job is made of, as plain picklable data: scenes bundled to travel to
workers, the frames to render from them, the tasks they are grouped into, and what comes
back (frames written, pixels for golden checks, typed failures).

A scene travels as its JSON text plus the bytes of every image file it references,
resolved by the same file-access policy as ``load_scene`` (its own folder, plus the
``allow_files`` folders), the pictures of its SVG filters' feImages included: a refused
or unreadable image is found in the submitting process, before anything is sent. Workers rebuild the scene from the bundle in a private
mirror of those paths (lamina.batch.worker), confined to the mirror, so a worker reads
no file of its own machine's.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import tinycss2
from tinycss2 import ast

from ..errors import LaminaInputError
from ..file_access import url_path
from ..filters.svg.images import image_pixels, svg_files
from ..filters.svg.model import Image as SvgImage
from ..gpu import RendererInfo
from ..named import NamedEnum
from ..scene import Scene
from ..scene_file import load_scene

__all__ = [
    "SceneBundle", "FrameSpec", "WorkItem", "OutputKind", "CostClass", "RenderTask", "FrameDone",
    "FailureKind", "SceneFailure", "TaskResult", "BatchSceneError", "bundle_scene", "parse_frames",
]


class BatchSceneError(LaminaInputError):
    """A scene of a batch job failed: names the scene file and the error it raised."""


@dataclass(frozen=True)
class SceneBundle:
    """One scene file as it travels: ``text`` (the JSON as read), ``scene_file`` (its path
    as given, for messages), ``folder`` (its absolute folder), ``allowed`` (the real
    paths of the extra folders it may read) and ``files`` ((absolute path as the scene
    names it, bytes) of each image file). ``digest`` identifies the whole: a worker
    rebuilds a bundle once and keeps the scene for the next task of the same bundle."""

    name: str
    scene_file: str
    folder: str
    text: str
    allowed: tuple[str, ...] = ()
    files: tuple[tuple[str, bytes], ...] = ()
    digest: str = ""

    def __post_init__(self) -> None:
        if not self.digest:
            h = hashlib.sha256(self.text.encode("utf-8"))
            for part in (self.scene_file, self.folder, *self.allowed):
                h.update(b"\0" + part.encode("utf-8"))
            for path, data in self.files:
                h.update(b"\0" + path.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
            object.__setattr__(self, "digest", h.hexdigest()[:16])


def _url_targets(text: str) -> list[str]:
    """The targets of every ``url()`` in CSS text, as Lamina's reader takes them (a url
    token, or url("...") with one string), nested function arguments included."""
    out: list[str] = []
    stack = list(tinycss2.parse_component_value_list(text))
    while stack:
        tok = stack.pop(0)
        if isinstance(tok, ast.URLToken):
            out.append(tok.value)
        elif isinstance(tok, ast.FunctionBlock):
            args = [t for t in tok.arguments if not isinstance(t, (ast.WhitespaceToken, ast.Comment))]
            if tok.lower_name == "url" and len(args) == 1 and isinstance(args[0], ast.StringToken):
                out.append(args[0].value)
            else:
                stack[:0] = list(tok.arguments)
    return out


def _referenced_filters(scene: Scene) -> set[str] | None:
    """The ids of the ``<filter>``s the scene's layers (their styles and animations) may
    name with ``url(#id)``; None when the scene has no file source to read them from."""
    if scene.source is None:
        return None
    return {url[1:] for texts in scene.source.urls.values() for _, text in texts for url in _url_targets(text)
            if url.startswith("#")}


def _svg_image_files(scene: Scene) -> dict[str, bytes]:
    """(path as the scene names it, bytes) of each file an feImage of the scene's SVG
    reads in a ``<filter>`` the scene names, under the scene's policy (its folder only,
    and the allowed folders): one that is refused, missing or not an image is the
    SvgImageError the render would raise, now, in the submitting process. A filter no
    layer names is never planned, so its feImages are neither read nor refused (the
    scene renders as it does serially)."""
    document, access = scene.svg, scene.file_access
    files: dict[str, bytes] = {}
    if document is None:
        return files
    referenced = _referenced_filters(scene)
    with svg_files(access):
        for ident, element in document.filters.items():
            if referenced is not None and ident not in referenced:
                continue
            for prim in element.primitives:
                if not isinstance(prim, SvgImage) or prim.href.startswith("data:"):
                    continue
                image_pixels(prim)  # raises as planning would, naming the feImage and its href
                files[os.path.normpath(url_path(prim.href, access.base_dir))] = access.resolve(prim.href).read_bytes()
    return files


def bundle_scene(path: str | Path, allow_files: Iterable[str | Path] = ()) -> tuple[SceneBundle, Scene]:
    """Read, validate and bundle the scene file ``path`` (and return the scene, which the
    submitter plans to cost it). Raises the typed error ``load_scene`` or the render
    would: a bad scene, a refused image path (FileAccessError, located in the file)."""
    path = Path(path)
    allow = [allow_files] if isinstance(allow_files, (str, os.PathLike)) else list(allow_files)
    scene = load_scene(path, allow_files=allow)
    access = scene.file_access
    files: dict[str, bytes] = {}
    for layer, texts in (scene.source.urls.items() if scene.source else ()):
        for _, text in texts:
            for url in _url_targets(text):
                if url.startswith("data:"):
                    continue
                try:
                    real = access.resolve(url, layer=layer)  # FileAccessError: refused, as rendering would
                except LaminaInputError as err:
                    raise scene.locate(err) from None
                except ValueError:
                    continue  # a malformed path: the worker's render reports it as serial would
                written = os.path.normpath(url_path(url, access.base_dir))
                if written not in files and real.is_file() and os.access(real, os.R_OK):
                    files[written] = real.read_bytes()  # a missing file is reported by the render
    files.update(_svg_image_files(scene))
    text = path.read_text(encoding="utf-8")
    bundle = SceneBundle(
        name=path.stem, scene_file=str(path), folder=os.path.abspath(path.parent), text=text,
        allowed=tuple(str(a) for a in access.allowed), files=tuple(sorted(files.items())),
    )
    return bundle, scene


def parse_frames(text: str) -> range:
    """``START:STOP[:STEP]`` (STOP exclusive, as Python slices) as a range; a typed error
    naming the option otherwise."""
    parts = text.split(":")
    try:
        if len(parts) not in (2, 3):
            raise ValueError
        start, stop = int(parts[0]), int(parts[1])
        step = int(parts[2]) if len(parts) == 3 else 1
    except ValueError:
        raise LaminaInputError(f"--frames {text!r}: expected START:STOP or START:STOP:STEP "
                               "(whole numbers, STOP not included), e.g. 0:600") from None
    if start < 0 or step <= 0 or stop <= start:
        raise LaminaInputError(f"--frames {text!r}: needs 0 <= START < STOP and STEP >= 1")
    return range(start, stop, step)


class OutputKind(NamedEnum):
    """What a task hands back: PNG files written beside nothing else (render), or each
    frame's exact premultiplied pixels and renderer fingerprint (golden checks compare
    them in the submitting process, as serial checks do)."""

    PNG = "png"
    PIXELS = "pixels"


class CostClass(NamedEnum):
    """A task's predicted cost per frame, by powers of four (lamina.batch.costs). The
    class is a word in the task key, so dask's per-prefix duration estimates and work
    stealing learn each class separately."""

    TINY = "tiny"      # under 4 ms a frame
    LIGHT = "light"    # under 16 ms
    MEDIUM = "medium"  # under 64 ms
    HEAVY = "heavy"    # under 256 ms
    HUGE = "huge"      # more


@dataclass(frozen=True)
class FrameSpec:
    """One frame to make: at time ``t`` under ``policy``; ``index`` is its frame number
    (None for a still); ``out`` the PNG path (OutputKind.PNG)."""

    t: float
    index: int | None = None
    out: str | None = None
    policy: str | None = None


@dataclass(frozen=True)
class WorkItem:
    """Frames of one scene, rendered in order by one renderer (an animation's frames
    reuse what the previous frame kept)."""

    bundle: SceneBundle
    frames: tuple[FrameSpec, ...]


@dataclass(frozen=True)
class RenderTask:
    """One dask task: ``items`` rendered in order on one worker, predicted to take
    ``predicted_s``. ``key`` starts with the cost class (``lamina-frames-light-00003-…``)."""

    key: str
    cost_class: CostClass
    predicted_s: float
    items: tuple[WorkItem, ...]
    output: OutputKind
    job: str  # the job's token, the end of every task key

    @property
    def frame_count(self) -> int:
        return sum(len(i.frames) for i in self.items)


@dataclass(frozen=True)
class FrameDone:
    """A frame made: its scene, frame number, output path (PNG) or pixels (PIXELS), and
    how long it took on the worker (render and save)."""

    scene: str
    scene_file: str
    index: int | None
    path: str | None
    ms: float
    premultiplied: np.ndarray | None = None
    info: RendererInfo | None = None


class FailureKind(NamedEnum):
    BAD_INPUT = "bad input"            # a typed Lamina input error: reported once, not retried
    LOST = "worker lost"               # the task killed its workers dask's allowed-failures times
    ENVIRONMENT = "cannot render here"  # the worker has no usable GL (LaminaEnvironmentError)
    INTERNAL = "internal error"        # an untyped exception (retried once by dask first)


@dataclass(frozen=True)
class SceneFailure:
    """A scene (or some of its frames) that could not be made: what and where."""

    scene: str
    scene_file: str
    kind: FailureKind
    error: str  # the exception's type name
    message: str
    frames: tuple[int | None, ...] = ()

    def describe(self) -> str:
        which = ""
        numbered = [f for f in self.frames if f is not None]
        if numbered:
            which = f" (frames {numbered[0]}..{numbered[-1]})" if len(numbered) > 1 else f" (frame {numbered[0]})"
        return f"{self.scene_file}{which}: {self.kind}: {self.error}: {self.message}"

    def as_error(self) -> BatchSceneError:
        """The failure as a typed exception, for callers that raise."""
        return BatchSceneError(self.describe())


@dataclass(frozen=True)
class TaskResult:
    """What a task hands back: the frames made and the scenes that failed, which worker
    ran it (name and process id; "" for a task lost with its workers) and how long it
    was busy."""

    key: str
    cost_class: CostClass
    predicted_s: float
    busy_s: float
    worker: str
    pid: int
    frames: tuple[FrameDone, ...] = ()
    failures: tuple[SceneFailure, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
