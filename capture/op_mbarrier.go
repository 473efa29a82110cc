package capture

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/gtrace/gtrace/format"
)

// mbarrier: barriers in shared memory (PTX ISA 8.x, "Parallel Synchronization and
// Communication Instructions: mbarrier"). Each thread that arrives counts once (or
// count times); a phase completes when its pending count reaches zero, and the next
// phase starts with the expected count. Waits test a phase by the state an arrive
// returned or by its parity.
//
// The object's 64 bits are opaque to a program; capture keeps them in shared memory
// as: bit 63 the current phase's parity, bit 62 set once initialised, bits 21–41 the
// expected count, bits 0–20 the pending count. A state is the object as the arrive
// found it (pending_count reads its pending count, which an H100 agrees with:
// TestOpCasesOnGPU's mbarrier.phases).
//
// try_wait waits, as the PTX ISA allows ("the executing thread may be suspended"), until
// the phase completes: capture puts off the instruction until then and records it
// once. (How often a GPU's hardware wait comes back unfinished is not measured yet:
// ptxas puts the retry out of line; traces/hw/h100-2026-11-27-mbarrier.) A test_wait that finds the phase open ends the
// warp's turn, so that a loop around it spins once per round of the other warps. An H100
// counts no mbarrier operation as a shared-memory access or instruction (the same run:
// every shared counter equals bar.sync's), so the trace records them as sync
// instructions without addresses. Transaction counts (expect_tx, complete_tx), which
// come with bulk copies, and cluster-wide barriers are not modelled.
var mbarrierFamily = opFamily{name: "shared-memory barriers", rules: []opRule{
	{names: []string{"mbarrier"}, decode: decodeMbarrier,
		doc: ".init .inval .arrive (.noComplete, a count) .arrive_drop .test_wait\n.try_wait (.parity) .pending_count; .b64; .shared{::cta} or generic;\nno .expect_tx, .complete_tx or .shared::cluster; and\ncp.async.mbarrier.arrive{.noinc} (a cp.async form)"},
}}

// mbarrier operations (in.bop) and their modifiers (in.imm).
const (
	mbInit uint8 = iota
	mbInval
	mbArrive // arrive, arrive_drop, cp.async.mbarrier.arrive.noinc: count arrivals
	mbTestWait
	mbTryWait
	mbPending
	mbCpAsync // cp.async.mbarrier.arrive without .noinc: no arrival of its own

	mbDrop       = 1 << 0 // arrive_drop: the arrivals leave the expected count too
	mbNoComplete = 1 << 1 // .noComplete: the arrive must not complete the phase
	mbParity     = 1 << 2 // a wait's operand is a phase parity, not a state

	mbPhase    = uint64(1) << 63
	mbValid    = uint64(1) << 62
	mbExpShift = 21
	mbCount    = uint64(1)<<mbExpShift - 1
	mbMaxCount = 1<<20 - 1 // PTX ISA: count is in [1, 2^20 - 1]
)

var mbarrierOps = map[string]uint8{"init": mbInit, "inval": mbInval, "arrive": mbArrive, "arrive_drop": mbArrive,
	"test_wait": mbTestWait, "try_wait": mbTryWait, "pending_count": mbPending}

