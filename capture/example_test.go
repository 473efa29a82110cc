package capture_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
)

// Capture a vector addition and read back its output buffer.
func Example() {
	src, err := os.ReadFile("testdata/kernels.ptx")
	if err != nil {
		panic(err)
	}
	k, err := capture.Load(capture.Spec{
		PTX: src, PTXName: "kernels.ptx", Kernel: "vecadd",
		Grid: format.Dim3{X: 4, Y: 1, Z: 1}, Block: format.Dim3{X: 256, Y: 1, Z: 1},
		Args: []string{"buf:f32:1000", "buf:f32:1000:iota", "buf:f32:1000:const:0.5", "i32:1000"},
	})
	if err != nil {
		panic(err)
	}
	res, err := k.Run(context.Background(), 0, nil) // a nil Sink: no trace, just the run
	if err != nil {
		panic(err)
	}
	c := res.Buffers[0].Final
	fmt.Println(math.Float32frombits(binary.LittleEndian.Uint32(c[4*10:])), res.WarpInsts, len(k.Launch().Program.Insts))
	// Output: 10.5 704 22
}
