package sched

import (
	"strings"
	"testing"
)

// TestNewRefusesUnknownPolicy: New names the policies it knows. What each policy
// picks is testdata/policy.txt's (TestScripts).
func TestNewRefusesUnknownPolicy(t *testing.T) {
	if _, err := New("fifo"); err == nil || !strings.Contains(err.Error(), "two-level") {
		t.Errorf("New(fifo) = %v, want an error listing the policies", err)
	}
}
