package capture

import (
	"fmt"
	"math"
	"slices"

	"github.com/gtrace/gtrace/format"
)

// Device is device memory that outlives a launch: what a program allocates with
// cudaMalloc and copies in and out around its launches (gtrace run), and the .global
// variables of the modules it launches from. A launch given a Device (Spec.Device) reads
// and writes it in place, so the next launch and the next copy see what it wrote, as on a
// GPU. Allocations are placed as buf arguments are (64 KiB aligned, a guard page between
// neighbours, in the order made), and a freed range is never handed out again, so a
// program's addresses are the same on every run.
//
// A Device is not safe for concurrent use: one goroutine allocates, copies and runs the
// launches, as a CUDA stream would order them.
type Device struct {
	mem     *globalMem
	modules map[string]*moduleVars // by the SourceHash of the module's PTX
	vars    map[*alloc]bool        // the modules' .global variables: not the program's to free
	count   int                    // allocations made, for their names
	live    uint64                 // bytes allocated and not freed
}

// NewDevice returns an empty device memory.
func NewDevice() *Device {
	return &Device{mem: newGlobalMem(), modules: map[string]*moduleVars{}, vars: map[*alloc]bool{}}
}

// DeviceError is a device-memory operation the program asked for that a GPU would refuse
// (cudaErrorInvalidValue, cudaErrorMemoryAllocation).
type DeviceError struct {
	Op   string // "malloc", "free", "write", "read", "fill"
	Addr uint64
	Size uint64
	Msg  string
	// OutOfMemory says that the device's address space is spent (cudaErrorMemoryAllocation).
	OutOfMemory bool
}

func (e *DeviceError) Error() string {
	if e.Op == "malloc" {
		return fmt.Sprintf("device %s of %d bytes: %s", e.Op, e.Size, e.Msg)
	}
	return fmt.Sprintf("device %s of %d bytes at %#x: %s", e.Op, e.Size, e.Addr, e.Msg)
}

// Malloc allocates size bytes (zeros, as the emulator's fresh pages are; a GPU leaves
// them undefined) and returns their address.
func (d *Device) Malloc(size uint64) (uint64, error) {
	if size > TextureBase-GlobalBase || d.mem.next+size+pageSize > TextureBase {
		return 0, &DeviceError{Op: "malloc", Size: size, OutOfMemory: true,
			Msg: fmt.Sprintf("out of device address space (%d bytes live in %d allocations)", d.live, len(d.mem.allocs))}
	}
	d.count++
	a := d.mem.add(fmt.Sprintf("allocation %d (%d bytes)", d.count, size), -1, size, nil)
	d.live += a.size
	return a.base, nil
}

// Free releases the allocation that starts at addr.
func (d *Device) Free(addr uint64) error {
	i := slices.IndexFunc(d.mem.allocs, func(a *alloc) bool { return a.base == addr })
	if i < 0 || d.vars[d.mem.allocs[i]] || d.InHeap(addr) {
		return &DeviceError{Op: "free", Addr: addr, Msg: "not the start of an allocation (nearest: " + d.mem.nearest(addr) + ")"}
	}
	d.live -= d.mem.allocs[i].size
	d.mem.allocs = slices.Delete(d.mem.allocs, i, i+1)
	return nil
}

// Write copies b to addr (a host-to-device copy).
func (d *Device) Write(addr uint64, b []byte) error {
	return d.span("write", addr, uint64(len(b)), func(p []byte, off uint64) { copy(p, b[off:]) }, true)
}

// Read copies len(b) bytes at addr into b (a device-to-host copy).
func (d *Device) Read(addr uint64, b []byte) error {
	return d.span("read", addr, uint64(len(b)), func(p []byte, off uint64) { copy(b[off:], p) }, false)
}

// Fill sets n bytes at addr to v (cudaMemset).
func (d *Device) Fill(addr uint64, v byte, n uint64) error {
	return d.span("fill", addr, n, func(p []byte, _ uint64) {
		for i := range p {
			p[i] = v
		}
	}, v != 0)
}

// Check reports whether [addr, addr+n) lies inside one allocation, as the other calls
// need, without touching it.
func (d *Device) Check(addr, n uint64) error {
	return d.span("check", addr, n, func([]byte, uint64) {}, false)
}

// Copy copies n bytes from src to dst, both device addresses (a device-to-device copy).
// Overlapping ranges copy as memmove does.
func (d *Device) Copy(dst, src, n uint64) error {
	buf := make([]byte, n)
	if err := d.Read(src, buf); err != nil {
		return err
	}
	return d.Write(dst, buf)
}

