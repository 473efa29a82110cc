// Package texcache models the texture path: a per-SM texture cache that sees
// texel addresses in a 2D block-linear layout, so a 2D neighbourhood shares
// lines and column-after-column access stays about as cheap as
// row-after-row (seed 001, "Texture vs Global": 387 vs 368 GiB/s through
// texture, while row-major global memory drops from 445 to 268 GiB/s on
// columns).
//
// # The layout (shared with the emulator)
//
// capture lays a texture (cudaArray) of Width × Height texels of E bytes out as
// NVIDIA's block-linear layout with a block height of one GOB: GOBs of 64 bytes × 8
// rows (512 bytes) in row-major order, and inside a GOB each 32-byte sector holds 16
// bytes of two adjacent rows (Tegra X1 TRM, "Block Linear"). With b = x*E:
//
//	offset(x, y) = ((y/8)*ceil(Width*E/64) + b/64)*512
//	             + (b%64)/32*256 + (y%8)/2*64 + (b%32)/16*32 + (y%2)*16 + b%16
//
// BlockLinear computes it. A 128-byte line is then 32 bytes × 4 rows, and a sector 16
// bytes × 2 rows: 2D neighbourhoods share lines and sectors, so a column walk costs
// about what a row walk does (twice the sectors per request for 4-byte texels, where
// row-major global memory costs eight times).
//
// # The cache
//
// One texture request per warp instruction: its lanes' texels are grouped
// into unique (line, sector mask) pairs, each looked up in a models/cache
// Sectored cache. Texture caches in the presets fill whole 128-byte lines
// (Sector = Line): a line is one 2D tile, and a tile-row sector would make
// row-after-row access never reuse a fetched sector (assumed; the
// gpgpu-sim texture caches are likewise non-sectored [M]).
//
// With uchar4 texels a line is 8 texels wide and 4 tall, so a row sweep
// reuses each line 4 times and a column sweep 8 times: column hit rates come
// out higher than row hit rates, never lower, and each fetches the image
// from L2 once when the cache holds a strip of tiles.
package texcache
