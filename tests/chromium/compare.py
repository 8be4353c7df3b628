"""Compare Lamina with headless Chromium on blending, isolation, backdrop-filter, conic
gradients and dashed / dotted borders.

Not a pytest module (its name does not start with ``test_``): run it by hand, from the
checkout's root,

    .venv/bin/python -m tests.chromium.compare --out /tmp/chromium-compare [-k blend] [-j 2]

Each case is one small scene, given once as data. The script writes it as an HTML page
(every layer an absolutely positioned div with left/top/width/height, margin 0, the same
CSS text), screenshots it with ``chromium --headless`` at device scale factor 1 (``--dpr 2``:
2, and Lamina's scene at device_scale_factor 2), renders the same scene with Lamina, and compares the two images: largest and mean channel
difference, how many pixels differ by more than 3 levels, and the colours at chosen probe
points. For every case it writes to OUT:

    NAME.html  NAME.chromium.png  NAME.lamina.png  NAME.sbs.png (Chromium | Lamina | diff x4)

plus ``results.json`` and ``results.md`` (a table of all cases). ``--scenes FILE...``
compares Lamina scene files instead (the golden scenes of tests/scenes, say; a layer's
text goes into its div, the root's style onto <body>, where its fonts are inherited);
``--write-pages DIR`` only writes the cases' pages (to open in any browser). Without a chromium
binary it prints why and exits 0 (``--require-chromium`` makes that exit 1).

tests/chromium/compare_dpr.py runs named sets of scene files (static scale, text,
backdrop-filter combinations) at DPR 1 and 2 in one command and prints one table.

Chromium is Debian's (``apt-get install chromium``), driven by ``demos.chromium`` (its
flags are documented there). ``--chromium-gpu swiftshader`` drops ``--disable-gpu`` and composites with SwiftShader
(viz's GPU path, as on a real GPU) instead of the software compositor.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import html
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from demos.chromium import chromium_screenshot, chromium_version, find_chromium

BLEND_MODES = [
    "normal", "multiply", "screen", "overlay", "darken", "lighten", "color-dodge", "color-burn",
    "hard-light", "soft-light", "difference", "exclusion", "hue", "saturation", "color",
    "luminosity", "plus-lighter",
]

# --------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    name: str
    group: str  # blend | isolation | backdrop | baseline | conic | border
    width: int
    height: int
    layers: list  # scene-file layers: {"id", "box", "style", "children"}
    background: str = "white"
    probes: list = field(default_factory=list)  # (x, y, label)
    note: str = ""
    style: str = ""  # the root layer's style: on <body> in the page (inherited font and text properties)
    svg: str = ""  # the scene's SVG markup (its <filter>s, for filter: url(#id)): inline in the page, drawing nothing
    path: Path | None = None  # the scene file (its folder holds feImage's pictures: images/ is copied next to the page)


def L(id_, box, style="", children=(), html_style=None, text=None):
    """A layer as in a scene file; ``html_style`` is extra CSS for the HTML page only
    (say ``position: relative``, which Lamina has no property for); ``text`` its text."""
    out = {"id": id_, "box": list(box), "style": style}
    if text is not None:
        out["text"] = text
    if children:
        out["children"] = list(children)
    if html_style:
        out["html_style"] = html_style
    return out


def scene_layers(layers):
    """The layers without their HTML-only keys, for Lamina."""
    return [{**{k: v for k, v in layer.items() if k not in ("html_style", "children")},
             **({"children": scene_layers(layer["children"])} if layer.get("children") else {})}
            for layer in layers]


# A backdrop of flat colour bands (top) and a grey ramp and a hue ramp (bottom), so blend
# maths can be read at flat probe points and across continuous ranges.
BANDS = ["#ffffff", "#000000", "#ff0000", "#00ff00", "#0000ff", "#ffff00", "#808080", "#cc3399"]


def blend_backdrop(width=160):
    w = width // len(BANDS)
    layers = [L(f"band{i}", (i * w, 0, w, 56), f"background-color: {c}") for i, c in enumerate(BANDS)]
    layers.append(L("grey-ramp", (0, 56, width, 22), "background: linear-gradient(90deg, #000, #fff)"))
    layers.append(L("hue-ramp", (0, 78, width, 22),
                    "background: linear-gradient(90deg, #f00, #ff0, #0f0, #0ff, #00f, #f0f, #f00)"))
    return layers


def blend_probes(width=160):
    w = width // len(BANDS)
    probes = []
    for i, c in enumerate(BANDS):
        probes.append((i * w + w // 2, 20, f"el1 over {c}"))
        probes.append((i * w + w // 2, 44, f"el2 over {c}"))
    probes += [(40, 66, "el1 over grey 25%"), (120, 66, "el2 over grey 75%"), (60, 88, "el1 over hue ramp")]
    return probes


def blend_cases():
    cases = [Case("baseline-blend-backdrop", "baseline", 160, 100, blend_backdrop(),
                  probes=blend_probes(), note="the backdrop alone")]
    for mode in BLEND_MODES:
        layers = blend_backdrop() + [
            # two translucent elements: a warm one (top half) and a cool one (bottom half)
            L("el1", (4, 8, 152, 24), f"background-color: rgba(230, 120, 40, 0.8); mix-blend-mode: {mode}"),
            L("el2", (4, 36, 152, 56), f"background-color: rgba(60, 140, 220, 0.7); mix-blend-mode: {mode}"),
        ]
        cases.append(Case(f"blend-{mode}", "blend", 160, 100, layers, probes=blend_probes()))
    return cases


# Isolation: a container with no background holds a grey patch (normal) and a white
# element with mix-blend-mode: difference that overhangs the patch. Where it lies over the
# patch it shows the patch inverted either way; where it lies over nothing in the
# container it shows white if the container is an isolated group, and the page's bands
# inverted if it is not.
ISO_BG = [L("bands", (0, 0, 200, 80),
            "background: linear-gradient(90deg, #f00 0 25%, #0c0 25% 50%, #00f 50% 75%, #fc0 75%)")]


def iso_container(style, html_style=None):
    return [L("container", (20, 10, 160, 60), style, html_style=html_style, children=[
        L("patch", (0, 0, 60, 60), "background-color: #888"),
        L("blender", (30, 10, 120, 40), "background-color: white; mix-blend-mode: difference"),
    ])]


ISO_PROBES = [(60, 40, "blender over patch"), (90, 40, "blender over band 2 (green)"),
              (125, 40, "blender over band 3 (blue)"), (160, 40, "blender over band 4 (yellow)")]


def isolation_cases():
    variants = {
        "plain": ("", "no stacking context: blends with the page"),
        "isolate": ("isolation: isolate", "isolated group"),
        "z-index": ("z-index: 1", "position: absolute + z-index: 1 only (Lamina: z-index on a layer)"),
        "z-index-0": ("z-index: 0", "z-index: 0"),
        "translate0": ("transform: translate(0)", "transform: translate(0) only"),
        "opacity": ("opacity: 0.999", "opacity < 1"),
        "will-change": ("will-change: transform", "will-change: transform"),
        "overflow": ("overflow: hidden", "overflow: hidden (not a stacking context)"),
    }
    cases = []
    for key, (style, note) in variants.items():
        cases.append(Case(f"isolation-{key}", "isolation", 200, 80, ISO_BG + iso_container(style),
                          probes=ISO_PROBES, note=note))
    # The same with position: relative in the page (in flow at 0,0, so left/top place it
    # where the absolute one is).
    cases.append(Case("isolation-z-index-relative", "isolation", 200, 80,
                      ISO_BG + iso_container("z-index: 1", html_style="position: relative"),
                      probes=ISO_PROBES, note="position: relative; z-index: 1 (HTML); z-index: 1 (Lamina)"))
    # Nested: a blender in a plain container inside an isolated one (it blends with the
    # isolated group: the plain container is transparent to it).
    nested = ISO_BG + [L("outer", (20, 10, 160, 60), "isolation: isolate", [
        L("patch", (0, 0, 60, 60), "background-color: #888"),
        L("inner", (0, 0, 160, 60), "", [
            L("blender", (30, 10, 120, 40), "background-color: white; mix-blend-mode: difference"),
        ]),
    ])]
    cases.append(Case("isolation-nested", "isolation", 200, 80, nested, probes=ISO_PROBES,
                      note="plain container inside an isolated one"))
    # The isolated group itself blends with the page.
    group_blends = ISO_BG + [L("container", (20, 10, 160, 60), "isolation: isolate; mix-blend-mode: multiply", [
        L("patch", (0, 0, 60, 60), "background-color: #888"),
        L("blender", (30, 10, 120, 40), "background-color: white; mix-blend-mode: difference"),
    ])]
    cases.append(Case("isolation-group-multiply", "isolation", 200, 80, group_blends, probes=ISO_PROBES,
                      note="an isolated group that itself multiplies with the page"))
    return cases


# Backdrop-filter: vertical stripes of strong colours, and the panel's edges on stripe
# boundaries with a different colour on each side, so what bleeds in is visible.
STRIPES = [L("stripes", (0, 0, 200, 140),
             "background: repeating-linear-gradient(90deg, #e22 0 10px, #fff 10px 20px, #22e 20px 30px, #111 30px 40px)"),
           L("bar", (0, 60, 200, 20), "background-color: #0a0")]


def panel_probes(x, y, w, h):
    return [(x + 1, y + h // 2, "panel left edge +1"), (x + 5, y + h // 2, "left edge +5"),
            (x + w // 2, y + 1, "top edge +1"), (x + w // 2, y + h // 2, "centre"),
            (x + w - 2, y + h // 2, "right edge -2"), (x + w // 2, y + h - 2, "bottom edge -2"),
            (x - 2, y + h // 2, "outside left -2"), (x + 12, y + 8, "near top-left corner")]


def backdrop_cases():
    P = (40, 30, 120, 80)
    cases = [Case("baseline-stripes", "baseline", 200, 140, STRIPES, probes=panel_probes(*P), note="the stripes alone")]

    def add(name, layers, note, probes=None, width=200, height=140):
        cases.append(Case(name, "backdrop", width, height, STRIPES + layers, probes=probes or panel_probes(*P), note=note))

    add("backdrop-blur", [L("panel", P, "backdrop-filter: blur(6px)")], "blur(6px), no background")
    add("backdrop-blur-tint", [L("panel", P, "backdrop-filter: blur(6px); background-color: rgba(255, 255, 255, 0.3)")],
        "blur(6px) under a 30% white background")
    add("backdrop-blur-radius", [L("panel", P, "backdrop-filter: blur(6px); border-radius: 16px")],
        "blur(6px), border-radius 16px")
    add("backdrop-blur-opacity", [L("panel", P, "backdrop-filter: blur(6px); opacity: 0.5")],
        "blur(6px), opacity 0.5 on the panel")
    add("backdrop-grayscale", [L("panel", P, "backdrop-filter: grayscale(1)")], "grayscale(1)")
    add("backdrop-chain", [L("panel", P, "backdrop-filter: grayscale(1) brightness(1.4) hue-rotate(90deg)")],
        "grayscale(1) brightness(1.4) hue-rotate(90deg)")
    add("backdrop-blur-offscreen-left", [L("panel", (-40, 30, 120, 80), "backdrop-filter: blur(6px)")],
        "panel 40px off the left edge", probes=panel_probes(0, 30, 80, 80))
    add("backdrop-blur-offscreen-bottom-right", [L("panel", (120, 90, 120, 80), "backdrop-filter: blur(6px)")],
        "panel off the right and bottom edges", probes=panel_probes(120, 90, 80, 50))
    add("backdrop-blur-rotated", [L("panel", P, "backdrop-filter: blur(6px); transform: rotate(10deg)")],
        "rotate(10deg)", probes=[(100, 70, "centre"), (60, 70, "left inside"), (140, 70, "right inside"),
                                 (100, 40, "top inside"), (44, 32, "outside the rotated corner")])
    add("backdrop-in-opacity-root", [L("container", (20, 20, 160, 100), "opacity: 0.8", [
        L("patch", (0, 0, 60, 100), "background-color: #fa0"),
        L("panel", (20, 10, 120, 80), "backdrop-filter: blur(6px)"),
    ])], "panel inside an opacity 0.8 container (a backdrop root): sees only the orange patch",
        probes=[(50, 70, "panel over patch"), (130, 70, "panel beyond the patch"), (90, 70, "panel middle"),
                (30, 70, "patch outside panel")])
    add("backdrop-in-transform", [L("container", (20, 20, 160, 100), "transform: translate(5px, 0)", [
        L("patch", (0, 0, 60, 100), "background-color: #fa0"),
        L("panel", (20, 10, 120, 80), "backdrop-filter: blur(6px)"),
    ])], "panel inside a container with only a transform (not a backdrop root): reads the page too",
        probes=[(55, 70, "panel over patch"), (135, 70, "panel beyond the patch"), (95, 70, "panel middle")])
    add("backdrop-in-zindex", [L("container", (20, 20, 160, 100), "z-index: 1", [
        L("patch", (0, 0, 60, 100), "background-color: #fa0"),
        L("panel", (20, 10, 120, 80), "backdrop-filter: blur(6px)"),
    ])], "panel inside a z-index container (not a backdrop root)",
        probes=[(50, 70, "panel over patch"), (130, 70, "panel beyond the patch"), (90, 70, "panel middle")])
    return cases


# Conic gradients (CSS Images 4 §3.3): colour wheels, `from` and `at`, hints, two-position
# and hard stops, repeating, transparency, tiles.
def conic_cases():
    specs = {
        "wheel": "conic-gradient(red, yellow, lime, aqua, blue, magenta, red)",
        "from-at": "conic-gradient(from 45deg at 30% 70%, #f06, #fc0 25%, 60%, #06f 75%)",
        "hard-stops": "conic-gradient(#e33 0 20%, #3a3 0 45%, #36e 0 80%, #fc3 0)",
        "repeating": "repeating-conic-gradient(from 10deg, #222 0 15deg, #eee 0 30deg)",
        "transparent": "conic-gradient(at 40px 30px, red, transparent 70%)",
        "outside-stops": "conic-gradient(from -90deg, blue -30%, red 50%, lime 130%)",
        "tiles": "conic-gradient(#fff 0.25turn, #000 0.25turn 0.5turn, #fff 0.5turn 0.75turn, #000 0.75turn) "
                 "0 0 / 20px 20px",
    }
    return [Case(f"conic-{name}", "conic", 160, 100,
                 [L("g", (10, 10, 140, 80), f"background: {css}")],
                 probes=[(40, 30, "upper left"), (120, 30, "upper right"), (40, 75, "lower left"),
                         (120, 75, "lower right")], note=css)
            for name, css in specs.items()]


# Dashed and dotted borders (CSS Backgrounds 3 §4.2): widths either side of Blink's 3 px
# thresholds, short sides (solid, two shrunk dashes, one stroke of dots), unequal widths,
# a translucent colour, and rounded corners (Lamina's own layout there: see
# lamina.compositor.dashes).
def border_cases():
    specs = {
        "dashed-1": ("1px dashed #123", 100, 60), "dashed-2": ("2px dashed #123", 100, 60),
        "dashed-3": ("3px dashed #123", 100, 60), "dashed-4": ("4px dashed #123", 100, 60),
        "dashed-8": ("8px dashed #123", 130, 70), "dashed-short": ("4px dashed #123", 38, 18),
        "dotted-1": ("1px dotted #123", 100, 60), "dotted-2": ("2px dotted #123", 97, 57),
        "dotted-3": ("3px dotted #123", 100, 60), "dotted-4": ("4px dotted #123", 100, 60),
        "dotted-10": ("10px dotted #123", 130, 70), "dotted-short": ("8px dotted #123", 40, 17),
        "dashed-translucent": ("6px dashed rgb(200 0 80 / 50%)", 100, 60),
    }
    cases = [Case(f"border-{name}", "border", 140, 90, [L("b", (10, 10, w, h), f"border: {css}")],
                  note=css) for name, (css, w, h) in specs.items()]
    for name, style in {"dashed-widths": "border-style: dashed; border-width: 2px 6px 4px 8px",
                        "dotted-widths": "border-style: dotted; border-width: 6px 8px 4px 10px",
                        "dashed-radius": "border: 6px dashed #123; border-radius: 18px",
                        "dotted-radius": "border: 6px dotted #123; border-radius: 20px",
                        "dashed-radius-ellipse": "border: 4px dashed #123; border-radius: 40px / 16px"}.items():
        cases.append(Case(f"border-{name}", "border", 140, 90, [L("b", (10, 10, 120, 70), style)], note=style))
    return cases


def all_cases():
    return blend_cases() + isolation_cases() + backdrop_cases() + conic_cases() + border_cases()


def _style_text(style) -> str:
    if isinstance(style, dict):
        return "; ".join(f"{k}: {v}" for k, v in style.items())
    return style or ""


def scene_file_case(path: Path) -> Case:
    """A Lamina scene file as a case (layers with CSS text or objects, and their text; the
    root's style goes on <body>, where its inherited properties reach the layers; no
    url() images)."""
    data = json.loads(Path(path).read_text())
    layers_text = json.dumps(data.get("layers", []))
    if "animations" in json.dumps(data) or "url(" in layers_text.replace("url(#", ""):
        raise ValueError(f"{path}: animations and url() images are not written to HTML here")

    def conv(layer):
        return L(layer["id"], layer["box"], _style_text(layer.get("style")),
                 [conv(c) for c in layer.get("children", [])], text=layer.get("text"))

    return Case(f"scene-{Path(path).stem}", "scene", data["width"], data["height"],
                [conv(x) for x in data.get("layers", [])], background=data.get("background", "white"),
                note=data.get("description", "")[:120], style=_style_text(data.get("style")), svg=data.get("svg", ""),
                path=Path(path))


# --------------------------------------------------------------------------------------
# HTML and Chromium


def _div(layer, indent=1):
    x, y, w, h = layer["box"]
    pos = f"left: {x}px; top: {y}px; width: {w}px; height: {h}px;"
    style = layer.get("style") or ""
    if layer.get("html_style"):
        style = f"{style}; {layer['html_style']}" if style else layer["html_style"]
    inner = "".join(_div(c, indent + 1) for c in layer.get("children", []))
    pad = "  " * indent
    body = f"\n{inner}{pad}" if inner else ""
    # The text right after the tag: nothing added to it, for white-space: pre and pre-wrap.
    text = html.escape(layer.get("text") or "", quote=False)
    return f'{pad}<div id="{html.escape(layer["id"])}" style="{pos} {html.escape(style)}">{text}{body}</div>\n'


def _hidden_svg(markup: str) -> str:
    """The scene's SVG in the page: its filters resolve url(#id); it draws nothing and
    takes no space (width and height 0, absolutely placed)."""
    if not markup:
        return ""
    return markup.replace("<svg ", '<svg width="0" height="0" style="position: absolute" ', 1) + "\n"


def case_html(case: Case) -> str:
    divs = "".join(_div(layer) for layer in case.layers)
    if case.svg:  # the filters url(#id) names, in a box of no size (a display: none one may not be referenced)
        divs = f'<div style="width: 0; height: 0; overflow: hidden">{case.svg}</div>\n{divs}'
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>\n"
        f"html {{ background: {case.background}; }}\n"
        f"html, body {{ margin: 0; padding: 0; width: {case.width}px; height: {case.height}px; overflow: hidden; }}\n"
        "div { position: absolute; box-sizing: border-box; }\n"
        f"</style></head><body style=\"{html.escape(case.style)}\">\n{_hidden_svg(case.svg)}{divs}</body></html>\n"
    )


# --------------------------------------------------------------------------------------
# Lamina


def lamina_render(case: Case, dpr: float = 1) -> tuple[np.ndarray, str]:
    from lamina import Renderer, load_scene
    from lamina.scene_file import scene_from_dict

    if case.path is not None and "<feImage" in case.svg:  # the file itself: its folder holds feImage's pictures
        scene = load_scene(case.path)
        scene.device_scale_factor = dpr
        with Renderer() as renderer:
            frame = scene.render(renderer)
            return np.array(frame.image), frame.graph.describe()
    scene = scene_from_dict({"lamina": 1, "width": case.width, "height": case.height,
                             "background": case.background, "layers": scene_layers(case.layers),
                             **({"device_scale_factor": dpr} if dpr != 1 else {}),
                             **({"style": case.style} if case.style else {}),
                             **({"svg": case.svg} if case.svg else {})})
    # A renderer of its own per case: a shared one keeps the last frame and matches layers
    # by id, so a case that differs from the one before only in its blend mode (all the
    # blend-* cases) would be drawn as nothing-changed (a retained-frame bug seen in
    # Lamina at 9cc5422: multiply -> screen on the same ids is not redrawn).
    with Renderer() as renderer:
        frame = scene.render(renderer)
        return np.array(frame.image), frame.graph.describe()


# --------------------------------------------------------------------------------------
# Comparison


def premultiply(img: np.ndarray) -> np.ndarray:
    f = img.astype(np.float64)
    f[..., :3] *= f[..., 3:4] / 255.0
    return f


def compare(chrome: np.ndarray, lamina: np.ndarray, probes, dpr: int = 1) -> dict:
    a, b = premultiply(chrome), premultiply(lamina)
    d = np.abs(a - b)
    per_pixel = d.max(axis=2)
    y, x = np.unravel_index(int(np.argmax(per_pixel)), per_pixel.shape)
    out = {
        "max_diff": round(float(per_pixel.max()), 1),
        "mean_diff": round(float(d[..., :3].mean()), 3),
        "pixels_over_3": int((per_pixel > 3.5).sum()),
        "pixels_over_16": int((per_pixel > 16.5).sum()),
        "pixels_over_24": int((per_pixel > 24.5).sum()),
        "percent_over_24": round(100.0 * float((per_pixel > 24.5).mean()), 2),
        "worst_at": [int(x), int(y)],
        "worst": {"chromium": chrome[y, x].tolist(), "lamina": lamina[y, x].tolist()},
        "probes": [],
    }
    for px, py, label in probes:
        px, py = int(px * dpr), int(py * dpr)  # probes are CSS px
        if 0 <= px < chrome.shape[1] and 0 <= py < chrome.shape[0]:
            c, lm = chrome[py, px].tolist(), lamina[py, px].tolist()
            out["probes"].append({"at": [px, py], "label": label, "chromium": c, "lamina": lm,
                                  "diff": int(np.abs(premultiply(chrome[py:py + 1, px:px + 1])
                                                     - premultiply(lamina[py:py + 1, px:px + 1])).max().round())})
    return out


def side_by_side(chrome: np.ndarray, lamina: np.ndarray, scale: int = 2) -> np.ndarray:
    h, w = chrome.shape[:2]
    diff = np.abs(chrome.astype(np.int32) - lamina.astype(np.int32))[..., :3].max(axis=2)
    diff_rgb = np.clip(diff * 4, 0, 255).astype(np.uint8)
    diff_img = np.dstack([diff_rgb, diff_rgb, diff_rgb, np.full_like(diff_rgb, 255)])
    gap = np.full((h, 4, 4), (255, 0, 255, 255), np.uint8)
    row = np.concatenate([chrome, gap, lamina, gap, diff_img], axis=1)
    return row.repeat(scale, axis=0).repeat(scale, axis=1)


def run_case(case: Case, out: Path, binary: str, gpu: str, dpr: int = 1) -> dict:
    html_path = out / f"{case.name}.html"
    html_path.write_text(case_html(case))
    if case.path is not None and (case.path.parent / "images").is_dir() and "<feImage" in case.svg:
        shutil.copytree(case.path.parent / "images", out / "images", dirs_exist_ok=True)  # relative hrefs
    shot = chromium_screenshot(binary, html_path, out / f"{case.name}.chromium.png", case.width, case.height, gpu=gpu,
                               device_scale_factor=dpr)
    chrome = np.asarray(Image.open(shot).convert("RGBA"))
    return {"chrome": chrome}


def compare_scene_file(path: Path, out: Path, binary: str, gpu: str = "disable") -> dict:
    """A Lamina scene file drawn by Chromium (its page written to ``out``) and by Lamina,
    compared with no probes: ``compare``'s result (mean, % over 24, max)."""
    case = scene_file_case(path)
    chrome = run_case(case, out, binary, gpu)["chrome"]
    ours, _ = lamina_render(case)
    return compare(chrome, ours, [])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder for the pages, screenshots and results (needed to compare)")
    parser.add_argument("-k", default="*", help="glob over case names (default: all)")
    parser.add_argument("-j", type=int, default=2, help="Chromium processes at once")
    parser.add_argument("--chromium", help="path of the chromium binary")
    parser.add_argument("--chromium-gpu", choices=("disable", "swiftshader"), default="disable")
    parser.add_argument("--require-chromium", action="store_true", help="exit 1 instead of 0 without chromium")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--dpr", type=int, default=1, choices=(1, 2, 3, 4),
                        help="device pixel ratio: Chromium's --force-device-scale-factor and Lamina's "
                             "device_scale_factor (default 1)")
    parser.add_argument("--scenes", nargs="+", metavar="SCENE.json",
                        help="compare these Lamina scene files instead of the built-in cases")
    parser.add_argument("--write-pages", metavar="DIR",
                        help="only write the cases' HTML pages to DIR and exit")
    args = parser.parse_args(argv)

    pattern = args.k if any(ch in args.k for ch in "*?[") else f"*{args.k}*"
    pool_of_cases = [scene_file_case(Path(p)) for p in args.scenes] if args.scenes else all_cases()
    cases = [c for c in pool_of_cases if fnmatch.fnmatch(c.name, pattern)]
    if args.list:
        for c in cases:
            print(f"{c.name:40s} {c.width}x{c.height}  {c.note}")
        return 0
    if args.write_pages:
        pages = Path(args.write_pages)
        pages.mkdir(parents=True, exist_ok=True)
        for c in cases:
            (pages / f"{c.name}.html").write_text(case_html(c))
        print(f"wrote {len(cases)} page(s) to {pages}")
        return 0
    if not args.out:
        parser.error("--out is needed to compare (or use --list / --write-pages)")
    binary = args.chromium or find_chromium()
    if not binary:
        print("SKIPPED: no chromium binary on PATH (apt-get install chromium); nothing compared.")
        return 1 if args.require_chromium else 0

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    version = chromium_version(binary)
    print(f"{version}; {len(cases)} case(s); output in {out}")

    # Chromium runs in subprocesses (in parallel); Lamina renders in this process.
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        futures = {c.name: pool.submit(run_case, c, out, binary, args.chromium_gpu, args.dpr) for c in cases}
        lamina = {}
        for c in cases:
            img, graph = lamina_render(c, args.dpr)
            lamina[c.name] = img
            Image.fromarray(img, "RGBA").save(out / f"{c.name}.lamina.png")
            (out / f"{c.name}.lamina-graph.txt").write_text(graph)
        results = []
        for c in cases:
            try:
                chrome = futures[c.name].result()["chrome"]
            except Exception as err:  # noqa: BLE001 - a failed screenshot is reported, the rest go on
                results.append({"name": c.name, "group": c.group, "note": c.note, "error": str(err)})
                print(f"{c.name:40s} ERROR {err}")
                continue
            r = compare(chrome, lamina[c.name], c.probes, args.dpr)
            Image.fromarray(side_by_side(chrome, lamina[c.name]), "RGBA").save(out / f"{c.name}.sbs.png")
            results.append({"name": c.name, "group": c.group, "note": c.note, **r})
            print(f"{c.name:40s} max {r['max_diff']:5.0f}  mean {r['mean_diff']:6.2f}  "
                  f">3: {r['pixels_over_3']:5d}  >16: {r['pixels_over_16']:5d}  >24: {r['percent_over_24']:5.2f}%  "
                  f"worst at {tuple(r['worst_at'])}")

    from lamina import renderer_info

    try:
        info = renderer_info()
    except Exception as err:  # noqa: BLE001
        info = str(err)
    summary = {"chromium": version, "chromium_gpu": args.chromium_gpu, "device_scale_factor": args.dpr, "lamina_renderer": str(info), "cases": results}
    (out / "results.json").write_text(json.dumps(summary, indent=1))
    lines = [f"# Lamina vs {version} (--chromium-gpu {args.chromium_gpu}, device scale factor {args.dpr})", "",
             "| case | max | mean | px > 3 | px > 16 | % > 24 | note |", "|---|---|---|---|---|---|---|"]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['name']} | error | | | | | {r['error'][:80]} |")
        else:
            lines.append(f"| {r['name']} | {r['max_diff']:.0f} | {r['mean_diff']:.2f} | {r['pixels_over_3']} | "
                         f"{r['pixels_over_16']} | {r['percent_over_24']:.2f} | {r['note']} |")
    lines += ["", "## Probes", ""]
    for r in results:
        if "error" in r or not r["probes"]:
            continue
        lines.append(f"### {r['name']}")
        lines.append("| at | what | Chromium | Lamina | diff |")
        lines.append("|---|---|---|---|---|")
        for p in r["probes"]:
            lines.append(f"| {tuple(p['at'])} | {p['label']} | {tuple(p['chromium'])} | {tuple(p['lamina'])} | {p['diff']} |")
        lines.append("")
    (out / "results.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'results.md'}")
    return 0 if all("error" not in r for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
