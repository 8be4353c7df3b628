// Every blend mode of W3C Compositing and Blending Level 1 (#blending) and, for
// plus-lighter, Level 2: the same formulas as the float64 reference that tests them
// (lamina.blending.reference). One source for the GLSL compositor (common/blend.glsl:
// mix-blend-mode), the GLSL feBlend pass (filters/combine.frag) and the OpenCL feBlend
// kernel (opencl/filters.cl), so they compute the same thing.
//
// Written in the subset both compile (as common/svg_color.h): float4 and float scalars,
// component access .x .y .z .w, f-suffixed literals, no vector constructors or casts.
// GLSL includes it after "#define float4 vec4"; BLEND_ABS is each includer's absolute
// value of a float (GLSL abs, OpenCL fabs).
//
// Colours are straight (un-premultiplied) in .x .y .z; .w is carried along, unused.

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

// Straight colour of one premultiplied channel c of alpha a. Alpha 0 gives 0 (it is
// multiplied by 0 wherever it is used). A channel equal to alpha gives exactly 1, not
// c / a, because GPUs may divide approximately and color-dodge/burn test Cs == 1 and
// Cb == 1 exactly: 0.99999994 instead of 1 would flip color-burn(1, 0) from 1 to 0.
float blend_unpremultiply_channel(float c, float a) {
    if (a <= 0.0f) return 0.0f;
    if (c >= a) return 1.0f;
    return clamp(c / a, 0.0f, 1.0f);
}

float4 blend_unpremultiply4(float4 p) {
    float4 c = p;
    c.x = blend_unpremultiply_channel(p.x, p.w);
    c.y = blend_unpremultiply_channel(p.y, p.w);
    c.z = blend_unpremultiply_channel(p.z, p.w);
    return c;
}

// -- separable modes (#blendingseparable): B(Cb, Cs) per channel, backdrop first ---------

float blend_screen1(float cb, float cs) { return cb + cs - cb * cs; }

// #blendinghardlight: multiply by 2 Cs up to Cs = 0.5, screen with 2 Cs - 1 above.
float blend_hard_light1(float cb, float cs) {
    return cs <= 0.5f ? cb * (2.0f * cs) : blend_screen1(cb, 2.0f * cs - 1.0f);
}

// #blendingcolordodge, tests in the spec's order: Cb == 0 -> 0, Cs == 1 -> 1.
float blend_color_dodge(float cb, float cs) {
    if (cb == 0.0f) return 0.0f;
    if (cs >= 1.0f) return 1.0f;
    return min(1.0f, cb / (1.0f - cs));
}

// #blendingcolorburn, tests in the spec's order: Cb == 1 -> 1, Cs == 0 -> 0.
float blend_color_burn(float cb, float cs) {
    if (cb >= 1.0f) return 1.0f;
    if (cs <= 0.0f) return 0.0f;
    return 1.0f - min(1.0f, (1.0f - cb) / cs);
}

// #blendingsoftlight and its D(Cb).
float blend_soft_light(float cb, float cs) {
    if (cs <= 0.5f) return cb - (1.0f - 2.0f * cs) * cb * (1.0f - cb);
    float d = cb <= 0.25f ? ((16.0f * cb - 12.0f) * cb + 4.0f) * cb : sqrt(cb);
    return cb + (2.0f * cs - 1.0f) * (d - cb);
}

// B(Cb, Cs) of a separable mode, one channel.
float blend_separable(float cb, float cs, int mode) {
    switch (mode) {
    case BLEND_MULTIPLY: return cb * cs;
    case BLEND_SCREEN: return blend_screen1(cb, cs);
    case BLEND_OVERLAY: return blend_hard_light1(cs, cb);  // HardLight(Cs, Cb)
    case BLEND_DARKEN: return min(cb, cs);
    case BLEND_LIGHTEN: return max(cb, cs);
    case BLEND_COLOR_DODGE: return blend_color_dodge(cb, cs);
    case BLEND_COLOR_BURN: return blend_color_burn(cb, cs);
    case BLEND_HARD_LIGHT: return blend_hard_light1(cb, cs);
    case BLEND_SOFT_LIGHT: return blend_soft_light(cb, cs);
    case BLEND_DIFFERENCE: return BLEND_ABS(cb - cs);
    case BLEND_EXCLUSION: return cb + cs - 2.0f * cb * cs;
    default: return cs;  // BLEND_NORMAL
    }
}

// -- non-separable modes (#blendingnonseparable) -------------------------------------------

float blend_lum(float4 c) { return 0.3f * c.x + 0.59f * c.y + 0.11f * c.z; }

