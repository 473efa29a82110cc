package capture

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/gtrace/gtrace/format"
)

// ctl is what an executed instruction asks of the SIMT layer.
type ctl uint8

const (
	ctlNext   ctl = iota // continue at pc+1
	ctlBranch            // lanes in the mask go to target, the others to pc+1
	ctlCall              // the lanes in the mask enter the callee
	ctlExit              // the lanes in the mask have exited
	ctlBar               // the lanes in the mask arrived at a CTA barrier
)

// warpState is one warp's architectural state.
type warpState struct {
	c   *cta
	idx int

	regs     []uint64 // slot s, lane l at regs[s*32+l]
	preds    []uint32 // one mask per predicate register
	local    localMem // localSize bytes per lane
	fparam   []byte   // fparamSize bytes per lane, lane-major
	callSite []int32  // per function, per lane: the pc of the call being served

	valid  uint32 // lanes that exist (a partial last warp has fewer)
	exited uint32
	done   bool

	rec        *format.Warp
	ninst      uint64
	held       int                  // rec.Bytes() when the CTA last looked
	heldCap    int                  // rec.CapBytes() when the CTA last looked
	oobScratch [maxAccessBytes]byte // under OOBWarn, what an out-of-bounds access reads or writes
	oobHit     bool                 // under OOBWarn, the instruction being executed had a lane out of bounds
	nextPath   uint16

	stack []stackEntry // stack mode
	its   itsState     // ITS mode

	// mbarrier: a test_wait found its phase open, so the warp's turn ends after it; the
	// try_wait the warp waits at, while it does.
	yieldNow bool
	mbarWait mbarWait

	// CTA barrier wait.
	blocked bool
	barID   int
	barPC   int32
	barMask uint32

	// livelock detection (stack mode)
	lastEvent uint64
	seen      map[uint64]uint64
	sampleN   int

	lanes [32]uint64
	xy    [32][2]int32
	cache *alloc // last global allocation touched
}

func (w *warpState) slot(s int32) *[32]uint64 {
	return (*[32]uint64)(w.regs[int(s)*32 : int(s)*32+32])
}

func (w *warpState) newPath() uint16 {
	w.nextPath++
	if w.nextPath == 0 {
		w.nextPath = 1
	}
	return w.nextPath
}

func (w *warpState) guardMask(in *instr, active uint32) uint32 {
	if in.guard < 0 {
		return active
	}
	g := w.preds[in.guard]
	if in.gneg {
		g = ^g
	}
	return active & g
}

func (w *warpState) fault(kind FaultKind, pc int32, lane int, addr uint64, buf, reason string) *Fault {
	f := &Fault{Kind: kind, Kernel: w.c.k.spec.Kernel, CTA: w.c.id, Thread: -1, PC: int(pc), Addr: addr, Buffer: buf, Reason: reason}
	if lane >= 0 {
		f.Thread = w.idx*32 + lane
	}
	if pc >= 0 && int(pc) < len(w.c.k.insts) {
		f.Inst = w.c.k.insts[pc].PTX
	}
	return f
}

