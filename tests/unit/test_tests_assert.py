"""Every test says what it is for with an assertion. This test reads every module under
tests/ (with ``ast``; nothing is imported) and fails on a test function that asserts
nothing: no ``assert``, no ``raise AssertionError``, no ``pytest.raises/warns/fail/
deprecated_call``, and no call of an assertion helper.

A helper counts when it asserts by the same rule, read in turn: a function of the tests
package, in the same module or imported from ``tests.*`` (called, handed on as a
benchmark hands on its body, a method through ``self`` or a local instance of a class of
the module). Its name earns it nothing. From outside the tests package only this
allow-list counts: ``numpy.testing.assert_*``, the ``golden`` fixture's ``check`` and
``assert_same`` (they fail the test on a difference) and pytester's result matchers
(ALLOWED_METHODS). A benchmark counts like any test: under ``--benchmark-disable`` its
body runs once in the normal suite, so its assertion runs there too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from tests.ast_names import dotted

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

PYTEST_ASSERTIONS = {"raises", "warns", "fail", "deprecated_call"}
# pytester's RunResult / LineMatcher methods: each fails the test when it does not match.
ALLOWED_METHODS = {"assert_outcomes", "fnmatch_lines", "re_match_lines", "no_fnmatch_line", "no_re_match_line"}
# The golden fixture (lamina.golden): check and assert_same fail the test on a difference.
GOLDEN_FIXTURE, GOLDEN_METHODS = "golden", {"check", "assert_same"}
NUMPY_TESTING = "numpy.testing"

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Module:
    name: str  # dotted, e.g. tests.gl.test_trace_gl
    filename: str  # what reports show, e.g. tests/gl/test_trace_gl.py
    is_package: bool
    functions: dict[str, Function] = field(default_factory=dict)  # "f" or "Class.f"
    bindings: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # name -> (module, attr or None)

    @property
    def is_test_file(self) -> bool:
        return Path(self.filename).name.startswith("test_")


def _absolute(name: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = name.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def parse_module(name: str, filename: str, source: str) -> Module:
    """A module's top-level functions, class methods and imported names."""
    is_package = Path(filename).name == "__init__.py"
    module = Module(name, filename, is_package)
    for node in ast.parse(source, filename=filename).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            module.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    module.functions[f"{node.name}.{item.name}"] = item
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.bindings[alias.asname] = (alias.name, None)
                else:
                    top = alias.name.split(".")[0]
                    module.bindings[top] = (top, None)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, is_package, node.level, node.module)
            for alias in node.names:
                module.bindings[alias.asname or alias.name] = (base, alias.name)
    return module


