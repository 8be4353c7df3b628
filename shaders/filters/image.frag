// feImage: a picture placed in the image (filters/plan.py ImagePass). Output pixel p
// samples the picture bilinearly at q = u_step * p + u_origin (picture texel centres at
// integers) with its edge texels clamped, times the part of the pixel (q +- u_step / 2)
// the picture's fitted rect (-0.5 <= q < size - 0.5) covers: an image drawn as browsers
// draw one, anti-aliased edges. Transparent black outside u_clip (the primitive's
// subregion). The picture is straight RGBA8, each texel premultiplied before the taps
// are mixed (as the reference mixes premultiplied pixels).
#include "common/fetch.glsl"
#include "common/alpha.glsl"

uniform sampler2D u_picture;  // straight RGBA8
uniform vec2 u_step;          // picture px per output px
uniform vec2 u_origin;        // picture coordinates of output pixel (0, 0)
uniform ivec4 u_clip;         // x0, y0, x1, y1 (output px)

out vec4 frag_color;

vec4 premultiplied(vec4 c) { return vec4(c.rgb * c.a, c.a); }

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (p.x < u_clip.x || p.y < u_clip.y || p.x >= u_clip.z || p.y >= u_clip.w) {
        frag_color = OUTPUT_VALUE(vec4(0.0));
        return;
    }
    vec2 q = u_step * vec2(p) + u_origin;
    vec2 size = vec2(textureSize(u_picture, 0));
    vec2 cover = clamp((min(q + u_step * 0.5, size - 0.5) - max(q - u_step * 0.5, vec2(-0.5))) / u_step, 0.0, 1.0);
    q = clamp(q, vec2(0.0), size - 1.0);
    vec2 f = floor(q);
    vec2 t = q - f;
    vec4 a, b, c, d;
    fetch_quad(u_picture, ivec2(f), a, b, c, d);
    a = premultiplied(a);
    b = premultiplied(b);
    c = premultiplied(c);
    d = premultiplied(d);
    frag_color = OUTPUT_VALUE(mix(mix(a, b, t.x), mix(c, d, t.x), t.y) * (cover.x * cover.y));
}
