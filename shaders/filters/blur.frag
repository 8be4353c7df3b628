// One direction of a separable Gaussian on premultiplied RGBA, edge mode none.
// Taps use texelFetch (no paired bilinear taps: on llvmpipe a bilinear fetch costs about
// four texelFetches, which cancels the halving). Weights come from the incremental
// Gaussian recurrence (GPU Gems 3, ch. 40) instead of a uniform array or exp() per tap.
#include "common/fetch.glsl"

uniform sampler2D u_source;
uniform ivec2 u_axis;      // (1, 0) or (0, 1)
uniform int u_radius;      // ceil(3 sigma)
uniform float u_sigma;
uniform float u_norm;      // 1 / sum of the 2 radius + 1 weights

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec3 g = vec3(1.0, exp(-0.5 / (u_sigma * u_sigma)), 0.0);
    g.z = g.y * g.y;
    vec4 sum = texelFetch(u_source, p, 0);
    for (int i = 1; i <= u_radius; ++i) {
        g.xy *= g.yz;
        sum += (fetch_or_clear(u_source, p + i * u_axis) + fetch_or_clear(u_source, p - i * u_axis)) * g.x;
    }
    frag_color = sum * u_norm;
}
