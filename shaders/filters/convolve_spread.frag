// feConvolveMatrix whose kernelUnitLength is not a whole number of pixels: each kernel cell
// read bilinearly between the four texels around it, premultiplied sRGB taps as they are
// (filters/plan.py ConvolvePass.spread; filters/svg/reference.py kernel_spacing).
#define CONVOLVE_CONVERTED 0
#define CONVOLVE_SPREAD 1
#include "filters/convolve_body.glsl"
