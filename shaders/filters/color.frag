// Fused colour pass: STEPS colour ops (Filter Effects 1 feColorMatrix / component
// transfer), each an affine map of straight RGBA, applied in order with the clamp to
// [0, 1] after every step. The step count is a define, so the loop unrolls and the
// matrices are plain uniforms; animating amounts only changes uniforms.
uniform sampler2D u_source;
uniform mat4 u_matrix[STEPS];
uniform vec4 u_offset[STEPS];

out vec4 frag_color;

void main() {
    vec4 p = texelFetch(u_source, ivec2(gl_FragCoord.xy), 0);
    vec4 c = p.a > 0.0 ? vec4(p.rgb / p.a, p.a) : vec4(0.0);
    for (int i = 0; i < STEPS; ++i) {
        c = clamp(u_matrix[i] * c + u_offset[i], 0.0, 1.0);
    }
    frag_color = vec4(c.rgb * c.a, c.a);
}
