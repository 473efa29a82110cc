package replay

import (
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/models/arch"
)

// codeAlign is how ptxas lays out a kernel's code: after its last instruction, a
// branch to itself, then NOPs up to a multiple of 128 bytes (every function in the
// cuobjdump output under traces/hw, e.g. traces/hw/h200-2026-11-28-codefetch).
const codeAlign = 128

// launchReadBytes is what a launch reads from DRAM into an empty L2 besides its data
// (the engines add it to dram__bytes_read; the per-pc counts leave it out, as no pc
// reads it): the driver's launch state (sm.launch_read_bytes) and the kernel's code,
// every instruction of it once, whichever SMs run it (sm.inst_bytes an instruction).
// On an H200 that is 2304 B and 16 B an instruction (scripts/hw/probe.sh codefetch):
// 3-27 KB that kernels reading little global memory show in ncu and the engines did
// not. own is each pc's SASS instructions as sassEstimate counts them in place, nil
// where it has no estimate: then each record of the program is one instruction (a
// SASS trace's are SASS; a PTX one's on an unmeasured arch, an estimate).
func launchReadBytes(prog format.Program, own []int, cfg *arch.Config) uint64 {
	if cfg.SM.InstBytes == 0 {
		return 0
	}
	n := len(prog.Insts)
	if own != nil {
		n = 0
		for _, k := range own {
			n += k
		}
	}
	code := (n + 1) * cfg.SM.InstBytes // and the branch to itself
	code = (code + codeAlign - 1) / codeAlign * codeAlign
	return uint64(cfg.SM.LaunchReadBytes + code)
}
