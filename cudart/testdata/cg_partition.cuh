// cg_partition.cuh: cooperative groups' labeled_partition and binary_partition, on
// tiles, on coalesced groups and nested, with every group's ranks and sizes. The same
// kernel runs on a GPU through CUDA's own header (scripts/hw/cgpart.cu, nvcc) and on
// gtrace through its header (testdata/samples.cu, clang-14); header_test.go compares
// the two outputs and both with Go. No input: each thread's labels come from a hash of
// its rank, so both runs see the same ones.
#define CG_PARTITION_SLOTS 30

static __device__ unsigned int cg_partition_hash(unsigned int r) { return (r * 2654435761u) >> 24; }

// cg_partition_put writes g's thread rank, size, meta-group rank and meta-group size.
template <class G> static __device__ int *cg_partition_put(int *o, const G &g)
{
	o[0] = (int)g.thread_rank();
	o[1] = (int)g.num_threads();
	o[2] = (int)g.meta_group_rank();
	o[3] = (int)g.meta_group_size();
	return o + 4;
}

extern "C" __global__ void cg_partition(int *out)
{
	namespace cg = cooperative_groups;
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
	unsigned int r = block.thread_rank(), lane = r % 32, h = cg_partition_hash(r);
	int *o = out + r * CG_PARTITION_SLOTS;
	cg::coalesced_group p1 = cg::labeled_partition(warp, h % 5);
	o = cg_partition_put(o, p1);
	*o++ = cg::reduce(p1, (int)r, cg::plus<int>());
	o = cg_partition_put(o, cg::labeled_partition(warp, lane / 8));
	o = cg_partition_put(o, cg::labeled_partition(t8, (long long)(h % 3) << 40));
	o = cg_partition_put(o, cg::binary_partition(warp, (h & 1) != 0));
	o = cg_partition_put(o, cg::binary_partition(t8, lane < 64));
	if (h % 4 != 0) {
		cg::coalesced_group active = cg::coalesced_threads();
		cg::coalesced_group b3 = cg::binary_partition(active, (h & 2) != 0);
		cg::coalesced_group l4 = cg::labeled_partition(b3, (char)(h % 3));
		o = cg_partition_put(o, b3);
		o = cg_partition_put(o, l4);
		*o++ = l4.shfl((int)lane, 0);
	} else {
		for (int k = 0; k < 9; k++)
			*o++ = -1;
	}
}
