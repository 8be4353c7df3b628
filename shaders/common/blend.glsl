// CSS mix-blend-mode, per W3C Compositing and Blending Level 1 (#blending) and, for
// plus-lighter, Level 2: the same formulas as the float64 reference that tests it
// (lamina.blending.reference). Colours are the non-linear sRGB values as stored.
//
// blend_composite(src, dst, mode) takes the premultiplied source and backdrop and returns
// the premultiplied result of compositing src over dst with the blend mode: straight
// colours Cs, Cb are mixed to Cs' = (1 - ab) Cs + ab B(Cb, Cs), which is then composited
// source-over. Callers output mix(dst, blend_composite(src, dst, mode), coverage) with GL
// blending disabled.
#include "common/premultiplied.glsl"

// The mode numbers: BlendMode.index in lamina.blending.modes (a test checks they agree).
// Macros rather than const ints, so a program may also specialise with #if.
#define BLEND_NORMAL 0
#define BLEND_MULTIPLY 1
#define BLEND_SCREEN 2
#define BLEND_OVERLAY 3
#define BLEND_DARKEN 4
#define BLEND_LIGHTEN 5
#define BLEND_COLOR_DODGE 6
#define BLEND_COLOR_BURN 7
#define BLEND_HARD_LIGHT 8
#define BLEND_SOFT_LIGHT 9
#define BLEND_DIFFERENCE 10
#define BLEND_EXCLUSION 11
#define BLEND_HUE 12
#define BLEND_SATURATION 13
#define BLEND_COLOR 14
#define BLEND_LUMINOSITY 15
#define BLEND_PLUS_LIGHTER 16

// Straight colour of premultiplied p. Alpha 0 gives colour 0 (it is multiplied by 0
// wherever it is used). A channel equal to alpha gives exactly 1, not c / a, because
// GPUs may divide approximately and color-dodge/burn test Cs == 1 and Cb == 1 exactly:
// 0.99999994 instead of 1 would flip color-burn(1, 0) from 1 to 0.
vec3 blend_unpremultiply(vec4 p) {
    if (p.a <= 0.0) return vec3(0.0);
    vec3 c = clamp(p.rgb / p.a, 0.0, 1.0);
    return mix(c, vec3(1.0), greaterThanEqual(p.rgb, vec3(p.a)));
}

// -- separable modes (#blendingseparable): B(Cb, Cs) per channel, backdrop first ---------

vec3 blend_multiply(vec3 cb, vec3 cs) { return cb * cs; }

vec3 blend_screen(vec3 cb, vec3 cs) { return cb + cs - cb * cs; }

// #blendinghardlight: multiply by 2 Cs up to Cs = 0.5, screen with 2 Cs - 1 above.
vec3 blend_hard_light(vec3 cb, vec3 cs) {
    return mix(blend_screen(cb, 2.0 * cs - 1.0), blend_multiply(cb, 2.0 * cs), lessThanEqual(cs, vec3(0.5)));
}

// #blendingcolordodge, tests in the spec's order: Cb == 0 -> 0, Cs == 1 -> 1.
float blend_color_dodge(float cb, float cs) {
    if (cb == 0.0) return 0.0;
    if (cs >= 1.0) return 1.0;
    return min(1.0, cb / (1.0 - cs));
}

// #blendingcolorburn, tests in the spec's order: Cb == 1 -> 1, Cs == 0 -> 0.
float blend_color_burn(float cb, float cs) {
    if (cb >= 1.0) return 1.0;
    if (cs <= 0.0) return 0.0;
    return 1.0 - min(1.0, (1.0 - cb) / cs);
}

// #blendingsoftlight and its D(Cb).
float blend_soft_light(float cb, float cs) {
    if (cs <= 0.5) return cb - (1.0 - 2.0 * cs) * cb * (1.0 - cb);
    float d = cb <= 0.25 ? ((16.0 * cb - 12.0) * cb + 4.0) * cb : sqrt(cb);
    return cb + (2.0 * cs - 1.0) * (d - cb);
}

// -- non-separable modes (#blendingnonseparable) -------------------------------------------

float blend_lum(vec3 c) { return dot(c, vec3(0.3, 0.59, 0.11)); }

float blend_sat(vec3 c) { return max(max(c.r, c.g), c.b) - min(min(c.r, c.g), c.b); }

