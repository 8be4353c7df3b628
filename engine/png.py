"""Write straight RGBA8 pixels as a PNG, strip by strip: the encoder holds a few strips,
never the whole image, so a 16384 x 16384 frame can be saved while it is still coming
off the GPU.

Each row gets the PNG filter (None, Sub or Up) whose output has the smallest sum of
absolute values, libpng's heuristic. Strips are deflated in parallel threads (zlib
lets go of the GIL) as pigz does: each strip's deflate data ends on a byte boundary
(a sync flush), so the pieces join into one zlib stream, whose Adler-32 is summed over
the filtered rows in order. The result is a standard PNG; its bytes are not Pillow's.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO, Iterable

import numpy as np

from .errors import LaminaInputError
from .output_files import atomic_file
from .progress import step

__all__ = ["write_png", "encode_png", "filter_rows", "check_format"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def check_format(path: Path) -> None:
    """Refuse a file name whose extension promises another format: Lamina writes PNG
    (lossless, with alpha) only, and writing PNG bytes into x.jpg would mislead."""
    suffix = Path(path).suffix.lower()
    if suffix != ".png":
        raise LaminaInputError(f"cannot write {path}: Lamina writes PNG files only; name it "
                               f"{Path(path).with_suffix('.png').name}" + (f" (not {suffix})" if suffix else ""))
_NONE, _SUB, _UP = 0, 1, 2


def _chunk(out: BinaryIO, kind: bytes, data: bytes) -> None:
    out.write(struct.pack(">I", len(data)) + kind + data)
    out.write(struct.pack(">I", zlib.crc32(data, zlib.crc32(kind))))


def _cost(rows: np.ndarray) -> np.ndarray:
    """Per row: the sum of the filtered bytes read as signed (libpng's measure)."""
    return np.abs(rows.view(np.int8)).view(np.uint8).sum(axis=1, dtype=np.uint64)


def filter_rows(strip: np.ndarray, previous: np.ndarray | None) -> bytes:
    """The filtered scanlines (filter byte + row) of an (h, W, 4) uint8 strip;
    ``previous`` is the row above it (None at the top: Up then means None)."""
    h, w = strip.shape[:2]
    raw = np.ascontiguousarray(strip).reshape(h, w * 4)
    above = np.empty_like(raw)
    above[0] = previous.reshape(-1) if previous is not None else 0
    above[1:] = raw[:-1]
    up = raw - above  # uint8 arithmetic wraps, as PNG's filters do
    sub = raw.copy()
    sub[:, 4:] -= raw[:, :-4]
    costs = np.stack([_cost(raw), _cost(sub), _cost(up)])
    choice = costs.argmin(axis=0).astype(np.uint8)
    out = np.empty((h, w * 4 + 1), np.uint8)
    out[:, 0] = choice
    out[:, 1:] = raw
    for kind, rows in ((_SUB, sub), (_UP, up)):
        chosen = choice == kind
        out[chosen, 1:] = rows[chosen]
    return out.tobytes()


def _deflate(data: bytes, level: int, last: bool) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)  # raw deflate: the pieces join
    return compressor.compress(data) + compressor.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)


def encode_png(out: BinaryIO, width: int, height: int, strips: Iterable[np.ndarray], *, level: int = 6,
               threads: int | None = None) -> None:
    """Write a PNG of ``height`` rows to ``out`` from ``strips``, (h, width, 4) uint8
    straight RGBA arrays top to bottom, each used once and let go."""
    out.write(_SIGNATURE)
    _chunk(out, b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))  # 8-bit RGBA
    header = bytes([0x78, 0x9C if level == 6 else 0xDA if level > 6 else 0x01 if level < 2 else 0x5E])
    _chunk(out, b"IDAT", header)
    workers = max(1, threads or min(4, os.cpu_count() or 1))
    adler, rows, previous = 1, 0, None
    pending: deque[Future] = deque()
    with ThreadPoolExecutor(workers) as pool:
        def drain(keep: int) -> None:
            while len(pending) > keep:
                _chunk(out, b"IDAT", pending.popleft().result())

        for strip in strips:
            if strip.shape[1:] != (width, 4) or strip.dtype != np.uint8:
                raise ValueError(f"a strip of shape {strip.shape} {strip.dtype} in a {width}-px-wide RGBA8 PNG")
            rows += strip.shape[0]
            data = filter_rows(strip, previous)
            previous = strip[-1].copy()
            adler = zlib.adler32(data, adler)
            pending.append(pool.submit(_deflate, data, level, rows == height))
            drain(workers)  # a strip per thread in flight: memory stays a few strips
            step("writing PNG", rows, height)
        drain(0)
    if rows != height:
        raise ValueError(f"the strips hold {rows} rows, the PNG {height}")
    _chunk(out, b"IDAT", struct.pack(">I", adler))
    _chunk(out, b"IEND", b"")


def write_png(path: str | Path, width: int, height: int, strips: Iterable[np.ndarray], **options) -> Path:
    """``encode_png`` into the file at ``path``, atomically (lamina.output_files): the
    file appears whole or not at all, and a failure leaves the previous one intact."""
    with atomic_file(path) as out:
        encode_png(out, width, height, strips, **options)
    return Path(path)
