// Composite one quad: bilinear sample, analytic edge coverage, the overflow clips of
// its ancestors (rounded rects in their own layer space), and opacity. The output is
// premultiplied; the pipeline blends it with ONE, ONE_MINUS_SRC_ALPHA (source-over).
// The BLEND variant composites with a mix-blend-mode instead: it reads the backdrop
// from a copy of the target taken just before (GL blending is off for it) and writes
// the blended result where the quad covers, the backdrop itself elsewhere.
#include "common/rrect.glsl"
#if BLEND
#include "common/blend.glsl"
uniform sampler2D u_backdrop;
uniform vec2 u_backdrop_origin;   // target px of the copy's texel (0, 0)
uniform int u_blend_mode;         // BlendMode.index: a uniform, so a new mode compiles nothing
#endif

uniform sampler2D u_source;
uniform vec2 u_quad_size;
uniform float u_opacity;
uniform int u_exact;  // 1: placed at whole pixels, so each fragment is a texel centre: fetch it
#if CLIP_COUNT > 0
uniform mat3 u_clip_to_local[CLIP_COUNT];   // target px -> clip layer px
uniform vec4 u_clip_rect[CLIP_COUNT];       // x0, y0, x1, y1
uniform vec4 u_clip_rx[CLIP_COUNT];
uniform vec4 u_clip_ry[CLIP_COUNT];
uniform vec2 u_clip_px[CLIP_COUNT];         // one target px in clip px, per clip axis
#endif

in vec2 v_local;
out vec4 frag_color;

void main() {
    vec2 p = v_local;
    // One target pixel measured in source px along each source axis (exact for affine
    // maps); edge coverage is the pixel's overlap with the quad along each axis.
    vec2 px = max(vec2(length(vec2(dFdx(p.x), dFdy(p.x))), length(vec2(dFdx(p.y), dFdy(p.y)))), vec2(1e-6));
    float cov = span_coverage(p.x, 0.0, u_quad_size.x, 0.5 * px.x)
              * span_coverage(p.y, 0.0, u_quad_size.y, 0.5 * px.y);
#if CLIP_COUNT > 0
    for (int i = 0; i < CLIP_COUNT; ++i) {
        vec2 q = (u_clip_to_local[i] * vec3(gl_FragCoord.xy, 1.0)).xy;
        cov *= rrect_coverage(q, u_clip_rect[i], u_clip_rx[i], u_clip_ry[i], u_clip_px[i]);
    }
#endif
    if (cov <= 0.0) discard;
    // texelFetch costs about a quarter of a bilinear fetch on llvmpipe.
    vec4 texel = u_exact == 1 ? texelFetch(u_source, ivec2(floor(p)), 0) : texture(u_source, p / vec2(textureSize(u_source, 0)));
#if BLEND
    vec4 src = texel * u_opacity;
    vec4 dst = texelFetch(u_backdrop, ivec2(floor(gl_FragCoord.xy - u_backdrop_origin)), 0);
    // The blend is linear in the source's coverage (Compositing 1 §5.8), so a partly
    // covered pixel is the mix of the backdrop and the fully covered result.
    frag_color = mix(dst, blend_composite(src, dst, u_blend_mode), min(cov, 1.0));
#else
    frag_color = texel * (cov * u_opacity);
#endif
}
