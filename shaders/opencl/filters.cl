// Lamina's filter passes in OpenCL C: the same maths as shaders/filters/*.frag, on
// premultiplied RGBA8 images held as uchar4 buffers (row 0 first, one item per pixel).
// Like GL's unorm8 textures, a texel reads as byte x (1 / 255) and is written back as
// round-to-nearest-even of value * 255, with the maths in between in 0..1, so both
// executors round the same values the same way. Outside an image reads as transparent
// black (CSS filters' edge mode "none").
//
// Constants shared with the GLSL passes (FILTER_MARGIN, MAX_COLOR_STEPS, MAX_BLUR_RADIUS,
// COLOR_STEP_FLOATS) and DOWN_RUN come as -D build options from one Python source
// (filters/plan.py SHADER_CONSTANTS, filters/opencl.py KERNEL_DEFINES): never define them here.

#define SVG_INT(x) ((int)(x))
#define SVG_INT_TO_FLOAT(x) ((float)(x))
#define SVG_POW(x, y) native_exp2((y) * native_log2(x))
#include "common/svg_color.h"
#define BLEND_ABS(x) fabs(x)
#include "common/blend_modes.h"

inline float4 texel(__global const uchar4* img, int i) {
    return convert_float4(img[i]) * (1.0f / 255.0f);
}

inline float4 load_or_clear(__global const uchar4* img, int w, int h, int x, int y) {
    if (x < 0 || y < 0 || x >= w || y >= h) return (float4)(0.0f);
    return texel(img, y * w + x);
}

inline void store(__global uchar4* img, int w, int x, int y, float4 v) {
    img[y * w + x] = convert_uchar4_sat_rte(v * 255.0f);
}

// Fused colour pass: `steps` clamped affine maps of straight RGB (COLOR_STEP_FLOATS = 12
// floats each: the 3x4 matrix row by row), then alpha times `alpha_scale` (filters/plan.py
// ColorPass.matrices, the same matrices the GLSL pass gets).
__kernel void filter_color(__global const uchar4* src, __global uchar4* dst, int w, int h,
                         __constant float* steps, int n_steps, float alpha_scale) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float4 p = texel(src, y * w + x);
    if (p.w <= 0.0f) {
        dst[y * w + x] = (uchar4)(0);
        return;
    }
    float3 c = p.xyz / p.w;
    for (int i = 0; i < n_steps; ++i) {
        __constant float* m = steps + COLOR_STEP_FLOATS * i;
        float3 o = (float3)(m[0] * c.x + m[1] * c.y + m[2] * c.z + m[3],
                            m[4] * c.x + m[5] * c.y + m[6] * c.z + m[7],
                            m[8] * c.x + m[9] * c.y + m[10] * c.z + m[11]);
        c = clamp(o, 0.0f, 1.0f);
    }
    float a = p.w * alpha_scale;
    store(dst, w, x, y, (float4)(c * a, a));
}

// The blur and resampling kernels, on these uchar4 images (shaders/opencl/linear.cl
// builds the same kernels a second time on float images).
#define IMAGE_IN __global const uchar4*
#define IMAGE_OUT __global uchar4*
#define TEXEL(img, i) texel((img), (i))
#define LOAD_OR_CLEAR(img, w, h, x, y) load_or_clear((img), (w), (h), (x), (y))
#define STORE(img, w, x, y, v) store((img), (w), (x), (y), (v))
// Two texels side by side, (i) and (i + 1), as one float8 of their stored values; times
// PAIR_UNIT they read as TEXEL does (one wide load where a pair lies inside the image).
#define PAIR(img, i) convert_float8(vload8(0, (__global const uchar*)((img) + (i))))
#define PAIR_UNIT (1.0f / 255.0f)
#include "opencl/resample_blur.cl"

