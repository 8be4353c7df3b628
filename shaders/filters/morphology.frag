// One direction of feMorphology (Filter Effects 1) on premultiplied RGBA: the minimum
// (erode) or maximum (dilate) of each channel over 2 radius + 1 texels along u_axis.
// Outside the input is transparent black: an erode whose window leaves the texture is
// transparent; a dilate may skip those taps (every value is >= 0, so a max with 0
// changes nothing). The texels' own values come out, so nothing is rounded.
// MORPHOLOGY_LINEAR 1 (morphology_linear.frag, linearRGB): each tap converted to linear
// premultiplied before the min / max, the result written back as sRGB premultiplied
// (a program of its own: llvmpipe would pay the conversions on every tap even where a
// uniform turned them off).
#include "common/alpha.glsl"
#ifndef MORPHOLOGY_LINEAR
#define MORPHOLOGY_LINEAR 0
#endif
#if MORPHOLOGY_LINEAR
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"
// u_hold (filters/plan.py LinearHold): 0 premultiplied sRGB in and out; 1 writes, 2 reads
// the image between two passes as premultiplied linear through the sRGB curve (an sRGB
// image there, re-encoded at another pixel's alpha, magnified the rounding).
uniform int u_hold;

vec4 curve_to_linear(vec4 v) {
    return vec4(svg_srgb_to_linear(v.r), svg_srgb_to_linear(v.g), svg_srgb_to_linear(v.b), v.a);
}

vec4 linear_to_curve(vec4 v) {
    return vec4(svg_linear_to_srgb(v.r), svg_linear_to_srgb(v.g), svg_linear_to_srgb(v.b), v.a);
}

#define TAP(v) (u_hold == 2 ? curve_to_linear(SOURCE_VALUE(v)) : svg_premultiplied_to_linear(SOURCE_VALUE(v)))
#define RESULT(v) (u_hold == 1 ? linear_to_curve(v) : svg_premultiplied_to_srgb(v))
#else
#define TAP(v) SOURCE_VALUE(v)
#define RESULT(v) (v)
#endif

uniform sampler2D u_source;
uniform ivec2 u_axis;      // (1, 0) or (0, 1)
uniform int u_radius;      // texels on each side
uniform int u_dilate;      // 1: max (dilate), 0: min (erode)

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int along = u_axis.x != 0 ? p.x : p.y;
    int size = u_axis.x != 0 ? textureSize(u_source, 0).x : textureSize(u_source, 0).y;
    int lo = max(-u_radius, -along);
    int hi = min(u_radius, size - 1 - along);
    vec4 v = vec4(0.0);
    if (u_dilate != 0) {
        for (int i = lo; i <= hi; ++i) v = max(v, TAP(texelFetch(u_source, p + i * u_axis, 0)));
    } else if (lo == -u_radius && hi == u_radius) {
        v = vec4(1.0);
        for (int i = lo; i <= hi; ++i) v = min(v, TAP(texelFetch(u_source, p + i * u_axis, 0)));
    }
    frag_color = OUTPUT_VALUE(RESULT(v));
}
