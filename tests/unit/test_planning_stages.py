"""Planning hands each stage a typed value (graph.planner's docstring): the parts of the
planner emit only into its FrameOutput, and the retained fast path gives up by returning
None, never by raising, so planning from scratch starts from a new FrameOutput. Read from
the code (no GPU), and checked on a frame whose fast path begins and then gives up."""

from __future__ import annotations

import ast
from pathlib import Path

from lamina import FrameRequest, Layer, Scene
from lamina.graph import ExecutorFacts, FrameState, build_frame_graph
from lamina.graph.fast_path import RetainedFastPath
from lamina.graph.output import FrameOutput
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE
from tests.same_graph import assert_same_graph

GRAPH = Path(__file__).resolve().parents[2] / "engine" / "graph"
PARTS = ("planner.py", "effects.py", "backed.py", "tiled.py", "masks.py", "fast_path.py")
KEPT = ExecutorFacts(retained=EVERY_TEXTURE)
EMITTED = {f.name for f in FrameOutput.__dataclass_fields__.values()}


def _self_attributes_set(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                out.add(t.attr)
    return out


def test_the_planner_parts_emit_only_into_the_frame_output():
    for name in PARTS:
        tree = ast.parse((GRAPH / name).read_text(encoding="utf-8"))
        stray = {a.lstrip("_") for a in _self_attributes_set(tree)} & EMITTED
        assert not stray, f"{name} keeps {sorted(stray)} on the planner: what a frame emits is FrameOutput's"


def test_the_fast_path_gives_up_without_raising():
    tree = ast.parse((GRAPH / "fast_path.py").read_text(encoding="utf-8"))
    raises = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Raise)]
    assert raises == [], f"fast_path.py raises at lines {raises}: giving up is returning None"
    assert not any(isinstance(n, ast.ClassDef) and n.name == "PlanAgain" for n in ast.walk(tree))


def _row() -> Scene:
    """A blurred promoted card beside two plain ones: a larger blur reaches them."""
    scene = Scene(300, 100, "white")
    scene.root.add(Layer("blurred", (10, 20, 60, 60), "background: #c33; filter: blur(1px); will-change: transform"))
    scene.root.add(Layer("near", (78, 20, 40, 60), "background: #36c"))
    scene.root.add(Layer("far", (220, 20, 40, 60), "background: #3a3"))
    return scene


def test_a_fast_path_that_gives_up_leaves_nothing_in_the_graph(monkeypatch):
    """The blur grows until its reach overlaps the next card: the fast path plans the
    filter again, finds the overlap decisions changed, and gives up; the frame is then
    the one planning from scratch gives, with no pass or decision twice."""
    gave_up_late = []
    give_up = RetainedFastPath._give_up
    monkeypatch.setattr(RetainedFastPath, "_give_up", lambda self, saved: gave_up_late.append(1) or give_up(self, saved))
    a, b = _row(), _row()
    fast, slow = FrameState(), FrameState(fast_path=False)
    gave_up = 0
    for i, blur in enumerate(["1px", "1px", "2px", "3px", "9px", "9px", "2px"]):
        a["blurred"].style["filter"] = b["blurred"].style["filter"] = f"blur({blur})"
        before = fast.fast_frames
        ga = build_frame_graph(a, FrameRequest(), Limits(), ImageStore(), fast, KEPT)
        gb = build_frame_graph(b, FrameRequest(), Limits(), ImageStore(), slow, KEPT)
        assert_same_graph(ga, gb)
        names = [p.name for p in ga.passes]
        assert len(names) == len(set(names)), f"frame {i}: a pass twice: {names}"
        gave_up += i > 1 and fast.fast_frames == before
    assert fast.fast_frames >= 2, "the small blur steps are planned by the fast path"
    assert gave_up >= 1, "the blur reaching the next card is planned from scratch"
    assert gave_up_late, "after the fast path had begun to emit (its refiltered draw made)"
