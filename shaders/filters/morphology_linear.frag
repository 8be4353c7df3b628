// feMorphology in linearRGB (filters/plan.py MorphologyPass ``linear``): each tap
// converted to linear light before the min / max (shaders/filters/morphology.frag).
#define MORPHOLOGY_LINEAR 1
#include "filters/morphology.frag"