// drop-shadow: the blurred alpha at (x, y) - offset (bilinear, transparent outside), in
// the premultiplied flood colour, under the source (shaders/filters/shadow.frag).
__kernel void filter_shadow(__global const uchar4* src, __global const uchar4* blurred, __global uchar4* dst, int w, int h,
                     float dx, float dy, float4 color, int linear_rgb) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float4 s = texel(src, y * w + x);
    if (linear_rgb) s = svg_premultiplied_to_linear(s);  // color is linear premultiplied then
    float2 q = (float2)(x - dx, y - dy);
    float2 f = floor(q);
    float2 t = q - f;
    int ix = (int)f.x, iy = (int)f.y;
    float a;
    if (t.x == 0.0f && t.y == 0.0f) {
        a = load_or_clear(blurred, w, h, ix, iy).w;
    } else {
        float a00 = load_or_clear(blurred, w, h, ix, iy).w, a10 = load_or_clear(blurred, w, h, ix + 1, iy).w;
        float a01 = load_or_clear(blurred, w, h, ix, iy + 1).w, a11 = load_or_clear(blurred, w, h, ix + 1, iy + 1).w;
        a = mix(mix(a00, a10, t.x), mix(a01, a11, t.x), t.y);
    }
    float4 o = s + color * a * (1.0f - s.w);
    store(dst, w, x, y, linear_rgb ? svg_premultiplied_to_srgb(o) : o);
}

// A linearRGB morphology tap as premultiplied linear: from premultiplied sRGB, or with
// `hold` 2 from the image between two passes (premultiplied linear through the sRGB
// curve: filters/plan.py LinearHold).
float4 morphology_linear_tap(float4 t, int hold) {
    if (hold != 2) return svg_premultiplied_to_linear(t);
    t.x = svg_srgb_to_linear(t.x); t.y = svg_srgb_to_linear(t.y); t.z = svg_srgb_to_linear(t.z);
    return t;
}

// One direction of feMorphology (shaders/filters/morphology.frag): the minimum (erode,
// dilate 0) or maximum (dilate 1) of each channel over 2 r + 1 pixels along (ax, ay),
// on the bytes themselves (a min or max of texels rounds nothing). Outside the image is
// transparent black: an erode whose window leaves it writes 0; a dilate skips those taps.
// linear_rgb: each tap converted to linear premultiplied before the min / max, the
// result written back as sRGB premultiplied (common/svg_color.h), or as `hold` says.
__kernel void filter_morphology(__global const uchar4* src, __global uchar4* dst, int w, int h,
                                int ax, int ay, int r, int dilate, int linear_rgb, int hold) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    int along = ax ? x : y, size = ax ? w : h;
    int lo = max(-r, -along), hi = min(r, size - 1 - along);
    int step = ax + ay * w, at = y * w + x;
    if (linear_rgb) {
        float4 f = (float4)(0.0f);
        if (dilate) {
            for (int i = lo; i <= hi; ++i) f = fmax(f, morphology_linear_tap(texel(src, at + i * step), hold));
        } else if (lo == -r && hi == r) {
            f = (float4)(1.0f);
            for (int i = lo; i <= hi; ++i) f = fmin(f, morphology_linear_tap(texel(src, at + i * step), hold));
        }
        if (hold == 1) {  // the image between two passes: premultiplied linear through the sRGB curve
            f.x = svg_linear_to_srgb(f.x); f.y = svg_linear_to_srgb(f.y); f.z = svg_linear_to_srgb(f.z);
        } else {
            f = svg_premultiplied_to_srgb(f);
        }
        store(dst, w, x, y, f);
        return;
    }
    uchar4 v = (uchar4)(0);
    if (dilate) {
        for (int i = lo; i <= hi; ++i) v = max(v, src[at + i * step]);
    } else if (lo == -r && hi == r) {
        v = (uchar4)(255);
        for (int i = lo; i <= hi; ++i) v = min(v, src[at + i * step]);
    }
    dst[at] = v;
}

