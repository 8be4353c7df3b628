"""The demos' command-line options, and the error for a machine without the demos' extra.

Shared by ``python -m demos`` (in a checkout) and ``lamina demo`` (installed: the demos
are the package ``lamina.demos``). This module imports neither glfw nor Dear ImGui, so
``lamina`` can offer the options, and say what to install, where the optional ``demos``
extra (imgui-bundle) is missing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lamina.device_scale import MAX_DEVICE_SCALE, parse_device_scale
from lamina.errors import GeometryError, LaminaEnvironmentError

__all__ = ["DemosUnavailableError", "SCREENSHOTS", "UI_SCALES", "INSTALL_HINT", "add_demo_arguments", "ui_scale",
           "device_scale"]

# Where headless frames and the window's screenshots (S) go unless the user names a
# folder (--out): not the current folder, which may be a checkout or a project of the user's.
SCREENSHOTS = Path("~/Pictures/lamina-demos")
# The UI sizes Ctrl+= and Ctrl+- step through (ImGui's 13 px font times these); --ui-scale
# may start anywhere between the ends.
UI_SCALES = (0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
INSTALL_HINT = "pip install 'lamina[demos]'"


class DemosUnavailableError(LaminaEnvironmentError):
    """The demos' optional dependency (Dear ImGui, the ``demos`` extra: imgui-bundle) is
    not installed; the message says what to pip install."""


def ui_scale(text: str) -> float:
    """``--ui-scale``'s value: a number between UI_SCALES' ends."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not UI_SCALES[0] <= value <= UI_SCALES[-1]:
        raise argparse.ArgumentTypeError(f"{text} is outside {UI_SCALES[0]}-{UI_SCALES[-1]}")
    return value


def device_scale(text: str) -> float:
    """``--dpr``'s value: a device pixel ratio, as lamina.device_scale checks it."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    try:
        return parse_device_scale(value, "--dpr")
    except GeometryError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m demos`` and ``lamina demo``."""
    parser.add_argument("name", nargs="?", help="the demo to run (none: list them)")
    parser.add_argument("--headless", action="store_true", help="no window: render frames to files")
    parser.add_argument("--frames", type=int, default=30, help="frames to render headless (default 30)")
    parser.add_argument("--out", metavar="DIR", type=Path, default=None,
                        help=f"folder for headless frames and the window's screenshots (S key); "
                             f"default {SCREENSHOTS}")
    parser.add_argument("--gif", action="store_true", help="headless: also write the frames as one GIF")
    parser.add_argument("--mp4", action="store_true", help="headless: also write the frames as one MP4 (H.264)")
    parser.add_argument("--ui-scale", type=ui_scale, default=1.0, metavar="S",
                        help=f"scale the panels' font and layout by S ({UI_SCALES[0]}-{UI_SCALES[-1]}, default 1; "
                             "Ctrl+= and Ctrl+- change it in the window), e.g. 1.5 for a projector")
    parser.add_argument("--dpr", type=device_scale, default=None, metavar="R",
                        help=f"device pixel ratio of the frames, in (0, {MAX_DEVICE_SCALE:g}] (default: the "
                             "display's content scale in a window, 1 headless); headless --dpr 2 pretends a "
                             "HiDPI (Retina) framebuffer")
