// Data layout: one particle update written against three layouts, from the
// optimization-techniques seed (optimization-techniques-layout-scatter-tiling,
// "Data Layout Transformation"):
//   AoS   array of structures: x y z vx vy vz | x y z vx vy vz | ...
//   SoA   structure of arrays (the seed's DA, discrete arrays): one array per
//         field, each its own allocation
//   ASTA  array of structures of tiled arrays: an AoS of small SoA tiles of
//         ASTA_TILE particles. With ASTA_TILE = 32 each field of a warp's 32
//         particles is one 128-byte line, as in SoA, while the six fields of
//         a tile stay together in memory, as in AoS.
//
// The update is a gravity step with time step dt:
//   vy -= 9.8 * dt;  x += vx * dt;  y += vy * dt;  z += vz * dt
// dt is launched as a power of two, which makes every product exact, so the
// result is the same whether the compiler fuses a multiply and add into an fma
// (clang and nvcc both do by default) or not.
#include "gtrace_cuda.h"

#define ASTA_TILE 32

struct Particle {
	float x, y, z, vx, vy, vz;
};

struct ParticleTile {
	float x[ASTA_TILE], y[ASTA_TILE], z[ASTA_TILE];
	float vx[ASTA_TILE], vy[ASTA_TILE], vz[ASTA_TILE];
};

extern "C" __global__ void particles_aos(Particle *p, int n, float dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		Particle q = p[i];
		q.vy = q.vy - 9.8f * dt;
		q.x = q.x + q.vx * dt;
		q.y = q.y + q.vy * dt;
		q.z = q.z + q.vz * dt;
		p[i] = q;
	}
}

extern "C" __global__ void particles_soa(float *x, float *y, float *z, float *vx, float *vy, float *vz, int n,
					 float dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = vy[i] - 9.8f * dt;
		vy[i] = v;
		x[i] = x[i] + vx[i] * dt;
		y[i] = y[i] + v * dt;
		z[i] = z[i] + vz[i] * dt;
	}
}

extern "C" __global__ void particles_asta(ParticleTile *p, int n, float dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		ParticleTile *t = &p[i / ASTA_TILE];
		int k = i % ASTA_TILE;
		float v = t->vy[k] - 9.8f * dt;
		t->vy[k] = v;
		t->x[k] = t->x[k] + t->vx[k] * dt;
		t->y[k] = t->y[k] + v * dt;
		t->z[k] = t->z[k] + t->vz[k] * dt;
	}
}
