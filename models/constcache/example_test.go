package constcache_test

import (
	"fmt"

	"github.com/gtrace/gtrace/models/cache"
	"github.com/gtrace/gtrace/models/constcache"
)

// The seed's c_array[0] against c_array[threadIdx.x].
func Example() {
	c, _ := constcache.New(constcache.Config{
		L1: cache.Config{Size: 8 << 10, Line: 64, Sets: 64, Sector: 64},
	})
	uniform, divergent := make([]uint64, 32), make([]uint64, 32)
	for lane := range divergent {
		divergent[lane] = 4 * uint64(lane)
	}
	fmt.Println("c_array[0]:", c.Access(uniform, 4).Requests, "request")
	fmt.Println("c_array[threadIdx.x]:", c.Access(divergent, 4).Requests, "requests")
	// Output:
	// c_array[0]: 1 request
	// c_array[threadIdx.x]: 32 requests
}
