"""GLSL filter passes and the same plans as OpenCL kernels against the float64 reference
(filters.reference), with the same tolerances, on seeded random images with random alpha.
Comparisons are in premultiplied RGBA8, the pipeline's own representation (straight
colour of a nearly transparent pixel is not meaningful)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.errors import LaminaInputError
from lamina.css.values import RGBA
from lamina.filters.ops import Brightness, Contrast, Grayscale, HueRotate, Invert, Opacity, Saturate, Sepia


def random_image(rng, h=29, w=41, transparent_border=0):
    """Random premultiplied RGBA8 with random alpha (colour <= alpha)."""
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
    if transparent_border:
        b = transparent_border
        img[:b] = 0
        img[-b:] = 0
        img[:, :b] = 0
        img[:, -b:] = 0
    return img


@pytest.fixture(params=["gl", "opencl"])
def backend(request):
    """Each accuracy test runs on both executors of a filter plan."""
    return request.param


def compare(backend, rng, text, *, image=None, current_color=None):
    img = random_image(rng) if image is None else image
    kwargs = {"premultiplied": True}
    if current_color is not None:
        kwargs["current_color"] = current_color
    out = filters.apply(img, text, backend, **kwargs).astype(int)
    ref = filters.apply(img, text, "reference", **kwargs).astype(int)
    assert out.shape == img.shape
    return np.abs(out - ref)


AMOUNTS = {
    "grayscale": ["0", "0.3", "1", "250%"],
    "sepia": ["0", "0.5", "1", "2"],
    "saturate": ["0", "0.5", "1", "2.5", "900%"],
    "hue-rotate": ["-90deg", "0", "45deg", "400deg", "1rad", "0.5turn", "-1000grad"],
    "invert": ["0", "0.3", "0.5", "1"],
    "opacity": ["0", "0.5", "1", "3"],
    "brightness": ["0", "0.6", "1", "1.8", "4"],
    "contrast": ["0", "0.4", "1", "2.2", "10"],
}
COLOR_CASES = [f"{name}({amount})" for name, amounts in AMOUNTS.items() for amount in amounts]


@pytest.mark.parametrize("text", COLOR_CASES)
def test_colour_functions_match_reference(gl, rng, backend, text):
    assert compare(backend, rng, text).max() <= 1


def _random_colour_chain(rng, n):
    ops = []
    for _ in range(n):
        name = rng.choice(list(AMOUNTS))
        value = float(rng.uniform(0, 2.5))
        if name == "hue-rotate":
            ops.append(f"hue-rotate({rng.uniform(-720, 720):.3f}deg)")
        else:
            ops.append(f"{name}({value:.3f})")
    return " ".join(ops)


@pytest.mark.parametrize("round_", range(8))
def test_fused_colour_chains_match_reference(gl, rng, backend, round_):
    text = _random_colour_chain(rng, int(rng.integers(2, 12)))
    assert compare(backend, rng, text).max() <= 1, text


def test_clamping_between_steps_is_what_makes_fusion_exact(gl, rng):
    # brightness(3) saturates channels; contrast(0.2) then pulls them back. With the
    # clamp between steps (the spec) the result differs from one product matrix.
    chain = filters.parse("brightness(3) contrast(0.2) saturate(3) hue-rotate(70deg)")
    img = random_image(rng, 40, 40)
    img[..., 3] = 255
    img[..., :3] = rng.integers(0, 256, (40, 40, 3), dtype=np.uint8)
    gl_out = filters.apply(img, chain, premultiplied=True).astype(int)
    ref = filters.apply(img, chain, "reference", premultiplied=True).astype(int)
    assert np.abs(gl_out - ref).max() <= 1
    product = np.eye(5)
    for op in chain:
        m = np.vstack([op.matrix(), [0, 0, 0, 0, 1]])
        product = m @ product
    rgba1 = np.concatenate([img / 255.0, np.ones((40, 40, 1))], axis=-1)
    single = np.clip(rgba1 @ product[:4].T, 0, 1)
    single_u8 = np.rint(single * 255).astype(int)
    assert np.abs(single_u8[..., :3] - ref[..., :3]).max() >= 10, "one product matrix is not exact"


@pytest.mark.parametrize("sigma", [0.5, 1, 1.5, 2, 3, 4])
def test_blur_matches_reference(gl, rng, backend, sigma):
    diff = compare(backend, rng, f"blur({sigma}px)")
    assert diff.max() <= 2


@pytest.mark.parametrize("sigma", [5, 8, 12.5, 16, 32, 64, 100])
def test_downscaled_blur_matches_reference(gl, rng, backend, sigma):
    img = random_image(rng, 96, 120)
    diff = compare(backend, rng, f"blur({sigma}px)", image=img)
    assert diff.max() <= 8 and diff.mean() <= 1, (diff.max(), diff.mean())


def test_blur_sigma_above_cap_is_capped(gl, rng):
    img = random_image(rng, 40, 40)
    capped = filters.apply(img, "blur(300px)", premultiplied=True)
    at_cap = filters.apply(img, "blur(100px)", premultiplied=True)
    assert np.array_equal(capped, at_cap)
    assert "capped" in str(filters.parse("blur(300px)").plan())


@pytest.mark.parametrize(
    "text",
    [
        "drop-shadow(3px 2px 2px rgba(0, 0, 0, .5))",
        "drop-shadow(-4px 5px 0 blue)",
        "drop-shadow(2.5px -1.25px 1.5px rgb(255 0 0 / 70%))",
        "drop-shadow(0 0 4px lime)",
    ],
)
def test_drop_shadow_matches_reference(gl, rng, backend, text):
    img = random_image(rng, 40, 48, transparent_border=8)
    assert compare(backend, rng, text, image=img).max() <= 2


@pytest.mark.parametrize("text", ["drop-shadow(6px 6px 8px black)", "drop-shadow(-10px 4px 20px rgb(0 0 255 / 60%))"])
def test_drop_shadow_with_downscaled_blur(gl, rng, backend, text):
    img = random_image(rng, 96, 96, transparent_border=20)
    diff = compare(backend, rng, text, image=img)
    assert diff.max() <= 8 and diff.mean() <= 1


def test_drop_shadow_uses_current_colour(gl, rng, backend):
    img = random_image(rng, 30, 30, transparent_border=6)
    red = RGBA(1.0, 0.0, 0.0, 1.0)
    diff = compare(backend, rng, "drop-shadow(3px 3px 1px)", image=img, current_color=red)
    assert diff.max() <= 2
    shadow_only = np.zeros((30, 30, 4), np.uint8)
    shadow_only[10:20, 10:20] = (0, 0, 0, 255)
    out = filters.apply(shadow_only, "drop-shadow(5px 0 0)", premultiplied=True, current_color=red)
    assert tuple(out[15, 22]) == (255, 0, 0, 255), "the shadow is red where only it shows"


@pytest.mark.parametrize(
    "text",
    [
        "sepia(.6) blur(2px) hue-rotate(120deg)",
        "drop-shadow(2px 2px 1px red) grayscale(1) blur(1px)",
        "contrast(1.5) drop-shadow(-2px 3px 2px rgba(0,0,255,.5)) opacity(.7)",
    ],
)
def test_mixed_chains_match_reference(gl, rng, backend, text):
    img = random_image(rng, 40, 40, transparent_border=6)
    assert compare(backend, rng, text, image=img).max() <= 2


def test_straight_rgba_api_and_transparent_outside(gl, rng):
    img = np.zeros((20, 30, 4), np.uint8)
    img[...] = (200, 40, 40, 255)
    out = filters.apply(img, "blur(3px)")
    assert out.shape == img.shape and out.dtype == np.uint8
    assert out[10, 15, 3] == 255, "opaque inside"
    assert out[0, 0, 3] < 128, "transparent outside the image bleeds in at the corner"
    assert np.all(np.abs(out[10, 15, :3].astype(int) - (200, 40, 40)) <= 1)
    ref = filters.apply(img, "blur(3px)", "reference")
    assert np.abs(out.astype(int)[8:12, 10:20] - ref.astype(int)[8:12, 10:20]).max() <= 1


def test_empty_chain_returns_the_image(gl, rng):
    img = random_image(rng)
    assert np.array_equal(filters.apply(img, "none", premultiplied=True), img)
    assert np.array_equal(filters.apply(img, "grayscale(0) blur(0)", premultiplied=True), img)


@pytest.mark.parametrize(
    "bad",
    [np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4, 4), np.float32), np.zeros((0, 4, 4), np.uint8), np.zeros(5, np.uint8)],
)
def test_bad_images_are_typed_errors(bad):
    with pytest.raises(LaminaInputError):
        filters.apply(bad, "blur(1px)", "reference")


def test_unknown_backend_is_a_typed_error():
    with pytest.raises(LaminaInputError, match="backend"):
        filters.apply(np.zeros((2, 2, 4), np.uint8), "blur(1px)", "cuda")


def test_ops_classes_exported():
    for cls in (Grayscale, Sepia, Saturate, HueRotate, Invert, Opacity, Brightness, Contrast):
        assert getattr(filters, cls.__name__) is cls
