// conic-gradient() (CSS Images 4 §3.3): a point's position on the gradient "line" is
// the angle of the ray from the centre through it, measured clockwise from up (y runs
// down), less the `from` angle, as a fraction of a turn in [0, 1). Hard stops and the
// seam where the turn closes are sampled at the pixel centre, as the linear and radial
// gradients here and Skia's sweep gradient (Chromium) do: no anti-aliasing of their own.
uniform vec2 u_conic_center;    // in tile px
uniform float u_conic_from;     // the `from` angle in turns

const float CONIC_TAU = 6.28318530717958648;

float conic_position(vec2 local) {
    vec2 v = local - u_conic_center;
    // atan(0, 0) is undefined in GLSL: the centre itself takes the start of the turn.
    float turn = (v.x == 0.0 && v.y == 0.0) ? 0.0 : atan(v.x, -v.y) / CONIC_TAU;
    return fract(turn - u_conic_from);
}
