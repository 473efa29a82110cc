package accelsim

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/ulikunitz/xz"
)

// header is a kernel trace's "-key = value" lines.
type header struct {
	name                 string
	id                   uint32
	grid, block          format.Dim3
	shmem, nregs         uint32
	binary               uint32 // the SASS binary version: 80 for sm_80
	shmemBase, localBase uint64
	nvbit                string
	tracer               uint32
	lineinfo             bool
	localBytes           uint32 // keyLocalBytes, written by gtrace's exporter
	gtraceMap            bool   // keyAddressMap: generic addresses are in gtrace's address map
	seen                 map[string]bool
}

// parseHeaderLine reads one "-key = value" line into h. Keys it does not know are
// skipped, as Accel-Sim's parser skips them.
func (h *header) parseHeaderLine(line []byte, file string, n int) error {
	key, val, ok := strings.Cut(string(line[1:]), "=")
	if !ok {
		return &SyntaxError{file, n, 1, "a header line is \"-key = value\""}
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	col := len(line) - len(val) + 1
	bad := func(want string) error {
		return &SyntaxError{file, n, col, fmt.Sprintf("%s %q: want %s", key, val, want)}
	}
	num := func(dst *uint32) error {
		v, err := strconv.ParseUint(val, 10, 32)
		if err != nil {
			return bad("a decimal number")
		}
		*dst = uint32(v)
		return nil
	}
	dim := func(dst *format.Dim3) error {
		var d format.Dim3
		if k, err := fmt.Sscanf(val, "(%d,%d,%d)", &d.X, &d.Y, &d.Z); err != nil || k != 3 || d.X == 0 || d.Y == 0 || d.Z == 0 {
			return bad("(x,y,z), each at least 1")
		}
		*dst = d
		return nil
	}
	hexAddr := func(dst *uint64) error {
		s := strings.TrimPrefix(strings.TrimPrefix(val, "0x"), "0X")
		v, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			return bad("a hexadecimal address")
		}
		*dst = v
		return nil
	}
	if h.seen == nil {
		h.seen = map[string]bool{}
	}
	h.seen[key] = true
	switch key {
	case "kernel name":
		h.name = val
	case "kernel id":
		return num(&h.id)
	case "grid dim":
		return dim(&h.grid)
	case "block dim":
		return dim(&h.block)
	case "shmem":
		return num(&h.shmem)
	case "nregs":
		return num(&h.nregs)
	case "binary version":
		return num(&h.binary)
	case "shmem base_addr":
		return hexAddr(&h.shmemBase)
	case "local mem base_addr":
		return hexAddr(&h.localBase)
	case "nvbit version":
		h.nvbit = val
	case "accelsim tracer version":
		return num(&h.tracer)
	case keyAddressMap:
		if val != "1" {
			return bad("1")
		}
		h.gtraceMap = true
	case keyLocalBytes:
		if err := num(&h.localBytes); err != nil {
			return err
		}
		if h.localBytes%4 != 0 {
			return bad("a multiple of 4")
		}
	case "enable lineinfo":
		if val != "0" && val != "1" {
			return bad("0 or 1")
		}
		h.lineinfo = val == "1"
	}
	return nil
}

// keyLocalBytes is the header key gtrace's exporter adds: the bytes of local memory per
// thread of the capture, so that an import lays local memory out as the capture did.
// Accel-Sim's parser skips keys it does not know (its first two words are what it reads;
// "gtrace local" is none of its keys).
const keyLocalBytes = "gtrace local bytes per thread"

// kernelFile is one kernel-N.traceg of the list, as the first pass found it.
type kernelFile struct {
	path string // in the trace directory
	hdr  header
	gen  int
	wpc  int // warps per CTA

	statics   map[uint32]*static // by SASS pc
	dense     []*static          // statics[pc] for pc = 16*i, i < maxDense: no hashing per line
	index     map[uint32]uint32  // SASS pc -> gtrace pc (dense, in SASS pc order)
	prog      []format.Inst
	localSize uint64 // bytes per thread of local memory the trace touches, rounded up to 4
	insts     uint64
	ctas      uint64 // thread blocks the trace holds
}

// static is what every execution of one SASS pc has in common.
type static struct {
	opcode  string
	ndst    int
	dst     [maxRegs]uint16
	nsrc    int
	src     [maxRegs]uint16
	srcLine uint32
	info    opInfo
	text    string // the first line's text from ndst through its last source register
	// tail is the text after the PC of the last line without addresses that
	// parseRestAs read in full, tailMask its mask.
	tail     []byte
	tailMask uint32
	unknown  bool   // imported as alu under --unknown-opcode=alu
	gpc      uint32 // its gtrace pc (dense, in SASS pc order), set by build
}

