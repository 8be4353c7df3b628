"""Real CSS properties Lamina does not implement are UnsupportedFeatureError (the name is
right, the feature missing); only names that are not CSS are UnknownPropertyError."""

from __future__ import annotations

import pytest

from lamina.css.known import CSS_PROPERTIES
from lamina.errors import UnknownPropertyError, UnsupportedFeatureError
from lamina.style import PROPERTIES, Style


@pytest.mark.parametrize("name", ["content", "margin-top", "grid-template-columns", "writing-mode", "--my-colour",
                                  "Outline-Offset"])
def test_real_css_that_lamina_lacks_is_unsupported(name):
    with pytest.raises(UnsupportedFeatureError) as info:
        Style(f"{name}: 1px")
    assert info.value.property == name.lower() and info.value.column == 1


@pytest.mark.parametrize("name", ["colr", "background-colour", "scroll-offset", "--"])
def test_names_that_are_not_css_are_unknown(name):
    with pytest.raises(UnknownPropertyError):
        Style(f"{name}: 1px")


def test_every_property_lamina_implements_is_real_css_or_a_documented_extension():
    extensions = {"scroll-left", "scroll-top"}  # the DOM's scrollLeft / scrollTop, as properties
    assert set(PROPERTIES) - CSS_PROPERTIES <= extensions
