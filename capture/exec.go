package capture

import (
	"encoding/binary"
	"fmt"
	"math"
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
	local    []byte   // localSize bytes per lane, lane-major
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
	case opLd, opSt, opAtom, opRed:
		if err := w.memInst(in, pc, exec, path, fl); err != nil {
			return 0, 0, err
		}
		return ctlNext, exec, nil
	case opTex:
		if err := w.texInst(in, pc, exec, path, fl); err != nil {
			return 0, 0, err
		}
		return ctlNext, exec, nil
	}
	rec.Append(uint32(pc), exec, path, fl)
	if exec == 0 {
		return ctlNext, 0, nil
	}
	switch in.op {
	case opNop, opBarWarp:
	case opMov:
		d, a := w.slot(in.d[0]), w.slot(in.s[0])
		if exec == 0xffffffff {
			*d = *a
		} else {
			for m := exec; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m)
				d[l] = a[l]
			}
		}
	case opMovPack:
		d := w.slot(in.d[0])
		sh := uint(in.t2.bits())
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			var v uint64
			for i := int(in.ns) - 1; i >= 0; i-- {
				v = v<<sh | w.regs[int(in.s[i])*32+l]&in.t2.mask()
			}
			d[l] = v
		}
	case opMovUnpack:
		a := w.slot(in.s[0])
		sh := uint(in.t2.bits())
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			v := a[l]
			for i := 0; i < int(in.nd); i++ {
				if in.d[i] >= 0 {
					w.regs[int(in.d[i])*32+l] = v & in.t2.mask()
				}
				v >>= sh
			}
		}
	case opCvta:
		d, a := w.slot(in.d[0]), w.slot(in.s[0])
		var win uint64
		switch in.space {
		case msShared:
			win = SharedWindow
		case msLocal:
			win = LocalWindow
		case msConst:
			win = ConstWindow
		}
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if in.bop == 1 { // to space
				d[l] = a[l] - win
			} else {
				d[l] = a[l] + win
			}
		}
	case opCvt:
		d, a := w.slot(in.d[0]), w.slot(in.s[0])
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			d[l] = convert(in, a[l])
		}
	case opSetp:
		a, b := w.slot(in.s[0]), w.slot(in.s[1])
		r, ok := setpFast(in, a, b)
		if ok {
			r &= exec
		} else {
			for m := exec; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m)
				if compare(in.cmp, in.t, a[l], b[l]) {
					r |= 1 << l
				}
			}
		}
		notR := exec &^ r
		if in.flags&fCmpBool != 0 {
			c := w.preds[in.s[2]]
			if in.sneg&4 != 0 {
				c = ^c
			}
			r = predOp(in.bop, r, c) & exec
			notR = predOp(in.bop, notR, c) & exec
		}
		if in.d[0] >= 0 {
			w.preds[in.d[0]] = w.preds[in.d[0]]&^exec | r
		}
		if in.dp >= 0 {
			w.preds[in.dp] = w.preds[in.dp]&^exec | notR
		}
	case opSelp:
		d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
		p := w.preds[in.s[2]]
		if in.sneg&4 != 0 {
			p = ^p
		}
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if p>>l&1 != 0 {
				d[l] = a[l]
			} else {
				d[l] = b[l]
			}
		}
	case opPredLogic:
		a := w.preds[in.s[0]]
		if in.sneg&1 != 0 {
			a = ^a
		}
		var r uint32
		switch in.bop {
		case bopMov:
			r = a
		case bopNot:
			r = ^a
		default:
			b := w.preds[in.s[1]]
			if in.sneg&2 != 0 {
				b = ^b
			}
			r = predOp(in.bop, a, b)
		}
		w.preds[in.d[0]] = w.preds[in.d[0]]&^exec | r&exec
	case opSet:
		d, a, b := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1])
		var p uint32
		if in.flags&fCmpBool != 0 {
			p = w.preds[in.s[2]]
			if in.sneg&4 != 0 {
				p = ^p
			}
		}
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			d[l] = alu(in, a[l], b[l], uint64(p>>l&1))
		}
	case opShfl:
		w.shfl(in, exec)
	case opVote:
		w.vote(in, exec)
	case opActivemask:
		d := w.slot(in.d[0])
		for m := exec; m != 0; m &= m - 1 {
			d[bits.TrailingZeros32(m)] = uint64(active)
		}
	default:
		w.lanewise(in, exec)
	}
	return ctlNext, exec, nil
}

