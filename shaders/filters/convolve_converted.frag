// feConvolveMatrix with preserveAlpha and / or in linearRGB: each tap converted
// (filters/plan.py ConvolvePass).
#define CONVOLVE_CONVERTED 1
#include "filters/convolve_body.glsl"
