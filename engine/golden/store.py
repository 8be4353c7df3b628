"""Golden images on disk: PNGs that carry the fingerprint of the renderer they were made
on, the per-renderer expectations file beside them, and the one decision every check
makes (compare, skip, write or fail), shared by the pytest plugin and ``lamina check``.

A golden is valid for the renderer it was made on (GL_RENDERER and GL_VERSION must both
match; the Lamina version is recorded for the reader only). On another renderer a check
compares only with the tolerance that ``renderers.json`` declares for that renderer;
without one it is skipped, naming both fingerprints, or fails where
``LAMINA_GOLDEN_STRICT=1`` (CI that must run on the reference renderer).
"""

from __future__ import annotations

import fnmatch
import io
import json
import os
import re
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, PngImagePlugin

from ..errors import GoldenError, ImageLoadError
from ..image_formats import load_pixels, open_image
from ..output_files import write_bytes
from ..fuzzy import TOLERANCE_KEYS, Comparison, Tolerance, compare, premultiply
from ..images import unpremultiply
from ..renderer import renderer_info
from ..version import __version__

__all__ = [
    "DPR_KEY",
    "Expectations",
    "Fingerprint",
    "GoldenDir",
    "Outcome",
    "Status",
    "UpdateMode",
    "STRICT_ENV",
    "as_premultiplied",
    "golden_name",
    "read_golden",
    "write_golden",
]

STRICT_ENV = "LAMINA_GOLDEN_STRICT"
EXPECTATIONS_FILE = "renderers.json"
_KEYS = {"renderer": "lamina:GL_RENDERER", "gl_version": "lamina:GL_VERSION", "lamina": "lamina:version"}
# The device pixel ratio the golden was rendered at (lamina.device_scale): written when it is
# not 1; a golden without it (every one made before Lamina had a DPR) is DPR 1.
DPR_KEY = "lamina:device_scale_factor"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$")


class UpdateMode(str, Enum):
    NONE = "none"  # compare only
    MISSING = "missing"  # write goldens that do not exist yet
    CHANGED = "changed"  # ... and overwrite those that no longer match
    ALL = "all"  # rewrite every golden checked

    @classmethod
    def parse(cls, value: "str | UpdateMode | None") -> "UpdateMode":
        if value is None:
            return cls.NONE
        try:
            return cls(value)
        except ValueError:
            raise GoldenError(f"golden update mode must be one of none, missing, changed, all; got {value!r}") from None


@dataclass(frozen=True)
class Fingerprint:
    """What made an image: the renderer (GL_RENDERER, GL_VERSION), Lamina's version, and
    the device pixel ratio it was rendered at (not the renderer's: compared on its own)."""

    renderer: str
    gl_version: str
    lamina: str = ""
    device_scale_factor: float = 1.0

    @classmethod
    def of(cls, info, device_scale_factor: float = 1.0) -> "Fingerprint":
        """From a RendererInfo (``frame.info``, ``lamina.renderer_info()``)."""
        return cls(info.renderer, info.version, __version__, float(device_scale_factor))

    def same_renderer(self, other: "Fingerprint") -> bool:
        return (self.renderer, self.gl_version) == (other.renderer, other.gl_version)

    def __str__(self) -> str:
        return f"{self.renderer} | {self.gl_version}"

    def to_dict(self) -> dict[str, str]:
        return {"GL_RENDERER": self.renderer, "GL_VERSION": self.gl_version, "lamina": self.lamina,
                "device_scale_factor": self.device_scale_factor}