// ClipColor: move C towards grey at its own luminosity until it fits in [0, 1]. As the
// spec writes it, l, n and x are taken once on entry. The extra l > n, x > l tests keep
// the divisions away from zero: that happens only for a grey that rounding pushed a hair
// out of range, which the clamp in blend_composite settles.
vec3 blend_clip_color(vec3 c) {
    float l = blend_lum(c);
    float n = min(min(c.r, c.g), c.b);
    float x = max(max(c.r, c.g), c.b);
    if (n < 0.0 && l > n) c = l + (c - l) * l / (l - n);
    if (x > 1.0 && x > l) c = l + (c - l) * (1.0 - l) / (x - l);
    return c;
}

vec3 blend_set_lum(vec3 c, float l) { return blend_clip_color(c + (l - blend_lum(c))); }

// SetSat: Cmax -> s, Cmid -> (Cmid - Cmin) s / (Cmax - Cmin), Cmin -> 0, all at once as
// (C - Cmin) s / (Cmax - Cmin); a grey (Cmax == Cmin) becomes 0. Ties need no choice of
// "mid": equal channels get equal results.
vec3 blend_set_sat(vec3 c, float s) {
    float n = min(min(c.r, c.g), c.b);
    float x = max(max(c.r, c.g), c.b);
    return x > n ? (c - n) * s / (x - n) : vec3(0.0);
}

// B(Cb, Cs) of every mode but plus-lighter (which is not a mixing function), on straight
// colours. May leave [0, 1] by rounding; the caller clamps as the spec requires.
vec3 blend_mix(vec3 cb, vec3 cs, int mode) {
    switch (mode) {
    case BLEND_MULTIPLY: return blend_multiply(cb, cs);
    case BLEND_SCREEN: return blend_screen(cb, cs);
    case BLEND_OVERLAY: return blend_hard_light(cs, cb);  // HardLight(Cs, Cb)
    case BLEND_DARKEN: return min(cb, cs);
    case BLEND_LIGHTEN: return max(cb, cs);
    case BLEND_COLOR_DODGE:
        return vec3(blend_color_dodge(cb.r, cs.r), blend_color_dodge(cb.g, cs.g), blend_color_dodge(cb.b, cs.b));
    case BLEND_COLOR_BURN:
        return vec3(blend_color_burn(cb.r, cs.r), blend_color_burn(cb.g, cs.g), blend_color_burn(cb.b, cs.b));
    case BLEND_HARD_LIGHT: return blend_hard_light(cb, cs);
    case BLEND_SOFT_LIGHT:
        return vec3(blend_soft_light(cb.r, cs.r), blend_soft_light(cb.g, cs.g), blend_soft_light(cb.b, cs.b));
    case BLEND_DIFFERENCE: return abs(cb - cs);
    case BLEND_EXCLUSION: return cb + cs - 2.0 * cb * cs;
    case BLEND_HUE: return blend_set_lum(blend_set_sat(cs, blend_sat(cb)), blend_lum(cb));
    case BLEND_SATURATION: return blend_set_lum(blend_set_sat(cb, blend_sat(cs)), blend_lum(cb));
    case BLEND_COLOR: return blend_set_lum(cs, blend_lum(cb));
    case BLEND_LUMINOSITY: return blend_set_lum(cb, blend_lum(cs));
    default: return cs;  // BLEND_NORMAL
    }
}

// src over dst (both premultiplied) with blend mode `mode`; premultiplied result.
vec4 blend_composite(vec4 src, vec4 dst, int mode) {
    // normal is plain source-over (the general formula reduces to it with B = Cs), without
    // the un-premultiply round trip.
    if (mode == BLEND_NORMAL) return over(src, dst);
    // plus-lighter (Compositing Level 2) is a clamped sum of premultiplied values.
    if (mode == BLEND_PLUS_LIGHTER) return min(src + dst, vec4(1.0));
    vec3 cs = blend_unpremultiply(src);
    vec3 cb = blend_unpremultiply(dst);
    vec3 mixed = clamp(blend_mix(cb, cs, mode), 0.0, 1.0);  // "must be clamped" (#blending)
    vec3 cs_prime = (1.0 - dst.a) * cs + dst.a * mixed;
    return vec4(src.a * cs_prime + (1.0 - src.a) * dst.rgb, src.a + dst.a * (1.0 - src.a));
}
