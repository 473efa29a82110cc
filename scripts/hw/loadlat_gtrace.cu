// loadlat_gtrace.cu: scripts/hw/loadlat.cu's kernel as gtrace captures it, for the
// engine's side of the comparison (docs/issue-11.md, "Next, in order"). The chase
// cannot follow loadlat.cu's shuffled cycle (capture fills buffers with zeros, a
// constant or random words), so each hop's line is computed from the last one and the
// word it loaded: still one dependent DRAM read a hop over 256 MB. The streamers are
// loadlat.cu's, over 512 MB, 300 rounds (enough to outlast 200 hops at 8 blocks an SM).
//
//   gtrace capture --cu scripts/hw/loadlat_gtrace.cu --kernel loaded --grid $((1+K*132)) \
//     --block 256 --arg buf:u32:67108864 --arg u32:2097152 --arg i32:200 \
//     --arg buf:u32:134217728 --arg u64:33554432 --arg i32:300 --arg i32:KIND \
//     --arg buf:u32:2 -o ll.gtrace
//   gtrace replay --arch hopper --gpu h100 --engine timing --set sm.clock_mhz=1755 \
//     --per-pc --format json ll.gtrace
//
// (K blocks an SM, KIND 0 read, 1 copy, 2 write.) The chase's pcs are those executed at
// most 400 times; their warp-cycles (every stall reason and issue) over 200 hops is a
// hop's time.
#include <cuda_runtime.h>
#include "loadlat_stream.cuh"

// kind: 0 read, 1 copy, 2 write
extern "C" __global__ void loaded(const unsigned *chain, unsigned lines, int hops, uint4 *a, unsigned long long n, int iters, int kind, unsigned *sink)
{
	if (blockIdx.x == 0) {
		if (threadIdx.x != 0)
			return;
		unsigned i = 0;
		for (int h = 0; h < hops; h++)
			i = (__ldcg(&chain[(size_t)i * 32]) + i * 2654435761u + 12345u) & (lines - 1);
		sink[0] = i;
		return;
	}
	streamers(a, n, iters, kind, sink);
}
