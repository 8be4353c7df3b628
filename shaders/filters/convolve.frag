// feConvolveMatrix and feGaussianBlur's edge modes on premultiplied sRGB taps as they are
// (filters/plan.py ConvolvePass without preserveAlpha or linearRGB).
#define CONVOLVE_CONVERTED 0
#include "filters/convolve_body.glsl"
