// Composite one quad: bilinear sample, analytic edge coverage, the overflow clips of
// its ancestors (rounded rects in their own layer space), and opacity. The output is
// premultiplied; the pipeline blends it with ONE, ONE_MINUS_SRC_ALPHA (source-over).
// The BLEND variant composites with a mix-blend-mode instead: it reads the backdrop
// from a copy of the target taken just before (GL blending is off for it) and writes
// the blended result where the quad covers, the backdrop itself elsewhere.
// MASK_COUNT masks (a mask-image, a polygon clip-path's coverage) multiply into the
// coverage after the clips, before opacity and blending, as CSS orders them.
#include "common/rrect.glsl"
#include "common/shape_coverage.glsl"
#if BLEND
#include "common/blend.glsl"
uniform sampler2D u_backdrop;
uniform vec2 u_backdrop_origin;   // target px of the copy's texel (0, 0)
uniform int u_blend_mode;         // BlendMode.index: a uniform, so a new mode compiles nothing
#endif

uniform sampler2D u_source;
uniform vec2 u_quad_size;
uniform float u_opacity;
uniform int u_exact;  // 1: placed at whole pixels, so each fragment is a texel centre: fetch it
uniform vec4 u_hard_edges;  // left, top, right, bottom: 1 where a neighbouring tile continues the quad
// A projected quad's four edges as lines in target px (left, top, right, bottom), each
// (nx, ny, c) with a unit normal pointing inside: dot(edge, (x, y, 1)) is a pixel
// centre's distance from that edge in target px, exact under a projection too (a
// straight source edge stays straight). A tile edge that a neighbour continues is
// (0, 0, big): never faded.
uniform vec3 u_edges[4];
uniform int u_projected;   // 1: a projective (3D) map: edges from u_edges; 0: affine
// EDGE_AREA 0: every pixel centre this draw reaches lies HALF_DIAGONAL or more inside
// all four edges (the inset cell of a split projected draw, executor._projected_cells),
// so its coverage is 1 and it has no area code: llvmpipe skips code neither behind a
// per-pixel branch nor behind a uniform one, only code that is not compiled in.
#ifndef EDGE_AREA
#define EDGE_AREA 1
#endif
// A piece of a layer split in a 3D rendering context: kept where every half-plane
// (a, b, c) . (x, y, 1) >= 0 at the pixel centre (target px). Cut, not anti-aliased: the
// piece beside it, drawn in its own place in depth order, covers the rest.
#define MAX_SPLIT_PLANES 8
uniform int u_split_count;
uniform vec3 u_split_planes[MAX_SPLIT_PLANES];
#if CLIP_COUNT > 0
uniform mat3 u_clip_to_local[CLIP_COUNT];   // target px -> clip layer px
uniform vec4 u_clip_rect[CLIP_COUNT];       // x0, y0, x1, y1
uniform vec4 u_clip_rx[CLIP_COUNT];
uniform vec4 u_clip_ry[CLIP_COUNT];
uniform vec2 u_clip_px[CLIP_COUNT];         // one target px in clip px, per clip axis
uniform float u_clip_kind[CLIP_COUNT];      // 0: an overflow clip; 1: a clip-path (area coverage)
#endif
#if MASK_COUNT > 0
uniform sampler2D u_mask[MASK_COUNT];
uniform mat3 u_mask_to_texel[MASK_COUNT];   // target px -> mask texel
uniform vec2 u_mask_mode[MASK_COUNT];       // x: 1 = luminance (else alpha); y: 1 = at texel centres

// The mask value at this fragment: alpha, or luminance times alpha (the texel is
// premultiplied, so its weighted colour already is): CSS Masking 1 §6.3 with the
// luminanceToAlpha coefficients, in sRGB. Nothing outside the mask texture shows.
float mask_value(sampler2D mask, mat3 to_texel, vec2 mode) {
    vec3 qh = to_texel * vec3(gl_FragCoord.xy, 1.0);
    vec2 q = qh.xy / qh.z;  // z is 1 but under a projected (3D) mask
    vec2 size = vec2(textureSize(mask, 0));
    vec4 m;
    if (mode.y > 0.5) {
        if (any(lessThan(q, vec2(0.0))) || any(greaterThanEqual(q, size))) return 0.0;
        m = texelFetch(mask, ivec2(floor(q)), 0);
    } else {
        m = texture(mask, q / size);  // its border texels are transparent: it fades out
    }
    return mode.x > 0.5 ? dot(m.rgb, vec3(0.2125, 0.7154, 0.0721)) : m.a;
}
#endif

