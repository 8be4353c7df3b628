"""lamina.png: PNGs written strip by strip decode (with Pillow) to the very pixels given,
whatever the strips, the filters chosen per row and the threads deflating."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from lamina.png import encode_png, filter_rows, write_png


def decode(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        assert image.mode == "RGBA"
        return np.asarray(image).copy()


def encode(image: np.ndarray, rows: int, **options) -> bytes:
    buffer = io.BytesIO()
    h, w = image.shape[:2]
    encode_png(buffer, w, h, (image[y:y + rows] for y in range(0, h, rows)), **options)
    return buffer.getvalue()


def test_round_trip_for_any_strips_and_threads(rng):
    image = rng.integers(0, 256, (61, 47, 4), dtype=np.uint8)
    image[10:30] = image[10]  # rows equal to the one above: Up wins there
    image[40:50, :, :] = np.arange(47)[None, :, None] * 3  # horizontal ramps: Sub wins
    for rows in (1, 7, 61, 100):
        for threads in (1, 3):
            assert np.array_equal(decode(encode(image, rows, threads=threads)), image), (rows, threads)


def test_tiny_and_flat_images(tmp_path):
    one = np.array([[[1, 2, 3, 4]]], np.uint8)
    assert np.array_equal(decode(encode(one, 1)), one)
    flat = np.full((300, 500, 4), (250, 240, 230, 255), np.uint8)
    data = encode(flat, 64)
    assert np.array_equal(decode(data), flat) and len(data) < 5000, "flat rows deflate to almost nothing"
    path = write_png(tmp_path / "flat.png", 500, 300, [flat])
    assert np.array_equal(decode(path.read_bytes()), flat)


def test_each_row_gets_the_cheapest_filter():
    ramp = np.tile((np.arange(16, dtype=np.uint8) * 9)[None, :, None], (3, 1, 4))  # same rows, a ramp across
    data = np.frombuffer(filter_rows(ramp, None), np.uint8).reshape(3, 16 * 4 + 1)
    assert data[0, 0] == 1, "the first row: Sub (Up would be the row itself)"
    assert list(data[1:, 0]) == [2, 2], "rows equal to the one above: Up, all zeros"
    assert not data[1:, 1:].any()


def test_strips_that_do_not_add_up_are_refused():
    image = np.zeros((4, 3, 4), np.uint8)
    with pytest.raises(ValueError, match="hold 3 rows"):
        encode_png(io.BytesIO(), 3, 4, [image[:3]])
    with pytest.raises(ValueError, match="3-px-wide"):
        encode_png(io.BytesIO(), 3, 4, [np.zeros((4, 5, 4), np.uint8)])
