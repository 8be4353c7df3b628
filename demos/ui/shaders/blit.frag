#version 330
// The frame as it is (premultiplied): written over the panel background with blending
// off it shows as the frame composited over black, which for an opaque page is the page.
// Fetched, not filtered (a quarter of the cost on llvmpipe): the viewport is the frame's
// size, or a whole multiple of it on a HiDPI screen.
uniform sampler2D image;
in vec2 uv;
out vec4 color;
void main() {
    ivec2 size = textureSize(image, 0);
    color = texelFetch(image, min(ivec2(uv * vec2(size)), size - 1), 0);
}