in vec2 v_local;
out vec4 frag_color;

#define HALF_DIAGONAL 0.70711  // a pixel centre this far inside an edge has all its pixel inside

#if EDGE_AREA
// Narrow the part s = (from, to) of the line P + s D to where m . x + c >= 0
// (Liang-Barsky); an empty part ends with from >= to.
vec2 clip_part(vec2 s, vec2 P, vec2 D, vec2 m, float c) {
    float inside = dot(m, P) + c;
    float along = dot(m, D);
    if (along == 0.0) return inside < 0.0 ? vec2(1.0, 0.0) : s;
    float r = -inside / along;
    return along > 0.0 ? vec2(max(s.x, r), s.y) : vec2(s.x, min(s.y, r));
}

// What the part s of the line P + s D adds to twice the area it bounds (Green's theorem).
float twice_swept(vec2 P, vec2 D, vec2 s) {
    if (s.x >= s.y) return 0.0;
    vec2 a = P + s.x * D;
    vec2 b = P + s.y * D;
    return a.x * b.y - b.x * a.y;
}

// The area of this pixel (the unit square about its centre) inside the half-planes of
// u_edges, given the centre's distances ``d`` from them, by Green's theorem over the
// region's boundary: each side of the square cut to the edges' inside, then each
// edge's line cut to the square and to the other edges' inside, each directed with
// the region on its left. Straight code with fixed indices: llvmpipe runs it for every
// pixel of the quad whatever the branch around it says, and arrays indexed at run time
// (cutting the square into a polygon) cost it several times more.
float pixel_area_inside_edges(vec4 d) {
    const vec2 corner[4] = vec2[4](vec2(-0.5, -0.5), vec2(0.5, -0.5), vec2(0.5, 0.5), vec2(-0.5, 0.5));
    const vec2 side[4] = vec2[4](vec2(1.0, 0.0), vec2(0.0, 1.0), vec2(-1.0, 0.0), vec2(0.0, -1.0));
    const vec2 inward[4] = vec2[4](vec2(1.0, 0.0), vec2(-1.0, 0.0), vec2(0.0, 1.0), vec2(0.0, -1.0));  // the square: inward . x + 0.5 >= 0
    float twice = 0.0;
    for (int i = 0; i < 4; ++i) {
        vec2 s = vec2(0.0, 1.0);
        for (int k = 0; k < 4; ++k) s = clip_part(s, corner[i], side[i], u_edges[k].xy, d[k]);
        twice += twice_swept(corner[i], side[i], s);
    }
    for (int k = 0; k < 4; ++k) {
        vec2 n = u_edges[k].xy;
        vec2 P = -d[k] * n;           // the line's point nearest the centre (n is a unit normal)
        vec2 D = vec2(n.y, -n.x);     // the inside (n) on its left
        vec2 s = vec2(-1.0, 1.0);     // past the square either way (its half diagonal is < 1)
        for (int i = 0; i < 4; ++i) s = clip_part(s, P, D, inward[i], 0.5);
        for (int j = 0; j < 4; ++j) if (j != k) s = clip_part(s, P, D, u_edges[j].xy, d[j]);
        if (abs(d[k]) < HALF_DIAGONAL) twice += twice_swept(P, D, s);
    }
    return clamp(0.5 * twice, 0.0, 1.0);
}
#endif

