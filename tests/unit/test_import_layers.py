"""Lamina's modules depend on each other in one direction, layer by layer, as the README's
"How it works" says. This test reads every module's imports (with ``ast``; nothing is
imported) and fails on:

* a module that belongs to no layer (a new file must be placed on purpose);
* a layer naming a module or package that does not exist (a ghost places nothing);
* an import that runs the wrong way (a lower layer importing a higher one) — also under
  ``if TYPE_CHECKING:``, and also through a package: importing ``lamina.style.x`` runs
  ``lamina/style/__init__.py`` first, so it depends on that too;
* an import circle, between files or through package faces;
* an import inside a function without a stated reason (``# import here: <why>`` on the
  line), the usual way to hide a circle.

Only ``lamina/__init__.py`` is exempt from the package rule: Python runs it before any
submodule, so it is the public face at the top and nothing imports from it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# repository folder -> package name (hatch_build.py maps the same folders)
FOLDERS = {"engine": "lamina", "filters": "lamina.filters", "demos": "lamina.demos"}

# Bottom to top. A module may import its own layer and the layers below it. The longest
# matching prefix places a module; a package (a folder) lies in one layer whole
# (test_each_package_is_one_layer), so the prefixes that reach into one are top-level
# modules beside it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("lamina.version", "lamina.named", "lamina.errors", "lamina.limits", "lamina.tiling", "lamina.recursion", "lamina.geometry", "lamina.matrix4", "lamina.geometry3d", "lamina.device_scale", "lamina.css", "lamina.images",
              "lamina.file_access", "lamina.bounded_read", "lamina.image_formats", "lamina.output_files", "lamina.blending", "lamina.progress", "lamina.png", "lamina.suggest")),
    ("filters", ("lamina.filters",)),
    ("style and layer tree", ("lamina.style", "lamina.animation", "lamina.layer")),
    ("text", ("lamina.text",)),
    ("compositor", ("lamina.compositor",)),
    ("render-task graph", ("lamina.textures", "lamina.passes", "lamina.graph_report", "lamina.framegraph", "lamina.filter_costs",
                           "lamina.devices", "lamina.cost_history", "lamina.cost_store", "lamina.frame_costs", "lamina.cost_feedback",
                           "lamina.device_profile", "lamina.forced_placement",
                           "lamina.graph", "lamina.request")),
    ("executors", ("lamina.gpu",)),
    ("scene, renderer, frame", ("lamina.scene", "lamina.renderer", "lamina.frame", "lamina.scene_file",
                                "lamina.scene_writer", "lamina.overlays", "lamina.fuzzy", "lamina.trace", "lamina.simulate",
                                "lamina.gantt")),
    # The demos sit with the CLI at the top: `lamina demo` runs them (its import of the
    # launcher is in a function, since the demos need the optional 'demos' extra).
    ("golden, CLI, notebook, demos", ("lamina.golden", "lamina.batch", "lamina.cli", "lamina.__main__", "lamina.explorer",
                                      "lamina.demos")),
]
TOP_FACE = "lamina"  # lamina/__init__.py: above everything
REASON = "# import here:"


def layer_of(module: str) -> int | None:
    if module == TOP_FACE:
        return len(LAYERS)
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def layer_name(index: int) -> str:
    return "the public face (lamina/__init__)" if index == len(LAYERS) else LAYERS[index][0]


@dataclass(frozen=True)
class Import:
    source: str  # module doing the import
    target: str  # absolute module imported
    path: str
    line: int
    in_function: bool
    reason: str | None


def modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("").parts
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join((package, *rel))] = path
    return out


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imports_of(module: str, path: Path, known: set[str]) -> list[Import]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    is_package = path.name == "__init__.py"
    out: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(module, is_package, child.level, child.module)
                for alias in child.names:
                    # "from . import filters" imports a module; "from .x import Name" a name.
                    sub = f"{base}.{alias.name}" if base else alias.name
                    targets.append(sub if sub in known else base)
            for target in targets:
                if target == "lamina" or target.startswith("lamina."):
                    line = lines[child.lineno - 1]
                    reason = line.split(REASON, 1)[1].strip() if REASON in line else None
                    out.append(Import(module, target, str(path.relative_to(ROOT)), child.lineno, in_function, reason))
                elif in_function:
                    line = lines[child.lineno - 1]
                    reason = line.split(REASON, 1)[1].strip() if REASON in line else None
                    out.append(Import(module, target, str(path.relative_to(ROOT)), child.lineno, True, reason))
            visit(child, inside)

    visit(tree, False)
    return out


def dependencies(target: str, known: set[str]) -> list[str]:
    """The modules an import runs: the target and its packages' faces (not lamina's own)."""
    parts = target.split(".")
    deps = [".".join(parts[:i]) for i in range(2, len(parts) + 1)]
    return [d for d in deps if d in known]


def all_imports() -> tuple[dict[str, Path], list[Import]]:
    mods = modules()
    known = set(mods)
    found = []
    for module, path in mods.items():
        found.extend(imports_of(module, path, known))
    return mods, found


def test_every_module_has_a_layer():
    mods, _ = all_imports()
    unplaced = [m for m in mods if layer_of(m) is None]
    assert not unplaced, f"modules in no layer (add them to LAYERS on purpose): {unplaced}"


def test_every_layer_names_existing_modules():
    """A prefix that names no module places nothing: the layer then checks less than it says."""
    mods = modules()
    ghosts = [f"{name}: {prefix}" for name, prefixes in LAYERS for prefix in prefixes
              if not any(m == prefix or m.startswith(prefix + ".") for m in mods)]
    assert not ghosts, "LAYERS names modules that do not exist (remove them or fix the name):\n" + "\n".join(ghosts)


def test_each_package_is_one_layer():
    """Folders match layers: every module of a package (a folder such as filters/ or
    gpu/) lies in its package's layer, so no folder spans layers (the filters folder once
    held executors and task building beside its syntax)."""
    mods = modules()
    packages = {m for m, path in mods.items() if path.name == "__init__.py" and m != TOP_FACE}
    split = [f"{m} ({layer_name(layer_of(m))}) in package {pkg} ({layer_name(layer_of(pkg))})"
             for m in mods for pkg in packages
             if m.startswith(pkg + ".") and layer_of(m) != layer_of(pkg)]
    assert not split, "modules placed in another layer than their package:\n" + "\n".join(sorted(split))


def test_imports_run_one_way():
    mods, found = all_imports()
    known = set(mods)
    wrong = []
    for imp in found:
        src = layer_of(imp.source)
        for dep in dependencies(imp.target, known):
            if dep == imp.source or src is None:
                continue
            dst = layer_of(dep)
            if dst is not None and dst > src:
                wrong.append(
                    f"{imp.path}:{imp.line}: {imp.source} ({layer_name(src)}) imports {dep} ({layer_name(dst)})"
                )
    assert not wrong, "imports that run the wrong way:\n" + "\n".join(sorted(set(wrong)))


def test_no_import_circles():
    mods, found = all_imports()
    known = set(mods)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for imp in found:
        for dep in dependencies(imp.target, known):
            if dep != imp.source and not imp.source.startswith(dep + "."):
                graph[imp.source].add(dep)
    circles = _strongly_connected(graph)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(sorted(c)) for c in circles)


def test_function_level_imports_say_why():
    _, found = all_imports()
    hidden = [f"{i.path}:{i.line}: {i.target}" for i in found if i.in_function and not i.reason]
    assert not hidden, (
        f"imports inside functions without '{REASON} <reason>' (move them to the top, or say why):\n"
        + "\n".join(hidden)
    )


def test_the_checker_sees_wrong_way_imports_and_circles():
    """The rules above can fail: a made-up lower module importing a higher one is caught."""
    assert layer_of("lamina.filters.plan") < layer_of("lamina.compositor.backings") < layer_of("lamina.graph.planner") < layer_of("lamina.scene")
    assert layer_of("lamina.gpu.gl_filters") > layer_of("lamina.filters.plan")
    assert dependencies("lamina.style.properties", {"lamina.style", "lamina.style.properties"}) == [
        "lamina.style", "lamina.style.properties"
    ]
    assert _strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [{"a", "b"}]
    assert _resolve("lamina.compositor.tree", False, 2, "layer") == "lamina.layer"
    assert _resolve("lamina.filters", True, 1, "plan") == "lamina.filters.plan"


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iteratively; components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[set[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(component)
    return out
