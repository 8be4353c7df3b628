// feConvolveMatrix with kernelUnitLength between pixels (convolve_spread.frag), with
// preserveAlpha and / or in linearRGB: each of the four texels of a tap converted.
#define CONVOLVE_CONVERTED 1
#define CONVOLVE_SPREAD 1
#include "filters/convolve_body.glsl"