// maxDense bounds the dense table: 64 Ki instructions of 16 bytes (1 MiB of code).
const maxDense = 1 << 16

// static returns the static of SASS pc, or nil.
func (kf *kernelFile) static(pc uint32) *static {
	if i := pc / 16; pc%16 == 0 && i < uint32(len(kf.dense)) {
		return kf.dense[i]
	}
	return kf.statics[pc]
}

// setStatic records st as the static of SASS pc.
func (kf *kernelFile) setStatic(pc uint32, st *static) {
	kf.statics[pc] = st
	if i := pc / 16; pc%16 == 0 && i < maxDense {
		if int(i) >= len(kf.dense) {
			kf.dense = append(kf.dense, make([]*static, int(i)+1-len(kf.dense))...)
		}
		kf.dense[i] = st
	}
}

// check compares a line of the static's pc with the static: the same opcode and
// registers.
func (s *static) check(in *instLine, f *fields) error {
	if s.opcode != string(in.opcode) || !slices.Equal(s.dst[:s.ndst], in.dst[:in.ndst]) || !slices.Equal(s.src[:s.nsrc], in.src[:in.nsrc]) {
		return &SyntaxError{f.file, f.line, in.opCol, fmt.Sprintf("pc %04x is %s with other registers, or another opcode, than the first time (%s)", in.pc, in.opcode, s.opcode)}
	}
	return nil
}

// checkMem says whether a line of the static's pc has addresses when a memory
// instruction's every line must.
func (s *static) checkMem(in *instLine, f *fields) error {
	if s.info.memop != format.MemNone && !in.mem {
		return &SyntaxError{f.file, f.line, in.memCol, fmt.Sprintf("%s is a memory instruction, but this line of it has no addresses (memory width 0)", s.opcode)}
	}
	return nil
}

// open opens one trace file of the directory, through xz when its name ends in ".xz".
// The caller closes the result.
func open(fsys fs.FS, path string) (io.ReadCloser, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".xz") {
		return f, nil
	}
	zr, err := xz.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, f}, nil
}

// visitor receives a kernel file's stream, in file order. inst gets each instruction
// line parsed up to its PC (parsePC); it parses the rest as far as it needs.
type visitor interface {
	beginTB(cta int) error
	inst(cta, warp int, in *instLine, f *fields) error
	endTB(cta int) error
}

