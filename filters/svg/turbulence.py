"""feTurbulence as the spec defines it: Filter Effects 1 gives the noise as C code
(Perlin noise with a Park-Miller generator for its lattice), and its results are exact.
This is that code in numpy, line for line where it matters (integer truncation, the
lattice shuffle, stitching), vectorised over pixels; ``init`` runs once per seed.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["turbulence", "lattice", "setup_seed", "random"]

BSIZE = 0x100
BM = 0xFF
PERLIN_N = 0x1000
RAND_M = 2147483647  # 2**31 - 1
RAND_A = 16807  # 7**5; primitive root of m
RAND_Q = 127773  # m / a
RAND_R = 2836  # m % a


def setup_seed(seed: int) -> int:
    if seed <= 0:
        seed = -_c_mod(seed, RAND_M - 1) + 1
    if seed > RAND_M - 1:
        seed = RAND_M - 1
    return seed


def _c_mod(a: int, b: int) -> int:
    """C's ``%``: the remainder takes the sign of the dividend."""
    return int(math.fmod(a, b))


def _c_div(a: int, b: int) -> int:
    """C's integer ``/``: truncation toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def random(seed: int) -> int:
    result = RAND_A * _c_mod(seed, RAND_Q) - RAND_R * _c_div(seed, RAND_Q)
    if result <= 0:
        result += RAND_M
    return result


@lru_cache(maxsize=32)
def lattice(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The spec's ``init(lSeed)``: the lattice selector (BSize + BSize + 2 ints) and the
    gradients (4 channels x (BSize + BSize + 2) x 2 doubles)."""
    seed = setup_seed(seed)
    selector = [0] * (BSIZE + BSIZE + 2)
    gradient = [[[0.0, 0.0] for _ in range(BSIZE + BSIZE + 2)] for _ in range(4)]
    i = 0
    for k in range(4):
        for i in range(BSIZE):
            selector[i] = i
            for j in range(2):
                seed = random(seed)
                gradient[k][i][j] = float(_c_mod(seed, BSIZE + BSIZE) - BSIZE) / BSIZE
            g = gradient[k][i]
            s = math.sqrt(g[0] * g[0] + g[1] * g[1])
            g[0] /= s
            g[1] /= s
        i = BSIZE  # the C loop leaves i at BSize
    i -= 1
    while i:  # while(--i)
        k = selector[i]
        seed = random(seed)
        j = _c_mod(seed, BSIZE)
        selector[i] = selector[j]
        selector[j] = k
        i -= 1
    for i in range(BSIZE + 2):
        selector[BSIZE + i] = selector[i]
        for k in range(4):
            gradient[k][BSIZE + i] = list(gradient[k][i])
    return np.array(selector, dtype=np.int64), np.array(gradient, dtype=np.float64)


def _noise2(channel: int, vx: np.ndarray, vy: np.ndarray, selector: np.ndarray, gradient: np.ndarray,
            stitch: list[int] | None) -> np.ndarray:
    t = vx + PERLIN_N
    ti = t.astype(np.int64)  # (int)t: t > 0 here, truncation is floor
    bx0 = ti  # masked after stitching, as the spec's code does
    bx1 = bx0 + 1
    rx0 = t - ti
    rx1 = rx0 - 1.0
    t = vy + PERLIN_N
    ti = t.astype(np.int64)
    by0 = ti
    by1 = by0 + 1
    ry0 = t - ti
    ry1 = ry0 - 1.0
    if stitch is not None:
        width, height, wrap_x, wrap_y = stitch
        bx0 = np.where(bx0 >= wrap_x, bx0 - width, bx0)
        bx1 = np.where(bx1 >= wrap_x, bx1 - width, bx1)
        by0 = np.where(by0 >= wrap_y, by0 - height, by0)
        by1 = np.where(by1 >= wrap_y, by1 - height, by1)
    bx0 &= BM
    bx1 &= BM
    by0 &= BM
    by1 &= BM
    i = selector[bx0]
    j = selector[bx1]
    b00 = selector[i + by0]
    b10 = selector[j + by0]
    b01 = selector[i + by1]
    b11 = selector[j + by1]
    sx = rx0 * rx0 * (3.0 - 2.0 * rx0)
    sy = ry0 * ry0 * (3.0 - 2.0 * ry0)
    g = gradient[channel]
    u = rx0 * g[b00, 0] + ry0 * g[b00, 1]
    v = rx1 * g[b10, 0] + ry0 * g[b10, 1]
    a = u + sx * (v - u)
    u = rx0 * g[b01, 0] + ry1 * g[b01, 1]
    v = rx1 * g[b11, 0] + ry1 * g[b11, 1]
    b = u + sx * (v - u)
    return a + sy * (b - a)


def turbulence(channel: int, px: np.ndarray, py: np.ndarray, base_x: float, base_y: float, octaves: int,
               fractal_sum: bool, stitching: bool, tile: tuple[float, float, float, float], seed: int) -> np.ndarray:
    """The spec's ``turbulence(nColorChannel, point, ...)`` at the points (px, py), for
    ``tile`` (x, y, width, height: the primitive subregion, for stitching)."""
    selector, gradient = lattice(seed)
    tile_x, tile_y, tile_w, tile_h = tile
    stitch = None
    if stitching:
        if base_x != 0.0:
            lo = math.floor(tile_w * base_x) / tile_w
            hi = math.ceil(tile_w * base_x) / tile_w
            base_x = lo if (lo > 0 and base_x / lo < hi / base_x) else hi
        if base_y != 0.0:
            lo = math.floor(tile_h * base_y) / tile_h
            hi = math.ceil(tile_h * base_y) / tile_h
            base_y = lo if (lo > 0 and base_y / lo < hi / base_y) else hi
        width = int(tile_w * base_x + 0.5)
        height = int(tile_h * base_y + 0.5)
        stitch = [width, height, int(tile_x * base_x + PERLIN_N + width), int(tile_y * base_y + PERLIN_N + height)]
    total = np.zeros(np.broadcast(px, py).shape)
    vx = px * base_x
    vy = py * base_y
    ratio = 1.0
    for _ in range(octaves):
        n = _noise2(channel, vx, vy, selector, gradient, stitch)
        total += (n if fractal_sum else np.abs(n)) / ratio
        vx = vx * 2
        vy = vy * 2
        ratio *= 2
        if stitch is not None:
            stitch = [stitch[0] * 2, stitch[1] * 2, 2 * stitch[2] - PERLIN_N, 2 * stitch[3] - PERLIN_N]
    return total
