"""Lamina installs one import package, ``lamina``: a user's own modules named like the
repository's folders (``filters.py``, ``engine.py``) must not change what renders."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow


def test_users_own_filters_and_engine_modules_do_not_interfere(tmp_path):
    (tmp_path / "filters.py").write_text("raise RuntimeError('the user filters.py was imported')\n")
    (tmp_path / "engine.py").write_text("raise RuntimeError('the user engine.py was imported')\n")
    script = textwrap.dedent(
        """
        import sys
        from lamina import Layer, Scene, filters
        import lamina.filters
        assert filters is lamina.filters
        scene = Scene(8, 8, background="white")
        scene.root.add(Layer("a", box=(0, 0, 4, 4), style="background: red; filter: invert(1)"))
        image = scene.render().image
        assert tuple(image[1, 1]) == (0, 255, 255, 255), image[1, 1]
        assert "filters" not in sys.modules and "engine" not in sys.modules, "a top-level name was imported"
        print("ok")
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_the_package_is_lamina():
    import lamina
    from lamina import filters

    assert lamina.__name__ == "lamina" and filters.__name__ == "lamina.filters"
    assert {"Scene", "Layer", "load_scene"} <= set(lamina.__all__)
