// A layer's outer box shadows, drawn into its raster under what is already there
// (gpu.shadow_draws blends "destination over": dst + src (1 - dst.a), so the layer's
// paint ends on top, exactly as over(paint, shadows) in one pass). The shadows are
// clipped out by the border box (CSS Backgrounds 3 §7.1): they show outside it only.
// Drawn over the regions of the raster the shadows can reach, the inside of the box
// left out, each region with the BS_MODE its corners need, and BS_CLIP where it
// touches the box.
#include "common/rrect.glsl"
#include "common/premultiplied.glsl"
#include "common/box_shadow.glsl"

uniform vec2 u_offset;   // the box's position in the texture
uniform vec2 u_size;     // the border box
uniform vec4 u_radii_x;  // its radii: tl, tr, br, bl
uniform vec4 u_radii_y;

out vec4 frag_color;

void main() {
    vec2 p = gl_FragCoord.xy - u_offset;
#if BS_CLIP
    float outer = rrect_coverage(p, vec4(0.0, 0.0, u_size), u_radii_x, u_radii_y, vec2(1.0));
    frag_color = outer_box_shadows(p) * (1.0 - outer);
#else
    frag_color = outer_box_shadows(p);  // a region off the box: nothing to clip
#endif
}
