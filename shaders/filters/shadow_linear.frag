// SVG feDropShadow in linearRGB (filters/plan.py ShadowPass ``linear``): the merge in
// linear light (shaders/filters/shadow.frag).
#define SHADOW_LINEAR 1
#include "filters/shadow.frag"