float blend_min3(float4 c) { return min(min(c.x, c.y), c.z); }

float blend_max3(float4 c) { return max(max(c.x, c.y), c.z); }

float blend_sat(float4 c) { return blend_max3(c) - blend_min3(c); }

// ClipColor: move C towards grey at its own luminosity until it fits in [0, 1]. As the
// spec writes it, l, n and x are taken once on entry. The extra l > n, x > l tests keep
// the divisions away from zero: that happens only for a grey that rounding pushed a hair
// out of range, which the clamp in blend_composite4 settles.
float4 blend_clip_color(float4 c) {
    float l = blend_lum(c);
    float n = blend_min3(c);
    float x = blend_max3(c);
    if (n < 0.0f && l > n) {
        c.x = l + (c.x - l) * l / (l - n);
        c.y = l + (c.y - l) * l / (l - n);
        c.z = l + (c.z - l) * l / (l - n);
    }
    if (x > 1.0f && x > l) {
        c.x = l + (c.x - l) * (1.0f - l) / (x - l);
        c.y = l + (c.y - l) * (1.0f - l) / (x - l);
        c.z = l + (c.z - l) * (1.0f - l) / (x - l);
    }
    return c;
}

float4 blend_set_lum(float4 c, float l) {
    float d = l - blend_lum(c);
    c.x += d;
    c.y += d;
    c.z += d;
    return blend_clip_color(c);
}

// SetSat: Cmax -> s, Cmid -> (Cmid - Cmin) s / (Cmax - Cmin), Cmin -> 0, all at once as
// (C - Cmin) s / (Cmax - Cmin); a grey (Cmax == Cmin) becomes 0. Ties need no choice of
// "mid": equal channels get equal results.
float4 blend_set_sat(float4 c, float s) {
    float n = blend_min3(c);
    float x = blend_max3(c);
    if (x > n) {
        c.x = (c.x - n) * s / (x - n);
        c.y = (c.y - n) * s / (x - n);
        c.z = (c.z - n) * s / (x - n);
    } else {
        c.x = 0.0f;
        c.y = 0.0f;
        c.z = 0.0f;
    }
    return c;
}

// B(Cb, Cs) of every mode but plus-lighter (which is not a mixing function), on straight
// colours. May leave [0, 1] by rounding; the caller clamps as the spec requires.
float4 blend_mix4(float4 cb, float4 cs, int mode) {
    if (mode == BLEND_HUE) return blend_set_lum(blend_set_sat(cs, blend_sat(cb)), blend_lum(cb));
    if (mode == BLEND_SATURATION) return blend_set_lum(blend_set_sat(cb, blend_sat(cs)), blend_lum(cb));
    if (mode == BLEND_COLOR) return blend_set_lum(cs, blend_lum(cb));
    if (mode == BLEND_LUMINOSITY) return blend_set_lum(cb, blend_lum(cs));
    float4 o = cs;
    o.x = blend_separable(cb.x, cs.x, mode);
    o.y = blend_separable(cb.y, cs.y, mode);
    o.z = blend_separable(cb.z, cs.z, mode);
    return o;
}

// src over dst (both premultiplied) with blend mode `mode`; premultiplied result
// (Compositing 1 #blending: Cs' = (1 - ab) Cs + ab B(Cb, Cs), then source-over; Filter
// Effects 1 feBlend is the same with src = in, dst = in2).
float4 blend_composite4(float4 src, float4 dst, int mode) {
    // normal is plain source-over (the general formula reduces to it with B = Cs), without
    // the un-premultiply round trip.
    if (mode == BLEND_NORMAL) return src + dst * (1.0f - src.w);
    // plus-lighter (Compositing Level 2) is a clamped sum of premultiplied values.
    if (mode == BLEND_PLUS_LIGHTER) return min(src + dst, 1.0f);
    float4 cs = blend_unpremultiply4(src);
    float4 cb = blend_unpremultiply4(dst);
    float4 mixed = clamp(blend_mix4(cb, cs, mode), 0.0f, 1.0f);  // "must be clamped" (#blending)
    float4 o = dst;
    o.x = src.w * ((1.0f - dst.w) * cs.x + dst.w * mixed.x) + (1.0f - src.w) * dst.x;
    o.y = src.w * ((1.0f - dst.w) * cs.y + dst.w * mixed.y) + (1.0f - src.w) * dst.y;
    o.z = src.w * ((1.0f - dst.w) * cs.z + dst.w * mixed.z) + (1.0f - src.w) * dst.z;
    o.w = src.w + dst.w * (1.0f - src.w);
    return o;
}
