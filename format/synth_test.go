package format

import (
	"fmt"
	"math/rand/v2"
)

// Synthetic streams for tests and benchmarks. A kernel runs a loop body of 8
// instructions: three memory operations (two loads and a store, on arrays A, B and C)
// among ALU, FP and control instructions, as a grid-stride loop does: each iteration's
// addresses advance by the number of threads in the grid.

type shape struct {
	name   string
	stride int  // lane stride in elements for the loads; 0 = broadcast
	random bool // random addresses
	half   bool // divergent: alternate half-warp masks
}

var shapes = []shape{
	{name: "coalesced", stride: 1},
	{name: "strided2", stride: 2},
	{name: "strided4", stride: 4},
	{name: "strided8", stride: 8},
	{name: "strided32", stride: 32},
	{name: "broadcast", stride: 0},
	{name: "random", random: true},
	{name: "divergent", stride: 1, half: true},
}

func loopProgram() Program {
	rows := []Inst{
		{Opcode: "ld.global.f32", Class: ClassMem, Space: SpaceGlobal, MemOp: MemLoad, Width: 4, RegsWritten: []uint16{1}, RegsRead: []uint16{10}, PTX: "ld.global.f32 %f1, [%rd10];", File: "k.cu", Line: 7},
		{Opcode: "add.s64", Class: ClassALU, RegsRead: []uint16{11}, RegsWritten: []uint16{12}, PTX: "add.s64 %rd12, %rd11, %rd4;", File: "k.cu", Line: 7},
		{Opcode: "fma.rn.f32", Class: ClassFP32, RegsRead: []uint16{1, 2}, RegsWritten: []uint16{3}, PTX: "fma.rn.f32 %f3, %f1, %f2, %f3;", File: "k.cu", Line: 8},
		{Opcode: "ld.shared.f32", Class: ClassMem, Space: SpaceShared, MemOp: MemLoad, Width: 4, RegsRead: []uint16{12}, RegsWritten: []uint16{2}, PTX: "ld.shared.f32 %f2, [%r12];", File: "k.cu", Line: 8},
		{Opcode: "mul.f32", Class: ClassFP32, RegsRead: []uint16{2}, RegsWritten: []uint16{4}, PTX: "mul.f32 %f4, %f2, %f2;", File: "k.cu", Line: 9},
		{Opcode: "st.global.f32", Class: ClassMem, Space: SpaceGlobal, MemOp: MemStore, Width: 4, RegsRead: []uint16{13, 4}, PTX: "st.global.f32 [%rd13], %f4;", File: "k.cu", Line: 9},
		{Opcode: "setp.lt.s32", Class: ClassALU, RegsRead: []uint16{5}, RegsWritten: []uint16{6}, PTX: "setp.lt.s32 %p1, %r5, %r6;", File: "k.cu", Line: 6},
		{Opcode: "bra", Class: ClassControl, RegsRead: []uint16{6}, PTX: "@%p1 bra $L1;", File: "k.cu", Line: 6, Target: 1}, // to pc 0
	}
	for i := range rows {
		rows[i].PC = uint32(i)
	}
	return Program{Insts: rows}
}

func loopLaunch(name string, ctas, warps int) Launch {
	return Launch{
		Kernel: name, Grid: Dim3{uint32(ctas), 1, 1}, Block: Dim3{uint32(32 * warps), 1, 1},
		SharedBytes: 4096, RegsPerThread: 32, SIMT: SIMTStack, SourceHash: "00",
		PTXProducer: "synthetic", Program: loopProgram(),
	}
}

