"""feImage's pictures: where an ``href`` may be read from, and its pixels.

An feImage reads its file as every image of a scene does (``lamina.images.load_image``
under the scene's ``FileAccess``): a scene loaded from a file only inside its folder
(and the folders its caller allowed), a scene built in Python wherever its code points,
``filters.apply(..., files=folder)`` only inside ``folder``. The policy is put in force
around planning (``svg_files``, entered by the frame planner and ``filters.apply``),
as ``filters.svg.route.svg_document`` puts the markup in force; without one an feImage
is refused. A missing, unreadable, undecodable or refused file is an SvgImageError naming
the feImage, ``href`` and its value, raised while planning: before any GPU work.
(``href="#id"``, an element of the document, is refused when the markup is read.)
"""

from __future__ import annotations

import zlib
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import numpy as np

from ...errors import FileAccessError, ImageLoadError, SvgImageError
from ...css.values import ImageRef
from ...file_access import FileAccess
from ...images import file_version, load_image
from . import model as m
from .graph import FilterGraph

__all__ = ["svg_files", "files_in_force", "image_pixels", "reference_loader", "folder_access", "Picture"]

_FILES: ContextVar[FileAccess | None] = ContextVar("lamina_svg_files", default=None)


@contextmanager
def svg_files(access: FileAccess | None) -> Iterator[None]:
    """Plan (and run the reference) with feImage hrefs read under ``access``."""
    token = _FILES.set(access)
    try:
        yield
    finally:
        _FILES.reset(token)


def files_in_force() -> FileAccess | None:
    return _FILES.get()


class Picture(NamedTuple):
    """An feImage's picture: straight RGBA8 ``pixels`` (H, W, 4), read-only, and ``key``,
    its href and content checksum (what a GPU runner keeps its upload by)."""

    pixels: np.ndarray
    key: str


@lru_cache(maxsize=16)
def _load(access: FileAccess, href: str, version: object) -> Picture:
    """``href``'s picture (``version``, the file's ``_version``, keys the cache so an
    edited or replaced file is read again)."""
    pixels = load_image(ImageRef(url=href), access=access)
    pixels.setflags(write=False)
    return Picture(pixels, f"{href}#{zlib.crc32(pixels.tobytes()):08x}{pixels.shape}")


def _version(access: FileAccess, href: str) -> object:
    """``lamina.images.file_version`` of ``href``'s file (None for a data: URL)."""
    if href.startswith("data:"):
        return None
    try:
        return file_version(access.resolve(href))
    except (OSError, ValueError, ImageLoadError):
        return None  # load_image says what is wrong, in its words


def image_pixels(prim: m.Image) -> Picture:
    """The picture of ``prim``'s href under the policy in force; SvgImageError when it
    cannot be read."""
    access = _FILES.get()
    where = {"element": prim.describe(), "value": prim.href, "line": prim.line}
    if access is None and prim.href.startswith("data:"):
        access = FileAccess.unrestricted()  # a data: URL reads no file: no policy needed
    if access is None:
        raise SvgImageError("feImage reads its image from the scene's folder, and no scene (or filters.apply "
                            "files=folder) says which", **where)
    try:
        return _load(access, prim.href, _version(access, prim.href))
    except FileAccessError as exc:
        raise SvgImageError(f"the image is outside the folders this scene may read ({exc.reason})",
                            resolved=exc.resolved, refused=True, **where) from exc
    except ImageLoadError as exc:
        raise SvgImageError(f"cannot use the image: {exc.reason}", resolved=exc.resolved, **where) from exc


def reference_loader(graph: FilterGraph) -> Callable[[str], np.ndarray] | None:
    """The reference's image loader (``filters.svg.reference.ImageLoader``: href ->
    premultiplied float64 sRGB) for the live feImages of ``graph``, each read now under
    the policy in force (errors name the feImage); None when it has none."""
    images = {}
    for node in graph.live_nodes():
        if isinstance(node.primitive, m.Image):
            straight = image_pixels(node.primitive).pixels.astype(np.float64) / 255.0
            images[node.primitive.href] = np.concatenate([straight[..., :3] * straight[..., 3:4], straight[..., 3:4]],
                                                         axis=-1)
    return images.__getitem__ if images else None


def folder_access(files: FileAccess | str | Path | None) -> FileAccess | None:
    """``filters.apply``'s ``files``: a FileAccess as it is, a folder confined to itself."""
    if files is None or isinstance(files, FileAccess):
        return files
    return FileAccess.confined_to(files)
