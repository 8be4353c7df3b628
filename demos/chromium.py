"""Headless Chromium as a camera: find the binary, say its version, screenshot a page.

Used where a picture must come from a browser: the README's golden-report picture
(``demos.readme_images``) and the Lamina-against-Chromium comparisons
(``tests/chromium/compare.py``). Chromium is Debian's (``apt-get install chromium``).

Flags that work with Chromium 156 as root: ``--headless --no-sandbox --disable-gpu
--screenshot=... --window-size=W,H --hide-scrollbars --force-device-scale-factor=1``.
Two runs of the same page give byte-identical screenshots (checked on the README's report).

``ChromiumPages`` keeps one headless browser open and screenshots page after page in one
tab over the DevTools protocol on a pipe (``--remote-debugging-pipe``: commands on fd 3,
replies on fd 4, NUL-terminated JSON; no port, no network): what a batch of pages costs a
browser that is already running, without its start-up per page (the batch benchmark,
tests/benchmarks/test_chromium_batch_bench.py, measures both ways).
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["ChromiumError", "INSTALL_HINT", "find_chromium", "chromium_version", "chromium_screenshot",
           "ChromiumPages"]

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


_FLAGS = ("--headless", "--no-sandbox", "--hide-scrollbars", "--force-device-scale-factor=1", "--no-first-run",
          "--no-default-browser-check", "--disable-extensions")
_ENV = {"DBUS_SESSION_BUS_ADDRESS": "disabled:"}


def chromium_screenshot(binary: str, html_path: Path, png_path: Path, width: int, height: int, *,
                        gpu: str = "disable", transparent: bool = True, device_scale_factor: int = 1) -> Path:
    """Screenshot ``html_path`` at ``width`` x ``height`` CSS px into ``png_path``, which is
    ``device_scale_factor`` times as many device px each way (``--force-device-scale-factor``).
    ``gpu="disable"`` composites in software; anything else composites on
    viz's GPU path with SwiftShader, as on a real GPU. ``transparent`` leaves what the page
    does not paint transparent instead of white."""
    args = [binary, *(f for f in _FLAGS if not f.startswith("--force-device-scale-factor")),
            f"--force-device-scale-factor={device_scale_factor}", f"--window-size={width},{height}"]
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
                              env={**os.environ, **_ENV})
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


class ChromiumPages:
    """One headless Chromium (software compositing: ``--disable-gpu``), one tab, driven over
    the DevTools protocol on a pipe; ``screenshot(html, png, w, h)`` loads a page at
    ``w`` x ``h`` CSS px (device scale 1, what the page does not paint transparent) and
    writes its PNG. Use as a context manager (the browser is closed on the way out)."""

    def __init__(self, binary: str, timeout_s: float = 60.0) -> None:
        self.timeout_s = timeout_s
        cmd_read, self._cmd = os.pipe()
        self._replies, reply_write = os.pipe()

        def as_fds_3_and_4() -> None:  # in the child, before exec: the pipe ends where Chromium looks
            a, b = os.dup(cmd_read), os.dup(reply_write)
            os.dup2(a, 3)
            os.dup2(b, 4)

        try:
            self.proc = subprocess.Popen([binary, *_FLAGS, "--disable-gpu", "--remote-debugging-pipe", "about:blank"],
                                         preexec_fn=as_fds_3_and_4, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, env={**os.environ, **_ENV})
        except OSError as err:
            raise ChromiumError(f"{binary} did not run: {err}") from None
        finally:
            os.close(cmd_read)
            os.close(reply_write)
        self._buffer = b""
        self._id = 0
        self._events: list[dict] = []
        try:
            target = self._call("Target.createTarget", url="about:blank")["targetId"]
            self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            self._call("Page.enable", self._session)
            self._call("Emulation.setDefaultBackgroundColorOverride", self._session,
                       color={"r": 0, "g": 0, "b": 0, "a": 0})
        except BaseException:
            self.close()
            raise

    def _message(self) -> dict:
        while b"\0" not in self._buffer:
            if not select.select([self._replies], [], [], self.timeout_s)[0]:
                raise ChromiumError(f"chromium sent nothing on its DevTools pipe for {self.timeout_s:.0f} s")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise ChromiumError(f"chromium closed its DevTools pipe (exit {self.proc.poll()})")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(text)

    def _call(self, method: str, session: str | None = None, **params: Any) -> dict:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._cmd, json.dumps(message).encode("utf-8") + b"\0")
        while True:
            reply = self._message()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise ChromiumError(f"DevTools {method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)  # an event: kept for _event

    def _event(self, name: str) -> dict:
        while True:
            for i, event in enumerate(self._events):
                if event.get("method") == name and event.get("sessionId") == self._session:
                    del self._events[:i + 1]
                    return event
            self._events.append(self._message())

    def screenshot(self, html_path: Path, png_path: Path, width: int, height: int) -> Path:
        self._call("Emulation.setDeviceMetricsOverride", self._session, width=width, height=height,
                   deviceScaleFactor=1, mobile=False)
        self._events.clear()
        self._call("Page.navigate", self._session, url=Path(html_path).resolve().as_uri())
        self._event("Page.loadEventFired")
        data = self._call("Page.captureScreenshot", self._session, format="png")["data"]
        png_path.write_bytes(base64.b64decode(data))
        size = _png_size(png_path)
        if size != (width, height):
            raise ChromiumError(f"chromium screenshot is {size[0]}x{size[1]}, expected {width}x{height}")
        return png_path

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self._call("Browser.close")
            self.proc.wait(timeout=self.timeout_s)
        except (ChromiumError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            for fd in (self._cmd, self._replies):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def __enter__(self) -> "ChromiumPages":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
