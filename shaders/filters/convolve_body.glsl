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
uniform ivec2 u_spacing;       // px between kernel cells (kernelUnitLength)
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

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 size = textureSize(u_source, 0);
    ivec2 lo = min(u_rect.xy, size - 1);
    ivec2 hi = min(u_rect.zw, size);
    vec4 total = vec4(0.0);
    int k = 0;
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
    vec4 own = svg_convolve_tap(SOURCE_VALUE(texelFetch(u_source, p, 0)), u_preserve_alpha, u_linear);
    frag_color = OUTPUT_VALUE(svg_convolve_result(total, own, u_divisor, u_bias, u_preserve_alpha, u_linear));
}
