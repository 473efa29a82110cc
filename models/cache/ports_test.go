package cache

import (
	"testing"
)

// TestNewPortsRefuses: no slices, a rate that is not positive or a negative atomic
// pass is an error. What the ports do is testdata/ports.txt's (TestScripts).
func TestNewPortsRefuses(t *testing.T) {
	for _, bad := range [][4]float64{{0, 32, 64, 1}, {2, 0, 64, 1}, {2, 32, 0, 1}, {2, 32, 64, -1}} {
		if _, err := NewPorts(int(bad[0]), bad[1], bad[2], bad[3]); err == nil {
			t.Errorf("NewPorts%v accepted", bad)
		}
	}
}
