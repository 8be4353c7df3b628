// Straight <-> premultiplied alpha on 8-bit values, rounded exactly as lamina.images
// does it on the host (the numpy reference the tests hold these to):
//   premultiply:   p = (c a + 127) div 255
//   unpremultiply: c = min((p 255 + a div 2) div a, 255), and (0, 0, 0, 0) where a = 0
// The maths runs on integer-valued floats: every product is below 2^24, so exact, and
// each floor() divides x + 0.5 rather than x, which keeps the quotient at least
// 0.5 / 255 away from an integer, so a division rounded either way still floors right.

// The bytes an RGBA8 target stores for v: llvmpipe rounds v * 255 (a float product)
// half to even (measured on 16M values, near-ties included). GL lets other drivers
// round otherwise; there a fused un-premultiply may differ by the one unit they do.
vec4 bytes8(vec4 v) {
    return roundEven(clamp(v, 0.0, 1.0) * 255.0);
}

vec4 premultiply8(vec4 straight) {
    vec4 s = bytes8(straight);
    vec3 rgb = floor((s.rgb * s.a + 127.5) * (1.0 / 255.0));
    return vec4(rgb, s.a) * (1.0 / 255.0);
}

vec4 unpremultiply8(vec4 premultiplied) {
    vec4 p = bytes8(premultiplied);
    if (p.a == 0.0) return vec4(0.0);
    vec3 rgb = min(floor((p.rgb * 255.0 + floor(p.a * 0.5) + 0.5) / p.a), vec3(255.0));
    return vec4(rgb, p.a) * (1.0 / 255.0);
}

// What a pass reads from a texture of straight pixels and what it writes into one:
// filters.apply on straight RGBA premultiplies where its first passes read the upload
// (SOURCE_STRAIGHT) and un-premultiplies where its last pass writes (OUTPUT_STRAIGHT),
// so neither conversion costs a pass of its own.
#if SOURCE_STRAIGHT
#define SOURCE_VALUE(v) premultiply8(v)
#else
#define SOURCE_VALUE(v) (v)
#endif
#if OUTPUT_STRAIGHT
#define OUTPUT_VALUE(v) unpremultiply8(v)
#else
#define OUTPUT_VALUE(v) (v)
#endif
