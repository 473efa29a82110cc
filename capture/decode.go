package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Special registers occupy the first slots of every register file.
const (
	spTidX = iota
	spTidY
	spTidZ
	spNtidX
	spNtidY
	spNtidZ
	spCtaidX
	spCtaidY
	spCtaidZ
	spNctaidX
	spNctaidY
	spNctaidZ
	spLaneid
	spWarpid
	spNwarpid
	spLanemaskEq
	spLanemaskLt
	spLanemaskLe
	spLanemaskGt
	spLanemaskGe
	spSmid
	spNsmid
	spGridid
	numSpecial
)

var specialNames = map[string]int{
	"%tid.x": spTidX, "%tid.y": spTidY, "%tid.z": spTidZ,
	"%ntid.x": spNtidX, "%ntid.y": spNtidY, "%ntid.z": spNtidZ,
	"%ctaid.x": spCtaidX, "%ctaid.y": spCtaidY, "%ctaid.z": spCtaidZ,
	"%nctaid.x": spNctaidX, "%nctaid.y": spNctaidY, "%nctaid.z": spNctaidZ,
	"%laneid": spLaneid, "%warpid": spWarpid, "%nwarpid": spNwarpid,
	"%lanemask_eq": spLanemaskEq, "%lanemask_lt": spLanemaskLt, "%lanemask_le": spLanemaskLe,
	"%lanemask_gt": spLanemaskGt, "%lanemask_ge": spLanemaskGe,
	"%smid": spSmid, "%nsmid": spNsmid, "%gridid": spGridid,
}

type symKind uint8

const (
	symReg symKind = iota + 1
	symPred
	symVar   // a variable in some state space; addr is its address in that space
	symLabel // pc in addr
	symFunc
	symTexRef // a .global .texref: tex reads through the binding Spec.TexRefs names
)

type symbol struct {
	kind  symKind
	slot  int32 // symReg: slot; symPred: predicate index
	typ   vtype // declared type of a register
	space mspace
	addr  int64
	size  int64
	fn    int // symFunc: index in k.funcs
}

// funcInfo is an .entry or .func laid out in the program.
type funcInfo struct {
	f          *function
	start, end int32 // pc range [start, end)
	exit       int32 // pseudo-pc of the function's exit (len(prog)+index)
	params     []symbol
	rets       []symbol
}

// Kernel is a loaded, validated kernel launch, ready to Run.
type Kernel struct {
	spec   Spec
	mod    *module
	funcs  []*funcInfo // [0] is the entry
	prog   []instr
	insts  []format.Inst
	ipdom  []int32 // immediate post-dominator per pc (a pseudo-pc exit of its function when none)
	launch format.Launch

	nslots int
	npreds int
	tmpl   []uint64 // register-file template: immediates filled in, 32 lanes per slot
	imms   map[uint64]int32

	sharedStatic uint32
	sharedTotal  uint32
	localSize    uint32 // bytes per thread
	fparamSize   uint32 // bytes per lane of .func/call-site parameters
	kparam       []byte // kernel parameter buffer
	constBank    []byte
	consts       map[string]symbol

	args     []Arg
	gmemInit *globalMem // allocations with their initial contents, cloned by Run (a Device's memory, not cloned)
	hash     string     // hex SHA-256 of the PTX: the launch's SourceHash, a Device's module key
	bufs     []*alloc   // per buf argument, nil for scalars
	texs     []*texture // tex2d arguments
	trefs    []*texRef  // the texture references tex instructions read, in first-use order

	// callsHeap is whether the kernel calls malloc or free (decodeSyscall).
	callsHeap bool
	// parallel is whether CTAs may run concurrently: false when a global or generic
	// atomic's result is used, or when it is not an order-independent integer reduction.
	parallel bool
	maxInst  uint64
	// printfLimit: Spec.PrintfLimit, or no limit.
	printfLimit int
	maxTrace    int // bytes of trace one CTA may hold (Spec.MaxCTATrace)
	mem         memLimits

	predConst [2]int32 // predicates holding constant false/true, -1 until used
	carry     int32    // the slot of the carry flag CC.CF (op_carry.go), -1 until used
	// clockPC is the first pc that reads a clock register, -1 if none.
	clockPC int32

	// per-load scratch
	modSyms    map[string]symbol
	sharedSyms map[string]symbol
}

