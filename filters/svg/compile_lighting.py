"""feDiffuseLighting / feSpecularLighting -> a LightingPass (``filters.svg.compile``
registers it): the light source in the pass image's pixels, computed on the host once —
a point or spot light's position (primitiveUnits, objectBoundingBox's z by the box's
normalised diagonal, as ``filters.svg.reference`` does) scaled to pixels and moved by
the image's origin (the filter region's corner in the element's pixels); a distant
light's unit vector; a spot light's unit direction and cone cosine; kernelUnitLength in
pixels; the lighting colour in the primitive's space; the input's pixels (its subregion),
where the spec's edge and corner kernels start. Each pixel then runs
shaders/common/lighting.h. Lighting reads
only its input's alpha, which is the same in either colour space: it runs in linearRGB on
any input, and writes its linear light as sRGB."""

from __future__ import annotations

import math

import numpy as np

from ..plan import ImageFormat, LightingPass, LightKind, _Builder
from . import model as m
from .reference import Canvas, _length, _position, srgb_to_linear

__all__ = ["plan_lighting"]


def plan_lighting(b: _Builder, prim: m.DiffuseLighting | m.SpecularLighting, source: str, canvas: Canvas,
                  units: m.Units, linear: bool, in_rect: tuple[int, int, int, int] | None = None,
                  reads: ImageFormat = ImageFormat.RGBA8) -> str:
    """The pass of ``prim`` reading ``source``, an image covering ``canvas`` (whose
    ``origin`` is its pixel (0, 0) in the element's pixels) that is transparent outside
    ``in_rect`` (x0, y0, x1, y1: the input's subregion in its pixels; None: all of it) and
    held as ``reads`` (a blur in floats: compile_linear); the image it writes."""
    c = prim.lighting_color
    rgb = np.array([c.r, c.g, c.b], np.float64)
    if linear:
        rgb = srgb_to_linear(rgb)
    rgb = rgb * c.a  # as the reference's colour, premultiplied by lighting-color's alpha
    light = prim.light
    spot, spot_exponent, cone = (0.0, 0.0, -1.0), 1.0, -2.0
    if isinstance(light, m.DistantLight):
        kind = LightKind.DISTANT
        az, el = math.radians(light.azimuth), math.radians(light.elevation)
        at = (math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el))
    else:
        kind = LightKind.SPOT if isinstance(light, m.SpotLight) else LightKind.POINT

        def pixels(v: tuple[float, float, float]) -> np.ndarray:
            s, (ox, oy) = canvas.scale, canvas.origin
            return np.array([_position(canvas, units, v[0], "x") * s - ox, _position(canvas, units, v[1], "y") * s - oy,
                             _position(canvas, units, v[2], "z") * s])

        where = pixels((light.x, light.y, light.z))
        at = tuple(float(v) for v in where)
        if isinstance(light, m.SpotLight):
            d = pixels(light.points_at) - where
            length = float(np.linalg.norm(d))
            spot = tuple(float(v) for v in (d / length if length > 0 else d))
            spot_exponent = light.exponent
            if light.limiting_cone_angle is not None:
                cone = math.cos(math.radians(abs(light.limiting_cone_angle)))
    unit = (1.0, 1.0)
    if prim.kernel_unit_length is not None:
        unit = (_length(canvas, units, prim.kernel_unit_length[0], "x"),
                _length(canvas, units, prim.kernel_unit_length[1], "y"))
    specular = isinstance(prim, m.SpecularLighting)
    out = b.name("lighting")
    b.passes.append(LightingPass(
        (source,), out, specular, kind, at, prim.surface_scale,
        prim.specular_constant if specular else prim.diffuse_constant, tuple(float(v) for v in rgb),
        prim.specular_exponent if specular else 1.0, spot, spot_exponent, cone, linear, unit, prim.tag, in_rect,
        reads=reads))
    return out
