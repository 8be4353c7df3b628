// Rects of a layer's raster, given in its pixels (gpu.shadow_draws): the regions its
// outer box shadows are drawn over, with the corner each one's bite comes from.
in vec2 in_pos;        // texture px (gl_FragCoord's frame: y counts rows from row 0)
in vec4 in_pick;       // one-hot: tl, tr, br, bl (regions near one corner)
in vec2 in_side;       // that corner's sides: (0 left / 1 right, 0 top / 1 bottom)
uniform vec2 u_target_size;
flat out vec4 v_corner_pick;
flat out vec2 v_corner_side;

void main() {
    v_corner_pick = in_pick;
    v_corner_side = in_side;
    gl_Position = vec4(in_pos / u_target_size * 2.0 - 1.0, 0.0, 1.0);
}
