// SVG filter graphs: two premultiplied images joined per pixel (filters/plan.py
// CombinePass): feComposite's Porter-Duff operators and arithmetic, feMerge's and feBlend
// normal's over, feBlend's other modes (common/blend_modes.h, shared with OpenCL and the
// compositor); feFlood is arithmetic with only k4.
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"
#define BLEND_ABS(x) abs(x)
#include "common/blend_modes.h"

uniform sampler2D u_source;  // A: in
uniform sampler2D u_second;  // B: in2
uniform int u_operator;      // filters.plan.CombineOperator
uniform vec3 u_k;            // k1, k2, k3
uniform vec4 u_k4;           // k4, per channel
uniform int u_linear;        // 1: joined in linearRGB (inputs and result converted here)
uniform int u_blend_mode;    // BLEND (7): BlendMode.index, A blended over B

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 a = SOURCE_VALUE(texelFetch(u_source, p, 0));
    vec4 b = texelFetch(u_second, p, 0);
    if (u_linear != 0) {
        a = svg_premultiplied_to_linear(a);
        b = svg_premultiplied_to_linear(b);
    }
    vec4 o;
    if (u_operator == 0) o = a + b * (1.0 - a.a);
    else if (u_operator == 1) o = a * b.a;
    else if (u_operator == 2) o = a * (1.0 - b.a);
    else if (u_operator == 3) o = a * b.a + b * (1.0 - a.a);
    else if (u_operator == 4) o = a * (1.0 - b.a) + b * (1.0 - a.a);
    else if (u_operator == 5) o = min(a + b, vec4(1.0));
    else if (u_operator == 7) o = blend_composite4(a, b, u_blend_mode);
    else {
        o = clamp(u_k.x * a * b + u_k.y * a + u_k.z * b + u_k4, 0.0, 1.0);
        o.rgb = min(o.rgb, vec3(o.a));  // premultiplied colour cannot exceed alpha
    }
    if (u_linear != 0) o = svg_premultiplied_to_srgb(o);
    frag_color = OUTPUT_VALUE(o);
}
