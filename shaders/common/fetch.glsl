// texelFetch that reads transparent black outside the texture: CSS filters use edge
// mode "none". (On llvmpipe texelFetch is ~4x cheaper than a bilinear texture().)
vec4 fetch_or_clear(sampler2D tex, ivec2 p) {
    ivec2 size = textureSize(tex, 0);
    if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, size))) return vec4(0.0);
    return texelFetch(tex, p, 0);
}

// The 2x2 texels from i to i + 1, transparent outside. One bounds test for the whole
// block when it lies inside (nearly every pixel), per-texel tests only at the edges.
void fetch_quad(sampler2D tex, ivec2 i, out vec4 a, out vec4 b, out vec4 c, out vec4 d) {
    ivec2 size = textureSize(tex, 0);
    if (all(greaterThanEqual(i, ivec2(0))) && all(lessThan(i + 1, size))) {
        a = texelFetch(tex, i, 0);
        b = texelFetch(tex, i + ivec2(1, 0), 0);
        c = texelFetch(tex, i + ivec2(0, 1), 0);
        d = texelFetch(tex, i + ivec2(1, 1), 0);
    } else {
        a = fetch_or_clear(tex, i);
        b = fetch_or_clear(tex, i + ivec2(1, 0));
        c = fetch_or_clear(tex, i + ivec2(0, 1));
        d = fetch_or_clear(tex, i + ivec2(1, 1));
    }
}

// Bilinear sample at texel-index coordinates q (texel centres at integers), fading to
// transparent outside the texture.
vec4 bilinear_or_clear(sampler2D tex, vec2 q) {
    vec2 f = floor(q);
    vec2 t = q - f;
    ivec2 i = ivec2(f);
    if (t == vec2(0.0)) return fetch_or_clear(tex, i);  // whole-pixel offsets
    vec4 a, b, c, d;
    fetch_quad(tex, i, a, b, c, d);
    return mix(mix(a, b, t.x), mix(c, d, t.x), t.y);
}
