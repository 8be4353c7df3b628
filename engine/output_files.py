"""Where Lamina writes a file: the path is checked before any work, and the file appears
whole or not at all.

``check_output`` refuses, fast and before rendering, a path that cannot hold a file
written by name: one that names no file (``''``, ``.``, ``..``, ``dir/``), an existing
folder, a FIFO (opening one for writing waits for a reader: a hang), a device or a
socket (``/dev/null`` included: an output that is thrown away is a mistake to say, not
to hide), or a path whose folder does not exist.

``atomic_file`` writes beside the target: a new file in the same folder (so the rename
cannot cross file systems), flushed and fsynced, then ``os.replace``-d over the target.
A failure part-way (disk full, a file size limit, an exception in the writer) removes
the part file, leaves whatever was at the target as it was, and raises an
``OutputFileError`` naming the path. A symlink at the target is followed: the file it
points to is replaced, the link stays.
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

from .errors import OutputFileError

__all__ = ["check_output", "atomic_file", "atomic_path", "write_bytes", "write_text", "leftover_parts", "part_owner", "PART_SUFFIX"]

PART_SUFFIX = ".part"  # a killed process can leave ".NAME.<8 hex digits>.part" beside NAME: safe to delete


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "it is a folder; name a file in it"
    if stat.S_ISFIFO(mode):
        return "it is a FIFO (a named pipe); Lamina writes regular files only"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device; Lamina writes regular files only"
    if stat.S_ISSOCK(mode):
        return "it is a socket; Lamina writes regular files only"
    return "it is not a regular file"


def check_output(path: str | os.PathLike[str]) -> Path:
    """The file ``path`` names, made absolute with symlinks followed, if a regular file
    can be written there by name; else OutputFileError. Nothing is opened or created."""
    try:
        raw = os.fspath(path)
    except TypeError:
        raise OutputFileError(f"expected a file path, got {type(path).__name__}", path=repr(path)) from None
    if isinstance(raw, bytes):
        raw = os.fsdecode(raw)
    shown = raw
    if "\0" in raw:
        raise OutputFileError("the path holds a NUL character", path=raw)
    # Path() forgets what the text said: Path("out/") is Path("out"), Path("") is Path(".").
    if not raw:
        raise OutputFileError("the path is empty", path=shown)
    if raw.endswith((os.sep, "/")) or os.path.basename(raw) in ("", ".", ".."):
        raise OutputFileError("the path names a folder, not a file", path=shown)
    target = Path(os.path.realpath(raw))  # write through a symlink, as open() would
    try:
        mode = os.stat(target).st_mode  # stat, not open: opening a FIFO would wait for a reader
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputFileError(exc.strerror or str(exc), path=shown) from None
    if mode is not None and (why := _kind(mode)) is not None:
        raise OutputFileError(why, path=shown)
    if not target.parent.is_dir():
        raise OutputFileError(f"folder {Path(raw).parent} does not exist", path=shown)
    return target


def _fsync_folder(folder: Path) -> None:
    # So the rename itself survives a crash; some file systems cannot open a folder.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _new_part(target: Path, shown: str, suffix: str) -> tuple[Path, int]:
    """A new, empty part file beside ``target`` and its descriptor."""
    part = target.with_name(f".{target.name}.{secrets.token_hex(4)}{PART_SUFFIX}{suffix}")
    try:
        # 0o666 less the umask, as open(path, "w") would create it (mkstemp makes 0o600).
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise OutputFileError(exc.strerror or str(exc), path=shown) from None
    return part, fd


def _commit(part: Path, target: Path) -> None:
    try:
        os.chmod(part, stat.S_IMODE(os.stat(target).st_mode))  # a replaced file keeps its mode
    except FileNotFoundError:
        pass
    os.replace(part, target)


def _abandon(part: Path, exc: BaseException, shown: str) -> None:
    """Remove the part file; re-raise ``exc``, an OSError as an OutputFileError."""
    try:
        part.unlink()
    except OSError:
        pass
    if isinstance(exc, OSError):
        raise OutputFileError(exc.strerror or str(exc), path=shown) from None
    raise exc


def _shown(path: object) -> str:
    return os.fspath(path) if isinstance(path, (str, os.PathLike)) else repr(path)


@contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content into; when the block ends without
    an exception it replaces ``path`` whole. See the module docstring for what a
    failure leaves (nothing new) and raises (OutputFileError for an OSError; any other
    exception passes through, after the part file is removed)."""
    shown = _shown(path)
    target = check_output(path)
    part, fd = _new_part(target, shown, "")
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        _commit(part, target)
    except BaseException as exc:
        _abandon(part, exc, shown)
    _fsync_folder(target.parent)


@contextmanager
def atomic_path(path: str | os.PathLike[str], *, suffix: str = "") -> Iterator[Path]:
    """As ``atomic_file``, for a writer that wants a path (a program that writes the file
    itself, or seeks in it by name): the block writes the yielded part file (empty, its
    name ending in ``suffix``, e.g. ".mp4" for a writer that goes by the extension), which
    then replaces ``path``."""
    shown = _shown(path)
    target = check_output(path)
    part, fd = _new_part(target, shown, suffix)
    os.close(fd)
    try:
        yield part
        fd = os.open(part, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        _commit(part, target)
    except BaseException as exc:
        _abandon(part, exc, shown)
    _fsync_folder(target.parent)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path as given."""
    with atomic_file(path) as out:
        out.write(data)
    return Path(path)


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path as given."""
    return write_bytes(path, text.encode("utf-8"))



def part_owner(name: str) -> str | None:
    """The file name a part file named ``name`` was written for (".NAME.<8 hex
    digits>.part", a suffix after it for ``atomic_path``'s), else None."""
    if not name.startswith(".") or PART_SUFFIX not in name:
        return None
    head, _, _ = name.rpartition(PART_SUFFIX)
    owner, dot, token = head[1:].rpartition(".")
    return owner if dot and len(token) == 8 and owner else None


def leftover_parts(path: str | os.PathLike[str]) -> list[Path]:
    """The part files a writer of ``path`` killed mid-write left beside it: what a job
    that wrote ``path`` removes when it ends."""
    target = Path(path)
    return sorted(p for p in target.parent.glob(f".{target.name}.*{PART_SUFFIX}*") if part_owner(p.name) == target.name)
