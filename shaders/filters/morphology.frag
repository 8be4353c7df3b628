// One direction of feMorphology (Filter Effects 1) on premultiplied RGBA: the minimum
// (erode) or maximum (dilate) of each channel over 2 radius + 1 texels along u_axis.
// Outside the input is transparent black: an erode whose window leaves the texture is
// transparent; a dilate may skip those taps (every value is >= 0, so a max with 0
// changes nothing). The texels' own values come out, so nothing is rounded.
#include "common/alpha.glsl"

uniform sampler2D u_source;
uniform ivec2 u_axis;      // (1, 0) or (0, 1)
uniform int u_radius;      // texels on each side
uniform int u_dilate;      // 1: max (dilate), 0: min (erode)

out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int along = u_axis.x != 0 ? p.x : p.y;
    int size = u_axis.x != 0 ? textureSize(u_source, 0).x : textureSize(u_source, 0).y;
    int lo = max(-u_radius, -along);
    int hi = min(u_radius, size - 1 - along);
    vec4 v = vec4(0.0);
    if (u_dilate != 0) {
        for (int i = lo; i <= hi; ++i) v = max(v, SOURCE_VALUE(texelFetch(u_source, p + i * u_axis, 0)));
    } else if (lo == -u_radius && hi == u_radius) {
        v = vec4(1.0);
        for (int i = lo; i <= hi; ++i) v = min(v, SOURCE_VALUE(texelFetch(u_source, p + i * u_axis, 0)));
    }
    frag_color = OUTPUT_VALUE(v);
}
