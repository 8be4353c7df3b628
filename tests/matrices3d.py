"""4x4 matrices of CSS Transforms 2 (column vectors, y down, z toward the viewer) for the
3D geometry tests, written from the spec's definitions, independently of the engine."""

from __future__ import annotations

import math

import numpy as np


def translate(x=0.0, y=0.0, z=0.0):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def rotate_x(deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def rotate_y(deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1.0]])


def scale(x=1.0, y=1.0, z=1.0):
    return np.diag([x, y, z, 1.0])


def perspective(d, origin=(0.0, 0.0)):
    """perspective(d) with perspective-origin at ``origin``: the eye at z = d."""
    p = np.eye(4)
    p[3, 2] = -1.0 / d
    return translate(*origin) @ p @ translate(-origin[0], -origin[1])


def about(m, origin):
    """``m`` with transform-origin at ``origin`` (x, y, z)."""
    return translate(*origin) @ m @ translate(*(-np.asarray(origin, dtype=float)))
