// Fused colour pass (Filter Effects 1 colour functions). The planner turns a run of
// colour ops into STEPS affine maps of straight RGB, each followed by the clamp to
// [0, 1] the spec puts after every op (steps whose clamp cannot act are merged, which
// is exact), and one alpha factor (opacity: no colour op reads alpha). The step count
// is a define, so the loop unrolls; amounts only change uniforms.
#if STEPS > MAX_COLOR_STEPS  // MAX_COLOR_STEPS: shared with the OpenCL kernel (filters/plan.py)
#error "more fused colour steps than the planner makes"
#endif
#include "common/alpha.glsl"

uniform sampler2D u_source;
#if STEPS > 0
uniform mat3 u_matrix[STEPS];
uniform vec3 u_offset[STEPS];
#endif
uniform float u_alpha;

out vec4 frag_color;

void main() {
    vec4 p = SOURCE_VALUE(texelFetch(u_source, ivec2(gl_FragCoord.xy), 0));
    if (p.a <= 0.0) {
        frag_color = vec4(0.0);
        return;
    }
    vec3 c = p.rgb / p.a;
#if STEPS > 0
    for (int i = 0; i < STEPS; ++i) {
        c = clamp(u_matrix[i] * c + u_offset[i], 0.0, 1.0);
    }
#endif
    float a = p.a * u_alpha;
    frag_color = OUTPUT_VALUE(vec4(c * a, a));
}
