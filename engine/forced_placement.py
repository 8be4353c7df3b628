"""Forced placements: where each filter pass of a frame runs, given before the frame is
executed instead of chosen by the cost model (``auto``), as plain data.

A ``ForcedPlacement`` is either a named strategy (with a seed where it draws) or an
explicit assignment (pass name -> ``Executor``). ``assign(passes)`` turns it into the
assignment for one frame's filter passes; ``lamina.graph.placed.place_by`` rewrites a
GL-planned graph by it, through the same rewrite the frame-wide schedule uses (transfer
passes wherever a texture crosses GL <-> OpenCL). It exists so that the same frame can be
rendered with its passes on any device, and the pixels compared (issue 22, item 7): a
pass gives the same result, within the documented levels, wherever it runs.

Strategies (``STRATEGIES``; adding one is one entry there):

    all-gl            every pass on GL (the graph as planned; nothing moves)
    all-opencl        every pass on OpenCL (as ``filter_backend="opencl"``)
    alternate         by pass in graph order: OpenCL, GL, OpenCL, ... (every crossing)
    alternate-layers  by filtered layer in graph order: the first layer's passes on
                      OpenCL, the next's on GL, ...
    random[:SEED]     each pass on GL or OpenCL by a coin drawn from SEED (default 0)
    spread-layers     by filtered layer in graph order, round the devices in use: the
                      first layer's passes on GL, the next's on the first OpenCL device,
                      the next's on the second, ... (one OpenCL device: as alternate-layers
                      shifted by one)

"OpenCL" in the strategies is the renderer's own OpenCL device; an explicit assignment
may name any device in use: ``"opencl:0:1"`` (a ``textures.Place``), as may
``spread-layers``, which is handed the renderer's devices (``assign(devices=...)``).

Written ``NAME`` or ``NAME:SEED`` (``random:7``), in ``FrameRequest(placement=...)`` and
``lamina render|explain --placement``. A bad name or seed, or an assignment naming a pass
the frame lacks or a device that is not one, is a ``PlacementError`` naming it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from .errors import PlacementError
from .passes import FilterPass
from .textures import Executor, Place

__all__ = ["ForcedPlacement", "STRATEGIES", "EXPLICIT", "parse_executor", "parse_place"]

# A strategy: the device of each of a frame's filter passes (in graph order), from the
# passes, a seeded random generator (used by the strategies that draw) and the OpenCL
# devices in use (their places; the renderer's own alone when it uses one).
Strategy = Callable[[Sequence[FilterPass], random.Random, Sequence[Place]], list[Place | Executor]]


def _all(executor: Executor) -> Strategy:
    return lambda passes, _rng, _devices: [executor] * len(passes)


def _alternate(passes: Sequence[FilterPass], _rng: random.Random, _devices: Sequence[Place]) -> list[Executor]:
    return [Executor.OPENCL if i % 2 == 0 else Executor.GL for i in range(len(passes))]


def _alternate_layers(passes: Sequence[FilterPass], _rng: random.Random, _devices: Sequence[Place]) -> list[Executor]:
    order: dict[str, int] = {}
    for p in passes:
        order.setdefault(p.layer_id, len(order))
    return [Executor.OPENCL if order[p.layer_id] % 2 == 0 else Executor.GL for p in passes]


def _random(passes: Sequence[FilterPass], rng: random.Random, _devices: Sequence[Place]) -> list[Executor]:
    return [rng.choice((Executor.GL, Executor.OPENCL)) for _ in passes]


def _spread_layers(passes: Sequence[FilterPass], _rng: random.Random, devices: Sequence[Place]) -> list[Place]:
    ring = (Place(), *(devices or (Place(Executor.OPENCL),)))
    order: dict[str, int] = {}
    for p in passes:
        order.setdefault(p.layer_id, len(order))
    return [ring[order[p.layer_id] % len(ring)] for p in passes]


# name -> (strategy, whether it draws from the seed, what it does)
STRATEGIES: dict[str, tuple[Strategy, bool, str]] = {
    "all-gl": (_all(Executor.GL), False, "every pass on GL"),
    "all-opencl": (_all(Executor.OPENCL), False, "every pass on OpenCL"),
    "alternate": (_alternate, False, "by pass in graph order: OpenCL, GL, OpenCL, ..."),
    "alternate-layers": (_alternate_layers, False, "by filtered layer: the first on OpenCL, the next on GL, ..."),
    "random": (_random, True, "each pass on GL or OpenCL by a coin drawn from the seed"),
    "spread-layers": (_spread_layers, False, "by filtered layer, round GL and each OpenCL device in use"),
}
EXPLICIT = "explicit"  # the strategy name of a placement given as pass name -> executor


def parse_executor(value: Executor | str, *, where: str = "") -> Executor:
    """The executor ``value`` names (``"gl"``, ``"opencl"``, any case; or the enum); a
    PlacementError naming it otherwise."""
    return parse_place(value, where=where).executor


def parse_place(value: Place | Executor | str, *, where: str = "") -> Place:
    """The device ``value`` names: ``"gl"``, ``"opencl"`` (the renderer's own OpenCL
    device), ``"opencl:P:D"`` (that one), any case; or a Place or Executor. A
    PlacementError naming it otherwise."""
    if isinstance(value, (Place, Executor)):
        return Place.of(value)
    if isinstance(value, str):
        try:
            return Place.of(value)
        except ValueError:
            pass
    choices = ", ".join(e.value for e in Executor)
    raise PlacementError(f"unknown device {value!r}{where} (choose from {choices}), or opencl:P:D for one OpenCL device",
                         name=str(value))


@dataclass(frozen=True)
class ForcedPlacement:
    """Where a frame's filter passes run, forced: ``strategy`` (a name in STRATEGIES,
    or EXPLICIT), ``seed`` (for the strategies that draw), ``passes`` (EXPLICIT's
    assignment: pass name -> executor; passes it does not name stay on GL)."""

    strategy: str
    seed: int = 0
    passes: tuple[tuple[str, Executor], ...] = ()

    def __post_init__(self) -> None:
        if self.strategy != EXPLICIT and self.strategy not in STRATEGIES:
            raise PlacementError(f"unknown placement {self.strategy!r} (choose from {', '.join(STRATEGIES)}, "
                                 "or, from Python, a mapping of pass name -> device)", name=self.strategy)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise PlacementError(f"placement seed must be a whole number >= 0, got {self.seed!r}", name=str(self.seed))
        if self.passes and self.strategy != EXPLICIT:
            raise PlacementError(f"placement {self.strategy!r} takes no assignment (strategy {EXPLICIT!r} does)",
                                 name=self.strategy)
        object.__setattr__(self, "passes", tuple((str(n), parse_place(e, where=f" for pass {n!r}"))
                                                 for n, e in self.passes))

    @classmethod
    def parse(cls, value: "ForcedPlacement | str | Mapping[str, Place | Executor | str]") -> "ForcedPlacement":
        """``value`` itself; ``"NAME"`` or ``"NAME:SEED"`` (a strategy); or a mapping
        of pass name -> device (an explicit assignment). A PlacementError otherwise."""
        if isinstance(value, ForcedPlacement):
            return value
        if isinstance(value, Mapping):
            return cls(EXPLICIT, passes=tuple(value.items()))
        if not isinstance(value, str):
            raise PlacementError(f"placement must be a strategy name ({', '.join(STRATEGIES)}), NAME:SEED or a "
                                 f"mapping of pass name -> device, got {type(value).__name__}", name=repr(value))
        name, colon, seed = value.strip().partition(":")
        if not colon:
            return cls(name)
        if name in STRATEGIES and not STRATEGIES[name][1]:
            raise PlacementError(f"placement {name!r} draws nothing: it takes no seed (got {value!r})", name=value)
        if not seed.strip().isdigit():
            raise PlacementError(f"placement seed must be a whole number >= 0, got {seed!r} in {value!r}", name=seed)
        return cls(name, int(seed))

    @property
    def label(self) -> str:
        """How reports and the command line write it: ``random:7``, ``alternate``."""
        if self.strategy == EXPLICIT:
            return f"{EXPLICIT} ({len(self.passes)} passes named)"
        return f"{self.strategy}:{self.seed}" if STRATEGIES[self.strategy][1] else self.strategy

    def assign(self, passes: Sequence[FilterPass], *, complete: bool = True,
               devices: Sequence[Place] = ()) -> dict[str, Place]:
        """The device of each of ``passes`` (a frame's filter passes, in graph order)
        by name. An explicit assignment naming a pass not among them is a
        PlacementError naming it — unless ``complete`` is False (a frame that reused
        kept results runs only some of its passes: the others ran where an earlier
        frame put them). ``devices``: the OpenCL devices the renderer uses (none
        named: its own one), which ``spread-layers`` goes round and an explicit
        device must be one of (a PlacementError naming it otherwise)."""
        if self.strategy == EXPLICIT:
            names = {p.name for p in passes}
            for name, _ in self.passes:
                if name not in names and complete:
                    shown = ", ".join(sorted(names)[:6]) + (", ..." if len(names) > 6 else "")
                    raise PlacementError(f"placement names pass {name!r}, which this frame does not have "
                                         f"(its filter passes: {shown or 'none'})", name=name)
            given = dict(self.passes)
            usable = {Place(), Place(Executor.OPENCL), *devices}
            for name, place in self.passes:
                if place not in usable:
                    shown = ", ".join(sorted(p.key for p in usable))
                    raise PlacementError(f"placement puts pass {name!r} on {place.key}, a device this renderer does not "
                                         f"use (it uses {shown}; LAMINA_OPENCL_DEVICES chooses them)", name=place.key)
            return {p.name: given.get(p.name, Place()) for p in passes}
        strategy = STRATEGIES[self.strategy][0]
        chosen = strategy(passes, random.Random(self.seed), tuple(devices))
        return {p.name: Place.of(where) for p, where in zip(passes, chosen)}
