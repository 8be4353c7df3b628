// Pixels in and out: convert a texture between straight and premultiplied alpha, texel
// for texel (common/alpha.glsl has the rounding). Images premultiply on upload
// (SOURCE_STRAIGHT); frames un-premultiply on their way to the host (OUTPUT_STRAIGHT).
// The texel read is the fragment's position less u_offset, so a strip of a large frame
// or the changed rect of a kept one converts alone.
#include "common/alpha.glsl"

uniform sampler2D u_source;
uniform ivec2 u_offset;

out vec4 frag_color;

void main() {
    vec4 v = texelFetch(u_source, ivec2(gl_FragCoord.xy) - u_offset, 0);
    frag_color = OUTPUT_VALUE(SOURCE_VALUE(v));
}