// walk reads kernel file kf from the start: the header into kf.hdr, then every thread
// block, checking the structure (#BEGIN_TB, thread block, warp, insts, #END_TB), the
// instruction counts and the CTA order, and hands each part to v.
func walk(fsys fs.FS, kf *kernelFile, v visitor) error {
	rc, err := open(fsys, kf.path)
	if err != nil {
		return err
	}
	defer rc.Close()
	lr := newLineReader(rc, kf.path)
	kf.hdr = header{}
	var f fields
	synErr := func(col int, format string, args ...any) error {
		return &SyntaxError{kf.path, lr.n, col, fmt.Sprintf(format, args...)}
	}
	// The header: "-key = value" lines up to the first '#' line ("#traces format = ...").
	for {
		line, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			return synErr(0, "the file ends in its header: no \"#traces format\" line and no thread blocks")
		}
		if len(line) == 0 {
			continue
		}
		if line[0] == '#' {
			break
		}
		if line[0] != '-' {
			return synErr(1, "a header line starts with '-', got %q", truncate(line))
		}
		if err := kf.hdr.parseHeaderLine(line, kf.path, lr.n); err != nil {
			return err
		}
	}
	h := &kf.hdr
	for _, k := range []string{"grid dim", "block dim", "binary version"} {
		if !h.seen[k] {
			return synErr(0, "the header has no \"-%s\" line", k)
		}
	}
	if kf.gen, err = generation(int(h.binary)); err != nil {
		return &SyntaxError{kf.path, 0, 0, err.Error()}
	}
	if h.block.Count() > 1024 {
		return &SyntaxError{kf.path, 0, 0, fmt.Sprintf("block dim (%s) has %d threads; CUDA allows at most 1024", h.block, h.block.Count())}
	}
	if h.grid.Count() > 1<<31-1 {
		return &SyntaxError{kf.path, 0, 0, fmt.Sprintf("grid dim (%s) has %d CTAs; gtrace takes at most 2^31-1", h.grid, h.grid.Count())}
	}
	kf.wpc = int((h.block.Count() + 31) / 32)
	version := int(h.tracer)
	if !h.seen["accelsim tracer version"] {
		version = 3 // the first version whose post-processed lines drop the thread block
	}

	var in instLine
	cta, lastCTA, warp := -1, -1, -1
	var want, got int64
	seenWarp := make([]bool, kf.wpc)
	closeWarp := func() error {
		if warp >= 0 && got != want {
			return synErr(0, "warp %d of thread block %d has %d instruction lines, its \"insts = %d\" says %d", warp, cta, got, want, want)
		}
		return nil
	}
	for {
		line, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if len(line) == 0 {
			continue
		}
		switch {
		case isHexDigit(line[0]):
			// An instruction line (the common case, tested first): it starts with a
			// number, the PC or the source line; no other line starts with 0-9a-fA-F.
			if warp < 0 || want < 0 {
				return synErr(1, "an instruction line outside a warp's \"warp = N\" and \"insts = N\"")
			}
			if got == want {
				return synErr(1, "warp %d of thread block %d has more instruction lines than its \"insts = %d\"", warp, cta, want)
			}
			f.reset(line, kf.path, lr.n)
			if err := parsePC(&f, &in, version, h.lineinfo); err != nil {
				return err
			}
			got++
			if err := v.inst(cta, warp, &in, &f); err != nil {
				return err
			}
		case bytes.HasPrefix(line, []byte("#BEGIN_TB")):
			if cta >= 0 {
				return synErr(1, "#BEGIN_TB inside thread block %d (no #END_TB before it)", cta)
			}
			cta, warp = -2, -1 // until "thread block = "
			clear(seenWarp)
		case bytes.HasPrefix(line, []byte("#END_TB")):
			if cta < 0 {
				return synErr(1, "#END_TB outside a thread block")
			}
			if err := closeWarp(); err != nil {
				return err
			}
			if err := v.endTB(cta); err != nil {
				return err
			}
			lastCTA, cta, warp = cta, -1, -1
		case line[0] == '#':
			return synErr(1, "unknown line %q", truncate(line))
		case bytes.HasPrefix(line, []byte("thread block")):
			if cta != -2 {
				return synErr(1, "\"thread block\" outside #BEGIN_TB or given twice")
			}
			xyz, ok := valueOf(line, "thread block")
			parts := bytes.Split(xyz, []byte(","))
			var id [3]int64
			for i := range id {
				if ok = ok && len(parts) == 3; ok {
					id[i], ok = parseDec(bytes.TrimSpace(parts[i]))
					ok = ok && id[i] >= 0 && id[i] < 1<<32
				}
			}
			if !ok {
				return synErr(1, "want \"thread block = x,y,z\"")
			}
			x, y, z := uint32(id[0]), uint32(id[1]), uint32(id[2])
			if x >= h.grid.X || y >= h.grid.Y || z >= h.grid.Z {
				return synErr(1, "thread block %d,%d,%d is outside the grid (%s)", x, y, z, h.grid)
			}
			cta = int(x + y*h.grid.X + z*h.grid.X*h.grid.Y)
			if cta <= lastCTA {
				return synErr(1, "thread block %d,%d,%d (linear id %d) comes after %d: gtrace reads thread blocks in launch order, as Accel-Sim's post-processing writes them", x, y, z, cta, lastCTA)
			}
			if err := v.beginTB(cta); err != nil {
				return err
			}
		case bytes.HasPrefix(line, []byte("warp")):
			if cta < 0 {
				return synErr(1, "\"warp\" outside a thread block")
			}
			if err := closeWarp(); err != nil {
				return err
			}
			val, ok := valueOf(line, "warp")
			w64, ok2 := parseDec(val)
			if !ok || !ok2 {
				return synErr(1, "want \"warp = N\"")
			}
			w := int(max(min(w64, 1<<31-1), -1))
			if w < 0 || w >= kf.wpc {
				return synErr(1, "warp %d: a block of %s threads has warps 0..%d", w, h.block, kf.wpc-1)
			}
			if seenWarp[w] {
				return synErr(1, "warp %d given twice in thread block %d", w, cta)
			}
			seenWarp[w] = true
			warp, want, got = w, -1, 0
		case bytes.HasPrefix(line, []byte("insts")):
			if warp < 0 || want >= 0 {
				return synErr(1, "\"insts\" not right after \"warp = N\"")
			}
			val, ok := valueOf(line, "insts")
			if want, ok = parseDec(val); !ok || want < 0 {
				return synErr(1, "want \"insts = N\"")
			}
		default:
			return synErr(1, "unknown line %q", truncate(line))
		}
	}
	if cta != -1 {
		return synErr(0, "the file ends inside thread block %d (no #END_TB): truncated?", cta)
	}
	return nil
}

func isHexDigit(c byte) bool { return hexDigit[c] != 0xff }

// valueOf returns the value of a "key = value" line, trimmed.
func valueOf(line []byte, key string) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(key))
	if !ok {
		return nil, false
	}
	rest, ok = bytes.CutPrefix(bytes.TrimSpace(rest), []byte("="))
	return bytes.TrimSpace(rest), ok
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
