// feConvolveMatrix's per-tap and per-pixel maths (filters/svg/reference.py _convolve; the
// pass: filters/plan.py ConvolvePass), shared by shaders/filters/convolve.frag and
// shaders/opencl/filters.cl in the subset both compile (see common/svg_color.h, which
// each includer includes first). Edge modes: 0 none, 1 duplicate, 2 wrap.

// Position i of a row or column read past the input's pixels [lo, hi) (its subregion, as
// the spec's "input image"; lo < the image's size): the index read, and whether it counts
// (0: transparent, edge mode none, or an empty input). Selects, not branches: llvmpipe
// runs both sides of a branch in a loop this hot.
int svg_edge_index(int i, int lo, int hi, int mode) {
    int last = max(hi - 1, lo);  // an empty input reads lo, which then does not count
    int n = last - lo + 1;
    int clamped = clamp(i, lo, last);
    // % of a negative int is undefined in GLSL: floor of the float quotient instead
    // (exact: a non-integer quotient of ints below 2^24 is at least 1 / n from one).
    int wrapped = i - n * SVG_INT(floor(SVG_INT_TO_FLOAT(i - lo) / SVG_INT_TO_FLOAT(n)));
    return mode == 2 ? wrapped : clamped;
}

float svg_edge_inside(int i, int lo, int hi, int mode) {
    return (hi > lo && (mode != 0 || (i >= lo && i < hi))) ? 1.0f : 0.0f;
}

// A premultiplied sRGB texel as the sum reads it: straight with preserveAlpha, and in
// linearRGB when linear_rgb (premultiplied again unless preserveAlpha), as the reference
// converts its input and then un-premultiplies it.
float4 svg_convolve_tap(float4 p, int preserve_alpha, int linear_rgb) {
    if (linear_rgb != 0) p = svg_premultiplied_to_linear(p);
    if (preserve_alpha != 0 && p.w > 0.0f) {
        p.x = min(p.x / p.w, 1.0f);
        p.y = min(p.y / p.w, 1.0f);
        p.z = min(p.z / p.w, 1.0f);
    } else if (preserve_alpha != 0) {
        p.x = 0.0f; p.y = 0.0f; p.z = 0.0f;
    }
    return p;
}

// The result from the weighted sum and the pixel's own tap (its alpha, kept by
// preserveAlpha): / divisor + bias on every component, clamped, colour clamped to alpha;
// premultiplied sRGB.
float4 svg_convolve_result(float4 total, float4 own, float divisor, float bias, int preserve_alpha, int linear_rgb) {
    float4 o = total / divisor + bias;
    o.x = clamp(o.x, 0.0f, 1.0f); o.y = clamp(o.y, 0.0f, 1.0f); o.z = clamp(o.z, 0.0f, 1.0f);
    if (preserve_alpha != 0) {
        o.w = own.w;
        o.x *= o.w; o.y *= o.w; o.z *= o.w;
    } else {
        o.w = clamp(o.w, 0.0f, 1.0f);
        o.x = min(o.x, o.w); o.y = min(o.y, o.w); o.z = min(o.z, o.w);
    }
    if (linear_rgb != 0) o = svg_premultiplied_to_srgb(o);
    return o;
}
