"""Headless Chromium as a camera: find the binary, say its version, screenshot a page.

Used where a picture must come from a browser: the README's golden-report picture
(``demos.readme_images``) and the Lamina-against-Chromium comparisons
(``tests/chromium/compare.py``). Chromium is Debian's (``apt-get install chromium``).

Flags that work with Chromium 156 as root: ``--headless --no-sandbox --disable-gpu
--screenshot=... --window-size=W,H --hide-scrollbars --force-device-scale-factor=1``.
Two runs of the same page give byte-identical screenshots (checked on the README's report).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["ChromiumError", "INSTALL_HINT", "find_chromium", "chromium_version", "chromium_screenshot"]

INSTALL_HINT = "apt-get install chromium (Debian's package)"


class ChromiumError(RuntimeError):
    """Chromium is missing, failed, or wrote no screenshot of the size asked for."""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as err:
        return f"unknown ({err})"
    return out.strip().splitlines()[-1] if out.strip() else "unknown"


def chromium_screenshot(binary: str, html_path: Path, png_path: Path, width: int, height: int, *,
                        gpu: str = "disable", transparent: bool = True, device_scale_factor: int = 1) -> Path:
    """Screenshot ``html_path`` at ``width`` x ``height`` CSS px into ``png_path``, which is
    ``device_scale_factor`` times as many device px each way (``--force-device-scale-factor``).
    ``gpu="disable"`` composites in software; anything else composites on
    viz's GPU path with SwiftShader, as on a real GPU. ``transparent`` leaves what the page
    does not paint transparent instead of white."""
    args = [binary, "--headless", "--no-sandbox", "--hide-scrollbars",
            f"--force-device-scale-factor={device_scale_factor}",
            f"--window-size={width},{height}", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions"]
    if transparent:
        args.append("--default-background-color=00000000")
    if gpu == "disable":
        args.append("--disable-gpu")
    else:
        args += ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
    # No --user-data-dir: with a fresh explicit profile, Chromium 156 screenshots a small
    # window before the lower part of the page is painted (gradients below ~56 px were
    # missing); headless without one uses a throwaway profile per process and paints it all.
    args += [f"--screenshot={png_path}", Path(html_path).resolve().as_uri()]
    if png_path.exists():
        png_path.unlink()
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": "disabled:"})
    except (OSError, subprocess.SubprocessError) as err:
        raise ChromiumError(f"{binary} did not run: {err}") from None
    if not png_path.exists():
        raise ChromiumError(f"chromium wrote no screenshot (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    from_size = _png_size(png_path)
    expected = (width * device_scale_factor, height * device_scale_factor)
    if from_size != expected:
        raise ChromiumError(f"chromium screenshot is {from_size[0]}x{from_size[1]}, expected {expected[0]}x{expected[1]}")
    return png_path


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk (bytes 16-24), without decoding it."""
    head = path.read_bytes()[:24]
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
