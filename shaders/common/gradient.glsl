// CSS gradients: colour at position t along the gradient line (0 = first stop's line
// start, 1 = line end). Stops are premultiplied (CSS Images 3 interpolates there) and
// sorted; u_stop_hint is the transition hint as a fraction of each segment.
uniform vec4 u_stop_color[MAX_STOPS];
uniform float u_stop_pos[MAX_STOPS];
uniform float u_stop_hint[MAX_STOPS];
uniform int u_stop_count;
uniform int u_repeating;

vec4 gradient_color(float t) {
    int n = u_stop_count;
    float first = u_stop_pos[0];
    float last = u_stop_pos[n - 1];
    if (u_repeating != 0) {
        float span = last - first;
        if (span <= 0.0) return u_stop_color[n - 1];
        t = first + mod(t - first, span);
    }
    if (t <= first) return u_stop_color[0];
    if (t >= last) return u_stop_color[n - 1];
    for (int i = 0; i < MAX_STOPS - 1; ++i) {
        if (i + 1 >= n) break;
        float a = u_stop_pos[i];
        float b = u_stop_pos[i + 1];
        if (t < b) {
            float f = b > a ? (t - a) / (b - a) : 1.0;
            float h = u_stop_hint[i];
            if (h != 0.5) {
                // Hint at fraction h: the midpoint colour sits at h (CSS Images 3 §3.5.3).
                f = h <= 0.0 ? 1.0 : (h >= 1.0 ? 0.0 : pow(f, log(0.5) / log(h)));
            }
            return mix(u_stop_color[i], u_stop_color[i + 1], f);
        }
    }
    return u_stop_color[n - 1];
}
