"""Find and assemble GLSL sources from ``shaders/`` (checkout or installed wheel).

Sources use ``#include "path/relative/to/shaders.glsl"``; each file is included once per
program. The ``#version`` line and variant ``#define``s are prepended here, so shader
files hold only GLSL.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Mapping

__all__ = ["shaders_dir", "load_source", "expand", "assemble"]

_INCLUDE = re.compile(r'^\s*#include\s+"([^"]+)"\s*$', re.MULTILINE)


@lru_cache(maxsize=1)
def shaders_dir() -> Path:
    """``engine/_shaders`` inside a wheel, else ``shaders/`` at the checkout's top."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_shaders", here.parent / "shaders"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"Lamina's shaders are missing: looked in {here / '_shaders'} and {here.parent / 'shaders'}"
    )


@lru_cache(maxsize=None)
def load_source(name: str) -> str:
    return (shaders_dir() / name).read_text(encoding="utf-8")


def _expand(name: str, seen: set[str]) -> str:
    if name in seen:
        return ""
    seen.add(name)
    text = load_source(name)
    return _INCLUDE.sub(lambda m: _expand(m.group(1), seen), text)


def expand(name: str) -> str:
    """``name`` with its includes expanded (each file once): what an OpenCL program
    builds from, so kernels can share code with the GLSL passes."""
    return _expand(name, set())


def assemble(name: str, defines: Mapping[str, object] | None = None) -> str:
    """Full GLSL text of ``name``: version, defines, then the file with includes expanded."""
    head = [load_source("version.glsl").strip()]  # the GLSL version every program uses
    for key, value in sorted((defines or {}).items()):
        head.append(f"#define {key} {int(value) if isinstance(value, bool) else value}")
    head.append("#line 1")
    return "\n".join(head) + "\n" + _expand(name, set())
