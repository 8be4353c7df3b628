// Back to full size from 1/u_scale: bilinear between the low-resolution texels. Texel j
// of a reduced image (which has a one-texel margin) is centred at (j - 0.5) * u_scale
// full-size px, so every full-size pixel has both neighbours inside the image.
#include "common/alpha.glsl"

uniform sampler2D u_source;
uniform float u_scale;

out vec4 frag_color;

void main() {
    vec2 size = vec2(textureSize(u_source, 0));
    vec2 q = clamp(gl_FragCoord.xy / u_scale + 0.5, vec2(0.0), size - 1.0);
    vec2 f = floor(q);
    vec2 t = q - f;
    ivec2 i = ivec2(f);
    ivec2 j = min(i + 1, ivec2(size) - 1);
    vec4 a = mix(SOURCE_VALUE(texelFetch(u_source, i, 0)), SOURCE_VALUE(texelFetch(u_source, ivec2(j.x, i.y), 0)), t.x);
    vec4 b = mix(SOURCE_VALUE(texelFetch(u_source, ivec2(i.x, j.y), 0)), SOURCE_VALUE(texelFetch(u_source, j, 0)), t.x);
    frag_color = OUTPUT_VALUE(mix(a, b, t.y));
}
