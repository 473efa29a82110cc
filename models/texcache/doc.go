// Package texcache models the texture path: a per-SM texture cache that sees
// texel addresses in a 2D block-linear layout, so a 2D neighbourhood shares
// lines and column-after-column access stays about as cheap as
// row-after-row (seed 001, "Texture vs Global": 387 vs 368 GiB/s through
// texture, while row-major global memory drops from 445 to 268 GiB/s on
// columns).
//
// # The layout (shared with the emulator)
//
// gtrace stores a texture (cudaArray) of Width × Height texels of E bytes
// (E = 1, 2, 4, 8 or 16) in tiles of exactly 128 bytes, one cache line
// each. A tile is TW × TH texels:
//
//	E (bytes)   1    2    4    8    16
//	TW × TH   16×8  8×8  8×4  4×4  4×2
//
// Tiles are laid out row-major over the image, and texels row-major inside
// a tile:
//
//	tilesX = ceil(Width / TW)
//	offset(x, y) = ((y/TH)*tilesX + x/TW) * 128 + ((y%TH)*TW + x%TW) * E
//
// The texel address the emulator records is the texture's base address plus
// offset(x, y) (BlockLinear computes it). The layout is ours, not NVIDIA's
// undocumented one; what matters is that it is 2D-local at line granularity,
// as NVIDIA's block-linear "GOB" layout is.
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
