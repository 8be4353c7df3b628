"""The example notebook runs top to bottom (nbclient, a real kernel) and shows frames;
the explorer's sliders drive the layer and the frame beside them."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient
from PIL import Image

from lamina import Layer, Scene
from lamina.errors import LaminaInputError
from lamina.explorer import Explorer

NOTEBOOK = Path(__file__).resolve().parents[2] / "demos" / "lamina-notebook.ipynb"

pytestmark = pytest.mark.gl


@pytest.mark.slow
def test_example_notebook_runs(tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    pngs = [out["data"]["image/png"] for cell in notebook.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if "image/png" in out.get("data", {})]
    assert len(pngs) >= 2, "frames show inline"
    first = np.asarray(Image.open(io.BytesIO(base64.b64decode(pngs[0]))))
    assert first.shape[:2] == (300, 480) and len(np.unique(first.reshape(-1, first.shape[2]), axis=0)) > 50
    text = "".join(out.get("text", "") for cell in notebook.cells for out in cell.get("outputs", []))
    assert "filter: blur(3px) saturate(1.8)" in text, "the explanation is printed"
    widgets = [out for cell in notebook.cells for out in cell.get("outputs", [])
               if "application/vnd.jupyter.widget-view+json" in out.get("data", {})]
    assert widgets, "the explorer widget is displayed"


def _scene() -> Scene:
    scene = Scene(120, 80, background="white")
    scene.root.add(Layer("card", (30, 20, 60, 40), "background: rgb(200 30 60)"))
    return scene


def test_explorer_sliders_drive_the_layer_and_frame(gl):
    explorer = Explorer(_scene(), "card", gl)
    before = explorer.image.value
    assert explorer.filter_css() == "none" and explorer.frame is not None
    explorer.filters["grayscale"].value = 1.0
    assert explorer.layer.style["filter"] == "grayscale(1)"
    pixel = np.asarray(Image.open(io.BytesIO(explorer.image.value)).convert("RGBA"))[40, 60]
    assert abs(int(pixel[0]) - int(pixel[1])) <= 1 and abs(int(pixel[1]) - int(pixel[2])) <= 1, "grey"
    explorer.transform["translate-x"].value = 20
    assert "translate(20px, 0px)" in explorer.layer.style["transform"]
    explorer.policy.value = "all"
    assert explorer.frame.graph.policy.name == "all"
    assert explorer.image.value != before and explorer.explanation.value == explorer.frame.explain()


def test_explorer_refuses_what_it_cannot_show(gl):
    with pytest.raises(LaminaInputError, match=r"no layer with id 'nope' \(the layers: 'root'"):
        Explorer(_scene(), "nope", gl)
    with pytest.raises(LaminaInputError, match="needs a lamina.Scene"):
        Explorer("scene.json", "card", gl)
