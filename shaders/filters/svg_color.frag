// Consecutive SVG colour primitives in one pass (filters/plan.py SvgColorPass): each step
// a 4x5 matrix of straight RGBA (feColorMatrix of any type: alpha may be read and
// written) then a transfer function per channel (feComponentTransfer, every feFunc
// type), each clamped, in sRGB or, with u_linear, in linearRGB: the conversions run
// here on the colour a step reads and writes, in float, so the 8-bit textures between
// passes stay premultiplied sRGB and fused steps convert exactly.
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"

#include "filters/svg_color_steps.glsl"

uniform sampler2D u_source;

out vec4 frag_color;

void main() {
    vec4 p = SOURCE_VALUE(texelFetch(u_source, ivec2(gl_FragCoord.xy), 0));
    vec4 c = p.a > 0.0 ? vec4(min(p.rgb / p.a, vec3(1.0)), p.a) : vec4(0.0);
    c = svg_color_steps(c);
    frag_color = OUTPUT_VALUE(vec4(c.rgb * c.a, c.a));
}
