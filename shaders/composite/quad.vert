// A layer's (or surface's) texture as a quad, mapped into the target by an affine
// matrix. The quad grows by u_expand (about one target pixel) so that the fragment
// shader can anti-alias edges of rotated or fractional quads.
uniform mat3 u_transform;     // source px -> target px
uniform vec2 u_quad_size;     // source size in px
uniform vec2 u_target_size;
uniform vec2 u_expand;        // in source px, per axis

out vec2 v_local;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
    vec2 local = mix(-u_expand, u_quad_size + u_expand, corner);
    vec2 target = (u_transform * vec3(local, 1.0)).xy;
    v_local = local;
    // Row 0 of every Lamina texture is the top of the image (CSS y down).
    gl_Position = vec4(target / u_target_size * 2.0 - 1.0, 0.0, 1.0);
}