def read_modules(folder: Path = TESTS) -> dict[str, Module]:
    modules = {}
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = parse_module(name, str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
    return modules


def collected_tests(modules: dict[str, Module]) -> list[tuple[Module, str]]:
    """The functions pytest collects: test* in test_*.py, at the top or in a Test* class."""
    out = []
    for module in modules.values():
        if module.is_test_file:
            for qualname in module.functions:
                owner, _, name = qualname.rpartition(".")
                if name.startswith("test") and (not owner or owner.startswith("Test")):
                    out.append((module, qualname))
    return out


class AssertionFinder:
    """Whether a function of the tests package asserts, itself or through its helpers."""

    def __init__(self, modules: dict[str, Module]):
        self.modules = modules
        self._known: dict[tuple[str, str], bool] = {}

    def _function(self, module: str, name: str) -> tuple[str, str] | None:
        """(module, qualname) of a function of the tests package, following imports."""
        seen = set()
        while (module, name) not in seen:
            seen.add((module, name))
            found = self.modules.get(module)
            if found is None:
                return None
            if name in found.functions:
                return module, name
            if name not in found.bindings:
                return None
            module, attr = found.bindings[name]
            if attr is None or f"{module}.{attr}" in self.modules:
                return None  # a module, not a function
            name = attr
        return None

    def _module_bound_to(self, module: Module, name: str) -> str | None:
        """The tests module a name stands for (``from tests import reference as ref``)."""
        if name not in module.bindings:
            return None
        target, attr = module.bindings[name]
        dotted = target if attr is None else f"{target}.{attr}"
        return dotted if dotted in self.modules else None

    @staticmethod
    def _instances(module: Module, function: Function) -> dict[str, str]:
        """Local names bound to an instance of a class of this module: ``step = _Animating(...)``."""
        classes = {qualname.partition(".")[0] for qualname in module.functions if "." in qualname}
        out = {}
        for node in ast.walk(function):
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                    and node.value.func.id in classes):
                out[node.targets[0].id] = node.value.func.id
        return out

    def _referenced(self, module: Module, owner: str, instances: dict[str, str],
                    node: ast.AST) -> tuple[str, str] | None:
        """The tests-package function a Name or Attribute names: f, helpers.f, self.f,
        instance.f."""
        if isinstance(node, ast.Name):
            return self._function(module.name, node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in ("self", "cls") and owner:
                return self._function(module.name, f"{owner}.{node.attr}")
            if node.value.id in instances:
                return self._function(module.name, f"{instances[node.value.id]}.{node.attr}")
            other = self._module_bound_to(module, node.value.id)
            if other is not None:
                return self._function(other, node.attr)
        return None

    @staticmethod
    def _is_allowed_call(module: Module, call: ast.Call) -> bool:
        """pytest.raises & co., or a call on the allow-list."""
        chain = dotted(call.func)
        if not chain:
            return isinstance(call.func, ast.Attribute) and call.func.attr in ALLOWED_METHODS
        root, *rest = chain
        bound = module.bindings.get(root)
        origin = ".".join(x for x in bound if x) if bound else root  # what the root name was imported as
        qualified = ".".join((origin, *rest))
        if qualified in {f"pytest.{name}" for name in PYTEST_ASSERTIONS}:
            return True
        if qualified.startswith(NUMPY_TESTING + ".assert_"):
            return True
        if root == GOLDEN_FIXTURE and len(rest) == 1 and rest[0] in GOLDEN_METHODS:
            return True
        return len(rest) >= 1 and rest[-1] in ALLOWED_METHODS

    def asserts(self, module_name: str, qualname: str) -> bool:
        key = (module_name, qualname)
        if key in self._known:
            return self._known[key]
        self._known[key] = False  # a helper that calls itself asserts only if something else does
        module = self.modules[module_name]
        owner = qualname.rpartition(".")[0]
        function = module.functions[qualname]
        instances = self._instances(module, function)
        found = False
        for node in (n for statement in function.body for n in ast.walk(statement)):
            if isinstance(node, ast.Assert):
                found = True
            elif isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                found = isinstance(exc, ast.Name) and exc.id == "AssertionError"
            elif isinstance(node, ast.Call) and self._is_allowed_call(module, node):
                found = True
            elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
                helper = self._referenced(module, owner, instances, node)
                found = helper is not None and helper != key and self.asserts(*helper)
            if found:
                break
        self._known[key] = found
        return found


def silent_tests(modules: dict[str, Module]) -> list[str]:
    """file::name of each collected test that asserts nothing."""
    finder = AssertionFinder(modules)
    return [f"{m.filename}::{name}" for m, name in collected_tests(modules) if not finder.asserts(m.name, name)]


def test_every_test_asserts_something():
    silent = silent_tests(read_modules())
    assert not silent, (
        "tests that assert nothing (state what each is for with an assertion; a benchmark "
        "asserts the property it measures):\n" + "\n".join(silent)
    )


HELPERS = '''
import pytest

def check_nothing(x):
    return x + 1

def check_positive(x):
    assert x > 0

class Probe:
    def check(self, value):
        if value is None:
            raise AssertionError("no value")
'''

SUITE = '''
import numpy as np
import pytest
from numpy.testing import assert_array_equal
from tests.helpers import check_nothing, check_positive
from tests import helpers

def _local_helper(x):
    check_positive(x)

class _Step:
    def check(self, x):
        assert x

def test_plain_assert():
    assert 1

def test_raises():
    with pytest.raises(ValueError):
        int("x")

def test_fail():
    pytest.fail("always")

def test_numpy_testing():
    np.testing.assert_array_equal([1], [1])

def test_numpy_testing_imported():
    assert_array_equal([1], [1])

def test_golden(golden):
    golden.check(None, "name")

def test_pytester(pytester):
    pytester.runpytest().assert_outcomes(passed=1)

def test_local_helper():
    _local_helper(3)

def test_imported_helper():
    helpers.check_positive(3)

def test_handed_on(benchmark):
    benchmark(_local_helper, 3)

def test_instance_method():
    step = _Step()
    step.check(1)

def test_nested_function():
    def body():
        assert True
    body()

class TestGroup:
    def _helper(self):
        assert True

    def test_method_through_self(self):
        self._helper()

# -- silent ones --
def test_silent_call():
    int("3")

def test_named_like_a_helper_but_asserting_nothing():
    check_nothing(2)

def test_approx_alone():
    pytest.approx(1.0)

def test_unknown_method(thing):
    thing.check(1)

class TestSilent:
    def test_nothing(self):
        pass
'''


def test_the_finder_tells_asserting_tests_from_silent_ones():
    modules = {"tests.helpers": parse_module("tests.helpers", "tests/helpers.py", HELPERS),
               "tests.test_suite": parse_module("tests.test_suite", "tests/test_suite.py", SUITE)}
    silent = [entry.split("::")[1] for entry in silent_tests(modules)]
    assert silent == ["test_silent_call", "test_named_like_a_helper_but_asserting_nothing", "test_approx_alone",
                      "test_unknown_method", "TestSilent.test_nothing"]
    assert len(collected_tests(modules)) == 18, "helpers.py's functions and _helper are not tests"