void main() {
    vec2 p = v_local;
    for (int i = 0; i < u_split_count; ++i) {
        // A pixel centre on a cut belongs to one piece only (the two pieces' planes are
        // exact negatives, graph.contexts3d): the side the normal points to +x (or +y).
        vec3 h = u_split_planes[i];
        float d = dot(h, vec3(gl_FragCoord.xy, 1.0));
        if (d < 0.0 || d == 0.0 && !(h.x > 0.0 || h.x == 0.0 && h.y > 0.0)) discard;
    }
    // A tile's edge shared with its neighbour is not anti-aliased: each pixel belongs
    // to the tile its centre falls in, so the two meet without a seam.
    if (p.x < 0.0 && u_hard_edges.x > 0.5 || p.y < 0.0 && u_hard_edges.y > 0.5
        || p.x >= u_quad_size.x && u_hard_edges.z > 0.5 || p.y >= u_quad_size.y && u_hard_edges.w > 0.5) discard;
    // Edge coverage ramps over one target pixel across each edge, by the pixel centre's
    // distance from the edge in target px (cc and Skia fade quad edges so).
    float cov;
    if (u_projected == 1) {
        // From the edges' lines, not from derivatives of the source position: under a
        // steep projection those change across a pixel (and llvmpipe takes them once
        // per 2x2 block), so the fringe came out too wide and spilled past the polygon.
        // The pixel's area inside all four edges, so a corner that a steep projection
        // makes acute is not the product of its two edges' coverages.
        cov = 1.0;
#if EDGE_AREA
        vec3 at = vec3(gl_FragCoord.xy, 1.0);
        vec4 d = vec4(dot(u_edges[0], at), dot(u_edges[1], at), dot(u_edges[2], at), dot(u_edges[3], at));
        if (any(lessThan(d, vec4(HALF_DIAGONAL)))) cov = pixel_area_inside_edges(d);
#endif
    } else {
        // An affine map: one target pixel measured in source px along each source axis
        // is exact, and so is the distance it gives. (The span is widened at a hard
        // edge; with none the floats are those of a plain quad.)
        vec2 px = max(vec2(length(vec2(dFdx(p.x), dFdy(p.x))), length(vec2(dFdx(p.y), dFdy(p.y)))), vec2(1e-6));
        vec4 widen = u_hard_edges * 2.0 * vec4(px, px);
        cov = span_coverage(p.x, -widen.x, u_quad_size.x + widen.z, 0.5 * px.x)
            * span_coverage(p.y, -widen.y, u_quad_size.y + widen.w, 0.5 * px.y);
    }
#if CLIP_COUNT > 0
    for (int i = 0; i < CLIP_COUNT; ++i) {
        vec3 qh = u_clip_to_local[i] * vec3(gl_FragCoord.xy, 1.0);
        vec2 q = qh.xy / qh.z;  // z is 1 but for the clip of a projected (3D) layer
        if (u_clip_kind[i] > 0.5) {
            cov *= shape_coverage(q, u_clip_rect[i], u_clip_rx[i], u_clip_ry[i], mat2(u_clip_to_local[i]));
        } else {
            cov *= rrect_coverage(q, u_clip_rect[i], u_clip_rx[i], u_clip_ry[i], u_clip_px[i]);
        }
    }
#endif
#if MASK_COUNT > 0
    cov *= mask_value(u_mask[0], u_mask_to_texel[0], u_mask_mode[0]);
#endif
#if MASK_COUNT > 1
    cov *= mask_value(u_mask[1], u_mask_to_texel[1], u_mask_mode[1]);
#endif
    if (cov <= 0.0) discard;
    // texelFetch costs about a quarter of a bilinear fetch on llvmpipe.
    vec4 texel = u_exact == 1 ? texelFetch(u_source, ivec2(floor(p)), 0) : texture(u_source, p / vec2(textureSize(u_source, 0)));
#if BLEND
    vec4 src = texel * u_opacity;
    vec4 dst = texelFetch(u_backdrop, ivec2(floor(gl_FragCoord.xy - u_backdrop_origin)), 0);
    // The blend is linear in the source's coverage (Compositing 1 §5.8), so a partly
    // covered pixel is the mix of the backdrop and the fully covered result.
    frag_color = mix(dst, blend_composite(src, dst, u_blend_mode), min(cov, 1.0));
#else
    frag_color = texel * (cov * u_opacity);
#endif
}
