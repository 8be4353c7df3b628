// feTurbulence (filters/plan.py TurbulencePass): Perlin noise per pixel from the lattice
// the host computed with the spec's code; in linearRGB the noise is linear colour,
// written as sRGB; then the colour primitives that alone read it (svg colour steps, in
// float: 8-bit sRGB noise before a linearRGB colour primitive was up to 6 levels off).
// The octave loop is common/turbulence.h, shared with OpenCL.
#include "common/alpha.glsl"
#define float4 vec4
#define fabs abs
#define SVG_INT(x) int(x)
#define SVG_INT_TO_FLOAT(x) float(x)
#define SVG_POW(x, y) pow((x), (y))
#define SVG_SELECTOR(n) u_selector[(n) >> 2][(n) & 3]
#define SVG_GRADIENT_X(c, n) gradient_at(c, n).x
#define SVG_GRADIENT_Y(c, n) gradient_at(c, n).y
#define SVG_TABLES_DECL
#define SVG_TABLES_ARGS
#include "common/svg_color.h"
// the colour primitives fused after the noise:
#include "filters/svg_color_steps.glsl"

uniform ivec4 u_selector[64];   // selector value n at [n / 4][n % 4]
uniform vec4 u_gradient[512];   // channel c, entry n: (x, y) at float 2 (256 c + n)
uniform vec2 u_base;
uniform int u_octaves;
uniform int u_fractal;
uniform int u_stitching;
uniform ivec4 u_stitch;         // width, height, wrap x, wrap y of the first octave
uniform float u_pixel_scale;    // pixels per user unit
uniform int u_linear;
uniform vec2 u_origin;          // the element's pixel of image pixel (0, 0): a filter region's corner

out vec4 frag_color;

vec2 gradient_at(int c, int n) {
    int k = 256 * c + n;
    vec4 v = u_gradient[k >> 1];
    return (k & 1) == 0 ? v.xy : v.zw;
}

#include "common/turbulence.h"

void main() {
    vec2 p = (gl_FragCoord.xy + u_origin) / u_pixel_scale;  // the pixel's centre in user units
    vec4 c;
    for (int ch = 0; ch < 4; ++ch) {
        c[ch] = svg_turbulence(ch, p.x, p.y, u_base.x, u_base.y, u_octaves, u_fractal, u_stitching, u_stitch.x,
                               u_stitch.y, u_stitch.z, u_stitch.w);
    }
    if (u_linear != 0) {
        c.r = svg_linear_to_srgb(c.r);
        c.g = svg_linear_to_srgb(c.g);
        c.b = svg_linear_to_srgb(c.b);
    }
    c = svg_color_steps(c);
    frag_color = OUTPUT_VALUE(vec4(c.rgb * c.a, c.a));
}
