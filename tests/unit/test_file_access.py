"""Confined file access (lamina.file_access): a scene file reads images only inside its own
folder and the folders its caller allowed; absolute paths, ``..`` escapes and symlinks
out are refused with a FileAccessError naming the layer, the JSON path, the url as
written and where it leads. The Python API and data: URLs are not confined.

No GPU: ``scene.plan()`` decodes every image it draws (for its natural size), so a refused
or missing image shows up there exactly as in ``render``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from lamina import Layer, Scene, load_scene
from lamina.css.values import ImageRef
from lamina.errors import FileAccessError, ImageLoadError, LaminaInputError
from lamina.file_access import FileAccess
from lamina.images import ImageStore, encode_png_data_url
from lamina.scene_file import scene_from_dict

RED = np.zeros((2, 3, 4), np.uint8)
RED[..., 0] = RED[..., 3] = 255


@pytest.fixture
def site(tmp_path):
    """tmp/scene/ (the scene's folder, with images/in.png) and tmp/secret/ (outside)."""
    scene_dir, secret = tmp_path / "scene", tmp_path / "secret"
    (scene_dir / "images").mkdir(parents=True)
    secret.mkdir()
    Image.fromarray(RED, "RGBA").save(scene_dir / "images" / "in.png")
    Image.fromarray(RED, "RGBA").save(secret / "secret.png")
    return scene_dir, secret


def write_scene(folder: Path, style, *, name="scene.json", children=()) -> Path:
    layer = {"id": "card", "box": [0, 0, 20, 10], "style": style}
    if children:
        layer["children"] = list(children)
    path = folder / name
    path.write_text(json.dumps({"lamina": 1, "width": 40, "height": 30, "layers": [layer]}))
    return path


def bg(url: str) -> str:
    return f"background: url({json.dumps(url)}) no-repeat"


def drawn_image(graph) -> tuple[str, str, int, int]:
    """What the card's raster pass samples: ("file", resolved path, w, h), or ("url", the
    data: URL, w, h). Planning decodes the image, so its size is the file's own."""
    (paint,) = [p.paint for p in graph.raster_passes() if p.layer_id == "card"]
    kind, source = paint.image.key[:2]
    return kind, source, paint.image.width, paint.image.height


def refused(path: Path, **load) -> FileAccessError:
    scene = load_scene(path, **load)
    with pytest.raises(FileAccessError) as info:
        scene.plan()
    return info.value


# -- what stays allowed -------------------------------------------------------------------


@pytest.mark.parametrize("url", ["images/in.png", "./images/in.png", "images/../images/in.png"])
def test_relative_paths_inside_the_folder_load(site, url):
    scene_dir, _ = site
    graph = load_scene(write_scene(scene_dir, bg(url))).plan()
    assert graph.passes  # planned, image decoded


def test_an_absolute_path_into_the_folder_itself_is_inside(site):
    scene_dir, _ = site
    inside = scene_dir / "images" / "in.png"
    graph = load_scene(write_scene(scene_dir, bg(str(inside)))).plan()
    assert drawn_image(graph) == ("file", os.path.realpath(inside), 3, 2)


def test_a_symlink_inside_pointing_inside_is_allowed(site):
    scene_dir, _ = site
    (scene_dir / "alias.png").symlink_to(scene_dir / "images" / "in.png")
    (scene_dir / "pics").symlink_to(scene_dir / "images", target_is_directory=True)
    target = ("file", os.path.realpath(scene_dir / "images" / "in.png"), 3, 2)
    assert drawn_image(load_scene(write_scene(scene_dir, bg("alias.png"))).plan()) == target
    assert drawn_image(load_scene(write_scene(scene_dir, bg("pics/in.png"))).plan()) == target


def test_data_urls_are_not_affected(site):
    scene_dir, _ = site
    url = encode_png_data_url(RED)
    assert drawn_image(load_scene(write_scene(scene_dir, bg(url))).plan()) == ("url", url, 3, 2)


# -- the escapes --------------------------------------------------------------------------


def test_an_absolute_path_out_is_refused_with_layer_json_path_url_and_resolved(site):
    scene_dir, secret = site
    url = str(secret / "secret.png")
    path = write_scene(scene_dir, bg(url))
    err = refused(path)
    assert isinstance(err, ImageLoadError) and isinstance(err, LaminaInputError)
    assert (err.layer, err.path, err.file, err.url) == ("card", "$.layers[0].style", str(path), url)
    assert err.resolved == os.path.realpath(url)
    assert err.allowed == (os.path.realpath(scene_dir),)
    msg = str(err)
    assert msg.startswith(f"{path}: $.layers[0].style: layer 'card' image url({url})")
    assert "absolute path" in msg and str(scene_dir) in msg and "allow_files" in msg and "--allow-files" in msg


@pytest.mark.parametrize("url", ["../secret/secret.png", "images/../../secret/secret.png", "../../../../../etc/hostname"])
def test_dot_dot_escapes_are_refused(site, url):
    scene_dir, _ = site
    err = refused(write_scene(scene_dir, bg(url)))
    assert "'..' leads out" in str(err) and err.url == url
    assert err.resolved == os.path.realpath(scene_dir / url)


def test_file_urls_are_paths_like_any_other(site):
    scene_dir, secret = site
    err = refused(write_scene(scene_dir, bg((secret / "secret.png").as_uri())))
    assert "absolute path" in str(err)
    load_scene(write_scene(scene_dir, bg("file:images/in.png"))).plan()


def test_a_symlink_pointing_out_is_refused(site):
    scene_dir, secret = site
    (scene_dir / "innocent.png").symlink_to(secret / "secret.png")
    err = refused(write_scene(scene_dir, bg("innocent.png")))
    assert "symlink leads out" in str(err) and err.resolved == os.path.realpath(secret / "secret.png")
    (scene_dir / "shared").symlink_to(secret, target_is_directory=True)
    err = refused(write_scene(scene_dir, bg("shared/secret.png")))
    assert "symlink leads out" in str(err)


def test_a_refused_path_is_refused_before_it_is_looked_at(site):
    """Whether a file exists outside the folder must not be learnable from the error."""
    scene_dir, secret = site
    there = refused(write_scene(scene_dir, bg(str(secret / "secret.png"))))
    missing = refused(write_scene(scene_dir, bg(str(secret / "no-such.png"))))
    assert there.reason == missing.reason


def test_the_json_path_is_where_the_url_is_written(site):
    scene_dir, _ = site
    err = refused(write_scene(scene_dir, {"background-image": "url(../secret/secret.png)"}))
    assert err.path == "$.layers[0].style.background-image"
    child = {"id": "kid", "box": [0, 0, 5, 5], "style": "background-image: url(../secret/secret.png)"}
    err = refused(write_scene(scene_dir, "background: red", children=[child]))
    assert (err.layer, err.path) == ("kid", "$.layers[0].children[0].style")


def test_a_url_in_keyframes_is_confined_and_located(site):
    scene_dir, _ = site
    path = scene_dir / "anim.json"
    path.write_text(json.dumps({"lamina": 1, "width": 40, "height": 30, "layers": [{
        "id": "card", "box": [0, 0, 20, 10], "style": bg("images/in.png"),
        "animations": [{"duration": 1, "keyframes": {"to": {"background-image": "url(../secret/secret.png)"}}}]}]}))
    scene = load_scene(path)
    scene.plan(t=0.1)  # before the discrete flip: the allowed image
    with pytest.raises(FileAccessError) as info:
        scene.plan(t=0.9)
    assert info.value.path == "$.layers[0].animations[0].keyframes.to.background-image"


# -- what the caller may allow ------------------------------------------------------------


def test_allow_files_grants_a_folder_or_a_file(site, tmp_path):
    scene_dir, secret = site
    path = write_scene(scene_dir, bg(str(secret / "secret.png")))
    load_scene(path, allow_files=[secret]).plan()
    load_scene(path, allow_files=[str(secret / "secret.png")]).plan()
    load_scene(write_scene(scene_dir, bg("../secret/secret.png")), allow_files=[secret]).plan()
    other = tmp_path / "other"
    other.mkdir()
    err = refused(path, allow_files=[other])  # another folder does not help
    assert err.allowed == (os.path.realpath(scene_dir), os.path.realpath(other))


def test_allow_files_entries_must_exist(site, tmp_path):
    scene_dir, _ = site
    with pytest.raises(LaminaInputError, match="allow_files: .*nowhere.* does not exist"):
        load_scene(write_scene(scene_dir, "background: red"), allow_files=[tmp_path / "nowhere"])
    with pytest.raises(LaminaInputError, match="expected folder paths"):
        load_scene(write_scene(scene_dir, "background: red"), allow_files=[42])


def test_a_single_allow_files_string_is_one_folder(site):
    scene_dir, secret = site
    graph = load_scene(write_scene(scene_dir, bg(str(secret / "secret.png"))), allow_files=str(secret)).plan()
    assert drawn_image(graph) == ("file", os.path.realpath(secret / "secret.png"), 3, 2)


def test_the_policy_can_be_replaced_on_the_scene(site):
    scene_dir, secret = site
    scene = load_scene(write_scene(scene_dir, bg(str(secret / "secret.png"))))
    assert scene.file_access.confined and scene.base_dir == scene_dir
    scene.file_access = FileAccess.unrestricted(scene.base_dir)  # the caller trusts this file
    scene.plan()


# -- the Python API is not confined -------------------------------------------------------


def test_a_scene_built_in_python_reads_any_path(site):
    _, secret = site
    scene = Scene(40, 30)
    scene.root.add(Layer("a", (0, 0, 10, 10), bg(str(secret / "secret.png"))))
    scene.root.add(Layer("b", (10, 0, 10, 10), image=secret / "secret.png"))
    scene.plan()
    assert not scene.file_access.confined


def test_an_image_path_given_in_python_is_read_even_in_a_loaded_scene(site):
    scene_dir, secret = site
    scene = load_scene(write_scene(scene_dir, "background: red"))
    scene.root.add(Layer("api", (0, 0, 10, 10), image=str(secret / "secret.png")))
    scene.plan()  # the caller wrote this path: allowed
    scene.root.add(Layer("css", (0, 0, 10, 10), bg(str(secret / "secret.png"))))
    with pytest.raises(FileAccessError) as info:
        scene.plan()  # url() text in a scene file's tree: confined
    assert info.value.layer == "css" and info.value.path is None  # added in Python: no JSON path


def test_scene_from_dict_is_unrestricted_unless_told(site):
    scene_dir, secret = site
    data = json.loads(write_scene(scene_dir, bg(str(secret / "secret.png"))).read_text())
    scene_from_dict(data, base_dir=scene_dir).plan()
    with pytest.raises(FileAccessError):
        scene_from_dict(data, file_access=FileAccess.confined_to(scene_dir)).plan()
    with pytest.raises(LaminaInputError, match="not both"):
        scene_from_dict(data, base_dir=scene_dir, file_access=FileAccess.confined_to(scene_dir))


def test_a_decoded_image_is_not_handed_to_a_scene_that_may_not_read_it(site):
    """The store checks the policy before its cache: an image another scene decoded
    is still refused to a confined one."""
    scene_dir, secret = site
    store, ref = ImageStore(), ImageRef(url=str(secret / "secret.png"))
    store.begin_frame(FileAccess.unrestricted())
    store.get(ref, None, "a")
    store.begin_frame(FileAccess.confined_to(scene_dir))
    with pytest.raises(FileAccessError):
        store.get(ref, scene_dir, "a")


def test_file_access_is_a_frozen_hashable_policy(site):
    scene_dir, secret = site
    a = FileAccess.confined_to(scene_dir, [secret])
    assert a == FileAccess.confined_to(scene_dir, [secret]) and hash(a) == hash(FileAccess.confined_to(scene_dir, [secret]))
    assert a != FileAccess.unrestricted(scene_dir)
    with pytest.raises(AttributeError):
        a.confined = False
    assert a.resolve("images/in.png") == Path(os.path.realpath(scene_dir / "images" / "in.png"))
    assert FileAccess.unrestricted(scene_dir).resolve("../x.png") == scene_dir / "../x.png"


def test_the_json_path_names_the_text_with_that_very_url(site):
    scene_dir, _ = site
    path = scene_dir / "two.json"
    path.write_text(json.dumps({"lamina": 1, "width": 40, "height": 30, "layers": [{
        "id": "card", "box": [0, 0, 20, 10], "style": "background: url(images/banana.png)",
        "animations": [{"duration": 1, "keyframes": {"to": {"background-image": "url(images/a.png)"}}}]}]}))
    scene = load_scene(path)
    assert scene.source.path_of("card", "images/a.png") == "$.layers[0].animations[0].keyframes.to.background-image"
    assert scene.source.path_of("card", "images/banana.png") == "$.layers[0].style"
    assert scene.source.path_of("card", "elsewhere.png") == "$.layers[0]"
    with pytest.raises(ImageLoadError, match=r"\$\.layers\[0\]\.style: layer 'card' image url\(images/banana.png\)"):
        scene.plan()


def test_a_mirror_holds_absolute_paths_and_nothing_leaves_it(tmp_path):
    """With ``mirror`` (a batch worker's copy of the submitter's files) an absolute path or
    file: URL is looked for under the mirror; a relative one joins the folder as before;
    one leading out of the confined folders is still refused."""
    mirror = tmp_path / "mirror"
    folder = mirror / "home" / "scenes"
    folder.mkdir(parents=True)
    (folder / "a.png").write_bytes(b"x")
    access = FileAccess(base_dir=folder, confined=True, mirror=mirror)
    assert access.resolve("/home/scenes/a.png") == folder / "a.png"
    assert access.resolve("file:///home/scenes/./a.png") == folder / "a.png"
    assert access.resolve("a.png") == folder / "a.png"
    with pytest.raises(FileAccessError, match="an absolute path"):
        access.resolve("/etc/passwd")
    with pytest.raises(FileAccessError, match=r"'\.\.' leads out"):
        access.resolve("../../../etc/passwd")
