package smem_test

import (
	"fmt"

	"github.com/gtrace/gtrace/models/smem"
)

// Transpose V2 reads a column of a 32x32 float tile; V3 pads it to 32x33.
func Example() {
	banks, _ := smem.New(32, 4)
	for _, pitch := range []uint64{32, 33} {
		addrs := make([]uint64, 32)
		for tx := range addrs {
			addrs[tx] = 4 * (uint64(tx)*pitch + 3) // mat[threadIdx.x][3]
		}
		r := banks.Access(0xFFFFFFFF, addrs, 4)
		fmt.Printf("pitch %d: %d wavefronts, %d-way\n", pitch, r.Wavefronts, r.Ways)
	}
	// Output:
	// pitch 32: 32 wavefronts, 32-way
	// pitch 33: 1 wavefronts, 1-way
}
