package texcache_test

import (
	"fmt"

	"github.com/gtrace/gtrace/models/cache"
	"github.com/gtrace/gtrace/models/texcache"
)

// A warp reads one column of 32 uchar4 texels, then the next column.
func Example() {
	tex, _ := texcache.New(cache.Config{Size: 12 << 10, Line: 128, Sector: 128, Ways: 24})
	addrs := make([]uint64, 32)
	for x := 0; x < 2; x++ {
		for lane := range addrs {
			addrs[lane] = texcache.BlockLinear(x, lane, 256, 4)
		}
		r := tex.Access(addrs, 4)
		fmt.Printf("column %d: %d lines, %d sectors, %d hits\n", x, r.Lines, r.Sectors, r.Hits)
	}
	// Output:
	// column 0: 8 lines, 16 sectors, 0 hits
	// column 1: 8 lines, 16 sectors, 16 hits
}