// span calls f on each page-sized piece of [addr, addr+n), which must lie inside one
// allocation; off is the piece's offset from addr. A read of an untouched page sees the
// shared zero page; write asks for real pages.
func (d *Device) span(op string, addr, n uint64, f func(p []byte, off uint64), write bool) error {
	if n == 0 {
		return nil
	}
	a := d.mem.find(addr, 1)
	if a == nil || addr+n < addr || addr+n > a.end() {
		return &DeviceError{Op: op, Addr: addr, Size: n, Msg: "outside every allocation (nearest: " + d.mem.nearest(addr) + ")"}
	}
	if d.InHeap(addr) {
		// CUDA C++ Programming Guide, "Dynamic Global Memory Allocation and Operations":
		// memory malloc allocated cannot be used in any runtime or driver API call.
		return &DeviceError{Op: op, Addr: addr, Size: n, Msg: "in the device heap: memory a kernel's malloc allocated cannot be used in a runtime API call"}
	}
	for off := uint64(0); off < n; {
		at := addr + off
		piece := min(n-off, pageSize-(at-a.base)%pageSize)
		in := (at - a.base) % pageSize
		p := a.pages[(at-a.base)/pageSize].Load()
		switch {
		case p == nil && write:
			p = new(page)
			a.pages[(at-a.base)/pageSize].Store(p)
		case p == nil:
			p = &zeroPage
		}
		f(p[in:in+piece], off)
		off += piece
	}
	return nil
}

// HeapSize is the size of the device heap, placed by the first launch that calls malloc
// or free; 0 before that.
func (d *Device) HeapSize() uint64 {
	if h := d.mem.heap; h != nil {
		return h.a.size
	}
	return 0
}

// InHeap reports whether addr is in the device heap.
func (d *Device) InHeap(addr uint64) bool {
	h := d.mem.heap
	return h != nil && addr >= h.a.base && addr < h.a.end()
}

// Allocations is how many allocations the program made are live, and their bytes
// (the modules' variables and the device heap are not the program's).
func (d *Device) Allocations() (n int, bytes uint64) {
	n = len(d.mem.allocs) - len(d.vars)
	if d.mem.heap != nil {
		n--
	}
	return n, d.live
}

// module returns the variables of k's module, placed on first use: every launch from
// one module (the SourceHash of its PTX) shares its .global variables and its constant
// bank, as on a GPU, where a module's variables live as long as the module.
func (d *Device) module(k *Kernel) (*moduleVars, error) {
	if m, ok := d.modules[k.hash]; ok {
		return m, nil
	}
	m, err := k.placeVars()
	if err != nil {
		return nil, err
	}
	d.modules[k.hash] = m
	for _, a := range m.globals {
		d.vars[a] = true
	}
	return m, nil
}

// LoadModule places the variables of the module whose PTX is ptx, as its first launch
// would, and returns the module's key (its SourceHash) for Symbol, WriteSymbol and
// ReadSymbol: a program copies to its variables before it launches anything.
func (d *Device) LoadModule(ptxName string, ptx []byte) (string, error) {
	key := ptxHash(ptx)
	if _, ok := d.modules[key]; ok {
		return key, nil
	}
	mod, err := parsePTX(ptxName, ptx)
	if err != nil {
		return "", err
	}
	k := &Kernel{spec: Spec{PTX: ptx, PTXName: ptxName, Device: d}, mod: mod, hash: key, gmemInit: d.mem}
	if _, err := d.module(k); err != nil {
		return "", err
	}
	return key, nil
}

// Symbol is where a module variable lives.
type Symbol struct {
	Const bool   // a .const variable: Addr is its offset in the module's constant bank
	Addr  uint64 // a .global variable: its device address
	Size  uint64
}

// SymbolError is a module variable that is not there (cudaErrorInvalidSymbol), or a
// copy that does not fit in it (cudaErrorInvalidValue).
type SymbolError struct {
	Name    string
	Missing bool
	Msg     string
}

func (e *SymbolError) Error() string { return "device symbol " + e.Name + ": " + e.Msg }

// Symbol finds the .global or .const variable name of a module LoadModule (or a launch)
// placed.
func (d *Device) Symbol(module, name string) (Symbol, error) {
	m, ok := d.modules[module]
	if !ok {
		return Symbol{}, &SymbolError{Name: name, Missing: true, Msg: "its module was never loaded"}
	}
	s, ok := m.syms[name]
	if !ok || s.kind != symVar {
		return Symbol{}, &SymbolError{Name: name, Missing: true, Msg: "no .global or .const variable of that name in its module"}
	}
	return Symbol{Const: s.space == msConst, Addr: uint64(s.addr), Size: uint64(s.size)}, nil
}

// WriteSymbol copies b into the variable name at byte offset off (cudaMemcpyToSymbol):
// the next launch from the module reads it.
func (d *Device) WriteSymbol(module, name string, off uint64, b []byte) error {
	bank, addr, err := d.symbolAt(module, name, off, uint64(len(b)))
	if err != nil || bank != nil {
		copy(bank, b)
		return err
	}
	return d.Write(addr, b)
}

// ReadSymbol copies len(b) bytes of the variable name from byte offset off into b
// (cudaMemcpyFromSymbol).
func (d *Device) ReadSymbol(module, name string, off uint64, b []byte) error {
	bank, addr, err := d.symbolAt(module, name, off, uint64(len(b)))
	if err != nil || bank != nil {
		copy(b, bank)
		return err
	}
	return d.Read(addr, b)
}

