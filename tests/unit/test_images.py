"""lamina.images: premultiplication exactness, array/Pillow/file/data: URL sources, errors."""

from __future__ import annotations

import base64
import io
import os
from fractions import Fraction
from urllib.parse import quote_from_bytes

import numpy as np
import pytest
from PIL import Image

from lamina.errors import ImageLoadError, LaminaInputError
from lamina.images import ImageStore, encode_png_data_url, load_image, premultiply, resolve_path, unpremultiply
from lamina.css.values import ImageRef


def all_pairs():
    """(256*256, 4) straight RGBA pixels: every (value, alpha) pair, value in all of RGB."""
    v, a = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    v, a = v.ravel(), a.ravel()
    return np.stack([v, v, 255 - v, a], axis=-1).astype(np.uint8)


# -- premultiply / unpremultiply --------------------------------------------------------------


def test_premultiply_is_exactly_rounded_for_every_value_alpha_pair():
    px = all_pairs()
    out = premultiply(px)
    assert out.dtype == np.uint8 and out.shape == px.shape
    c = px[:, :3].astype(np.float64)
    a = px[:, 3:4].astype(np.float64)
    # Independent formula: nearest integer to c * a / 255 (c * a / 255 is never exactly
    # k + 1/2 since 255 is odd, so the rounding mode does not matter).
    expected = np.floor(c * a / 255.0 + 0.5)
    assert np.abs(out[:, :3].astype(np.float64) - expected).max() == 0
    np.testing.assert_array_equal(out[:, 3], px[:, 3])


def test_premultiply_edge_alphas_and_no_mutation():
    px = all_pairs()
    copy = px.copy()
    out = premultiply(px)
    np.testing.assert_array_equal(px, copy)
    opaque = px[:, 3] == 255
    np.testing.assert_array_equal(out[opaque], px[opaque])
    clear = px[:, 3] == 0
    assert not out[clear][:, :3].any()


