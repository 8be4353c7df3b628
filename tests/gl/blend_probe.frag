// Test-only program (tests/gl/test_blend_glsl.py): blend_composite of one source texel
// over one backdrop texel per fragment, written unchanged. The test assembles it with
// Lamina's own include mechanism (lamina.gpu.shader_source).
// blend.glsl includes premultiplied.glsl too: each file must be expanded once.
#include "common/premultiplied.glsl"
#include "common/blend.glsl"

uniform sampler2D u_source;    // premultiplied RGBA8
uniform sampler2D u_backdrop;  // premultiplied RGBA8, same size
uniform int u_mode;            // a BLEND_* number

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    frag_color = blend_composite(texelFetch(u_source, p, 0), texelFetch(u_backdrop, p, 0), u_mode);
}
