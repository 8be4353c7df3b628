"""The Chromium binary the comparisons drive (demos.chromium), once per module: without
one a comparison is skipped with the install hint, unless LAMINA_STRICT=1 (CI) makes
that a failure."""

from __future__ import annotations

import os

import pytest

from demos.chromium import INSTALL_HINT, find_chromium


@pytest.fixture(scope="module")
def chromium() -> str:
    binary = find_chromium()
    if binary is None:
        if os.environ.get("LAMINA_STRICT", "") not in ("", "0"):
            pytest.fail(f"no chromium binary ({INSTALL_HINT}); LAMINA_STRICT=1 makes that a failure")
        pytest.skip(f"no chromium binary: {INSTALL_HINT}")
    return binary
