#version 330 core
// The plainest textured quad: the baseline Lamina's composite pass is measured against.
uniform mat3 u_transform; uniform vec2 u_size; uniform vec2 u_target;
out vec2 v_uv;
void main() {
    vec2 c = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
    v_uv = c;
    vec2 p = (u_transform * vec3(c * u_size, 1.0)).xy;
    gl_Position = vec4(p / u_target * 2.0 - 1.0, 0.0, 1.0);
}
