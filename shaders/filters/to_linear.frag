// 8-bit premultiplied sRGB -> premultiplied linearRGB (or, with u_linear 0, the same
// sRGB), into a float target (filters/plan.py SpacePass): once a pixel, so the blur passes
// after it read linear values as they are, where converting each tap cost 25-50
// conversions a pixel; in sRGB so that a blur whose result is amplified (a colour
// matrix, lighting) is not rounded to 8 bits.
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"

uniform sampler2D u_source;
uniform int u_linear;  // 1: convert to linearRGB

out vec4 frag_color;

void main() {
    vec4 p = SOURCE_VALUE(texelFetch(u_source, ivec2(gl_FragCoord.xy), 0));
    frag_color = OUTPUT_VALUE(u_linear != 0 ? svg_premultiplied_to_linear(p) : p);
}