// vote evaluates vote(.sync) for each lane over the lanes of its own membermask: the
// lanes of a warp may name different masks (a tile of 8 passes its 8 lanes), and each
// lane's result covers only the lanes its mask names (PTX ISA, vote.sync).
func (w *warpState) vote(in *instr, exec uint32) {
	src := w.preds[in.s[0]]
	if in.sneg&1 != 0 {
		src = ^src
	}
	ms := w.slot(in.s[1])
	var d *[32]uint64
	if in.bop == voteBallot {
		d = w.slot(in.d[0])
	}
	var truth uint32
	for m := exec; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		part := exec & uint32(ms[lane])
		v := src & part
		var r bool
		switch in.bop {
		case voteBallot:
			d[lane] = uint64(v)
			continue
		case voteAll:
			r = v == part
		case voteAny:
			r = v != 0
		case voteUni:
			r = v == 0 || v == part
		}
		if r {
			truth |= 1 << lane
		}
	}
	if in.bop != voteBallot && in.d[0] >= 0 {
		w.preds[in.d[0]] = w.preds[in.d[0]]&^exec | truth
	}
}

func predOp(op uint8, a, b uint32) uint32 {
	switch op {
	case bopAnd:
		return a & b
	case bopOr:
		return a | b
	case bopXor:
		return a ^ b
	}
	return a
}

// lanewise runs an arithmetic instruction over the executing lanes. The common
// integer forms have their own loops; everything else goes through alu.
func (w *warpState) lanewise(in *instr, exec uint32) {
	d := w.slot(in.d[0])
	a, b, c := w.slot(in.s[0]), w.slot(in.s[1]), w.slot(in.s[2])
	if exec == 0xffffffff {
		switch {
		case in.op == opAdd && (in.t == tS32 || in.t == tU32 || in.t == tB32) && in.flags&fSat == 0:
			for l := 0; l < 32; l++ {
				d[l] = uint64(uint32(a[l] + b[l]))
			}
			return
		case in.op == opAdd && in.t.size() == 8 && !in.t.float():
			for l := 0; l < 32; l++ {
				d[l] = a[l] + b[l]
			}
			return
		case in.op == opAdd && in.t == tF32 && in.flags&(fFTZ|fSat) == 0:
			for l := 0; l < 32; l++ {
				d[l] = uint64(math.Float32bits(math.Float32frombits(uint32(a[l])) + math.Float32frombits(uint32(b[l]))))
			}
			return
		case in.op == opMulF && in.t == tF32 && in.flags&(fFTZ|fSat) == 0:
			for l := 0; l < 32; l++ {
				d[l] = uint64(math.Float32bits(math.Float32frombits(uint32(a[l])) * math.Float32frombits(uint32(b[l]))))
			}
			return
		case in.op == opFma && in.t == tF32 && in.flags&(fFTZ|fSat) == 0:
			for l := 0; l < 32; l++ {
				x, y, z := math.Float32frombits(uint32(a[l])), math.Float32frombits(uint32(b[l])), math.Float32frombits(uint32(c[l]))
				d[l] = uint64(math.Float32bits(FMA32(x, y, z)))
			}
			return
		case in.op == opNeg && in.t == tF32:
			for l := 0; l < 32; l++ {
				d[l] = a[l] ^ 0x80000000
			}
			return
		case in.op == opSub && (in.t == tS32 || in.t == tU32) && in.flags&fSat == 0:
			for l := 0; l < 32; l++ {
				d[l] = uint64(uint32(a[l] - b[l]))
			}
			return
		case in.op == opShr && in.t == tU32:
			for l := 0; l < 32; l++ {
				if uint32(b[l]) < 32 {
					d[l] = uint64(uint32(a[l]) >> uint32(b[l]))
				} else {
					d[l] = 0
				}
			}
			return
		case in.op == opMulWide && in.t == tU32:
			for l := 0; l < 32; l++ {
				d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
			}
			return
		case in.op == opMulWide && in.t == tS32:
			for l := 0; l < 32; l++ {
				d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
			}
			return
		case in.op == opMadLo && in.t.size() == 4:
			for l := 0; l < 32; l++ {
				d[l] = uint64(uint32(a[l]*b[l] + c[l]))
			}
			return
		case in.op == opMulLo && in.t.size() == 4:
			for l := 0; l < 32; l++ {
				d[l] = uint64(uint32(a[l] * b[l]))
			}
			return
		case in.op == opShl && in.t.size() == 4:
			for l := 0; l < 32; l++ {
				if uint32(b[l]) < 32 {
					d[l] = uint64(uint32(a[l]) << uint32(b[l]))
				} else {
					d[l] = 0
				}
			}
			return
		case in.op == opAnd:
			for l := 0; l < 32; l++ {
				d[l] = a[l] & b[l]
			}
			return
		}
	}
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = alu(in, a[l], b[l], c[l])
	}
}

