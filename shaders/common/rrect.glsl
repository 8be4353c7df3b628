// Rounded rectangles with elliptical corners, as CSS border-radius draws them, and the
// pixel coverage of their edges. Units are those of p (layer px); `px` is the size of
// one target pixel in those units, per axis (vec2(1.0) when rastering a layer at 1:1).

// Fraction of the pixel span [p - h, p + h] that lies inside [lo, hi]: the exact area
// coverage for axis-aligned edges, and right for boxes thinner than a pixel too.
float span_coverage(float p, float lo, float hi, float h) {
    // Written with distances to the edges, not p +- h, so that a pixel far inside is
    // exactly 1 even when h is tiny next to p (huge scales).
    return clamp((min(h, hi - p) + min(h, p - lo)) / (2.0 * h), 0.0, 1.0);
}

// Distance from an ellipse of radii r, for a point q relative to its centre. Uses
// f / |grad f| with f = |q / r| - 1: exact for circles, a close approximation for
// ellipses, and smooth, which is all anti-aliasing needs.
float ellipse_distance(vec2 q, vec2 r) {
    vec2 n = q / r;
    float k = length(n);
    float g = length(q / (r * r));
    return g > 0.0 ? (k - 1.0) * k / g : -min(r.x, r.y);
}

// Largest distance outside any rounded corner (a large negative number when p is in
// no corner region). rect = (x0, y0, x1, y1); rx, ry = radii in the order tl, tr, br, bl.
float corner_distance(vec2 p, vec4 rect, vec4 rx, vec4 ry) {
    float d = -1e9;
    vec2 r = vec2(rx.x, ry.x);
    vec2 c = rect.xy + r;
    if (r.x > 0.0 && r.y > 0.0 && p.x < c.x && p.y < c.y) d = max(d, ellipse_distance(p - c, r));
    r = vec2(rx.y, ry.y);
    c = vec2(rect.z - r.x, rect.y + r.y);
    if (r.x > 0.0 && r.y > 0.0 && p.x > c.x && p.y < c.y) d = max(d, ellipse_distance(p - c, r));
    r = vec2(rx.z, ry.z);
    c = rect.zw - r;
    if (r.x > 0.0 && r.y > 0.0 && p.x > c.x && p.y > c.y) d = max(d, ellipse_distance(p - c, r));
    r = vec2(rx.w, ry.w);
    c = vec2(rect.x + r.x, rect.w - r.y);
    if (r.x > 0.0 && r.y > 0.0 && p.x < c.x && p.y > c.y) d = max(d, ellipse_distance(p - c, r));
    return d;
}

// Coverage of the pixel centred at p by the rounded rectangle: exact area along the
// straight edges, a one-pixel linear ramp across the curved corners.
float rrect_coverage(vec2 p, vec4 rect, vec4 rx, vec4 ry, vec2 px) {
    vec2 h = 0.5 * px;
    float cov = span_coverage(p.x, rect.x, rect.z, h.x) * span_coverage(p.y, rect.y, rect.w, h.y);
    if (cov <= 0.0) return 0.0;
    return cov * clamp(0.5 - corner_distance(p, rect, rx, ry) / sqrt(px.x * px.y), 0.0, 1.0);
}
