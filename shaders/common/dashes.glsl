// Dashed and dotted borders (CSS Backgrounds 3 §4.2). The layout comes from
// lamina.compositor.dashes (per side: first dash or dot, period, dash length, count, and
// whether they are dots; per corner: half the length of its middle-line arc, 0 = square),
// so all this file does is find the dashes or dots near a pixel and cover it with them.
//
// Each side is walked in its own frame (side_frame): x along the side from its start
// corner, clockwise (top: left to right, right: top to bottom, bottom: right to left,
// left: bottom to top), y across the border from the outer edge inwards. A position s
// along the side's middle line is x on the straight part; on a rounded corner it is
// proportional to the angle on the corner's middle-line ellipse, 0 at the corner's
// midpoint (45 degrees), where the two sides' patterns meet.
// BORDER_DASHES is 1 for dashes only, 2 for dots as well (dotted borders); needs
// span_coverage (common/rrect.glsl).
uniform vec4 u_dash_start;   // per side (top, right, bottom, left): first dash start / dot centre
uniform vec4 u_dash_period;
uniform vec4 u_dash_length;  // dash length (dashes), unused for dots (their diameter is the width)
uniform vec4 u_dash_count;   // 0: too short for two; dashes: solid; dots: a stroke `period` long
uniform vec4 u_dash_dots;    // 1: round dots, 0: square-ended dashes (BORDER_DASHES 2 only)
uniform vec4 u_dash_caps;    // 1: also a square of the width at both ends (thin dots, as Blink)
uniform vec4 u_corner_arc;   // per corner (tl, tr, br, bl): half its middle-line arc; 0 = square

const float DASH_QUARTER_PI = 0.785398163397448310;

struct DashSide {
    float w;      // the side's border width
    float len;    // the side's outer length
    vec2 r0, r1;  // outer radii of its start / end corner, (along, across)
    vec2 m0, m1;  // radii of the middle line's ellipse at those corners
    float h0, h1; // half arcs of the corners (0: square; the side runs to the outer corner)
    float x0, x1; // where the straight part starts (from the start) and ends (from the end)
    float total;  // length of the side's middle line
};

vec2 side_frame(int i, vec2 p, vec2 size) {
    if (i == 0) return p;
    if (i == 1) return vec2(p.y, size.x - p.x);
    if (i == 2) return size - p;
    return vec2(size.y - p.y, p.x);
}

DashSide dash_side(int i, vec2 size, vec4 border, vec4 rx, vec4 ry) {
    DashSide d;
    int c0 = i;
    int c1 = (i + 1) & 3;
    bool horizontal = (i & 1) == 0;
    d.w = border[i];
    d.len = horizontal ? size.x : size.y;
    d.r0 = horizontal ? vec2(rx[c0], ry[c0]) : vec2(ry[c0], rx[c0]);
    d.r1 = horizontal ? vec2(rx[c1], ry[c1]) : vec2(ry[c1], rx[c1]);
    d.m0 = d.r0 - 0.5 * vec2(border[(i + 3) & 3], d.w);
    d.m1 = d.r1 - 0.5 * vec2(border[(i + 1) & 3], d.w);
    d.h0 = u_corner_arc[c0];
    d.h1 = u_corner_arc[c1];
    d.x0 = d.h0 > 0.0 ? d.r0.x : 0.0;
    d.x1 = d.h1 > 0.0 ? d.r1.x : 0.0;
    d.total = d.h0 + max(d.len - d.x0 - d.x1, 0.0) + d.h1;
    return d;
}

// Angle on a corner's middle-line ellipse (radii m) of a point at offset u = centre -
// point: 0 towards the neighbouring side, pi/2 towards this side's outer edge; and the
// length of its gradient (radians per px), for anti-aliasing along the arc.
float arc_angle(vec2 u, vec2 m, out float grad) {
    vec2 n = u / m;
    grad = length(vec2(n.y / m.x, n.x / m.y)) / max(dot(n, n), 1e-12);
    return atan(n.y, n.x);
}

// s of a point q (side frame); `scale` is how much s one px spans there; `corner` is
// -1 / 1 in the start / end corner's box (with its angle in `phi`), 0 elsewhere. (One
// corner's arithmetic, selected, not two branches: llvmpipe would run both.)
float side_position(DashSide d, vec2 q, out float scale, out float corner, out float phi) {
    bool in0 = d.h0 > 0.0 && q.x < d.r0.x && q.y < d.r0.y;
    bool in1 = !in0 && d.h1 > 0.0 && q.x > d.len - d.r1.x && q.y < d.r1.y;
    vec2 r = in1 ? d.r1 : d.r0;
    vec2 m = in1 ? d.m1 : d.m0;
    float h = in1 ? d.h1 : d.h0;
    vec2 local = in1 ? vec2(d.len - q.x, q.y) : q;
    float grad;
    float angle = arc_angle(r - local, max(m, vec2(1e-6)), grad);
    float along = (angle / DASH_QUARTER_PI - 1.0) * h;
    corner = in0 ? -1.0 : (in1 ? 1.0 : 0.0);
    phi = angle;
    scale = corner != 0.0 ? grad * h / DASH_QUARTER_PI : 1.0;
    return in0 ? along : (in1 ? d.total - along : d.h0 + q.x - d.x0);
}

