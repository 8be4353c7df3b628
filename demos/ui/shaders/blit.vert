#version 330
// A quad over the viewport; v is flipped because Lamina's frames store the top row
// first (so no CPU flip of the pixels is needed).
out vec2 uv;
void main() {
    vec2 corner = vec2(gl_VertexID & 1, gl_VertexID >> 1);
    uv = vec2(corner.x, 1.0 - corner.y);
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
