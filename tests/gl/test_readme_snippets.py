"""The README's snippets run as written and print what the README says (issue 20).

Each Python snippet runs on its own in a fresh interpreter, in an empty folder, with
nothing defined beforehand: what a reader gets who pastes one. A line ending in
``# -> TEXT`` states what it prints; the snippet's output must have those lines, in
order. Scene-file examples (JSON with a ``width``) load and plan, and the golden-test
snippet is a working test file under pytest with the plugin.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from lamina import load_scene
from tests.opencl_gate import opencl_missing, require_opencl

README = Path(__file__).resolve().parents[2] / "README.md"
pytest_plugins = ["pytester"]
PRINTS = re.compile(r"#\s*->\s*(.*?)\s*$")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def python_snippets() -> list[str]:
    return [b for b in blocks("python") if "def test_" not in b]


def scene_examples() -> list[dict]:
    out = []
    for block in blocks("json"):
        data = json.loads(block)
        if "width" in data:
            out.append(data)
    return out


def stated_output(snippet: str) -> list[str]:
    """The lines a snippet says it prints (``print(...)  # -> TEXT``)."""
    return [m.group(1) for line in snippet.splitlines() if "print(" in line and (m := PRINTS.search(line))]


def test_the_snippets_are_found_and_say_what_they_print():
    snippets = python_snippets()
    assert len(snippets) >= 5
    assert sum("def test_" in b for b in blocks("python")) == 1, "one snippet is a golden test file"
    assert sum(len(stated_output(s)) for s in snippets) >= 5, "snippets state their output"
    assert any("animations" in data.get("layers", [{}])[0] for data in scene_examples()), \
        "a scene-file example with animations"


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(python_snippets())))
def test_a_python_snippet_runs_as_written(index, tmp_path):
    snippet = python_snippets()[index]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAMINA_")}  # as a reader's shell
    proc = subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 and "OpenCLUnavailableError" in proc.stderr and (why := opencl_missing()):
        require_opencl(why)  # the one strict gate decides, as for every OpenCL test
    assert proc.returncode == 0, f"README snippet {index} failed:\n{snippet}\n{proc.stderr}"
    printed = proc.stdout.splitlines()
    position = 0
    for expected in stated_output(snippet):
        assert expected in printed[position:], (
            f"README snippet {index} says it prints {expected!r}; it printed:\n{proc.stdout}")
        position = printed.index(expected, position) + 1
    for written in re.findall(r"\.(?:save|trace)\(\"([^\"]+)\"\)", snippet):
        assert (tmp_path / written).is_file(), f"README snippet {index} says it writes {written}"


@pytest.mark.parametrize("index", range(len(scene_examples())))
def test_a_scene_file_example_loads_and_plans(index, tmp_path):
    data = scene_examples()[index]
    rgba = np.zeros((30, 40, 4), np.uint8)
    rgba[..., 2] = rgba[..., 3] = 255
    Image.fromarray(rgba, "RGBA").save(tmp_path / "photo.png")  # the image an example names
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(data))
    scene = load_scene(path)
    graph = scene.plan(t=0.75)
    assert graph.passes and (graph.width, graph.height) == (data["width"], data["height"])
    if any("animations" in layer for layer in data["layers"]):
        assert scene.plan(t=0.0).to_dict() != graph.to_dict(), "the animation changes the frame"


def test_the_golden_snippet_is_a_working_test_file(pytester):
    (block,) = [b for b in blocks("python") if "def test_" in b]
    card = {"lamina": 1, "width": 40, "height": 30, "background": "white",
            "layers": [{"id": "c", "box": [5, 5, 30, 20], "style": "background: #48f"}]}
    twin = {**card, "layers": [{"id": "c", "box": [5, 5, 30, 20], "style": "background-color: rgb(68, 136, 255)"}]}
    pytester.makefile(".json", card=json.dumps(card), **{"card-twin": json.dumps(twin)})
    pytester.makepyfile(test_readme_golden=block)
    first = pytester.runpytest_subprocess("-p", "no:randomly", "--golden-update=missing")
    first.assert_outcomes(passed=2)
    again = pytester.runpytest_subprocess("-p", "no:randomly")
    again.assert_outcomes(passed=2)
