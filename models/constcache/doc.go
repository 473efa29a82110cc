// Package constcache models the constant-memory path: a warp's constant load
// is split into one request per distinct address among its active lanes, so
// uniform access costs one request and fully divergent access 32 ("a request
// is split into as many separate requests as there are different memory
// addresses in the initial request, decreasing throughput by a factor equal
// to the number of separate requests" [PG, Constant Memory]; checked with ncu
// on our H200: 32 distinct addresses add 31 idc__requests per warp).
//
// Each request then looks up a level-1 constant cache (Hopper's IDC, the
// per-SM constant cache of older parts) and, on a miss, an optional level
// 1.5 cache (Hopper's GPC-level GCC, [NCU units]); misses there go to L2.
// Requests are served in order of first appearance among the lanes.
//
// Caches are models/cache configs; a zero L15 means one level.
package constcache
