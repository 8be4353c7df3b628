// feDiffuseLighting / feSpecularLighting (shaders/filters/lighting.frag, filters/plan.py
// LightingPass), written once for both input formats (filters.cl: uchar4, linear.cl:
// float4; the includer defines IMAGE_IN and LIGHT_ALPHA(img, i), a pixel's alpha in 0..1);
// the result is 8-bit. `light` is LightingPass.values(); common/lighting.h does the maths, its
// edge kernels starting at the input's pixels [x0, x1) x [y0, y1) (its subregion).
#define SVG_FLOAT4(r, g, b, a) ((float4)((r), (g), (b), (a)))
#include "common/lighting.h"

__kernel void filter_lighting(IMAGE_IN src, __global uchar4* dst, int w, int h,
                              __constant float* light, int kind, int specular, int linear_rgb,
                              int x0, int y0, int x1, int y1) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
#define A(cx, cy) LIGHT_ALPHA(src, (cy) * w + (cx))
#define STORE8(v) (dst[y * w + x] = convert_uchar4_sat_rte((v) * 255.0f))  // as every 8-bit store rounds
#define LIGHT_ARGS x + 0.5f, y + 0.5f, kind, light[0], light[1], light[2], light[3], light[4], light[5], light[6], \
                   light[7], light[8], specular, light[9], light[10], light[11], light[12], light[13], linear_rgb
    float ux = light[14], uy = light[15];  // the normal's kernel step in px (kernelUnitLength)
    x0 = min(x0, w); x1 = min(x1, w); y0 = min(y0, h); y1 = min(y1, h);
    float inside = svg_light_inside(x, x0, x1) * svg_light_inside(y, y0, y1);
    int lx = svg_light_lo(inside, x, x0), hx = svg_light_hi(inside, x, x1);  // the pixels reads clamp to
    int ly = svg_light_lo(inside, y, y0), hy = svg_light_hi(inside, y, y1);
    float has_l = inside * svg_light_has(x, ux, -1.0f, lx, hx), has_r = inside * svg_light_has(x, ux, 1.0f, lx, hx);
    float has_u = inside * svg_light_has(y, uy, -1.0f, ly, hy), has_d = inside * svg_light_has(y, uy, 1.0f, ly, hy);
    if (ux == 1.0f && uy == 1.0f) {  // whole pixels, without kernelUnitLength (half the time of the loop below on PoCL)
        int xl = max(x - 1, lx), xr = min(x + 1, hx - 1), yu = max(y - 1, ly), yd = min(y + 1, hy - 1);
        STORE8(svg_lighting(A(xl, yu), A(x, yu), A(xr, yu), A(xl, y), A(x, y), A(xr, y), A(xl, yd), A(x, yd),
                            A(xr, yd), has_l, has_r, has_u, has_d, LIGHT_ARGS));
        return;
    }
    float xs[3] = {has_l > 0.0f ? x - ux : x, x, has_r > 0.0f ? x + ux : x};  // the centre stands in
    float ys[3] = {has_u > 0.0f ? y - uy : y, y, has_d > 0.0f ? y + uy : y};
    float a[9];
    for (int j = 0; j < 3; ++j) {
        for (int i = 0; i < 3; ++i) {  // bilinear between pixel centres (exact at whole pixels), within the input
            int qx0 = clamp((int)floor(xs[i]), lx, hx - 1), qy0 = clamp((int)floor(ys[j]), ly, hy - 1);
            int qx1 = min(qx0 + 1, hx - 1), qy1 = min(qy0 + 1, hy - 1);
            float fx = xs[i] - qx0, fy = ys[j] - qy0;
            float top = mix(A(qx0, qy0), A(qx1, qy0), fx), bottom = mix(A(qx0, qy1), A(qx1, qy1), fx);
            a[3 * j + i] = mix(top, bottom, fy);
        }
    }
    STORE8(svg_lighting(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], has_l, has_r, has_u, has_d,
                        LIGHT_ARGS));
#undef STORE8
#undef LIGHT_ARGS
#undef A
}

