// drop-shadow: the (blurred) alpha, offset, in the flood colour, under the source.
// SHADOW_LINEAR 1 (shadow_linear.frag, SVG feDropShadow in linearRGB): u_color is linear
// premultiplied, the source is converted to linear for the merge and the result back.
#include "common/fetch.glsl"
#include "common/alpha.glsl"
#ifndef SHADOW_LINEAR
#define SHADOW_LINEAR 0
#endif
#if SHADOW_LINEAR
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"
#define TO_SPACE(v) svg_premultiplied_to_linear(v)
#define FROM_SPACE(v) svg_premultiplied_to_srgb(v)
#else
#define TO_SPACE(v) (v)
#define FROM_SPACE(v) (v)
#endif

uniform sampler2D u_source;
uniform sampler2D u_blurred;
uniform vec2 u_offset;      // px, y down
uniform vec4 u_color;       // premultiplied

out vec4 frag_color;

void main() {
    vec4 src = TO_SPACE(SOURCE_VALUE(texelFetch(u_source, ivec2(gl_FragCoord.xy), 0)));
    float a = bilinear_or_clear(u_blurred, gl_FragCoord.xy - 0.5 - u_offset).a;
    frag_color = OUTPUT_VALUE(FROM_SPACE(src + u_color * a * (1.0 - src.a)));
}