def test_unpremultiply_matches_exact_rational_rounding():
    p, a = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    p, a = p.ravel(), a.ravel()
    px = np.stack([p, p, p, a], axis=-1).astype(np.uint8)
    out = unpremultiply(px)
    assert out.dtype == np.uint8 and out.shape == px.shape
    np.testing.assert_array_equal(out[:, 3], a)
    # Spot-check the rounding with exact fractions (round half up, clamp to 255).
    for pi, ai in [(1, 2), (1, 3), (2, 3), (127, 254), (128, 255), (5, 10), (3, 7), (200, 100), (255, 1)]:
        expected = min(255, int(Fraction(pi * 255, ai) + Fraction(1, 2)))
        assert out[pi * 256 + ai, 0] == expected, (pi, ai)
    # Vectorised: nearest integer to p * 255 / a (halves up), clamped; 0 where a == 0.
    num = p.astype(np.int64) * 255 * 2 + a
    den = 2 * np.maximum(a, 1)
    expected = np.where(a > 0, np.minimum(num // den, 255), 0)
    np.testing.assert_array_equal(out[:, 0], expected)
    assert not out[a == 0][:, :3].any()


def test_unpremultiply_of_premultiply_within_quantisation_bound():
    px = all_pairs()
    back = unpremultiply(premultiply(px))
    a = px[:, 3].astype(np.float64)
    err = np.abs(back[:, :3].astype(np.int64) - px[:, :3].astype(np.int64)).max(axis=1)
    # premultiply errs by <= 1/2 of a unit, which unpremultiply scales by 255/a, then
    # rounds again (another 1/2).
    bound = np.where(a > 0, 0.5 * 255.0 / np.maximum(a, 1) + 0.5, 0)
    visible = a > 0
    assert np.all(err[visible] <= bound[visible] + 1e-9)
    # Opaque pixels round-trip exactly; transparent ones become (0, 0, 0, 0).
    np.testing.assert_array_equal(back[a == 255], px[a == 255])
    assert not back[a == 0].any()
    np.testing.assert_array_equal(back[:, 3], px[:, 3])


def test_premultiply_round_trip_is_identity_for_premultiplied_input(rng):
    """premultiply(unpremultiply(p)) == p for every valid premultiplied pixel."""
    a = rng.integers(0, 256, 20000)
    c = (rng.random((20000, 3)) * (a[:, None] + 1)).astype(np.int64)
    c = np.minimum(c, a[:, None])
    px = np.concatenate([c, a[:, None]], axis=1).astype(np.uint8)
    np.testing.assert_array_equal(premultiply(unpremultiply(px)), px)


def test_premultiply_works_on_image_shapes(rng):
    img = rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)
    flat = premultiply(img.reshape(-1, 4)).reshape(img.shape)
    np.testing.assert_array_equal(premultiply(img), flat)
    np.testing.assert_array_equal(unpremultiply(img), unpremultiply(img.reshape(-1, 4)).reshape(img.shape))


# -- arrays -----------------------------------------------------------------------------------


def test_grey_array_becomes_opaque_rgba(rng):
    grey = rng.integers(0, 256, (4, 6), dtype=np.uint8)
    out = load_image(ImageRef(data=grey))
    assert out.shape == (4, 6, 4) and out.dtype == np.uint8
    for ch in range(3):
        np.testing.assert_array_equal(out[..., ch], grey)
    assert (out[..., 3] == 255).all()


def test_single_channel_array(rng):
    grey = rng.integers(0, 256, (3, 2, 1), dtype=np.uint8)
    out = load_image(ImageRef(data=grey))
    np.testing.assert_array_equal(out[..., :3], np.repeat(grey, 3, axis=2))


def test_rgb_array_gets_opaque_alpha(rng):
    rgb = rng.integers(0, 256, (3, 5, 3), dtype=np.uint8)
    out = load_image(ImageRef(data=rgb))
    np.testing.assert_array_equal(out[..., :3], rgb)
    assert (out[..., 3] == 255).all()


def test_rgba_array_is_returned_unchanged_and_contiguous(rng):
    rgba = rng.integers(0, 256, (8, 8, 4), dtype=np.uint8)
    view = rgba[::2, ::-1]  # non-contiguous
    out = load_image(ImageRef(data=view))
    np.testing.assert_array_equal(out, view)
    assert out.flags["C_CONTIGUOUS"]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_arrays_are_scaled_and_rounded(rng, dtype):
    f = rng.uniform(0.0, 1.0, (6, 5, 4)).astype(dtype)
    f[0, 0] = (0.0, 1.0, 0.5, 1 / 255)
    out = load_image(ImageRef(data=f))
    assert out.dtype == np.uint8
    expected = np.rint(f.astype(np.float64) * 255.0)
    assert np.abs(out.astype(np.int64) - expected).max() <= (1 if dtype == np.float16 else 0)
    assert tuple(out[0, 0]) == (0, 255, 128 if dtype != np.float16 else out[0, 0, 2], 1)


@pytest.mark.parametrize("bad, shown", [(1.5, "1.5"), (-0.25, "-0.25"), (255.0, "255")])
def test_float_values_outside_0_1_are_refused_not_clipped(bad, shown):
    f = np.full((3, 4, 4), 0.5, np.float32)
    f[2, 1, 3] = bad
    with pytest.raises(ImageLoadError) as info:
        load_image(ImageRef(data=f), layer="hero")
    msg = str(info.value)
    assert "layer 'hero'" in msg and "[0, 1]" in msg and f"found {shown} at index (2, 1, 3)" in msg
    assert info.value.layer == "hero"


def test_float_grey_and_rgb_arrays():
    out = load_image(ImageRef(data=np.full((2, 2), 0.5)))
    assert tuple(out[0, 0]) == (128, 128, 128, 255)
    out = load_image(ImageRef(data=np.zeros((2, 2, 3), np.float32)))
    assert tuple(out[1, 1]) == (0, 0, 0, 255)


@pytest.mark.parametrize(
    "data, fragment",
    [
        (np.zeros((2, 2, 4), np.int32), "dtype"),
        (np.zeros((2, 2, 4), np.uint16), "dtype"),
        (np.zeros((2, 2), bool), "dtype"),
        (np.zeros((2, 2, 4), np.complex64), "dtype"),
        (np.zeros((2, 2, 2), np.uint8), "shape"),
        (np.zeros((2, 2, 5), np.uint8), "shape"),
        (np.zeros(4, np.uint8), "shape"),
        (np.zeros((1, 2, 2, 4), np.uint8), "shape"),
        (np.zeros((0, 3, 4), np.uint8), "empty"),
        (np.zeros((3, 0), np.uint8), "empty"),
        (np.array([[[0.1, np.nan, 0.2, 1.0]]]), "NaN"),
        (np.array([[np.inf, 0.5]]), "NaN or infinity"),
    ],
)
def test_bad_arrays_raise_image_load_error_naming_layer(data, fragment):
    with pytest.raises(ImageLoadError) as info:
        load_image(ImageRef(data=data), layer="hero")
    assert isinstance(info.value, LaminaInputError)
    assert "layer 'hero'" in str(info.value)
    assert fragment in str(info.value)


def test_pillow_images_and_png_bytes(rng):
    rgba = rng.integers(0, 256, (4, 3, 4), dtype=np.uint8)
    pil = Image.fromarray(rgba, "RGBA")
    np.testing.assert_array_equal(load_image(ImageRef(data=pil)), rgba)
    grey = Image.fromarray(rgba[..., 0], "L")
    out = load_image(ImageRef(data=grey))
    np.testing.assert_array_equal(out[..., 1], rgba[..., 0])
    assert (out[..., 3] == 255).all()
    buf = io.BytesIO()
    pil.save(buf, format="PNG")
    np.testing.assert_array_equal(load_image(ImageRef(data=buf.getvalue())), rgba)
    with pytest.raises(ImageLoadError, match="not a readable image"):
        load_image(ImageRef(data=b"not an image"))


# -- files ----------------------------------------------------------------------------------


def save_png(path, rgba):
    Image.fromarray(rgba, "RGBA").save(path, format="PNG")


def test_png_file_absolute_relative_and_file_url(tmp_path, rng):
    rgba = rng.integers(0, 256, (5, 4, 4), dtype=np.uint8)
    (tmp_path / "sub").mkdir()
    save_png(tmp_path / "sub" / "p.png", rgba)
    np.testing.assert_array_equal(load_image(ImageRef(url=str(tmp_path / "sub" / "p.png"))), rgba)
    np.testing.assert_array_equal(load_image(ImageRef(url="sub/p.png"), tmp_path), rgba)
    np.testing.assert_array_equal(load_image(ImageRef(url="p.png"), tmp_path / "sub"), rgba)
    url = (tmp_path / "sub" / "p.png").as_uri()
    np.testing.assert_array_equal(load_image(ImageRef(url=url)), rgba)
    assert resolve_path("sub/p.png", tmp_path) == tmp_path / "sub" / "p.png"


def test_file_url_with_escaped_space(tmp_path, rng):
    rgba = rng.integers(0, 256, (2, 2, 4), dtype=np.uint8)
    save_png(tmp_path / "a b.png", rgba)
    np.testing.assert_array_equal(load_image(ImageRef(url=(tmp_path / "a b.png").as_uri())), rgba)


def test_jpeg_file_loads_as_opaque_rgba(tmp_path):
    Image.new("RGB", (3, 2), (255, 0, 0)).save(tmp_path / "r.jpg", format="JPEG", quality=100)
    out = load_image(ImageRef(url="r.jpg"), tmp_path)
    assert out.shape == (2, 3, 4)
    assert (out[..., 3] == 255).all()
    assert out[..., 0].min() > 240 and out[..., 1].max() < 15


def test_missing_file_names_the_resolved_path(tmp_path):
    with pytest.raises(ImageLoadError) as info:
        load_image(ImageRef(url="nope/missing.png"), tmp_path, layer="bg")
    msg = str(info.value)
    assert "layer 'bg'" in msg
    assert str(tmp_path / "nope" / "missing.png") in msg
    assert "not found" in msg


def test_directory_is_not_an_image(tmp_path):
    with pytest.raises(ImageLoadError, match="not found"):
        load_image(ImageRef(url=str(tmp_path)))


def test_not_an_image_file_names_the_path(tmp_path):
    path = tmp_path / "fake.png"
    path.write_text("hello, not a PNG")
    with pytest.raises(ImageLoadError) as info:
        load_image(ImageRef(url="fake.png"), tmp_path, layer="bg")
    msg = str(info.value)
    assert str(path) in msg and "not a readable image" in msg and "layer 'bg'" in msg


def test_truncated_png_file(tmp_path, rng):
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (64, 64, 4), dtype=np.uint8), "RGBA").save(buf, format="PNG")
    path = tmp_path / "cut.png"
    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    with pytest.raises(ImageLoadError) as info:
        load_image(ImageRef(url=str(path)))
    assert str(path) in str(info.value)


