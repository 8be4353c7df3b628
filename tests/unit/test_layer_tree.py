"""Layer / Scene API: box and id validation, tree operations, style assignment, versions.

Pure Python: nothing here touches the GPU."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import Layer, Scene
from lamina.errors import (
    GeometryError,
    InvalidValueError,
    LaminaInputError,
    LayerTreeError,
    StyleError,
    UnknownPropertyError,
)
from lamina.geometry import Rect
from lamina.layer import MAX_COORDINATE
from lamina.scene import MAX_VIEWPORT
from lamina.css.values import RGBA

# -- boxes ----------------------------------------------------------------------------------

BAD_BOXES = [
    pytest.param((0, 0, -1, 10), "width", id="negative-width"),
    pytest.param((0, 0, 10, -0.5), "height", id="negative-height"),
    pytest.param((math.nan, 0, 10, 10), "x", id="nan-x"),
    pytest.param((0, math.inf, 10, 10), "y", id="inf-y"),
    pytest.param((0, 0, -math.inf, 10), "width", id="minus-inf-width"),
    pytest.param((True, 0, 10, 10), "x", id="bool-x"),
    pytest.param((0, 0, 10, False), "height", id="bool-height"),
    pytest.param((0, "1", 10, 10), "y", id="string-y"),
    pytest.param((0, None, 10, 10), "y", id="none-y"),
    pytest.param((0, 0, 10), None, id="three-numbers"),
    pytest.param((0, 0, 10, 10, 5), None, id="five-numbers"),
    pytest.param((), None, id="empty"),
    pytest.param(5, None, id="not-iterable"),
    pytest.param((MAX_COORDINATE * 2, 0, 1, 1), "x", id="x-beyond-max"),
    pytest.param((0, -MAX_COORDINATE - 1, 1, 1), "y", id="y-beyond-minus-max"),
    pytest.param((0, 0, MAX_COORDINATE + 1, 1), "width", id="width-beyond-max"),
]


@pytest.mark.parametrize("box, field", BAD_BOXES)
def test_bad_box_in_constructor_raises_geometry_error_naming_layer(box, field):
    with pytest.raises(GeometryError) as info:
        Layer("card-7", box)
    message = str(info.value)
    assert "'card-7'" in message
    if field is not None:
        assert field in message
    assert isinstance(info.value, LaminaInputError)


@pytest.mark.parametrize("box, field", BAD_BOXES)
def test_bad_box_assignment_raises_and_keeps_old_box(box, field):
    layer = Layer("panel", (1, 2, 3, 4))
    version = layer.version
    with pytest.raises(GeometryError, match="'panel'"):
        layer.box = box
    assert layer.box == Rect(1.0, 2.0, 3.0, 4.0)
    assert layer.version == version


@pytest.mark.parametrize(
    "box",
    [
        (0, 0, 0, 0),
        (-10.5, -20, 30, 40),
        (MAX_COORDINATE, -MAX_COORDINATE, MAX_COORDINATE, 0),
        [1, 2, 3, 4],
        (np.float64(1.5), 2, 3, 4),
        Rect(1, 2, 3, 4),
    ],
)
def test_good_boxes_become_float_rects(box):
    layer = Layer("ok", box)
    b = layer.box
    assert isinstance(b, Rect)
    expected = (box.x, box.y, box.width, box.height) if isinstance(box, Rect) else tuple(box)
    assert (b.x, b.y, b.width, b.height) == tuple(float(v) for v in expected)
    assert all(type(v) is float for v in (b.x, b.y, b.width, b.height))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_numpy_boxes_of_any_real_dtype_are_accepted(dtype):
    """float64 numpy boxes work, so int and float32 ones (as numpy hands them out) should too."""
    layer = Layer("np", np.array([1, 2, 30, 40], dtype=dtype))
    assert layer.box == Rect(1.0, 2.0, 30.0, 40.0)


def test_random_finite_boxes_round_trip(rng):
    for _ in range(200):
        x, y = rng.uniform(-MAX_COORDINATE, MAX_COORDINATE, 2)
        w, h = rng.uniform(0, MAX_COORDINATE, 2)
        layer = Layer("r", (float(x), float(y), float(w), float(h)))
        assert layer.box == Rect(float(x), float(y), float(w), float(h))


# -- ids --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad_id", ["", "   ", "\t\n", None, 5, b"bytes"])
def test_bad_ids_raise_layer_tree_error(bad_id):
    with pytest.raises(LayerTreeError):
        Layer(bad_id)


def test_duplicate_id_in_scene_is_rejected_and_scene_unchanged():
    scene = Scene(100, 100)
    scene.root.add(Layer("a"))
    before = scene.layers()
    version = scene.version
    with pytest.raises(LayerTreeError, match="'a'"):
        scene.root.add(Layer("a"))
    assert scene.layers() == before
    assert len(scene.root.children) == 1
    assert scene.version == version


def test_duplicate_of_root_id_is_rejected():
    scene = Scene(10, 10)
    with pytest.raises(LayerTreeError, match="'root'"):
        scene.root.add(Layer("root"))


def test_adding_subtree_with_clashing_id_is_rejected_atomically():
    scene = Scene(100, 100)
    scene.root.add(Layer("x"))
    sub = Layer("group", children=[Layer("g1"), Layer("x")])
    with pytest.raises(LayerTreeError, match="'x'"):
        scene.root.add(sub)
    # Nothing of the subtree was registered and it was not attached.
    assert scene.find("group") is None
    assert scene.find("g1") is None
    assert sub.parent is None and sub.scene is None
    assert all(n.scene is None for n in sub.walk())
    assert [c.id for c in scene.root.children] == ["x"]
    # A fixed subtree can then be added.
    sub.remove(sub.children[1])
    scene.root.add(sub)
    assert scene["g1"] is sub.children[0]


def test_subtree_with_internal_duplicate_is_rejected_when_added_to_scene():
    sub = Layer("s", children=[Layer("d"), Layer("e", children=[Layer("d")])])  # fine off-scene
    scene = Scene(10, 10)
    with pytest.raises(LayerTreeError, match="'d'"):
        scene.root.add(sub)
    assert scene.find("s") is None and scene.find("e") is None


def test_adding_into_a_scene_layer_checks_ids():
    scene = Scene(10, 10)
    a = scene.root.add(Layer("a"))
    b = a.add(Layer("b"))
    with pytest.raises(LayerTreeError):
        b.add(Layer("a"))
    assert b.children == []


def test_readding_a_parented_layer_is_rejected():
    p1, p2 = Layer("p1"), Layer("p2")
    c = p1.add(Layer("c"))
    with pytest.raises(LayerTreeError, match="'c'"):
        p2.add(c)
    with pytest.raises(LayerTreeError):
        p1.add(c)  # twice under the same parent
    assert p1.children == [c] and p2.children == [] and c.parent is p1


def test_scene_root_cannot_be_added_elsewhere():
    scene = Scene(10, 10)
    other = Scene(10, 10)
    with pytest.raises(LayerTreeError):
        other.root.add(scene.root)
    with pytest.raises(LayerTreeError):
        Layer("free").add(scene.root)


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_cycles_are_rejected(depth):
    top = Layer("top")
    node = top
    for i in range(depth):
        node = node.add(Layer(f"n{i}"))
    with pytest.raises(LayerTreeError):
        node.add(top)
    assert top.parent is None
    assert node.children == []


def test_self_add_is_rejected():
    a = Layer("a")
    with pytest.raises(LayerTreeError):
        a.add(a)
    assert a.children == []


def test_add_non_layer_is_rejected():
    with pytest.raises(LayerTreeError, match="Layer"):
        Layer("a").add("b")  # type: ignore[arg-type]


# -- walk, find, remove ----------------------------------------------------------------------


def _tree() -> Scene:
    scene = Scene(100, 100)
    a = scene.root.add(Layer("a"))
    a.add(Layer("a1")).add(Layer("a1x"))
    a.add(Layer("a2"))
    b = scene.root.add(Layer("b"))
    b.add(Layer("b1"))
    return scene


def test_walk_is_preorder_in_paint_order():
    scene = _tree()
    assert [n.id for n in scene.root.walk()] == ["root", "a", "a1", "a1x", "a2", "b", "b1"]
    assert [n.id for n in scene.layers()] == ["root", "a", "a1", "a1x", "a2", "b", "b1"]
    assert [n.id for n in scene["a"].walk()] == ["a", "a1", "a1x", "a2"]


def test_walk_matches_reference_on_random_trees(rng):
    scene = Scene(10, 10)
    nodes = [scene.root]
    expected_children: dict[str, list[str]] = {"root": []}
    for i in range(60):
        parent = nodes[int(rng.integers(len(nodes)))]
        child = parent.add(Layer(f"n{i}"))
        nodes.append(child)
        expected_children[parent.id].append(child.id)
        expected_children[child.id] = []

    def ref(id_):
        out = [id_]
        for c in expected_children[id_]:
            out.extend(ref(c))
        return out

    assert [n.id for n in scene.root.walk()] == ref("root")
    for n in nodes:
        assert scene[n.id] is n
        assert scene.find(n.id) is n
        assert scene.root.find(n.id) is n


def test_find_and_getitem():
    scene = _tree()
    assert scene.find("a1x") is scene["a1x"]
    assert scene["a"].find("a1x") is scene["a1x"]
    assert scene["b"].find("a1x") is None
    assert scene.find("missing") is None
    with pytest.raises(KeyError, match="missing"):
        scene["missing"]


def test_remove_unregisters_the_subtree_and_frees_ids():
    scene = _tree()
    a = scene["a"]
    scene.root.remove(a)
    assert a.parent is None
    assert all(n.scene is None for n in a.walk())
    for id_ in ("a", "a1", "a1x", "a2"):
        assert scene.find(id_) is None
    assert [n.id for n in scene.layers()] == ["root", "b", "b1"]
    # ids are free again, and the removed layer can be re-added
    scene.root.add(Layer("a1"))
    with pytest.raises(LayerTreeError):
        scene.root.add(a)  # its child a1 now clashes
    scene.root.remove(scene["a1"])
    scene["b"].add(a)
    assert scene["a1x"].scene is scene
    assert [n.id for n in scene.layers()] == ["root", "b", "b1", "a", "a1", "a1x", "a2"]


def test_remove_non_child_raises():
    scene = _tree()
    with pytest.raises(LayerTreeError):
        scene.root.remove(scene["a1"])  # grandchild, not a child
    with pytest.raises(LayerTreeError):
        scene["b"].remove(Layer("stranger"))


# -- style ------------------------------------------------------------------------------------


def test_style_by_string_dict_and_item():
    layer = Layer("s", style="opacity: 0.5; background-color: red")
    assert layer.style["opacity"] == "0.5"
    assert layer.computed_style().background_color == RGBA(1.0, 0.0, 0.0, 1.0)
    layer.style = {"opacity": "0.25", "z-index": 3}
    assert layer.computed_style().opacity == 0.25
    assert layer.computed_style().z_index == 3
    layer.style["opacity"] = 0.75
    assert layer.computed_style().opacity == 0.75
    layer.style = None
    assert len(layer.style) == 0


def test_style_error_in_constructor_carries_layer_and_column():
    with pytest.raises(InvalidValueError) as info:
        Layer("hero", style="color: red; opacity: banana")
    err = info.value
    assert err.layer == "hero"
    assert err.property == "opacity"
    assert err.column == len("color: red; opacity: ") + 1
    assert "'hero'" in str(err)


def test_style_error_in_constructor_dict_carries_layer():
    with pytest.raises(StyleError) as info:
        Layer("hero", style={"opacity": "banana"})
    assert info.value.layer == "hero"
    assert info.value.property == "opacity"


def test_style_error_on_string_assignment_carries_layer_and_keeps_old_style():
    layer = Layer("card", style="opacity: 0.5")
    with pytest.raises(StyleError) as info:
        layer.style = "opacity: 0.1; colour: red"
    assert isinstance(info.value, UnknownPropertyError)
    assert info.value.layer == "card"
    assert info.value.property == "colour"
    assert layer.style.to_css() == "opacity: 0.5"


def test_style_error_on_dict_assignment_carries_layer():
    layer = Layer("card")
    with pytest.raises(StyleError) as info:
        layer.style = {"opacity": "0.5", "transform": "rotate(ten)"}
    assert info.value.layer == "card"
    assert info.value.property == "transform"
    assert len(layer.style) == 0


def test_style_error_on_item_assignment_carries_layer():
    """``layer.style[prop] = bad`` must name the layer like the other assignment forms."""
    layer = Layer("card")
    with pytest.raises(StyleError) as info:
        layer.style["opacity"] = "banana"
    assert info.value.property == "opacity"
    assert info.value.column == 1
    assert info.value.layer == "card", f"layer not named in: {info.value}"
    assert "opacity" not in layer.style


def test_style_update_css_is_atomic():
    layer = Layer("l", style="opacity: 0.5")
    with pytest.raises(StyleError):
        layer.style.update_css("opacity: 0.2; color: notacolour")
    assert layer.style.to_css() == "opacity: 0.5"


def test_image_and_background_image_conflict_is_an_error_naming_layer():
    scene = Scene(20, 20)
    layer = scene.root.add(Layer("pic", (0, 0, 4, 4), style="background-image: url(a.png)"))
    layer.image = np.zeros((2, 2, 4), np.uint8)
    with pytest.raises(StyleError) as info:
        layer.computed_style()
    assert info.value.layer == "pic"
    assert info.value.property == "background-image"
    with pytest.raises(StyleError, match="'pic'"):
        scene.plan()
    # A gradient is a background-image too.
    layer.style = "background-image: linear-gradient(red, blue)"
    with pytest.raises(StyleError, match="'pic'"):
        layer.computed_style()
    # Removing either source resolves it.
    layer.style = "background-color: red"
    assert layer.computed_style().background_image is layer.image
    layer.image = None
    layer.style = "background-image: url(a.png)"
    assert layer.computed_style().background_image.url == "a.png"


def test_image_setter_kinds(tmp_path):
    layer = Layer("i")
    arr = np.zeros((1, 1, 4), np.uint8)
    layer.image = arr
    assert layer.image.data is arr and layer.image.url is None
    layer.image = "pic.png"
    assert layer.image.url == "pic.png" and layer.image.data is None
    layer.image = tmp_path / "p.png"
    assert layer.image.url == str(tmp_path / "p.png")


# -- scene ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "width, height, bad",
    [
        (0, 10, "width"),
        (10, 0, "height"),
        (-1, 10, "width"),
        (MAX_VIEWPORT + 1, 10, "width"),
        (10, 16385, "height"),
        (1.5, 10, "width"),
        (10, 99.9, "height"),
        (math.nan, 10, "width"),
        (10, math.inf, "height"),
        (True, 10, "width"),
        ("100", 10, "width"),
        (None, 10, "width"),
    ],
)
def test_bad_scene_sizes_raise_geometry_error(width, height, bad):
    with pytest.raises(GeometryError) as info:
        Scene(width, height)
    assert f"scene {bad}" in str(info.value)


@pytest.mark.parametrize("width, height", [(1, 1), (MAX_VIEWPORT, MAX_VIEWPORT), (100.0, 50.0)])
def test_good_scene_sizes(width, height):
    scene = Scene(width, height)
    assert (scene.width, scene.height) == (int(width), int(height))
    assert type(scene.width) is int and type(scene.height) is int
    assert scene.root.box == Rect(0, 0, width, height)


def test_scene_background_and_bad_background():
    assert Scene(10, 10, "#ff0000").background == "#ff0000"
    with pytest.raises(StyleError) as info:
        Scene(10, 10, "not-a-colour")
    assert info.value.layer == "root"


# -- versions ----------------------------------------------------------------------------------


def test_versions_increase_on_every_kind_of_change():
    scene = Scene(100, 100)
    seen = [scene.version]

    def bumped():
        assert scene.version > seen[-1], "scene.version did not increase"
        seen.append(scene.version)

    a = scene.root.add(Layer("a"))
    bumped()
    b = a.add(Layer("b"))
    bumped()
    lv = b.version
    b.box = (1, 1, 5, 5)
    bumped()
    assert b.version > lv
    lv = b.version
    b.style["opacity"] = "0.5"
    bumped()
    assert b.version > lv
    lv = b.version
    b.style = "opacity: 0.25"
    bumped()
    assert b.version > lv
    b.style.update_css("z-index: 2")
    bumped()
    del b.style["z-index"]
    bumped()
    b.image = np.zeros((1, 1, 4), np.uint8)
    bumped()
    scene.root.style["background-color"] = "red"
    bumped()
    a.remove(b)
    bumped()
    # A removed layer no longer changes the scene.
    v = scene.version
    b.box = (0, 0, 1, 1)
    b.style["opacity"] = "1"
    assert scene.version == v


def test_layers_added_before_the_subtree_joins_a_scene_report_changes():
    sub = Layer("s")
    deep = sub.add(Layer("t")).add(Layer("u"))
    scene = Scene(10, 10)
    scene.root.add(sub)
    v = scene.version
    deep.style["opacity"] = "0.5"
    assert scene.version > v


def test_failed_changes_do_not_bump_versions():
    scene = Scene(10, 10)
    a = scene.root.add(Layer("a"))
    v, lv = scene.version, a.version
    with pytest.raises(GeometryError):
        a.box = (0, 0, -1, 1)
    with pytest.raises(StyleError):
        a.style.update_css("opacity: x")
    with pytest.raises(LayerTreeError):
        a.add(Layer("a"))
    assert (scene.version, a.version) == (v, lv)


def test_a_layer_with_an_image_and_text_keeps_both_in_every_computed_style():
    """The image's memo returned early and the second computed style lost the text."""
    layer = Layer("a", (0, 0, 60, 30), "font-size: 20px", image=np.full((6, 6, 4), 200, np.uint8), text="HELLO")
    first, second = layer.computed_style(), layer.computed_style()
    assert first.text == second.text == "HELLO" and second.background_image is not None
    assert second is first, "memoised: the same style object while nothing changed"
