// The steps of SVG colour primitives (filters/plan.py SvgColorStep) on straight RGBA,
// for the passes that run them: svg_color.frag, and turbulence.frag on its noise.
// Includers include common/svg_color.h first.
uniform int u_steps;
uniform int u_step_linear[SVG_COLOR_STEPS];     // 1: the step computes in linearRGB
uniform mat4 u_matrix[SVG_COLOR_STEPS];    // the 4x4 part of each 4x5 matrix
uniform vec4 u_bias[SVG_COLOR_STEPS];      // its fifth column
uniform ivec4 u_types[SVG_COLOR_STEPS];    // per channel: svg_transfer's type (0: identity)
uniform ivec4 u_first[SVG_COLOR_STEPS];    // per channel: its first value in u_table
uniform ivec4 u_counts[SVG_COLOR_STEPS];   // per channel: its table values
uniform vec4 u_p0[SVG_COLOR_STEPS];        // per channel: slope / amplitude
uniform vec4 u_p1[SVG_COLOR_STEPS];        // per channel: intercept / exponent
uniform vec4 u_p2[SVG_COLOR_STEPS];        // per channel: offset
uniform vec4 u_table[SVG_TABLE_SIZE];      // every table value, four a vec4

float table_value(int j) {
    return u_table[j / 4][j % 4];
}

vec4 svg_color_steps(vec4 c) {
    for (int s = 0; s < u_steps; ++s) {
        if (c.a <= 0.0) c = vec4(0.0);  // premultiplied between primitives: no colour without alpha
        bool linear = u_step_linear[s] != 0;
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
    return c;
}
