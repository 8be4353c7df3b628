// feOffset: the (premultiplied) image moved by u_offset px, bilinear where fractional,
// transparent black coming in (filters/plan.py OffsetPass; a straight source is
// converted in a pass before it, as for every pass priced by its taps).
#include "common/fetch.glsl"
#include "common/alpha.glsl"

uniform sampler2D u_source;
uniform vec2 u_offset;  // px, y down

out vec4 frag_color;

void main() {
    frag_color = OUTPUT_VALUE(bilinear_or_clear(u_source, gl_FragCoord.xy - 0.5 - u_offset));
}
