"""A float64 reference for backdrop-filter together with the element's other effects,
written from Filter Effects 2 §2.1 (not from the planner): the backdrop root image under
the border box is filtered with mirrored edges and clipped to the box (T', steps 1-4),
the element is drawn into it — with its mix-blend-mode, if any (step 5) — then the
element's filter, polygon clip-path / mask and opacity act on T' as one image (step 6),
which is composited into the backdrop root with source-over (step 7).

Images are frame-sized premultiplied float64 RGBA in [0, 1]; filters run through
``filters.apply(..., "reference")`` (numpy), blending through
``lamina.blending.reference`` — both float64 oracles, independent of GL."""

from __future__ import annotations

import numpy as np

from lamina import filters
from lamina.blending.reference import blend, source_over
from lamina.images import premultiply


def floats(img8: np.ndarray) -> np.ndarray:
    """Straight uint8 RGBA -> premultiplied float64."""
    return premultiply(img8).astype(np.float64) / 255.0


def _filter(image: np.ndarray, chain: str) -> np.ndarray:
    u8 = np.round(np.clip(image, 0.0, 1.0) * 255).astype(np.uint8)
    return filters.apply(u8, chain, "reference", premultiplied=True) / 255.0


def filtered_backdrop(root: np.ndarray, box: tuple[int, int, int, int], chain: str, svg: str | None = None,
                      pad: int | None = None) -> np.ndarray:
    """T' before the element: ``root`` (the backdrop root image) under ``box``, filtered
    with mirrored edges, clipped to the box; transparent elsewhere. With ``svg`` (the
    markup ``url(#id)`` names) the chain runs as on an element whose box is the crop
    (``filters.reference.apply_on_element``: each graph on its filter region of the box,
    transparent past it) over the backdrop mirrored ``pad`` px past the box on every side
    (default: the box's larger side; give one past every filter region and reach), as
    Chromium crops a backdrop-filter's input with a mirror tile mode; a function after a
    graph reads the graph's output mirrored at the box again (Chromium's functions tile
    their input at the box, measured with tests/chromium/compare.py). The backdrop taints
    the graphs (an feDisplacementMap whose map reads it passes its input through, Filter
    Effects 1 §16.4, as Chromium's does)."""
    x, y, w, h = box
    crop = root[y:y + h, x:x + w]
    if svg is not None:
        from lamina.filters.reference import apply_on_element
        from lamina.filters.svg import parse_svg
        from lamina.filters.svg.op import SvgFilterRef
        pad = pad if pad is not None else max(w, h)
        image = _mirrored(crop, pad)
        resolved = filters.parse(chain).resolved_svg(parse_svg(svg))
        after_graph = False
        for op in resolved.ops:
            graph = isinstance(op, SvgFilterRef)
            if after_graph and not graph:  # a function reads the graph's output mirrored at the box
                image = _mirrored(image[pad:pad + h, pad:pad + w], pad)
            image = apply_on_element(image, type(resolved)((op,)), (pad, pad, w, h), backdrop=True)
            after_graph = graph
        out = np.zeros_like(root)
        out[y:y + h, x:x + w] = image[pad:pad + h, pad:pad + w]
        return out
    pad = 3 * int(max(filters.parse(chain).plan().outsets + (1,)))
    padded = np.pad(crop, ((pad, pad), (pad, pad), (0, 0)), mode="symmetric")
    out = np.zeros_like(root)
    out[y:y + h, x:x + w] = _filter(padded, chain)[pad:pad + h, pad:pad + w]
    return out


def _mirrored(crop: np.ndarray, pad: int) -> np.ndarray:
    """``crop`` reflected past its edges by ``pad`` px (edge pixels repeated), the
    reflections repeating where ``pad`` exceeds the crop (a triangle wave, as a mirror
    tile mode)."""
    h, w = crop.shape[:2]
    ys = _fold(np.arange(-pad, h + pad), h)
    xs = _fold(np.arange(-pad, w + pad), w)
    return crop[ys[:, None], xs[None, :]]


def _fold(i: np.ndarray, n: int) -> np.ndarray:
    t = np.mod(i, 2 * n)
    return np.where(t < n, t, 2 * n - 1 - t)


def backdrop_element(root: np.ndarray, box: tuple[int, int, int, int], chain: str, content: np.ndarray, *,
                     filter: str | None = None, mask: np.ndarray | None = None, opacity: float = 1.0,
                     blend_mode: str = "normal") -> np.ndarray:
    """``root`` with the element composited: ``content`` (frame-sized, premultiplied: the
    element and its descendants, flattened) blended with ``blend_mode`` onto its filtered
    backdrop, then ``filter``, ``mask`` (frame-sized coverage in [0, 1]) and ``opacity``
    on both together, then source-over into ``root``."""
    t = blend(filtered_backdrop(root, box, chain), content, blend_mode)
    if filter is not None:
        t = _filter(t, filter)
    if mask is not None:
        t = t * mask[..., None]
    t = t * opacity
    return source_over(root, t)
