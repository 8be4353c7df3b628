"""Image sources -> premultiplied RGBA8 pixels, ready for upload.

Accepts numpy arrays ((H, W), (H, W, 3), (H, W, 4); uint8, or floats in [0, 1]),
Pillow images, file paths (relative to the scene's folder) and ``data:`` URLs. Every
failure is an ``ImageLoadError`` naming the layer and the source.
"""

from __future__ import annotations

import base64
import zlib
import binascii
import io
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, unquote_to_bytes, urlparse

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .css.values import ImageRef
from .errors import ImageLoadError

__all__ = ["load_image", "premultiply", "unpremultiply", "resolve_path", "encode_png_data_url", "ImageStore"]


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
    parsed = urlparse(url)
    if parsed.scheme == "file":
        path = Path(unquote(parsed.path))
    else:
        path = Path(url)
    if not path.is_absolute():
        path = (base_dir or Path.cwd()) / path
    return path


def _from_array(arr: Any, what: str) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.ndim == 2:
        arr = arr[..., None]
    if arr.ndim != 3 or arr.shape[2] not in (1, 3, 4):
        raise ImageLoadError(f"{what}: expected an array of shape (H, W), (H, W, 3) or (H, W, 4), got {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ImageLoadError(f"{what}: image is empty ({arr.shape[1]}x{arr.shape[0]})")
    if arr.dtype == np.uint8:
        data = arr
    elif np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ImageLoadError(f"{what}: float image contains NaN or infinity")
        data = np.clip(np.rint(arr * 255.0), 0, 255).astype(np.uint8)
    else:
        raise ImageLoadError(f"{what}: unsupported dtype {arr.dtype} (use uint8, or floats in [0, 1])")
    if data.shape[2] == 1:
        data = np.repeat(data, 3, axis=2)
    if data.shape[2] == 3:
        data = np.concatenate([data, np.full(data.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return np.ascontiguousarray(data)


_SIXTEEN_BIT_MODES = ("I;16", "I;16L", "I;16B", "I;16N", "I")


def _from_pil(image: Any, what: str = "image") -> np.ndarray:
    if image.mode in _SIXTEEN_BIT_MODES:
        # Pillow's convert() clips these to 0..255 instead of scaling: scale 16 -> 8 bits.
        grey = np.asarray(image, dtype=np.float64) / 257.0
        return _from_array(np.clip(np.rint(grey), 0, 255).astype(np.uint8), what)
    if image.mode == "F":
        raise ImageLoadError(f"{what}: 32-bit float images (mode F) are not supported; convert to 8 or 16 bits")
    return np.asarray(image.convert("RGBA"), dtype=np.uint8).copy()


def _open_bytes(data: bytes, what: str) -> np.ndarray:
    try:
        with Image.open(io.BytesIO(data)) as img:
            # Browsers honour EXIF orientation (image-orientation: from-image).
            return _from_pil(ImageOps.exif_transpose(img), what)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageLoadError(f"{what}: not a readable image ({exc})") from None


def _from_data_url(url: str, what: str) -> np.ndarray:
    header, sep, payload = url[5:].partition(",")
    if not sep:
        raise ImageLoadError(f"{what}: malformed data: URL (no comma)")
    if header.endswith(";base64"):
        try:
            raw = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ImageLoadError(f"{what}: malformed base64 in data: URL ({exc})") from None
    else:
        raw = unquote_to_bytes(payload)
    return _open_bytes(raw, what)


def load_image(ref: ImageRef, base_dir: Path | None = None, *, layer: str | None = None) -> np.ndarray:
    """Straight RGBA8 pixels (H, W, 4) of an image source."""
    what = f"layer {layer!r} image" if layer else "image"
    if ref.data is not None:
        data = ref.data
        if hasattr(data, "convert") and hasattr(data, "size"):
            return _from_pil(data, what)
        if isinstance(data, (bytes, bytearray)):
            return _open_bytes(bytes(data), what)
        return _from_array(data, what)
    url = ref.url or ""
    if url.startswith("data:"):
        return _from_data_url(url, what)
    try:
        scheme = urlparse(url).scheme
        path = resolve_path(url, base_dir)
    except ValueError as exc:
        raise ImageLoadError(f"{what}: malformed URL {url[:80]!r} ({exc})") from None
    if scheme not in ("", "file") and len(scheme) > 1:  # one letter = Windows drive
        raise ImageLoadError(f"{what}: only file paths and data: URLs are supported, got {url[:80]!r}")
    try:
        exists = path.is_file()
    except OSError as exc:  # e.g. a name too long for the file system
        raise ImageLoadError(f"{what}: cannot use path {str(path)[:80]!r}... ({exc.strerror})") from None
    if not exists:
        raise ImageLoadError(f"{what}: file not found: {path}")
    if not os.access(path, os.R_OK):
        raise ImageLoadError(f"{what}: file is not readable: {path}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImageLoadError(f"{what}: cannot read {path}: {exc.strerror}") from None
    return _open_bytes(raw, f"{what} {path}")


def encode_png_data_url(pixels: np.ndarray) -> str:
    """A ``data:image/png;base64,...`` URL holding straight RGBA8 pixels (lossless)."""
    buf = io.BytesIO()
    Image.fromarray(pixels, "RGBA").save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class ImageStore:
    """Decoded images (straight RGBA8) keyed by their source, kept while frames use them.

    Files are keyed by resolved path and modification time, so editing an image on disk
    is picked up; in-memory arrays by identity, and decoded once per frame (the caller
    may change them in place between frames). Images no frame used are dropped at
    ``end_frame``."""

    def __init__(self) -> None:
        self._cache: dict[Any, np.ndarray] = {}
        self._frame: dict[Any, np.ndarray] = {}

    def key(self, ref: ImageRef, base_dir: Path | None) -> Any:
        if ref.data is not None:
            return ("data", id(ref.data))
        url = ref.url or ""
        if url.startswith("data:"):
            return ("url", url)
        try:
            path = resolve_path(url, base_dir)
            mtime = path.stat().st_mtime_ns
        except (OSError, ValueError):
            return ("file", url, None)  # load_image reports the problem
        return ("file", str(path), mtime)

    def begin_frame(self) -> None:
        self._frame = {}

    def get(self, ref: ImageRef, base_dir: Path | None, layer: str) -> tuple[Any, np.ndarray]:
        key = self.key(ref, base_dir)
        pixels = self._frame.get(key)
        if pixels is None:
            pixels = None if key[0] == "data" else self._cache.get(key)
            if pixels is None:
                pixels = load_image(ref, base_dir, layer=layer)
            self._cache[key] = pixels
            self._frame[key] = pixels
        if key[0] == "data":
            # In-memory pixels can change in place: their content is part of the key, so
            # a layer showing them is re-rastered exactly when they change.
            key = key + (zlib.crc32(pixels), pixels.shape)
        return key, pixels

    def end_frame(self) -> set:
        """Drop images this frame did not use; return their keys."""
        stale = set(self._cache) - set(self._frame)
        for key in stale:
            del self._cache[key]
        return stale

    def __len__(self) -> int:
        return len(self._cache)
