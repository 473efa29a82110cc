package sched_test

import (
	"fmt"

	"github.com/gtrace/gtrace/models/sched"
)

// A GTO scheduler over four warps, where warp 0 waits on a load issued at cycle 0.
func Example() {
	p, _ := sched.New("gto")
	var sb [4]sched.Scoreboard
	for w := range 4 {
		p.Add(w, 0)
	}
	load, use := []uint16{7}, []uint16{7}
	sb[0].Add(0, load, 400, sched.Long)
	for now := int64(1); now <= 3; now++ {
		w := p.Pick(func(w int) bool { ok, _, _ := sb[w].Check(now, use, nil); return ok })
		p.Issued(w)
		fmt.Println("cycle", now, "warp", w)
	}
	// Output:
	// cycle 1 warp 1
	// cycle 2 warp 1
	// cycle 3 warp 1
}
