// wcombine.cu: which global stores the L1 combines before they reach the L2 (issue 11).
// scripts/hw/probe.sh wcombine OUTDIR runs it without a profiler (times) and under
// Nsight Compute (the L1's store sectors against the L2's write sectors from the SMs,
// lts__t_sectors_srcunit_tex_op_write).
//
//   wcombine [once]
//
// The tuning set's particles_aos (layout.cu: four 4-byte field stores a lane, 24 bytes
// apart) sends the L2 282240 write sectors where its L1 counts 786432 (hw-facts section
// 34): stores of successive instructions to one sector reach the L2 as one write.
// Every launch here is one pattern (inline PTX st.global.u32, so no compiler merges):
//   warp w's region: round r, store k: lane l writes the word at
//     r * roundBytes + l * S + k * O + j * K * O   (j = w % share, the region w / share)
//   so S is the lanes' stride, K the stores a round, O the offset of store k (0: the same
//   bytes again), share the warps writing one region's sectors between them, gap the
//   cycles a warp spins between its stores of a round.
// Parts:
//   K        the particles shape (S 24, O 4) with 1-6 stores a round, 32 warps an SM
//   gap      two stores a round, gap 0-5000 cycles apart, 1 and 32 warps an SM
//   whole    whole lines written again (O 0), shifted a word (O 4), or another line (O 128)
//   half     S 8: each store writes half of every sector, the two together all of it
//   share    2 or 6 warps writing one region's sectors, one store each
//   warps    the particles shape with 4 stores a round at 1-64 warps an SM
//   ldst-M   the particles shape (and whole lines written again), each round's stores
//            after loads, 1-32 warps an SM; M is how (wcombine_kernels.cu ldst_k): plain
//            or cg loads of the words stored, their values stored (the stores wait for
//            them); warm, the stores 2000 cycles after cg loads; other, cg loads of
//            other lines; nodep, the stores at once after cg loads
//   delay    two stores a round with N dependent IMADs between them and no branch (N in
//            the gap column), the particles shape and whole lines written again
//   particles layout.cu's particles_aos as the validation launches it (n = 262144, 256)
// Prints one CSV line per launch: id,part,S,K,O,share,gap,blocks,threads,rounds,l1sectors,ms
// (l1sectors: the store sectors the L1 sees, counted on the host; ms: the median of three
// timed runs; with "once", one untimed run each, for ncu).
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>
#include <cuda_runtime.h>
#include "probe.h"

#include "wcombine_kernels.cu"

struct Launch {
	const char *part;
	int S, K, O, share, gap, blocks, threads, rounds;
	long roundBytes() const { return ((32l * S + (long)K * O * share) + 127) / 128 * 128; }
	long bytes() const { return ((long)blocks * threads / 32 / share) * rounds * roundBytes(); }
	// l1Sectors counts the 32-byte sectors each store instruction touches, as the L1 does.
	long l1Sectors() const
	{
		if (!strcmp(part, "particles"))
			return 0;
		long n = 0;
		for (int k = 0; k < K; k++) {
			std::set<long> s;
			for (int l = 0; l < 32; l++)
				s.insert((l * S + k * O) / 32);
			n += s.size();
		}
		return n * rounds * ((long)blocks * threads / 32);
	}
};

// pick returns ks[i] for the i whose vals[i] is v, or stops the probe naming what it
// looked for.
template <typename K, size_t n>
static K pick(int v, const int (&vals)[n], K const (&ks)[n], const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (vals[i] == v)
			return ks[i];
	fprintf(stderr, "no %s for %d\n", what, v);
	exit(1);
}

// stores launches l's st_k (the parts without loads).
static void stores(const Launch &l, char *base)
{
	typedef void (*St)(char *, int, int, int, int, int, long);
	static const int ks[] = {1, 2, 3, 4, 6};
	static const St fs[] = {st_1, st_2, st_3, st_4, st_6};
	pick(l.K, ks, fs, "st_k of K")<<<l.blocks, l.threads>>>(base, l.S, l.O, l.share, l.gap, l.rounds, l.roundBytes());
}

// delayed launches l's st_delay (the delay part: N in the gap column).
static void delayed(const Launch &l, char *base)
{
	typedef void (*St)(char *, int, int, int, long);
	static const int ns[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24};
	static const St fs[] = {st_delay_0, st_delay_1, st_delay_2, st_delay_3, st_delay_4, st_delay_6, st_delay_8,
				st_delay_12, st_delay_16, st_delay_24};
	pick(l.gap, ns, fs, "st_delay of N")<<<l.blocks, l.threads>>>(base, l.S, l.O, l.rounds, l.roundBytes());
}

