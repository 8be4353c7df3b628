"""The wheel: built from this checkout, installed into a fresh virtual environment,
and used from outside the checkout — shaders and schema must come from the wheel."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)])
    (path,) = out.glob("lamina-*.whl")
    return path


def test_wheel_contents(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "lamina/__init__.py",
        "lamina/py.typed",
        "lamina/filters/__init__.py",
        "lamina/filters/py.typed",
        "lamina/schema/scene.schema.json",
        "lamina/_shaders/raster/layer.frag",
        "lamina/_shaders/composite/quad.frag",
        "lamina/_shaders/common/rrect.glsl",
        "lamina/_shaders/opencl/filters.cl",
        "lamina/golden/plugin.py",
        "lamina/golden/report_template.html",
        # lamina demo: the demos, their shaders and the playground's photo
        "lamina/demos/__init__.py",
        "lamina/demos/launcher.py",
        "lamina/demos/ui/runner.py",
        "lamina/demos/ui/shaders/blit.frag",
        "lamina/demos/ui/shaders/imgui.frag",
        "lamina/demos/showcase/sunset.png",
    ):
        assert required in names, required
    # ... but not the README's pictures made from them, nor the checkout tool that makes them.
    assert not [n for n in names if n.startswith(("lamina/demos/recordings/", "lamina/demos/golden/"))]
    assert "lamina/demos/readme_images.py" not in names
    # One import package: nothing else at the top of site-packages, no byte code.
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"lamina"}, tops
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    entries = zipfile.ZipFile(wheel).read(entry).decode()
    assert "lamina = lamina.cli:main" in entries
    assert "[pytest11]" in entries and "lamina = lamina.golden.plugin" in entries, "the golden plugin's entry point"


def test_installed_wheel_renders_outside_the_checkout(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)])
    work = tmp_path / "work"
    work.mkdir()
    from PIL import Image

    Image.new("RGB", (4, 4), (0, 0, 255)).save(work / "blue.png")
    (work / "scene.json").write_text(
        json.dumps(
            {
                "width": 40,
                "height": 30,
                "background": "white",
                "layers": [
                    {"id": "card", "box": [5, 5, 20, 20], "style": "background: red; opacity: 0.5; border-radius: 4px"},
                    {"id": "img", "box": [28, 5, 8, 8], "style": "background-image: url(blue.png)"},
                ],
            }
        )
    )
    lamina = env_dir / "bin" / "lamina"
    proc = run([str(lamina), "render", "scene.json", "-o", "out.png", "--explain"], cwd=work)
    assert "Render surfaces" in proc.stdout
    pixels = Image.open(work / "out.png").convert("RGBA").load()
    assert all(abs(a - b) <= 1 for a, b in zip(pixels[15, 15], (255, 128, 128, 255)))
    assert pixels[30, 8] == (0, 0, 255, 255)
    where = run([str(py), "-c", "import lamina.gpu.shader_source as s; print(s.shaders_dir())"], cwd=work).stdout
    assert str(env_dir) in where and "_shaders" in where, "shaders must come from the installed wheel"
    info = run([str(lamina), "info", "--json"], cwd=work).stdout
    assert json.loads(info)["max_texture_size"] >= 2048
    # Installed without the 'demos' extra, lamina demo says what to install (exit 1).
    demo = subprocess.run([str(lamina), "demo"], cwd=work, capture_output=True, text=True, timeout=120)
    assert demo.returncode == 1 and "pip install 'lamina[demos]'" in demo.stderr, demo.stderr