// step executes the instruction at pc for the active lanes and appends its record.
// It returns what the SIMT layer must do next and the lanes that do it.
func (w *warpState) step(pc int32, active uint32, path uint16, fl format.Flags) (ctl, uint32, error) {
	k := w.c.k
	in := &k.prog[pc]
	exec := w.guardMask(in, active)
	w.ninst++
	if w.ninst > k.maxInst {
		return 0, 0, w.fault(FaultBudget, pc, -1, 0, "", fmt.Sprintf("warp %d exceeded the instruction budget of %d warp-instructions (--max-inst)", w.idx, k.maxInst))
	}
	rec := w.rec
	switch in.op {
	case opBra:
		if exec != 0 && exec != active {
			fl |= format.FlagSplit
		}
		rec.Append(uint32(pc), active, path, fl)
		return ctlBranch, exec, nil
	case opRet:
		if exec != 0 && exec != active {
			fl |= format.FlagSplit
		}
		rec.Append(uint32(pc), active, path, fl)
		return ctlBranch, exec, nil
	case opExit:
		rec.Append(uint32(pc), active, path, fl)
		return ctlExit, exec, nil
	case opCall:
		rec.Append(uint32(pc), exec, path, fl)
		ps := int(k.fparamSize)
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			p := w.fparam[l*ps : (l+1)*ps]
			for _, c := range in.copies {
				copy(p[c.to:c.to+c.size], p[c.from:c.from+c.size])
			}
			w.callSite[int(in.target)*32+l] = pc
		}
		return ctlCall, exec, nil
	case opBar:
		rec.Append(uint32(pc), exec, path, fl)
		return ctlBar, exec, nil
	case opTrap:
		rec.Append(uint32(pc), exec, path, fl)
		if exec != 0 {
			return 0, 0, w.fault(FaultTrap, pc, bits.TrailingZeros32(exec), 0, "", "trap executed")
		}
		return ctlNext, 0, nil
	case opLd, opSt, opAtom, opRed, opLdmatrix, opMma, opCpAsync, opTex, opMbarrier:
		if err := w.selfRecorded(in, pc, exec, path, fl); err != nil {
			return 0, 0, err
		}
		return ctlNext, exec, nil
	case opSyscall:
		rec.Append(uint32(pc), exec, path, fl)
		if err := w.syscall(in, pc, exec); err != nil {
			return 0, 0, err
		}
		return ctlNext, exec, nil
	}
	rec.Append(uint32(pc), exec, path, fl)
	if exec == 0 {
		return ctlNext, 0, nil
	}
	if in.run != nil {
		in.run(w, in, exec, active)
	}
	return ctlNext, exec, nil
}

// selfRecorded executes an instruction that appends its own record (memory accesses
// with each lane's address, an mma after its warp check) and may fault.
func (w *warpState) selfRecorded(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	switch in.op {
	case opLdmatrix:
		return w.ldmatrix(in, pc, exec, path, fl)
	case opMma:
		return w.mma(in, pc, exec, path, fl)
	case opCpAsync:
		return w.cpAsync(in, pc, exec, path, fl)
	case opTex:
		return w.texInst(in, pc, exec, path, fl)
	case opMbarrier:
		return w.mbarrier(in, pc, exec, path, fl)
	}
	return w.memInst(in, pc, exec, path, fl)
}

// access resolves lane l's access of n bytes at addr in space sp. It returns the
// backing bytes (nil with an error on a fault) and the address the trace records.
func (w *warpState) access(in *instr, pc int32, l int, sp mspace, addr uint64, n int, write bool) ([]byte, uint64, error) {
	c := w.c
	k := c.k
	if addr&uint64(n-1) != 0 && n&(n-1) == 0 {
		return nil, 0, w.fault(FaultMisaligned, pc, l, addr, c.nearest(sp, addr), fmt.Sprintf("misaligned %d-byte %s access at %#x", n, spaceName(sp), addr))
	}
	if sp == msGeneric {
		switch {
		case addr-SharedWindow < windowSize:
			b, _, err := w.access(in, pc, l, msShared, addr-SharedWindow, n, write)
			return b, addr, err
		case addr-LocalWindow < windowSize:
			return w.access(in, pc, l, msLocal, addr-LocalWindow, n, write)
		case addr-ConstWindow < windowSize:
			if write {
				return nil, 0, w.fault(FaultOutOfBounds, pc, l, addr, "", "store to constant memory")
			}
			b, _, err := w.access(in, pc, l, msConst, addr-ConstWindow, n, write)
			return b, addr, err
		}
		sp = msGlobal
	}
	oob := func(size int, what string) ([]byte, uint64, error) {
		return w.outOfBounds(pc, l, sp, addr, n, write, func() string { return fmt.Sprintf("%s [0, +%d)", what, size) })
	}
	switch sp {
	case msGlobal:
		a := w.cache
		if a == nil || !a.holds(addr, n) {
			a = c.gmem.find(addr, n)
			if a == nil {
				return w.outOfBounds(pc, l, sp, addr, n, write, func() string { return c.gmem.nearest(addr) })
			}
			w.cache = a
		}
		return a.bytes(addr, n, write), addr, nil
	case msShared:
		if addr+uint64(n) > uint64(len(c.shared)) || addr+uint64(n) < addr {
			return oob(len(c.shared), "shared memory")
		}
		return c.shared[addr : addr+uint64(n)], addr, nil
	case msLocal:
		ls := uint64(k.localSize)
		if addr+uint64(n) > ls || addr+uint64(n) < addr {
			return oob(int(ls), "local memory")
		}
		return w.local.bytes(l, addr, n, write), w.localAddr(l, addr), nil
	case msConst:
		if addr+uint64(n) > uint64(len(k.constBank)) || addr+uint64(n) < addr {
			return oob(len(k.constBank), "constant bank")
		}
		if write {
			return nil, 0, w.fault(FaultOutOfBounds, pc, l, addr, "", "store to constant memory")
		}
		return k.constBank[addr : addr+uint64(n)], addr, nil
	case msParamK:
		if addr+uint64(n) > uint64(len(k.kparam)) || addr+uint64(n) < addr {
			return oob(len(k.kparam), "kernel parameters")
		}
		if write {
			return nil, 0, w.fault(FaultOutOfBounds, pc, l, addr, "", "store to kernel parameters")
		}
		return k.kparam[addr : addr+uint64(n)], addr, nil
	case msParamF:
		ps := uint64(k.fparamSize)
		if addr+uint64(n) > ps {
			return oob(int(ps), "function parameters")
		}
		base := uint64(l) * ps
		return w.fparam[base+addr : base+addr+uint64(n)], addr, nil
	}
	return nil, 0, w.fault(FaultUnsupported, pc, l, addr, "", "access to an unsupported state space")
}

