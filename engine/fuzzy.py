"""Fuzzy image comparison with the semantics of WPT reftests, plus Playwright's ratio.

A tolerance bounds the largest difference of any channel (0-255) and, optionally, how
many pixels may differ. ``max_diff="0-2"`` alone admits any number of pixels that differ
by at most 2: the bound a user reads into it. ``max_pixels`` adds a WPT range of the count
of differing pixels: ``"0-N"`` for "up to N"; a bare number ``"N"`` (or the int N) means
exactly N, as in WPT: ``max_pixels=300`` asserts that *exactly* 300 pixels differ, which is
how a known, accepted difference is pinned down. ``max_pixel_ratio`` (a fraction of the
image, 0-1, as Playwright's ``maxDiffPixelRatio``) caps the count relative to the size;
given with ``max_pixels``, both must hold. Two images pass when the measured values lie in
their ranges, or when nothing differs and a range admits 0 (wptrunner's rule: with no
difference at all, the other range is ignored).

Colour and alpha are compared separately, in premultiplied 8-bit sRGB (what Lamina
computes): a colour difference under a transparent pixel does not exist, and an alpha
difference is reported as such rather than as a colour change. The largest colour
difference must lie in ``max_diff`` and the largest alpha difference in ``max_alpha_diff``
(default: ``max_diff``), each where that part differs at all; the count of pixels where
anything differs must lie in ``max_pixels`` and under ``max_pixel_ratio`` where they are
given. When nothing differs, WPT's rule decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from .errors import GoldenError

__all__ = ["TOLERANCE_KEYS", "Comparison", "FuzzyRange", "Tolerance", "compare", "parse_ratio", "premultiply"]

RangeLike = Union[str, int, tuple, "FuzzyRange"]
# The names a tolerance is given by, in a check, a marker, a scene's "golden" object and
# renderers.json alike (the fields of Tolerance).
TOLERANCE_KEYS = ("max_diff", "max_pixels", "max_alpha_diff", "max_pixel_ratio")

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
    """What two images may differ by. ``max_pixels`` / ``max_pixel_ratio`` of None: any
    number of pixels, each within ``max_diff`` (and ``max_alpha_diff``)."""

    max_diff: FuzzyRange = FuzzyRange(0, 0)
    max_pixels: FuzzyRange | None = None
    max_alpha_diff: FuzzyRange | None = None
    max_pixel_ratio: float | None = None

    @classmethod
    def of(cls, max_diff: RangeLike = "0", max_pixels: RangeLike | None = None,
           max_alpha_diff: RangeLike | None = None, max_pixel_ratio: float | str | None = None) -> "Tolerance":
        return cls(
            FuzzyRange.parse(max_diff, "max_diff"),
            None if max_pixels is None else FuzzyRange.parse(max_pixels, "max_pixels"),
            None if max_alpha_diff is None else FuzzyRange.parse(max_alpha_diff, "max_alpha_diff"),
            None if max_pixel_ratio is None else parse_ratio(max_pixel_ratio),
        )

    @property
    def alpha_diff(self) -> FuzzyRange:
        return self.max_alpha_diff or self.max_diff

    def admits_count(self, differing: int, total: int) -> bool:
        """Whether ``differing`` of ``total`` pixels may differ."""
        if self.max_pixels is not None and differing not in self.max_pixels:
            return False
        return self.max_pixel_ratio is None or differing <= self.max_pixel_ratio * total

    def admits_no_difference(self) -> bool:
        """WPT's rule for identical images: they pass when a range admits 0."""
        count_admits_zero = self.max_pixels is None or 0 in self.max_pixels
        return count_admits_zero or 0 in self.max_diff

    def allowed_count(self) -> str:
        """The pixel-count bound in words, for messages."""
        parts = []
        if self.max_pixels is not None:
            parts.append(str(self.max_pixels))
        if self.max_pixel_ratio is not None:
            parts.append(f"{self.max_pixel_ratio * 100:g}% of them")
        return " and ".join(parts) or "any number"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"max_diff": str(self.max_diff)}
        if self.max_pixels is not None:
            out["max_pixels"] = str(self.max_pixels)
        if self.max_alpha_diff is not None:
            out["max_alpha_diff"] = str(self.max_alpha_diff)
        if self.max_pixel_ratio is not None:
            out["max_pixel_ratio"] = self.max_pixel_ratio
        return out

    def __str__(self) -> str:
        return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.to_dict().items())


def parse_ratio(value: Any, what: str = "max_pixel_ratio") -> float:
    """A fraction of the image's pixels, 0 to 1 (``0.01``: one pixel in a hundred)."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            raise GoldenError(f"{what}: expected a fraction from 0 to 1, got {value!r}") from None
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        number = float(value)
    else:
        raise GoldenError(f"{what}: expected a fraction from 0 to 1, got {value!r}")
    if not 0.0 <= number <= 1.0:  # also refuses NaN
        raise GoldenError(f"{what}: expected a fraction from 0 to 1, got {value!r}")
    return number


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
            share = ""
            if self.tolerance.max_pixel_ratio is not None:
                h, w = self.shape
                share = f", {100.0 * self.differing_pixels / max(w * h, 1):.3g}% of {w}x{h}"
            parts.append(f"{self.differing_pixels} px differ{share} (allowed {self.tolerance.allowed_count()})")
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
        colour_ok = alpha_ok = pixels_ok = tolerance.admits_no_difference()
    else:  # each part that differs within its own range, and the count of pixels in range
        colour_ok = colour_pixels == 0 or max(max_channel[:3]) in tolerance.max_diff
        alpha_ok = alpha_pixels == 0 or max_channel[3] in tolerance.alpha_diff
        pixels_ok = tolerance.admits_count(differing, per_pixel.size)
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
