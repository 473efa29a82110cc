package capture

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// bindArgs resolves call parameter copies, then writes the launch arguments into the
// kernel parameter buffer and lays out textures.
func (k *Kernel) bindArgs() error {
	for pc := range k.prog {
		in := &k.prog[pc]
		if in.op != opCall {
			continue
		}
		callee := k.funcs[in.target]
		for i := range in.copies {
			c := &in.copies[i]
			p := callee.params[-1-c.to]
			c.to, c.size = int32(p.addr), int32(min(int64(c.size), p.size))
		}
		for i := range in.rcopies {
			c := &in.rcopies[i]
			p := callee.rets[-1-c.from]
			c.from, c.size = int32(p.addr), int32(min(int64(c.size), p.size))
		}
	}
	entry := k.funcs[0]
	if k.spec.Device != nil {
		return k.bindParams(entry)
	}
	if len(k.args) != len(entry.params) {
		return fmt.Errorf("kernel %s takes %d parameters; %d arguments given", k.spec.Kernel, len(entry.params), len(k.args))
	}
	texBase := TextureBase
	for i, a := range k.args {
		p := entry.params[i]
		dst := k.kparam[p.addr : p.addr+p.size]
		switch a.Kind {
		case ArgScalar:
			if int64(a.ElemBytes()) != p.size {
				return fmt.Errorf("argument %d (%s): the parameter %s is %d bytes, the value %d", i, a.Source, entry.f.params[i].name, p.size, a.ElemBytes())
			}
			storeN(dst[:a.ElemBytes()], a.Value)
		case ArgBuf:
			if p.size != 8 {
				return fmt.Errorf("argument %d (%s): parameter %s is %d bytes; a pointer needs 8", i, a.Source, entry.f.params[i].name, p.size)
			}
			binary.LittleEndian.PutUint64(dst, k.bufs[i].base)
		case ArgTex2D:
			if p.size != 8 {
				return fmt.Errorf("argument %d (%s): parameter %s is %d bytes; a texture object needs 8", i, a.Source, entry.f.params[i].name, p.size)
			}
			// Handles are small integers, as CUDA's cudaTextureObject_t values are.
			h := uint64(len(k.texs) + 1)
			t := newTexture(h, texBase, a.W, a.H, a.Type, a.InitBytes(), i)
			texBase += (t.size() + pageSize - 1) / pageSize * pageSize
			k.texs = append(k.texs, t)
			binary.LittleEndian.PutUint64(dst, h)
		}
	}
	return nil
}

// bindParams writes Spec.Params, a launch's raw parameter bytes, into the kernel
// parameter buffer.
func (k *Kernel) bindParams(entry *funcInfo) error {
	if len(k.spec.Params) != len(entry.params) {
		return fmt.Errorf("kernel %s takes %d parameters; %d given", k.spec.Kernel, len(entry.params), len(k.spec.Params))
	}
	for i, b := range k.spec.Params {
		p := entry.params[i]
		if int64(len(b)) != p.size {
			return fmt.Errorf("kernel %s: parameter %d (%s) is %d bytes; %d given", k.spec.Kernel, i, entry.f.params[i].name, p.size, len(b))
		}
		copy(k.kparam[p.addr:], b)
	}
	return nil
}

func (k *Kernel) applyConsts() error {
	for _, s := range k.spec.Consts {
		c, err := parseConst(s)
		if err != nil {
			return err
		}
		sym, ok := k.consts[c.name]
		if !ok {
			return fmt.Errorf("const %q: no .const variable %s in %s", s, c.name, k.spec.PTXName)
		}
		data := c.arg.InitBytes()
		if int64(len(data)) > sym.size {
			return fmt.Errorf("const %q: %d bytes given; %s holds %d", s, len(data), c.name, sym.size)
		}
		copy(k.constBank[sym.addr:], data)
	}
	return nil
}

