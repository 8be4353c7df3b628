"""Blurs whose result the next primitive amplifies (issue 27, lamina.filters.svg.compile_linear
HeldFor), on GL and on OpenCL against the SVG float64 reference, through ``filters.apply``
on seeded random premultiplied images: "gooey" (blur, an alpha row x18 -7, atop) within 1
level in sRGB and linearRGB over seeded sizes and sigmas, and lighting of a blurred
SourceAlpha (distant / point / spot, diffuse / specular: the emboss and bevel graphs)
within 2. With the blur rounded to 8 bits between passes these were 12-14 and 5-7 levels
off (the audit's s27_gooey.py / s27_light_blur.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters

from .test_filters_gl import backend, random_image  # noqa: F401  (backend: the GL / OpenCL fixture)

NS = 'xmlns="http://www.w3.org/2000/svg"'
GOOEY = ('<feGaussianBlur stdDeviation="{sigma:.3f}" result="b"/>'
         '<feColorMatrix in="b" type="matrix" values="1 0 0 0 0  0 1 0 0 0  0 0 1 0 0  0 0 0 18 -7" result="goo"/>'
         '<feComposite in="SourceGraphic" in2="goo" operator="atop"/>')
LIGHTS = {
    "distant": "<feDistantLight azimuth='60' elevation='30'/>",
    "point": "<fePointLight x='10' y='5' z='20'/>",
    "spot": "<feSpotLight x='5' y='4' z='30' pointsAtX='15' pointsAtY='12' pointsAtZ='0' specularExponent='2' "
            "limitingConeAngle='40'/>",
}


def off(img: np.ndarray, body: str, backend: str, space: str) -> int:
    svg = (f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1" color-interpolation-filters="{space}">'
           f"{body}</filter></svg>")
    out = filters.apply(img, "url(#f)", backend, premultiplied=True, svg=svg).astype(int)
    ref = filters.apply(img, "url(#f)", "reference", premultiplied=True, svg=svg).astype(int)
    return int(np.abs(out - ref).max())


@pytest.mark.parametrize("space", ["sRGB", "linearRGB"])
@pytest.mark.parametrize("seed", [0, 1])
def test_gooey_is_within_a_level_of_the_reference(backend, space, seed):
    rng = np.random.default_rng(2700 + seed)
    h, w = (int(v) for v in rng.integers(20, 44, 2))
    sigma = 3.0 if seed == 0 else float(rng.uniform(3, 10))  # the audit's sigma, then a seeded one
    img = random_image(rng, h, w, transparent_border=2)
    assert off(img, GOOEY.format(sigma=sigma), backend, space) <= 1


@pytest.mark.parametrize("light", sorted(LIGHTS))
@pytest.mark.parametrize("kind", ["Diffuse", "Specular"])
def test_lighting_of_a_blurred_alpha_is_within_two_levels_of_the_reference(backend, light, kind):
    rng = np.random.default_rng(sorted(LIGHTS).index(light) * 2 + (kind == "Specular"))
    sigma = float(rng.uniform(1, 4))
    extra = " specularExponent='10'" if kind == "Specular" else ""
    body = (f"<feGaussianBlur in='SourceAlpha' stdDeviation='{sigma:.3f}' result='b'/>"
            f"<fe{kind}Lighting in='b' surfaceScale='5'{extra}>{LIGHTS[light]}</fe{kind}Lighting>")
    img = random_image(rng, 27, 33, transparent_border=2)
    assert off(img, body, backend, "linearRGB" if light == "point" else "sRGB") <= 2


def test_lighting_of_a_blurred_colour_image_in_linear_rgb_reads_the_float_linear_blur(backend):
    # the blur converts to linear floats anyway; lighting reads its alpha there, no way back
    rng = np.random.default_rng(27)
    img = random_image(rng, 25, 31, transparent_border=2)
    body = ("<feGaussianBlur stdDeviation='1.5' result='b'/>"
            "<feDiffuseLighting in='b' surfaceScale='4'><feDistantLight azimuth='60' elevation='30'/></feDiffuseLighting>")
    assert off(img, body, backend, "linearRGB") <= 2
