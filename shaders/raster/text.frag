// Draw one greyscale coverage mask of a layer's text (or of one of its blurred
// shadows) over the layer's raster: premultiplied colour times coverage, blended
// source-over by the caller. The mask's texel (0, 0) has its corner at u_shift in
// target px; outside the mask nothing is drawn.
uniform sampler2D u_mask;
uniform vec2 u_shift;
uniform vec4 u_color;   // premultiplied
uniform int u_exact;    // 1: a whole-pixel shift, texels are read as they are

out vec4 frag_color;

void main() {
    vec2 p = gl_FragCoord.xy - u_shift;
    vec2 size = vec2(textureSize(u_mask, 0));
    float coverage = 0.0;
    if (u_exact == 1) {
        ivec2 t = ivec2(floor(p));
        if (all(greaterThanEqual(t, ivec2(0))) && all(lessThan(t, ivec2(size))))
            coverage = texelFetch(u_mask, t, 0).r;
    } else if (all(greaterThanEqual(p, vec2(0.0))) && all(lessThanEqual(p, size))) {
        coverage = texture(u_mask, p / size).r;  // a fractional shadow offset: bilinear
    }
    frag_color = u_color * coverage;
}
