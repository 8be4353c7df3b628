// The body of shaders/filters/convolve.frag and convolve_converted.frag (filters/plan.py
// ConvolvePass): u_order.x x u_order.y weights from uniforms (no program per kernel),
// weight i * u_order.x + j for the texel at offset ((j, i) - u_target) u_spacing; the maths in
// common/convolve.h, shared with the OpenCL kernel. CONVOLVE_CONVERTED 1 reads each tap
// through svg_convolve_tap (preserveAlpha, linearRGB); 0 sums premultiplied sRGB texels
// as they are (llvmpipe would run the conversions' pow() on every tap even where a
// uniform turned them off: 3x slower).
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"
#include "common/convolve.h"

uniform sampler2D u_source;
uniform vec4 u_weights[CONVOLVE_WEIGHTS / 4];
uniform ivec2 u_order;
uniform ivec2 u_target;
#ifndef CONVOLVE_SPREAD
#define CONVOLVE_SPREAD 0
#endif
#if CONVOLVE_SPREAD
uniform vec2 u_spacing;        // px between kernel cells (kernelUnitLength), between pixels
#else
uniform ivec2 u_spacing;       // px between kernel cells (kernelUnitLength)
#endif
uniform float u_divisor;
uniform float u_bias;
uniform int u_edge;            // 0 none, 1 duplicate, 2 wrap
uniform ivec4 u_rect;          // the input's pixels (x0, y0, x1, y1), extended past by u_edge
uniform int u_preserve_alpha;
uniform int u_linear;          // 1: taps read in linearRGB, the result written as sRGB

out vec4 frag_color;

#if CONVOLVE_CONVERTED
#define TAP(v) svg_convolve_tap(SOURCE_VALUE(v), u_preserve_alpha, u_linear)
#else
#define TAP(v) SOURCE_VALUE(v)
#endif

#if CONVOLVE_SPREAD
// The texel (x, y) as a tap reads it, past the input's pixels [lo, hi) as u_edge says.
vec4 edge_tap(int x, int y, ivec2 lo, ivec2 hi) {
    float inside = svg_edge_inside(x, lo.x, hi.x, u_edge) * svg_edge_inside(y, lo.y, hi.y, u_edge);
    ivec2 at = ivec2(svg_edge_index(x, lo.x, hi.x, u_edge), svg_edge_index(y, lo.y, hi.y, u_edge));
    return inside * TAP(texelFetch(u_source, at, 0));
}

// The image at a point between pixels: the bilinear mix of the four taps around it.
vec4 spread_tap(vec2 at, ivec2 lo, ivec2 hi) {
    vec2 c = floor(at);
    vec2 f = at - c;
    ivec2 i = ivec2(c);
    return mix(mix(edge_tap(i.x, i.y, lo, hi), edge_tap(i.x + 1, i.y, lo, hi), f.x),
               mix(edge_tap(i.x, i.y + 1, lo, hi), edge_tap(i.x + 1, i.y + 1, lo, hi), f.x), f.y);
}
#endif

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 size = textureSize(u_source, 0);
    ivec2 lo = min(u_rect.xy, size - 1);
    ivec2 hi = min(u_rect.zw, size);
    vec4 total = vec4(0.0);
    int k = 0;
#if CONVOLVE_SPREAD
    for (int i = 0; i < u_order.y; ++i) {
        for (int j = 0; j < u_order.x; ++j, ++k) {
            vec2 at = vec2(p) + vec2(float(j - u_target.x), float(i - u_target.y)) * u_spacing;
            total += u_weights[k >> 2][k & 3] * spread_tap(at, lo, hi);
        }
    }
#else
    for (int i = 0; i < u_order.y; ++i) {
        int yi = p.y + (i - u_target.y) * u_spacing.y;
        int y = svg_edge_index(yi, lo.y, hi.y, u_edge);
        float row = svg_edge_inside(yi, lo.y, hi.y, u_edge);
        for (int j = 0; j < u_order.x; ++j, ++k) {
            int xi = p.x + (j - u_target.x) * u_spacing.x;
            float weight = u_weights[k >> 2][k & 3] * row * svg_edge_inside(xi, lo.x, hi.x, u_edge);
            total += weight * TAP(texelFetch(u_source, ivec2(svg_edge_index(xi, lo.x, hi.x, u_edge), y), 0));
        }
    }
#endif
    vec4 own = svg_convolve_tap(SOURCE_VALUE(texelFetch(u_source, p, 0)), u_preserve_alpha, u_linear);
    frag_color = OUTPUT_VALUE(svg_convolve_result(total, own, u_divisor, u_bias, u_preserve_alpha, u_linear));
}
