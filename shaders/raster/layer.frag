// Raster one layer's own content into its texture (premultiplied RGBA):
// background colour, then a gradient or image tiled from its positioning area, clipped
// to the rounded border box or, by background-clip, to the rounded padding box; then the
// border ring on top. One texel = one CSS px.
#include "common/rrect.glsl"
#include "common/premultiplied.glsl"
#if PAINT == PAINT_LINEAR || PAINT == PAINT_RADIAL || PAINT == PAINT_CONIC
#include "common/gradient.glsl"
#endif
#if PAINT == PAINT_CONIC
#include "common/conic.glsl"
#endif
#if BORDER_DASHES
#include "common/dashes.glsl"
#endif
#ifdef SHADOWS
#include "common/box_shadow.glsl"
#endif

uniform vec2 u_size;            // box size in px (may be fractional)
uniform vec2 u_offset;          // sub-pixel position of the box in the texture
uniform vec4 u_background;      // premultiplied
uniform vec4 u_radii_x;         // tl, tr, br, bl
uniform vec4 u_radii_y;
uniform vec4 u_border;          // widths: top, right, bottom, left
uniform vec4 u_border_color;    // premultiplied
uniform vec4 u_tile;            // one background tile: x, y, w, h
uniform vec2 u_repeat;          // 1 = the tile repeats along that axis
uniform vec4 u_background_clip; // the background's painting area: insets from the border box
                                // (top, right, bottom, left); zeros = the border box
#if PAINT == PAINT_LINEAR
uniform vec2 u_line_start;
uniform vec2 u_line_dir;
uniform float u_line_length;
#elif PAINT == PAINT_RADIAL
uniform vec2 u_center;
uniform vec2 u_radius;
#elif PAINT == PAINT_IMAGE
uniform sampler2D u_image;
#endif

out vec4 frag_color;

#if PAINT != PAINT_COLOR
// One axis of the tile: ``x`` in tile px (wrapped where the tile repeats), and how much
// of the pixel the tile covers along it. A tile edge on or past the box's own edge is
// not faded here: the box's coverage fades that edge already (twice squared it).
float tile_axis(inout float x, float start, float size, float box, float repeats) {
    if (repeats > 0.5) {
        x = mod(x, size);
        return 1.0;
    }
    return span_coverage(x, start <= 0.0 ? -1e30 : 0.0, start + size >= box ? 1e30 : size, 0.5);
}

vec4 paint_image(vec2 p) {
    vec2 local = p - u_tile.xy;
    float cov = tile_axis(local.x, u_tile.x, u_tile.z, u_size.x, u_repeat.x)
              * tile_axis(local.y, u_tile.y, u_tile.w, u_size.y, u_repeat.y);
    if (cov <= 0.0) return vec4(0.0);
#if PAINT == PAINT_LINEAR
    float t = dot(local - u_line_start, u_line_dir) / u_line_length;
    return gradient_color(t) * cov;
#elif PAINT == PAINT_RADIAL
    float t = length((local - u_center) / max(u_radius, vec2(1e-6)));
    return gradient_color(t) * cov;
#elif PAINT == PAINT_CONIC
    return gradient_color(conic_position(local)) * cov;
#else
    return texture(u_image, local / u_tile.zw) * cov;
#endif
}
#endif

void main() {
    vec2 p = gl_FragCoord.xy - u_offset;
    float outer = rrect_coverage(p, vec4(0.0, 0.0, u_size), u_radii_x, u_radii_y, vec2(1.0));
    vec4 background = u_background;
#if PAINT != PAINT_COLOR
    // The paint is sampled at the pixel centre clamped into the box, as a browser clamps
    // an image or gradient to its destination rect: a fringe pixel that the box only
    // partly covers (a fractional position, or a raster scale) takes its nearest edge's
    // colour, not the opposite edge's through the tile's wrap. Short of the far edge by
    // 1/64 px, where a tile that fills the box would wrap back to its start.
    vec2 inside = clamp(p, vec2(0.0), max(u_size - 1.0 / 64.0, vec2(0.0)));
    background = over(paint_image(inside), background);
#endif
    float painted = outer;
    if (any(greaterThan(u_background_clip, vec4(0.0)))) {
        // Clipped inside the border: the inner border edge, its radii reduced by the
        // insets (CSS Backgrounds 3 §4.3), as the border ring's inner edge below.
        vec4 c = u_background_clip;
        vec4 clip_rect = vec4(c.w, c.x, u_size.x - c.y, u_size.y - c.z);
        painted = min(outer, rrect_coverage(p, clip_rect, max(u_radii_x - c.wyyw, vec4(0.0)),
                                            max(u_radii_y - c.xxzz, vec4(0.0)), vec2(1.0)));
    }
    vec4 color = background * painted;
#ifdef SHADOWS
    // Inset shadows: above the background, below the border, inside the padding box.
    // (Outer ones are drawn under all this afterwards: raster/box_shadow.frag.)
    vec4 pad_rect = vec4(u_border.w, u_border.x, u_size.x - u_border.y, u_size.y - u_border.z);
    float pad = rrect_coverage(p, pad_rect, max(u_radii_x - u_border.wyyw, vec4(0.0)),
                               max(u_radii_y - u_border.xxzz, vec4(0.0)), vec2(1.0));
    if (pad > 0.0) color = over(inset_box_shadows(p) * pad, color);
#endif
    if (any(greaterThan(u_border, vec4(0.0)))) {
        vec4 inner_rect = vec4(u_border.w, u_border.x, u_size.x - u_border.y, u_size.y - u_border.z);
        vec4 inner_rx = max(u_radii_x - u_border.wyyw, vec4(0.0));
        vec4 inner_ry = max(u_radii_y - u_border.xxzz, vec4(0.0));
        float inner = rrect_coverage(p, inner_rect, inner_rx, inner_ry, vec2(1.0));
#if BORDER_DASHES
        float ring = dashed_border_coverage(p, u_size, u_border, u_radii_x, u_radii_y, max(outer - inner, 0.0), outer);
        color = over(u_border_color * ring, color);
#else
        color = over(u_border_color * max(outer - inner, 0.0), color);
#endif
    }
    frag_color = color;
}
