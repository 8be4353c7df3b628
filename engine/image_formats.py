"""The image formats Lamina decodes, told apart by their first bytes, and the one checked
way bytes reach a decoder (``open_image``).

Lamina decodes PNG, JPEG, WebP, GIF (its first frame) and BMP: the formats browsers
show in ``url()``, and nothing else. Pillow reads some forty formats and a few of them
start other programs: an EPS file makes it run Ghostscript on the file's data. A scene
file may come from anyone, so the format is decided here from the magic bytes, before
Pillow sees the data, and Pillow is then allowed that one format's plugin only
(``Image.open(formats=[...])``): a file that says it is a PNG is parsed as a PNG or
refused, never handed to whichever plugin accepts it. Anything else is an
``ImageFormatError`` that names the allowed formats (and, for a few known formats, what
the data looks like), never the data's bytes: the file could be a key, and messages go
to logs.
"""

from __future__ import annotations

import io
import os
import re
from contextlib import contextmanager
from typing import Any, Iterator

from PIL import Image

from .bounded_read import InputTooLarge, read_bounded
from .errors import ImageFormatError, ImageLoadError
from .limits import MAX_IMAGE_FILE_BYTES

__all__ = ["ALLOWED_FORMATS", "ALLOWED_TEXT", "sniff_format", "describe_refused", "open_image", "load_pixels", "read_image_file"]

# Pillow format name -> the name users know. Order is the README's.
ALLOWED_FORMATS: dict[str, str] = {"PNG": "PNG", "JPEG": "JPEG", "WEBP": "WebP", "GIF": "GIF", "BMP": "BMP"}
ALLOWED_TEXT = ", ".join(ALLOWED_FORMATS.values())


def sniff_format(head: bytes) -> str | None:
    """The allowed format (Pillow's name) whose signature ``head`` (the first 16 or more
    bytes) starts with, or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WEBP"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if head.startswith(b"BM"):
        return "BMP"
    return None


# Formats people hand over by mistake (or on purpose), by signature: named in the message
# so it says what the data is without showing any of it.
_KNOWN_REFUSED: tuple[tuple[re.Pattern[bytes], str], ...] = tuple((re.compile(p, re.S), name) for p, name in (
    (rb"%!PS|\xc5\xd0\xd3\xc6", "PostScript/EPS"),
    (rb"%PDF-", "PDF"),
    (rb"II\*\x00|MM\x00\*", "TIFF"),
    (rb"\s*(<\?xml|<svg|<!DOCTYPE svg)", "SVG/XML text"),
    (rb"\s*<(!DOCTYPE html|html)", "HTML text"),
    (rb"\x00\x00\x00.ftyp(avif|avis|heic|heix|mif1)", "AVIF/HEIF"),
    (rb"8BPS", "PSD"),
    (rb"\x00\x00\x00\x0cjP  |\xff\x4f\xff\x51", "JPEG 2000"),
    (rb"P[1-7]\s", "PNM"),
))


def describe_refused(head: bytes) -> str:
    """Why ``head`` is refused, in words that show none of its bytes."""
    if not head:
        return "it is empty"
    for pattern, name in _KNOWN_REFUSED:
        if pattern.match(head):
            return f"it is {name}, which Lamina does not decode (it reads {ALLOWED_TEXT})"
    return f"it does not start like any format Lamina decodes ({ALLOWED_TEXT})"


# Pillow names its file object in some messages ("<_io.BytesIO object at 0x7f...>"), and
# some say a chunk's bytes ("broken PNG file (chunk b'\x00...')"): neither is the reader's
# business, and the second is the file's content.
_OBJECT_REPR = re.compile(r"\s*<[^<>]* object at 0x[0-9a-fA-F]+>")
_BYTES_REPR = re.compile(r"""b(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def _pillow_reason(exc: BaseException) -> str:
    text = _BYTES_REPR.sub("(bytes not shown)", _OBJECT_REPR.sub("", str(exc))).strip()
    return text or type(exc).__name__


@contextmanager
def open_image(data: bytes, **where: Any) -> Iterator[Image.Image]:
    """A Pillow image of ``data`` if its first bytes are one of ``ALLOWED_FORMATS``, else
    ImageFormatError; opened by that format's plugin only, its pixels not decoded yet (so
    the caller can check its size first: ``load_pixels``). Data the format's own plugin
    cannot read is an ImageLoadError ("not a readable image"). ``where`` (layer=, url=,
    resolved=, file=, path=) says where the data came from, in the error."""
    fmt = sniff_format(data[:16])
    if fmt is None:
        raise ImageFormatError(f"not a readable image: {describe_refused(data[:64])}", **where)
    try:
        image = Image.open(io.BytesIO(data), formats=[fmt])
    except Image.DecompressionBombError as exc:
        raise ImageLoadError(f"not a readable image ({_pillow_reason(exc)})", **where) from None
    except Exception as exc:  # noqa: BLE001 - Pillow's parsers raise many kinds on damaged data
        raise ImageLoadError(f"not a readable image: its {ALLOWED_FORMATS[fmt]} data is damaged or cut short "
                             f"({_pillow_reason(exc)})", **where) from None
    with image:
        yield image


def load_pixels(image: Image.Image, **where: Any) -> None:
    """Decode ``image``'s pixels now (Pillow decodes lazily), turning a damaged file's
    failure into an ImageLoadError."""
    try:
        image.load()
    except Image.DecompressionBombError as exc:
        raise ImageLoadError(f"not a readable image ({_pillow_reason(exc)})", **where) from None
    except Exception as exc:  # noqa: BLE001 - as in open_image
        name = ALLOWED_FORMATS.get(str(image.format), str(image.format))
        raise ImageLoadError(f"not a readable image: its {name} data is damaged or cut short "
                             f"({_pillow_reason(exc)})", **where) from None


def read_image_file(path: str | os.PathLike[str], **where: Any) -> Image.Image:
    """The decoded image in the file at ``path`` (a detached copy: no file stays open),
    checked as ``open_image`` checks; a file that cannot be read is an ImageLoadError
    naming it."""
    where.setdefault("resolved", os.fspath(path))
    try:
        data = read_bounded(path, MAX_IMAGE_FILE_BYTES)  # a device or a pipe is endless
    except InputTooLarge:
        raise ImageLoadError(f"the file holds more than the {MAX_IMAGE_FILE_BYTES // 2**20} MB an image file may "
                             "(lamina.limits.MAX_IMAGE_FILE_BYTES)", **where) from None
    except OSError as exc:
        raise ImageLoadError(f"cannot read the file: {exc.strerror or exc}", **where) from None
    with open_image(data, **where) as image:
        load_pixels(image, **where)
        return image.copy()
