// A layer's (or surface's) texture as a quad, mapped into the target by an affine
// matrix. The part drawn (u_draw_rect, in source px) is the quad grown by about one
// target pixel, so the fragment shader can anti-alias rotated or fractional edges, and
// cut to what can reach the target, so huge scales keep float precision.
uniform mat3 u_transform;     // source px -> target px
uniform vec4 u_draw_rect;     // x0, y0, x1, y1 in source px
uniform vec2 u_target_size;

out vec2 v_local;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
    vec2 local = mix(u_draw_rect.xy, u_draw_rect.zw, corner);
    vec2 target = (u_transform * vec3(local, 1.0)).xy;
    v_local = local;
    // Row 0 of every Lamina texture is the top of the image (CSS y down).
    gl_Position = vec4(target / u_target_size * 2.0 - 1.0, 0.0, 1.0);
}
