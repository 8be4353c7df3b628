// The steps of SVG colour primitives (filters/plan.py SvgColorStep) on straight RGBA,
// for the passes that run them: svg_color.frag, and turbulence.frag on its noise.
// Includers include common/svg_color.h first.
//
// Compiled per form (filters/plan.py FilterProgram.svg_color), because llvmpipe runs
// both sides of every branch under a lane mask: code a pass's steps cannot need costs
// as if it ran. STEPS: the step count (a bucket, padded with identity steps), so the
// loop unrolls and indexes the uniform arrays by constants (a loop to a uniform count
// indexed them dynamically: 3x a step's cost); SVG_LINEAR: some step computes in
// linearRGB (the sRGB conversions are compiled in); SVG_TRANSFER: some step has a
// transfer function other than identity (the per-channel functions and their table).
// Measured at 1080p (llvmpipe, 2 cores): one sRGB colour matrix took 150 ms in the one
// general program, 35 ms in its own (the CSS colour pass: 26 ms).
#if STEPS > 0
uniform mat4 u_matrix[STEPS];    // the 4x4 part of each 4x5 matrix
uniform vec4 u_bias[STEPS];      // its fifth column
#endif
#if SVG_LINEAR
uniform int u_step_linear[STEPS];     // 1: the step computes in linearRGB
#endif
#if SVG_TRANSFER
uniform ivec4 u_types[STEPS];    // per channel: svg_transfer's type (0: identity)
uniform ivec4 u_first[STEPS];    // per channel: its first value in u_table
uniform ivec4 u_counts[STEPS];   // per channel: its table values
uniform vec4 u_p0[STEPS];        // per channel: slope / amplitude
uniform vec4 u_p1[STEPS];        // per channel: intercept / exponent
uniform vec4 u_p2[STEPS];        // per channel: offset
uniform vec4 u_table[SVG_TABLE_SIZE];      // every table value, four a vec4

float table_value(int j) {
    return u_table[j / 4][j % 4];
}

// One channel's transfer function (the channel passed by value: no dynamic component index).
float svg_channel(float x, int type, int n, int first, float p0, float p1, float p2) {
    if (type == 0) return x;
    int k = svg_table_index(x, type, n);
    float v0 = table_value(first + k), v1 = table_value(first + min(k + 1, max(n - 1, 0)));
    return svg_transfer(x, type, n, k, v0, v1, p0, p1, p2);
}
#endif

vec4 svg_color_steps(vec4 c) {
#if STEPS > 0
    for (int s = 0; s < STEPS; ++s) {
        if (c.a <= 0.0) c = vec4(0.0);  // premultiplied between primitives: no colour without alpha
#if SVG_LINEAR
        bool linear = u_step_linear[s] != 0;
        if (linear) {
            c.r = svg_srgb_to_linear(c.r);
            c.g = svg_srgb_to_linear(c.g);
            c.b = svg_srgb_to_linear(c.b);
        }
#endif
        c = clamp(u_matrix[s] * c + u_bias[s], 0.0, 1.0);
#if SVG_TRANSFER
        ivec4 types = u_types[s], counts = u_counts[s], first = u_first[s];
        vec4 p0 = u_p0[s], p1 = u_p1[s], p2 = u_p2[s];
        c = vec4(svg_channel(c.r, types.x, counts.x, first.x, p0.x, p1.x, p2.x),
                 svg_channel(c.g, types.y, counts.y, first.y, p0.y, p1.y, p2.y),
                 svg_channel(c.b, types.z, counts.z, first.z, p0.z, p1.z, p2.z),
                 svg_channel(c.a, types.w, counts.w, first.w, p0.w, p1.w, p2.w));
#endif
#if SVG_LINEAR
        if (linear) {
            c.r = svg_linear_to_srgb(c.r);
            c.g = svg_linear_to_srgb(c.g);
            c.b = svg_linear_to_srgb(c.b);
        }
#endif
    }
#endif
    return c;
}
