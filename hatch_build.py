"""Map the repository's folders into the one import package, ``lamina``.

The checkout keeps its pipeline visible at the top (``engine/``, ``filters/``,
``shaders/``); the installed package is ``lamina`` alone:

    engine/   -> lamina/            (the engine is the package itself)
    filters/  -> lamina/filters/
    shaders/  -> lamina/_shaders/   (GLSL and OpenCL C, found by lamina.gpu.shader_source)
    demos/    -> lamina/demos/      (the interactive demos: ``lamina demo``; in a checkout
                                     ``python -m demos`` runs the same files)

A wheel gets those files at those places. An editable install gets a ``.pth`` file that
installs a finder mapping the same names onto the checkout, so ``import lamina`` runs
the code in ``engine/`` and ``lamina.filters`` the code in ``filters/``; nothing else
of the checkout (``engine``, ``filters``, ``tests``) becomes importable. Hatchling's
own editable mode cannot rename a folder (it can only strip a prefix), hence this hook.
"""

from __future__ import annotations

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# repository folder -> place in the installed tree
PACKAGE_MAP = {"engine": "lamina", "filters": "lamina/filters", "shaders": "lamina/_shaders", "demos": "lamina/demos"}
# Checkout files a wheel leaves out (paths from the checkout's root): the README's
# pictures made from the demos, which no demo reads, and the tool that remakes them
# from a checkout (demos/readme_images.py).
WHEEL_SKIP = {"demos/recordings", "demos/blend", "demos/golden", "demos/readme_images.py"}
SKIP_DIRS = {"__pycache__"}
EDITABLE_FINDER = "__editable___lamina_finder"  # the module the editable install's .pth file imports

FINDER = '''"""Editable install of lamina: maps the package names onto the checkout at {root}."""
import importlib.machinery
import importlib.util
import sys

PACKAGES = {packages!r}


class LaminaCheckoutFinder:
    """Finds lamina and lamina.filters in the checkout (their folders are named
    engine/ and filters/ there)."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        folder = PACKAGES.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, folder + "/__init__.py", submodule_search_locations=[folder]
        )


if LaminaCheckoutFinder not in sys.meta_path:
    sys.meta_path.insert(0, LaminaCheckoutFinder)
'''


class LaminaLayoutHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        if version == "editable":
            # The finder's name starts with "__editable__", as setuptools names its own: pytest
            # marks a plugin distribution's top-level modules for assertion rewriting, and
            # skips only such names; any other name warns in every test run of a project that
            # has Lamina installed ("Module already imported so cannot be rewritten"), because
            # the .pth file imported the finder before pytest started.
            packages = {
                name.replace("/", "."): str(root / folder)
                for folder, name in PACKAGE_MAP.items()
                if (root / folder / "__init__.py").is_file()
            }
            finder = f"{EDITABLE_FINDER}.py"
            build_data["force_include_editable"][self._write(finder, FINDER.format(root=root, packages=packages))] = finder
            build_data["force_include_editable"][self._write("_lamina_editable.pth", f"import {EDITABLE_FINDER}\n")] = "_lamina_editable.pth"
            return
        for folder, place in PACKAGE_MAP.items():
            for path in sorted((root / folder).rglob("*")):
                rel = path.relative_to(root)
                if path.is_file() and not SKIP_DIRS.intersection(rel.parts) and not _left_out(rel):
                    build_data["force_include"][str(path)] = f"{place}/{path.relative_to(root / folder).as_posix()}"

    def _write(self, name: str, text: str) -> str:
        out = Path(self.directory) / ".lamina-editable" / name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        return str(out)


def _left_out(rel: Path) -> bool:
    """Whether the checkout file ``rel`` (relative to the root) is one WHEEL_SKIP names,
    or lies in a folder it names."""
    return any(Path(*rel.parts[:i]).as_posix() in WHEEL_SKIP for i in range(1, len(rel.parts) + 1))
