"""``--allow-files DIR`` on every command that loads scene files: without it a scene's
image outside its folder is refused (exit 2, one line naming the scene file, JSON path,
url and resolved path); with it the scene renders."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from lamina.cli import main


@pytest.fixture
def outside(tmp_path):
    """tmp/scenes/page.json whose image is tmp/shared/photo.png, reached through '..'."""
    scenes, shared = tmp_path / "scenes", tmp_path / "shared"
    scenes.mkdir()
    shared.mkdir()
    Image.fromarray(np.full((4, 4, 4), 200, np.uint8), "RGBA").save(shared / "photo.png")
    page = scenes / "page.json"
    page.write_text(json.dumps({"lamina": 1, "width": 16, "height": 16, "layers": [
        {"id": "pic", "box": [0, 0, 16, 16], "style": "background: url(../shared/photo.png)"}]}))
    return page, shared


@pytest.mark.parametrize("command", ["render", "explain"])
def test_an_image_outside_the_folder_needs_allow_files(gl, outside, tmp_path, capsys, command):
    page, shared = outside
    extra = ["-o", str(tmp_path / "out.png")] if command == "render" else []
    assert main([command, str(page), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"lamina: error: {page}: $.layers[0].style: layer 'pic' image url(../shared/photo.png)")
    assert str(shared / "photo.png") in err and "--allow-files" in err and "\n" not in err
    assert main([command, str(page), *extra, "--allow-files", str(tmp_path / "elsewhere"), ]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main([command, str(page), *extra, "--allow-files", str(tmp_path), "--allow-files", str(shared)]) == 0


def test_check_takes_allow_files_too(gl, outside, tmp_path, capsys):
    page, shared = outside
    results = tmp_path / "results"
    assert main(["check", str(page.parent), "--results", str(results), "--update"]) == 1
    out = capsys.readouterr().out
    assert "failed" in out and "cannot render" in out  # the table cuts the message at 160 characters
    assert main(["check", str(page.parent), "--results", str(results), "--update", "--allow-files", str(shared)]) == 0
    assert (page.parent / "goldens" / "page.png").exists()
    assert main(["check", str(page.parent), "--results", str(results), "--allow-files", str(tmp_path / "nope")]) == 2
