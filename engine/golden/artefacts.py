"""What a failed check leaves behind, under the results folder, one folder per check:
``actual.png``, ``expected.png``, ``diff.png`` (differences amplified so the largest is
white), ``mask.png`` (red: over the tolerance; yellow: differs within it; a blue frame around
where anything differs; over a faded expected image), ``metrics.json`` and ``record.json`` (what the HTML report is built from).

A check that passes removes its folder, so what is there is what currently fails. Each
run also logs every outcome to ``.run/<pid>.jsonl`` so that the process that writes the
report (the pytest-xdist controller, or ``lamina check``) sees the workers' checks.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GoldenError
from ..output_files import write_bytes, write_text
from .store import Outcome, Status, encode_png

__all__ = ["ResultsDir", "stamp"]

RUN_LOG = ".run"
_LAST_EPOCH = 253402300799  # 9999-12-31 23:59:59 UTC


def stamp() -> str:
    """The time a record or report is written, to the second (local time). Under
    ``SOURCE_DATE_EPOCH`` (the reproducible-builds convention: whole seconds since 1970,
    read as UTC) that time replaces the clock, so a report can be made twice with the same
    bytes (the README's report picture is). A malformed value is an error, as the
    convention asks, not a silent fall back to the clock."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not fixed:
        return time.strftime("%Y-%m-%d %H:%M:%S")
    if not (fixed.isascii() and fixed.isdigit()) or int(fixed) > _LAST_EPOCH:
        raise GoldenError(f"SOURCE_DATE_EPOCH={fixed!r}: expected whole seconds since 1970-01-01 "
                          f"(0 to {_LAST_EPOCH}, the end of year 9999)")
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(fixed)))


def _slug(key: str) -> str:
    """A folder name for a check: readable, and unique (a hash of the whole key) so that
    'a/b' and 'a_b', or two long test ids, never share artefacts."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", key).strip("._")[:100] or "check"
    return f"{readable}-{hashlib.sha1(key.encode('utf-8')).hexdigest()[:8]}"


def _amplified(diff: np.ndarray) -> np.ndarray:
    peak = int(diff.max()) if diff.size else 0
    scaled = (diff.astype(np.uint32) * 255 // max(peak, 1)).astype(np.uint8)
    rgb = np.stack([scaled] * 3, axis=-1)
    return np.concatenate([rgb, np.full(diff.shape + (1,), 255, np.uint8)], axis=-1)


def _mask(outcome: Outcome) -> np.ndarray:
    """Premultiplied RGBA: the expected image faded to 25% grey, differing pixels marked."""
    comparison = outcome.comparison
    base = outcome.expected if outcome.expected is not None else outcome.actual
    grey = base[..., :3].astype(np.float32).mean(axis=2) * (base[..., 3] / 255.0)
    out = np.empty(base.shape[:2] + (4,), np.uint8)
    out[..., :3] = (191 + grey[..., None] * 0.25).astype(np.uint8)
    out[..., 3] = 255
    if comparison is not None:
        region = comparison.region()
        if region is not None:  # a blue frame one pixel outside where it differs: findable
            x, y, w, h = region
            x0, y0, x1, y1 = x - 1, y - 1, x + w, y + h
            H, W = out.shape[:2]
            blue = (40, 90, 255, 255)
            for yy in (y0, y1):
                if 0 <= yy < H:
                    out[yy, max(x0, 0):min(x1, W - 1) + 1] = blue
            for xx in (x0, x1):
                if 0 <= xx < W:
                    out[max(y0, 0):min(y1, H - 1) + 1, xx] = blue
        out[comparison.diff > 0] = (255, 200, 0, 255)
        out[comparison.above_tolerance()] = (230, 0, 0, 255)
    return out


class ResultsDir:
    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def folder_for(self, key: str) -> Path:
        return self.folder / _slug(key)

    def start_run(self) -> None:
        """Forget the previous run's log (the artefacts of failures stay until they pass)."""
        shutil.rmtree(self.folder / RUN_LOG, ignore_errors=True)

    def record(self, key: str, outcome: Outcome, *, test: str, accept: str, kind: str = "golden") -> Path | None:
        """Log the outcome; write artefacts when it failed, remove stale ones otherwise."""
        folder = self.folder_for(key)
        entry = {
            "key": key,
            "kind": kind,
            "test": test,
            "name": outcome.name,
            "status": outcome.status.value,
            "message": outcome.message,
            "golden": str(outcome.golden) if outcome.golden else None,
            "accept": accept if outcome.status is Status.FAILED else None,
            "fingerprint": outcome.fingerprint.to_dict() if outcome.fingerprint else None,
            "golden_fingerprint": outcome.golden_fingerprint.to_dict() if outcome.golden_fingerprint else None,
            "time": stamp(),
        }
        self._log(entry)
        if outcome.status is not Status.FAILED:
            shutil.rmtree(folder, ignore_errors=True)
            return None
        folder.mkdir(parents=True, exist_ok=True)
        metrics: dict[str, Any] = {"message": outcome.message}
        if outcome.comparison is not None:
            metrics.update(outcome.comparison.metrics())
        write_bytes(folder / "actual.png", encode_png(outcome.actual))
        files = {"actual": "actual.png"}
        if outcome.expected is not None:
            write_bytes(folder / "expected.png", encode_png(outcome.expected))
            files["expected"] = "expected.png"
        if outcome.comparison is not None:
            write_bytes(folder / "diff.png", encode_png(_amplified(outcome.comparison.diff)))
            write_bytes(folder / "mask.png", encode_png(_mask(outcome)))
            files.update(diff="diff.png", mask="mask.png")
        write_text(folder / "metrics.json", json.dumps(metrics, indent=2) + "\n")
        entry.update(files=files, metrics=metrics)
        write_text(folder / "record.json", json.dumps(entry, indent=2) + "\n")
        return folder

    def record_error(self, key: str, name: str, message: str, *, test: str) -> Path:
        """A check that could not even produce an image (the scene did not render)."""
        folder = self.folder_for(key)
        folder.mkdir(parents=True, exist_ok=True)
        entry = {"key": key, "kind": "error", "test": test, "name": name, "status": "failed", "message": message,
                 "golden": None, "accept": None, "files": {}, "metrics": {}, "time": stamp()}
        self._log(entry)
        for stale in folder.iterdir():
            stale.unlink()
        write_text(folder / "record.json", json.dumps(entry, indent=2) + "\n")
        return folder

    def _log(self, entry: dict) -> None:
        """Append to this process's log of the run (one file per pytest-xdist worker)."""
        log = self.folder / RUN_LOG
        log.mkdir(parents=True, exist_ok=True)
        with open(log / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")

    def run_log(self) -> list[dict[str, Any]]:
        """Every check logged in this run, by any process."""
        out = []
        for path in sorted((self.folder / RUN_LOG).glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    out.append(json.loads(line))
        return out

    def failures(self) -> list[dict[str, Any]]:
        """Every check whose artefacts are here: what fails now (or failed last time it ran)."""
        out = []
        for path in sorted(self.folder.glob("*/record.json")):
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                continue
            record["folder"] = str(path.parent)
            out.append(record)
        return out
