package dram_test

import (
	"fmt"

	"github.com/gtrace/gtrace/models/dram"
)

// Reading field x of an array of 16-byte structs wastes three quarters of every burst.
func Example() {
	cfg := dram.Config{Channels: 12, Banks: 16, RowBytes: 2048, BurstLength: 8, BusBytes: 4, Interleave: 256}
	aos, _ := dram.New(cfg)
	soa, _ := dram.New(cfg)
	for i := uint64(0); i < 1024; i++ {
		aos.Access(16*i, 4, false) // s[i].x
		soa.Access(4*i, 4, false)  // x[i]
	}
	fmt.Printf("AoS: %.0f%% of burst bytes used\n", aos.Stats().BurstUtilization())
	fmt.Printf("SoA: %.0f%% of burst bytes used\n", soa.Stats().BurstUtilization())
	// Output:
	// AoS: 25% of burst bytes used
	// SoA: 100% of burst bytes used
}
