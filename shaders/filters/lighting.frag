// feDiffuseLighting / feSpecularLighting (filters/plan.py LightingPass): the 3x3 alphas
// around the pixel (a missing neighbour past the image's edge replaced by the centre's row
// or column, as the spec's edge kernels need), then common/lighting.h, shared with OpenCL.
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

out vec4 frag_color;

float alpha_at(int x, int y) {
    return texelFetch(u_source, ivec2(x, y), 0).a;  // alpha: the same straight or premultiplied
}

void main() {
    ivec2 size = textureSize(u_source, 0);
    ivec2 p = ivec2(gl_FragCoord.xy);
    int xl = max(p.x - 1, 0), xr = min(p.x + 1, size.x - 1);
    int yu = max(p.y - 1, 0), yd = min(p.y + 1, size.y - 1);
    vec4 c = svg_lighting(alpha_at(xl, yu), alpha_at(p.x, yu), alpha_at(xr, yu),
                          alpha_at(xl, p.y), alpha_at(p.x, p.y), alpha_at(xr, p.y),
                          alpha_at(xl, yd), alpha_at(p.x, yd), alpha_at(xr, yd),
                          float(p.x > 0), float(p.x < size.x - 1), float(p.y > 0), float(p.y < size.y - 1),
                          gl_FragCoord.x, gl_FragCoord.y, u_kind, u_light.x, u_light.y, u_light.z,
                          u_spot.x, u_spot.y, u_spot.z, u_spot_exponent, u_cone_cos, u_surface_scale, u_specular,
                          u_constant, u_exponent, u_color.r, u_color.g, u_color.b, u_linear);
    frag_color = OUTPUT_VALUE(c);
}
