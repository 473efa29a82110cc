package cache_test

import (
	"fmt"

	"github.com/gtrace/gtrace/models/cache"
)

// An Ampere-style L1: sectored, write-through, no write-allocate.
func Example() {
	l1, err := cache.New(cache.Config{
		Size: 32 << 10, Line: 128, Sector: 32, Sets: 4,
		Write: cache.WriteThrough,
	})
	if err != nil {
		panic(err)
	}
	r := l1.Access(0x1000, 0b0011, cache.Load) // two sectors of line 0x1000
	fmt.Printf("miss=%04b fetch=%04b\n", r.Miss, r.Fetch)
	r = l1.Access(0x1000, 0b0111, cache.Load)
	fmt.Printf("hit=%04b miss=%04b\n", r.Hit, r.Miss)
	r = l1.Access(0x1000, 0b0001, cache.Store)
	fmt.Printf("store forwarded=%04b\n", r.Forward)
	s := l1.Stats().Op[cache.Load]
	fmt.Printf("loads: %d sectors, %.1f%% hit\n", s.Sectors, s.HitRate())
	// Output:
	// miss=0011 fetch=0011
	// hit=0011 miss=0100
	// store forwarded=0001
	// loads: 5 sectors, 40.0% hit
}
