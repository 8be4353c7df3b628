"""The decision stage for stacking contexts (graph.routes): each context's route — the
effect it is drawn through and the render surface it needs — is decided from its style
and subtree alone, before emission, and recorded in the frame graph. Checked against
the rules written out by hand (Filter Effects and Compositing order, cc's surface
rules), without a planner or a GPU; then on planned frames, where an effect that does
nothing here is declined for the next route."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lamina import FrameRequest, Layer, Scene
from lamina.graph import FrameState, build_frame_graph
from lamina.images import ImageStore
from lamina.limits import Limits
from tests.kept import EVERY_TEXTURE
from lamina.graph import ExecutorFacts
from lamina.compositor.tree import StackingContext, resolve_tree
from lamina.framegraph import ContextRoute, Route, SurfaceReason
from lamina.graph.routes import route_context

KEPT = ExecutorFacts(retained=EVERY_TEXTURE)
ROUTES = Path(__file__).resolve().parents[2] / "engine" / "graph" / "routes.py"


def _contexts(scene: Scene) -> dict[str, StackingContext]:
    out = {}

    def visit(ctx: StackingContext) -> None:
        out[ctx.node.id] = ctx
        for item in ctx.items:
            if isinstance(item, StackingContext):
                visit(item)

    visit(resolve_tree(scene.root))
    return out


def _route(css: str, children: int = 0, *, as_one_draw: bool = False, parent_css: str = "",
           declined: frozenset = frozenset()) -> ContextRoute:
    scene = Scene(200, 200, "white")
    holder = scene.root.add(Layer("holder", (0, 0, 200, 200), parent_css)) if parent_css else scene.root
    el = holder.add(Layer("el", (10, 10, 100, 100), "background: red; " + css))
    for i in range(children):
        el.add(Layer(f"child{i}", (10 * i, 10, 20, 20), "background: blue"))
    ctx = _contexts(scene)["el"]
    return route_context(ctx, as_one_draw=as_one_draw, backdrop_root=True, tiled=lambda node: False, declined=declined)


def test_the_decision_stage_needs_no_planner_cache_or_gpu():
    tree = ast.parse(ROUTES.read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m and ("gpu" in m or "cache" in m or "planner" in m or "effects" in m) for m in imported), imported
    assert not any(isinstance(n, ast.ClassDef) for n in ast.walk(tree)), "a function of its input, not a planner part"


@pytest.mark.parametrize("css, children, route, surface", [
    ("filter: blur(2px)", 0, Route.FILTER, SurfaceReason.FILTER),
    ("backdrop-filter: blur(2px)", 0, Route.BACKDROP_FILTER, SurfaceReason.BACKDROP_FILTER),
    # The first effect in CSS order decides: a filter before a mask, before opacity.
    ("filter: blur(2px); opacity: 0.5; mask-image: linear-gradient(black, transparent)", 2, Route.FILTER, SurfaceReason.FILTER),
    ("mask-image: linear-gradient(black, transparent)", 0, Route.MASK, None),  # one draw holds the mask
    ("mask-image: linear-gradient(black, transparent)", 1, Route.MASK, SurfaceReason.MASK),
    ("clip-path: polygon(0 0, 100% 0, 0 100%)", 1, Route.MASK, SurfaceReason.MASK),
    ("opacity: 0.5", 1, Route.GROUP_SURFACE, SurfaceReason.OPACITY_GROUP),  # over two drawing layers
    ("opacity: 0.5", 0, Route.IN_TARGET, None),  # one: into its draw (viz's single-quad bypass)
    ("", 3, Route.IN_TARGET, None),
])
def test_routes_follow_css_order_and_cc_surface_rules(css, children, route, surface):
    decided = _route(css + "; z-index: 1", children)
    assert (decided.route, decided.surface) == (route, surface), str(decided)


def test_an_opacity_over_one_drawing_layer_names_the_draw_that_carries_it():
    assert _route("opacity: 0.5; z-index: 1").opacity_into == "el"
    assert _route("z-index: 1").opacity_into is None
    faded = _route("opacity: 0.25", 1)
    assert "opacity 0.25 over 2 drawing layers" in faded.detail


def test_a_blended_element_is_one_draw_alone_and_a_surface_with_descendants():
    assert _route("mix-blend-mode: multiply", as_one_draw=True).route is Route.ONE_DRAW
    grouped = _route("mix-blend-mode: multiply", 1, as_one_draw=True)
    assert (grouped.route, grouped.surface) == (Route.GROUP_SURFACE, SurfaceReason.BLEND)
    assert "2 drawing layers flattened, then blended" in grouped.detail
    # Opacity over the two comes first: the opacity group is the surface that is blended.
    assert _route("mix-blend-mode: multiply; opacity: 0.5", 1, as_one_draw=True).surface is SurfaceReason.OPACITY_GROUP


def test_an_isolated_group_with_a_blending_descendant_is_a_surface():
    scene = Scene(200, 200, "white")
    group = scene.root.add(Layer("group", (0, 0, 150, 150), "isolation: isolate; background: #eee"))
    group.add(Layer("blender", (10, 10, 50, 50), "background: red; mix-blend-mode: multiply"))
    decided = route_context(_contexts(scene)["group"], as_one_draw=False, backdrop_root=True, tiled=lambda n: False)
    assert (decided.route, decided.surface) == (Route.GROUP_SURFACE, SurfaceReason.ISOLATION)


def test_a_declined_effect_goes_on_to_the_next_route():
    css = "filter: blur(2px); opacity: 0.5"
    assert _route(css, 1, declined=frozenset({Route.FILTER})).surface is SurfaceReason.OPACITY_GROUP


def test_a_layer_too_large_for_one_texture_is_masked_through_a_surface():
    scene = Scene(200, 200, "white")
    scene.root.add(Layer("el", (0, 0, 100, 100), "background: red; mask-image: linear-gradient(black, transparent)"))
    decided = route_context(_contexts(scene)["el"], as_one_draw=False, backdrop_root=True, tiled=lambda n: True)
    assert decided.surface is SurfaceReason.MASK


@pytest.mark.parametrize("css, children, as_one_draw, applies", [
    ("filter: blur(1px)", 0, False, ("filter blur(1px)",)),
    ("mix-blend-mode: multiply", 0, True, ()),  # blended inside T' (the detail says so), T' source-over
    ("mask-image: linear-gradient(black, transparent)", 1, False, ("mask-image",)),
    ("clip-path: polygon(0 0, 100% 0, 0 100%)", 0, False, ("clip-path polygon",)),
    ("opacity: 0.5", 2, False, ("opacity 0.5",)),
    # CSS order: filter, then mask and clip-path, opacity, blending.
    ("mix-blend-mode: screen; opacity: 0.5; clip-path: polygon(0 0, 100% 0, 0 100%); filter: sepia(1)", 1, True,
     ("filter sepia(1)", "clip-path polygon", "opacity 0.5")),
    ("", 1, False, ()),
])
def test_backdrop_filter_with_other_effects_is_decided_not_refused(css, children, as_one_draw, applies):
    """Issue 25 item 4: no UnsupportedFeatureError; the route says which effects act on
    the filtered backdrop and the element together, in CSS order."""
    decided = _route("backdrop-filter: blur(2px); " + css, children, as_one_draw=as_one_draw)
    assert (decided.route, decided.surface) == (Route.BACKDROP_FILTER, SurfaceReason.BACKDROP_FILTER)
    assert decided.applies == applies
    if applies:
        assert str(decided).endswith(f"; then {', '.join(applies)} on both together")
    if as_one_draw:
        assert "blends (mix-blend-mode" in decided.detail and "T' is composited source-over" in decided.detail


def test_a_backdrop_filter_in_an_isolated_group_is_decided_to_read_that_group():
    scene = Scene(200, 200, "white")
    scene.root.add(Layer("el", (0, 0, 100, 100), "background: red; backdrop-filter: blur(2px)"))
    decided = route_context(_contexts(scene)["el"], as_one_draw=False, backdrop_root=False, tiled=lambda n: False)
    assert decided.route is Route.BACKDROP_FILTER and "reads the isolated group" in decided.detail


def test_no_backdrop_filter_combination_is_refused_any_more():
    assert "UnsupportedFeatureError" not in ROUTES.read_text(encoding="utf-8")
    scene = Scene(200, 200, "white")
    group = scene.root.add(Layer("group", (0, 0, 200, 200), "isolation: isolate"))
    group.add(Layer("sibling", (0, 0, 50, 50), "background: green"))
    group.add(Layer("el", (10, 10, 100, 100), "background: rgb(0 0 255 / 30%); backdrop-filter: blur(2px); "
                    "filter: sepia(1); mix-blend-mode: multiply; mask-image: linear-gradient(black, transparent); "
                    "clip-path: polygon(0 0, 100% 0, 0 100%); opacity: 0.5")).add(Layer("kid", (0, 0, 20, 20), "background: red"))
    group.add(Layer("blender", (60, 60, 40, 40), "background: red; mix-blend-mode: multiply"))
    routes = scene.plan().routes  # (raised UnsupportedFeatureError before issue 25)
    assert routes["el"].applies == ("filter sepia(1)", "clip-path polygon", "mask-image", "opacity 0.5")
    assert "mix-blend-mode multiply" in routes["el"].detail and "reads the isolated group" in routes["el"].detail


def test_a_planned_frame_records_each_drawn_context_route_in_paint_order():
    scene = Scene(300, 200, "white")
    scene.root.add(Layer("blurred", (10, 10, 80, 80), "background: #c33; filter: blur(3px)"))
    faded = scene.root.add(Layer("faded", (100, 10, 80, 80), "background: #3c3; opacity: 0.5"))
    faded.add(Layer("inside", (10, 10, 20, 20), "background: #33c"))
    scene.root.add(Layer("noop", (200, 10, 80, 80), "background: #333; filter: blur(0px)"))
    scene.root.add(Layer("gone", (10, 100, 80, 80), "background: #333; opacity: 0"))
    routes = scene.plan().routes
    # The page is the frame's clear colour (no route); opacity 0: not drawn, nothing decided.
    assert list(routes) == ["blurred", "faded", "noop"]
    assert routes["blurred"].surface is SurfaceReason.FILTER
    assert routes["faded"].surface is SurfaceReason.OPACITY_GROUP
    # blur(0px) has no passes: the filter emitter declined it, and the layer is drawn unfiltered.
    assert routes["noop"] == ContextRoute("noop", Route.IN_TARGET)
    assert str(routes["faded"]).startswith("faded: group surface (surface: opacity < 1 over two or more drawing layers)")


def _effects_page() -> Scene:
    scene = Scene(300, 200, "white")
    scene.root.add(Layer("mover", (10, 110, 60, 60), "background: #c33; will-change: transform"))
    scene.root.add(Layer("blurred", (10, 10, 80, 80), "background: #c33; will-change: transform; filter: blur(2px)"))
    still = scene.root.add(Layer("still", (100, 10, 80, 80), "background: #3c3; opacity: 0.5"))
    still.add(Layer("inner", (10, 10, 20, 20), "background: #33c"))
    return scene


def test_fast_path_frames_keep_the_routes_planning_from_scratch_decides():
    # Two copies of the page changed alike: one planned with what last frame kept (the
    # fast path), one from scratch every frame.
    a, b = _effects_page(), _effects_page()
    kept, request = FrameState(), FrameRequest(t=0.0, policy="browser")
    for _ in range(2):  # the second frame reuses what the first rastered: settled
        build_frame_graph(a, request, Limits(), ImageStore(), kept, KEPT)
    for layer, change in (("mover", "transform: translateX(30px)"), ("blurred", "filter: blur(4px)"),
                          ("still", "opacity: 0.6")):
        name, value = change.split(": ")
        a[layer].style[name] = b[layer].style[name] = value
        fast = build_frame_graph(a, request, Limits(), ImageStore(), kept, KEPT)
        slow = build_frame_graph(b, request, Limits(), ImageStore(), FrameState(), KEPT)
        assert fast.routes == slow.routes and fast.routes["still"].surface is SurfaceReason.OPACITY_GROUP
    assert kept.fast_frames >= 1, "the fast path kept last frame's routes at least once"


def test_the_report_says_each_context_drawn_through_an_effect():
    scene = Scene(300, 200, "white")
    scene.root.add(Layer("blurred", (10, 10, 80, 80), "background: #c33; filter: blur(3px)"))
    scene.root.add(Layer("plain", (100, 10, 80, 80), "background: #3c3; z-index: 2"))
    graph = scene.plan()
    text = graph.describe()
    section = text.split("Stacking contexts drawn through an effect (their routes):\n")[1].split("\n")
    assert section[0] == "  blurred: filter (surface: filter)"
    assert "plain:" not in section[1], "a context drawn plainly into its target is not listed"
    routes = graph.to_dict()["routes"]
    assert {"layer": "blurred", "route": "filter", "surface": "filter", "detail": "", "opacity_into": None,
            "applies": []} in routes
    assert [r["layer"] for r in routes] == ["blurred", "plain"]
