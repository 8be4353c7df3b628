// The separable blur and the resampling kernels (shaders/filters/blur.frag, downsample.frag,
// upsample.frag), written once for both image formats: shaders/opencl/filters.cl includes
// them on uchar4 images, shaders/opencl/linear.cl on float ones (premultiplied
// linearRGB, filters/plan.py ImageFormat). The includer defines IMAGE_IN / IMAGE_OUT (the
// buffers' types), TEXEL, LOAD_OR_CLEAR and STORE (a texel as 0..1 floats, and back),
// PAIR (two neighbouring texels' stored values as a float8) and PAIR_UNIT (what turns
// those into 0..1).

// Separable Gaussian, one direction, tiled through local memory: a work-group loads its
// row (or column) segment plus `r` texels of apron on each side once, then every item
// sums its 2 r + 1 taps from local memory (r <= MAX_BLUR_RADIUS in CSS plans; where the
// tile would not fit, filter_blur_wide below). `weights`
// are BlurPass.weights() from the plan, normalised by the same BlurPass.norm the GL pass
// gets as u_norm (1 / the sum of all 2 r + 1 weights; taps past the edge are transparent).
__kernel void filter_blur_x(IMAGE_IN src, IMAGE_OUT dst, int w, int h, int r,
                     __constant float* weights, __local float4* tile) {
    int lx = get_local_id(0), L = get_local_size(0);
    int x0 = get_group_id(0) * L, y = get_global_id(1);
    for (int i = lx; i < L + 2 * r; i += L)
        tile[i] = y < h ? LOAD_OR_CLEAR(src, w, h, x0 - r + i, y) : (float4)(0.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    int x = x0 + lx;
    if (x >= w || y >= h) return;
    float4 sum = (float4)(0.0f);
    for (int i = 0; i <= 2 * r; ++i) sum += tile[lx + i] * weights[i];
    STORE(dst, w, x, y, sum);
}

__kernel void filter_blur_y(IMAGE_IN src, IMAGE_OUT dst, int w, int h, int r,
                     __constant float* weights, __local float4* tile) {
    int lx = get_local_id(0), LX = get_local_size(0);
    int ly = get_local_id(1), LY = get_local_size(1);
    int x = get_global_id(0), y0 = get_group_id(1) * LY;
    for (int i = ly; i < LY + 2 * r; i += LY)
        tile[i * LX + lx] = x < w ? LOAD_OR_CLEAR(src, w, h, x, y0 - r + i) : (float4)(0.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    int y = y0 + ly;
    if (x >= w || y >= h) return;
    float4 sum = (float4)(0.0f);
    for (int i = 0; i <= 2 * r; ++i) sum += tile[(ly + i) * LX + lx] * weights[i];
    STORE(dst, w, x, y, sum);
}

// The same sum without a tile, each item reading its 2 r + 1 taps along (ax, ay): for a
// radius whose tile would not fit a device's local memory (filters/plan.py BlurPass.cl:
// per-axis SVG stdDeviation blurs its wide axis with up to 300 taps a side).
__kernel void filter_blur_wide(IMAGE_IN src, IMAGE_OUT dst, int w, int h, int r,
                               __constant float* weights, int ax, int ay) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float4 sum = (float4)(0.0f);
    for (int i = -r; i <= r; ++i) sum += LOAD_OR_CLEAR(src, w, h, x + i * ax, y + i * ay) * weights[i + r];
    STORE(dst, w, x, y, sum);
}

// Halve: the 2x2 box average of the input texels at 2 * (x, y) + offset. One item per
// run of DOWN_RUN outputs along a row: on a CPU device a work-item walking contiguous
// memory beats one item per pixel with strided loads. `offset` is ResamplePass.input_offset,
// the value the GLSL pass gets as u_offset.
__kernel void filter_downsample(IMAGE_IN src, int sw, int sh, IMAGE_OUT dst, int w, int h, int offset) {
    int run = get_global_id(0), y = get_global_id(1);
    if (y >= h) return;
    int iy = 2 * y + offset;
    int x_end = min(w, (run + 1) * DOWN_RUN);
    for (int x = run * DOWN_RUN; x < x_end; ++x) {
        int ix = 2 * x + offset;
        float4 s;
        if (ix >= 0 && iy >= 0 && ix + 1 < sw && iy + 1 < sh) {  // nearly every texel: 2 wide loads
            float8 both = PAIR(src, iy * sw + ix) + PAIR(src, (iy + 1) * sw + ix);
            s = (both.lo + both.hi) * PAIR_UNIT;
        } else {
            s = LOAD_OR_CLEAR(src, sw, sh, ix, iy) + LOAD_OR_CLEAR(src, sw, sh, ix + 1, iy)
              + LOAD_OR_CLEAR(src, sw, sh, ix, iy + 1) + LOAD_OR_CLEAR(src, sw, sh, ix + 1, iy + 1);
        }
        STORE(dst, w, x, y, 0.25f * s);
    }
}

// Back to full size from 1/scale, bilinear (shaders/filters/upsample.frag), one item per
// low-resolution cell and full-size row: the cell's four texels are read once and its
// `scale` output pixels interpolated from them (per-pixel gathers were 3x slower).
// Output x lies in cell c = floor((x + 0.5) / scale + 0.5); reduced images carry a
// margin, so c + 1 is always inside and the GLSL clamp never acts.
__kernel void filter_upsample(IMAGE_IN src, int sw, int sh, IMAGE_OUT dst, int w, int h, int scale) {
    int c = get_global_id(0), y = get_global_id(1);
    if (y >= h) return;
    float inv = 1.0f / (float)scale;
    float qy = clamp(((float)y + 0.5f) * inv + 0.5f, 0.0f, (float)(sh - 1));
    int iy = (int)floor(qy);
    float ty = qy - (float)iy;
    int jy = min(iy + 1, sh - 1), jc = min(c + 1, sw - 1);
    float4 a = TEXEL(src, iy * sw + c), b = TEXEL(src, iy * sw + jc);
    float4 d = TEXEL(src, jy * sw + c), e = TEXEL(src, jy * sw + jc);
    int x0 = c * scale - scale / 2;
    for (int k = 0; k < scale; ++k) {
        int x = x0 + k;
        if (x < 0 || x >= w) continue;
        float tx = ((float)x + 0.5f) * inv + 0.5f - (float)c;
        STORE(dst, w, x, y, mix(mix(a, b, tx), mix(d, e, tx), ty));
    }
}

