// Read back what lies under an element: each texel of the backdrop copy takes the
// target's pixel under it (u_to_source: copy texel -> target px; a whole-pixel
// translation is fetched exactly, an element's own space is sampled bilinearly).
// With a mirror box, texels outside it reflect the texels inside (edge pixels
// repeated: backdrop-filter's mirror edge mode, Filter Effects 2), so a blur of the
// copy never pulls in what lies outside the element's border box.
uniform sampler2D u_source;
uniform mat3 u_to_source;
uniform vec4 u_mirror;    // x0, y0, x1, y1 in copy texels; x1 <= x0: no mirroring
uniform int u_exact;

out vec4 frag_color;

// Fold a texel centre into [lo, hi) by reflection about the edges (a triangle wave,
// so reflections repeat where the pad is wider than the box).
float fold(float c, float lo, float hi) {
    float w = hi - lo;
    float t = mod(c - lo, 2.0 * w);
    return lo + (t < w ? t : 2.0 * w - t);
}

void main() {
    vec2 c = gl_FragCoord.xy;
    if (u_mirror.z > u_mirror.x && u_mirror.w > u_mirror.y) {
        c = vec2(fold(c.x, u_mirror.x, u_mirror.z), fold(c.y, u_mirror.y, u_mirror.w));
    }
    vec3 ph = u_to_source * vec3(c, 1.0);
    vec2 p = ph.xy / ph.z;  // z is 1 but where the element is projected (3D)
    vec2 size = vec2(textureSize(u_source, 0));
    if (u_exact == 1) {
        ivec2 q = ivec2(floor(p));
        bool inside = all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, ivec2(size)));
        frag_color = inside ? texelFetch(u_source, q, 0) : vec4(0.0);  // nothing painted there
    } else {
        // Bilinear with transparent outside the target (the sampler clamps to edge).
        vec2 t = p - 0.5;
        vec2 f = fract(t);
        ivec2 b = ivec2(floor(t));
        vec4 acc = vec4(0.0);
        for (int j = 0; j < 2; ++j) {
            for (int i = 0; i < 2; ++i) {
                ivec2 q = b + ivec2(i, j);
                bool inside = all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, ivec2(size)));
                float w = (i == 0 ? 1.0 - f.x : f.x) * (j == 0 ? 1.0 - f.y : f.y);
                acc += inside ? texelFetch(u_source, q, 0) * w : vec4(0.0);
            }
        }
        frag_color = acc;
    }
}
