"""Reading names out of test sources with ``ast``: shared by the meta-tests that read the
suite itself (tests/unit/test_opencl_gate.py, tests/unit/test_tests_assert.py)."""

from __future__ import annotations

import ast

__all__ = ["dotted"]


def dotted(node: ast.AST) -> tuple[str, ...]:
    """``pytest.mark.skip`` -> ("pytest", "mark", "skip"); () for what is not a dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return (node.id, *reversed(parts)) if isinstance(node, ast.Name) else ()
