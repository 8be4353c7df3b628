// An SVG primitive subregion (filters/plan.py RegionPass): the input inside u_rect
// (x0, y0, x1, y1 in whole pixels), transparent black outside; with u_tiled, the input's
// u_tile rect repeated across u_rect from the tile's corner (feTile); with u_tiled 2,
// reflected about its edges, edge pixels repeated (a backdrop's mirror tile mode).
#include "common/alpha.glsl"

uniform sampler2D u_source;
uniform ivec4 u_rect;
uniform ivec4 u_tile;
uniform int u_tiled;

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (any(lessThan(p, u_rect.xy)) || any(greaterThanEqual(p, u_rect.zw))) {
        frag_color = vec4(0.0);  // an un-premultiplied transparent black is transparent black too
        return;
    }
    if (u_tiled != 0) {
        ivec2 size = u_tile.zw - u_tile.xy;
        if (any(lessThanEqual(size, ivec2(0)))) {
            frag_color = vec4(0.0);
            return;
        }
        ivec2 d = p - u_tile.xy;
        if (u_tiled == 2) {
            ivec2 t = d - 2 * size * ivec2(floor(vec2(d) / vec2(2 * size)));  // in [0, 2 size)
            p = u_tile.xy + ivec2(t.x < size.x ? t.x : 2 * size.x - 1 - t.x, t.y < size.y ? t.y : 2 * size.y - 1 - t.y);
        } else {
            p = u_tile.xy + d - size * ivec2(floor(vec2(d) / vec2(size)));  // a floored modulo: tiles left of it too
        }
    }
    frag_color = OUTPUT_VALUE(SOURCE_VALUE(texelFetch(u_source, p, 0)));
}
