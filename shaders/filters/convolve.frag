// feConvolveMatrix, and feGaussianBlur's edge modes as 1-D kernels (filters/plan.py
// ConvolvePass): u_order.x x u_order.y weights read from uniforms (no program per
// kernel), weight i * u_order.x + j for the texel at offset (j, i) - u_target; the maths
// in common/convolve.h, shared with the OpenCL kernel.
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
uniform float u_divisor;
uniform float u_bias;
uniform int u_edge;            // 0 none, 1 duplicate, 2 wrap
uniform int u_preserve_alpha;
uniform int u_linear;          // 1: taps read in linearRGB, the result written as sRGB

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 size = textureSize(u_source, 0);
    vec4 total = vec4(0.0);
    for (int i = 0; i < u_order.y; ++i) {
        int y = svg_edge_index(p.y - u_target.y + i, size.y, u_edge);
        if (y < 0) continue;
        for (int j = 0; j < u_order.x; ++j) {
            int k = i * u_order.x + j;
            float weight = u_weights[k >> 2][k & 3];
            int x = svg_edge_index(p.x - u_target.x + j, size.x, u_edge);
            if (weight != 0.0 && x >= 0) {
                total += weight * svg_convolve_tap(SOURCE_VALUE(texelFetch(u_source, ivec2(x, y), 0)),
                                                   u_preserve_alpha, u_linear);
            }
        }
    }
    vec4 own = svg_convolve_tap(SOURCE_VALUE(texelFetch(u_source, p, 0)), u_preserve_alpha, u_linear);
    frag_color = OUTPUT_VALUE(svg_convolve_result(total, own, u_divisor, u_bias, u_preserve_alpha, u_linear));
}
