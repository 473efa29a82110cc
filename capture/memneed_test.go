package capture

import (
	"errors"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/sysmem"
)

// TestLoadRefusesWhatMemoryCannotHold: a launch whose buffers' copies exceed what the
// process can take stops at Load with a MemoryError naming the largest argument, the
// need and the limit's source, before it allocates; the same launch loads when the
// memory is there, and where the system says nothing (not Linux) it is let through.
func TestLoadRefusesWhatMemoryCannotHold(t *testing.T) {
	defer func(f func() (sysmem.Limit, bool)) { availableMemory = f }(availableMemory)
	spec := Spec{PTX: []byte(oobPTX), PTXName: "oob.ptx", Kernel: "k", Grid: d3(1, 1, 1), Block: d3(32, 1, 1),
		Args: []string{"buf:f32:1000", "buf:f32:250000:rand", "buf:u8:16", "buf:u32:100"}}
	// 4 copies of 4000 + 1000000 + 16 + 400 bytes.
	const need = 4 * (4000 + 1000000 + 16 + 400)
	for _, c := range []struct {
		limit sysmem.Limit
		known bool
		fits  bool
	}{
		{sysmem.Limit{Bytes: need - 1, Source: "the test's limit"}, true, false},
		{sysmem.Limit{Bytes: need, Source: "the test's limit"}, true, true},
		{sysmem.Limit{}, false, true},
	} {
		availableMemory = func() (sysmem.Limit, bool) { return c.limit, c.known }
		_, err := Load(spec)
		if c.fits {
			if err != nil {
				t.Errorf("limit %d (known %v): %v", c.limit.Bytes, c.known, err)
			}
			continue
		}
		var me *MemoryError
		if !errors.As(err, &me) {
			t.Fatalf("limit %d: error %v, want a MemoryError", c.limit.Bytes, err)
		}
		if me.Need != need || me.Index != 1 || me.Bytes != 1000000 {
			t.Errorf("MemoryError %+v; want need %d, argument 1 of 1000000 B", me, need)
		}
		for _, s := range []string{"4.0 MB", "argument 1 (buf:f32:250000:rand)", "1.0 MB", "the test's limit", "smaller COUNT"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%q lacks %q", err, s)
			}
		}
	}
}
