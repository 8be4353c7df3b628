#version 330 core
uniform sampler2D u_source; in vec2 v_uv; out vec4 o;
void main() { o = texture(u_source, v_uv); }
