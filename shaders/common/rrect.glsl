// Rounded rectangles with elliptical corners, as CSS border-radius draws them.
// Distances are in the units of p (layer px); negative inside, positive outside.

// Distance from an ellipse of radii r, for a point q relative to its centre. Uses
// f / |grad f| with f = |q / r| - 1: exact for circles, a close approximation for
// ellipses, and smooth, which is all anti-aliasing needs.
float ellipse_distance(vec2 q, vec2 r) {
    vec2 n = q / r;
    float k = length(n);
    float g = length(q / (r * r));
    return g > 0.0 ? (k - 1.0) * k / g : -min(r.x, r.y);
}

// rect = (x0, y0, x1, y1); rx, ry = corner radii in the order tl, tr, br, bl.
// The shape is the box intersected with each corner's ellipse, inside that corner.
float rrect_distance(vec2 p, vec4 rect, vec4 rx, vec4 ry) {
    float d = max(max(rect.x - p.x, p.x - rect.z), max(rect.y - p.y, p.y - rect.w));
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

// Pixel coverage of an edge at signed distance d (in pixels) from the pixel centre.
float coverage(float d) {
    return clamp(0.5 - d, 0.0, 1.0);
}