// loadStores launches l's ldst_k (part "ldst-MODE", wcombine_kernels.cu), other bytes
// between the words a lane stores and those it loads in mode OTHER.
static void loadStores(const Launch &l, char *base, long other)
{
	typedef void (*LdSt)(char *, int, int, int, long, long);
	static const char *modes[] = {"plain", "cg", "warm", "other", "nodep"};
	static const int ks[] = {1, 2, 4};
	static const LdSt fs[][5] = {
		{ldst_1_PLAIN, ldst_1_CG, ldst_1_WARM, ldst_1_OTHER, ldst_1_NODEP},
		{ldst_2_PLAIN, ldst_2_CG, ldst_2_WARM, ldst_2_OTHER, ldst_2_NODEP},
		{ldst_4_PLAIN, ldst_4_CG, ldst_4_WARM, ldst_4_OTHER, ldst_4_NODEP},
	};
	static const int rows[] = {0, 1, 2};
	int m = 0;
	while (m < 5 && strcmp(l.part + 5, modes[m]))
		m++;
	if (m == 5) {
		fprintf(stderr, "no ldst mode %s\n", l.part + 5);
		exit(1);
	}
	fs[pick(l.K, ks, rows, "ldst_k of K")][m]<<<l.blocks, l.threads>>>(base, l.S, l.O, l.rounds, l.roundBytes(), other);
}

int main(int argc, char **argv)
{
	bool once = argc > 1 && !strcmp(argv[1], "once");
	int sms = smCount();
	// warps a SM: 1 (one CTA of 32 threads), else CTAs of 1024 threads.
	auto shape = [&](int w, int *blocks, int *threads) {
		*threads = w < 32 ? 32 * w : 1024;
		*blocks = w < 32 ? sms : sms * (w / 32);
	};
	std::vector<Launch> ls;
	auto add = [&](const char *part, int S, int K, int O, int share, int gap, int w, int rounds) {
		int b, t;
		shape(w, &b, &t);
		ls.push_back({part, S, K, O, share, gap, b, t, rounds});
	};
	for (int K : {1, 2, 3, 4, 6})
		add("K", 24, K, 4, 1, 0, 32, 8);
	for (int w : {1, 32})
		for (int gap : {0, 50, 100, 200, 500, 1000, 2000, 5000})
			add("gap", 24, 2, 4, 1, gap, w, 8);
	for (int w : {1, 32}) {
		add("whole", 4, 2, 0, 1, 0, w, 8);
		add("whole", 4, 4, 0, 1, 0, w, 8);
		add("whole", 4, 2, 4, 1, 0, w, 8);
		add("whole", 4, 2, 128, 1, 0, w, 8);
		add("half", 8, 2, 4, 1, 0, w, 8);
	}
	for (int share : {2, 6})
		add("share", 24, 1, 4, share, 0, 32, 8);
	for (int w : {1, 4, 8, 16, 32, 64})
		add("warps", 24, 4, 4, 1, 0, w, 8);
	static const char *ldparts[] = {"ldst-plain", "ldst-cg", "ldst-warm", "ldst-other", "ldst-nodep"};
	for (const char *part : ldparts)
		for (int K : {1, 2, 4})
			for (int w : {1, 4, 32})
				add(part, 24, K, 4, 1, 0, w, 8);
	for (const char *part : {ldparts[0], ldparts[1]})
		for (int w : {1, 32})
			add(part, 4, 2, 0, 1, 0, w, 8);
	for (int w : {1, 4, 32})
		for (int d : {0, 1, 2, 3, 4, 6, 8, 12, 16, 24}) {
			add("delay", 24, 2, 4, 1, d, w, 8);
			if (w != 4)
				add("delay", 4, 2, 0, 1, d, w, 8);
		}
	const int n = 262144;
	ls.push_back({"particles", 24, 4, 4, 1, 0, n / 256, 256, 1});

	long bytes = (long)n * sizeof(Particle);
	for (auto &l : ls)
		bytes = std::max(bytes, l.bytes());
	char *base; // twice the largest launch's bytes: ldst-other loads from the second half
	CK(cudaMalloc(&base, 2 * bytes));
	CK(cudaMemset(base, 0, 2 * bytes));
	printf("id,part,S,K,O,share,gap,blocks,threads,rounds,l1sectors,ms\n");
	for (size_t id = 0; id < ls.size(); id++) {
		Launch &l = ls[id];
		float ms = timeLaunch(once, [&] {
			if (!strcmp(l.part, "particles"))
				particles_aos<<<l.blocks, l.threads>>>((Particle *)base, n, 0.01f);
			else if (!strcmp(l.part, "delay"))
				delayed(l, base);
			else if (!strncmp(l.part, "ld", 2))
				loadStores(l, base, bytes);
			else
				stores(l, base);
		});
		printf("%zu,%s,%d,%d,%d,%d,%d,%d,%d,%d,%ld,%.4f\n", id, l.part, l.S, l.K, l.O, l.share, l.gap, l.blocks,
		       l.threads, l.rounds, l.l1Sectors(), ms);
	}
	return 0;
}