// The point of the middle line at s (side frame).
vec2 side_point(DashSide d, float s) {
    bool arc0 = d.h0 > 0.0 && s < d.h0;
    bool arc1 = !arc0 && d.h1 > 0.0 && s > d.total - d.h1;
    float t = arc1 ? (d.total - s) / d.h1 : s / max(d.h0, 1e-6);
    float phi = DASH_QUARTER_PI * (1.0 + t);
    vec2 cs = vec2(cos(phi), sin(phi));
    vec2 on0 = d.r0 - d.m0 * cs;
    vec2 on1 = d.r1 - d.m1 * cs;
    return arc0 ? on0 : (arc1 ? vec2(d.len - on1.x, on1.y) : vec2(d.x0 + s - d.h0, 0.5 * d.w));
}

// Coverage along side i by its dashes at s, over a pixel spanning s +- h (h < a gap).
float dash_pattern(int i, DashSide d, float s, float h) {
    float n = u_dash_count[i];
    if (n < 0.5) return 1.0;
    float period = u_dash_period[i];
    float len = u_dash_length[i];
    float u = s - u_dash_start[i];
    float k0 = clamp(floor(u / period), 0.0, n - 1.0);
    float cov = span_coverage(u, k0 * period, k0 * period + len, h);
    if (k0 + 1.0 <= n - 1.0) cov += span_coverage(u, (k0 + 1.0) * period, (k0 + 1.0) * period + len, h);
    if (u_dash_caps[i] > 0.5) {
        cov += span_coverage(s, 0.0, d.w, h) + span_coverage(s, d.total - d.w, d.total, h);
    }
    return min(cov, 1.0);
}

#if BORDER_DASHES == 2
// Coverage of q by the nearest dots of side i (circles of the side's width): the two
// whose centres bracket s.
float dot_pattern(int i, DashSide d, vec2 q, float s) {
    float n = u_dash_count[i];
    float period = u_dash_period[i];
    float first = u_dash_start[i];
    if (n < 0.5) {
        // One round-capped stroke: distance to the segment between its end centres.
        vec2 a = side_point(d, first);
        vec2 ab = side_point(d, first + period) - a;
        float t = clamp(dot(q - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
        return clamp(0.5 * d.w - length(q - a - t * ab) + 0.5, 0.0, 1.0);
    }
    float k0 = clamp(floor((s - first) / period), 0.0, n - 1.0);
    float k1 = min(k0 + 1.0, n - 1.0);
    float dist = min(length(q - side_point(d, first + k0 * period)), length(q - side_point(d, first + k1 * period)));
    return clamp(0.5 * d.w - dist + 0.5, 0.0, 1.0);
}
#endif

// Where two sides cover a pixel (the corners) their coverages add as two draws in one
// layer do, as Blink's sides overlap there.
float union_coverage(float a, float b) {
    return a + b - a * b;
}

// Coverage of the pixel at p by a dashed or dotted border: `ring` is the solid border's
// coverage (outer minus inner rounded rectangle), `outer` the border box's. Dashes are
// cut from the ring; dots are drawn whole (they fit inside it). A pixel is looked at
// from the two sides it is nearest (the nearer of top and bottom, of right and left, by
// distance beyond their bands): llvmpipe runs every branch for every pixel, so the work
// per pixel is what costs.
float dashed_border_coverage(vec2 p, vec2 size, vec4 border, vec4 rx, vec4 ry, float ring, float outer) {
    if (ring <= 0.0) return 0.0;
    float dashes = 0.0;
    float dots = 0.0;
    int horizontal = p.y - border.x < size.y - p.y - border.z ? 0 : 2;
    int vertical = size.x - p.x - border.y < p.x - border.w ? 1 : 3;
    for (int j = 0; j < 2; ++j) {
        int i = j == 0 ? horizontal : vertical;
        if (border[i] <= 0.0) continue;
        DashSide d = dash_side(i, size, border, rx, ry);
        vec2 q = side_frame(i, p, size);
        float scale, corner, phi;
        float s = side_position(d, q, scale, corner, phi);
#if BORDER_DASHES == 2
        if (u_dash_dots[i] > 0.5) {
            if (corner != 0.0 || q.y < d.w + 1.0) dots = union_coverage(dots, dot_pattern(i, d, q, s));
            continue;
        }
#endif
        // A rounded corner is split at its midpoint, where both sides' patterns are the
        // same half dash (each side takes a hair more, so rounding leaves no seam); on
        // straight parts a side owns its band across.
        float region = corner != 0.0 ? step(DASH_QUARTER_PI - 1e-3, phi) : span_coverage(q.y, 0.0, d.w, 0.5);
        if (region > 0.0) dashes = union_coverage(dashes, region * dash_pattern(i, d, s, 0.5 * scale));
    }
    return max(min(ring, dashes), min(dots, outer));
}
