// cta_life.h: what rounds.cu and ctasize.cu do with their stamped launches: per SM, each
// CTA's start (its first warp's clock64 on entry) and end (its last warp's after its last
// instruction), CTAs sorted by start leaving out each SM's first and last 16; a CTA's
// life (start to end) and the mean gap between two CTAs' starts, medians over SMs.
#pragma once
#include <algorithm>
#include <utility>
#include <vector>

template <typename T>
static T median(std::vector<T> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

// ctaLife reads the stamps of grid CTAs of wpc warps each (h0 entry, h1 end, hs the SM,
// one a warp) on sms SMs and sets life and gap in SM cycles; it returns how many SMs
// held enough CTAs (48) to count.
static size_t ctaLife(const std::vector<long long> &h0, const std::vector<long long> &h1, const std::vector<unsigned> &hs,
		      int grid, int wpc, int sms, double *life, double *gap)
{
	std::vector<std::vector<std::pair<long long, long long>>> per(sms);
	for (int c = 0; c < grid; c++) {
		long long s = h0[c * wpc], e = h1[c * wpc];
		for (int w = 1; w < wpc; w++)
			s = std::min(s, h0[c * wpc + w]), e = std::max(e, h1[c * wpc + w]);
		if (hs[c * wpc] < (unsigned)sms)
			per[hs[c * wpc]].push_back({s, e});
	}
	std::vector<double> lives, gaps;
	for (auto &p : per) {
		std::sort(p.begin(), p.end());
		if (p.size() < 48)
			continue;
		std::vector<long long> l;
		for (size_t j = 16; j + 16 < p.size(); j++)
			l.push_back(p[j].second - p[j].first);
		lives.push_back(median(l));
		gaps.push_back((double)(p[p.size() - 17].first - p[16].first) / (p.size() - 33));
	}
	*life = median(lives), *gap = median(gaps);
	return lives.size();
}
