"""Image sources -> decoded RGBA8 pixels, ready for upload (``ImageResource``: what a
frame graph carries for its raster passes, so it can run without the sources).

Accepts numpy arrays ((H, W), (H, W, 3), (H, W, 4); uint8, or floats in [0, 1]),
Pillow images, file paths (relative to the scene's folder, and read where the scene's
``FileAccess`` allows: see lamina.file_access) and ``data:`` URLs. Encoded images are decoded
only in the formats lamina.image_formats allows. Every failure is an
``ImageLoadError`` naming the layer, the source as written and the file it resolved to.
"""

from __future__ import annotations

import base64
import zlib
import binascii
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote_to_bytes, urlparse

import numpy as np
from PIL import Image, ImageOps

from .css.values import ImageRef
from .errors import ImageFormatError, ImageLoadError
from .bounded_read import InputTooLarge, read_bounded
from .limits import MAX_DATA_URL_BYTES, MAX_IMAGE_FILE_BYTES, MAX_IMAGE_PIXELS
from .file_access import FileAccess, url_path
from .image_formats import ALLOWED_FORMATS, ALLOWED_TEXT, load_pixels, open_image
from .named import NamedEnum

__all__ = ["load_image", "check_image_array", "premultiply", "unpremultiply", "resolve_path", "encode_png_data_url",
           "file_version", "ImageStore", "ImageResource", "ImageKey", "ImageSource"]