// bindTexArgs binds the texture references Spec.TexBinds names to their buf arguments.
func (k *Kernel) bindTexArgs() error {
	seen := map[string]bool{}
	for _, s := range k.spec.TexBinds {
		b, err := ParseTexBind(s)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(k.trefs, func(t *texRef) bool { return t.name == b.Name })
		_, bound := k.spec.TexRefs[b.Name]
		switch {
		case seen[b.Name]:
			return fmt.Errorf("texref %q: %s is bound twice", s, b.Name)
		case bound:
			return fmt.Errorf("texref %q: %s is bound by Spec.TexRefs too", s, b.Name)
		case i < 0:
			var names []string
			for _, t := range k.trefs {
				names = append(names, t.name)
			}
			reads := "none"
			if len(names) > 0 {
				reads = strings.Join(names, ", ")
			}
			return fmt.Errorf("texref %q: kernel %s reads no texture reference %s (it reads %s)", s, k.spec.Kernel, b.Name, reads)
		case b.Arg >= len(k.args) || k.args[b.Arg].Kind != ArgBuf:
			what := "there is none"
			if b.Arg < len(k.args) {
				what = "it is " + k.args[b.Arg].Source + ", not a buf:"
			}
			return fmt.Errorf("texref %q: argument %d is what the reference reads, but %s", s, b.Arg, what)
		}
		seen[b.Name] = true
		a := k.args[b.Arg]
		if b.Format == (ChannelFormat{}) {
			var ok bool
			if b.Format, ok = bufTexel(a); !ok {
				return fmt.Errorf("texref %q: argument %d (%s) has %d-byte elements, which no one-channel texel has; give the FORMAT (int2 for 8 bytes, as CUDA programs bind doubles)", s, b.Arg, a.Source, a.ElemBytes())
			}
		}
		t := LinearTexture{Addr: k.bufs[b.Arg].base, Bytes: uint64(a.Count * a.ElemBytes()), Format: b.Format, Normalized: b.Normalized}
		if err := t.Check(); err != nil {
			return fmt.Errorf("texref %q: %v", s, err)
		}
		k.trefs[i].bind = &t
	}
	return nil
}

// computeIPDom finds each instruction's immediate post-dominator inside its function,
// with the function's pseudo-pc exit as the root (Cooper, Harvey and Kennedy, "A Simple,
// Fast Dominance Algorithm", 2001, run on the reverse CFG).
func (k *Kernel) computeIPDom() {
	k.ipdom = make([]int32, len(k.prog))
	for _, fi := range k.funcs {
		n := int(fi.end - fi.start)
		exit := n // local node id of the exit
		succ := make([][]int, n+1)
		for i := 0; i < n; i++ {
			in := &k.prog[int(fi.start)+i]
			next := i + 1
			if next == n {
				next = exit
			}
			switch in.op {
			case opBra:
				t := int(in.target - fi.start)
				succ[i] = append(succ[i], t)
				if in.guard >= 0 {
					succ[i] = append(succ[i], next)
				}
			case opRet, opExit, opTrap:
				succ[i] = append(succ[i], exit)
				if in.guard >= 0 {
					succ[i] = append(succ[i], next)
				}
			default:
				succ[i] = append(succ[i], next)
			}
		}
		pred := make([][]int, n+1)
		for i, ss := range succ {
			for _, s := range ss {
				pred[s] = append(pred[s], i)
			}
		}
		// Reverse postorder of the reverse graph, from the exit.
		order := make([]int, 0, n+1)
		num := make([]int, n+1)
		for i := range num {
			num[i] = -1
		}
		seen := make([]bool, n+1)
		type frame struct{ node, i int }
		stack := []frame{{exit, 0}}
		seen[exit] = true
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.i < len(pred[f.node]) {
				p := pred[f.node][f.i]
				f.i++
				if !seen[p] {
					seen[p] = true
					stack = append(stack, frame{p, 0})
				}
				continue
			}
			num[f.node] = len(order)
			order = append(order, f.node)
			stack = stack[:len(stack)-1]
		}
		idom := make([]int, n+1)
		for i := range idom {
			idom[i] = -1
		}
		idom[exit] = exit
		intersect := func(a, b int) int {
			for a != b {
				for num[a] < num[b] {
					a = idom[a]
				}
				for num[b] < num[a] {
					b = idom[b]
				}
			}
			return a
		}
		for changed := true; changed; {
			changed = false
			for j := len(order) - 1; j >= 0; j-- {
				b := order[j]
				if b == exit {
					continue
				}
				nd := -1
				for _, s := range succ[b] { // successors are the reverse graph's predecessors
					if idom[s] < 0 {
						continue
					}
					if nd < 0 {
						nd = s
					} else {
						nd = intersect(s, nd)
					}
				}
				if nd >= 0 && idom[b] != nd {
					idom[b] = nd
					changed = true
				}
			}
		}
		for i := 0; i < n; i++ {
			d := idom[i]
			if d < 0 || d == exit {
				k.ipdom[int(fi.start)+i] = fi.exit // no path to the exit, or only the exit
			} else {
				k.ipdom[int(fi.start)+i] = fi.start + int32(d)
			}
		}
	}
}

