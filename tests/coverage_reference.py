"""Independent numpy models of shape coverage, for clip-path and mask pixel tests.

They know nothing of the engine: each pixel's coverage is the area of the pixel
inside the shape, measured along many vertical lines across the pixel — on each line
the shape is an exact set of intervals (the chord of an ellipse, the spans of a
polygon under its fill rule, found by point-in-polygon crossing counts), so only the
sampling across x is approximate (``samples`` lines a pixel: error well under a level).
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

Intervals = Callable[[np.ndarray], Iterable[tuple[np.ndarray, np.ndarray]]]


def coverage(width: int, height: int, intervals: Intervals, samples: int = 256) -> np.ndarray:
    """(height, width) coverage of a shape given, for x positions, its y intervals."""
    xs = (np.arange(width * samples) + 0.5) / samples
    rows = np.arange(height, dtype=np.float64)[:, None]
    covered = np.zeros((height, width * samples))
    for lo, hi in intervals(xs):
        covered += np.clip(np.minimum(rows + 1.0, hi[None, :]) - np.maximum(rows, lo[None, :]), 0.0, 1.0)
    return covered.reshape(height, width, samples).mean(axis=2)


def ellipse(width: int, height: int, cx: float, cy: float, rx: float, ry: float) -> np.ndarray:
    def chord(xs):
        t = 1.0 - ((xs - cx) / rx) ** 2
        half = ry * np.sqrt(np.maximum(t, 0.0))
        yield np.where(t > 0, cy - half, 0.0), np.where(t > 0, cy + half, 0.0)

    return coverage(width, height, chord)


def rounded_rect(width: int, height: int, x0: float, y0: float, x1: float, y1: float, r: float) -> np.ndarray:
    """A rectangle with four circular corners of radius ``r``."""

    def span(xs):
        inside = (xs > x0) & (xs < x1)
        dx = np.maximum(np.maximum(x0 + r - xs, xs - (x1 - r)), 0.0)
        cut = r - np.sqrt(np.maximum(r * r - dx * dx, 0.0))
        yield np.where(inside, y0 + cut, 0.0), np.where(inside, y1 - cut, 0.0)

    return coverage(width, height, span)


def polygon(width: int, height: int, points, evenodd: bool = False) -> np.ndarray:
    """Point-in-polygon along vertical lines: crossings sorted by y, the winding number
    counted between them, the fill rule applied to each span."""
    pts = np.asarray(points, dtype=np.float64)

    def spans(xs):
        ys, dirs = [], []
        for (xa, ya), (xb, yb) in zip(pts, np.roll(pts, -1, axis=0)):
            if xa == xb:
                continue
            crosses = (xs >= min(xa, xb)) & (xs < max(xa, xb))
            ys.append(np.where(crosses, ya + (xs - xa) * (yb - ya) / (xb - xa), np.inf))
            dirs.append(np.where(crosses, 1 if xb > xa else -1, 0))
        ys, dirs = np.stack(ys), np.stack(dirs)
        order = np.argsort(ys, axis=0)
        ys, dirs = np.take_along_axis(ys, order, 0), np.take_along_axis(dirs, order, 0)
        winding = np.cumsum(dirs, axis=0)
        for k in range(len(ys) - 1):
            filled = (winding[k] % 2 != 0) if evenodd else (winding[k] != 0)
            ok = filled & np.isfinite(ys[k + 1])
            yield np.where(ok, ys[k], 0.0), np.where(ok, ys[k + 1], 0.0)

    return coverage(width, height, spans)


def star(cx: float, cy: float, r: float, points: int = 5) -> list[tuple[float, float]]:
    """A self-intersecting star polygon ({points/2} star): every second vertex of a regular
    polygon, so its middle is wound twice (filled by nonzero, a hole for even-odd)."""
    step = 2 * np.pi * (points // 2) / points
    return [(round(cx + r * np.sin(i * step), 3), round(cy - r * np.cos(i * step), 3)) for i in range(points)]