// shfl implements shfl.sync (PTX ISA, "shfl.sync": source lane j from b and c; out of
// range keeps the lane's own value and clears the optional predicate).
func (w *warpState) shfl(in *instr, exec uint32) {
	d, a, b, c := w.slot(in.d[0]), w.slot(in.s[0]), w.slot(in.s[1]), w.slot(in.s[2])
	var src [32]uint64
	copy(src[:], a[:])
	var ok uint32
	for m := exec; m != 0; m &= m - 1 {
		lane := int32(bits.TrailingZeros32(m))
		bval := int32(b[lane] & 31)
		cval := int32(c[lane] & 31)
		segmask := int32(c[lane] >> 8 & 31)
		maxLane := lane&segmask | cval&^segmask
		minLane := lane & segmask
		var j int32
		var pval bool
		switch in.bop {
		case shflUp:
			j = lane - bval
			pval = j >= maxLane
		case shflDown:
			j = lane + bval
			pval = j <= maxLane
		case shflBfly:
			j = lane ^ bval
			pval = j <= maxLane
		case shflIdx:
			j = minLane | bval&^segmask
			pval = j <= maxLane
		}
		if !pval {
			j = lane
		} else {
			ok |= 1 << lane
		}
		d[lane] = src[j] & 0xffffffff
	}
	if in.dp >= 0 {
		w.preds[in.dp] = w.preds[in.dp]&^exec | ok
	}
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
		if a == nil || addr < a.base || addr+uint64(n) > a.end() {
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
		base := uint64(l) * ls
		return w.local[base+addr : base+addr+uint64(n)], w.localAddr(l, addr), nil
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
	off := uint64(in.off)
	if in.op == opLd && base != nil && in.space == msGlobal && in.vec == 1 && es == 4 {
		// The hot path: a scalar 32-bit global load.
		d := w.slot(in.d[0])
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			addr := base[l] + off
			a := w.cache
			if a == nil || addr < a.base || addr+4 > a.end() || addr&3 != 0 {
				b, rec, err := w.access(in, pc, l, msGlobal, addr, 4, false)
				if err != nil {
					return err
				}
				w.lanes[l] = rec
				d[l] = uint64(binary.LittleEndian.Uint32(b))
				continue
			}
			w.lanes[l] = addr
			d[l] = uint64(binary.LittleEndian.Uint32(a.bytes(addr, 4, false)))
		}
		w.appendMem(pc, exec, path, fl)
		return nil
	}
	if in.space == msShared && base != nil && in.vec == 1 && es == 4 && in.op <= opSt {
		// The other hot path: scalar 32-bit shared loads and stores.
		sh := w.c.shared
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			addr := base[l] + off
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
			addr += base[l]
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
	if w.oobHit {
		fl |= format.FlagOOB
		w.oobHit = false
	}
	w.rec.AppendMem(uint32(pc), exec, path, fl, &w.lanes)
}

// atomic performs one lane's read-modify-write. Lanes are served in ascending lane
// order, warps in the CTA's round-robin order: the order is part of the capture.
func (w *warpState) atomic(in *instr, l int, b []byte) {
	old := loadN(b)
	x := w.regs[int(in.s[0])*32+l]
	t := in.t
	var nv uint64
	switch in.bop {
	case atomAdd:
		switch t {
		case tF32:
			nv = uint64(math.Float32bits(f32(old) + f32(x)))
		case tF64:
			nv = f64r(f64(old) + f64(x))
		default:
			nv = (old + x) & t.mask()
		}
	case atomMin, atomMax:
		tmp := instr{op: opMin, t: t}
		if in.bop == atomMax {
			tmp.op = opMax
		}
		if t == tB32 {
			tmp.t = tU32
		} else if t == tB64 {
			tmp.t = tU64
		}
		nv = minMax(&tmp, old, x)
	case atomExch:
		nv = x
	case atomCAS:
		nv = old
		if old == x&t.mask() {
			nv = w.regs[int(in.s[1])*32+l]
		}
	case atomAnd:
		nv = old & x
	case atomOr:
		nv = old | x
	case atomXor:
		nv = old ^ x
	case atomInc:
		if uint32(old) >= uint32(x) {
			nv = 0
		} else {
			nv = old + 1
		}
	case atomDec:
		if uint32(old) == 0 || uint32(old) > uint32(x) {
			nv = x
		} else {
			nv = old - 1
		}
	}
	nv &= t.mask()
	if nv != old {
		storeN(b, nv)
		w.c.epoch++
	}
	if in.op == opAtom && in.d[0] >= 0 {
		w.regs[int(in.d[0])*32+l] = old
	}
}

// texInst fetches texels with point sampling and clamp addressing over unnormalised
// coordinates; a one-channel texture returns (texel, 0, 0, 1).
func (w *warpState) texInst(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	if exec == 0 {
		w.rec.Append(uint32(pc), 0, path, fl)
		return nil
	}
	h, xs, ys := w.slot(in.base), w.slot(in.s[0]), w.slot(in.s[1])
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		handle := h[l]
		if handle == 0 || handle > uint64(len(w.c.k.texs)) {
			return w.fault(FaultOutOfBounds, pc, l, handle, "", fmt.Sprintf("texture handle %#x is not a tex2d argument", handle))
		}
		t := w.c.k.texs[handle-1]
		var x, y int
		if in.t2 == tF32 {
			fx, fy := float64(f32(xs[l])), float64(f32(ys[l]))
			x, y = clampCoord(fx, t.w), clampCoord(fy, t.h)
		} else {
			x, y = clampInt(int(int32(xs[l])), t.w), clampInt(int(int32(ys[l])), t.h)
		}
		off := t.texOffset(x, y)
		w.lanes[l] = t.base + off
		w.xy[l] = [2]int32{int32(x), int32(y)}
		v := loadN(t.data[off : off+uint64(t.elem)])
		var r0, one uint64
		switch in.t {
		case tF32:
			one = uint64(math.Float32bits(1))
			switch t.typ {
			case "f32":
				r0 = v
			case "f64":
				r0 = uint64(math.Float32bits(float32(f64(v))))
			default: // integer texel read as float: its value (cudaReadModeElementType)
				r0 = uint64(math.Float32bits(float32(int64(vtypeOfArg(t.typ).ext(v)))))
			}
		default:
			one = 1
			r0 = vtypeOfArg(t.typ).ext(v) & 0xffffffff
			if t.typ == "f32" {
				r0 = v
			}
		}
		vals := [4]uint64{r0, 0, 0, one}
		for i := 0; i < 4; i++ {
			if d := in.d[i]; d >= 0 {
				w.regs[int(d)*32+l] = vals[i]
			}
		}
	}
	w.rec.AppendTex(uint32(pc), exec, path, fl, &w.lanes, &w.xy)
	return nil
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

func clampCoord(f float64, n int) int {
	if f != f {
		return 0
	}
	return clampInt(int(math.Max(math.Min(math.Floor(f), float64(n)), -1)), n)
}

func clampInt(x, n int) int {
	if x < 0 {
		return 0
	}
	if x >= n {
		return n - 1
	}
	return x
}

// setpFast compares all 32 lanes for the common integer types (comparisons have no
// side effects, so inactive lanes are computed and masked off by the caller).
func setpFast(in *instr, a, b *[32]uint64) (uint32, bool) {
	switch in.t {
	case tS32:
		return cmpLanes[int32](in.cmp, a, b)
	case tU32, tB32:
		return cmpLanes[uint32](in.cmp, a, b)
	case tS64:
		return cmpLanes[int64](in.cmp, a, b)
	case tU64, tB64:
		return cmpLanes[uint64](in.cmp, a, b)
	}
	return 0, false
}

func cmpLanes[T int32 | uint32 | int64 | uint64](cmp uint8, a, b *[32]uint64) (uint32, bool) {
	var r uint32
	switch cmp {
	case cmpEQ:
		for l := 0; l < 32; l++ {
			if T(a[l]) == T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpNE:
		for l := 0; l < 32; l++ {
			if T(a[l]) != T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpLT, cmpLO:
		for l := 0; l < 32; l++ {
			if T(a[l]) < T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpLE, cmpLS:
		for l := 0; l < 32; l++ {
			if T(a[l]) <= T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpGT, cmpHI:
		for l := 0; l < 32; l++ {
			if T(a[l]) > T(b[l]) {
				r |= 1 << l
			}
		}
	case cmpGE, cmpHS:
		for l := 0; l < 32; l++ {
			if T(a[l]) >= T(b[l]) {
				r |= 1 << l
			}
		}
	default:
		return 0, false
	}
	return r, true
}
