package accelsim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/gtrace/gtrace/format"
)

// Options steer an import.
type Options struct {
	// UnknownAsALU imports an opcode that the generation's table lacks as an integer
	// instruction (class alu, no memory) and counts it in Report.Unknown, instead of
	// failing on it.
	UnknownAsALU bool
	// Producer is written as the trace's producer ("gtrace 0.1.0").
	Producer string
	// Progress, if set, is called during the second pass with the warp-instructions
	// written so far and the total the first pass counted.
	Progress func(done, total uint64)
}

// Report is what an import did besides writing the trace.
type Report struct {
	Kernels   int
	WarpInsts uint64
	// Memcpys counts the list's MemcpyHtoD lines: a gtrace trace holds kernels only.
	Memcpys int
	// Unknown counts, by opcode, the warp-instructions imported as alu (UnknownAsALU).
	Unknown map[string]uint64
	// Texture counts texture and surface warp-instructions: imported as class other,
	// without addresses (gtrace's texture model needs texel coordinates).
	Texture uint64
	// AddrsIgnored counts, by opcode, warp-instructions whose line carried addresses that
	// gtrace does not model as memory (a prefetching CCTL, say).
	AddrsIgnored map[string]uint64
	// EmptyCTAs counts thread blocks of the grid that the trace does not hold; they are
	// written as CTAs that executed nothing (Accel-Sim's post-processing warns of them).
	EmptyCTAs int
}

// maxAbsent is how many thread blocks of a grid a trace may lack beyond as many as it
// holds: a header whose grid is far larger than its thread blocks is damaged, and its
// empty CTAs would cost a record batch per 256.
const maxAbsent = 1024

// ListFile is the kernel list Accel-Sim's post-processing writes into a trace directory.
const ListFile = "kernelslist.g"

// Import reads the Accel-Sim trace directory dir (kernelslist.g and the kernel-N.traceg
// or kernel-N.traceg.xz files it names) and writes it as the gtrace trace out, replacing
// out only when the whole import succeeded. It stops with ctx's error when ctx is done.
func Import(ctx context.Context, dir, out string, opt Options) (*Report, error) {
	return convert(ctx, os.DirFS(dir), opt, func(m format.Meta) (*format.Writer, error) { return format.Create(out, m) })
}

// Convert is Import from any file system to any stream.
func Convert(ctx context.Context, fsys fs.FS, out io.Writer, opt Options) (*Report, error) {
	return convert(ctx, fsys, opt, func(m format.Meta) (*format.Writer, error) { return format.NewWriter(out, m) })
}

func convert(ctx context.Context, fsys fs.FS, opt Options, create func(format.Meta) (*format.Writer, error)) (*Report, error) {
	im, err := scan(ctx, fsys, opt)
	if err != nil {
		return nil, err
	}
	w, err := create(im.meta())
	if err != nil {
		return nil, err
	}
	if err := im.write(w); err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return &im.rep, nil
}

type importer struct {
	ctx     context.Context
	fsys    fs.FS
	opt     Options
	kernels []*kernelFile
	rep     Report
	total   uint64
}

// scan is the first pass: the list, then each kernel file's header, its static program
// (one row per SASS pc) and the local memory it touches.
func scan(ctx context.Context, fsys fs.FS, opt Options) (*importer, error) {
	im := &importer{ctx: ctx, fsys: fsys, opt: opt}
	im.rep.Unknown = map[string]uint64{}
	im.rep.AddrsIgnored = map[string]uint64{}
	if err := im.readList(); err != nil {
		return nil, err
	}
	for _, kf := range im.kernels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kf.statics = map[uint32]*static{}
		if err := walk(fsys, kf, &scanner{im: im, kf: kf}); err != nil {
			return nil, err
		}
		if absent := kf.hdr.grid.Count() - kf.ctas; absent > max(kf.ctas, maxAbsent) {
			return nil, &SyntaxError{kf.path, 0, 0, fmt.Sprintf("the grid (%s) has %d thread blocks but the trace holds %d: a damaged header? (gtrace writes absent thread blocks as empty CTAs, at most %d or as many as the trace holds)", kf.hdr.grid, kf.hdr.grid.Count(), kf.ctas, maxAbsent)}
		}
		if h := &kf.hdr; h.seen[keyLocalBytes] {
			if uint64(h.localBytes) < kf.localSize {
				return nil, &SyntaxError{kf.path, 0, 0, fmt.Sprintf("the header's -%s = %d, but the trace touches %d bytes of local memory per thread", keyLocalBytes, h.localBytes, kf.localSize)}
			}
			kf.localSize = uint64(h.localBytes)
		}
		kf.build()
		im.total += kf.insts
	}
	return im, nil
}