func decodeMbarrier(r *resolver) error {
	in, m := r.in, &r.m
	if len(r.parts) < 2 {
		return r.fail("mbarrier needs an operation")
	}
	name := r.parts[1]
	op, ok := mbarrierOps[name]
	if !ok {
		return r.fail("unsupported operation mbarrier.%s (only init, inval, arrive, arrive_drop, test_wait, try_wait and pending_count are supported; transaction counts come with bulk copies, which are not modelled)", name)
	}
	m.take("." + name)
	in.op, in.bop = opMbarrier, op
	r.row.Class = format.ClassSync
	if name == "arrive_drop" {
		in.imm |= mbDrop
	}
	if op == mbArrive && m.take(".noComplete") {
		in.imm |= mbNoComplete
	}
	if (op == mbTestWait || op == mbTryWait) && m.take(".parity") {
		in.imm |= mbParity
	}
	if slices.Contains(m.other, ".expect_tx") {
		return r.fail("unsupported modifier .expect_tx on mbarrier.%s (transaction counts come with bulk copies, which are not modelled)", name)
	}
	if len(m.types) != 1 || m.types[0] != tB64 {
		return r.fail("mbarrier.%s takes .b64", name)
	}
	if op == mbPending { // arithmetic on a register
		r.row.Class = format.ClassALU
		if m.space != "" {
			return r.fail("mbarrier.pending_count reads a state, not an mbarrier: it takes no state space")
		}
		if err := r.unknownMods(); err != nil {
			return err
		}
		if err := r.nops(2); err != nil {
			return err
		}
		if err := r.dst(0, 0, tU32); err != nil {
			return err
		}
		return r.src(0, 1, tB64)
	}
	addr := 1 // the address operand's index
	if op == mbInit || op == mbInval {
		addr = 0
	}
	if err := r.mbarrierAddress(addr); err != nil {
		return err
	}
	a := r.a
	switch op {
	case mbInit:
		if err := r.nops(2); err != nil {
			return err
		}
		return r.src(0, 1, tU32)
	case mbInval:
		return r.nops(1)
	case mbArrive:
		n := []int{2, 3} // the count is optional, but for .noComplete
		if in.imm&mbNoComplete != 0 {
			n = n[1:]
		}
		if err := r.nops(n...); err != nil {
			return err
		}
		if err := r.dst(0, 0, tB64); err != nil {
			return err
		}
		if len(a.ops) == 3 {
			return r.src(0, 2, tU32)
		}
		in.s[0], in.ns = r.k.imm(1), 1
		return nil
	}
	// test_wait, try_wait (with an optional suspend-time hint, which capture's
	// unbounded wait does not need).
	n := []int{3}
	if op == mbTryWait {
		n = []int{3, 4}
	}
	if err := r.nops(n...); err != nil {
		return err
	}
	if err := r.predDst(0, a.ops[0]); err != nil {
		return err
	}
	t := tB64
	if in.imm&mbParity != 0 {
		t = tU32
	}
	if err := r.src(0, 2, t); err != nil {
		return err
	}
	if len(a.ops) == 4 {
		if _, err := r.value(a.ops[3], tU32); err != nil {
			return err
		}
	}
	return nil
}

// mbarrierAddress resolves an mbarrier instruction's state space and its address,
// operand i, and refuses the modifiers no mbarrier rule took.
func (r *resolver) mbarrierAddress(i int) error {
	m := &r.m
	sp := msGeneric
	switch {
	case m.take(".shared::cta"):
		sp = msShared
	case m.take(".shared::cluster"):
		return r.fail("unsupported modifier .shared::cluster on %s (cluster barriers are not modelled)", r.a.opcode)
	case m.space == ".shared":
		sp = msShared
	case m.space != "":
		return r.fail("%s takes .shared or a generic address, not %s", r.a.opcode, m.space)
	}
	if slices.Contains(r.parts, "cluster") { // parseMods drops scopes: .cta is the default
		return r.fail("unsupported modifier .cluster on %s (cluster barriers are not modelled)", r.a.opcode)
	}
	if err := r.unknownMods(); err != nil {
		return err
	}
	if i >= len(r.a.ops) {
		return r.fail("missing operand")
	}
	sp, err := r.address(r.a.ops[i], sp)
	r.in.space = sp
	return err
}

