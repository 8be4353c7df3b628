"""The README's Python snippets run as written (issue 14): the API tour, long pages,
filters and animations in order in one namespace (as a reader would paste them), and
the golden-test snippet as a test file under pytest with the plugin."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from lamina import Layer

README = Path(__file__).resolve().parents[2] / "README.md"
pytest_plugins = ["pytester"]


def snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_there_are_snippets_and_each_is_run_below():
    blocks = snippets()
    assert len(blocks) >= 5
    assert sum("def test_" in b for b in blocks) == 1, "one snippet is a golden test file"


def test_the_api_snippets_run_in_order(gl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(5)
    # What the prose says the reader brings: an image, a layer.
    namespace = {
        "numpy_rgba_or_pil_image_or_path": rng.integers(0, 256, (16, 16, 4), dtype=np.uint8),
        "rgba_uint8": rng.integers(0, 256, (24, 24, 4), dtype=np.uint8),
        "layer": Layer("any", (0, 0, 10, 10)),
    }
    ran = 0
    for block in snippets():
        if "def test_" in block:
            continue
        exec(compile(block, f"README.md snippet {ran}", "exec"), namespace)
        ran += 1
    assert ran >= 4
    assert (tmp_path / "out.png").is_file() and (tmp_path / "trace.json").is_file()


def test_the_golden_snippet_is_a_working_test_file(pytester):
    (block,) = [b for b in snippets() if "def test_" in b]
    card = {"lamina": 1, "width": 40, "height": 30, "background": "white",
            "layers": [{"id": "c", "box": [5, 5, 30, 20], "style": "background: #48f"}]}
    twin = {**card, "layers": [{"id": "c", "box": [5, 5, 30, 20], "style": "background-color: rgb(68, 136, 255)"}]}
    pytester.makefile(".json", card=json.dumps(card), **{"card-twin": json.dumps(twin)})
    pytester.makepyfile(test_readme_golden=block)
    first = pytester.runpytest_subprocess("-p", "no:randomly", "--golden-update=missing")
    first.assert_outcomes(passed=2)
    again = pytester.runpytest_subprocess("-p", "no:randomly")
    again.assert_outcomes(passed=2)
