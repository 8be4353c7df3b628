// A layer's (or surface's) texture as a quad, mapped into the target by a 2D affine or
// projective matrix (a flattened 3D transform: its third row is w). w goes to
// gl_Position.w, so GL clips the quad in homogeneous space where it reaches behind the
// eye (w <= 0) before the divide, and v_local is interpolated perspective-correctly. The part drawn (u_draw_rect, in source px) is the quad grown by about one
// target pixel, so the fragment shader can anti-alias rotated or fractional edges, and
// cut to what can reach the target, so huge scales keep float precision.
uniform mat3 u_transform;     // source px -> target px
uniform vec4 u_draw_rect;     // x0, y0, x1, y1 in source px
uniform vec2 u_target_size;
uniform int u_cell;           // 1: u_draw_rect is one cell of a split projected draw (executor._projected_cells)

out vec2 v_local;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
    // A cell's corners are chosen, not mixed (mix(x, y, 1) may round off y): the cells
    // of a split projected draw share their corners, and only the very same floats make
    // GL rasterise each pixel in exactly one cell. A whole draw keeps its floats.
    vec2 local = u_cell == 1
        ? vec2(corner.x > 0.5 ? u_draw_rect.z : u_draw_rect.x, corner.y > 0.5 ? u_draw_rect.w : u_draw_rect.y)
        : mix(u_draw_rect.xy, u_draw_rect.zw, corner);
    vec3 target = u_transform * vec3(local, 1.0);   // (x w, y w, w) in target px
    v_local = local;
    // Row 0 of every Lamina texture is the top of the image (CSS y down). For an affine
    // matrix w = 1 and this is target / size * 2 - 1, the very floats of a 2D draw.
    gl_Position = vec4(target.xy / u_target_size * 2.0 - target.z, 0.0, target.z);
}
