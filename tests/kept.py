"""What a planner run without a GPU is told the executor keeps
(lamina.graph.ExecutorFacts.retained): every texture it asked to keep, as if an
executor had run each plan and lost nothing — or lost only the names a test gives."""

from __future__ import annotations


class KeptTextures(frozenset):
    """Every texture name counts as kept but those in ``lost`` (a set the test may add
    to later: the textures the executor lost since)."""

    lost: set[str]

    def __new__(cls, lost: set[str] | None = None) -> "KeptTextures":
        kept = super().__new__(cls)
        kept.lost = lost if lost is not None else set()
        return kept

    def __contains__(self, name: object) -> bool:
        return name not in self.lost


EVERY_TEXTURE = KeptTextures()
