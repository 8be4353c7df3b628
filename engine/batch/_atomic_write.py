"""Batch outputs appear whole or not at all: each PNG is written to a temporary name
beside its target and renamed over it (``os.replace`` is atomic within one folder).

Every file Lamina writes is atomic already (lamina.output_files); a batch output is named
apart as well: its temporary name carries the job's token, so when a worker is killed
mid-write the job's sweep (``remove_parts``) removes its leftovers and only its own. A
retried or doubly run task writes the same bytes under the same name, so outputs are
idempotent too.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Callable

__all__ = ["PART_SUFFIX", "write_png_atomically", "remove_parts"]

# Temporary files end in ".png" because the PNG writers refuse other extensions; the
# marker says what they are to whoever finds one left by a killed process.
PART_SUFFIX = ".lamina-part.png"


def part_path(path: Path, job: str) -> Path:
    """A temporary name beside ``path``, unique to this write, tagged with ``job`` so a
    sweep after the job removes only its own leftovers."""
    return path.with_name(f".{path.name}.{job}-{uuid.uuid4().hex[:12]}{PART_SUFFIX}")


def write_png_atomically(path: Path, write: Callable[[Path], object], job: str) -> Path:
    """Call ``write(temporary)``, then rename the temporary file to ``path``. On any
    failure or interrupt (Ctrl-C included) the temporary file is removed."""
    part = part_path(path, job)
    try:
        write(part)
        os.replace(part, path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return path


def remove_parts(folder: Path, job: str) -> list[Path]:
    """Remove the temporary files ``job`` left in ``folder`` (a worker killed mid-write
    cannot clean up after itself); the removed paths."""
    removed = []
    # Its own temporary files, and those the PNG writer (atomic itself: lamina.output_files)
    # names after them: ".<its temporary name>.XXXXXXXX.part".
    for part in folder.glob(f".*.{job}-*"):
        part.unlink(missing_ok=True)
        removed.append(part)
    return removed
