// texelFetch that reads transparent black outside the texture: CSS filters use edge
// mode "none". (On llvmpipe texelFetch is ~4x cheaper than a bilinear texture().)
vec4 fetch_or_clear(sampler2D tex, ivec2 p) {
    ivec2 size = textureSize(tex, 0);
    if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, size))) return vec4(0.0);
    return texelFetch(tex, p, 0);
}

// Bilinear sample at texel-index coordinates q (texel centres at integers), built from
// four fetch_or_clear so that outside the texture fades to transparent.
vec4 bilinear_or_clear(sampler2D tex, vec2 q) {
    vec2 f = floor(q);
    vec2 t = q - f;
    ivec2 i = ivec2(f);
    vec4 a = mix(fetch_or_clear(tex, i), fetch_or_clear(tex, i + ivec2(1, 0)), t.x);
    vec4 b = mix(fetch_or_clear(tex, i + ivec2(0, 1)), fetch_or_clear(tex, i + ivec2(1, 1)), t.x);
    return mix(a, b, t.y);
}
