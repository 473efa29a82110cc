package format

import "math/bits"

// Summary is what `gtrace inspect` prints: per kernel, the launch geometry and what its
// warps executed, and for the file, its size per warp-instruction.
type Summary struct {
	Version          Version
	Producer         string
	Kernels          []KernelSummary
	Warps            uint64 // all kernels
	WarpInsts        uint64
	FileBytes        int64
	BytesPerWarpInst float64 // FileBytes / WarpInsts; 0 for an empty trace
	// Batches is the file's record batches; Groups the groups of CTAs they hold, of
	// which Windowed are cut into several row windows (V3; see Windows in doc.go).
	Batches, Groups, Windowed int
}

// KernelSummary describes one launch.
type KernelSummary struct {
	Kernel        string
	Grid, Block   Dim3
	SharedBytes   uint32
	RegsPerThread uint32
	SIMT          SIMTModel
	Code          string // where the instructions came from: the launch's PTXProducer
	CTAs          int
	Warps         uint64 // CTAs × warps per CTA
	WarpInsts     uint64
	ActiveLanes   uint64       // sum of active lanes over warp-instructions; /32/WarpInsts is SIMD efficiency
	ByClass       []ClassCount // non-zero classes, in Class order
	MemBySpace    []SpaceCount // memory warp-instructions (MemOp != none) by space, in Space order
	OOBWarn       bool         // captured under --oob=warn (Launch.OOBWarn)
	OOB           []PCCount    // under OOBWarn, the records with FlagOOB by pc, in pc order
}

// PCCount is a number of warp-instructions at one pc.
type PCCount struct {
	PC uint32
	N  uint64
}

// ClassCount is a number of warp-instructions of one class.
type ClassCount struct {
	Class Class
	N     uint64
}

// SpaceCount is a number of memory warp-instructions in one space.
type SpaceCount struct {
	Space Space
	N     uint64
}

// Summarize reads the whole trace once.
func Summarize(r *Reader) (*Summary, error) {
	m := r.Meta()
	s := &Summary{Version: m.Version, Producer: m.Producer, FileBytes: r.Size(), Kernels: make([]KernelSummary, len(m.Launches))}
	s.Batches, s.Groups = len(r.blocks), len(r.groups)-1
	for g := range s.Groups {
		if r.groups[g+1]-r.groups[g] > 1 {
			s.Windowed++
		}
	}
	type counts struct {
		class [numClasses]uint64
		space [numSpaces]uint64
		oob   []uint64 // by pc, under OOBWarn
	}
	cs := make([]counts, len(m.Launches))
	for k := range m.Launches {
		l := &m.Launches[k]
		s.Kernels[k] = KernelSummary{
			Kernel: l.Kernel, Grid: l.Grid, Block: l.Block, SharedBytes: l.SharedBytes,
			RegsPerThread: l.RegsPerThread, SIMT: l.SIMT, Code: l.PTXProducer, CTAs: r.NumCTAs(k),
			Warps: uint64(r.NumCTAs(k)) * uint64(l.WarpsPerCTA()), OOBWarn: l.OOBWarn,
		}
		if l.OOBWarn {
			cs[k].oob = make([]uint64, len(l.Program.Insts))
		}
		s.Warps += s.Kernels[k].Warps
	}
	for w, err := range r.All() {
		if err != nil {
			return nil, err
		}
		ks, c, prog := &s.Kernels[w.Kernel], &cs[w.Kernel], m.Launches[w.Kernel].Program.Insts
		ks.WarpInsts += uint64(w.Len())
		for i, pc := range w.PC {
			in := &prog[pc]
			c.class[in.Class]++ // Class and Space are in range: decodeMeta checked the names
			if in.MemOp != MemNone {
				c.space[in.Space]++
			}
			ks.ActiveLanes += uint64(bits.OnesCount32(w.Mask[i]))
			if w.Flags[i]&FlagOOB != 0 {
				c.oob[pc]++ // only an OOBWarn launch has the flag: the reader checked
			}
		}
	}
	for k := range s.Kernels {
		ks := &s.Kernels[k]
		for cl, n := range cs[k].class {
			if n > 0 {
				ks.ByClass = append(ks.ByClass, ClassCount{Class(cl), n})
			}
		}
		for sp, n := range cs[k].space {
			if n > 0 {
				ks.MemBySpace = append(ks.MemBySpace, SpaceCount{Space(sp), n})
			}
		}
		for pc, n := range cs[k].oob {
			if n > 0 {
				ks.OOB = append(ks.OOB, PCCount{uint32(pc), n})
			}
		}
		s.WarpInsts += ks.WarpInsts
	}
	if s.WarpInsts > 0 {
		s.BytesPerWarpInst = float64(s.FileBytes) / float64(s.WarpInsts)
	}
	return s, nil
}
