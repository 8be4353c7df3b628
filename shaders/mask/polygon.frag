// A polygon clip-path's coverage, one texel per layer px, written as premultiplied
// white times coverage (an alpha mask).
//
// Most texels are crossed by one edge, or by the two edges of one vertex: there the
// area is exact in one pass over the edges — for every edge, the area of the texel
// between the edge and the texel's right side, signed by the edge's direction, is
// added up, which is the integral of the winding number over the texel (as font
// rasterizers accumulate it); nonzero takes min(|w|, 1), even-odd folds w onto [0, 1].
// That is exact wherever the texel holds only two regions. Where edges that are not
// neighbours meet in a texel (a self-intersection, where three or four regions meet)
// the texel is measured again along STRIPS horizontal lines: the crossings on each
// line are sorted and the fill rule applied span by span, exactly along the line.
uniform vec2 u_points[MAX_POLYGON_POINTS];  // vertices in texture px
uniform int u_point_count;
uniform int u_evenodd;

out vec4 frag_color;

const int STRIPS = 16;
const int MAX_HITS = 8;  // crossings of one line inside one texel kept (more: the rest ignored)

// The integral of clamp(t, 0, 1) from 0 to x.
float ramp_integral(float x) {
    return x <= 0.0 ? 0.0 : (x <= 1.0 ? 0.5 * x * x : x - 0.5);
}

// Signed area of the unit texel [0, 1]^2 right of the edge a -> b (texel-relative
// coordinates, so the squares below stay small and exact in float32).
float edge_area(vec2 a, vec2 b) {
    float y0 = clamp(a.y, 0.0, 1.0);
    float y1 = clamp(b.y, 0.0, 1.0);
    if (y0 == y1) return 0.0;
    float slope = (b.x - a.x) / (b.y - a.y);
    float x0 = a.x + (y0 - a.y) * slope;
    float x1 = a.x + (y1 - a.y) * slope;
    // The mean of clamp(x, 0, 1) along the clipped edge (x is linear in y there).
    float mean = abs(x1 - x0) < 1e-6 ? clamp(0.5 * (x0 + x1), 0.0, 1.0)
                                      : (ramp_integral(x1) - ramp_integral(x0)) / (x1 - x0);
    return (y1 - y0) * (1.0 - mean);
}

// Does the segment a -> b touch the texel [0, 1]^2 (grown by a hair)? Separating axes:
// x, y and the segment's normal.
bool touches(vec2 a, vec2 b) {
    const float e = 1e-3;
    if (max(a.x, b.x) < -e || min(a.x, b.x) > 1.0 + e || max(a.y, b.y) < -e || min(a.y, b.y) > 1.0 + e) return false;
    vec2 n = vec2(a.y - b.y, b.x - a.x);
    return abs(dot(n, vec2(0.5) - a)) <= 0.5 * (abs(n.x) + abs(n.y)) + e * length(n);
}

float fill(int w) {
    return u_evenodd == 1 ? float(w & 1) : (w != 0 ? 1.0 : 0.0);
}

// Coverage measured along STRIPS lines across the texel at `origin` (texture px).
float strip_coverage(vec2 origin) {
    float total = 0.0;
    for (int k = 0; k < STRIPS; ++k) {
        float y = origin.y + (float(k) + 0.5) / float(STRIPS);
        int w = 0;  // the winding number left of the texel
        float xs[MAX_HITS];
        int ds[MAX_HITS];
        int n = 0;
        for (int i = 0; i < u_point_count; ++i) {
            vec2 a = u_points[i];
            vec2 b = u_points[i + 1 < u_point_count ? i + 1 : 0];
            if ((a.y <= y) == (b.y <= y)) continue;  // half-open: a vertex on the line counts once
            float x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y) - origin.x;
            int d = b.y > a.y ? 1 : -1;
            if (x <= 0.0) {
                w += d;
            } else if (x < 1.0 && n < MAX_HITS) {
                int j = n;  // insertion sort: a line meets few edges inside one texel
                while (j > 0 && xs[j - 1] > x) {
                    xs[j] = xs[j - 1];
                    ds[j] = ds[j - 1];
                    --j;
                }
                xs[j] = x;
                ds[j] = d;
                ++n;
            }
        }
        float prev = 0.0;
        float cov = 0.0;
        for (int j = 0; j < n; ++j) {
            cov += (xs[j] - prev) * fill(w);
            w += ds[j];
            prev = xs[j];
        }
        total += cov + (1.0 - prev) * fill(w);
    }
    return total / float(STRIPS);
}

void main() {
    vec2 origin = floor(gl_FragCoord.xy);  // the texel's corner
    float winding = 0.0;
    int touching = 0;
    int first = -1;
    bool tangled = false;  // edges that are not neighbours meet here
    for (int i = 0; i < u_point_count; ++i) {
        int next = i + 1 < u_point_count ? i + 1 : 0;
        vec2 a = u_points[i] - origin;
        vec2 b = u_points[next] - origin;
        winding += edge_area(a, b);
        if (touches(a, b)) {
            if (touching == 0) {
                first = i;
            } else if (touching > 1 || !(i == first + 1 || (first == 0 && i == u_point_count - 1))) {
                tangled = true;
            }
            ++touching;
        }
    }
    float cov;
    if (tangled) {
        cov = strip_coverage(origin);
    } else {
        cov = u_evenodd == 1 ? abs(winding - 2.0 * floor(0.5 * winding + 0.5)) : min(abs(winding), 1.0);
    }
    frag_color = vec4(clamp(cov, 0.0, 1.0));
}
