"""WPT fuzzy semantics, premultiplied comparison, fingerprints and expectations (no GPU)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina.errors import GoldenError
from lamina.fuzzy import FuzzyRange, Tolerance, compare, premultiply
from lamina.golden.store import Expectations, Fingerprint, GoldenDir, Status, read_golden, write_golden
from lamina.images import unpremultiply


def opaque(rng, h=12, w=16):
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[..., 3] = 255
    return img


def bump(img, pixels: int, by: int, channel: int = 0):
    out = img.copy().astype(int)
    flat = out.reshape(-1, 4)
    for i in range(pixels):
        flat[i, channel] = flat[i, channel] + by if flat[i, channel] + by <= 255 else flat[i, channel] - by
    return out.astype(np.uint8)


@pytest.mark.parametrize(
    "text, expected",
    [("0-2", (0, 2)), ("3", (3, 3)), (3, (3, 3)), ((1, 4), (1, 4)), (" 2 - 5 ", (2, 5)), ("maxDifference=0-1", (0, 1))],
)
def test_range_parsing(text, expected):
    r = FuzzyRange.parse(text)
    assert (r.low, r.high) == expected


@pytest.mark.parametrize("bad", ["", "-1", "5-2", "a-b", "1-2-3", 1.5, True, None, (1,), (0, "2")])
def test_bad_ranges_are_typed_errors(bad):
    with pytest.raises(GoldenError, match="max_diff"):
        Tolerance.of(max_diff=bad)


@pytest.mark.parametrize(
    "pixels, by, max_diff, max_pixels, passes",
    [
        (0, 0, "0", "0", True),  # identical
        (0, 0, "5-10", "0-3", True),  # nothing differs and the pixel range admits 0: maxDifference ignored
        (0, 0, "0-3", "5-10", True),  # nothing differs and the difference range admits 0
        (0, 0, "2-3", "5-10", False),  # identical, but neither range admits 0: a difference was expected
        (4, 2, "0-2", "0-4", True),
        (4, 2, "0-1", "0-4", False),  # difference too large
        (5, 2, "0-2", "0-4", False),  # too many pixels
        (4, 2, "2", "4", True),  # bare numbers: exactly 2 in exactly 4 pixels
        (3, 2, "2", "4", False),  # ... and 3 pixels is not 4
        (4, 1, "2", "4", False),  # ... nor is a difference of 1 exactly 2
        (4, 2, "1-3", "2-6", True),
    ],
)
def test_wpt_rule(rng, pixels, by, max_diff, max_pixels, passes):
    a = opaque(rng)
    b = bump(a, pixels, by)
    c = compare(premultiply(b), premultiply(a), Tolerance.of(max_diff, max_pixels))
    assert c.passed is passes
    assert c.differing_pixels == pixels and (c.max_colour == by or pixels == 0)


def test_colour_and_alpha_are_compared_separately(rng):
    a = opaque(rng)
    b = bump(a, 3, 4, channel=3)  # alpha only
    c = compare(b, a, Tolerance.of("0-1", "0-3", max_alpha_diff="0-4"))
    assert (c.colour_pixels, c.alpha_pixels, c.max_alpha, c.max_colour) == (0, 3, 4, 0)
    assert c.passed
    c = compare(b, a, Tolerance.of("0-1", "0-3"))
    assert not c.passed and not c.alpha_ok and c.colour_ok and "alpha" in c.summary()


def test_colour_under_transparency_does_not_count(rng):
    a = np.zeros((4, 4, 4), np.uint8)
    b = a.copy()
    b[..., 0] = 200  # straight colour under alpha 0: no premultiplied difference
    assert compare(premultiply(b), premultiply(a), Tolerance()).differing_pixels == 0


def test_metrics_and_histogram(rng):
    a = opaque(rng)
    b = bump(bump(a, 2, 3), 5, 1, channel=1)
    m = compare(premultiply(b), premultiply(a), Tolerance.of("0-1", "0-10")).metrics()
    assert m["max_difference"]["r"] == 3 and m["max_difference"]["g"] == 1
    assert m["differing_pixels"] == 5 and m["above_tolerance_pixels"] == 2
    assert m["histogram"] == {"1": 3, "3": 2}
    json.dumps(m)


def test_sizes_must_match(rng):
    with pytest.raises(GoldenError, match="16x12 against 16x11"):
        compare(opaque(rng), opaque(rng, h=11), Tolerance())


def test_premultiply_inverts_unpremultiply_exactly():
    a, c = np.meshgrid(np.arange(256), np.arange(256))
    keep = c <= a
    p = np.stack([c[keep], c[keep] // 2, c[keep] // 3, a[keep]], -1).astype(np.uint8)[None]
    assert np.array_equal(premultiply(unpremultiply(p)), p)


def test_golden_png_carries_its_fingerprint_and_is_deterministic(tmp_path, rng):
    img = premultiply(rng.integers(0, 256, (9, 7, 4), dtype=np.uint8))
    fp = Fingerprint("FakeGPU 9000", "4.6 Fake", "9.9")
    assert write_golden(tmp_path / "a.png", img, fp)
    assert not write_golden(tmp_path / "a.png", img, fp), "same pixels, same bytes: not rewritten"
    pixels, got = read_golden(tmp_path / "a.png")
    assert np.array_equal(pixels, img) and got == fp


def test_expectations_file(tmp_path):
    (tmp_path / "renderers.json").write_text(json.dumps({
        "reference": "llvmpipe*",
        "renderers": [{"match": "NVIDIA*", "max_diff": "0-3", "max_pixels": "0-50",
                       "tests": {"blur": {"max_pixels": "0-900"}}}],
    }))
    e = Expectations.load(tmp_path)
    nv = Fingerprint("NVIDIA H200/PCIe/SSE2", "4.6.0 NVIDIA 550")
    entry = e.for_renderer(nv)
    assert str(entry.tolerance_for("blur")) == "max_diff=0-3, max_pixels=0-900"
    assert str(entry.tolerance_for("other")) == "max_diff=0-3, max_pixels=0-50"
    assert e.for_renderer(Fingerprint("AMD", "4.6")) is None
    assert not e.is_reference(nv) and e.is_reference(Fingerprint("llvmpipe (LLVM 15)", "4.5"))


@pytest.mark.parametrize(
    "content, where",
    [
        ("{", "not valid JSON"),
        ('{"renderers": [{"max_diff": "1"}]}', r"\$.renderers\[0\]: needs a 'match'"),
        ('{"renderers": [{"match": "x", "max_dif": "1"}]}', "unknown key 'max_dif'"),
        ('{"renderers": [{"match": "x", "max_diff": "9-1"}]}', r"\$.renderers\[0\]: max_diff"),
        ('{"reference": 3}', "reference must be a string"),
        ('{"renderer": []}', "expected an object"),
    ],
)
def test_bad_expectations_name_the_place(tmp_path, content, where):
    (tmp_path / "renderers.json").write_text(content)
    with pytest.raises(GoldenError, match=where):
        Expectations.load(tmp_path)


@pytest.mark.parametrize("name", ["../up", "/abs", ".hidden", "a b", "", "x/../y"])
def test_golden_names_are_checked(tmp_path, name):
    with pytest.raises(GoldenError, match="golden name"):
        GoldenDir(tmp_path).path(name)


def test_decisions_without_a_gpu(tmp_path, rng):
    here = Fingerprint("llvmpipe (LLVM 15)", "4.5 Mesa")
    other = Fingerprint("FakeGPU 9000", "4.6 Fake")
    img = opaque(rng)
    changed = bump(img, 2, 1)
    tol = Tolerance()

    none = GoldenDir(tmp_path, "none", strict=False)
    assert none.check(img, "a", tol, here).status is Status.FAILED  # missing
    assert GoldenDir(tmp_path, "missing").check(img, "a", tol, here).status is Status.WRITTEN
    assert none.check(img, "a", tol, here).status is Status.PASSED
    assert none.check(changed, "a", tol, here).status is Status.FAILED
    assert GoldenDir(tmp_path, "missing").check(changed, "a", tol, here).status is Status.FAILED, "missing never overwrites"
    assert none.check(changed, "a", Tolerance.of("0-1", "0-2"), here).status is Status.PASSED

    skipped = none.check(img, "a", tol, other)
    assert skipped.status is Status.SKIPPED and str(here) in skipped.message and str(other) in skipped.message
    strict = GoldenDir(tmp_path, "none", strict=True).check(img, "a", tol, other)
    assert strict.status is Status.FAILED and "LAMINA_GOLDEN_STRICT" in strict.message

    refused = GoldenDir(tmp_path, "changed").check(changed, "a", tol, other)
    assert refused.status is Status.FAILED and refused.needs_force and "not overwriting" in refused.message
    forced = GoldenDir(tmp_path, "changed", force=True).check(changed, "a", tol, other)
    assert forced.status is Status.UPDATED and read_golden(tmp_path / "a.png")[1] == other


def test_one_pixel_count_over_colour_and_alpha(rng):
    a = opaque(rng, 20, 20)
    b = bump(a, 200, 2)  # colour in the first 200 pixels
    flat = b.reshape(-1, 4)
    flat[200:400, 3] -= 1  # alpha in the next 200
    c = compare(b, a, Tolerance.of("0-2", "0-300"))
    assert c.differing_pixels == 400 and c.colour_ok and c.alpha_ok and not c.pixels_ok and not c.passed
    assert "400 px differ (allowed 0-300)" in c.summary()


def test_mask_marks_only_what_is_over_its_own_limit(rng):
    a = opaque(rng)
    b = a.copy()
    b[0, 0, 3] -= 5  # alpha 5: within max_alpha_diff 0-10
    b[1, 1, 0] = (int(b[1, 1, 0]) + 3) % 256  # colour 3: over max_diff 0-2
    c = compare(b, a, Tolerance.of("0-2", "0-5", max_alpha_diff="0-10"))
    over = c.above_tolerance()
    assert not over[0, 0] and over[1, 1] and over.sum() == 1


@pytest.mark.parametrize("bad, field", [("²", "max_diff"), ("totalPixels=0-3", "max_diff"), ("maxDifference=1", "max_pixels"),
                                        ("0-", "max_diff"), ("1.5", "max_pixels")])
def test_ranges_are_ascii_and_wpt_names_must_fit(bad, field):
    with pytest.raises(GoldenError, match=field):
        Tolerance.of(**{field: bad})
    assert FuzzyRange.parse("totalPixels=0-300", "max_pixels") == FuzzyRange(0, 300)


def test_max_diff_alone_admits_any_number_of_pixels_within_it(rng):
    """What a reader of ``max_diff="0-2"`` expects: every pixel may be off by up to 2."""
    a = opaque(rng, 40, 80)
    every_pixel_by_one = bump(a, 40 * 80, 1)
    assert compare(every_pixel_by_one, a, Tolerance.of("0-2")).passed
    by_three = bump(a, 1, 3)
    c = compare(by_three, a, Tolerance.of("0-2"))
    assert not c.passed and "max difference 3 (allowed 0-2)" in c.summary()
    assert Tolerance.of("0-2").max_pixels is None and str(Tolerance.of("0-2")) == "max_diff=0-2"


@pytest.mark.parametrize(
    "pixels, ratio, max_pixels, passes",
    [
        (20, 0.01, None, True),  # 20 of 2000 is exactly 1%
        (21, 0.01, None, False),
        (0, 0.0, None, True),  # identical
        (1, 0.0, None, False),
        (20, 0.5, "0-10", False),  # both bounds hold, as Playwright takes the smaller
        (10, 0.5, "0-10", True),
        (10, 0.001, "0-10", False),
    ],
)
def test_max_pixel_ratio_is_a_share_of_the_image(rng, pixels, ratio, max_pixels, passes):
    a = opaque(rng, 40, 50)  # 2000 px
    c = compare(bump(a, pixels, 1), a, Tolerance.of("0-1", max_pixels, max_pixel_ratio=ratio))
    assert c.differing_pixels == pixels and c.passed is passes
    if not passes:
        assert f"{pixels} px differ, {100 * pixels / 2000:.3g}% of 50x40 (allowed" in c.summary()
        assert f"{ratio * 100:g}% of them" in c.summary()


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), True, "lots", None.__class__])
def test_bad_pixel_ratios_are_typed_errors(bad):
    with pytest.raises(GoldenError, match="max_pixel_ratio: expected a fraction from 0 to 1"):
        Tolerance.of("0-1", max_pixel_ratio=bad)
    assert Tolerance.of("0-1", max_pixel_ratio="0.25").max_pixel_ratio == 0.25


def test_a_tolerance_round_trips_through_its_dict():
    t = Tolerance.of("0-3", "0-40", "0-5", max_pixel_ratio=0.02)
    assert t.to_dict() == {"max_diff": "0-3", "max_pixels": "0-40", "max_alpha_diff": "0-5", "max_pixel_ratio": 0.02}
    assert Tolerance.of(**t.to_dict()) == t
    assert str(t) == "max_diff=0-3, max_pixels=0-40, max_alpha_diff=0-5, max_pixel_ratio=0.02"
