package arch_test

import (
	"fmt"
	"strings"

	"github.com/gtrace/gtrace/models/arch"
)

// Fermi in L2-only mode with the 48 KB L1 split, as `--set` would do it.
func Example() {
	c, err := arch.Preset("fermi", "") // gtx480
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Name, c.GlobalLoadMode())
	for _, kv := range [][2]string{{"l1.cache_global", "false"}, {"shared.size", "16KB"}} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			panic(err)
		}
	}
	if err := c.Validate(); err != nil {
		panic(err)
	}
	fmt.Println(c.GlobalLoadMode())
	for _, k := range c.Keys() {
		switch k.Key {
		case "l1.size", "l1.cache_global", "l2.size":
			fmt.Printf("%s = %s  (%s)\n", k.Key, k.Value, k.Source)
		}
	}
	// Output:
	// GeForce GTX 480 fermi-128B-lines
	// fermi-32B-segments
	// l1.size = 48KB  (derived: l1.unified_size - shared.size)
	// l1.cache_global = false  (set)
	// l2.size = 768KB  ([V] PG4 / GF100 whitepaper)
}

func ExampleLoad() {
	// Base first, then overrides; a comment on a line is that value's source.
	c, err := arch.Load(strings.NewReader(`
base = hopper/h200
l2.size = 80MB   # what-if: a bigger L2
l2.slices = 128
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Name, c.L2.Size>>20, "MB in", c.L2.Slices, "slices:", c.Source("l2.size"))
	// Output:
	// H200 80 MB in 128 slices: what-if: a bigger L2
}
