"""Float64 references of the alpha conversions (rounded half up; 255 is odd, so
premultiplying meets no ties), and a fixture-maker that makes the numpy (host)
conversions fail, and a counter of the GPU un-premultiply passes: shared by the
pixels-out tests and their benchmark."""

from __future__ import annotations

import numpy as np

import lamina.filters.reference
import lamina.images
from lamina.gpu.programs import UNPREMULTIPLY

__all__ = ["premultiply_ref", "unpremultiply_ref", "refuse_host_conversion", "count_unpremultiplied"]


def premultiply_ref(straight: np.ndarray) -> np.ndarray:
    s = straight.astype(np.float64)
    a = s[..., 3:4]
    return np.concatenate([np.floor(s[..., :3] * a / 255.0 + 0.5), a], axis=-1).astype(np.uint8)


def unpremultiply_ref(premultiplied: np.ndarray) -> np.ndarray:
    p = premultiplied.astype(np.float64)
    a = p[..., 3:4]
    with np.errstate(divide="ignore", invalid="ignore"):
        rgb = np.where(a > 0, np.minimum(np.floor(p[..., :3] * 255.0 / a + 0.5), 255.0), 0.0)
    return np.concatenate([rgb, a], axis=-1).astype(np.uint8)


def refuse_host_conversion(monkeypatch) -> None:
    """Make the numpy conversions fail wherever they could still be called."""

    def refuse(*args, **kwargs):
        raise AssertionError("a numpy (host) alpha conversion ran")

    for module in (lamina.images, lamina.filters.reference):
        monkeypatch.setattr(module, "premultiply", refuse)
        monkeypatch.setattr(module, "unpremultiply", refuse)


def count_unpremultiplied(monkeypatch, renderer) -> list[int]:
    """From now on, the pixels of every GPU un-premultiply pass ``renderer`` runs are
    appended to the returned list (the pass still runs)."""
    converted: list[int] = []
    real = renderer.executor.pixels.convert

    def counting(name, source, rect, target, at):
        if name == UNPREMULTIPLY:
            converted.append(rect[2] * rect[3])
        return real(name, source, rect, target, at)

    monkeypatch.setattr(renderer.executor.pixels, "convert", counting)
    return converted
