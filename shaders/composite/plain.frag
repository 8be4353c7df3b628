// Composite a quad placed at whole pixels with no clip: every fragment is a texel
// centre, so there is no edge coverage to compute and no filtering to do. Most layers
// of a page take this path (measured: the frame composite of a 200-layer page drops
// toward the cost of the plainest possible textured draw).
uniform sampler2D u_source;
uniform float u_opacity;

in vec2 v_local;
out vec4 frag_color;

void main() {
    frag_color = texelFetch(u_source, ivec2(v_local), 0) * u_opacity;
}
