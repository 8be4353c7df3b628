"""The same scene gives byte-identical PNGs: rendered twice in one process (with and
without kept state), and in another process through the CLI. (The suite runs under
xdist, so this also holds across its workers.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lamina import load_scene

ROOT = Path(__file__).resolve().parents[2]
SCENES = [ROOT / "demos/showcase/showcase.json", ROOT / "tests/scenes/text-filter-effects.json",
          ROOT / "tests/scenes/scroll-nested.json", ROOT / "tests/scenes/box-shadow-basic.json",
          ROOT / "tests/scenes/mask-over-blend.json"]


@pytest.mark.parametrize("path", SCENES, ids=lambda p: p.stem)
def test_renders_are_byte_identical_in_one_process_and_across_processes(gl, tmp_path, path):
    first, second, other = tmp_path / "first.png", tmp_path / "second.png", tmp_path / "other.png"
    gl.drop_caches()
    load_scene(path).render(gl).save(first)
    scene = load_scene(path)
    scene.render(gl)  # a second frame reuses what the first kept
    scene.render(gl).save(second)
    subprocess.run([sys.executable, "-m", "lamina", "render", str(path), "-o", str(other)], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    assert first.read_bytes() == second.read_bytes() == other.read_bytes()
