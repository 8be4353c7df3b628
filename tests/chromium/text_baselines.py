"""Measure where headless Chromium puts text baselines, and record them as a fixture.

Not a pytest module: run it by hand from the checkout's root when Chromium or the fonts
change (it takes a minute or two), then commit the JSON it writes:

    .venv/bin/python -m tests.chromium.text_baselines --out tests/unit/fixtures/chromium_text_baselines.json

Every case is one absolutely positioned div (``white-space: pre``, black on transparent)
holding three lines, each a capital H moved right by four spaces per line so the lines'
glyphs never share a column: ``H\\n    H\\n        H``. An H stands on the baseline with a
flat foot (FreeType's light hinting at device scale 1 and unhinted outlines at 2 both keep
the foot on the pixel edge of a whole-pixel baseline), so a line's baseline in device px is
one below the last row of its H's ink (alpha >= 128). The cases cover DejaVu Sans, DejaVu
Serif (regular and bold) and DejaVu Sans Mono at sizes whose descent rounds up and down,
with ``line-height: normal``, numbers, percentages and px lengths including odd and
fractional ones and one smaller than the font, and a few boxes at fractional tops; each is
screenshotted at ``--force-device-scale-factor`` 1 and 2.

The fixture holds, per case and scale, the box and the three measured baselines in device px
of the page; tests/unit/test_text_baseline.py checks lamina.text.baseline against it, so the
suite needs no Chromium. ``--check`` also prints how many baselines the current rule gets
right (what the test asserts), without writing anything.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from demos.chromium import chromium_screenshot, chromium_version, find_chromium

FONTS = (("DejaVu Sans", 400), ("DejaVu Serif", 700), ("DejaVu Sans Mono", 400), ("DejaVu Serif", 400))
# 10, 13, 14 and 17 px: DejaVu's descent rounds down; the others round up.
SIZES = (10, 12, 13, 14, 16, 17, 20, 28, 33)
LINE_HEIGHTS = ("normal", "20px", "34px", "1", "1.3", "1.5", "17.5px", "21px", "13.3px", "0.8", "150%")
# A few boxes at fractional tops: (font, weight, size, line-height, top fraction).
FRACTIONAL = tuple((f, w, s, lh, frac) for f, w in FONTS[:2] for s in (13, 16) for lh in ("20px", "normal", "1.3")
                   for frac in (0.25, 0.5, 0.75))
TEXT = "H\n    H\n        H"
LINES = 3
PAGE_W, PAGE_H = 1000, 900  # CSS px per page (device scale 2 doubles each way)
GAP = 6


def _used_line_height_estimate(size: float, lh: str) -> float:
    if lh == "normal":
        return 1.17 * size
    if lh.endswith("px"):
        return float(lh[:-2])
    if lh.endswith("%"):
        return float(lh[:-1]) / 100.0 * size
    return float(lh) * size


def cases() -> list[dict]:
    out = [{"family": f, "weight": w, "size": s, "line_height": lh, "frac": 0.0}
           for f, w in FONTS for s in SIZES for lh in LINE_HEIGHTS]
    out += [{"family": f, "weight": w, "size": s, "line_height": lh, "frac": frac}
            for f, w, s, lh, frac in FRACTIONAL]
    return out


def place(all_cases: list[dict]) -> list[list[dict]]:
    """Lay the cases out in pages, left to right then down, each with a region (x0, y0,
    x1, y1) in CSS px that no other case's ink reaches."""
    pages: list[list[dict]] = [[]]
    x = y = GAP
    row_h = 0
    for case in all_cases:
        size = case["size"]
        lh = _used_line_height_estimate(size, case["line_height"])
        width = math.ceil(size * 0.65 * 8 + size * 1.2) + 2
        above = math.ceil(size * 0.4)  # a line height below the content's lets ink rise above the box
        height = above + math.ceil(LINES * max(lh, 1.2 * size) + size * 0.5)
        if x + width + GAP > PAGE_W:
            x, y = GAP, y + row_h + GAP
            row_h = 0
        if y + height + GAP > PAGE_H:
            pages.append([])
            x = y = GAP
            row_h = 0
        top = y + above + case["frac"]
        pages[-1].append({**case, "left": x, "top": top, "width": width,
                          "region": [x - 2, y, x + width, y + height]})
        x += width + GAP
        row_h = max(row_h, height)
    return pages


