// drop-shadow: the (blurred) alpha, offset, in the flood colour, under the source.
#include "common/fetch.glsl"
#include "common/alpha.glsl"

uniform sampler2D u_source;
uniform sampler2D u_blurred;
uniform vec2 u_offset;      // px, y down
uniform vec4 u_color;       // premultiplied

out vec4 frag_color;

void main() {
    vec4 src = SOURCE_VALUE(texelFetch(u_source, ivec2(gl_FragCoord.xy), 0));
    float a = bilinear_or_clear(u_blurred, gl_FragCoord.xy - 0.5 - u_offset).a;
    frag_color = OUTPUT_VALUE(src + u_color * a * (1.0 - src.a));
}
