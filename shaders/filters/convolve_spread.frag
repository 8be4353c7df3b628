// feConvolveMatrix whose kernelUnitLength is not a whole number of pixels: each kernel cell
// read bilinearly between the four texels around it, each tap converted
// (filters/plan.py ConvolvePass.spread; filters/svg/reference.py kernel_spacing).
#define CONVOLVE_CONVERTED 1
#define CONVOLVE_SPREAD 1
#include "filters/convolve_body.glsl"
