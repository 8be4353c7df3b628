// Area coverage of a target pixel by a rounded rectangle given in another space (a
// clip-path's inset / circle / ellipse, in its layer's px): each edge is measured in
// target pixels through the mapping's Jacobian, and the pixel square's overlap with
// the edge's half-plane is exact (not a one-pixel ramp), so slanted and curved edges
// get the coverage an area-sampling reference gives. Needs ellipse_distance
// (common/rrect.glsl).

// Fraction of a unit pixel square, centred at distance s inside a straight edge whose
// unit normal in target px is n: the CDF of the square's projection on n, a trapezoid
// (two boxes of widths |n.x| and |n.y| convolved).
float edge_coverage(float s, vec2 n) {
    n = abs(n);
    float a = max(n.x, n.y);
    float b = min(n.x, n.y);
    float u = s + 0.5 * (a + b);
    if (b < 1e-4) return clamp(u / a, 0.0, 1.0);  // axis-aligned: exact span coverage
    if (u <= 0.0) return 0.0;
    if (u >= a + b) return 1.0;
    if (u < b) return u * u / (2.0 * a * b);
    if (u <= a) return (u - 0.5 * b) / a;
    float v = a + b - u;
    return 1.0 - v * v / (2.0 * a * b);
}

// The length of that edge's line across the pixel: the density of the projection, the
// derivative of edge_coverage along s.
float edge_chord(float s, vec2 n) {
    n = abs(n);
    float a = max(n.x, n.y);
    float b = min(n.x, n.y);
    float u = s + 0.5 * (a + b);
    if (u <= 0.0 || u >= a + b) return 0.0;
    if (b < 1e-4) return 1.0 / a;
    if (u < b) return u / (a * b);
    if (u <= a) return 1.0 / a;
    return (a + b - u) / (a * b);
}

// Coverage of the band lo <= x <= hi (local px along one axis), the pixel at local x;
// g is the gradient of that local coordinate over target px: a local px is 1 / |g|
// target px. Exact for one or both edges of a band crossing the pixel.
float band_coverage(float x, float lo, float hi, vec2 g) {
    float k = length(g);
    vec2 n = g / k;
    return clamp(edge_coverage((x - lo) / k, n) + edge_coverage((hi - x) / k, n) - 1.0, 0.0, 1.0);
}

// jacobian: d(local)/d(target) (the linear part of target px -> local px). rect =
// (x0, y0, x1, y1), rx / ry: radii tl, tr, br, bl.
float shape_coverage(vec2 p, vec4 rect, vec4 rx, vec4 ry, mat2 jacobian) {
    mat2 jt = transpose(jacobian);  // local gradients -> target gradients
    // In a corner's quadrant the ellipse is the edge (the straight edges meet it as
    // tangents there): its coverage alone, so nothing is counted twice.
    vec2 r = vec2(0.0);
    vec2 c = vec2(0.0);
    if (rx.x > 0.0 && ry.x > 0.0 && p.x < rect.x + rx.x && p.y < rect.y + ry.x) {
        r = vec2(rx.x, ry.x); c = rect.xy + r;
    } else if (rx.y > 0.0 && ry.y > 0.0 && p.x > rect.z - rx.y && p.y < rect.y + ry.y) {
        r = vec2(rx.y, ry.y); c = vec2(rect.z - r.x, rect.y + r.y);
    } else if (rx.z > 0.0 && ry.z > 0.0 && p.x > rect.z - rx.z && p.y > rect.w - ry.z) {
        r = vec2(rx.z, ry.z); c = rect.zw - r;
    } else if (rx.w > 0.0 && ry.w > 0.0 && p.x < rect.x + rx.w && p.y > rect.w - ry.w) {
        r = vec2(rx.w, ry.w); c = vec2(rect.x + r.x, rect.w - r.y);
    }
    if (r.x > 0.0) {
        vec2 q = p - c;
        vec2 grad = q / (r * r);  // the ellipse's normal, in local px
        if (dot(grad, grad) <= 0.0) return 1.0;  // its centre: deep inside
        vec2 g = jt * normalize(grad);  // a unit local step along it, seen in target px
        float k = length(g);
        // ellipse_distance is in local px along the normal: 1 / |g| target px per local px
        float s = -ellipse_distance(q, r) / k;
        // The arc bends inside its tangent by t² κ / 2 at t px along it: over the chord
        // the tangent makes across the pixel (length L) that is L³ κ / 24 less area.
        // κ of x²/rx² + y²/ry² = 1 in local px, then seen through the mapping (a curve's
        // curvature under a linear map A: κ |det A| / |A t|³, A = jacobian⁻¹).
        vec2 f = 2.0 * q / (r * r);
        float curvature = (2.0 / (r.x * r.x) * f.y * f.y + 2.0 / (r.y * r.y) * f.x * f.x) / pow(length(f), 3.0);
        vec2 along = inverse(jacobian) * normalize(vec2(-f.y, f.x));
        curvature /= abs(determinant(jacobian)) * pow(length(along), 3.0);
        float chord = edge_chord(s, g / k);
        return clamp(edge_coverage(s, g / k) - chord * chord * chord * curvature / 24.0, 0.0, 1.0);
    }
    return band_coverage(p.x, rect.x, rect.z, jt * vec2(1.0, 0.0))
         * band_coverage(p.y, rect.y, rect.w, jt * vec2(0.0, 1.0));
}