// decodeCpAsyncMbarrier decodes cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64
// [addr]: an arrival once the thread's earlier cp.async copies are done. Capture's
// copies are done when they execute, so with .noinc it is an arrival now, and without
// (the pending count goes up by one first) it changes no count.
func decodeCpAsyncMbarrier(r *resolver) error {
	in, m := r.in, &r.m
	if !m.take(".mbarrier") || !m.take(".arrive") || !m.take(".async") {
		return r.fail("cp.async.mbarrier takes .arrive")
	}
	in.op, in.bop = opMbarrier, mbCpAsync
	if m.take(".noinc") {
		in.bop = mbArrive
	}
	r.row.Class = format.ClassSync
	if len(m.types) != 1 || m.types[0] != tB64 {
		return r.fail("cp.async.mbarrier.arrive takes .b64")
	}
	if err := r.mbarrierAddress(0); err != nil {
		return err
	}
	if err := r.nops(1); err != nil {
		return err
	}
	in.s[0], in.ns = r.k.imm(1), 1
	return nil
}

// mbarrierWord returns lane l's mbarrier object: 8 aligned bytes of the CTA's shared
// memory, through a .shared or a generic address.
func (w *warpState) mbarrierWord(in *instr, pc int32, l int) ([]byte, uint64, error) {
	addr := w.laneAddr(in, l)
	sp, sa := in.space, addr
	if sp == msGeneric {
		if addr-SharedWindow >= windowSize {
			return nil, 0, w.fault(FaultUnsupported, pc, l, addr, w.c.nearest(msGeneric, addr), fmt.Sprintf("an mbarrier must be in shared memory; generic address %#x is not", addr))
		}
		sp, sa = msShared, addr-SharedWindow
	}
	b, _, err := w.access(in, pc, l, sp, sa, 8, in.bop != mbTestWait && in.bop != mbTryWait)
	return b, sa, err
}

// mbarrierCheck is the fault for an operation on an object that no mbarrier.init set
// up (or that mbarrier.inval ended).
func (w *warpState) mbarrierCheck(pc int32, l int, sa, v uint64) error {
	if v&mbValid == 0 {
		return w.fault(FaultUnsupported, pc, l, sa, "", fmt.Sprintf("the mbarrier at shared %#x is not initialised (mbarrier.init), or was invalidated", sa))
	}
	return nil
}

// mbarrierDone says whether the phase lane l's wait names has completed: the state's
// phase, or the phase of the given parity, is no longer the current one.
func (w *warpState) mbarrierDone(in *instr, l int, v uint64) bool {
	x := w.regs[int(in.s[0])*32+l]
	if in.imm&mbParity != 0 {
		return v>>63 != x&1
	}
	return v&mbPhase != x&mbPhase
}

// tryWait says whether in is an mbarrier.try_wait, which the SIMT layers put off while
// mbarrierWaits says so.
func (in *instr) tryWait() bool { return in.op == opMbarrier && in.bop == mbTryWait }

// mbarrierWaits says whether the try_wait in at pc, run by the active lanes, must wait:
// a phase one of its executing lanes names has not completed. It notes where the warp
// waits (mbarWait) if so.
func (w *warpState) mbarrierWaits(in *instr, pc int32, active uint32) (bool, error) {
	for m := w.guardMask(in, active); m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		b, sa, err := w.mbarrierWord(in, pc, l)
		if err != nil {
			return false, err
		}
		v := binary.LittleEndian.Uint64(b)
		if err := w.mbarrierCheck(pc, l, sa, v); err != nil {
			return false, err
		}
		if !w.mbarrierDone(in, l, v) {
			w.mbarWait = mbarWait{pc: pc, lane: l, addr: sa, v: v, set: true}
			return true, nil
		}
	}
	return false, nil
}