// Straight <-> premultiplied alpha, for filters.apply of straight pixels: in integers,
// rounded exactly as lamina.images rounds on the host (and shaders/common/alpha.glsl):
// p = (c a + 127) / 255; c = min((p 255 + a / 2) / a, 255), and 0 where a = 0.
__kernel void filter_premultiply(__global const uchar4* src, __global uchar4* dst, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    uint4 c = convert_uint4(src[i]);
    uint4 p = (c * c.w + 127u) / 255u;
    p.w = c.w;
    dst[i] = convert_uchar4(p);
}

__kernel void filter_unpremultiply(__global const uchar4* src, __global uchar4* dst, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    uint4 p = convert_uint4(src[i]);
    uint a = p.w;
    if (a == 0u) {
        dst[i] = (uchar4)(0);
        return;
    }
    uint4 c = min((p * 255u + a / 2u) / a, (uint4)(255u));
    c.w = a;
    dst[i] = convert_uchar4(c);
}

// SVG filter graphs: two premultiplied images joined per pixel (shaders/filters/combine.frag,
// filters/plan.py CombineOperator: 0 over, 1 in, 2 out, 3 atop, 4 xor, 5 lighter, 6 arithmetic,
// 7 blend: feBlend's `blend_mode`, common/blend_modes.h as the GLSL pass).
__kernel void filter_combine(__global const uchar4* src, __global const uchar4* second, __global uchar4* dst,
                             int w, int h, int op, float k1, float k2, float k3, float4 k4, int linear_rgb,
                             int blend_mode) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float4 a = texel(src, y * w + x), b = texel(second, y * w + x), o;
    if (linear_rgb) {
        a = svg_premultiplied_to_linear(a);
        b = svg_premultiplied_to_linear(b);
    }
    if (op == 0) o = a + b * (1.0f - a.w);
    else if (op == 1) o = a * b.w;
    else if (op == 2) o = a * (1.0f - b.w);
    else if (op == 3) o = a * b.w + b * (1.0f - a.w);
    else if (op == 4) o = a * (1.0f - b.w) + b * (1.0f - a.w);
    else if (op == 5) o = fmin(a + b, (float4)(1.0f));
    else if (op == 7) o = blend_composite4(a, b, blend_mode);
    else {
        o = clamp(k1 * a * b + k2 * a + k3 * b + k4, 0.0f, 1.0f);
        o.xyz = fmin(o.xyz, (float3)(o.w));
    }
    if (linear_rgb) o = svg_premultiplied_to_srgb(o);
    store(dst, w, x, y, o);
}

// feOffset (shaders/filters/offset.frag): the image moved by (dx, dy) px, bilinear where
// fractional, transparent black coming in.
__kernel void filter_offset(__global const uchar4* src, __global uchar4* dst, int w, int h, float dx, float dy) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float2 q = (float2)(x - dx, y - dy);
    float2 f = floor(q);
    float2 t = q - f;
    int ix = (int)f.x, iy = (int)f.y;
    float4 v;
    if (t.x == 0.0f && t.y == 0.0f) {
        v = load_or_clear(src, w, h, ix, iy);
    } else {
        float4 v00 = load_or_clear(src, w, h, ix, iy), v10 = load_or_clear(src, w, h, ix + 1, iy);
        float4 v01 = load_or_clear(src, w, h, ix, iy + 1), v11 = load_or_clear(src, w, h, ix + 1, iy + 1);
        v = mix(mix(v00, v10, t.x), mix(v01, v11, t.x), t.y);
    }
    store(dst, w, x, y, v);
}

// Consecutive SVG colour primitives (shaders/filters/svg_color.frag, filters/plan.py
// SvgColorPass): `n_steps` steps of SVG_STEP_FLOATS floats each: the 4x5 matrix row by
// row, then per channel (type, first table value, table values, p0, p1, p2), then 1 for
// linearRGB; `table` every table value.
#include "opencl/svg_color_steps.cl"