// parallelSafe reports whether CTAs may be emulated concurrently with a deterministic
// trace and deterministic final memory: every global (or generic) atomic must be an
// integer add/and/or/xor/min/max whose result is never read (a reduction, as
// markReductions records it). Those commute, so any interleaving of CTAs yields the
// same memory, and no CTA can observe another's progress through them. A kernel that
// calls malloc or free is not: the addresses would depend on the CTAs' order.
func (k *Kernel) parallelSafe() bool {
	if k.callsHeap {
		return false
	}
	for pc := range k.prog {
		in := &k.prog[pc]
		if in.op != opAtom && in.op != opRed {
			continue
		}
		if in.space == msShared {
			continue
		}
		if in.t.float() {
			return false
		}
		switch in.bop {
		case atomAdd, atomAnd, atomOr, atomXor, atomMin, atomMax:
		default:
			return false
		}
		if k.insts[pc].MemOp != format.MemReduce {
			return false
		}
	}
	return true
}

// markReductions records as reductions (format.MemReduce) the global and generic atomics
// whose result no instruction reads and whose operation a reduction has (PTX ISA, red:
// add, min, max, inc, dec, and, or, xor). ptxas compiles such an atom to SASS RED, not
// ATOM, and Nsight Compute counts it under ..._op_red; the row then writes no register,
// as RED writes none. The emulator still executes it as the PTX says. A register that is
// read anywhere in the kernel keeps its atom an atom: PTX from nvcc and clang defines
// each virtual register about once, so a kernel-wide "never read" is liveness in
// practice, and errs only towards ATOM.
func (k *Kernel) markReductions() {
	read := map[int32]bool{}
	for pc := range k.prog {
		for _, r := range k.insts[pc].RegsRead {
			read[int32(r)] = true
		}
	}
	for pc := range k.prog {
		in, row := &k.prog[pc], &k.insts[pc]
		if in.op != opAtom || in.space == msShared {
			continue
		}
		switch in.bop {
		case atomAdd, atomMin, atomMax, atomInc, atomDec, atomAnd, atomOr, atomXor:
		default:
			continue
		}
		if in.d[0] >= 0 && read[in.d[0]] {
			continue
		}
		row.MemOp = format.MemReduce
		row.RegsWritten = nil
	}
}

var producerRE = regexp.MustCompile(`(?m)^//\s*(Generated by LLVM NVPTX Back-End|Generated by NVIDIA NVVM Compiler|Compiler Build ID: .*|Cuda compilation tools, release [0-9.]+)`)

func (k *Kernel) buildLaunch() {
	prod := k.spec.PTXProducer
	if prod == "" {
		for _, m := range producerRE.FindAllStringSubmatch(string(k.spec.PTX), -1) {
			switch {
			case m[1] == "Generated by LLVM NVPTX Back-End":
				prod = "clang"
			case len(m[1]) > 30 && m[1][:30] == "Cuda compilation tools, releas":
				prod = "nvcc " + m[1][len("Cuda compilation tools, release "):]
			case prod == "":
				prod = "nvcc"
			}
		}
	}
	l := format.Launch{
		Kernel:         k.spec.Kernel,
		Grid:           k.spec.Grid,
		Block:          k.spec.Block,
		SharedBytes:    k.sharedTotal,
		DynSharedBytes: k.spec.DynShared,
		RegsPerThread:  k.spec.RegsPerThread,
		LocalBytes:     k.localSize,
		SIMT:           k.spec.SIMT,
		SourceHash:     k.hash,
		PTXProducer:    prod,
		OOBWarn:        k.spec.OOB == OOBWarn,
		Program:        format.Program{Insts: k.insts, EntryInsts: uint32(k.funcs[0].end)},
	}
	for _, t := range k.texs {
		l.Textures = append(l.Textures, format.Texture{
			Handle: t.handle, Base: t.base, Width: uint32(t.w), Height: uint32(t.h),
			ElemBytes: uint32(t.elem), Layout: texLayout,
		})
	}
	for _, t := range k.trefs {
		b := t.bind
		if b == nil {
			continue // a fetch through it faults
		}
		eb := uint64(b.Format.TexelBytes())
		if b.Bytes < eb {
			continue // as does one through a binding of less than a texel
		}
		l.Textures = append(l.Textures, format.Texture{
			Name: t.name, Base: b.Addr, Width: uint32(min(b.Bytes/eb, math.MaxUint32)), Height: 1,
			ElemBytes: uint32(eb), Layout: "linear",
		})
	}
	k.launch = l
}

// Launch returns the launch metadata and program table, for format.Meta.
func (k *Kernel) Launch() format.Launch { return k.launch }
