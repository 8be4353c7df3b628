"""Regressions from issue 27's review of the SVG filter work, without a GPU: feConvolveMatrix
divisor 0, feSpotLight's specularExponent outside [1, 128], animating a transfer function the
markup lacks (the GPU side of each is in tests/gl/test_svg_filter_regressions_gl.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lamina import filters
from lamina.animation.svg_attributes import SvgAttributeAnimation
from lamina.errors import SvgFilterError
from lamina.filters.svg import parse_svg

NS = 'xmlns="http://www.w3.org/2000/svg"'
BOX = 'x="0" y="0" width="1" height="1"'


def _reference(body: str, img: np.ndarray) -> np.ndarray:
    markup = f'<svg {NS}><filter id="f" {BOX} color-interpolation-filters="sRGB">{body}</filter></svg>'
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NaN or overflow on the way
        return filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=markup)


def _image(rng, h=14, w=17) -> np.ndarray:
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
    return img


@pytest.mark.parametrize("kernel", ["1 2 1 0 4 0 1 2 1", "1 -1 0 0 0 0 0 1 -1"])
def test_a_zero_divisor_means_the_default_divisor(rng, kernel):
    # Filter Effects 1: "If the specified divisor is 0 then the default value will be used instead"
    # (the kernel's sum, or 1 where that is 0): the second kernel sums to 0.
    img = _image(rng)
    zero = _reference(f"<feConvolveMatrix order='3' kernelMatrix='{kernel}' divisor='0'/>", img)
    default = _reference(f"<feConvolveMatrix order='3' kernelMatrix='{kernel}'/>", img)
    np.testing.assert_array_equal(zero, default)


@pytest.mark.parametrize("given, clamped", [("-2", "1"), ("0.25", "1"), ("500", "128")])
def test_a_spot_lights_exponent_is_clamped_to_1_to_128_as_chromium_does(rng, given, clamped):
    img = _image(rng)
    def spot(e: str) -> str:
        return ("<feSpecularLighting surfaceScale='3' specularExponent='8'><feSpotLight x='10' y='8' z='5' "
                f"pointsAtX='12' pointsAtY='9' pointsAtZ='0' specularExponent='{e}'/></feSpecularLighting>")
    np.testing.assert_array_equal(_reference(spot(given), img), _reference(spot(clamped), img))


def test_animating_a_transfer_function_the_markup_lacks_is_an_error_naming_it():
    doc = parse_svg(f'<svg {NS}><filter id="f"><feComponentTransfer result="c"><feFuncR type="linear"/>'
                    '</feComponentTransfer></filter></svg>')
    with pytest.raises(SvgFilterError, match=r'<filter id="f"> <feComponentTransfer result="c">: has no <feFuncG>') as e:
        SvgAttributeAnimation.create(doc, "#f", {"0%": {"c.feFuncG.slope": "0"}, "100%": {"c.feFuncG.slope": "2"}},
                                     duration="1s")
    assert e.value.property == "c.feFuncG.slope"
    # the function the markup has animates
    SvgAttributeAnimation.create(doc, "#f", {"0%": {"c.feFuncR.slope": "0"}, "100%": {"c.feFuncR.slope": "2"}},
                                 duration="1s")