__kernel void filter_svg_color(__global const uchar4* src, __global uchar4* dst, int w, int h,
                               __constant float* steps, int n_steps, __constant float* table) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float4 p = texel(src, y * w + x);
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (p.w > 0.0f) {
        c[0] = fmin(p.x / p.w, 1.0f); c[1] = fmin(p.y / p.w, 1.0f); c[2] = fmin(p.z / p.w, 1.0f); c[3] = p.w;
    }
    svg_color_steps(c, steps, n_steps, table);
    store(dst, w, x, y, (float4)(c[0] * c[3], c[1] * c[3], c[2] * c[3], c[3]));
}

// feTurbulence (shaders/filters/turbulence.frag, filters/plan.py TurbulencePass):
// `selector` 256 values, `gradient` 4 x 256 x 2; common/turbulence.h does the octaves.
#define SVG_SELECTOR(n) ((int)selector[(n)])
#define SVG_GRADIENT_X(c, n) gradient[2 * (256 * (c) + (n))]
#define SVG_GRADIENT_Y(c, n) gradient[2 * (256 * (c) + (n)) + 1]
#define SVG_TABLES_DECL __constant float* selector, __constant float* gradient,
#define SVG_TABLES_ARGS selector, gradient,
#include "common/turbulence.h"

__kernel void filter_turbulence(__global uchar4* dst, int w, int h, __constant float* selector,
                                __constant float* gradient, float base_x, float base_y, int octaves, int fractal,
                                int stitching, int sw, int sh, int wx, int wy, float pixel_scale, int linear_rgb,
                                float origin_x, float origin_y,
                                __constant float* steps, int n_steps, __constant float* table) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float px = (x + origin_x + 0.5f) / pixel_scale, py = (y + origin_y + 0.5f) / pixel_scale;
    float c[4];
    for (int ch = 0; ch < 4; ++ch) {
        c[ch] = svg_turbulence(selector, gradient, ch, px, py, base_x, base_y, octaves, fractal, stitching, sw, sh,
                               wx, wy);
    }
    if (linear_rgb) {
        for (int i = 0; i < 3; ++i) c[i] = svg_linear_to_srgb(c[i]);
    }
    svg_color_steps(c, steps, n_steps, table);  // the colour primitives fused after the noise
    store(dst, w, x, y, (float4)(c[0] * c[3], c[1] * c[3], c[2] * c[3], c[3]));
}

// feDisplacementMap (shaders/filters/displace.frag, filters/plan.py DisplacePass).
__kernel void filter_displace(__global const uchar4* src, __global const uchar4* map, __global uchar4* dst, int w,
                              int h, float sx, float sy, int cx, int cy, int linear_rgb) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float4 m = texel(map, y * w + x);
    float vx = svg_map_channel(m, cx, linear_rgb), vy = svg_map_channel(m, cy, linear_rgb);
    // the move apart from the position, snapped (shaders/filters/displace.frag DISPLACE_SNAP)
    int qx = x + (int)floor(sx * (vx - 0.5f) + 0.5f + 1.0e-5f), qy = y + (int)floor(sy * (vy - 0.5f) + 0.5f + 1.0e-5f);
    store(dst, w, x, y, load_or_clear(src, w, h, qx, qy));
}

// feConvolveMatrix and feGaussianBlur's edge modes (shaders/filters/convolve.frag,
// filters/plan.py ConvolvePass); common/convolve.h does the maths.
#include "common/convolve.h"

