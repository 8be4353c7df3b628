// Premultiplied linearRGB images in half-float buffers (4 halves a pixel, as the GL
// passes' RGBA16F textures hold them: copies between the two are the same bytes), for
// linearRGB work that reads each pixel many times (filters/plan.py SpacePass,
// filters/svg/compile_linear.py): the conversions into and out of them, and the blur
// and resampling kernels of shaders/opencl/filters.cl on them, same maths. A program of
// its own (gpu.opencl builds it beside filters.cl's, with the same -D options), so the
// kernels keep their names and the uchar4 ones stay as they were.

inline float4 half_texel(__global const half* img, int i) {
    return vload_half4(i, img);
}

inline float4 half_load_or_clear(__global const half* img, int w, int h, int x, int y) {
    if (x < 0 || y < 0 || x >= w || y >= h) return (float4)(0.0f);
    return half_texel(img, y * w + x);
}

inline void half_store(__global half* img, int w, int x, int y, float4 v) {
    vstore_half4_rte(v, y * w + x, img);
}

#define IMAGE_IN __global const half*
#define IMAGE_OUT __global half*
#define TEXEL(img, i) half_texel((img), (i))
#define LOAD_OR_CLEAR(img, w, h, x, y) half_load_or_clear((img), (w), (h), (x), (y))
#define STORE(img, w, x, y, v) half_store((img), (w), (x), (y), (v))
#define PAIR(img, i) vload_half8(0, (img) + 4 * (i))
#define PAIR_UNIT 1.0f
#include "opencl/resample_blur.cl"

// 8-bit premultiplied sRGB -> half-float premultiplied linearRGB
// (shaders/filters/to_linear.frag): `table` holds the result for every 8-bit value and
// alpha, at a * 256 + p (filters/plan.py linear_table: PoCL's powers cost more than the
// blur, and there are only 65536 inputs).
__kernel void filter_to_linear(__global const uchar4* src, __global half* dst, int w, int h,
                               __global const float* table) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    uchar4 p = src[y * w + x];
    int row = (int)p.w * 256;
    half_store(dst, w, x, y, (float4)(table[row + p.x], table[row + p.y], table[row + p.z], (float)p.w * (1.0f / 255.0f)));
}

// The sRGB value of linear c in [0, 1], between the entries of `table` (filters/plan.py
// srgb_table: SRGB_TABLE_STEPS + 1 values of the transfer function).
inline float srgb_between(__global const float* table, float c) {
    float q = clamp(c, 0.0f, 1.0f) * (float)SRGB_TABLE_STEPS;
    int i = min((int)q, SRGB_TABLE_STEPS - 1);
    return mix(table[i], table[i + 1], q - (float)i);
}

// And back (shaders/filters/to_srgb.frag): un-premultiplied, through the table,
// premultiplied again, rounded as every 8-bit store is.
__kernel void filter_to_srgb(__global const half* src, __global uchar4* dst, int w, int h,
                             __global const float* table) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float4 p = clamp(half_texel(src, y * w + x), 0.0f, 1.0f);
    float inv = p.w > 0.0f ? 1.0f / p.w : 0.0f;
    float4 o = (float4)(srgb_between(table, p.x * inv) * p.w, srgb_between(table, p.y * inv) * p.w,
                        srgb_between(table, p.z * inv) * p.w, p.w);
    dst[y * w + x] = convert_uchar4_sat_rte(o * 255.0f);
}
