"""Lamina against headless Chromium on the suite's SVG filter scenes (issue 27 item 6).

Not a pytest module: run it by hand, from the checkout's root,

    .venv/bin/python -m tests.chromium.compare_svg                       # every tests/scenes/svg-*.json
    .venv/bin/python -m tests.chromium.compare_svg -k transfer --out /tmp/cmp

Every ``tests/scenes/svg-*.json`` is compared (scenes added later are picked up by the
glob), as ``tests.chromium.compare --scenes`` compares scene files: the scene's SVG markup
is inlined in the page, each layer an absolutely positioned div. For each scene it prints
one row for the whole frame and one per top-level layer (the layer's box grown by
``--margin`` px, where a filter region past the box shows): mean level difference
(premultiplied RGB), the % of pixels whose largest channel differs by more than 24 levels,
and the largest difference. Pictures (NAME.chromium.png, NAME.lamina.png, NAME.sbs.png:
Chromium | Lamina | diff x4) go to OUT, the table to OUT/table.md (Markdown, as the README
quotes it). Without a chromium binary it says so and exits 0 (``--require-chromium``: 1).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from demos.chromium import chromium_version, find_chromium
from tests.chromium.compare import compare, lamina_render, run_case, scene_file_case, side_by_side

SUITE = Path(__file__).resolve().parents[2] / "tests" / "scenes"
TABLE_HEAD = ["| scene | layer | mean | % > 24 | max |", "|---|---|---|---|---|"]


@dataclass(frozen=True)
class Row:
    """One line of the table: a scene's whole frame (``layer`` "all") or one layer's area."""

    scene: str
    layer: str
    mean: float
    percent_over_24: float
    max: float

    def markdown(self) -> str:
        return f"| {self.scene} | {self.layer} | {self.mean:.2f} | {self.percent_over_24:.2f} | {self.max:.0f} |"


def svg_scenes(pattern: str = "*") -> list[Path]:
    """The suite's SVG filter scenes whose name matches the glob ``pattern``."""
    return [p for p in sorted(SUITE.glob("svg-*.json")) if fnmatch.fnmatch(p.stem, f"*{pattern}*")]


def layer_areas(path: Path, margin: int) -> dict[str, tuple[int, int, int, int]]:
    """Each top-level layer's box grown by ``margin`` px and cut to the scene: (x0, y0, x1, y1)."""
    data = json.loads(path.read_text())
    out = {}
    for layer in data.get("layers", []):
        x, y, w, h = layer["box"]
        out[layer["id"]] = (max(0, x - margin), max(0, y - margin),
                            min(data["width"], x + w + margin), min(data["height"], y + h + margin))
    return out


def _row(scene: str, layer: str, chrome: np.ndarray, ours: np.ndarray) -> Row:
    result = compare(chrome, ours, [])
    return Row(scene, layer, result["mean_diff"], result["percent_over_24"], result["max_diff"])


def compare_scene(path: Path, out: Path, binary: str, gpu: str = "disable", margin: int = 4,
                  chrome: np.ndarray | None = None) -> list[Row]:
    """The scene's rows (frame, then each layer); its pictures under ``out``. ``chrome``: a
    screenshot already taken (else Chromium is run here)."""
    case = scene_file_case(path)
    if chrome is None:
        chrome = run_case(case, out, binary, gpu)["chrome"]
    ours, graph = lamina_render(case)
    Image.fromarray(ours, "RGBA").save(out / f"{case.name}.lamina.png")
    (out / f"{case.name}.lamina-graph.txt").write_text(graph)
    Image.fromarray(side_by_side(chrome, ours), "RGBA").save(out / f"{case.name}.sbs.png")
    rows = [_row(path.stem, "all", chrome, ours)]
    for layer, (x0, y0, x1, y1) in layer_areas(path, margin).items():
        rows.append(_row(path.stem, layer, chrome[y0:y1, x0:x1], ours[y0:y1, x0:x1]))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", default="*", help="glob over the scenes' names (default: all svg-*)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/lamina-chromium-svg"),
                        help="folder for the pictures and table.md (default /tmp/lamina-chromium-svg)")
    parser.add_argument("--margin", type=int, default=4, help="px around each layer's box in its row (default 4)")
    parser.add_argument("-j", type=int, default=2, help="Chromium processes at once")
    parser.add_argument("--chromium", help="path of the chromium binary")
    parser.add_argument("--chromium-gpu", choices=("disable", "swiftshader"), default="disable")
    parser.add_argument("--require-chromium", action="store_true", help="exit 1 instead of 0 without chromium")
    args = parser.parse_args(argv)
    binary = args.chromium or find_chromium()
    if not binary:
        print("SKIPPED: no chromium binary on PATH (apt-get install chromium); nothing compared.")
        return 1 if args.require_chromium else 0
    paths = svg_scenes(args.k)
    args.out.mkdir(parents=True, exist_ok=True)
    version = chromium_version(binary)
    print(f"Lamina vs {version}: {len(paths)} SVG filter scenes; pictures in {args.out}")
    print("\n".join(TABLE_HEAD), flush=True)
    rows: list[Row] = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        shots = {p: pool.submit(run_case, scene_file_case(p), args.out, binary, args.chromium_gpu) for p in paths}
        for path in paths:
            for row in compare_scene(path, args.out, binary, args.chromium_gpu, args.margin,
                                     shots[path].result()["chrome"]):
                rows.append(row)
                print(row.markdown(), flush=True)
    lines = [f"Lamina vs {version} (--chromium-gpu {args.chromium_gpu}, layer rows: box + {args.margin} px)", "",
             *TABLE_HEAD, *(r.markdown() for r in rows), ""]
    (args.out / "table.md").write_text("\n".join(lines))
    print(f"\nwrote {args.out / 'table.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