// The texel (x, y) as a convolve tap reads it: past the edge as `edge` says (none:
// transparent), converted when `converted`.
float4 convolve_texel(__global const uchar4* src, int w, int x, int y, int x0, int y0, int x1, int y1, int edge,
                      int converted, int preserve_alpha, int linear_rgb) {
    if (x < x0 || x >= x1 || y < y0 || y >= y1) {  // past the input's pixels (a branch costs a CPU little)
        if (svg_edge_inside(x, x0, x1, edge) * svg_edge_inside(y, y0, y1, edge) == 0.0f) return (float4)(0.0f);
        x = svg_edge_index(x, x0, x1, edge);
        y = svg_edge_index(y, y0, y1, edge);
    }
    float4 t = texel(src, y * w + x);
    return converted ? svg_convolve_tap(t, preserve_alpha, linear_rgb) : t;
}

// `spx`, `spy`: px between kernel cells (kernelUnitLength); a cell between pixels reads
// the bilinear mix of the four texels around it (whole spacings read one). [x0, x1) x
// [y0, y1): the input's pixels (its subregion), extended past by `edge`.
__kernel void filter_convolve(__global const uchar4* src, __global uchar4* dst, int w, int h,
                              __constant float* weights, int ox, int oy, int tx, int ty, float spx, float spy,
                              float divisor, float bias,
                              int edge, int preserve_alpha, int linear_rgb, int x0, int y0, int x1, int y1) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    int converted = preserve_alpha || linear_rgb;
    float4 total = (float4)(0.0f);
    x0 = min(x0, w - 1); x1 = min(x1, w);
    y0 = min(y0, h - 1); y1 = min(y1, h);
    if (spx == floor(spx) && spy == floor(spy)) {  // whole pixels: one read a tap (3x faster at 1080p than the mix below)
        int ispx = (int)spx, ispy = (int)spy;
        for (int i = 0; i < oy; ++i) {
            int sy = y + (i - ty) * ispy;
            if (sy < y0 || sy >= y1) {
                if (svg_edge_inside(sy, y0, y1, edge) == 0.0f) continue;
                sy = svg_edge_index(sy, y0, y1, edge);
            }
            for (int j = 0; j < ox; ++j) {
                int sx = x + (j - tx) * ispx;
                float weight = weights[i * ox + j];
                if (weight == 0.0f) continue;
                if (sx < x0 || sx >= x1) {
                    if (svg_edge_inside(sx, x0, x1, edge) == 0.0f) continue;
                    sx = svg_edge_index(sx, x0, x1, edge);
                }
                float4 t = texel(src, sy * w + sx);
                total += weight * (converted ? svg_convolve_tap(t, preserve_alpha, linear_rgb) : t);
            }
        }
    } else for (int i = 0; i < oy; ++i) {
        float py = (float)y + (float)(i - ty) * spy;
        int cy = (int)floor(py);
        float fy = py - (float)cy;
        for (int j = 0; j < ox; ++j) {
            float weight = weights[i * ox + j];
            if (weight == 0.0f) continue;
            float px = (float)x + (float)(j - tx) * spx;
            int cx = (int)floor(px);
            float fx = px - (float)cx;
            float4 t = convolve_texel(src, w, cx, cy, x0, y0, x1, y1, edge, converted, preserve_alpha, linear_rgb);
            if (fx != 0.0f)
                t = mix(t, convolve_texel(src, w, cx + 1, cy, x0, y0, x1, y1, edge, converted, preserve_alpha, linear_rgb), fx);
            if (fy != 0.0f) {
                float4 b = convolve_texel(src, w, cx, cy + 1, x0, y0, x1, y1, edge, converted, preserve_alpha, linear_rgb);
                if (fx != 0.0f)
                    b = mix(b, convolve_texel(src, w, cx + 1, cy + 1, x0, y0, x1, y1, edge, converted, preserve_alpha,
                                              linear_rgb), fx);
                t = mix(t, b, fy);
            }
            total += weight * t;
        }
    }
    float4 own = svg_convolve_tap(texel(src, y * w + x), preserve_alpha, linear_rgb);
    store(dst, w, x, y, svg_convolve_result(total, own, divisor, bias, preserve_alpha, linear_rgb));
}