// Load parses and resolves spec.PTX, checks every instruction against the supported
// set, lays out memory and arguments; it executes nothing. A *PTXError names the CUDA
// source line too when the PTX has line information.
func Load(spec Spec) (*Kernel, error) {
	k, err := loadKernel(spec)
	if pe := (*PTXError)(nil); errors.As(err, &pe) && pe.Source == "" {
		pe.Source, pe.SourceLine = sourceOf(spec.PTX, pe.Line)
	}
	return k, err
}

func loadKernel(spec Spec) (*Kernel, error) {
	if spec.PTXName == "" {
		spec.PTXName = "input.ptx"
	}
	mod, err := parsePTX(spec.PTXName, spec.PTX)
	if err != nil {
		return nil, err
	}
	if spec.Block.X == 0 || spec.Block.Y == 0 || spec.Block.Z == 0 {
		return nil, fmt.Errorf("block %v: every dimension must be at least 1", spec.Block)
	}
	if spec.Block.Count() > 1024 {
		return nil, fmt.Errorf("block %v has %d threads; at most 1024", spec.Block, spec.Block.Count())
	}
	if spec.Grid.X == 0 || spec.Grid.Y == 0 || spec.Grid.Z == 0 {
		return nil, fmt.Errorf("grid %v: every dimension must be at least 1", spec.Grid)
	}
	if spec.Grid.Count() > 1<<31 {
		return nil, fmt.Errorf("grid %v has too many CTAs", spec.Grid)
	}
	for _, name := range slices.Sorted(maps.Keys(spec.TexRefs)) {
		if err := spec.TexRefs[name].Check(); err != nil {
			return nil, fmt.Errorf("texture reference %s: %v", name, err)
		}
	}
	k := &Kernel{spec: spec, mod: mod, imms: map[uint64]int32{}, consts: map[string]symbol{}, nslots: numSpecial, predConst: [2]int32{-1, -1}, carry: -1, clockPC: -1}
	k.hash = ptxHash(spec.PTX)
	k.maxInst = spec.MaxInst
	if k.printfLimit = spec.PrintfLimit; k.printfLimit <= 0 {
		k.printfLimit = math.MaxInt
	}
	if k.maxInst == 0 {
		k.maxInst = DefaultMaxInst
	}
	k.maxTrace = DefaultMaxCTATrace
	k.mem = memLimits{gate: gateBytes, flush: flushBytes, report: reportStep}
	if spec.MaxCTATrace > 0 {
		k.maxTrace = int(min(spec.MaxCTATrace, 1<<62))
	}
	var entry *function
	var names []string
	for _, f := range mod.funcs {
		if f.entry && !f.noBody {
			names = append(names, f.name)
			if f.name == spec.Kernel {
				entry = f
			}
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("%s: no .entry %q (entries: %s)", spec.PTXName, spec.Kernel, strings.Join(names, ", "))
	}
	if err := bounds(entry).CheckBlock(spec.Block); err != nil {
		return nil, fmt.Errorf("kernel %s: %v", spec.Kernel, err)
	}
	if spec.Device != nil && (len(spec.Args) > 0 || len(spec.Data) > 0 || len(spec.Consts) > 0 || len(spec.TexBinds) > 0) {
		return nil, errors.New("a launch on a Device takes its parameters from Spec.Params, not Args, Data, Consts or TexBinds")
	}
	for _, a := range spec.Args {
		arg, err := ParseArg(a)
		if err != nil {
			return nil, err
		}
		k.args = append(k.args, arg)
	}
	if err := checkMemory(k.args); err != nil {
		return nil, err
	}
	if err := k.layoutModule(); err != nil {
		return nil, err
	}
	if err := k.layoutFuncs(entry); err != nil {
		return nil, err
	}
	if err := k.layoutShared(); err != nil {
		return nil, err
	}
	for i, fi := range k.funcs {
		if err := k.decodeFunc(i, fi); err != nil {
			return nil, err
		}
	}
	k.finalize()
	if err := k.bindArgs(); err != nil {
		return nil, err
	}
	if err := k.applyConsts(); err != nil {
		return nil, err
	}
	if err := k.bindTexArgs(); err != nil {
		return nil, err
	}
	k.computeIPDom()
	k.markReductions()
	if err := k.placeHeap(); err != nil {
		return nil, err
	}
	k.parallel = k.parallelSafe()
	k.buildLaunch()
	return k, nil
}

func (k *Kernel) errAt(t token, format string, args ...any) error {
	return &PTXError{File: k.spec.PTXName, Line: int(t.line), Col: int(t.col), Msg: fmt.Sprintf(format, args...)}
}

// varSize is a declaration's size in bytes (0 for an unsized extern array).
func varSize(d *varDecl) int64 {
	n := int64(typeSize(d.typ))
	if d.vec > 0 {
		n *= int64(d.vec)
	}
	for _, x := range d.dims {
		// Saturate: dims of up to 2^31 each would overflow; anything past
		// maxDeclBytes is refused by the bound of its space.
		n = min(n*int64(x), maxDeclBytes)
	}
	return n
}

// maxDeclBytes is past every space's bound, and far from overflowing when added up.
const maxDeclBytes = 1 << 40

// Bounds on parameter space. A kernel's parameters: 32764 bytes on Volta and later
// (CUDA C++ Programming Guide, "Function Parameters"; 4 KB before). The parameters of
// device-function calls have no documented bound; gtrace holds every call site's
// bytes for each lane of each warp (32 MiB for a CTA of 1024 threads at this bound),
// so it sets one far above what compilers emit (a call passes a few scalars or a struct).
const (
	maxKernelParamBytes = 32764
	maxCallParamBytes   = 32 << 10
)

// addCallParam places a call-site or .func parameter d after the others.
func (k *Kernel) addCallParam(d *varDecl) (symbol, error) {
	off := alignUp(int64(k.fparamSize), max(varAlign(d), 8))
	end := off + varSize(d)
	if end > maxCallParamBytes {
		return symbol{}, k.errAt(d.pos, "parameter %s: the parameters of this kernel's device-function calls take over %d bytes per thread (gtrace's bound)", d.name, maxCallParamBytes)
	}
	k.fparamSize = uint32(end)
	return symbol{kind: symVar, space: msParamF, addr: off, size: varSize(d)}, nil
}

// maxVarBytes bounds a .global variable (and so what Load allocates for one).
const maxVarBytes = 256 << 20

func alignUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

func varAlign(d *varDecl) int64 {
	if d.align > 0 {
		return int64(d.align)
	}
	n := int64(typeSize(d.typ))
	if d.vec > 0 {
		n *= int64(d.vec)
	}
	return max(n, 1)
}

// initBytes encodes a variable's initialiser.
func (k *Kernel) initBytes(d *varDecl) ([]byte, error) {
	size := varSize(d)
	if size > maxVarBytes || size < 0 {
		return nil, k.errAt(d.pos, "%s %s is %d bytes; at most %d are supported", d.space, d.name, size, int64(maxVarBytes))
	}
	if d.space == ".const" && size > 64<<10 {
		return nil, k.errAt(d.pos, ".const %s is %d bytes; the constant bank holds 64 KiB", d.name, size)
	}
	out := make([]byte, size)
	t := vtypeNames[d.typ]
	es := int64(t.size())
	if int64(len(d.init))*es > size {
		return nil, k.errAt(d.pos, "initialiser of %s has %d elements; it holds %d", d.name, len(d.init), size/es)
	}
	for i, e := range d.init {
		v, err := literal(e.tok.text, e.neg, t)
		if err != nil {
			return nil, k.errAt(e.tok, "bad constant %s", e.tok.text)
		}
		storeN(out[int64(i)*es:][:es], v)
	}
	return out, nil
}

// ptxHash is a module's key and a launch's SourceHash: the hex SHA-256 of its PTX.
func ptxHash(ptx []byte) string {
	sum := sha256.Sum256(ptx)
	return hex.EncodeToString(sum[:])
}

// layoutModule places module-level .const and .global variables.
func (k *Kernel) layoutModule() error {
	k.modSyms = map[string]symbol{}
	k.gmemInit = newGlobalMem()
	if dev := k.spec.Device; dev != nil {
		k.gmemInit = dev.mem
	}
	// buf arguments first, in argument order, so their addresses do not depend on the
	// module's globals.
	k.bufs = make([]*alloc, len(k.args))
	for i, data := range k.spec.Data {
		if i < 0 || i >= len(k.args) || k.args[i].Kind != ArgBuf {
			return fmt.Errorf("Spec.Data has contents for argument %d, which is not a buf: argument", i)
		}
		if a := k.args[i]; len(data) != a.Count*a.ElemBytes() {
			return fmt.Errorf("Spec.Data has %d bytes for argument %d (%s), which holds %d", len(data), i, a.Source, a.Count*a.ElemBytes())
		}
	}
	for i, a := range k.args {
		if a.Kind == ArgBuf {
			init, ok := k.spec.Data[i]
			if ok {
				init = bytes.Clone(init)
			} else {
				init = a.InitBytes()
			}
			k.bufs[i] = k.gmemInit.add(fmt.Sprintf("arg %d (%s)", i, a.Source), i, uint64(a.Count*a.ElemBytes()), init)
			k.bufs[i].init = init
		}
	}
	var mv *moduleVars
	var err error
	if dev := k.spec.Device; dev != nil {
		mv, err = dev.module(k)
	} else {
		mv, err = k.placeVars()
	}
	if err != nil {
		return err
	}
	for name, s := range mv.syms {
		k.modSyms[name] = s
		if s.space == msConst {
			k.consts[name] = s
		}
	}
	k.constBank = mv.bank
	for _, f := range k.mod.funcs {
		if _, dup := k.modSyms[f.name]; dup && !f.noBody {
			continue
		}
		k.modSyms[f.name] = symbol{kind: symFunc}
	}
	return nil
}

// moduleVars is a module's variables placed: the symbols of its .const variables
// (offsets in its constant bank) and .global ones (device addresses), the bank's
// contents, and the allocation of each .global.
type moduleVars struct {
	syms    map[string]symbol
	bank    []byte
	globals []*alloc
}

// placeVars lays out the module's .const variables in one constant bank and places its
// .global variables in k.gmemInit, in declaration order. Every initialiser is read
// before anything is placed, so a module that fails places nothing.
func (k *Kernel) placeVars() (*moduleVars, error) {
	mv := &moduleVars{syms: map[string]symbol{}}
	type global struct {
		name string
		data []byte
	}
	var globals []global
	for _, d := range k.mod.vars {
		switch d.space {
		case ".const":
			if d.linkage == ".extern" {
				return nil, k.errAt(d.pos, "extern .const %s is not supported", d.name)
			}
			off := alignUp(int64(len(mv.bank)), varAlign(d))
			data, err := k.initBytes(d)
			if err != nil {
				return nil, err
			}
			mv.bank = append(mv.bank, make([]byte, off-int64(len(mv.bank)))...)
			mv.bank = append(mv.bank, data...)
			mv.syms[d.name] = symbol{kind: symVar, space: msConst, addr: off, size: int64(len(data))}
		case ".global":
			if d.typ == ".texref" {
				mv.syms[d.name] = symbol{kind: symTexRef}
				continue
			}
			data, err := k.initBytes(d)
			if err != nil {
				return nil, err
			}
			globals = append(globals, global{d.name, data})
		case ".shared":
			if d.hasInit {
				return nil, k.errAt(d.pos, ".shared variable %s cannot have an initialiser", d.name)
			}
			// placed by layoutShared when referenced
		case ".local":
			return nil, k.errAt(d.pos, "module-level .local %s is not supported", d.name)
		}
	}
	if len(mv.bank) > 64<<10 {
		return nil, fmt.Errorf("%s: .const variables need %d bytes; the constant bank holds 64 KiB", k.spec.PTXName, len(mv.bank))
	}
	for _, g := range globals {
		a := k.gmemInit.add(".global "+g.name, -1, uint64(len(g.data)), g.data)
		mv.globals = append(mv.globals, a)
		mv.syms[g.name] = symbol{kind: symVar, space: msGlobal, addr: int64(a.base), size: int64(len(g.data))}
	}
	return mv, nil
}

// layoutFuncs finds every .func reachable from the entry and assigns pc ranges.
func (k *Kernel) layoutFuncs(entry *function) error {
	bodies := map[string]*function{}
	for _, f := range k.mod.funcs {
		if !f.noBody {
			bodies[f.name] = f
		}
	}
	index := map[string]int{entry.name: 0}
	k.funcs = []*funcInfo{{f: entry}}
	calls := map[int][]int{}
	for i := 0; i < len(k.funcs); i++ {
		f := k.funcs[i].f
		for _, s := range f.body {
			if s.kind != sInst || !strings.HasPrefix(s.inst.opcode, "call") {
				continue
			}
			var callee string
			for _, o := range s.inst.ops {
				if o.kind == oName {
					callee = o.name
					break
				}
			}
			g, ok := bodies[callee]
			if !ok && k.syscall(callee) {
				continue
			}
			if !ok {
				return k.errAt(s.pos, "call to %q: no .func with a body of that name (%s)", callee, s.inst.text)
			}
			if g.entry {
				return k.errAt(s.pos, "call to .entry %s is not allowed", callee)
			}
			j, seen := index[callee]
			if !seen {
				j = len(k.funcs)
				index[callee] = j
				k.funcs = append(k.funcs, &funcInfo{f: g})
			}
			calls[i] = append(calls[i], j)
		}
	}
	// Reject recursion: static register frames need an acyclic call graph.
	state := make([]uint8, len(k.funcs))
	var visit func(int) error
	visit = func(i int) error {
		state[i] = 1
		for _, j := range calls[i] {
			if state[j] == 1 {
				return k.errAt(k.funcs[j].f.pos, "recursive call to %s is not supported", k.funcs[j].f.name)
			}
			if state[j] == 0 {
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		state[i] = 2
		return nil
	}
	if err := visit(0); err != nil {
		return err
	}
	pc := int32(0)
	for _, fi := range k.funcs {
		fi.start = pc
		for _, s := range fi.f.body {
			if s.kind == sInst {
				pc++
			}
		}
		fi.end = pc // never fi.start: a body ends in a ret at the latest (fallsOffTheEnd)
	}
	for i, fi := range k.funcs {
		fi.exit = pc + int32(i)
	}
	k.prog = make([]instr, pc)
	k.insts = make([]format.Inst, pc)
	return nil
}

// layoutShared places static shared variables (function-level ones, and module-level
// ones that a reachable function names) and then the extern dynamic area.
func (k *Kernel) layoutShared() error {
	k.sharedSyms = map[string]symbol{}
	var size int64
	var externs []*varDecl
	modShared := map[string]*varDecl{}
	for _, d := range k.mod.vars {
		if d.space == ".shared" {
			modShared[d.name] = d
		}
	}
	place := func(d *varDecl) {
		if len(d.dims) > 0 && d.dims[0] == 0 || d.linkage == ".extern" {
			externs = append(externs, d)
			return
		}
		size = alignUp(size, varAlign(d))
		k.sharedSyms[d.name] = symbol{kind: symVar, space: msShared, addr: size, size: varSize(d)}
		size += varSize(d)
	}
	var walk func(o operand)
	walk = func(o operand) {
		if (o.kind == oName || o.kind == oAddr) && o.name != "" {
			if d, ok := modShared[o.name]; ok {
				delete(modShared, o.name)
				place(d)
			}
		}
		for _, e := range o.elems {
			walk(e)
		}
	}
	for _, fi := range k.funcs {
		for _, s := range fi.f.body {
			switch {
			case s.kind == sDecl && s.decl.space == ".shared":
				if s.decl.hasInit {
					return k.errAt(s.pos, ".shared variable %s cannot have an initialiser", s.decl.name)
				}
				place(s.decl)
			case s.kind == sInst:
				for _, o := range s.inst.ops {
					walk(o)
				}
			}
		}
	}
	dyn := alignUp(size, 16)
	for _, d := range externs {
		k.sharedSyms[d.name] = symbol{kind: symVar, space: msShared, addr: dyn, size: int64(k.spec.DynShared)}
	}
	k.sharedStatic = uint32(size)
	total := size
	if len(externs) > 0 || k.spec.DynShared > 0 {
		total = dyn + int64(k.spec.DynShared)
	}
	if total > 228<<10 {
		return fmt.Errorf("%s: kernel %s needs %d bytes of shared memory per CTA; at most 228 KiB", k.spec.PTXName, k.spec.Kernel, total)
	}
	k.sharedTotal = uint32(total)
	return nil
}

// placeLocal places the .local variable d after size bytes of a thread's local memory:
// its offset, and the size with it, kept a multiple of 4.
func placeLocal(size uint32, d *varDecl) (off int64, end uint32) {
	off = alignUp(int64(size), varAlign(d))
	return off, uint32(min(alignUp(off+varSize(d), 4), math.MaxUint32))
}

// imm returns the slot holding the constant v in every lane.
func (k *Kernel) imm(v uint64) int32 {
	if s, ok := k.imms[v]; ok {
		return s
	}
	s := int32(k.nslots)
	k.nslots++
	k.imms[v] = s
	return s
}

// scope resolves names inside a function body, innermost block first.
type scope struct {
	k      *Kernel
	fi     *funcInfo
	levels []map[string]symbol
	labels map[string]int32
}

func (sc *scope) push() { sc.levels = append(sc.levels, map[string]symbol{}) }
func (sc *scope) pop()  { sc.levels = sc.levels[:len(sc.levels)-1] }
func (sc *scope) def(name string, s symbol) {
	sc.levels[len(sc.levels)-1][name] = s
}

func (sc *scope) lookup(name string) (symbol, bool) {
	for i := len(sc.levels) - 1; i >= 0; i-- {
		if s, ok := sc.levels[i][name]; ok {
			return s, true
		}
	}
	if pc, ok := sc.labels[name]; ok {
		return symbol{kind: symLabel, addr: int64(pc)}, true
	}
	if s, ok := sc.k.sharedSyms[name]; ok {
		return s, true
	}
	if s, ok := sc.k.modSyms[name]; ok {
		return s, true
	}
	return symbol{}, false
}

func (k *Kernel) decodeFunc(fidx int, fi *funcInfo) error {
	f := fi.f
	sc := &scope{k: k, fi: fi, labels: map[string]int32{}}
	sc.push()
	// Parameters.
	if fidx == 0 {
		var off int64
		for _, p := range f.params {
			off = alignUp(off, varAlign(p))
			s := symbol{kind: symVar, space: msParamK, addr: off, size: varSize(p)}
			sc.def(p.name, s)
			fi.params = append(fi.params, s)
			off += varSize(p)
			if off > maxKernelParamBytes {
				return k.errAt(p.pos, "kernel %s: its parameters take at least %d bytes, past the %d a launch passes (CUDA C++ Programming Guide, Function Parameters)", f.name, off, maxKernelParamBytes)
			}
		}
		k.kparam = make([]byte, off)
	} else {
		// A .func's return values, then its parameters, in call-parameter space.
		place := func(ds []*varDecl) ([]symbol, error) {
			var syms []symbol
			for _, d := range ds {
				s, err := k.addCallParam(d)
				if err != nil {
					return nil, err
				}
				sc.def(d.name, s)
				syms = append(syms, s)
			}
			return syms, nil
		}
		var err error
		if fi.rets, err = place(f.rets); err != nil {
			return err
		}
		if fi.params, err = place(f.params); err != nil {
			return err
		}
	}
	// Labels.
	pc := fi.start
	for _, s := range f.body {
		switch s.kind {
		case sLabel:
			if _, dup := sc.labels[s.label]; dup {
				return k.errAt(s.pos, "label %s defined twice", s.label)
			}
			sc.labels[s.label] = pc
		case sInst:
			pc++
		}
	}
	pc = fi.start
	locFile, locLine := 0, 0
	noUnroll := false
	for _, s := range f.body {
		switch s.kind {
		case sOpen:
			sc.push()
		case sClose:
			sc.pop()
		case sLoc:
			locFile, locLine = s.file, s.line
		case sPragma:
			noUnroll = true
		case sDecl:
			if err := k.declare(sc, s.decl); err != nil {
				return err
			}
		case sInst:
			in := &k.prog[pc]
			in.fn = int32(fidx)
			row := &k.insts[pc]
			row.PC = uint32(pc)
			row.PTX = s.inst.text
			row.Line = uint32(locLine)
			row.File = k.mod.files[locFile]
			row.NoUnroll, noUnroll = noUnroll, false
			if err := k.decodeInst(sc, s.inst, in, row); err != nil {
				return err
			}
			if in.guard >= 0 {
				// A guarded instruction reads its guard: a timing replay must wait
				// for the setp that writes it, as the hardware's scoreboard does.
				row.RegsRead = appendID(row.RegsRead, uint16(in.guard)|predIDBit)
			}
			pc++
		}
	}
	return nil
}

func (k *Kernel) declare(sc *scope, d *varDecl) error {
	switch d.space {
	case ".reg":
		t, ok := vtypeNames[d.typ]
		if !ok {
			return k.errAt(d.pos, "unsupported register type %s", d.typ)
		}
		if d.vec > 0 {
			return k.errAt(d.pos, "vector registers are not supported")
		}
		names := []string{d.name}
		if d.count >= 0 {
			names = names[:0]
			for i := 0; i < d.count; i++ {
				names = append(names, fmt.Sprintf("%s%d", d.name, i))
			}
		}
		for _, n := range names {
			if t == tPred {
				sc.def(n, symbol{kind: symPred, slot: int32(k.npreds), typ: t})
				k.npreds++
			} else {
				sc.def(n, symbol{kind: symReg, slot: int32(k.nslots), typ: t})
				k.nslots++
			}
		}
		if k.nslots > 1<<15 || k.npreds > 1<<15 {
			return k.errAt(d.pos, "too many registers")
		}
	case ".local":
		if d.hasInit {
			return k.errAt(d.pos, ".local variable %s cannot have an initialiser", d.name)
		}
		var off int64
		off, k.localSize = placeLocal(k.localSize, d)
		sc.def(d.name, symbol{kind: symVar, space: msLocal, addr: off, size: varSize(d)})
		if k.localSize > 512<<10 {
			return k.errAt(d.pos, "local memory over 512 KiB per thread")
		}
	case ".param":
		s, err := k.addCallParam(d)
		if err != nil {
			return err
		}
		sc.def(d.name, s)
	case ".shared":
		// placed by layoutShared; the name resolves through k.sharedSyms
	default:
		return k.errAt(d.pos, "%s declaration inside a function is not supported", d.space)
	}
	return nil
}

// finalize points unused source operands at a zero slot and discarded destinations
// (the _ sink) at a scratch slot, so the execution loops never test for them.
func (k *Kernel) finalize() {
	zero := k.imm(0)
	scratch := int32(k.nslots)
	k.nslots++
	for pc := range k.prog {
		in := &k.prog[pc]
		for i := range in.s {
			if in.s[i] < 0 {
				in.s[i] = zero
			}
		}
		if in.d[0] < 0 && in.flags&fSinkOK == 0 {
			in.d[0] = scratch
		}
	}
}

// constPred returns a predicate register that always holds v.
func (k *Kernel) constPred(v bool) int32 {
	i := 0
	if v {
		i = 1
	}
	if k.predConst[i] < 0 {
		k.predConst[i] = int32(k.npreds)
		k.npreds++
	}
	return k.predConst[i]
}
