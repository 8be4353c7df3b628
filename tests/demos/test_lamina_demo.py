"""``lamina demo``: the installed demos (``lamina.demos``), run from any folder — also one
holding a ``demos`` folder of the user's own, which must not be imported — with their
pictures going where the user says or to the documented default, never silently into
the current folder; without Dear ImGui (the 'demos' extra) a typed error says what to
install."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from demos.registry import DEMOS
from lamina.demos.options import SCREENSHOTS, DemosUnavailableError
from lamina.errors import LaminaEnvironmentError

pytestmark = [pytest.mark.slow, pytest.mark.gl]

LAMINA = Path(sys.executable).with_name("lamina")


@pytest.fixture
def user_folder(tmp_path) -> Path:
    """A user's folder with a package named demos of their own, which fails if imported."""
    (tmp_path / "demos").mkdir()
    (tmp_path / "demos" / "__init__.py").write_text('raise SystemExit("the user\'s own demos were imported")\n')
    return tmp_path


def lamina(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing of the checkout on the path
    return subprocess.run([str(LAMINA), *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**clean, **(env or {})})


def test_lamina_demo_lists_the_demos_anywhere(user_folder):
    proc = lamina("demo", cwd=user_folder)
    assert proc.returncode == 0, proc.stderr
    assert all(name in proc.stdout for name in DEMOS) and "imported" not in proc.stdout + proc.stderr


def test_lamina_demo_renders_headless_from_a_folder_with_its_own_demos(user_folder):
    proc = lamina("demo", "animation-cost", "--headless", "--frames", "2", "--out", "shots", cwd=user_folder)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (user_folder / "shots").iterdir()) == ["animation-cost-0000.png",
                                                                         "animation-cost-0001.png"]
    assert "wrote 2 files to shots" in proc.stdout


def test_pictures_go_to_the_documented_default_not_the_current_folder(tmp_path):
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    proc = lamina("demo", "blend-backdrop", "--headless", "--frames", "1", cwd=work, env={"HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
    default = Path(str(SCREENSHOTS).replace("~", str(home), 1))
    assert [p.name for p in default.iterdir()] == ["blend-backdrop-0000.png"]
    assert str(default) in proc.stdout, "the line says where the pictures went"
    assert list(work.iterdir()) == [], "nothing written into the current folder"


def test_without_dear_imgui_lamina_demo_says_what_to_install(tmp_path):
    # imgui_bundle made unimportable, as on a machine without the 'demos' extra.
    code = "import sys; sys.modules['imgui_bundle'] = None; from lamina.cli import main; sys.exit(main(['demo']))"
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=clean)
    assert proc.returncode == 1
    assert "pip install 'lamina[demos]'" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert issubclass(DemosUnavailableError, LaminaEnvironmentError), "the CLI's environment error: exit 1"
