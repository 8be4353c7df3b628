// feDiffuseLighting / feSpecularLighting (filters/plan.py LightingPass): the 3x3 alphas
// around the pixel (a missing neighbour past the input's edge, u_rect, replaced by the
// centre's row or column, as the spec's edge kernels need), then common/lighting.h,
// shared with OpenCL.
#include "common/alpha.glsl"
#define float4 vec4
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#define SVG_FLOAT4(r, g, b, a) vec4(r, g, b, a)
#include "common/svg_color.h"
#include "common/lighting.h"

uniform sampler2D u_source;
uniform int u_kind;          // LightKind: 0 distant, 1 point, 2 spot
uniform int u_specular;
uniform int u_linear;
uniform vec3 u_light;        // distant: unit vector to it; else its position in px
uniform vec3 u_spot;         // spot: the unit vector it points along
uniform float u_spot_exponent;
uniform float u_cone_cos;    // -2: no cone
uniform float u_surface_scale;
uniform float u_constant;    // kd or ks
uniform float u_exponent;    // specularExponent
uniform vec3 u_color;        // lighting-color in the primitive's space
uniform vec2 u_unit;         // the normal's kernel step in px (kernelUnitLength; 1 1 without it)
uniform ivec4 u_rect;        // the input's pixels (x0, y0, x1, y1): its subregion, where the edge kernels start

out vec4 frag_color;

float alpha_at(int x, int y) {
    return texelFetch(u_source, ivec2(x, y), 0).a;  // alpha: the same straight or premultiplied
}

// alpha between pixel centres (at integers), bilinear in float (kernelUnitLength), read
// within the pixels [lo, hi)
float alpha_between(vec2 q, ivec2 lo, ivec2 hi) {
    ivec2 i0 = clamp(ivec2(floor(q)), lo, hi - 1), i1 = min(i0 + 1, hi - 1);
    vec2 f = q - vec2(i0);
    return mix(mix(alpha_at(i0.x, i0.y), alpha_at(i1.x, i0.y), f.x),
               mix(alpha_at(i0.x, i1.y), alpha_at(i1.x, i1.y), f.x), f.y);
}

void main() {
    ivec2 size = textureSize(u_source, 0);
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec2 at = vec2(p);
    ivec2 r0 = min(u_rect.xy, size), r1 = min(u_rect.zw, size);
    float inside = svg_light_inside(p.x, r0.x, r1.x) * svg_light_inside(p.y, r0.y, r1.y);
    ivec2 lo = ivec2(svg_light_lo(inside, p.x, r0.x), svg_light_lo(inside, p.y, r0.y));
    ivec2 hi = ivec2(svg_light_hi(inside, p.x, r1.x), svg_light_hi(inside, p.y, r1.y));
    vec4 has = inside * vec4(svg_light_has(at.x, u_unit.x, -1.0, lo.x, hi.x),   // left, right, up, down
                             svg_light_has(at.x, u_unit.x, 1.0, lo.x, hi.x),
                             svg_light_has(at.y, u_unit.y, -1.0, lo.y, hi.y),
                             svg_light_has(at.y, u_unit.y, 1.0, lo.y, hi.y));
    float a[9];  // row by row; a missing neighbour's row / column is the centre's
    if (u_unit == vec2(1.0)) {
        int xl = max(p.x - 1, lo.x), xr = min(p.x + 1, hi.x - 1);
        int yu = max(p.y - 1, lo.y), yd = min(p.y + 1, hi.y - 1);
        a = float[9](alpha_at(xl, yu), alpha_at(p.x, yu), alpha_at(xr, yu), alpha_at(xl, p.y), alpha_at(p.x, p.y),
                     alpha_at(xr, p.y), alpha_at(xl, yd), alpha_at(p.x, yd), alpha_at(xr, yd));
    } else {
        vec3 xs = vec3(has.x > 0.0 ? at.x - u_unit.x : at.x, at.x, has.y > 0.0 ? at.x + u_unit.x : at.x);
        vec3 ys = vec3(has.z > 0.0 ? at.y - u_unit.y : at.y, at.y, has.w > 0.0 ? at.y + u_unit.y : at.y);
        for (int j = 0; j < 3; ++j) {
            for (int i = 0; i < 3; ++i) a[3 * j + i] = alpha_between(vec2(xs[i], ys[j]), lo, hi);
        }
    }
    vec4 c = svg_lighting(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], has.x, has.y, has.z, has.w,
                          gl_FragCoord.x, gl_FragCoord.y, u_kind, u_light.x, u_light.y, u_light.z,
                          u_spot.x, u_spot.y, u_spot.z, u_spot_exponent, u_cone_cos, u_surface_scale, u_specular,
                          u_constant, u_exponent, u_color.r, u_color.g, u_color.b, u_linear);
    frag_color = OUTPUT_VALUE(c);
}