def as_premultiplied(image: Any) -> tuple[np.ndarray, Fingerprint | None]:
    """A Frame (its exact premultiplied pixels and renderer) or an (H, W, 4) / (H, W, 3)
    uint8 array of straight RGBA / RGB (as PNG and ``frame.image`` hold them)."""
    if hasattr(image, "premultiplied") and hasattr(image, "info"):
        graph = getattr(image, "graph", None)
        return np.ascontiguousarray(image.premultiplied), Fingerprint.of(
            image.info, getattr(graph, "device_scale_factor", getattr(image, "device_scale_factor", 1.0)))
    if hasattr(image, "mode") and hasattr(image, "size"):  # a Pillow image
        image = np.asarray(image.convert("RGBA"))
    if not isinstance(image, np.ndarray):
        raise GoldenError(f"expected a Frame, a Pillow image or a uint8 array; got {type(image).__name__}")
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in (3, 4) or 0 in image.shape:
        raise GoldenError(f"expected an (H, W, 4) or (H, W, 3) uint8 array; got {image.dtype} {image.shape}")
    if image.shape[2] == 3:
        image = np.concatenate([image, np.full(image.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return premultiply(image), None


def read_golden(path: Path) -> tuple[np.ndarray, Fingerprint | None]:
    """The golden's premultiplied pixels and the fingerprint stored in it (None if the
    PNG has none, e.g. made by another tool)."""
    try:
        data = Path(path).read_bytes()
        with open_image(data, resolved=str(path)) as im:  # checked like any image Lamina decodes
            load_pixels(im, resolved=str(path))
            if im.format != "PNG":
                raise GoldenError(f"golden {path} is not a PNG (it is {im.format})")
            text = dict(getattr(im, "text", {}) or {})
            pixels = np.asarray(im.convert("RGBA"))
    except OSError as exc:
        raise GoldenError(f"golden {path} is not readable: {exc.strerror or exc}") from None
    except ImageLoadError as exc:
        raise GoldenError(f"golden {path} is not a readable PNG: {exc.reason}") from None
    fp = None
    if _KEYS["renderer"] in text:
        fp = Fingerprint(text[_KEYS["renderer"]], text.get(_KEYS["gl_version"], ""), text.get(_KEYS["lamina"], ""),
                         _dpr(text.get(DPR_KEY, "1"), path))
    return premultiply(pixels), fp


def _dpr(text: str, path: Path) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 8.0:  # (also NaN)
        raise GoldenError(f"golden {path}: its {DPR_KEY} {text!r} is not a device pixel ratio in (0, 8]")
    return value


def encode_png(premultiplied: np.ndarray, fingerprint: Fingerprint | None = None) -> bytes:
    """Straight-RGBA PNG bytes with the fingerprint as text chunks. Deterministic: no time
    stamp, so the same pixels on the same renderer give the same bytes."""
    info = PngImagePlugin.PngInfo()
    if fingerprint is not None:
        for field, key in _KEYS.items():
            info.add_text(key, getattr(fingerprint, field))
        if fingerprint.device_scale_factor != 1.0:
            info.add_text(DPR_KEY, f"{fingerprint.device_scale_factor:g}")
    buf = io.BytesIO()
    Image.fromarray(unpremultiply(premultiplied), "RGBA").save(buf, format="PNG", pnginfo=info, optimize=True)
    return buf.getvalue()


def write_golden(path: Path, premultiplied: np.ndarray, fingerprint: Fingerprint | None) -> bool:
    """Write the golden; returns False when the file already holds exactly these bytes."""
    data = encode_png(premultiplied, fingerprint)
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, data)  # atomic: parallel workers never see half a PNG
    return True


@dataclass(frozen=True)
class RendererExpectation:
    match: str
    tolerance: Tolerance
    per_test: dict[str, Tolerance]
    note: str = ""

    def tolerance_for(self, name: str) -> Tolerance:
        return self.per_test.get(name, self.tolerance)


@dataclass(frozen=True)
class Expectations:
    """``renderers.json`` beside the goldens::

        {"reference": "llvmpipe*",
         "renderers": [{"match": "NVIDIA*", "max_diff": "0-3", "max_pixels": "0-400",
                        "note": "why these numbers",
                        "tests": {"blur-large": {"max_diff": "0-6", "max_pixels": "0-2000"}}}]}

    ``reference`` (optional) is a glob over GL_RENDERER naming where goldens are made:
    new goldens are refused elsewhere unless forced. Each ``renderers`` entry gives the
    tolerance that applies on matching renderers that are not the golden's own."""

    path: Path | None = None
    reference: str | None = None
    renderers: tuple[RendererExpectation, ...] = ()

    @classmethod
    def load(cls, folder: Path) -> "Expectations":
        path = folder / EXPECTATIONS_FILE
        if not path.is_file():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise GoldenError(f"{path}: not valid JSON: {exc}") from None
        if not isinstance(data, dict) or set(data) - {"reference", "renderers", "comment"}:
            raise GoldenError(f"{path}: expected an object with 'reference' and 'renderers' (and 'comment')")
        reference = data.get("reference")
        if reference is not None and not isinstance(reference, str):
            raise GoldenError(f"{path}: $.reference must be a string glob")
        entries = data.get("renderers", [])
        if not isinstance(entries, list):
            raise GoldenError(f"{path}: $.renderers must be a list")
        out = []
        for i, entry in enumerate(entries):
            where = f"{path}: $.renderers[{i}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("match"), str):
                raise GoldenError(f"{where}: needs a 'match' glob over GL_RENDERER")
            unknown = set(entry) - {"match", *TOLERANCE_KEYS, "tests", "note"}
            if unknown:
                raise GoldenError(f"{where}: unknown key {sorted(unknown)[0]!r}")
            tests = entry.get("tests", {})
            if not isinstance(tests, dict):
                raise GoldenError(f"{where}.tests must map golden names to tolerances")
            try:
                base = _tolerance(entry)
                per = {}
                for name, t in tests.items():
                    if not isinstance(t, dict) or set(t) - set(TOLERANCE_KEYS):
                        raise GoldenError(f"tests.{name}: expected an object with {' / '.join(TOLERANCE_KEYS)}")
                    per[name] = _tolerance({**_fields(entry), **t})
            except GoldenError as exc:
                raise GoldenError(f"{where}: {exc}") from None
            out.append(RendererExpectation(entry["match"], base, per, str(entry.get("note", ""))))
        return cls(path, reference, tuple(out))

    def for_renderer(self, fingerprint: Fingerprint) -> RendererExpectation | None:
        for entry in self.renderers:
            if fnmatch.fnmatchcase(fingerprint.renderer, entry.match):
                return entry
        return None

    def is_reference(self, fingerprint: Fingerprint) -> bool:
        return self.reference is None or fnmatch.fnmatchcase(fingerprint.renderer, self.reference)


def _fields(entry: dict) -> dict:
    return {k: entry[k] for k in TOLERANCE_KEYS if k in entry}


def _tolerance(entry: dict) -> Tolerance:
    if not isinstance(entry, dict):
        raise GoldenError(f"a tolerance is an object with {' / '.join(TOLERANCE_KEYS)}")
    unknown = set(entry) - {"match", *TOLERANCE_KEYS, "tests", "note"}
    if unknown:
        raise GoldenError(f"unknown key {sorted(unknown)[0]!r}")
    return Tolerance.of(entry.get("max_diff", "0"), entry.get("max_pixels"), entry.get("max_alpha_diff"),
                        entry.get("max_pixel_ratio"))


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    WRITTEN = "written"  # a new golden
    UPDATED = "updated"  # a golden that did not match, overwritten on request


@dataclass
class Outcome:
    status: Status
    message: str
    name: str
    golden: Path
    actual: np.ndarray
    expected: np.ndarray | None = None
    comparison: Comparison | None = None
    golden_fingerprint: Fingerprint | None = None
    fingerprint: Fingerprint | None = None
    needs_force: bool = False  # accepting it needs --golden-force (another renderer)


PYTEST_UPDATE = ("--golden-update=missing", "--golden-update=changed")


class GoldenDir:
    """A folder of goldens (``NAME.png``, names may contain ``/``) and its expectations."""

    def __init__(self, folder: str | Path, update: "UpdateMode | str | None" = None, force: bool = False,
                 strict: bool | None = None, how_to_update: tuple[str, str] = PYTEST_UPDATE) -> None:
        self.folder = Path(folder)
        # What the caller's user types to write a missing golden and to replace one:
        # pytest flags for the plugin, ``--update`` for ``lamina check``.
        self.write_missing, self.replace_changed = how_to_update
        self.update = UpdateMode.parse(update)
        self.force = force
        self.strict = (os.environ.get(STRICT_ENV, "") not in ("", "0")) if strict is None else strict
        self.expectations = Expectations.load(self.folder)

    def path(self, name: str) -> Path:
        if not isinstance(name, str) or not _NAME.match(name) or ".." in name.split("/"):
            raise GoldenError(
                f"golden name {name!r}: use letters, digits, '.', '_', '-' and '/' (no leading dot, no '..')"
            )
        return self.folder / f"{name}.png"

    def check(self, image: Any, name: str, tolerance: Tolerance, fingerprint: Fingerprint | None = None,
              device_scale_factor: float | None = None) -> Outcome:
        """Compare ``image`` with golden ``name`` and apply the update mode. A Frame says
        its device pixel ratio; an array is DPR ``device_scale_factor`` (None: 1). A
        golden of another DPR fails (like is compared with like: one golden per DPR)."""
        golden = self.path(name)
        actual, frame_fp = as_premultiplied(image)
        fp = frame_fp or fingerprint or _current_fingerprint()
        if device_scale_factor is not None:
            fp = replace(fp, device_scale_factor=float(device_scale_factor))
        out = Outcome(Status.FAILED, "", name, golden, actual, fingerprint=fp)

        if not golden.is_file():
            if self.update is UpdateMode.NONE:
                out.message = f"no golden {golden}; make it with {self.write_missing}"
                return out
            if not self.expectations.is_reference(fp) and not self.force:
                out.needs_force = True
                out.message = (f"not writing new golden {golden}: this renderer ({fp}) is not the reference "
                               f"({self.expectations.reference!r} in {self.expectations.path}); force to write")
                return out
            write_golden(golden, actual, fp)
            out.status, out.message = Status.WRITTEN, f"wrote new golden {golden}"
            return out

        writes = self.update in (UpdateMode.CHANGED, UpdateMode.ALL)
        try:
            expected, golden_fp = read_golden(golden)
        except GoldenError as err:
            # Corrupt, or a Git LFS pointer that was never pulled: a failure an update repairs.
            if writes:
                write_golden(golden, actual, fp)
                out.status, out.message = Status.UPDATED, f"replaced unreadable golden {golden}"
            else:
                out.message = f"{err} (a Git LFS pointer? run git lfs pull); replace it with {self.replace_changed}"
            return out
        out.expected, out.golden_fingerprint = expected, golden_fp
        same = golden_fp is not None and golden_fp.same_renderer(fp)
        made_on = golden_fp or "an unknown renderer"
        allowed_by = ""
        if not same:
            entry = self.expectations.for_renderer(fp)
            if entry is not None and not self.force:
                tolerance = entry.tolerance_for(name)
                allowed_by = f" (tolerance for {entry.match!r} from {self.expectations.path})"
            elif entry is None and not self.force and not writes:
                where = (f"no entry for it in {self.expectations.path}" if self.expectations.path
                         else f"no {EXPECTATIONS_FILE} in {self.folder}")
                why = f"golden {golden.name} was made on {made_on}; this is {fp}; {where}"
                out.needs_force = True
                out.status = Status.FAILED if self.strict else Status.SKIPPED
                out.message = f"{why} ({STRICT_ENV}=1)" if self.strict else why
                return out

        golden_dpr = golden_fp.device_scale_factor if golden_fp is not None else 1.0
        if golden_dpr != fp.device_scale_factor:
            out.message = (f"the golden was rendered at device pixel ratio {golden_dpr:g}, this frame at "
                           f"{fp.device_scale_factor:g}: compare like with like (a golden per DPR, e.g. NAME.2x)")
        elif actual.shape != expected.shape:
            out.message = (f"size {actual.shape[1]}x{actual.shape[0]} differs from the golden's "
                           f"{expected.shape[1]}x{expected.shape[0]}")
        else:
            out.comparison = compare(actual, expected, tolerance)
            if out.comparison.passed:
                out.status, out.message = Status.PASSED, out.comparison.summary() + allowed_by
                if self.update is UpdateMode.ALL and (same or self.force) and write_golden(golden, actual, fp):
                    out.status, out.message = Status.UPDATED, f"rewrote {golden} ({out.comparison.summary()})"
                return out
            out.message = out.comparison.summary() + allowed_by
        if writes and (same or self.force):
            write_golden(golden, actual, fp)
            out.status, out.message = Status.UPDATED, f"updated {golden} (was: {out.message})"
        elif writes:
            out.needs_force = True
            out.message = (f"not overwriting {golden}: it was made on {made_on}, this is {fp}; force to replace it "
                           f"(it differs: {out.message})")
        else:
            out.needs_force = not same
        return out

    def goldens(self) -> list[str]:
        """Names of every golden in the folder."""
        if not self.folder.is_dir():
            return []
        return sorted(p.relative_to(self.folder).with_suffix("").as_posix() for p in self.folder.rglob("*.png"))


def golden_name(name: str, device_scale_factor: float) -> str:
    """The golden of ``name`` at a device pixel ratio: ``name`` at 1, ``name.2x`` at 2."""
    return name if device_scale_factor == 1.0 else f"{name}.{device_scale_factor:g}x"


def _current_fingerprint() -> Fingerprint:
    return Fingerprint.of(renderer_info())