// symbolAt is where n bytes at offset off of the variable name lie: in the module's
// constant bank (bank, n bytes of it; nil for a .global variable) or at a device
// address.
func (d *Device) symbolAt(module, name string, off, n uint64) (bank []byte, addr uint64, err error) {
	s, err := d.Symbol(module, name)
	if err != nil {
		return nil, 0, err
	}
	if off > s.Size || n > s.Size-off {
		return nil, 0, &SymbolError{Name: name, Msg: fmt.Sprintf("%d bytes at offset %d do not fit in its %d bytes", n, off, s.Size)}
	}
	if s.Const {
		return d.modules[module].bank[s.Addr+off : s.Addr+off+n], 0, nil
	}
	return nil, s.Addr + off, nil
}

// EntryInfo is what a kernel's PTX fixes before any launch.
type EntryInfo struct {
	// Params is each parameter's size in bytes, in order: what a runtime copies from
	// cudaLaunchKernel's argument pointers.
	Params []int
	// StaticShared is the kernel's static shared memory per CTA: its own and its
	// callees' .shared variables, and the module's that they name, as a launch lays
	// them out.
	StaticShared uint32
	// Local is the local memory per thread the PTX declares (.local variables of the
	// kernel and its callees); ptxas's stack frame may differ.
	Local uint32
	// Const is the bytes of the module's .const variables: the constant bank every
	// kernel of the module is given, whether it reads them or not (cudaFuncGetAttributes'
	// constSizeBytes on an H100: examples/cuda/occupancy.cu).
	Const uint32
	// MaxBlock and ReqBlock are the extents of the kernel's .maxntid (what
	// __launch_bounds__ gives) and .reqntid directives: zero where it has none.
	MaxBlock, ReqBlock format.Dim3
}

// MaxThreads is the most threads a block of the kernel may have by its directives: the
// product of the .maxntid or .reqntid extents, or 0 where it has neither.
func (e EntryInfo) MaxThreads() uint64 {
	if e.ReqBlock.X > 0 {
		return e.ReqBlock.Count()
	}
	return e.MaxBlock.Count()
}

// CheckBlock refuses a block the kernel's directives do not allow, as a GPU does
// (cudaErrorInvalidValue one thread past __launch_bounds__ on an H100:
// examples/cuda/bounds.cu): more threads than .maxntid's extents multiply to, or other
// extents than .reqntid's (PTX ISA, "Performance-Tuning Directives").
func (e EntryInfo) CheckBlock(b format.Dim3) error {
	if r := e.ReqBlock; r.X > 0 && b != r {
		return fmt.Errorf("block %v, but the kernel's .reqntid requires %v", b, r)
	}
	if m := e.MaxBlock.Count(); m > 0 && b.Count() > m {
		return fmt.Errorf("a block of %d threads, over the %d that its .maxntid (__launch_bounds__) allows", b.Count(), m)
	}
	return nil
}

// bounds is what f's directives say of its block.
func bounds(f *function) EntryInfo {
	d3 := func(d [3]uint32) format.Dim3 { return format.Dim3{X: d[0], Y: d[1], Z: d[2]} }
	return EntryInfo{MaxBlock: d3(f.maxntid), ReqBlock: d3(f.reqntid)}
}

// Entry is what the PTX fixes about the .entry named kernel, before any launch.
func Entry(ptxName string, ptx []byte, kernel string) (EntryInfo, error) {
	mod, err := parsePTX(ptxName, ptx)
	if err != nil {
		return EntryInfo{}, err
	}
	i := slices.IndexFunc(mod.funcs, func(f *function) bool { return f.entry && !f.noBody && f.name == kernel })
	if i < 0 {
		return EntryInfo{}, fmt.Errorf("%s: no .entry %q", ptxName, kernel)
	}
	entry := mod.funcs[i]
	k := &Kernel{spec: Spec{PTXName: ptxName, Kernel: kernel}, mod: mod}
	if err := k.layoutFuncs(entry); err != nil {
		return EntryInfo{}, err
	}
	if err := k.layoutShared(); err != nil {
		return EntryInfo{}, err
	}
	info := bounds(entry)
	info.Params, info.StaticShared = make([]int, len(entry.params)), k.sharedStatic
	for i, p := range entry.params {
		info.Params[i] = int(varSize(p))
	}
	for _, fi := range k.funcs {
		for _, s := range fi.f.body {
			if s.kind == sDecl && s.decl.space == ".local" {
				_, info.Local = placeLocal(info.Local, s.decl)
			}
		}
	}
	var bank int64
	for _, d := range mod.vars {
		if d.space == ".const" {
			bank = alignUp(bank, varAlign(d)) + varSize(d)
		}
	}
	info.Const = uint32(min(bank, math.MaxUint32))
	return info, nil
}

// Holds says whether addr lies inside one of the device's allocations.
func (d *Device) Holds(addr uint64) bool { return d.mem.find(addr, 1) != nil }