def page_html(page: list[dict]) -> str:
    divs = []
    for c in page:
        style = (f"left: {c['left']}px; top: {c['top']}px; width: {c['width']}px; "
                 f"font-family: '{c['family']}'; font-weight: {c['weight']}; font-size: {c['size']}px; "
                 f"line-height: {c['line_height']}")
        divs.append(f'<div style="{style}">{TEXT}</div>')
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>\n"
            f"html, body {{ margin: 0; padding: 0; width: {PAGE_W}px; height: {PAGE_H}px; overflow: hidden; }}\n"
            "div { position: absolute; white-space: pre; color: black; margin: 0; padding: 0; }\n"
            "</style></head><body>\n" + "\n".join(divs) + "\n</body></html>\n")


def measure(alpha: np.ndarray, region, scale: int) -> list[int] | None:
    """The baselines (device px) of the three H lines inked in ``region`` (CSS px) of the
    page's alpha channel: one below the last row of each H's ink; None if there are not
    three separate H's."""
    x0, y0, x1, y1 = (int(round(v * scale)) for v in region)
    crop = alpha[y0:y1, x0:x1]
    inked_cols = np.flatnonzero(crop.max(axis=0) > 0)
    if inked_cols.size == 0:
        return None
    splits = np.flatnonzero(np.diff(inked_cols) > 1) + 1
    clusters = np.split(inked_cols, splits)
    if len(clusters) != LINES:
        return None
    out = []
    for cols in clusters:
        rows = np.flatnonzero(crop[:, cols].max(axis=1) >= 128)
        if rows.size == 0:
            return None
        out.append(int(y0 + rows[-1] + 1))
    return out


def run(binary: str, scales=(1, 2)) -> dict:
    pages = place(cases())
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for scale in scales:
            for number, page in enumerate(pages):
                html_path = Path(tmp) / f"page{number}.html"
                html_path.write_text(page_html(page))
                png = Path(tmp) / f"page{number}@{scale}.png"
                chromium_screenshot(binary, html_path, png, PAGE_W, PAGE_H, device_scale_factor=scale)
                alpha = np.asarray(Image.open(png).convert("RGBA"))[..., 3]
                for c in page:
                    baselines = measure(alpha, c["region"], scale)
                    if baselines is None:
                        raise RuntimeError(f"could not find three H's of {c} at scale {scale}")
                    results.append({k: c[k] for k in ("family", "weight", "size", "line_height", "left", "top")}
                                   | {"scale": scale, "baselines": baselines})
    return {"chromium": chromium_version(binary), "text": TEXT, "cases": results}


COLUMNS = ("family", "weight", "size", "line_height", "left", "top", "scale", "baselines")


def fixture_json(data: dict) -> str:
    """The measurements as compact JSON: one row per case and scale, in COLUMNS order."""
    rows = [json.dumps([c[k] for k in COLUMNS], separators=(",", ":")) for c in data["cases"]]
    head = {"chromium": data["chromium"], "text": data["text"], "made_by": "tests/chromium/text_baselines.py",
            "columns": list(COLUMNS)}
    return json.dumps(head, indent=1)[:-2] + ',\n "rows": [\n' + ",\n".join(rows) + "\n]}\n"


def fixture_cases(data: dict) -> list[dict]:
    """The rows of a fixture written by fixture_json, as dicts."""
    return [dict(zip(data["columns"], row)) for row in data["rows"]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="the fixture to write (JSON)")
    parser.add_argument("--chromium", help="path of the chromium binary")
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--check", action="store_true", help="compare with lamina.text.baseline; write nothing")
    args = parser.parse_args(argv)
    binary = args.chromium or find_chromium()
    if not binary:
        print("no chromium binary on PATH (apt-get install chromium): nothing measured")
        return 1
    data = run(binary, tuple(args.scales))
    if args.check:
        from tests.unit.test_text_baseline import predicted_baselines

        wrong = [c for c in data["cases"] if predicted_baselines(c) != c["baselines"]]
        print(f"{data['chromium']}: {len(data['cases']) - len(wrong)} of {len(data['cases'])} cases right")
        for c in wrong[:40]:
            print("  ", c, "lamina:", predicted_baselines(c))
        return 1 if wrong else 0
    if not args.out:
        parser.error("--out (or --check) is needed")
    Path(args.out).write_text(fixture_json(data))
    print(f"{data['chromium']}: wrote {len(data['cases'])} measured cases to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
