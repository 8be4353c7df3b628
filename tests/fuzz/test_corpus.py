"""A corpus of hand-written bad inputs, kept as data (tests/fuzz/corpus.json: kind,
input, the error class it must raise): CSS declarations, filter strings and scene files.
Each must raise exactly its typed error, saying where — a regression here is an error
that became another, lost its location, or stopped being raised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lamina import filters, load_scene
from lamina.errors import LaminaEnvironmentError, LaminaError
from lamina.style import Style

CORPUS = json.loads((Path(__file__).parent / "corpus.json").read_text(encoding="utf-8"))


def test_the_corpus_is_large_and_covers_every_kind():
    assert len(CORPUS) >= 200
    assert {e["kind"] for e in CORPUS} == {"css", "filter", "scene"}
    assert len({(e["kind"], e["input"]) for e in CORPUS}) == len(CORPUS), "no duplicates"


def _run(kind: str, text: str, tmp_path: Path) -> None:
    if kind == "css":
        Style(text).computed()
    elif kind == "filter":
        filters.parse(text).plan()
    else:
        path = tmp_path / "scene.json"
        path.write_text(text, encoding="utf-8")
        load_scene(path).plan()


@pytest.mark.parametrize("entry", CORPUS, ids=[f"{e['kind']}:{e['input'][:50]}" for e in CORPUS])
def test_each_bad_input_raises_its_typed_error_with_a_location(entry, tmp_path):
    with pytest.raises(LaminaError) as info:
        _run(entry["kind"], entry["input"], tmp_path)
    err = info.value
    assert type(err).__name__ == entry["error"], f"{type(err).__name__}: {err}"
    message = str(err)
    if entry["kind"] == "css":
        assert err.property is not None or "column" in message, message
    elif entry["kind"] == "scene" and not isinstance(err, LaminaEnvironmentError):
        assert "$" in message or "scene.json" in message, message  # a JSON path, or the file
    assert "Traceback" not in message and " object at 0x" not in message
