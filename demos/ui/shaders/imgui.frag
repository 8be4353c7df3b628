#version 330
uniform sampler2D atlas;
in vec2 v_uv;
in vec4 v_color;
out vec4 color;
void main() {
    color = v_color * texture(atlas, v_uv);
}
