// Halve: each output texel is the average of the 2x2 input texels it covers
// (transparent beyond the input's edge). Reduced images carry a margin of one texel on
// every side, so that the blur computes the values just past the edge and the final
// upsample can interpolate there; u_offset maps output texels to input texels.
#if SOURCE_STRAIGHT && defined(GL_ARB_gpu_shader5)
// A straight source is premultiplied as read: texels k s with one s (1 / 255), which
// Mesa's optimizer would factor, (k0 + k1) s, rounding otherwise than the texture
// unit's per-texel k s. "precise" keeps the sum as written, in the order the compiled
// premultiplied variant adds (measured), so both give the very same bytes (without
// the extension, a straight source may round 1 unit otherwise at ties).
#extension GL_ARB_gpu_shader5 : enable
#define EXACT precise
#else
#define EXACT
#endif
#include "common/fetch.glsl"
#include "common/alpha.glsl"

uniform sampler2D u_source;
uniform ivec2 u_offset;

out vec4 frag_color;

void main() {
    vec4 a, b, c, d;
    fetch_quad(u_source, ivec2(gl_FragCoord.xy) * 2 + u_offset, a, b, c, d);
#if SOURCE_STRAIGHT
    EXACT vec4 sum = (SOURCE_VALUE(a) + SOURCE_VALUE(b)) + (SOURCE_VALUE(c) + SOURCE_VALUE(d));
#else
    vec4 sum = a + b + c + d;
#endif
    frag_color = OUTPUT_VALUE(0.25 * sum);
}