def premultiply(rgba: np.ndarray) -> np.ndarray:
    """Straight RGBA8 -> premultiplied RGBA8 (rounded to nearest)."""
    out = rgba.copy()
    a = rgba[..., 3:4].astype(np.uint32)
    out[..., :3] = ((rgba[..., :3].astype(np.uint32) * a + 127) // 255).astype(np.uint8)
    return out


def unpremultiply(rgba: np.ndarray) -> np.ndarray:
    """Premultiplied RGBA8 -> straight RGBA8; fully transparent pixels become (0,0,0,0)."""
    a = rgba[..., 3:4].astype(np.uint32)
    safe = np.maximum(a, 1)
    rgb = (rgba[..., :3].astype(np.uint32) * 255 + safe // 2) // safe
    rgb = np.where(a > 0, np.minimum(rgb, 255), 0).astype(np.uint8)
    return np.concatenate([rgb, rgba[..., 3:4]], axis=-1)


def resolve_path(url: str, base_dir: Path | None) -> Path:
    """The file a url names, relative to ``base_dir``, unchecked (see FileAccess.resolve)."""
    return url_path(url, base_dir)


def file_version(path: Path) -> tuple[int, int, int, int]:
    """What changes when the file at ``path`` does (OSError when it cannot be read): its
    modification time alone does not (a copy keeping times, ``os.utime``, or two writes
    inside one timestamp tick of the file system), so the change time, which no user can
    set and every write and utime moves, the size and the inode (a file replaced by a
    rename) are part of it too."""
    st = path.stat()
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def check_image_array(arr: np.ndarray, **where: Any) -> None:
    """Refuse an array that is not an image (shape, dtype) or whose float values are
    not colours in [0, 1]: they would be clipped, and a picture scaled 0..255 by mistake
    would silently turn white. ``where`` (layer=...) goes into the ImageLoadError."""
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (1, 3, 4)):
        raise ImageLoadError(f"expected an array of shape (H, W), (H, W, 3) or (H, W, 4), got {arr.shape}", **where)
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ImageLoadError(f"image is empty ({arr.shape[1]}x{arr.shape[0]})", **where)
    if arr.dtype == np.uint8:
        return
    if not np.issubdtype(arr.dtype, np.floating):
        raise ImageLoadError(f"unsupported dtype {arr.dtype} (use uint8, or floats in [0, 1])", **where)
    if not np.all(np.isfinite(arr)):
        raise ImageLoadError("float image contains NaN or infinity", **where)
    outside = (arr < 0) | (arr > 1)
    if outside.any():
        at = tuple(int(i) for i in np.argwhere(outside)[0])
        raise ImageLoadError(
            f"float image values must be in [0, 1], found {float(arr[at]):g} at index {at} "
            "(uint8 arrays hold 0..255; floats are not clipped)", **where)


def _from_array(arr: Any, where: dict) -> np.ndarray:
    try:
        arr = np.asarray(arr)
    except (ValueError, TypeError) as exc:  # ragged nested lists and the like
        raise ImageLoadError(f"not an image array ({exc})", **where) from None
    check_image_array(arr, **where)
    _check_pixels((arr.shape[1], arr.shape[0]), where)
    if arr.ndim == 2:
        arr = arr[..., None]
    data = arr if arr.dtype == np.uint8 else np.rint(arr * 255.0).astype(np.uint8)
    if data.shape[2] == 1:
        data = np.repeat(data, 3, axis=2)
    if data.shape[2] == 3:
        data = np.concatenate([data, np.full(data.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return np.ascontiguousarray(data)


_SIXTEEN_BIT_MODES = ("I;16", "I;16L", "I;16B", "I;16N", "I")


def _from_pil(image: Any, where: dict) -> np.ndarray:
    if image.mode in _SIXTEEN_BIT_MODES:
        # Pillow's convert() clips these to 0..255 instead of scaling: scale 16 -> 8 bits.
        grey = np.asarray(image, dtype=np.float64) / 257.0
        return _from_array(np.clip(np.rint(grey), 0, 255).astype(np.uint8), where)
    if image.mode == "F":
        raise ImageLoadError("32-bit float images (mode F) are not supported; convert to 8 or 16 bits", **where)
    return np.asarray(image.convert("RGBA"), dtype=np.uint8).copy()


def _open_bytes(data: bytes, where: dict) -> np.ndarray:
    # The one way encoded bytes are decoded: the format is checked from its first bytes
    # before Pillow sees them (lamina.image_formats), and errors never show the bytes.
    with open_image(data, **where) as img:
        _check_pixels(img.size, where)  # before decoding: a small file can hold a huge image
        load_pixels(img, **where)
        try:
            # Browsers honour EXIF orientation (image-orientation: from-image).
            upright = ImageOps.exif_transpose(img)
        except Exception:  # noqa: BLE001 - damaged EXIF: Pillow raises many kinds; keep the pixels as stored
            upright = img
        return _from_pil(upright, where)


def _check_pil_format(image: Any, where: dict) -> None:
    """Refuse a Pillow image opened from a format Lamina does not decode: Pillow decodes
    lazily, so converting it here would run that format's decoder (for EPS, Ghostscript).
    Images made in memory (``format`` None) and converted ones are fine."""
    fmt = getattr(image, "format", None)
    if fmt is not None and fmt not in ALLOWED_FORMATS and fmt != "MPO":  # MPO: a JPEG with more frames
        raise ImageFormatError(f"a Pillow image opened as {fmt}, which Lamina does not decode (it reads "
                               f"{ALLOWED_TEXT}); if you trust the file, pass image.convert('RGBA')", **where)


def _check_pixels(size: tuple[int, int], where: dict) -> None:
    w, h = size
    if w * h > MAX_IMAGE_PIXELS:
        raise ImageLoadError(f"the image is {w}x{h} px, more than the {MAX_IMAGE_PIXELS // 2**20} Mpx an image may have "
                             "(lamina.limits.MAX_IMAGE_PIXELS; a decompression bomb, or an image to make smaller)",
                             **where)


def _from_data_url(url: str, where: dict) -> np.ndarray:
    if len(url) > MAX_DATA_URL_BYTES:
        raise ImageLoadError(f"the data: URL is {len(url) / 2**20:.1f} MB, more than the "
                             f"{MAX_DATA_URL_BYTES // 2**20} MB one may be (lamina.limits.MAX_DATA_URL_BYTES)", **where)
    header, sep, payload = url[5:].partition(",")
    if not sep:
        raise ImageLoadError("malformed data: URL (no comma)", **where)
    if header.endswith(";base64"):
        try:
            raw = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ImageLoadError(f"malformed base64 in data: URL ({exc})", **where) from None
    else:
        raw = unquote_to_bytes(payload)
    return _open_bytes(raw, where)


def _policy(ref: ImageRef, base_dir: Path | None, access: FileAccess | None) -> FileAccess:
    """Where ``ref``'s file may be read from: the scene's policy, except for a path the
    Python caller gave itself (ImageRef.unconfined), which is read wherever it points."""
    if access is None:
        return FileAccess.unrestricted(base_dir)
    if ref.unconfined:
        return FileAccess.unrestricted(access.base_dir)
    return access


def load_image(ref: ImageRef, base_dir: Path | None = None, *, layer: str | None = None,
               access: FileAccess | None = None) -> np.ndarray:
    """Straight RGBA8 pixels (H, W, 4) of an image source.

    Paths are relative to ``base_dir`` and unrestricted, unless ``access`` (the scene's
    FileAccess, which then also gives the folder) confines them."""
    where: dict[str, Any] = {"layer": layer, "file": access.scene_file if access is not None else None}
    if ref.data is not None:
        data = ref.data
        if hasattr(data, "convert") and hasattr(data, "size"):
            _check_pil_format(data, where)
            return _from_pil(data, where)
        if isinstance(data, (bytes, bytearray)):
            return _open_bytes(bytes(data), where)
        return _from_array(data, where)
    url = ref.url or ""
    where["url"] = url
    if url.startswith("data:"):
        return _from_data_url(url, where)
    try:
        scheme = urlparse(url).scheme
    except ValueError as exc:
        raise ImageLoadError(f"malformed URL ({exc})", **where) from None
    if scheme not in ("", "file") and len(scheme) > 1:  # one letter = Windows drive
        raise ImageLoadError("only file paths and data: URLs are supported", **where)
    try:
        path = _policy(ref, base_dir, access).resolve(url, layer=layer)
    except ValueError as exc:  # e.g. a NUL character in the path
        raise ImageLoadError(f"malformed URL ({exc})", **where) from None
    where["resolved"] = str(path)
    try:
        exists = path.is_file()
    except OSError as exc:  # e.g. a name too long for the file system
        raise ImageLoadError(f"cannot use this path ({exc.strerror})", **where) from None
    if not exists:
        raise ImageLoadError("file not found", **where)
    if not os.access(path, os.R_OK):
        raise ImageLoadError("file is not readable", **where)
    try:
        raw = read_bounded(path, MAX_IMAGE_FILE_BYTES)  # capped: the file may grow after is_file()
    except InputTooLarge:
        raise ImageLoadError(f"the file holds more than the {MAX_IMAGE_FILE_BYTES // 2**20} MB an image file may "
                             "(lamina.limits.MAX_IMAGE_FILE_BYTES)", **where) from None
    except OSError as exc:
        raise ImageLoadError(f"cannot read the file: {exc.strerror}", **where) from None
    return _open_bytes(raw, where)


def encode_png_data_url(pixels: np.ndarray) -> str:
    """A ``data:image/png;base64,...`` URL holding straight RGBA8 pixels (lossless)."""
    buf = io.BytesIO()
    Image.fromarray(pixels, "RGBA").save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class ImageSource(NamedEnum):
    """Where an image's pixels come from: an array in memory, a ``data:`` URL, a file. A
    ``str`` (``ImageSource.FILE == "file"``, same hash and format), as the keys' first
    item always read."""

    DATA = "data"
    URL = "url"
    FILE = "file"


class ImageKey(NamedTuple):
    """The key of an image's pixels (ImagePaint.key): its source, where it is there (the
    array's identity, the URL, the resolved path or, when it cannot be resolved, the URL
    as written) and which version of it (a file's ``file_version``; an array's content
    checksum and shape, which ``ImageStore.get`` adds to the key it looked up by)."""

    source: ImageSource
    where: Any
    version: Any = None

    @property
    def identity(self) -> "ImageKey":
        """The key of the source whatever its content: an array's without its checksum
        (arrays change in place; a file's new content has a new modification time)."""
        return self._replace(version=None) if self.source is ImageSource.DATA else self


@dataclass(frozen=True)
class ImageResource:
    """One decoded image a frame graph carries: straight RGBA8 ``pixels`` (H, W, 4),
    read-only, that the executor uploads (and premultiplies on the GPU). ``key`` is the
    ImagePaint.key that raster passes refer to it by; resources compare by key and size
    (the key holds an in-memory image's checksum, a file's modification time)."""

    key: Any
    width: int
    height: int
    pixels: np.ndarray = field(compare=False, repr=False)


class ImageStore:
    """Decoded images (straight RGBA8) keyed by their source, kept while frames use them.

    Files are keyed by resolved path and modification time, so editing an image on disk
    is picked up; in-memory arrays by identity, and decoded once per frame (the caller
    may change them in place between frames). Images no frame used are dropped at
    ``end_frame``. What a frame looked up is also an ``ImageResource`` (``resource``):
    pixels the store owns, never the caller's array, so a planned graph keeps the
    pixels it was planned with.

    Where files may be read is the drawn scene's ``FileAccess``, given to ``begin_frame``
    (then ``base_dir`` arguments are that policy's folder); it is checked on every
    lookup, before the cache, so a file decoded for one scene is never handed to a
    scene that may not read it. Without one, paths are read unrestricted from
    ``base_dir`` (the Python API)."""

    def __init__(self) -> None:
        self._cache: dict[Any, ImageResource] = {}
        self._frame: dict[Any, ImageResource] = {}
        self._resources: dict[Any, ImageResource] = {}  # by full key, this frame's
        self._access: FileAccess | None = None

    def key(self, ref: ImageRef, base_dir: Path | None, layer: str | None = None) -> ImageKey:
        """The cache key of ``ref``'s pixels; FileAccessError if the policy refuses it."""
        if ref.data is not None:
            return ImageKey(ImageSource.DATA, id(ref.data))
        url = ref.url or ""
        if url.startswith("data:"):
            return ImageKey(ImageSource.URL, url)
        try:
            # A FileAccessError (refused) propagates: nothing about the file is looked at.
            path = _policy(ref, base_dir, self._access).resolve(url, layer=layer)
            version = file_version(path)
        except (OSError, ValueError):
            return ImageKey(ImageSource.FILE, url)  # load_image reports the problem
        return ImageKey(ImageSource.FILE, str(path), version)

    def begin_frame(self, access: FileAccess | None = None) -> None:
        """Start a frame of a scene whose files may be read as ``access`` says."""
        self._frame = {}
        self._resources = {}
        self._access = access

    def get(self, ref: ImageRef, base_dir: Path | None, layer: str) -> tuple[Any, np.ndarray]:
        """The full key of ``ref``'s pixels and the pixels (read-only)."""
        key = self.key(ref, base_dir, layer)
        resource = self._frame.get(key)
        if resource is None:
            resource = self._cache.get(key)
            if key.source is ImageSource.DATA:
                # In-memory pixels can change in place: decoded again each frame, and their
                # content is part of the key, so a layer showing them is re-rastered (and
                # its pixels copied again) exactly when they change.
                pixels = load_image(ref, base_dir, layer=layer, access=self._access)
                full = key._replace(version=(zlib.crc32(pixels), pixels.shape))
                if resource is None or resource.key != full:
                    resource = _resource(full, _owned(pixels, ref.data))
            elif resource is None:
                resource = _resource(key, load_image(ref, base_dir, layer=layer, access=self._access))
            self._cache[key] = resource
            self._frame[key] = resource
            self._resources[resource.key] = resource
        return resource.key, resource.pixels

    def resource(self, key: Any) -> ImageResource | None:
        """The pixels a lookup of this frame gave under ``key`` (a full key from ``get``),
        None if no lookup of this frame did."""
        return self._resources.get(key)

    def end_frame(self) -> set:
        """Drop images this frame did not use; return their keys."""
        stale = set(self._cache) - set(self._frame)
        for key in stale:
            del self._cache[key]
        return stale

    def __len__(self) -> int:
        return len(self._cache)


def _owned(pixels: np.ndarray, source: Any) -> np.ndarray:
    """``pixels``, copied when they are the caller's own array (decoding an RGBA8 array
    returns it as it is), so what a graph carries cannot change under it."""
    if isinstance(source, np.ndarray) and np.may_share_memory(pixels, source):
        return pixels.copy()
    return pixels


def _resource(key: Any, pixels: np.ndarray) -> ImageResource:
    pixels.flags.writeable = False  # shared by every graph that draws it
    return ImageResource(key, pixels.shape[1], pixels.shape[0], pixels)
