// feTurbulence's per-pixel maths (Filter Effects 1's reference code; filters/svg/turbulence.py
// _noise2 and turbulence), shared by shaders/filters/turbulence.frag and
// shaders/opencl/filters.cl in the subset both compile (see common/svg_color.h). Each
// includer defines SVG_SELECTOR(n) (the lattice selector at n in 0..255) and
// SVG_GRADIENT_X(channel, n) / SVG_GRADIENT_Y (the gradient at n in 0..255) first, and
// SVG_TABLES_DECL / SVG_TABLES_ARGS: the tables as leading parameters and arguments
// (empty in GLSL, whose tables are uniforms).
// Indices: the spec's selector and gradient tables repeat their first BSize + 2 entries,
// and every index the code forms is a selector value (< 256) or below 512, so entry n
// reads entry n & 255; floor(v) + PerlinN with the fraction v - floor(v) is the spec's
// (int)(v + PerlinN) for the points a filter samples (v > -PerlinN), without adding
// 4096 to v first, which would cost float32 precision in the fraction.

float svg_noise2(SVG_TABLES_DECL int channel, float vx, float vy, int stitching, int sw, int sh, int wx, int wy) {
    float fx = floor(vx), fy = floor(vy);
    int bx0 = SVG_INT(fx) + PERLIN_N, by0 = SVG_INT(fy) + PERLIN_N;
    int bx1 = bx0 + 1, by1 = by0 + 1;
    float rx0 = vx - fx, ry0 = vy - fy;
    float rx1 = rx0 - 1.0f, ry1 = ry0 - 1.0f;
    if (stitching != 0) {
        if (bx0 >= wx) bx0 -= sw;
        if (bx1 >= wx) bx1 -= sw;
        if (by0 >= wy) by0 -= sh;
        if (by1 >= wy) by1 -= sh;
    }
    bx0 &= 255; bx1 &= 255; by0 &= 255; by1 &= 255;
    int i = SVG_SELECTOR(bx0), j = SVG_SELECTOR(bx1);
    int b00 = SVG_SELECTOR((i + by0) & 255), b10 = SVG_SELECTOR((j + by0) & 255);
    int b01 = SVG_SELECTOR((i + by1) & 255), b11 = SVG_SELECTOR((j + by1) & 255);
    float sx = rx0 * rx0 * (3.0f - 2.0f * rx0), sy = ry0 * ry0 * (3.0f - 2.0f * ry0);
    float u = rx0 * SVG_GRADIENT_X(channel, b00) + ry0 * SVG_GRADIENT_Y(channel, b00);
    float v = rx1 * SVG_GRADIENT_X(channel, b10) + ry0 * SVG_GRADIENT_Y(channel, b10);
    float a = u + sx * (v - u);
    u = rx0 * SVG_GRADIENT_X(channel, b01) + ry1 * SVG_GRADIENT_Y(channel, b01);
    v = rx1 * SVG_GRADIENT_X(channel, b11) + ry1 * SVG_GRADIENT_Y(channel, b11);
    float b = u + sx * (v - u);
    return a + sy * (b - a);
}

// One channel of the noise at user-space point (px, py), un-premultiplied and clamped.
float svg_turbulence(SVG_TABLES_DECL int channel, float px, float py, float base_x, float base_y, int octaves, int fractal,
                     int stitching, int sw, int sh, int wx, int wy) {
    float total = 0.0f, ratio = 1.0f;
    float vx = px * base_x, vy = py * base_y;
    for (int o = 0; o < octaves; ++o) {
        float n = svg_noise2(SVG_TABLES_ARGS channel, vx, vy, stitching, sw, sh, wx, wy);
        total += (fractal != 0 ? n : fabs(n)) / ratio;
        vx *= 2.0f;
        vy *= 2.0f;
        ratio *= 2.0f;
        sw *= 2; sh *= 2;
        wx = 2 * wx - PERLIN_N;
        wy = 2 * wy - PERLIN_N;
    }
    return clamp(fractal != 0 ? (total + 1.0f) * 0.5f : total, 0.0f, 1.0f);
}
