// CSS box-shadow in closed form, one pass, no blur passes (CSS Backgrounds 3 §7.1).
//
// A shadow's alpha at a pixel is its shape (a rounded rectangle with elliptical corners)
// convolved with a Gaussian of standard deviation sigma = blur / 2 — and averaged over
// the pixel, since Lamina rasters by area. The pixel's box filter and the Gaussian make
// one separable kernel K = box * N(0, sigma) per axis, whose integral has a closed form:
//
//   I(v) = integral of Phi(w / sigma) dw up to v = v Phi(v / sigma) + sigma phi(v / sigma)
//   F(u) = integral of K up to u              = I(u + 1/2) - I(u - 1/2)
//
// The shape is its rectangle minus four corner "bites". The rectangle is separable:
// (F(x - x0) - F(x - x1)) (F(y - y0) - F(y - y1)), exact. A bite is integrated along x
// in closed form too (a row of it is an interval), and along y numerically over the
// rows the kernel reaches: Evan Wallace's "fast rounded rectangle shadows", as WebRender
// draws box shadows, extended to elliptical corners of their own sizes. A bite's edge
// meets the straight edge with a square-root cusp; sampling rows at u = v^2 (v evenly
// spaced) removes it, so a few samples reach a fraction of an 8-bit level
// (tests/gl/test_box_shadow.py compares with compositor.shadow_reference, float64).
//
// Defines (gpu.programs): SHADOWS, the size of the uniform arrays (limits.
// MAX_BOX_SHADOWS), of which u_shadow_count are used, the first on top as CSS paints
// them — or, with BS_ONE, one shadow (SHADOWS 1: llvmpipe indexes uniform arrays with
// a loop counter by gathers, twice the cost of the whole shadow here); BS_SHARP, the exact kernel (1, needed below sigma 1) or a Gaussian with the
// pixel's box folded into its variance (0: within a tenth of a level from sigma 1 up,
// and cheaper); BS_MODE, which bites are evaluated: all four (0), the one the region's
// corner attribute picks (1) or none (2) — regions of the raster no other bite reaches
// are drawn with a mode that skips them (compositor.shadow_cells), as llvmpipe evaluates
// both sides of a branch and an early return saves it nothing.

#ifdef BS_ONE
#define BS_COUNT 1                     // one shadow, known here: the loop unrolls, indices are constant
#else
uniform int u_shadow_count;
#define BS_COUNT u_shadow_count
#endif
uniform vec4 u_shadow_rect[SHADOWS];   // the shape: x0, y0, x1, y1 (layer px); x1 <= x0: none
uniform vec4 u_shadow_rx[SHADOWS];     // corner radii: tl, tr, br, bl
uniform vec4 u_shadow_ry[SHADOWS];
uniform vec4 u_shadow_color[SHADOWS];  // premultiplied
uniform float u_shadow_sigma[SHADOWS]; // blur / 2, px
#if BS_MODE == 1
flat in vec4 v_corner_pick;            // one-hot: tl, tr, br, bl (raster/cells.vert)
flat in vec2 v_corner_side;            // (0 left / 1 right, 0 top / 1 bottom) of that corner
#endif

const float BS_INV_SQRT2 = 0.7071067811865476;
const float BS_INV_SQRT_2PI = 0.3989422804014327;
const float BS_REACH = 3.0;            // the kernel's reach in sigmas (its tail past it < 0.14 %)

#if BS_SHARP
// The exact kernel. Phi from Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), whose
// exp(-z^2 / 2) is phi's own factor: one exp serves both.
float bs_tail(float a, out float e) {  // 1 - Phi(a sqrt 2) for a >= 0, and exp(-a^2)
    float t = 1.0 / (1.0 + 0.3275911 * a);
    e = exp(-a * a);
    return 0.5 * e * t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
}

float bs_integral(float v, float sigma) {  // I(v)
    float z = v / sigma;
    float e;
    float tail = bs_tail(abs(z) * BS_INV_SQRT2, e);
    float cdf = z >= 0.0 ? 1.0 - tail : tail;  // the tail itself where it is small: no cancellation
    return v * cdf + sigma * BS_INV_SQRT_2PI * e;
}

float bs_cdf(float u, float s) {  // F(u): how much of the kernel lies left of u
    return bs_integral(u + 0.5, s) - bs_integral(u - 0.5, s);
}

float bs_kernel(float d, float s) {  // K(d): the box of one pixel, blurred, at distance d
    float hi = (d + 0.5) / s, lo = (d - 0.5) / s;
    float e;
    float th = bs_tail(abs(hi) * BS_INV_SQRT2, e);
    float tl = bs_tail(abs(lo) * BS_INV_SQRT2, e);
    return (hi >= 0.0 ? 1.0 - th : th) - (lo >= 0.0 ? 1.0 - tl : tl);
}

float bs_scale(float sigma) { return max(sigma, 1e-4); }  // sigma 0 is the box alone: the limit is smooth
float bs_reach(float s) { return 0.5 + BS_REACH * s; }
#else
// The folded kernel: N(0, sigma^2 + 1/12). Its CDF needs no exp with this erf
// (|error| < 5e-4, A&S 7.1.27).
float bs_erf(float x) {
    float a = abs(x);
    float d = 1.0 + a * (0.278393 + a * (0.230389 + a * (0.000972 + a * 0.078108)));
    d *= d;
    return sign(x) * (1.0 - 1.0 / (d * d));
}

float bs_cdf(float u, float s) {
    return 0.5 + 0.5 * bs_erf(u * (BS_INV_SQRT2 / s));
}

float bs_kernel(float d, float s) {
    float z = d / s;
    return exp(-0.5 * z * z) * (BS_INV_SQRT_2PI / s);
}

