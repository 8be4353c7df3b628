// SVG filter colour maths shared by the GLSL passes (shaders/filters/svg_color.frag,
// combine.frag) and the OpenCL kernels (shaders/opencl/filters.cl): one source, so both
// executors compute the same thing. Written in the subset both compile: float4 and
// float scalars, component access .x .y .z .w, f-suffixed literals, no constructors or
// casts (GLSL includes it after "#define float4 vec4", SVG_INT(x) int(x) and SVG_POW; OpenCL C
// with SVG_INT(x) ((int)(x)) and its SVG_POW).
//
// color-interpolation-filters linearRGB: the sRGB transfer function (IEC 61966-2-1, as
// Filter Effects 1 cites; filters/svg/reference.py srgb_to_linear / linear_to_srgb) on
// un-premultiplied colour. Images between passes stay premultiplied 8-bit sRGB; a
// linearRGB primitive converts what it reads and what it writes inside its pass.

// SVG_POW(x, y) for x > 0: each includer's power (exp2 / log2; OpenCL their native_ forms:
// both keep the results within a level of the float64 reference, tested).
float svg_srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : SVG_POW((c + 0.055f) / 1.055f, 2.4f);
}

float svg_linear_to_srgb(float c) {
    c = clamp(c, 0.0f, 1.0f);
    return c <= 0.0031308f ? c * 12.92f : 1.055f * SVG_POW(c, 1.0f / 2.4f) - 0.055f;
}

// Premultiplied sRGB -> premultiplied linear (and back): the transfer function applies to
// the un-premultiplied colour, clamped to [0, 1] as the reference's un-premultiply does.
float4 svg_premultiplied_to_linear(float4 p) {
    if (p.w > 0.0f) {
        p.x = svg_srgb_to_linear(min(p.x / p.w, 1.0f)) * p.w;
        p.y = svg_srgb_to_linear(min(p.y / p.w, 1.0f)) * p.w;
        p.z = svg_srgb_to_linear(min(p.z / p.w, 1.0f)) * p.w;
    }
    return p;
}

float4 svg_premultiplied_to_srgb(float4 p) {
    if (p.w > 0.0f) {
        p.x = svg_linear_to_srgb(p.x / p.w) * p.w;
        p.y = svg_linear_to_srgb(p.y / p.w) * p.w;
        p.z = svg_linear_to_srgb(p.z / p.w) * p.w;
    }
    return p;
}

// feDisplacementMap: channel ``channel`` (0 R .. 3 A) of the premultiplied map texel m,
// un-premultiplied and, for colour in linearRGB, converted: only the two channels the
// primitive selects are converted (selects, not an indexed array: a private array
// indexed by a uniform kept PoCL from vectorising the kernel).
float svg_map_channel(float4 m, int channel, int linear_rgb) {
    float v = channel == 0 ? m.x : (channel == 1 ? m.y : (channel == 2 ? m.z : m.w));
    if (channel == 3) return m.w;
    v = m.w > 0.0f ? min(v / m.w, 1.0f) : 0.0f;
    return linear_rgb != 0 ? svg_srgb_to_linear(v) : v;
}

// feComponentTransfer, one channel (filters/svg/reference.py transfer). Types: 0
// identity, 1 table, 2 discrete, 3 linear (p0 slope, p1 intercept), 4 gamma (p0
// amplitude, p1 exponent, p2 offset); n table values. The caller reads the table: the
// index of the value below c (svg_table_index), then the two values around it.
//
// An un-premultiplied 8-bit colour p / a lands exactly on a step k / n often (2/3 with n =
// 3); float32 division puts it a hair (~1e-7 relative) either side, the float64 reference
// on it. Flooring c n (1 + SVG_STEP_SNAP) lands those where the reference does; it moves
// only values within 1e-6 (relative) below a step, which float32 cannot tell from it.
#define SVG_STEP_SNAP 1.0e-6f
int svg_table_index(float c, int type, int n) {
    if (type == 1) return n > 1 ? min(SVG_INT(floor(c * SVG_INT_TO_FLOAT(n - 1) * (1.0f + SVG_STEP_SNAP))), n - 2) : 0;
    return min(SVG_INT(floor(c * SVG_INT_TO_FLOAT(n) * (1.0f + SVG_STEP_SNAP))), n - 1);
}

float svg_transfer(float c, int type, int n, int k, float v0, float v1, float p0, float p1, float p2) {
    float o = c;
    if (type == 1) {
        o = n > 1 ? v0 + (c * SVG_INT_TO_FLOAT(n - 1) - SVG_INT_TO_FLOAT(k)) * (v1 - v0) : v0;
    } else if (type == 2) {
        o = v0;
    } else if (type == 3) {
        o = p0 * c + p1;
    } else if (type == 4) {
        // pow(0, e) is undefined in GLSL: the reference's 0^e (0, 1 at e = 0, +inf below).
        float power = c > 0.0f ? SVG_POW(c, p1) : (p1 > 0.0f ? 0.0f : (p1 == 0.0f ? 1.0f : 1.0e30f));
        o = p0 * power + p2;
    }
    return clamp(o, 0.0f, 1.0f);
}
