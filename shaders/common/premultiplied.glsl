// Premultiplied-alpha source-over: what every Lamina pass blends with.
vec4 over(vec4 src, vec4 dst) {
    return src + dst * (1.0 - src.a);
}
