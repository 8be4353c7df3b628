// Halve: each output texel is the average of the 2x2 input texels it covers
// (transparent beyond the input's edge). Reduced images carry a margin of one texel on
// every side, so that the blur computes the values just past the edge and the final
// upsample can interpolate there; u_offset maps output texels to input texels.
#include "common/fetch.glsl"

uniform sampler2D u_source;
uniform ivec2 u_offset;

out vec4 frag_color;

void main() {
    vec4 a, b, c, d;
    fetch_quad(u_source, ivec2(gl_FragCoord.xy) * 2 + u_offset, a, b, c, d);
    frag_color = 0.25 * (a + b + c + d);
}
