"""4x4 transform matrices (CSS Transforms 2): the 3D transform functions, the
perspective matrix, flattening to a 2D projective map, the back-face test, and the
decomposition that animations interpolate (CSS Transforms 2 §"Interpolation of 3D
matrices": unmatrix, quaternion slerp, recompose).

A point is a column vector (x, y, z, w); ``m @ n`` applies ``n`` first, as
``Affine`` does. Entries are stored row-major: ``m.m[4 * row + col]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .geometry import Affine, Projective
from .geometry3d import is_back_face_visible

__all__ = ["Matrix4", "Decomposed3D", "decompose3d", "recompose3d", "interpolate_decomposed"]


@dataclass(frozen=True)
class Matrix4:
    """A 4x4 matrix, row-major entries in ``m``."""

    m: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)

    def rc(self, row: int, col: int) -> float:
        return self.m[4 * row + col]

    # -- the CSS functions -------------------------------------------------------------
    @staticmethod
    def translate(x: float, y: float, z: float = 0.0) -> "Matrix4":
        return Matrix4((1.0, 0.0, 0.0, x, 0.0, 1.0, 0.0, y, 0.0, 0.0, 1.0, z, 0.0, 0.0, 0.0, 1.0))

    @staticmethod
    def scale(x: float, y: float, z: float = 1.0) -> "Matrix4":
        return Matrix4((x, 0.0, 0.0, 0.0, 0.0, y, 0.0, 0.0, 0.0, 0.0, z, 0.0, 0.0, 0.0, 0.0, 1.0))

    @staticmethod
    def rotate3d(x: float, y: float, z: float, degrees: float) -> "Matrix4":
        """CSS Transforms 2 §"Mathematical Description": a rotation by ``degrees`` about
        the normalised vector (x, y, z); the identity for a zero vector (as the spec says
        and Chromium does)."""
        length = math.sqrt(x * x + y * y + z * z)
        if length == 0.0 or not math.isfinite(length):
            return Matrix4()
        x, y, z = x / length, y / length, z / length
        turns = degrees / 90.0
        if turns == round(turns):  # exact at quarter turns: edge-on and flipped layers stay exact
            cos, sin = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][int(round(turns)) % 4]
        else:
            a = math.radians(degrees)
            cos, sin = math.cos(a), math.sin(a)
        # sc = sin(a/2) cos(a/2) = sin(a) / 2; sq = sin^2(a/2) = (1 - cos(a)) / 2.
        sc, sq = sin / 2.0, (1.0 - cos) / 2.0
        return Matrix4((
            1 - 2 * (y * y + z * z) * sq, 2 * (x * y * sq - z * sc), 2 * (x * z * sq + y * sc), 0.0,
            2 * (x * y * sq + z * sc), 1 - 2 * (x * x + z * z) * sq, 2 * (y * z * sq - x * sc), 0.0,
            2 * (x * z * sq - y * sc), 2 * (y * z * sq + x * sc), 1 - 2 * (x * x + y * y) * sq, 0.0,
            0.0, 0.0, 0.0, 1.0,
        ))

    @staticmethod
    def perspective(depth: float) -> "Matrix4":
        """``perspective(d)``: m[3][2] = -1/d. Depths under 1px are used as 1px (CSS
        Transforms 2: "values less than 1px must be treated as 1px for rendering")."""
        return Matrix4((1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0 / max(depth, 1.0), 1.0))

    @staticmethod
    def from_css_matrix3d(values: tuple[float, ...]) -> "Matrix4":
        """``matrix3d(a1 b1 c1 d1 a2 ... d4)``: the 16 values are column-major."""
        return Matrix4(tuple(values[4 * col + row] for row in range(4) for col in range(4)))

    @staticmethod
    def from_affine(m: Affine) -> "Matrix4":
        return Matrix4((m.a, m.c, 0.0, m.e, m.b, m.d, 0.0, m.f, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))

    @staticmethod
    def from_plane_map(m: Affine | Projective) -> "Matrix4":
        """A flat layer's 2D map (its plane to the screen) as a 4x4 that leaves z alone:
        what a 3D rendering context is placed with inside a flat parent (flattening it
        again gives ``m`` back)."""
        p = Projective.of(m)
        return Matrix4((p.a, p.c, 0.0, p.e, p.b, p.d, 0.0, p.f, 0.0, 0.0, 1.0, 0.0, p.g, p.h, 0.0, p.i))

    # -- algebra -----------------------------------------------------------------------
    def __matmul__(self, other: "Matrix4") -> "Matrix4":
        if other.__class__ is not Matrix4:
            return NotImplemented
        # Written out: a 3D context multiplies thousands of these per frame, and the
        # unrolled products cost about a fifth of a generator over the indices.
        a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33 = self.m
        b00, b01, b02, b03, b10, b11, b12, b13, b20, b21, b22, b23, b30, b31, b32, b33 = other.m
        return Matrix4((
            a00 * b00 + a01 * b10 + a02 * b20 + a03 * b30,
            a00 * b01 + a01 * b11 + a02 * b21 + a03 * b31,
            a00 * b02 + a01 * b12 + a02 * b22 + a03 * b32,
            a00 * b03 + a01 * b13 + a02 * b23 + a03 * b33,
            a10 * b00 + a11 * b10 + a12 * b20 + a13 * b30,
            a10 * b01 + a11 * b11 + a12 * b21 + a13 * b31,
            a10 * b02 + a11 * b12 + a12 * b22 + a13 * b32,
            a10 * b03 + a11 * b13 + a12 * b23 + a13 * b33,
            a20 * b00 + a21 * b10 + a22 * b20 + a23 * b30,
            a20 * b01 + a21 * b11 + a22 * b21 + a23 * b31,
            a20 * b02 + a21 * b12 + a22 * b22 + a23 * b32,
            a20 * b03 + a21 * b13 + a22 * b23 + a23 * b33,
            a30 * b00 + a31 * b10 + a32 * b20 + a33 * b30,
            a30 * b01 + a31 * b11 + a32 * b21 + a33 * b31,
            a30 * b02 + a31 * b12 + a32 * b22 + a33 * b32,
            a30 * b03 + a31 * b13 + a32 * b23 + a33 * b33,
        ))

    def apply(self, x: float, y: float, z: float = 0.0, w: float = 1.0) -> tuple[float, float, float, float]:
        p = self.m
        return tuple(p[4 * r] * x + p[4 * r + 1] * y + p[4 * r + 2] * z + p[4 * r + 3] * w for r in range(4))  # type: ignore[return-value]

    def determinant(self) -> float:
        return _det4(self.m)

    def is_affine_2d(self) -> bool:
        """Only x/y rows and columns used, no perspective: the same as an Affine."""
        p = self.m
        return (p[2] == 0.0 and p[6] == 0.0 and p[8] == 0.0 and p[9] == 0.0 and p[10] == 1.0 and p[11] == 0.0
                and p[12] == 0.0 and p[13] == 0.0 and p[14] == 0.0 and p[15] == 1.0)

    def flattened(self) -> "Affine | Projective":
        """The map of the plane z = 0 to the screen, (x, y) -> (X/W, Y/W): the z row and
        column dropped (CSS Transforms 2: a flat element's children are drawn into its
        plane). An Affine where the result has no perspective."""
        p = self.m
        return Projective(p[0], p[4], p[1], p[5], p[3], p[7], p[12], p[13], p[15]).simplified()

    def is_back_facing(self) -> bool:
        """CSS Transforms 2 §backface-visibility: the back face shows when the matrix is
        "inverted in the z-direction" (cc's gfx::Transform::IsBackFaceVisible, as
        lamina.geometry3d tests it for 3D contexts: the sign of cofactor(2,2) / det). A
        non-invertible matrix draws nothing anyway: reported as not back-facing."""
        return self.is_finite() and is_back_face_visible(self)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """The 4x4 as numpy reads it (row-major): what lamina.geometry3d takes."""
        return np.array(self.m, dtype=dtype or np.float64).reshape(4, 4)

    def is_finite(self) -> bool:
        return all(math.isfinite(v) for v in self.m)


def _det3(p: tuple[float, ...]) -> float:
    return p[0] * (p[4] * p[8] - p[5] * p[7]) - p[1] * (p[3] * p[8] - p[5] * p[6]) + p[2] * (p[3] * p[7] - p[4] * p[6])


def _det4(p: tuple[float, ...]) -> float:
    total = 0.0
    for col in range(4):
        minor = tuple(p[4 * r + c] for r in range(1, 4) for c in range(4) if c != col)
        total += (-1.0) ** col * p[col] * _det3(minor)
    return total


# -- decomposition (CSS Transforms 2 §"Decomposing a 3D matrix") --------------------------
@dataclass(frozen=True)
class Decomposed3D:
    translate: tuple[float, float, float]
    scale: tuple[float, float, float]
    skew: tuple[float, float, float]  # xy, xz, yz
    perspective: tuple[float, float, float, float]
    quaternion: tuple[float, float, float, float]  # x, y, z, w


def decompose3d(matrix: Matrix4) -> Decomposed3D | None:
    """The spec's pseudo-code, on the transposed (column-vector) layout: None when the
    matrix cannot be decomposed (singular), in which case animations go discrete."""
    # The spec's matrix[i][j] is column i, row j of ours (it writes row vectors).
    mat = [[matrix.rc(j, i) for j in range(4)] for i in range(4)]
    if mat[3][3] == 0.0:
        return None
    mat = [[v / mat[3][3] for v in row] for row in mat]
    persp = [row[:] for row in mat]
    for i in range(3):
        persp[i][3] = 0.0
    persp[3][3] = 1.0
    if abs(_det4(tuple(v for row in persp for v in row))) < 1e-12:
        return None
    if mat[0][3] != 0.0 or mat[1][3] != 0.0 or mat[2][3] != 0.0:
        rhs = (mat[0][3], mat[1][3], mat[2][3], mat[3][3])
        inv_t = _inverse_rows(persp)  # inverse, then transpose: solve rhs * transpose(inverse)
        perspective = tuple(sum(rhs[k] * inv_t[j][k] for k in range(4)) for j in range(4))
    else:
        perspective = (0.0, 0.0, 0.0, 1.0)
    translate = (mat[3][0], mat[3][1], mat[3][2])
    row = [[mat[i][j] for j in range(3)] for i in range(3)]
    sx = math.sqrt(sum(v * v for v in row[0]))
    row[0] = [v / sx for v in row[0]]
    skew_xy = _dot(row[0], row[1])
    row[1] = [a - skew_xy * b for a, b in zip(row[1], row[0])]
    sy = math.sqrt(sum(v * v for v in row[1]))
    row[1] = [v / sy for v in row[1]]
    skew_xy /= sy
    skew_xz = _dot(row[0], row[2])
    row[2] = [a - skew_xz * b for a, b in zip(row[2], row[0])]
    skew_yz = _dot(row[1], row[2])
    row[2] = [a - skew_yz * b for a, b in zip(row[2], row[1])]
    sz = math.sqrt(sum(v * v for v in row[2]))
    row[2] = [v / sz for v in row[2]]
    skew_xz /= sz
    skew_yz /= sz
    scale = [sx, sy, sz]
    if _dot(row[0], _cross(row[1], row[2])) < 0:
        scale = [-v for v in scale]
        row = [[-v for v in r] for r in row]
    qx = 0.5 * math.sqrt(max(1 + row[0][0] - row[1][1] - row[2][2], 0.0))
    qy = 0.5 * math.sqrt(max(1 - row[0][0] + row[1][1] - row[2][2], 0.0))
    qz = 0.5 * math.sqrt(max(1 - row[0][0] - row[1][1] + row[2][2], 0.0))
    qw = 0.5 * math.sqrt(max(1 + row[0][0] + row[1][1] + row[2][2], 0.0))
    if row[2][1] > row[1][2]:
        qx = -qx
    if row[0][2] > row[2][0]:
        qy = -qy
    if row[1][0] > row[0][1]:
        qz = -qz
    return Decomposed3D(translate, tuple(scale), (skew_xy, skew_xz, skew_yz), perspective, (qx, qy, qz, qw))  # type: ignore[arg-type]


def interpolate_decomposed(a: Decomposed3D, b: Decomposed3D, t: float) -> Decomposed3D:
    """Linear in translate, scale, skew and perspective; spherical (slerp) in the
    quaternion (CSS Transforms 2 §"Interpolation of decomposed 3D matrix values")."""
    lerp = lambda x, y: tuple(p + (q - p) * t for p, q in zip(x, y))  # noqa: E731
    qa, qb = a.quaternion, b.quaternion
    product = max(-1.0, min(1.0, sum(p * q for p, q in zip(qa, qb))))
    if product == 1.0:
        quat = qa
    else:
        theta = math.acos(product)
        w = math.sin(t * theta) / math.sqrt(1 - product * product)
        wa = math.cos(t * theta) - product * w
        quat = tuple(p * wa + q * w for p, q in zip(qa, qb))
    return Decomposed3D(lerp(a.translate, b.translate), lerp(a.scale, b.scale), lerp(a.skew, b.skew),
                        lerp(a.perspective, b.perspective), quat)  # type: ignore[arg-type]


def recompose3d(d: Decomposed3D) -> Matrix4:
    """CSS Transforms 2 §"Recomposing to a 3D matrix", as a product of our matrices
    (perspective, translate, rotate, skews, scale: the spec's order)."""
    p = d.perspective
    persp = Matrix4((1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, p[0], p[1], p[2], p[3]))
    x, y, z, w = d.quaternion
    rotation = Matrix4((
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0.0,
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0.0,
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0.0,
        0.0, 0.0, 0.0, 1.0,
    ))
    m = persp @ Matrix4.translate(*d.translate) @ rotation
    xy, xz, yz = d.skew
    if yz:
        m = m @ Matrix4((1.0, 0.0, 0.0, 0.0, 0.0, 1.0, yz, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    if xz:
        m = m @ Matrix4((1.0, 0.0, xz, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    if xy:
        m = m @ Matrix4((1.0, xy, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    return m @ Matrix4.scale(*d.scale)


def _dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b) -> list[float]:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def _inverse_rows(rows: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse of a 4x4 given as rows (invertible: the caller checked)."""
    n = 4
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(rows)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        k = a[col][col]
        a[col] = [v / k for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0.0:
                f = a[r][col]
                a[r] = [v - f * u for v, u in zip(a[r], a[col])]
    return [row[n:] for row in a]