// loopCTA fills warps with iters iterations of the loop body in the given shape.
func loopCTA(sh shape, kernel, cta, ctas int, warps []*Warp, iters int, rng *rand.Rand) {
	const a, c = 0x7000_0000_0000, 0x7200_0000_0000
	gridThreads := uint64(ctas * len(warps) * 32)
	var lanes [32]uint64
	for w, wp := range warps {
		wp.Reset()
		wp.Kernel, wp.CTA, wp.Warp = kernel, cta, w
		tid0 := uint64((cta*len(warps) + w) * 32)
		for it := 0; it < iters; it++ {
			mask := uint32(0xFFFFFFFF)
			if sh.half {
				mask = 0x0000FFFF << (16 * uint(it&1))
			}
			elem := func(l int) uint64 {
				t := tid0 + uint64(l) + uint64(it)*gridThreads
				return t * uint64(sh.stride)
			}
			for l := range lanes {
				if sh.random {
					lanes[l] = a + rng.Uint64N(1<<30)&^3
				} else {
					lanes[l] = a + elem(l)*4
				}
			}
			wp.AppendMem(0, mask, 0, 0, &lanes)
			wp.Append(1, mask, 0, 0)
			wp.Append(2, mask, 0, 0)
			for l := range lanes { // shared: a row of the tile, by lane
				lanes[l] = uint64(l*4*max(sh.stride, 1)) % 4096
				if sh.random {
					lanes[l] = rng.Uint64N(1024) * 4
				}
			}
			wp.AppendMem(3, mask, 0, 0, &lanes)
			wp.Append(4, mask, 0, 0)
			for l := range lanes {
				if sh.random {
					lanes[l] = c + rng.Uint64N(1<<30)&^3
				} else {
					lanes[l] = c + elem(l)*4
				}
			}
			wp.AppendMem(5, mask, 0, 0, &lanes)
			wp.Append(6, mask, 0, 0)
			wp.Append(7, mask, 0, 0)
		}
	}
}

// randomProgram is a program table of n instructions with every memory space and op.
func randomProgram(n int, rng *rand.Rand) Program {
	p := Program{Insts: make([]Inst, n)}
	for i := range p.Insts {
		in := Inst{PC: uint32(i), Class: Class(rng.IntN(int(numClasses)))}
		if in.Class == ClassMem {
			// Every op in every space it can use, as checkMeta requires: texture
			// fetches, and only they, in the texture space.
			in.MemOp = MemOp(1 + rng.IntN(int(numMemOps)-1))
			in.Space = SpaceTexture
			if in.MemOp != MemTex {
				in.Space = Space(1 + rng.IntN(int(SpaceTexture)-1))
				if rng.IntN(6) == 0 {
					in.Space = SpaceGeneric
				}
			}
			in.Width = uint8(4 << rng.IntN(3))
			in.CacheOp = CacheOp(rng.IntN(int(numCacheOps)))
		}
		in.Opcode = fmt.Sprintf("%s.%d", in.Class, i)
		in.PTX = in.Opcode + " %r1, %r2;"
		if rng.IntN(2) == 0 {
			in.RegsRead = []uint16{uint16(rng.IntN(100)), uint16(rng.IntN(100))}
			in.RegsWritten = []uint16{uint16(rng.IntN(100))}
			in.File, in.Line = "src/k.cu", uint32(rng.IntN(500))
		}
		p.Insts[i] = in
	}
	return p
}

// randomWarp appends n random records: every address mode, random masks, flags and
// paths, texture fetches with coordinates.
func randomWarp(wp *Warp, n, progLen int, rng *rand.Rand) {
	var lanes [32]uint64
	var xy [32][2]int32
	for i := 0; i < n; i++ {
		pc := uint32(rng.IntN(progLen))
		var mask uint32
		switch rng.IntN(4) {
		case 0:
			mask = 0xFFFFFFFF
		case 1:
			mask = 1 << rng.IntN(32)
		case 2:
			mask = 0
		default:
			mask = rng.Uint32()
		}
		path, flags := uint16(rng.IntN(4)), Flags(rng.IntN(8))
		base := rng.Uint64()
		switch rng.IntN(6) {
		case 0:
			wp.Append(pc, mask, path, flags)
			continue
		case 1: // uniform
			for l := range lanes {
				lanes[l] = base
			}
		case 2: // stride, negative too
			s := int64(rng.IntN(512)) - 256
			for l := range lanes {
				lanes[l] = base + uint64(s*int64(l))
			}
		case 3: // near-coalesced with one odd lane
			for l := range lanes {
				lanes[l] = base + uint64(4*l)
			}
			lanes[rng.IntN(32)] += 64
		case 4:
			for l := range lanes {
				lanes[l] = rng.Uint64()
			}
		case 5: // texture
			for l := range lanes {
				xy[l] = [2]int32{rng.Int32N(256) - 8, rng.Int32N(256)}
				lanes[l] = 0x1000 + uint64(xy[l][1]*256+xy[l][0])*4
			}
			wp.AppendTex(pc, mask, path, flags, &lanes, &xy)
			continue
		}
		wp.AppendMem(pc, mask, path, flags, &lanes)
	}
}
