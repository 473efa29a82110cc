package kernels_test

import (
	"fmt"

	"github.com/gtrace/gtrace/kernels"
)

// A reference kernel knows its default launch; sizes override it by name.
func Example() {
	k, err := kernels.Lookup("transpose_v1")
	if err != nil {
		panic(err)
	}
	sz, err := kernels.ParseSizes(k, []string{"n=256"})
	if err != nil {
		panic(err)
	}
	l := k.Launch(sz)
	fmt.Println(k.Entry, "in", k.PTXFile)
	fmt.Println("grid", l.Grid, "block", l.Block)
	fmt.Println(l.Args)
	// Output:
	// matrixTranspose in transpose.ptx
	// grid 8,8,1 block 32,32,1
	// [buf:f32:65536:rand:1 buf:f32:65536:zero i32:256 i32:256]
}
