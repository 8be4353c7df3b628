"""Lamina against headless Chromium at device pixel ratio 1 and 2, over named sets of
scene files, in one command and one table (issue 25 item 6).

Not a pytest module: run it by hand, from the checkout's root,

    .venv/bin/python -m tests.chromium.compare_dpr                 # every set, DPR 1 and 2
    .venv/bin/python -m tests.chromium.compare_dpr --set scale     # the static-scale scenes only
    .venv/bin/python -m tests.chromium.compare_dpr --set text --dpr 2 --out /tmp/cmp

The sets (scene files, compared as ``tests.chromium.compare --scenes`` compares them):

* ``scale``: tests/chromium/scenes' statically scaled layers: scale(4) of 20 px text and of a
  rounded 20 px disc, rotate(20deg) scale(3) and skewX(-20deg) scale(2.5, 2) of text on a
  bordered, rounded card. These measure the raster scale (issue 25 item 2): a layer rastered
  at 1 and stretched by the composite is blurred where Chromium rasters it at its ideal scale.
* ``text``: tests/chromium/scenes/text-*.json: a paragraph in DejaVu Sans, Serif and Mono,
  regular and bold, 12 to 28 px, line heights normal, px and numbers.
* ``backdrop``: the suite's backdrop-filter with another effect (tests/scenes/backdrop-filter-
  with-*.json, -opacity-group, -in-isolated-group).

For each scene and ratio it prints one row: mean level difference (premultiplied RGB), the %
of pixels whose largest channel differs by more than 24 levels, and the largest difference;
the images (NAME.chromium.png, NAME.lamina.png, NAME.sbs.png: Chromium | Lamina | diff x4)
go to OUT/dpr-N/, and the table to OUT/table.md (a Markdown table, as the README quotes it).
Without a chromium binary it says so and exits 0 (``--require-chromium``: 1).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
from pathlib import Path

from PIL import Image

from demos.chromium import chromium_version, find_chromium
from tests.chromium.compare import compare, lamina_render, run_case, scene_file_case, side_by_side

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "scenes"
SUITE = ROOT / "tests" / "scenes"

SETS: dict[str, list[Path]] = {
    "scale": [HERE / f"{name}.json" for name in ("scale4-text", "scale4-disc", "rotate-scale", "skew-scale")],
    "text": sorted(HERE.glob("text-*.json")),
    "backdrop": sorted(SUITE.glob("backdrop-filter-with-*.json"))
    + [SUITE / "backdrop-filter-opacity-group.json", SUITE / "backdrop-filter-in-isolated-group.json"],
}

TABLE_HEAD = ["| scene | DPR | mean | % > 24 | max |", "|---|---|---|---|---|"]


def table_row(name: str, dpr: int, result: dict) -> str:
    """One Markdown row of the table (``result`` as tests.chromium.compare.compare gives it)."""
    return (f"| {name} | {dpr} | {result['mean_diff']:.2f} | {result['percent_over_24']:.2f} | "
            f"{result['max_diff']:.0f} |")


def compare_scenes(paths: list[Path], dprs: list[int], out: Path, binary: str, gpu: str = "disable",
                   jobs: int = 2) -> list[tuple[str, int, dict]]:
    """(scene name, DPR, compare()'s result) for every scene at every ratio; the pictures
    under ``out``/dpr-N."""
    rows = []
    for dpr in dprs:
        folder = out / f"dpr-{dpr}"
        folder.mkdir(parents=True, exist_ok=True)
        cases = [scene_file_case(p) for p in paths]
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            shots = {c.name: pool.submit(run_case, c, folder, binary, gpu, dpr) for c in cases}
            for case, path in zip(cases, paths):
                ours, graph = lamina_render(case, dpr)
                Image.fromarray(ours, "RGBA").save(folder / f"{case.name}.lamina.png")
                (folder / f"{case.name}.lamina-graph.txt").write_text(graph)
                chrome = shots[case.name].result()["chrome"]
                Image.fromarray(side_by_side(chrome, ours), "RGBA").save(folder / f"{case.name}.sbs.png")
                result = compare(chrome, ours, case.probes, dpr)
                rows.append((path.stem, dpr, result))
                print(table_row(path.stem, dpr, result), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="sets", action="append", choices=sorted(SETS),
                        help="a set of scenes (repeatable; default: all)")
    parser.add_argument("--dpr", type=int, action="append", choices=(1, 2, 3, 4),
                        help="a device pixel ratio (repeatable; default: 1 and 2)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/lamina-chromium-dpr"),
                        help="folder for the pictures and table.md (default /tmp/lamina-chromium-dpr)")
    parser.add_argument("-j", type=int, default=2, help="Chromium processes at once")
    parser.add_argument("--chromium", help="path of the chromium binary")
    parser.add_argument("--chromium-gpu", choices=("disable", "swiftshader"), default="disable")
    parser.add_argument("--require-chromium", action="store_true", help="exit 1 instead of 0 without chromium")
    args = parser.parse_args(argv)
    names = args.sets or list(SETS)
    dprs = args.dpr or [1, 2]
    binary = args.chromium or find_chromium()
    if not binary:
        print("SKIPPED: no chromium binary on PATH (apt-get install chromium); nothing compared.")
        return 1 if args.require_chromium else 0
    version = chromium_version(binary)
    print(f"Lamina vs {version}, DPR {', '.join(map(str, dprs))}; pictures in {args.out}")
    lines = [f"Lamina vs {version} (--chromium-gpu {args.chromium_gpu})", ""]
    for name in names:
        print(f"\n{name}\n" + "\n".join(TABLE_HEAD), flush=True)
        rows = compare_scenes(SETS[name], dprs, args.out / name, binary, args.chromium_gpu, args.j)
        rows.sort(key=lambda r: (r[0], r[1]))
        lines += [f"## {name}", "", *TABLE_HEAD, *(table_row(*r) for r in rows), ""]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "table.md").write_text("\n".join(lines))
    print(f"\nwrote {args.out / 'table.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
