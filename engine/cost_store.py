"""Where the history cost model lives between processes: one JSON file per GL renderer in
the cache folder (``LAMINA_CACHE_DIR``, default ``$XDG_CACHE_HOME/lamina`` or
``~/.cache/lamina``), stamped with what it was measured on.

The stamp (``Stamp``) is the renderer fingerprint (GL_RENDERER, GL_VERSION), the thread
settings that change llvmpipe's and PoCL's speed, and each device's driver version. On
load a different fingerprint or thread setting invalidates the whole file; a device whose
driver version changed loses its entries (and only those); either way the caller measures
again what is missing. A file that is not JSON, or not this format, is ignored with a
``CostModelWarning`` and measured again. Files are written whole (a temporary file renamed
over the old one), so a reader never sees half a model.

The linear model stored by Lamina before the history model (``filter-costs.json``: a fit
per pass kind, with no samples and no spread) is not migrated: there is nothing to carry
a spread over from. It is left where it is (older Lamina versions sharing the cache read
it) and never read here; the history model is calibrated in its place.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from .cost_history import HistoryModel, ModelFormatError
from .errors import OutputFileError
from .output_files import write_text
from .named import NamedEnum

__all__ = ["FORMAT", "FORMAT_VERSION", "LEGACY_FILE", "CostModelWarning", "Loaded", "LoadStatus", "Stamp", "cache_dir",
           "load", "save", "store_path", "thread_settings"]

FORMAT = "lamina-cost-history"
FORMAT_VERSION = 1  # a file of another version is measured again (and overwritten)
LEGACY_FILE = "filter-costs.json"
_THREAD_VARS = ("LP_NUM_THREADS", "POCL_MAX_PTHREAD_COUNT")


class CostModelWarning(UserWarning):
    """A stored cost model could not be used (corrupt, foreign, unwritable): it is measured
    again. Never an error: the model is a cache."""


def cache_dir() -> Path:
    env = os.environ.get("LAMINA_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lamina"


def thread_settings() -> str:
    """The environment's thread counts for llvmpipe and PoCL ("" when unset): the same
    devices run at other speeds with other settings."""
    return ",".join(f"{k}={os.environ[k]}" for k in _THREAD_VARS if k in os.environ)


@dataclass(frozen=True)
class Stamp:
    """What a stored model was measured on: the renderer fingerprint, the thread settings,
    and the driver version of each device (by Device.id)."""

    fingerprint: Mapping[str, str]
    threads: str = ""
    drivers: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"fingerprint": dict(self.fingerprint), "threads": self.threads, "drivers": dict(sorted(self.drivers.items()))}


class LoadStatus(NamedEnum):
    LOADED = "loaded"
    MISSING = "missing"  # no file yet: calibrate
    STALE = "stale"  # measured on another renderer, driver or thread setting: calibrate
    CORRUPT = "corrupt"  # not JSON, or not a model this code wrote: warned, calibrate
    FOREIGN = "foreign"  # another format or format version: warned, calibrate


@dataclass(frozen=True)
class Loaded:
    """What ``load`` found: the model (empty unless LOADED; a LOADED one may lack devices
    whose drivers changed) and why, in words."""

    status: LoadStatus
    model: HistoryModel
    reason: str = ""
    drivers: Mapping[str, str] = field(default_factory=dict)  # the stored drivers of the entries kept


def store_path(fingerprint: Mapping[str, str]) -> Path:
    """The file for a GL renderer: named by a hash of GL_RENDERER alone, so a new driver
    (GL_VERSION) finds the old file and invalidates it rather than leaving it behind."""
    digest = hashlib.sha256(str(fingerprint.get("GL_RENDERER", "")).encode()).hexdigest()[:16]
    return cache_dir() / f"cost-history-{digest}.json"


def load(stamp: Stamp) -> Loaded:
    """The model stored for ``stamp``'s renderer, less what ``stamp`` invalidates."""
    path = store_path(stamp.fingerprint)
    empty = HistoryModel()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        legacy = (cache_dir() / LEGACY_FILE).is_file()
        return Loaded(LoadStatus.MISSING, empty, f"no stored cost history{'; ' + LEGACY_FILE + ' (the linear model of earlier Lamina versions) is not migrated' if legacy else ''}")
    except OSError as exc:
        return _ignored(LoadStatus.CORRUPT, path, f"cannot be read ({exc.strerror or exc})")
    try:
        data = json.loads(text)
    except ValueError as exc:
        return _ignored(LoadStatus.CORRUPT, path, f"is not JSON ({exc})")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return _ignored(LoadStatus.FOREIGN, path, f"is not a {FORMAT} file")
    if data.get("version") != FORMAT_VERSION:
        return _ignored(LoadStatus.FOREIGN, path, f"is {FORMAT} version {data.get('version')!r}, not {FORMAT_VERSION}")
    try:
        stored = Stamp(dict(data["stamp"]["fingerprint"]), str(data["stamp"]["threads"]), dict(data["stamp"]["drivers"]))
        model = HistoryModel.from_dict(data["model"])
    except (KeyError, TypeError, ValueError, ModelFormatError) as exc:
        return _ignored(LoadStatus.CORRUPT, path, f"is damaged ({exc})")
    if dict(stored.fingerprint) != dict(stamp.fingerprint):
        changed = ", ".join(f"{k} {stored.fingerprint.get(k)!r} -> {v!r}" for k, v in stamp.fingerprint.items()
                            if stored.fingerprint.get(k) != v)
        return Loaded(LoadStatus.STALE, empty, f"the renderer changed ({changed}): measured again")
    if stored.threads != stamp.threads:
        return Loaded(LoadStatus.STALE, empty, f"thread settings changed ({stored.threads!r} -> {stamp.threads!r}): measured again")
    reasons, kept = [], dict(stored.drivers)
    for device, driver in stamp.drivers.items():
        if device in stored.drivers and stored.drivers[device] != driver:
            model = model.without_device(device)
            del kept[device]
            reasons.append(f"{device}: driver {stored.drivers[device]!r} -> {driver!r}, measured again")
    return Loaded(LoadStatus.LOADED, model, "; ".join(reasons), kept)


def _ignored(status: LoadStatus, path: Path, why: str) -> Loaded:
    reason = f"the stored cost model {path} {why}: ignored, measured again"
    warnings.warn(reason, CostModelWarning, stacklevel=3)
    return Loaded(status, HistoryModel(), reason)


def save(model: HistoryModel, stamp: Stamp) -> Path | None:
    """Write ``model`` for ``stamp`` atomically; None (with a warning) where the cache
    folder cannot be written: the model then stays in memory for this process."""
    path = store_path(stamp.fingerprint)
    text = json.dumps({"format": FORMAT, "version": FORMAT_VERSION, "stamp": stamp.to_dict(), "model": model.to_dict()},
                      indent=1) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, text)  # atomic: a parallel reader sees the old file or the new one
    except (OSError, OutputFileError) as exc:
        warnings.warn(f"cannot store the cost model in {path.parent} ({getattr(exc, 'strerror', None) or exc}): kept in memory only",
                      CostModelWarning, stacklevel=2)
        return None
    return path
