"""Where a scene's image files may be read from: one policy, decided when the scene is made.

A scene built in Python reads any path its code names (``FileAccess.unrestricted``): the
caller wrote the path. A scene loaded from a file may have been written by someone else,
and its pictures may be rendered and shared, so it is confined to its own folder
(``FileAccess.confined``), as browsers confine ``file:`` pages: ``url(/home/x/secret.png)``,
``url(../../x.png)`` and a symlink that leads out of the folder are refused with a
``FileAccessError``, unless the caller allowed more folders (``load_scene(path,
allow_files=[...])``, ``lamina render --allow-files DIR``). ``data:`` URLs read no file
and are never affected.

The check is on the real path the operating system would open (every symlink followed,
``..`` applied after), so a link inside the folder that points inside stays allowed, and
it happens before the file is looked at: a refused url reveals nothing about the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable
from urllib.parse import unquote, urlparse

from .errors import FileAccessError, LaminaInputError

__all__ = ["FileAccess", "url_path"]


def url_path(url: str, base_dir: Path | None) -> Path:
    """The file a ``url()`` names: a path or ``file:`` URL, relative ones joined to
    ``base_dir`` (the current directory when None). Nothing is checked or resolved."""
    path = _written(url)
    if not path.is_absolute():
        path = (base_dir or Path.cwd()) / path
    return path


def _written(url: str) -> Path:
    """The path ``url`` names as written (a ``file:`` URL's path), not yet joined to a folder."""
    parsed = urlparse(url)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else Path(url)


def _real(path: Path) -> Path:
    # os.path.realpath follows every symlink (and applies ".." after it, as the kernel
    # does); strict=False so a missing file is still placed, then reported as missing.
    return Path(os.path.realpath(path))


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass(frozen=True)
class FileAccess:
    """How a scene's ``url()`` image paths reach files.

    ``base_dir`` is where relative paths start (None: the current directory). When
    ``confined``, a path must lead, after following symlinks, into ``base_dir`` or one
    of ``allowed`` (folders, or single files, resolved when the policy was made).
    ``scene_file`` names the scene file in messages. ``mirror``: a folder standing for
    the file system root, where an absolute path (or ``file:`` URL) is looked for (a
    batch worker's private copy of the submitter's files, lamina.batch.worker); None: the
    path as written. Frozen and hashable: a policy is decided once, compared as a value,
    and never changed behind a scene's back.
    """

    base_dir: Path | None = None
    confined: bool = False
    allowed: tuple[Path, ...] = ()
    scene_file: str | None = None
    mirror: Path | None = None

    @classmethod
    def unrestricted(cls, base_dir: str | Path | None = None) -> "FileAccess":
        """Any path the process can read (the Python API: the caller wrote the path)."""
        return cls(base_dir=None if base_dir is None else Path(base_dir))

    @classmethod
    def confined_to(
        cls,
        folder: str | Path,
        allow_files: Iterable[str | Path] = (),
        *,
        scene_file: str | None = None,
    ) -> "FileAccess":
        """Only files inside ``folder`` and inside each entry of ``allow_files``.

        An ``allow_files`` entry that does not exist is an error now (a mistyped folder
        would otherwise only show up as a refused image)."""
        if isinstance(allow_files, (str, os.PathLike)):
            allow_files = [allow_files]  # one folder, not its characters
        allowed = []
        for entry in allow_files:
            if not isinstance(entry, (str, os.PathLike)):
                raise LaminaInputError(f"allow_files: expected folder paths, got {entry!r}")
            real = _real(Path(entry).expanduser())
            if not real.exists():
                raise LaminaInputError(f"allow_files: {str(entry)!r} does not exist")
            allowed.append(real)
        # Absolute but not symlink-resolved: relative urls keep their meaning if the
        # process changes directory, and messages show the folder as the caller wrote it.
        return cls(base_dir=Path(os.path.abspath(folder)), confined=True, allowed=tuple(allowed),
                   scene_file=scene_file)

    def roots(self) -> tuple[Path, ...]:
        """The real paths reads may reach (empty when unrestricted: everything)."""
        return self._roots

    @cached_property
    def _roots(self) -> tuple[Path, ...]:
        # Resolved once per policy, not per image lookup (an animation looks its images
        # up every frame). cached_property writes the instance __dict__, which a frozen
        # dataclass allows; eq and hash look only at the fields.
        if not self.confined:
            return ()
        return (_real(self.base_dir or Path.cwd()), *self.allowed)

    def resolve(self, url: str, *, layer: str | None = None) -> Path:
        """The file ``url`` names, checked against this policy (FileAccessError if the
        policy refuses it; whether it exists is the reader's business)."""
        path = url_path(url, self.base_dir)
        if self.mirror is not None and _written(url).is_absolute():
            path = self.mirror / os.path.normpath(path).lstrip(os.sep)  # the submitter's absolute path, mirrored
        if not self.confined:
            return path
        real = _real(path)
        roots = self._roots
        if any(_inside(real, root) for root in roots):
            return real
        if _written(url).is_absolute():
            why = "an absolute path"
        elif not _inside(Path(os.path.normpath(path)), Path(os.path.normpath(self.base_dir or Path.cwd()))):
            why = "'..' leads out of the scene's folder"
        else:
            why = "a symlink leads out of the scene's folder"
        raise FileAccessError(
            f"refused: {why}; this scene file may read only {' and '.join(str(r) for r in roots)} "
            "(allow more with load_scene(path, allow_files=[folder]), or --allow-files DIR)",
            layer=layer, url=url, resolved=str(real), file=self.scene_file, allowed=roots,
        )
