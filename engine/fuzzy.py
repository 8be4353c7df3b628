"""Fuzzy image comparison with the semantics of WPT reftests.

A tolerance is two inclusive ranges: the largest difference of any channel (0-255) and
the number of pixels that differ at all. ``"0-2"`` is a range; a bare number ``"2"`` (or
the int 2) means exactly 2, as in WPT: ``max_pixels=300`` asserts that *exactly* 300
pixels differ, which is how a known, accepted difference is pinned down. To allow "up to
N", write ``"0-N"``. Two images pass when both measured values lie in their ranges, or
when nothing differs and a range admits 0 (wptrunner's rule: with no difference at all,
the other range is ignored).

Colour and alpha are compared separately, in premultiplied 8-bit sRGB (what Lamina
computes): a colour difference under a transparent pixel does not exist, and an alpha
difference is reported as such rather than as a colour change. The largest colour
difference must lie in ``max_diff`` and the largest alpha difference in ``max_alpha_diff``
(default: ``max_diff``), each where that part differs at all; the count of pixels where
anything differs must lie in ``max_pixels``. When nothing differs, WPT's rule decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from .errors import GoldenError

__all__ = ["Comparison", "FuzzyRange", "Tolerance", "compare", "premultiply"]

RangeLike = Union[str, int, tuple, "FuzzyRange"]

# "a-b" or "n", ASCII digits, optionally with WPT's own name for the value in front.
_RANGE = re.compile(r"^\s*(?:(maxDifference|totalPixels)\s*=\s*)?([0-9]+)\s*(?:-\s*([0-9]+)\s*)?$")
_WPT_NAMES = {"maxDifference": "difference", "totalPixels": "pixels"}
_KIND = {"max_diff": "difference", "max_alpha_diff": "difference", "max_pixels": "pixels"}


@dataclass(frozen=True)
class FuzzyRange:
    low: int
    high: int

    @classmethod
    def parse(cls, value: RangeLike, what: str = "range") -> "FuzzyRange":
        """``"a-b"``, ``"n"``, ``n``, ``(a, b)`` or a FuzzyRange; bounds are inclusive."""
        if isinstance(value, FuzzyRange):
            return value
        if isinstance(value, bool):
            raise GoldenError(f"{what}: expected 'a-b' or a whole number, got {value!r}")
        if isinstance(value, (int, np.integer)):
            low = high = int(value)
        elif isinstance(value, tuple) and len(value) == 2:
            low, high = (cls._whole(v, value, what) for v in value)
        elif isinstance(value, str):
            m = _RANGE.match(value)
            kind = _KIND.get(what)
            if m is None or (m.group(1) and kind is not None and _WPT_NAMES[m.group(1)] != kind):
                raise GoldenError(f"{what}: expected 'a-b' or a whole number, got {value!r}")
            low = int(m.group(2))
            high = int(m.group(3)) if m.group(3) is not None else low
        else:
            raise GoldenError(f"{what}: expected 'a-b' or a whole number, got {value!r}")
        if low < 0 or high < low:
            raise GoldenError(f"{what}: {value!r} is not a range a-b with 0 <= a <= b")
        return cls(low, high)

    @staticmethod
    def _whole(v, value, what) -> int:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise GoldenError(f"{what}: expected whole numbers in {value!r}")
        return int(v)

    def __contains__(self, n: int) -> bool:
        return self.low <= n <= self.high

    def __str__(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


@dataclass(frozen=True)
class Tolerance:
    max_diff: FuzzyRange = FuzzyRange(0, 0)
    max_pixels: FuzzyRange = FuzzyRange(0, 0)
    max_alpha_diff: FuzzyRange | None = None

    @classmethod
    def of(cls, max_diff: RangeLike = "0", max_pixels: RangeLike = "0", max_alpha_diff: RangeLike | None = None) -> "Tolerance":
        return cls(
            FuzzyRange.parse(max_diff, "max_diff"),
            FuzzyRange.parse(max_pixels, "max_pixels"),
            None if max_alpha_diff is None else FuzzyRange.parse(max_alpha_diff, "max_alpha_diff"),
        )

    @property
    def alpha_diff(self) -> FuzzyRange:
        return self.max_alpha_diff or self.max_diff

    def to_dict(self) -> dict[str, str]:
        out = {"max_diff": str(self.max_diff), "max_pixels": str(self.max_pixels)}
        if self.max_alpha_diff is not None:
            out["max_alpha_diff"] = str(self.max_alpha_diff)
        return out

    def __str__(self) -> str:
        extra = f", max_alpha_diff={self.max_alpha_diff}" if self.max_alpha_diff is not None else ""
        return f"max_diff={self.max_diff}, max_pixels={self.max_pixels}{extra}"


def _wpt_pass(max_seen: int, pixels: int, diff: FuzzyRange, count: FuzzyRange) -> bool:
    # wptrunner: identical (in this respect) passes when the range admits zero.
    if pixels == 0 and 0 in count or max_seen == 0 and 0 in diff:
        return True
    return max_seen in diff and pixels in count


@dataclass
class Comparison:
    """What differs between two premultiplied RGBA8 images of the same size."""

    shape: tuple[int, int]
    max_channel: tuple[int, int, int, int]  # largest difference per channel r, g, b, a
    colour_pixels: int  # pixels whose premultiplied colour differs
    alpha_pixels: int  # pixels whose alpha differs
    differing_pixels: int  # pixels where anything differs
    histogram: dict[int, int]  # largest channel difference of a pixel -> pixel count (0 left out)
    tolerance: Tolerance
    colour_ok: bool
    alpha_ok: bool
    diff: np.ndarray = field(repr=False)  # (H, W) uint8: the largest channel difference per pixel
    pixels_ok: bool = True
    colour_diff: np.ndarray | None = field(default=None, repr=False)  # (H, W) largest colour difference
    alpha_diff: np.ndarray | None = field(default=None, repr=False)  # (H, W) alpha difference

    @property
    def passed(self) -> bool:
        return self.colour_ok and self.alpha_ok and self.pixels_ok

    @property
    def max_colour(self) -> int:
        return max(self.max_channel[:3])

    @property
    def max_alpha(self) -> int:
        return self.max_channel[3]

    def above_tolerance(self) -> np.ndarray:
        """(H, W) bool: pixels whose colour or alpha difference exceeds its allowed maximum."""
        colour = self.colour_diff if self.colour_diff is not None else self.diff
        alpha = self.alpha_diff if self.alpha_diff is not None else self.diff
        return (colour > self.tolerance.max_diff.high) | (alpha > self.tolerance.alpha_diff.high)

    def region(self) -> tuple[int, int, int, int] | None:
        """(x, y, w, h): the smallest rect holding every differing pixel."""
        ys, xs = np.nonzero(self.diff)
        if xs.size == 0:
            return None
        return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)

    def summary(self) -> str:
        if self.differing_pixels == 0:
            if self.passed:
                return "identical"
            return f"identical, but the tolerance requires a difference ({self.tolerance})"
        parts = []
        if not self.colour_ok:
            parts.append(f"colour: max difference {self.max_colour} (allowed {self.tolerance.max_diff})")
        if not self.alpha_ok:
            parts.append(f"alpha: max difference {self.max_alpha} (allowed {self.tolerance.alpha_diff})")
        if not self.pixels_ok:
            parts.append(f"{self.differing_pixels} px differ (allowed {self.tolerance.max_pixels})")
        if parts:
            parts.append(f"colour max {self.max_colour}, alpha max {self.max_alpha}, in {self.differing_pixels} px")
        region = self.region()
        if parts and region is not None:
            x, y, w, h = region
            parts.append(f"in the {w}x{h} rect at {x},{y}")
        if not parts:
            return (
                f"within tolerance: colour max {self.max_colour}, alpha max {self.max_alpha}, "
                f"in {self.differing_pixels} px"
            )
        return "; ".join(parts)

    def metrics(self) -> dict[str, Any]:
        h, w = self.shape
        return {
            "size": [w, h],
            "passed": self.passed,
            "tolerance": self.tolerance.to_dict(),
            "max_difference": dict(zip("rgba", self.max_channel)),
            "max_colour_difference": self.max_colour,
            "max_alpha_difference": self.max_alpha,
            "colour_pixels": self.colour_pixels,
            "alpha_pixels": self.alpha_pixels,
            "differing_pixels": self.differing_pixels,
            "above_tolerance_pixels": int(self.above_tolerance().sum()),
            "differing_region": list(self.region()) if self.region() else None,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
        }


def premultiply(straight: np.ndarray) -> np.ndarray:
    """Straight RGBA8 (as PNG stores it) -> premultiplied RGBA8, rounding to nearest.
    Exact inverse of Lamina's un-premultiply on every premultiplied value."""
    rgba = straight.astype(np.uint32)
    out = rgba.copy()
    out[..., :3] = (rgba[..., :3] * rgba[..., 3:4] + 127) // 255
    return out.astype(np.uint8)


