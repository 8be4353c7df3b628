// Premultiplied linearRGB images in float4 buffers (as the GL passes' RGBA32F textures
// hold them: copies between the two are the same bytes), for linearRGB work that reads
// each pixel many times (filters/plan.py SpacePass, filters/svg/compile_linear.py): the
// conversions into and out of them, and the blur and resampling kernels of
// shaders/opencl/filters.cl on them, same maths. A program of its own (gpu.opencl builds
// it beside filters.cl's, with the same -D options), so the kernels keep their names and
// the uchar4 ones stay as they were.

inline float4 float_load_or_clear(__global const float4* img, int w, int h, int x, int y) {
    if (x < 0 || y < 0 || x >= w || y >= h) return (float4)(0.0f);
    return img[y * w + x];
}

#define IMAGE_IN __global const float4*
#define IMAGE_OUT __global float4*
#define TEXEL(img, i) ((img)[i])
#define LOAD_OR_CLEAR(img, w, h, x, y) float_load_or_clear((img), (w), (h), (x), (y))
#define STORE(img, w, x, y, v) ((img)[(y) * (w) + (x)] = (v))
#define PAIR(img, i) vload8(0, (__global const float*)((img) + (i)))
#define PAIR_UNIT 1.0f
#include "opencl/resample_blur.cl"

#define SVG_INT(x) ((int)(x))
#define SVG_INT_TO_FLOAT(x) ((float)(x))
#define SVG_POW(x, y) native_exp2((y) * native_log2(x))
#include "common/svg_color.h"
#include "opencl/svg_color_steps.cl"

// feDiffuseLighting / feSpecularLighting of a float image (a blur held in floats: the
// normal amplifies its slopes, and 8 bits between would cost levels; filters.cl has the
// uchar4 one).
#define LIGHT_ALPHA(img, i) ((img)[i].w)
#include "opencl/lighting.cl"
#undef LIGHT_ALPHA

// 8-bit premultiplied sRGB -> float premultiplied linearRGB
// (shaders/filters/to_linear.frag): `table` holds the result for every 8-bit value and
// alpha, at a * 256 + p (filters/plan.py linear_table: PoCL's powers cost more than the
// blur, and there are only 65536 inputs).
__kernel void filter_to_linear(__global const uchar4* src, __global float4* dst, int w, int h,
                               __global const float* table) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    uchar4 p = src[y * w + x];
    int row = (int)p.w * 256;
    dst[y * w + x] = (float4)(table[row + p.x], table[row + p.y], table[row + p.z], (float)p.w * (1.0f / 255.0f));
}

// The sRGB value of linear c in [0, 1], between the entries of `table` (filters/plan.py
// srgb_table: SRGB_TABLE_STEPS + 1 values of the transfer function).
inline float srgb_between(__global const float* table, float c) {
    float q = clamp(c, 0.0f, 1.0f) * (float)SRGB_TABLE_STEPS;
    int i = min((int)q, SRGB_TABLE_STEPS - 1);
    return mix(table[i], table[i + 1], q - (float)i);
}

// And back (shaders/filters/to_srgb.frag): un-premultiplied, through the table (for an
// image in sRGB already, SpacePass.linear false, the identity), then the colour work fused
// after the blur in float (`n_steps` steps, svg_color_steps; filters/plan.py
// SpacePass.steps), premultiplied again, rounded as every 8-bit store is.
__kernel void filter_to_srgb(__global const float4* src, __global uchar4* dst, int w, int h,
                             __global const float* table, __constant float* steps, int n_steps,
                             __constant float* step_table) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float4 p = clamp(src[y * w + x], 0.0f, 1.0f);
    float inv = p.w > 0.0f ? 1.0f / p.w : 0.0f;
    float c[4] = {srgb_between(table, p.x * inv), srgb_between(table, p.y * inv), srgb_between(table, p.z * inv), p.w};
    svg_color_steps(c, steps, n_steps, step_table);
    dst[y * w + x] = convert_uchar4_sat_rte((float4)(c[0] * c[3], c[1] * c[3], c[2] * c[3], c[3]) * 255.0f);
}