// An SVG primitive subregion (shaders/filters/region.frag, filters/plan.py RegionPass):
// src inside [x0, x1) x [y0, y1), transparent black outside; with `tiled`, src's
// [tx0, tx1) x [ty0, ty1) repeated across it from the tile's corner (feTile); `tiled` 2:
// reflected about its edges, edge pixels repeated (a backdrop's mirror tile mode).
__kernel void filter_region(__global const uchar4* src, __global uchar4* dst, int w, int h, int x0, int y0, int x1,
                            int y1, int tiled, int tx0, int ty0, int tx1, int ty1) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    if (x < x0 || y < y0 || x >= x1 || y >= y1) {
        dst[y * w + x] = (uchar4)(0);
        return;
    }
    int sx = x, sy = y;
    if (tiled) {
        int tw = tx1 - tx0, th = ty1 - ty0;
        if (tw <= 0 || th <= 0) {
            dst[y * w + x] = (uchar4)(0);
            return;
        }
        sx = tx0 + ((x - tx0) % tw + tw) % tw;
        sy = ty0 + ((y - ty0) % th + th) % th;
        if (tiled == 2) {
            int mx = ((x - tx0) % (2 * tw) + 2 * tw) % (2 * tw), my = ((y - ty0) % (2 * th) + 2 * th) % (2 * th);
            sx = tx0 + (mx < tw ? mx : 2 * tw - 1 - mx);
            sy = ty0 + (my < th ? my : 2 * th - 1 - my);
        }
    }
    dst[y * w + x] = src[sy * w + sx];
}

// feDiffuseLighting / feSpecularLighting on these uchar4 images (linear.cl builds it on
// float ones: a blurred input held in floats, whose slopes the normal amplifies).
#define LIGHT_ALPHA(img, i) ((img)[i].w * (1.0f / 255.0f))
#include "opencl/lighting.cl"
#undef LIGHT_ALPHA

// feImage (shaders/filters/image.frag, filters/plan.py ImagePass): the picture (straight
// RGBA8, pw x ph) sampled bilinearly at q = (sx x, sy y) + (ox, oy) with its edge texels
// clamped, each tap premultiplied, times the part of the pixel (q +- step / 2) the fitted
// rect (-0.5 <= q < size - 0.5) covers; transparent outside the clip rect [x0, x1) x [y0, y1).
inline float4 picture_tap(__global const uchar4* picture, int pw, int ph, int x, int y) {
    if (x < 0 || y < 0 || x >= pw || y >= ph) return (float4)(0.0f);
    float4 c = texel(picture, y * pw + x);
    return (float4)(c.xyz * c.w, c.w);
}

__kernel void filter_image(__global const uchar4* picture, int pw, int ph, __global uchar4* dst, int w, int h,
                           float sx, float sy, float ox, float oy, int x0, int y0, int x1, int y1) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    if (x < x0 || y < y0 || x >= x1 || y >= y1) {
        store(dst, w, x, y, (float4)(0.0f));
        return;
    }
    float2 q = (float2)(sx * (float)x + ox, sy * (float)y + oy);
    float2 step = (float2)(sx, sy), size = (float2)((float)pw, (float)ph);
    float2 cover = clamp((fmin(q + step * 0.5f, size - 0.5f) - fmax(q - step * 0.5f, (float2)(-0.5f))) / step,
                         0.0f, 1.0f);
    q = clamp(q, (float2)(0.0f), size - 1.0f);
    float2 f = floor(q);
    float2 t = q - f;
    int ix = (int)f.x, iy = (int)f.y;
    float4 a = picture_tap(picture, pw, ph, ix, iy), b = picture_tap(picture, pw, ph, ix + 1, iy);
    float4 c = picture_tap(picture, pw, ph, ix, iy + 1), d = picture_tap(picture, pw, ph, ix + 1, iy + 1);
    store(dst, w, x, y, mix(mix(a, b, t.x), mix(c, d, t.x), t.y) * (cover.x * cover.y));
}
