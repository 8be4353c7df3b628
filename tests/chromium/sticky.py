"""Compare Lamina's position: sticky with headless Chromium's, on a scene file.

Not a pytest module: run it by hand, from the checkout's root,

    .venv/bin/python -m tests.chromium.sticky [SCENE] --out /tmp/sticky-compare

(SCENE defaults to tests/scenes/scroll-sticky.json). tests/chromium/compare.py writes
every layer as an absolutely positioned div, which cannot be sticky; here a sticky
layer is an in-flow div instead, placed by spacer divs (not margins: a sticky box's
position box is its margin box, so margins would change where it may go), in a flex
row where its siblings stick to left or right. Lamina places a child relative to its
parent's border box and CSS inside the border, so children move by the parent's border
width; text is dropped (fonts are compared elsewhere); scroll offsets are set by a
script, the page's on a 400 px wide root div that scrolls as Lamina's root does.

Writes OUT/page.html, OUT/chromium.png, OUT/lamina.png and OUT/sbs.png (Chromium |
Lamina | difference x4) and prints the largest difference and how many pixels differ
by more than 3 and 16 levels. Without a chromium binary it says so and exits 1.
tests/chromium/test_sticky_chromium.py runs the comparison in the suite.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
from PIL import Image

from demos.chromium import INSTALL_HINT, chromium_screenshot, find_chromium
from lamina import Renderer
from lamina.scene_file import scene_from_dict

ROOT = Path(__file__).resolve().parents[2]
SCROLL = re.compile(r"scroll-(top|left):\s*([\d.]+)px;?")


def _border(style: str) -> float:
    m = re.search(r"border:\s*([\d.]+)px", style or "")
    return float(m.group(1)) if m else 0.0


def _without_text(layers: list) -> list:
    return [{**{k: v for k, v in layer.items() if k not in ("text", "children")},
             "children": _without_text(layer.get("children", []))} for layer in layers]


def _html(layers: list, parent_style: str, row: bool, scrolls: list) -> str:
    inset = _border(parent_style)
    out, flow_end = [], 0.0
    for layer in layers:
        x, y, w, h = layer["box"]
        x, y = x - inset, y - inset
        style = layer.get("style", "")
        offsets = {axis: float(v) for axis, v in SCROLL.findall(style)}
        style = SCROLL.sub("", style)
        if offsets:
            scrolls.append((layer["id"], offsets.get("left", 0.0), offsets.get("top", 0.0)))
        children = layer.get("children", [])
        sideways = any("position: sticky" in c.get("style", "") and re.search(r"\b(left|right):", c.get("style", ""))
                       for c in children)
        if "position: sticky" in style:
            gap = (x if row else y) - flow_end
            if gap > 0:
                out.append(f'<div style="flex: none; {"width" if row else "height"}: {gap}px"></div>')
            cross = f"align-self: flex-start; margin-top: {y}px; " if row else ""
            css = f"flex: none; box-sizing: border-box; width: {w}px; height: {h}px; {cross}{style}"
            flow_end = x + w if row else y + h
        else:
            css = f"position: absolute; box-sizing: border-box; left: {x}px; top: {y}px; width: {w}px; height: {h}px; {style}"
        if sideways:
            css += "; display: flex; flex-direction: row; align-items: flex-start"
        out.append(f'<div id="{layer["id"]}" style="{css}">{_html(children, style, sideways, scrolls)}</div>')
    return "".join(out)


def page_html(scene: dict) -> str:
    scrolls: list = []
    body = _html(scene["layers"], "", False, scrolls)
    root = {axis: float(v) for axis, v in SCROLL.findall(scene.get("style", ""))}
    script = "".join(f'document.getElementById("{i}").scrollLeft={sx};document.getElementById("{i}").scrollTop={sy};'
                     for i, sx, sy in scrolls)
    script += f'document.getElementById("root").scrollTop={root.get("top", 0.0)};'
    return ("<!doctype html><html><head><style>html, body {margin: 0} div {scrollbar-width: none} "
            f"#root {{background: {scene.get('background', 'white')}; position: relative; width: {scene['width']}px; "
            f"height: {scene['height']}px; overflow: auto}}</style></head><body><div id='root'>{body}</div>"
            f"<script>{script}</script></body></html>")


def compare(scene_path: Path, out: Path, binary: str) -> dict:
    """Screenshot the scene's page with Chromium and render it with Lamina; write the
    pictures to ``out``; return the largest difference and the pixel counts over 3 and
    16 levels."""
    out.mkdir(parents=True, exist_ok=True)
    scene = json.loads(Path(scene_path).read_text(encoding="utf-8"))
    scene["layers"] = _without_text(scene["layers"])
    (out / "page.html").write_text(page_html(scene), encoding="utf-8")
    shot = chromium_screenshot(binary, out / "page.html", out / "chromium.png", scene["width"], scene["height"],
                               transparent=False)
    chrome = np.asarray(Image.open(shot).convert("RGBA")).astype(int)
    renderer = Renderer()
    try:
        lamina = scene_from_dict(scene).render(renderer).image.astype(int)
    finally:
        renderer.release()
    Image.fromarray(lamina.astype(np.uint8), "RGBA").save(out / "lamina.png")
    diff = np.abs(chrome - lamina).max(axis=2)
    amplified = np.clip(diff * 4, 0, 255)
    sbs = np.concatenate([chrome, lamina, np.dstack([amplified] * 3 + [np.full_like(diff, 255)])], axis=1)
    Image.fromarray(sbs.astype(np.uint8), "RGBA").save(out / "sbs.png")
    return {"max": int(diff.max()), "over_3": int((diff > 3).sum()), "over_16": int((diff > 16).sum())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene", nargs="?", default=str(ROOT / "tests/scenes/scroll-sticky.json"))
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    binary = find_chromium()
    if binary is None:
        print(f"no chromium binary: {INSTALL_HINT}", file=sys.stderr)
        return 1
    result = compare(Path(args.scene), Path(args.out), binary)
    print(f"max difference {result['max']}; {result['over_3']} px over 3 levels, {result['over_16']} over 16; "
          f"pictures in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
