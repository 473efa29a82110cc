package arch

import "testing"

// Limits of one Hopper SM (CUDA Programming Guide, compute capability 9.0 table): 2048
// threads, 64 warps, 32 CTAs, 64 K registers allocated in 256s, 228 KB shared of which
// 1 KB is reserved per CTA.
var hopperSM = SMLimits{MaxThreads: 2048, MaxWarps: 64, MaxCTAs: 32, Registers: 65536,
	RegAllocUnit: 256, SharedBytes: 233472, SharedAllocUnit: 128, SharedReserved: 1024}

func TestOccupancy(t *testing.T) {
	for _, tc := range []struct {
		name                string
		threads, regs, smem int
		want                int
		limiter             string
	}{
		{"1024 threads, warps bound", 1024, 32, 0, 2, "warps"},
		{"256 threads, 64 regs: 64*32*8 regs per CTA", 256, 64, 0, 4, "registers"},
		{"32 threads: CTA slots bound", 32, 32, 0, 32, "ctas"},
		// 48 KB + 1 KB reserved per CTA: 233472 / 50176 = 4.
		{"48 KB shared", 256, 32, 49152, 4, "shared"},
		// 255 regs round up to 8192 per warp: 65536/(8192*8) = 1.
		{"255 regs", 256, 255, 0, 1, "registers"},
	} {
		o, err := Occupancy(hopperSM, tc.threads, tc.regs, tc.smem)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if o.CTAsPerSM != tc.want || o.Limiter != tc.limiter {
			t.Errorf("%s: got %d CTAs/SM limited by %s, want %d by %s", tc.name, o.CTAsPerSM, o.Limiter, tc.want, tc.limiter)
		}
	}
	if _, err := Occupancy(hopperSM, 256, 32, 300000); err == nil {
		t.Errorf("a CTA larger than the SM's shared memory must not fit")
	}
}
