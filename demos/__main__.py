"""``python -m demos``: list the demos, or run one in a window or headless.

    python -m demos                          list them
    python -m demos NAME                     open NAME in a window (needs a display)
    python -m demos NAME --headless --frames 30 --out DIR [--gif] [--mp4]
                                             render N frames of its scripted lesson to PNGs
                                             (and a GIF, an MP4: pip install 'lamina[record]')

Exit status: 0 success; 2 an unknown demo (the list is printed); 1 no display for a
window (the line says to use --headless or start one).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .registry import DEMOS
from .ui.recording import RecordingUnavailable, write_mp4
from .ui.runner import DisplayUnavailable, Runner


def _list() -> str:
    lines = ["demos:"]
    for name, make in DEMOS.items():
        demo = make()
        lines.append(f"  {name:<20} {demo.lesson}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demos", description="Lamina's interactive demos")
    parser.add_argument("name", nargs="?", help="the demo to run (none: list them)")
    parser.add_argument("--headless", action="store_true", help="no window: render frames to files")
    parser.add_argument("--frames", type=int, default=30, help="frames to render headless (default 30)")
    parser.add_argument("--out", default="demo-output", help="folder for headless frames (default demo-output)")
    parser.add_argument("--gif", action="store_true", help="headless: also write the frames as one GIF")
    parser.add_argument("--mp4", action="store_true", help="headless: also write the frames as one MP4 (H.264)")
    args = parser.parse_args(argv)
    if args.name is None:
        print(_list())
        return 0
    if args.name not in DEMOS:
        print(f"unknown demo {args.name!r}\n{_list()}", file=sys.stderr)
        return 2
    if args.frames < 1:
        print("--frames must be at least 1", file=sys.stderr)
        return 2
    if (args.gif or args.mp4) and not args.headless:
        print("--gif and --mp4 record a headless run: add --headless", file=sys.stderr)
        return 2
    demo = DEMOS[args.name]()
    try:
        runner = Runner(demo, headless=args.headless)
    except DisplayUnavailable as err:
        print(f"python -m demos: {err}", file=sys.stderr)
        return 1
    if args.headless:
        paths = runner.run_headless(args.frames, Path(args.out), gif=args.gif)
        runner.close()
        if args.mp4:
            pngs = [p for p in paths if p.suffix == ".png"]
            try:
                paths.append(write_mp4(pngs, Path(args.out) / f"{demo.name}.mp4"))
            except RecordingUnavailable as err:
                print(f"python -m demos: {err}", file=sys.stderr)
                return 1
        print(f"wrote {len(paths)} files to {args.out}")
    else:
        runner.run_window()
    return 0


if __name__ == "__main__":
    sys.exit(main())
