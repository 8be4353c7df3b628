"""What the fast-path tests hold a fast-path graph to: the graph planning from scratch
gives (the same passes, decisions, context routes and layer facts; kept and released textures in any
order, as the executor reads them as sets)."""

from __future__ import annotations


def assert_same_graph(fast, slow) -> None:
    assert fast.passes == slow.passes
    assert fast.decisions == slow.decisions
    assert sorted(fast.reused) == sorted(slow.reused)
    assert sorted(fast.released) == sorted(slow.released)
    assert fast.layer_info == slow.layer_info
    assert fast.routes == slow.routes