// mbarrier executes an mbarrier instruction (decodeMbarrier) for the lanes of exec, in
// lane order.
func (w *warpState) mbarrier(in *instr, pc int32, exec uint32, path uint16, fl format.Flags) error {
	open := false
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if in.bop == mbPending {
			w.regs[int(in.d[0])*32+l] = w.regs[int(in.s[0])*32+l] & mbCount
			continue
		}
		b, sa, err := w.mbarrierWord(in, pc, l)
		if err != nil {
			return err
		}
		v := binary.LittleEndian.Uint64(b)
		if in.bop == mbInit {
			n := uint32(w.regs[int(in.s[0])*32+l])
			if n == 0 || n > mbMaxCount {
				return w.fault(FaultUnsupported, pc, l, sa, "", fmt.Sprintf("mbarrier.init count %d is outside [1, %d]", n, mbMaxCount))
			}
			binary.LittleEndian.PutUint64(b, mbValid|uint64(n)<<mbExpShift|uint64(n))
			continue
		}
		if in.bop == mbInval {
			binary.LittleEndian.PutUint64(b, 0)
			continue
		}
		if err := w.mbarrierCheck(pc, l, sa, v); err != nil {
			return err
		}
		switch in.bop {
		case mbArrive:
			nv, err := w.mbarrierArrive(in, pc, l, sa, v)
			if err != nil {
				return err
			}
			binary.LittleEndian.PutUint64(b, nv)
			if d := in.d[0]; d >= 0 {
				w.regs[int(d)*32+l] = v
			}
		case mbTestWait, mbTryWait:
			done := w.mbarrierDone(in, l, v)
			if d := in.d[0]; d >= 0 {
				w.preds[d] &^= 1 << l
				if done {
					w.preds[d] |= 1 << l
				}
			}
			open = open || !done
		}
	}
	if in.bop == mbTestWait && open {
		w.yieldNow = true
	}
	if in.bop == mbInit || in.bop == mbInval || in.bop == mbArrive {
		w.c.epoch++
	}
	w.rec.Append(uint32(pc), exec, path, fl)
	return nil
}

// mbarrierArrive is the object v after lane l's arrivals (in.s[0] of them).
func (w *warpState) mbarrierArrive(in *instr, pc int32, l int, sa, v uint64) (uint64, error) {
	n := uint64(uint32(w.regs[int(in.s[0])*32+l]))
	pending, expected := v&mbCount, v>>mbExpShift&mbCount
	if n == 0 || n > pending {
		return 0, w.fault(FaultUnsupported, pc, l, sa, "", fmt.Sprintf("%d arrivals at the mbarrier at shared %#x, where %d are pending (the PTX ISA leaves this undefined)", n, sa, pending))
	}
	if in.imm&mbDrop != 0 {
		if n > expected {
			return 0, w.fault(FaultUnsupported, pc, l, sa, "", fmt.Sprintf("arrive_drop of %d at the mbarrier at shared %#x, which expects %d", n, sa, expected))
		}
		expected -= n
	}
	pending -= n
	phase := v & mbPhase
	if pending == 0 {
		if in.imm&mbNoComplete != 0 {
			return 0, w.fault(FaultUnsupported, pc, l, sa, "", fmt.Sprintf("mbarrier.arrive.noComplete completes the phase of the mbarrier at shared %#x (the PTX ISA leaves this undefined)", sa))
		}
		phase ^= mbPhase
		pending = expected
	}
	return phase | mbValid | expected<<mbExpShift | pending, nil
}

// mbarWait is where a warp's try_wait waits, for a deadlock's message.
type mbarWait struct {
	pc   int32
	lane int
	addr uint64
	v    uint64
	set  bool
}

// mbarrierDeadlock is the fault for a CTA whose warps all wait, w at an mbarrier's
// try_wait.
func (c *cta) mbarrierDeadlock(w *warpState) error {
	mw := w.mbarWait
	reason := fmt.Sprintf("mbarrier deadlock: every warp waits, this one for a phase of the mbarrier at shared %#x, which has %d of %d arrivals pending in phase parity %d",
		mw.addr, mw.v&mbCount, mw.v>>mbExpShift&mbCount, mw.v>>63)
	f := w.fault(FaultBarrierDeadlock, mw.pc, mw.lane, 0, "", reason)
	return f
}