// laneAddr is lane l's address operand of in: its register plus the offset, in the
// register's width (in.amask), or the offset alone.
func (w *warpState) laneAddr(in *instr, l int) uint64 {
	if in.base < 0 {
		return uint64(in.off)
	}
	return (uint64(in.off) + w.regs[int(in.base)*32+l]) & in.amask
}

// localAddr is where the trace places byte off of lane l's local memory
// (format.LocalAddr).
func (w *warpState) localAddr(l int, off uint64) uint64 {
	gw := uint64(w.c.id)*uint64(w.c.nwarps) + uint64(w.idx)
	return format.LocalAddr(gw, uint64(w.c.k.localSize), l, off)
}

func loadN(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// storeN writes v little-endian into b, whose length (1, 2, 4 or 8) is the width.
func storeN(b []byte, v uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	}
}

func (w *warpState) memInst(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	if exec == 0 {
		w.rec.Append(uint32(pc), 0, path, fl)
		return nil
	}
	var base *[32]uint64
	if in.base >= 0 {
		base = w.slot(in.base)
	}
	es := in.t.size()
	n := int(in.width)
	off, am := uint64(in.off), in.amask
	if in.space == msGlobal && base != nil && in.vec == 1 && es == 4 && in.op <= opSt {
		// The hot path: scalar 32-bit global loads and stores, through the allocation
		// the warp used last. The CTA's write epoch (the livelock detector's clock) only
		// needs to move: once per store instruction.
		write := in.op == opSt
		r := in.d[0] // the register loaded, or stored
		if write {
			r = in.s[0]
		}
		reg := w.slot(r)
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			addr := (base[l] + off) & am
			var b []byte
			if a := w.cache; a == nil || !a.holds(addr, 4) || addr&3 != 0 {
				var rec uint64
				var err error
				if b, rec, err = w.access(in, pc, l, msGlobal, addr, 4, write); err != nil {
					return err
				}
				w.lanes[l] = rec
			} else {
				w.lanes[l] = addr
				b = a.bytes(addr, 4, write)
			}
			if write {
				binary.LittleEndian.PutUint32(b, uint32(reg[l]))
			} else {
				reg[l] = uint64(binary.LittleEndian.Uint32(b))
			}
		}
		if write {
			w.c.epoch++
		}
		w.appendMem(pc, exec, path, fl)
		return nil
	}
	if base == nil && in.op == opLd && in.vec == 1 && (in.space == msParamK || in.space == msConst) {
		// A kernel parameter or a constant at a fixed address: every lane reads the same
		// bytes, so one lookup serves the warp (each lane looks again once one was out of
		// bounds under --oob=warn, which counts lanes).
		var b []byte
		var rec, v uint64
		d := in.d[0]
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if b == nil || w.oobHit {
				var err error
				if b, rec, err = w.access(in, pc, l, in.space, off, n, false); err != nil {
					return err
				}
				v = in.t.ext(loadN(b[:es])) & maskFor(in.t2)
			}
			w.lanes[l] = rec
			if d >= 0 {
				w.regs[int(d)*32+l] = v
			}
		}
		w.appendMem(pc, exec, path, fl)
		return nil
	}
	if in.space == msShared && base != nil && in.vec == 1 && es == 4 && in.op <= opSt {
		// The other hot path: scalar 32-bit shared loads and stores.
		sh := w.c.shared
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			addr := (base[l] + off) & am
			b := sh[min(addr, uint64(len(sh))):]
			if addr&3 != 0 || addr+4 > uint64(len(sh)) {
				// A fault, or under OOBWarn zeros to read or a write to drop.
				var err error
				if b, _, err = w.access(in, pc, l, msShared, addr, 4, in.op == opSt); err != nil {
					return err
				}
			}
			w.lanes[l] = addr
			if in.op == opLd {
				w.regs[int(in.d[0])*32+l] = in.t.ext(uint64(binary.LittleEndian.Uint32(b))) & maskFor(in.t2)
			} else {
				binary.LittleEndian.PutUint32(b, uint32(w.regs[int(in.s[0])*32+l]))
			}
		}
		if in.op == opSt {
			w.c.epoch++
		}
		w.appendMem(pc, exec, path, fl)
		return nil
	}
	atomicLock := in.op >= opAtom && w.c.lockAtomics && in.space != msShared
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addr := off
		if base != nil {
			addr = (addr + base[l]) & am
		}
		b, rec, err := w.access(in, pc, l, in.space, addr, n, in.op != opLd)
		if err != nil {
			return err
		}
		w.lanes[l] = rec
		switch in.op {
		case opLd:
			for i := 0; i < int(in.vec); i++ {
				v := loadN(b[i*es : (i+1)*es])
				if d := in.d[i]; d >= 0 {
					w.regs[int(d)*32+l] = in.t.ext(v) & maskFor(in.t2)
				}
			}
		case opSt:
			for i := 0; i < int(in.vec); i++ {
				storeN(b[i*es:(i+1)*es], w.regs[int(in.s[i])*32+l])
			}
			w.c.epoch++
		default:
			if atomicLock {
				mu := &w.c.gmem.locks[(addr>>3)&63]
				mu.Lock()
				w.atomic(in, l, b)
				mu.Unlock()
			} else {
				w.atomic(in, l, b)
			}
		}
	}
	w.appendMem(pc, exec, path, fl)
	return nil
}

// appendMem records a memory instruction with the lanes' addresses in w.lanes, marked
// FlagOOB when a lane was out of bounds (under OOBWarn).
func (w *warpState) appendMem(pc int32, exec uint32, path uint16, fl format.Flags) {
	w.rec.AppendMem(uint32(pc), exec, path, w.oobFlag(fl), &w.lanes)
}

// oobFlag is fl with FlagOOB when the access just made read past a buffer under
// --oob=warn, and clears that mark for the next access.
func (w *warpState) oobFlag(fl format.Flags) format.Flags {
	if w.oobHit {
		fl |= format.FlagOOB
		w.oobHit = false
	}
	return fl
}

func vtypeOfArg(t string) vtype {
	switch t {
	case "i8":
		return tS8
	case "u8":
		return tU8
	case "i16":
		return tS16
	case "u16":
		return tU16
	case "i32":
		return tS32
	case "u32":
		return tU32
	case "i64":
		return tS64
	case "u64":
		return tU64
	case "f32":
		return tF32
	}
	return tF64
}