def test_unreadable_file(tmp_path, monkeypatch):
    # Simulated: as root (CI) chmod 0 does not stop reads, so fail the OS calls instead.
    path = tmp_path / "locked.png"
    save_png(path, np.zeros((1, 1, 4), np.uint8))
    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    with pytest.raises(ImageLoadError, match="not readable") as info:
        load_image(ImageRef(url=str(path)))
    assert str(path) in str(info.value)


def test_read_error_is_an_image_load_error(tmp_path, monkeypatch):
    path = tmp_path / "flaky.png"
    save_png(path, np.zeros((1, 1, 4), np.uint8))

    def fail(path, limit):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("lamina.images.read_bounded", fail)  # files are read with a cap (lamina.bounded_read)
    with pytest.raises(ImageLoadError, match="Permission denied") as info:
        load_image(ImageRef(url=str(path)))
    assert str(path) in str(info.value)


@pytest.mark.parametrize("url", ["http://example.com/a.png", "https://x/y.png", "ftp://h/f.png"])
def test_remote_urls_are_rejected(url):
    with pytest.raises(ImageLoadError, match="only file paths and data: URLs"):
        load_image(ImageRef(url=url))


# -- data: URLs -------------------------------------------------------------------------------


def test_data_url_round_trip_is_lossless(rng):
    for shape in [(1, 1, 4), (3, 17, 4), (32, 5, 4)]:
        rgba = rng.integers(0, 256, shape, dtype=np.uint8)
        rgba[..., 3][rgba[..., 3] < 30] = 0  # include fully transparent pixels with colour
        url = encode_png_data_url(rgba)
        assert url.startswith("data:image/png;base64,")
        base64.b64decode(url.split(",", 1)[1], validate=True)
        np.testing.assert_array_equal(load_image(ImageRef(url=url)), rgba)


