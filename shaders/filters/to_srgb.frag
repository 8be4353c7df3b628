// Premultiplied linearRGB (a float image) -> 8-bit premultiplied sRGB
// (filters/plan.py SpacePass): the way back from shaders/filters/to_linear.frag.
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"

uniform sampler2D u_source;

out vec4 frag_color;

void main() {
    vec4 p = SOURCE_VALUE(texelFetch(u_source, ivec2(gl_FragCoord.xy), 0));
    // A blur's sum may hold colour a rounding past its alpha: clamp as the reference's
    // un-premultiply does (svg_premultiplied_to_srgb clamps the straight colour).
    frag_color = OUTPUT_VALUE(svg_premultiplied_to_srgb(clamp(p, 0.0, 1.0)));
}