func (im *importer) readList() error {
	rc, err := im.fsys.Open(ListFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, err2 := fs.Stat(im.fsys, "kernelslist"); err2 == nil {
				return fmt.Errorf("%s: not found, but kernelslist is: run Accel-Sim's post-traces-processing on it first, which sorts each kernel's lines by thread block and warp", ListFile)
			}
		}
		return err
	}
	defer rc.Close()
	lr := newLineReader(rc, ListFile)
	for {
		line, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		s := strings.TrimSpace(string(line))
		switch {
		case s == "":
		case strings.HasPrefix(s, "MemcpyHtoD"):
			im.rep.Memcpys++
		case strings.HasPrefix(s, "kernel"):
			if strings.Contains(s, "/") || strings.Contains(s, `\`) || !fs.ValidPath(s) {
				return &SyntaxError{ListFile, lr.n, 1, fmt.Sprintf("%q: a kernel trace is a file name in the list's directory", s)}
			}
			im.kernels = append(im.kernels, &kernelFile{path: path.Clean(s)})
		default:
			return &SyntaxError{ListFile, lr.n, 1, fmt.Sprintf("unknown command %q: want kernel-N.traceg or MemcpyHtoD,ADDR,BYTES", truncate(line))}
		}
	}
	if len(im.kernels) == 0 {
		return fmt.Errorf("%s names no kernel trace", ListFile)
	}
	im.rep.Kernels = len(im.kernels)
	return nil
}

// scanner is the first pass's visitor.
type scanner struct {
	im *importer
	kf *kernelFile
}

func (s *scanner) beginTB(int) error {
	s.kf.ctas++
	return nil
}
func (s *scanner) endTB(int) error { return nil }

func (s *scanner) inst(cta, warp int, in *instLine, f *fields) error {
	kf := s.kf
	kf.insts++
	st := kf.static(in.pc)
	if st != nil && st.info.space != format.SpaceLocal && st.info.space != format.SpaceGeneric {
		return nil // known, and no memory the first pass sizes: the second pass checks the line
	}
	if st != nil {
		if err := parseRestAs(f, in, st); err != nil {
			return err
		}
	} else {
		if err := parseRest(f, in); err != nil {
			return err
		}
		st = &static{opcode: string(in.opcode), ndst: in.ndst, dst: in.dst, nsrc: in.nsrc, src: in.src, srcLine: in.srcLine, text: string(in.static)}
		info, err := lookup(st.opcode, kf.gen, in.mem)
		if err != nil {
			var unk *errUnknownOpcode
			if !errors.As(err, &unk) || !s.im.opt.UnknownAsALU {
				return &SyntaxError{f.file, f.line, in.opCol, err.Error()}
			}
			info, st.unknown = opInfo{class: format.ClassALU}, true
		}
		if info.space == format.SpaceGeneric && !kf.hdr.gtraceMap && (kf.hdr.shmemBase == 0 || kf.hdr.localBase == 0) {
			return &SyntaxError{f.file, f.line, in.opCol, fmt.Sprintf("generic %s, but the header gives no -shmem base_addr and -local mem base_addr: gtrace cannot tell its shared, local and global addresses apart", st.opcode)}
		}
		st.info = info
		kf.setStatic(in.pc, st)
		if err := st.checkMem(in, f); err != nil {
			return err
		}
	}
	if st.info.memop == format.MemNone {
		return nil
	}
	if st.info.space != format.SpaceLocal && st.info.space != format.SpaceGeneric {
		return nil // the second pass reads and checks the addresses
	}
	if err := parseAddrs(f, in); err != nil {
		return err
	}
	// Local memory: the bytes per thread that the layout of the trace must give each lane.
	for ms := in.mask; ms != 0; ms &= ms - 1 {
		l := bits.TrailingZeros32(ms)
		sp, off, err := kf.resolve(st.info.space, in.lanes[l])
		if err != nil {
			return &SyntaxError{f.file, f.line, in.memCol, fmt.Sprintf("%s lane %d: %v", st.opcode, l, err)}
		}
		if sp == format.SpaceLocal {
			kf.localSize = max(kf.localSize, (off+uint64(st.info.width)+3)&^3)
		}
	}
	return nil
}

// build makes the program table: one row per SASS pc the trace executed, in pc order.
func (kf *kernelFile) build() {
	pcs := make([]uint32, 0, len(kf.statics))
	for pc := range kf.statics {
		pcs = append(pcs, pc)
	}
	slices.Sort(pcs)
	kf.prog = make([]format.Inst, len(pcs))
	for i, pc := range pcs {
		st := kf.statics[pc]
		st.gpc = uint32(i)
		in := format.Inst{PC: uint32(i), Opcode: st.opcode, Class: st.info.class, Space: st.info.space,
			MemOp: st.info.memop, Width: st.info.width, CacheOp: st.info.cacheOp, Line: st.srcLine}
		var text strings.Builder
		fmt.Fprintf(&text, "/*%04x*/ %s", pc, st.opcode)
		sep := " "
		for _, r := range st.dst[:st.ndst] {
			fmt.Fprintf(&text, "%sR%d", sep, r)
			sep = ", "
			if r != rz {
				in.RegsWritten = append(in.RegsWritten, r)
			}
		}
		for _, r := range st.src[:st.nsrc] {
			fmt.Fprintf(&text, "%sR%d", sep, r)
			sep = ", "
			if r != rz && !slices.Contains(in.RegsRead, r) {
				in.RegsRead = append(in.RegsRead, r)
			}
		}
		in.PTX = text.String()
		kf.prog[i] = in
	}
}

// rz is SASS's zero register, which NVBit numbers 255: reading it is no dependency and
// writing it is discarded, so it is left out of the program table's registers.
const rz = 255

func (im *importer) meta() format.Meta {
	m := format.Meta{Producer: im.opt.Producer}
	for _, kf := range im.kernels {
		h := &kf.hdr
		name := h.name
		if name == "" {
			name = fmt.Sprintf("kernel-%d", h.id)
		}
		nv := ""
		if h.nvbit != "" {
			nv = ", NVBit " + h.nvbit
		}
		m.Launches = append(m.Launches, format.Launch{
			Kernel: name, Grid: h.grid, Block: h.block, SharedBytes: h.shmem, RegsPerThread: h.nregs,
			LocalBytes:  uint32(kf.localSize),
			SIMT:        format.SIMTITS, // sm_70 and later schedule threads independently
			PTXProducer: fmt.Sprintf(format.SASSProducer+"sm_%d traced on a GPU (Accel-Sim tracer %d%s), imported from %s", h.binary, h.tracer, nv, kf.path),
			Program:     format.Program{Insts: kf.prog},
		})
	}
	return m
}

// writer is the second pass's visitor: it fills one CTA's warps and writes each CTA,
// with the CTAs the trace lacks written empty before it.
type writer struct {
	im    *importer
	kf    *kernelFile
	k     int
	w     *format.Writer
	warps []*format.Warp
	next  int // the next CTA the format writer expects
	lanes [32]uint64
	done  uint64
}

func (im *importer) write(w *format.Writer) error {
	for k, kf := range im.kernels {
		wr := &writer{im: im, kf: kf, k: k, w: w}
		wr.warps = make([]*format.Warp, kf.wpc)
		for i := range wr.warps {
			wr.warps[i] = &format.Warp{Kernel: k, Warp: i}
		}
		if err := walk(im.fsys, kf, wr); err != nil {
			return err
		}
		if err := wr.fill(kf.hdr.grid.Count()); err != nil {
			return err
		}
		im.rep.WarpInsts += wr.done
	}
	return nil
}

// fill writes the CTAs from wr.next up to (not including) end as empty.
func (wr *writer) fill(end uint64) error {
	for ; uint64(wr.next) < end; wr.next++ {
		wr.im.rep.EmptyCTAs++
		if err := wr.flush(wr.next); err != nil {
			return err
		}
	}
	return nil
}

func (wr *writer) flush(cta int) error {
	for _, w := range wr.warps {
		w.CTA = cta
	}
	err := wr.w.WriteCTA(wr.k, cta, wr.warps)
	for _, w := range wr.warps {
		w.Reset()
	}
	return err
}

func (wr *writer) beginTB(cta int) error { return wr.fill(uint64(cta)) }

func (wr *writer) endTB(cta int) error {
	for _, w := range wr.warps {
		wr.done += uint64(w.Len())
	}
	if err := wr.flush(cta); err != nil {
		return err
	}
	wr.next = cta + 1
	if err := wr.im.ctx.Err(); err != nil {
		return err
	}
	if p := wr.im.opt.Progress; p != nil {
		p(wr.im.rep.WarpInsts+wr.done, wr.im.total)
	}
	return nil
}

func (wr *writer) inst(cta, warp int, in *instLine, f *fields) error {
	kf := wr.kf
	st := kf.static(in.pc)
	if err := parseRestAs(f, in, st); err != nil {
		return err
	}
	if err := parseAddrs(f, in); err != nil {
		return err
	}
	pc := st.gpc
	w := wr.warps[warp]
	switch {
	case st.unknown:
		wr.im.rep.Unknown[st.opcode]++
	case st.info.texture:
		wr.im.rep.Texture++
	case in.mem && st.info.memop == format.MemNone:
		base, _, _ := strings.Cut(st.opcode, ".")
		wr.im.rep.AddrsIgnored[base]++
	}
	if st.info.memop == format.MemNone {
		w.Append(pc, in.mask, 0, 0)
		return nil
	}
	gw := uint64(cta)*uint64(kf.wpc) + uint64(warp)
	for ms := in.mask; ms != 0; ms &= ms - 1 {
		l := bits.TrailingZeros32(ms)
		a, err := kf.place(st.info.space, in.lanes[l], gw, l)
		if err != nil {
			return &SyntaxError{f.file, f.line, in.memCol, fmt.Sprintf("%s lane %d: %v", st.opcode, l, err)}
		}
		wr.lanes[l] = a
	}
	w.AppendMem(pc, in.mask, 0, 0, &wr.lanes)
	return nil
}

// sortedKeys lists a count map's keys by count, most first, then by name.
func sortedKeys(m map[string]uint64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// Summary says in a few lines what Report holds beyond the trace itself.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d kernels, %d warp-instructions", r.Kernels, r.WarpInsts)
	if r.Memcpys > 0 {
		fmt.Fprintf(&b, "; %d MemcpyHtoD lines skipped (a gtrace trace holds kernels only)", r.Memcpys)
	}
	if r.EmptyCTAs > 0 {
		fmt.Fprintf(&b, "; %d thread blocks absent from the trace, written as empty CTAs", r.EmptyCTAs)
	}
	if r.Texture > 0 {
		fmt.Fprintf(&b, "; %d texture/surface warp-instructions imported as class other, without addresses", r.Texture)
	}
	list := func(what string, m map[string]uint64) {
		if len(m) == 0 {
			return
		}
		fmt.Fprintf(&b, "; %s:", what)
		for _, k := range sortedKeys(m) {
			fmt.Fprintf(&b, " %s %d", k, m[k])
		}
	}
	list("unknown opcodes imported as alu (warp-instructions)", r.Unknown)
	list("addresses ignored on instructions gtrace does not model as memory", r.AddrsIgnored)
	return b.String()
}
