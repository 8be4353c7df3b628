// A float image (premultiplied linearRGB, or sRGB with u_linear 0) -> 8-bit premultiplied
// sRGB (filters/plan.py SpacePass): the way back from shaders/filters/to_linear.frag, with
// the colour work that reads the blur fused in float before the 8-bit store (STEPS steps,
// shaders/filters/svg_color_steps.glsl; SpacePass.steps): a colour matrix that multiplies
// alpha by 18 would multiply an 8-bit image's rounding by 18.
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"

#include "filters/svg_color_steps.glsl"

uniform sampler2D u_source;
uniform int u_linear;  // 1: the image holds linearRGB

out vec4 frag_color;

void main() {
    // A blur's sum may hold colour a rounding past its alpha: clamp as the reference's
    // un-premultiply does (svg_premultiplied_to_srgb clamps the straight colour).
    vec4 p = clamp(SOURCE_VALUE(texelFetch(u_source, ivec2(gl_FragCoord.xy), 0)), 0.0, 1.0);
    vec4 s = u_linear != 0 ? svg_premultiplied_to_srgb(p) : p;
#if STEPS > 0
    vec4 c = s.a > 0.0 ? vec4(min(s.rgb / s.a, vec3(1.0)), s.a) : vec4(0.0);
    c = svg_color_steps(c);
    s = vec4(c.rgb * c.a, c.a);
#endif
    frag_color = OUTPUT_VALUE(s);
}
