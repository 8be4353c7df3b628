// One direction of a separable Gaussian on premultiplied RGBA, edge mode none.
// Taps use texelFetch: on llvmpipe a bilinear fetch costs about four texelFetches, so
// the classic paired-bilinear-taps trick loses (measured: 109 ms vs 84 ms for a 25-tap
// pass at 1080p). Weights come from the incremental Gaussian recurrence (GPU Gems 3,
// ch. 40), started at the first tap inside the image, instead of a uniform array
// (123 ms) or exp() per tap; taps outside the image are transparent, so the loop
// simply skips them and needs no per-tap bounds test.
#include "common/alpha.glsl"

uniform sampler2D u_source;
uniform ivec2 u_axis;      // (1, 0) or (0, 1)
uniform int u_radius;      // ceil(3 sigma)
uniform float u_sigma;
uniform float u_norm;      // 1 / sum of the 2 radius + 1 weights

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int along = u_axis.x != 0 ? p.x : p.y;
    int size = u_axis.x != 0 ? textureSize(u_source, 0).x : textureSize(u_source, 0).y;
    float k = 0.5 / (u_sigma * u_sigma);
    // Taps beyond `reach` weigh under exp(-87) (< 2e-38): skipping them keeps every weight a
    // normal float and the recurrence's step exp(k (2 reach - 1)) <= exp(87) finite, where a
    // tiny sigma would otherwise make it overflow (0 * inf = NaN).
    int reach = int(min(float(u_radius), sqrt(87.0 / k)));
    int lo = max(-reach, -along);
    int hi = min(reach, size - 1 - along);
    // w(i) = exp(-k i^2); w(i + 1) = w(i) * exp(-k (2 i + 1)); exp(-k (2 i + 3)) = that * exp(-2 k)
    vec3 g = vec3(exp(-k * float(lo * lo)), exp(-k * float(2 * lo + 1)), exp(-2.0 * k));
    vec4 sum = vec4(0.0);
    for (int i = lo; i <= hi; ++i) {
        sum += SOURCE_VALUE(texelFetch(u_source, p + i * u_axis, 0)) * g.x;
        g.xy *= g.yz;
    }
    frag_color = OUTPUT_VALUE(sum * u_norm);
}
