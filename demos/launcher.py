"""The demos' launcher: list them, or run one in a window or headless.

    python -m demos [NAME] [options]        in a checkout
    lamina demo [NAME] [options]            anywhere, once Lamina is installed with its
                                            'demos' extra (pip install 'lamina[demos]')

    (no NAME)                               list the demos and what each teaches
    NAME                                    open NAME in a window (needs a display)
    NAME --headless --frames 30 [--gif] [--mp4]
                                            render N frames of its scripted lesson to PNGs
                                            (and a GIF, an MP4: pip install 'lamina[record]')
    --out DIR                               where headless frames and the window's
                                            screenshots (S) go; default ~/Pictures/lamina-demos
    --ui-scale S                            panels' font and layout times S (Ctrl+= / Ctrl+-)
    --dpr R                                 the frames' device pixel ratio (a window: its
                                            display's by default; headless: 1; --dpr 2
                                            pretends a HiDPI screen)

Exit status: 0 success; 2 an unknown demo (the list is printed) or a bad option; 1 no
display for a window (the line says to use --headless or start one).
"""

from __future__ import annotations

import argparse
import sys

from .options import SCREENSHOTS, add_demo_arguments
from .registry import DEMOS
from .ui.recording import RecordingUnavailable, write_mp4
from .ui.runner import DisplayUnavailable, Runner

__all__ = ["main", "run", "listing"]


def listing() -> str:
    """The demos, one a line, with what each teaches."""
    lines = ["demos:"]
    for name, make in DEMOS.items():
        demo = make()
        lines.append(f"  {name:<20} {demo.lesson}")
    return "\n".join(lines)


def run(args: argparse.Namespace, prog: str) -> int:
    """Run what ``args`` (from add_demo_arguments) ask; ``prog`` names the command in messages."""
    if args.name is None:
        print(listing())
        return 0
    if args.name not in DEMOS:
        print(f"unknown demo {args.name!r}\n{listing()}", file=sys.stderr)
        return 2
    if args.frames < 1:
        print("--frames must be at least 1", file=sys.stderr)
        return 2
    if (args.gif or args.mp4) and not args.headless:
        print("--gif and --mp4 record a headless run: add --headless", file=sys.stderr)
        return 2
    out = (args.out or SCREENSHOTS).expanduser()
    demo = DEMOS[args.name]()
    try:
        runner = Runner(demo, headless=args.headless, ui_scale=args.ui_scale, screenshots=out,
                        device_scale_factor=args.dpr)
    except DisplayUnavailable as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 1
    if args.headless:
        paths = runner.run_headless(args.frames, out, gif=args.gif)
        runner.close()
        if args.mp4:
            pngs = [p for p in paths if p.suffix == ".png"]
            try:
                paths.append(write_mp4(pngs, out / f"{demo.name}.mp4"))
            except RecordingUnavailable as err:
                print(f"{prog}: {err}", file=sys.stderr)
                return 1
        print(f"wrote {len(paths)} files to {out}")
    else:
        print(f"{demo.title}: H for help; S saves a screenshot into {out}")
        runner.run_window()
    return 0


def main(argv: list[str] | None = None, prog: str = "python -m demos") -> int:
    parser = argparse.ArgumentParser(prog=prog, description="Lamina's interactive demos")
    add_demo_arguments(parser)
    return run(parser.parse_args(argv), prog)
