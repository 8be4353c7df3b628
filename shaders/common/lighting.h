// feDiffuseLighting / feSpecularLighting per pixel (Filter Effects 1's normal and light
// equations; filters/svg/reference.py surface_normals and _lighting), shared by
// shaders/filters/lighting.frag and shaders/opencl/filters.cl in the subset both compile
// (see common/svg_color.h, which each includer includes first). Each includer defines
// SVG_FLOAT4(r, g, b, a) (its vector constructor) first.
//
// The surface is Z = surface_scale * alpha. a00..a22 are the alphas of the 3x3
// neighbourhood (aXY: column X left to right, row Y top to bottom), a missing neighbour
// (past the input's edge: svg_light_has below) replaced by the centre's row or column;
// has_l, has_r, has_u, has_d (1 or 0) say which exist. The spec's edge and corner kernels are the interior
// Sobel kernel with the missing column (row) dropped and its factor grown:
// 2 / (span * row weight), span the pixels between the outer taps, which gives its table of
// 1/4, 1/3, 1/2 and 2/3.
// kind: 0 distant (light the unit vector to it), 1 point, 2 spot (light its position in
// pixels; spot the unit vector it points along). (px, py) is the pixel's centre.
// Returns premultiplied RGBA: colour in the primitive's space, written as sRGB when
// linear_rgb (the colour the light gives is linear light there).

#define SVG_CONE_SMOOTHING 0.016f  // filters/svg/reference.py CONE_SMOOTHING (a unit test keeps them equal)

// The edges the edge and corner kernels start at are the input's pixels [lo, hi) along an
// axis (its subregion, the spec's "input image"; the includer clips them to its image
// first). svg_light_inside: 1 where pixel i lies on them, else 0 (a pixel outside has a
// flat normal: every neighbour missing, as filters/svg/reference.py surface_normals).
// svg_light_has: 1 where the neighbour `step` px before (dir -1) or after (dir 1) pixel
// centre `at` falls within their first and last pixel centres. svg_light_lo / _hi: the
// pixels a read may clamp to, the input's inside it and the pixel itself outside (so that
// a read stays on the image even for an empty input).
float svg_light_inside(int i, int lo, int hi) {
    return (i >= lo && i < hi) ? 1.0f : 0.0f;
}

float svg_light_has(float at, float step, float dir, int lo, int hi) {
    float q = at + dir * step;
    return (q >= SVG_INT_TO_FLOAT(lo) && q <= SVG_INT_TO_FLOAT(hi - 1)) ? 1.0f : 0.0f;
}

int svg_light_lo(float inside, int i, int lo) {
    return inside > 0.0f ? lo : i;
}

int svg_light_hi(float inside, int i, int hi) {
    return inside > 0.0f ? hi : i + 1;
}

float svg_light_pow(float x, float e) {
    return x > 0.0f ? SVG_POW(x, e) : (e == 0.0f ? 1.0f : 0.0f);
}

float4 svg_lighting(float a00, float a10, float a20, float a01, float a11, float a21, float a02, float a12, float a22,
                    float has_l, float has_r, float has_u, float has_d, float px, float py,
                    int kind, float lx, float ly, float lz, float sx, float sy, float sz, float spot_exponent,
                    float cone_cos, float surface_scale, int specular, float k, float exponent,
                    float cr, float cg, float cb, int linear_rgb) {
    // the normal: Sobel along x (rows weighted 1 2 1) and along y (columns weighted 1 2 1)
    float gx = 2.0f * (a21 - a01) + has_u * (a20 - a00) + has_d * (a22 - a02);
    float gy = 2.0f * (a12 - a10) + has_l * (a02 - a00) + has_r * (a22 - a20);
    float span_x = has_l + has_r, span_y = has_u + has_d;
    float nx = span_x > 0.0f ? -surface_scale * 2.0f / (span_x * (2.0f + has_u + has_d)) * gx : 0.0f;
    float ny = span_y > 0.0f ? -surface_scale * 2.0f / (span_y * (2.0f + has_l + has_r)) * gy : 0.0f;
    float inv = 1.0f / sqrt(nx * nx + ny * ny + 1.0f);
    nx *= inv;
    ny *= inv;
    float nz = inv;
    // the unit vector L to the light, and the colour it gives here
    float Lx = lx, Ly = ly, Lz = lz;
    float fr = cr, fg = cg, fb = cb;
    if (kind != 0) {
        Lx = lx - px;
        Ly = ly - py;
        Lz = lz - surface_scale * a11;
        float len = sqrt(Lx * Lx + Ly * Ly + Lz * Lz);
        float s = len > 0.0f ? 1.0f / len : 0.0f;
        Lx *= s; Ly *= s; Lz *= s;
        if (kind == 2) {
            float minus_l_dot_s = -(Lx * sx + Ly * sy + Lz * sz);
            // the cone's edge fades over the last SVG_CONE_SMOOTHING of -L.S (reference.py CONE_SMOOTHING)
            float f = minus_l_dot_s < cone_cos ? 0.0f : svg_light_pow(max(minus_l_dot_s, 0.0f), spot_exponent) *
                      min((minus_l_dot_s - cone_cos) * (1.0f / SVG_CONE_SMOOTHING), 1.0f);
            fr *= f; fg *= f; fb *= f;
        }
    }
    if (specular == 0) {
        float d = k * (nx * Lx + ny * Ly + nz * Lz);
        float r = clamp(d * fr, 0.0f, 1.0f), g = clamp(d * fg, 0.0f, 1.0f), b = clamp(d * fb, 0.0f, 1.0f);
        if (linear_rgb != 0) {  // a grey light (white, most often) converts once
            float r1 = svg_linear_to_srgb(r);
            g = g == r ? r1 : svg_linear_to_srgb(g);
            b = b == r ? r1 : svg_linear_to_srgb(b);
            r = r1;
        }
        return SVG_FLOAT4(r, g, b, 1.0f);  // opaque
    }
    // specular: the halfway vector H = L + (0, 0, 1), normalised; alpha max(R, G, B)
    float hx = Lx, hy = Ly, hz = Lz + 1.0f;
    float hlen = sqrt(hx * hx + hy * hy + hz * hz);
    float hs = hlen > 0.0f ? 1.0f / hlen : 0.0f;
    float sp = k * svg_light_pow(max((nx * hx + ny * hy + nz * hz) * hs, 0.0f), exponent);
    float r = clamp(sp * fr, 0.0f, 1.0f), g = clamp(sp * fg, 0.0f, 1.0f), b = clamp(sp * fb, 0.0f, 1.0f);
    float a = max(r, max(g, b));
    if (linear_rgb != 0 && a > 0.0f) {  // straight colour: 1 in the brightest channel (a grey light: all three)
        float r1 = r == a ? a : svg_linear_to_srgb(r / a) * a;
        g = g == a ? a : svg_linear_to_srgb(g / a) * a;
        b = b == a ? a : svg_linear_to_srgb(b / a) * a;
        r = r1;
    }
    return SVG_FLOAT4(r, g, b, a);
}
