// Dear ImGui's vertices: pixel positions, atlas uv, straight-alpha colour.
#version 330
uniform mat4 projection;
in vec2 position;
in vec2 uv;
in vec4 color;
out vec2 v_uv;
out vec4 v_color;
void main() {
    v_uv = uv;
    v_color = color;
    gl_Position = projection * vec4(position, 0.0, 1.0);
}
