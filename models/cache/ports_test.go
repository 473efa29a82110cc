package cache

import (
	"fmt"
	"strings"
	"testing"
)

// portScript runs steps on Ports and returns the start cycle of each:
// "rd S T N" reads N sectors from slice S at T, "st S T N" stores N sectors, "atom S T N"
// an atomic on N sectors.
func portScript(p *Ports, script string) string {
	var out []string
	for _, step := range strings.Split(script, ";") {
		var op string
		var s, n int
		var t int64
		if _, err := fmt.Sscan(step, &op, &s, &t, &n); err != nil {
			panic(step)
		}
		switch op {
		case "rd":
			out = append(out, fmt.Sprint(p.Read(s, t, n)))
		case "st", "atom":
			out = append(out, fmt.Sprint(p.Write(s, t, n, op == "atom")))
		}
	}
	return strings.Join(out, " ")
}

func TestPorts(t *testing.T) {
	for _, tc := range []struct {
		in, out, atom float64
		script, want  string
	}{
		// The H200's shape: the input port takes 32 B per cycle, the return 64 B. A
		// read of 4 sectors holds the port one cycle and the return two, so the next
		// read starts one cycle later on the port but waits for the return.
		{32, 64, 1, "rd 0 0 4; rd 0 0 4; rd 0 0 1; rd 1 0 4", "0 2 4 0"},
		// Reads of one sector each (32 lanes, 32 lines): the port's one request per
		// cycle limits them, not the return.
		{32, 64, 1, "rd 0 0 1; rd 0 0 1; rd 0 0 1; rd 0 0 1", "0 1 2 3"},
		// Stores hold the port per sector and take no return: a read behind them waits
		// for the port only.
		{32, 64, 1, "st 0 0 4; st 0 0 1; rd 0 0 1; rd 0 10 8", "0 4 5 10"},
		// An atomic pass takes 4 sectors' time on the port even for one sector, and
		// its old value takes the return.
		{32, 64, 4, "atom 0 0 1; atom 0 0 1; atom 0 0 8; rd 0 0 1", "0 4 8 16"},
		// A rate that is not a whole number of cycles per sector (21.1 B/cycle: 1.52):
		// ports keep fractions, so 4 requests take 6.1 cycles, not 4 or 8.
		{21.1, 64, 1, "rd 0 0 1; rd 0 0 1; rd 0 0 1; rd 0 0 1; rd 0 0 1", "0 2 4 5 7"},
	} {
		p, err := NewPorts(2, tc.in, tc.out, tc.atom)
		if err != nil {
			t.Fatal(err)
		}
		if got := portScript(p, tc.script); got != tc.want {
			t.Errorf("in %g, out %g, atomic %g, %q: got %q, want %q", tc.in, tc.out, tc.atom, tc.script, got, tc.want)
		}
	}
	for _, bad := range [][4]float64{{0, 32, 64, 1}, {2, 0, 64, 1}, {2, 32, 0, 1}, {2, 32, 64, -1}} {
		if _, err := NewPorts(int(bad[0]), bad[1], bad[2], bad[3]); err == nil {
			t.Errorf("NewPorts%v accepted", bad)
		}
	}
}
