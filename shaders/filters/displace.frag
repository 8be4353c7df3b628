// feDisplacementMap (filters/plan.py DisplacePass): the pixel of A nearest to this one
// moved by amount x (map channel - 0.5), the map un-premultiplied (and in linearRGB when
// u_linear); transparent outside. Nearest, as filters/svg/reference.py samples it.
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#include "common/svg_color.h"
// A move of an 8-bit map that is not on a pixel boundary is at least |amount| / 65025 px
// from one; one on it computes up to ~|amount| 1e-7 off: 1e-5 px lands those where the
// float64 reference does for amounts up to ~100 px and moves no other.
#define DISPLACE_SNAP 1.0e-5

uniform sampler2D u_source;  // A: the image moved
uniform sampler2D u_second;  // the map
uniform vec2 u_amount;
uniform ivec2 u_channels;    // 0 R, 1 G, 2 B, 3 A
uniform int u_linear;

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 m = texelFetch(u_second, p, 0);
    vec2 c = vec2(svg_map_channel(m, u_channels.x, u_linear), svg_map_channel(m, u_channels.y, u_linear));
    // The move apart from the pixel's position (float error ~|amount| 1e-7, not x 1e-7),
    // snapped by DISPLACE_SNAP: an 8-bit map often moves to exactly half a pixel.
    vec2 d = floor(u_amount * (c - 0.5) + 0.5 + DISPLACE_SNAP);
    ivec2 size = textureSize(u_source, 0);
    ivec2 s = p + ivec2(d);
    vec4 v = (s.x >= 0 && s.y >= 0 && s.x < size.x && s.y < size.y) ? SOURCE_VALUE(texelFetch(u_source, s, 0)) : vec4(0.0);
    frag_color = OUTPUT_VALUE(v);
}
