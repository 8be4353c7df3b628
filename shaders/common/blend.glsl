// CSS mix-blend-mode, per W3C Compositing and Blending Level 1 (#blending) and, for
// plus-lighter, Level 2: the maths is common/blend_modes.h, shared with the feBlend
// passes of SVG filters (GLSL and OpenCL), tested against the float64 reference
// (lamina.blending.reference). Colours are the non-linear sRGB values as stored.
//
// blend_composite(src, dst, mode) takes the premultiplied source and backdrop and returns
// the premultiplied result of compositing src over dst with the blend mode: straight
// colours Cs, Cb are mixed to Cs' = (1 - ab) Cs + ab B(Cb, Cs), which is then composited
// source-over. Callers output mix(dst, blend_composite(src, dst, mode), coverage) with GL
// blending disabled.
#include "common/premultiplied.glsl"
#ifndef float4
#define float4 vec4
#endif
#define BLEND_ABS(x) abs(x)
#include "common/blend_modes.h"

// src over dst (both premultiplied) with blend mode `mode`; premultiplied result.
vec4 blend_composite(vec4 src, vec4 dst, int mode) {
    return blend_composite4(src, dst, mode);
}
