package coalesce_test

import (
	"fmt"

	"github.com/gtrace/gtrace/models/coalesce"
)

// Seed 000's "misaligned" row: 32 consecutive floats starting 4 bytes into a line.
func Example() {
	addrs := make([]uint64, 32)
	for lane := range addrs {
		addrs[lane] = 0x1000 + 4 + 4*uint64(lane)
	}
	for _, m := range []coalesce.Mode{coalesce.Lines128, coalesce.Segments32, coalesce.Sectors32} {
		c, _ := coalesce.New(m)
		r := c.Coalesce(0xFFFFFFFF, addrs, 4, false)
		fmt.Printf("%-18s requests=%d transactions=%d sectors=%d bus=%.0f%%\n",
			m, r.Requests, r.Transactions, r.Sectors, r.BusUtilization())
	}
	// Output:
	// fermi-128B-lines   requests=1 transactions=2 sectors=5 bus=50%
	// fermi-32B-segments requests=1 transactions=5 sectors=5 bus=80%
	// sectored-32B       requests=1 transactions=5 sectors=5 bus=80%
}
