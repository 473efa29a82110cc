// mathfn_results.h: the functions of scripts/hw/mathfn.cu that need a wrapper: those with
// a second result (frexp's exponent, modf's integral part, remquo's quotient bits), each
// result on its own, and normf/norm (and their reciprocals) over an array of three;
// cudart/testdata/samples.cu runs the same ones.
#pragma once

__device__ float frexpf_m(float x) { int e; return frexpf(x, &e); }
__device__ float frexpf_e(float x) { int e; frexpf(x, &e); return (float)e; }
__device__ double frexp_m(double x) { int e; return frexp(x, &e); }
__device__ double frexp_e(double x) { int e; frexp(x, &e); return (double)e; }
__device__ float modff_f(float x) { float i; return modff(x, &i); }
__device__ float modff_i(float x) { float i; modff(x, &i); return i; }
__device__ double modf_f(double x) { double i; return modf(x, &i); }
__device__ double modf_i(double x) { double i; modf(x, &i); return i; }
__device__ float remquof_r(float x, float y) { int q; return remquof(x, y, &q); }
__device__ float remquof_q(float x, float y) { int q; remquof(x, y, &q); return (float)q; }
__device__ double remquo_r(double x, double y) { int q; return remquo(x, y, &q); }
__device__ double remquo_q(double x, double y) { int q; remquo(x, y, &q); return (double)q; }

// normf and rnormf (norm and rnorm) over an array of three.
__device__ float normf3(float x, float y, bool r) { float a[3] = {x, y, x - y}; return r ? rnormf(3, a) : normf(3, a); }
__device__ double norm3(double x, double y, bool r) { double a[3] = {x, y, x - y}; return r ? rnorm(3, a) : norm(3, a); }