def test_percent_encoded_data_url():
    """RFC 2397 data: URLs without ;base64 carry percent-encoded bytes (binary included)."""
    rgba = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4) * 10
    buf = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(buf, format="PNG")
    url = "data:image/png," + quote_from_bytes(buf.getvalue())
    np.testing.assert_array_equal(load_image(ImageRef(url=url)), rgba)


@pytest.mark.parametrize(
    "url, fragment",
    [
        ("data:image/png;base64,@@@@", "base64"),
        ("data:image/png;base64,abc", "base64"),  # bad padding
        ("data:image/png;base64", "no comma"),
        ("data:image/png;base64," + base64.b64encode(b"hello").decode(), "not a readable image"),
        ("data:,", "not a readable image"),
    ],
)
def test_bad_data_urls(url, fragment):
    with pytest.raises(ImageLoadError) as info:
        load_image(ImageRef(url=url), layer="d")
    assert fragment in str(info.value)
    assert "layer 'd'" in str(info.value)


def test_a_file_replaced_keeping_its_modification_time_is_read_again(tmp_path):
    """ImageStore keys a file by lamina.images.file_version: other pixels written with
    the old mtime put back (a copy keeping times, os.utime, two writes in one timestamp
    tick) are a new key and read again, not the cached decode (nor its texture)."""
    path = tmp_path / "pic.png"
    Image.fromarray(np.full((3, 5, 4), 200, np.uint8), "RGBA").save(path)
    store = ImageStore()
    store.begin_frame()
    key, first = store.get(ImageRef(url="pic.png"), tmp_path, "layer")
    st = path.stat()
    Image.fromarray(np.full((3, 5, 4), 30, np.uint8), "RGBA").save(path)  # same size, other pixels
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns
    store.begin_frame()
    again, pixels = store.get(ImageRef(url="pic.png"), tmp_path, "layer")
    assert first[0, 0, 0] == 200 and pixels[0, 0, 0] == 30 and again != key
