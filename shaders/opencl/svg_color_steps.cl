// The steps of SVG colour primitives (filters/plan.py SvgColorStep) on straight RGBA, for
// the kernels that run them: filters.cl's svg colour and turbulence kernels, and
// linear.cl's way back to 8-bit (a blur's colour work fused in float, SpacePass.steps).
// Includers include common/svg_color.h first.
inline void svg_color_steps(float* c, __constant float* steps, int n_steps, __constant float* table) {
    for (int s = 0; s < n_steps; ++s) {
        __constant float* step = steps + SVG_STEP_FLOATS * s;
        if (c[3] <= 0.0f) c[0] = c[1] = c[2] = c[3] = 0.0f;  // premultiplied between primitives
        int linear_rgb = step[44] != 0.0f;
        if (linear_rgb) {
            for (int i = 0; i < 3; ++i) c[i] = svg_srgb_to_linear(c[i]);
        }
        float o[4];
        for (int i = 0; i < 4; ++i) {
            __constant float* row = step + 5 * i;
            o[i] = clamp(row[0] * c[0] + row[1] * c[1] + row[2] * c[2] + row[3] * c[3] + row[4], 0.0f, 1.0f);
        }
        for (int ch = 0; ch < 4; ++ch) {
            __constant float* f = step + 20 + 6 * ch;
            int type = (int)f[0];
            if (type == 0) continue;
            int first = (int)f[1], n = (int)f[2];
            int k = svg_table_index(o[ch], type, n);
            float v0 = table[first + k], v1 = table[first + min(k + 1, max(n - 1, 0))];
            o[ch] = svg_transfer(o[ch], type, n, k, v0, v1, f[3], f[4], f[5]);
        }
        if (linear_rgb) {
            for (int i = 0; i < 3; ++i) o[i] = svg_linear_to_srgb(o[i]);
        }
        for (int i = 0; i < 4; ++i) c[i] = o[i];
    }
}