def compare(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Comparison:
    """Compare two premultiplied (H, W, 4) uint8 images."""
    if actual.shape != expected.shape:
        raise GoldenError(f"images differ in size: {_size(actual)} against {_size(expected)}")
    delta = np.abs(actual.astype(np.int16) - expected.astype(np.int16)).astype(np.uint8)
    per_pixel = delta.max(axis=2)
    colour = delta[..., :3].max(axis=2)
    alpha = delta[..., 3]
    max_channel = tuple(int(delta[..., c].max()) if delta.size else 0 for c in range(4))
    colour_pixels, alpha_pixels = int(np.count_nonzero(colour)), int(np.count_nonzero(alpha))
    values, counts = np.unique(per_pixel[per_pixel > 0], return_counts=True)
    differing = int(np.count_nonzero(per_pixel))
    if differing == 0:  # identical: WPT's rule decides (a range must admit 0)
        colour_ok = alpha_ok = pixels_ok = _wpt_pass(0, 0, tolerance.max_diff, tolerance.max_pixels)
    else:  # each part that differs within its own range, and the count of pixels in range
        colour_ok = colour_pixels == 0 or max(max_channel[:3]) in tolerance.max_diff
        alpha_ok = alpha_pixels == 0 or max_channel[3] in tolerance.alpha_diff
        pixels_ok = differing in tolerance.max_pixels
    return Comparison(
        shape=per_pixel.shape,
        max_channel=max_channel,  # type: ignore[arg-type]
        colour_pixels=colour_pixels,
        alpha_pixels=alpha_pixels,
        differing_pixels=differing,
        histogram={int(v): int(c) for v, c in zip(values, counts)},
        tolerance=tolerance,
        colour_ok=colour_ok,
        alpha_ok=alpha_ok,
        diff=per_pixel,
        pixels_ok=pixels_ok,
        colour_diff=colour,
        alpha_diff=alpha,
    )


def _size(a: np.ndarray) -> str:
    return f"{a.shape[1]}x{a.shape[0]}" if a.ndim >= 2 else str(a.shape)
