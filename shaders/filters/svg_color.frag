// Consecutive SVG colour primitives in one pass (filters/plan.py SvgColorPass): each step
// a 4x5 matrix of straight RGBA (feColorMatrix of any type: alpha may be read and
// written) then a transfer function per channel (feComponentTransfer, every feFunc
// type), each clamped, in sRGB or, with u_linear, in linearRGB: the conversions run
// here on the colour a step reads and writes, in float, so the 8-bit textures between
// passes stay premultiplied sRGB and fused steps convert exactly.
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#include "common/svg_color.h"

uniform sampler2D u_source;
uniform int u_steps;
uniform int u_linear[SVG_COLOR_STEPS];     // 1: the step computes in linearRGB
uniform mat4 u_matrix[SVG_COLOR_STEPS];    // the 4x4 part of each 4x5 matrix
uniform vec4 u_bias[SVG_COLOR_STEPS];      // its fifth column
uniform ivec4 u_types[SVG_COLOR_STEPS];    // per channel: svg_transfer's type (0: identity)
uniform ivec4 u_first[SVG_COLOR_STEPS];    // per channel: its first value in u_table
uniform ivec4 u_counts[SVG_COLOR_STEPS];   // per channel: its table values
uniform vec4 u_p0[SVG_COLOR_STEPS];        // per channel: slope / amplitude
uniform vec4 u_p1[SVG_COLOR_STEPS];        // per channel: intercept / exponent
uniform vec4 u_p2[SVG_COLOR_STEPS];        // per channel: offset
uniform vec4 u_table[SVG_TABLE_SIZE];      // every table value, four a vec4

out vec4 frag_color;

float table_value(int j) {
    return u_table[j / 4][j % 4];
}

void main() {
    vec4 p = SOURCE_VALUE(texelFetch(u_source, ivec2(gl_FragCoord.xy), 0));
    vec4 c = p.a > 0.0 ? vec4(min(p.rgb / p.a, vec3(1.0)), p.a) : vec4(0.0);
    for (int s = 0; s < u_steps; ++s) {
        if (c.a <= 0.0) c = vec4(0.0);  // premultiplied between primitives: no colour without alpha
        bool linear = u_linear[s] != 0;
        if (linear) {
            c.r = svg_srgb_to_linear(c.r);
            c.g = svg_srgb_to_linear(c.g);
            c.b = svg_srgb_to_linear(c.b);
        }
        c = clamp(u_matrix[s] * c + u_bias[s], 0.0, 1.0);
        for (int ch = 0; ch < 4; ++ch) {
            int type = u_types[s][ch];
            if (type == 0) continue;
            int n = u_counts[s][ch], first = u_first[s][ch];
            int k = svg_table_index(c[ch], type, n);
            float v0 = table_value(first + k), v1 = table_value(first + min(k + 1, max(n - 1, 0)));
            c[ch] = svg_transfer(c[ch], type, n, k, v0, v1, u_p0[s][ch], u_p1[s][ch], u_p2[s][ch]);
        }
        if (linear) {
            c.r = svg_linear_to_srgb(c.r);
            c.g = svg_linear_to_srgb(c.g);
            c.b = svg_linear_to_srgb(c.b);
        }
    }
    frag_color = OUTPUT_VALUE(vec4(c.rgb * c.a, c.a));
}