float bs_scale(float sigma) { return sqrt(sigma * sigma + 1.0 / 12.0); }
float bs_reach(float s) { return BS_REACH * s; }
#endif

// Rows to sample across a bite: enough for the kernel to see the corner's curve (its
// shorter radius, where the kernel reaches, over sigma), and many below sigma 1, where
// the curve's detail is sharp (few pixels are near enough to a corner for that to cost
// much). The counts keep the error under a level or two against the float64 reference.
int bs_samples(float sigma, float s, float short_radius, float reach) {
    if (sigma < 1.0) return 16;
    return clamp(int(ceil(2.0 * min(short_radius, 2.0 * reach) / s)) + 3, 3, 16);
}

// The (negative) share of the blurred shape a corner's bite takes at a pixel. dx, dy:
// how far the pixel is inside the shape from the corner's vertical and horizontal
// edges; r: the corner's radii; fx = F(dx), fy = F(dy), the straight edges' shares.
// The bite is integrated in closed form across its shorter radius and sampled along the
// longer one (a flat ellipse sampled across would sweep its whole width between rows):
// for a corner wider than tall, x and y swap roles (the integral is the same, Fubini).
float bs_bite(float dx, float dy, vec2 r, float fx, float fy, float s, float sigma, float reach) {
    bool wide = r.x > r.y;
    vec2 d = wide ? vec2(dy, dx) : vec2(dx, dy);  // selects, not branches: both are cheap
    vec2 rr = wide ? r.yx : r;
    float f_edge = wide ? fy : fx;
    if (rr.x <= 0.0 || d.x < -reach || d.x > rr.x + reach) return 0.0;
    // Rows of the corner band at u * rr.y from the edge, u in [0, 1], that the kernel reaches.
    float lo = clamp((d.y - reach) / rr.y, 0.0, 1.0);
    float hi = clamp((d.y + reach) / rr.y, 0.0, 1.0);
    if (hi <= lo) return 0.0;
    int samples = bs_samples(sigma, s, rr.x, reach);
    float v0 = sqrt(lo);
    float dv = (sqrt(hi) - v0) / float(samples);
    float sum = 0.0;
    for (int i = 0; i < samples; i++) {
        float v = v0 + (float(i) + 0.5) * dv;
        float u = v * v;
        float w = 1.0 - u;
        float inset = rr.x * (1.0 - sqrt(max(1.0 - w * w, 0.0)));  // the ellipse's row inset
        // the row's bite across, weighted by the kernel at the row (dt = 2 rr.y v dv)
        sum += bs_kernel(d.y - u * rr.y, s) * (bs_cdf(d.x - inset, s) - f_edge) * v;
    }
    return sum * 2.0 * rr.y * dv;
}

// Alpha of the shape (rect x0, y0, x1, y1; radii tl, tr, br, bl) blurred by sigma, at p.
float box_shadow_alpha(vec2 p, vec4 rect, vec4 rx, vec4 ry, float sigma) {
    if (rect.z <= rect.x || rect.w <= rect.y) return 0.0;
    float s = bs_scale(sigma);
    float reach = bs_reach(s);
    float fl = bs_cdf(p.x - rect.x, s);  // F(x - x0)
    float fr = bs_cdf(rect.z - p.x, s);  // F(x1 - x) = 1 - F(x - x1)
    float ft = bs_cdf(p.y - rect.y, s);
    float fb = bs_cdf(rect.w - p.y, s);
    float alpha = (fl + fr - 1.0) * (ft + fb - 1.0);
#if BS_MODE == 0
    alpha += bs_bite(p.x - rect.x, p.y - rect.y, vec2(rx.x, ry.x), fl, ft, s, sigma, reach);
    alpha += bs_bite(rect.z - p.x, p.y - rect.y, vec2(rx.y, ry.y), fr, ft, s, sigma, reach);
    alpha += bs_bite(rect.z - p.x, rect.w - p.y, vec2(rx.z, ry.z), fr, fb, s, sigma, reach);
    alpha += bs_bite(p.x - rect.x, rect.w - p.y, vec2(rx.w, ry.w), fl, fb, s, sigma, reach);
#elif BS_MODE == 1
    // The one corner this region of the raster is near, picked without a branch.
    vec2 side = v_corner_side;
    float dx = mix(p.x - rect.x, rect.z - p.x, side.x);
    float dy = mix(p.y - rect.y, rect.w - p.y, side.y);
    vec2 r = vec2(dot(rx, v_corner_pick), dot(ry, v_corner_pick));
    alpha += bs_bite(dx, dy, r, mix(fl, fr, side.x), mix(ft, fb, side.y), s, sigma, reach);
#endif
    return clamp(alpha, 0.0, 1.0);
}

// The outer shadows at p, composited (first on top), before the border-box clip-out.
vec4 outer_box_shadows(vec2 p) {
    vec4 acc = vec4(0.0);
    for (int i = BS_COUNT - 1; i >= 0; i--) {
        acc = over(u_shadow_color[i] * box_shadow_alpha(p, u_shadow_rect[i], u_shadow_rx[i], u_shadow_ry[i],
                                                        u_shadow_sigma[i]), acc);
    }
    return acc;
}

// The inset shadows at p, composited, before the padding-box clip: everything outside
// the padding box casts them, through the hole each one's shape is.
vec4 inset_box_shadows(vec2 p) {
    vec4 acc = vec4(0.0);
    for (int i = BS_COUNT - 1; i >= 0; i--) {
        float hole = box_shadow_alpha(p, u_shadow_rect[i], u_shadow_rx[i], u_shadow_ry[i], u_shadow_sigma[i]);
        acc = over(u_shadow_color[i] * (1.0 - hole), acc);
    }
    return acc;
}
