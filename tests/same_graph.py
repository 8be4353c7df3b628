"""What the fast-path tests hold a fast-path graph to: the graph planning from scratch
gives (the same passes, decisions, context routes and layer facts; kept and released textures in any
order, as the executor reads them as sets)."""

from __future__ import annotations

from lamina import FrameRequest
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE

KEPT = ExecutorFacts(retained=EVERY_TEXTURE)  # an executor that keeps every texture it made


def assert_same_graph(fast, slow) -> None:
    assert fast.passes == slow.passes
    assert fast.decisions == slow.decisions
    assert sorted(fast.reused) == sorted(slow.reused)
    assert sorted(fast.released) == sorted(slow.released)
    assert fast.layer_info == slow.layer_info
    assert fast.routes == slow.routes


def planned_both(make, times, facts: ExecutorFacts = KEPT) -> tuple[list, FrameState]:
    """Two copies of ``make()`` planned at each of ``times``, one on the fast path and
    one from scratch, each pair's graphs asserted the same; the pairs and the fast
    path's FrameState."""
    fast, full = FrameState(), FrameState(fast_path=False)
    a, b = make(), make()
    pairs = []
    for t in times:
        ga = build_frame_graph(a, FrameRequest(t=float(t)), Limits(), ImageStore(), fast, facts)
        gb = build_frame_graph(b, FrameRequest(t=float(t)), Limits(), ImageStore(), full, facts)
        assert_same_graph(ga, gb)
        pairs.append((ga, gb))
    return pairs, fast
