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
	id                   int
	grid, block          format.Dim3
	shmem, nregs         uint32
	binary               int
	shmemBase, localBase uint64
	nvbit                string
	tracer               int
	lineinfo             bool
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
	var u uint32
	switch key {
	case "kernel name":
		h.name = val
	case "kernel id":
		if err := num(&u); err != nil {
			return err
		}
		h.id = int(u)
	case "grid dim":
		return dim(&h.grid)
	case "block dim":
		return dim(&h.block)
	case "shmem":
		return num(&h.shmem)
	case "nregs":
		return num(&h.nregs)
	case "binary version":
		if err := num(&u); err != nil {
			return err
		}
		h.binary = int(u)
	case "shmem base_addr":
		return hexAddr(&h.shmemBase)
	case "local mem base_addr":
		return hexAddr(&h.localBase)
	case "nvbit version":
		h.nvbit = val
	case "accelsim tracer version":
		if err := num(&u); err != nil {
			return err
		}
		h.tracer = int(u)
	case "enable lineinfo":
		if val != "0" && val != "1" {
			return bad("0 or 1")
		}
		h.lineinfo = val == "1"
	}
	return nil
}

// kernelFile is one kernel-N.traceg of the list, as the first pass found it.
type kernelFile struct {
	path     string // in the trace directory
	listLine int
	hdr      header
	gen      int
	wpc      int // warps per CTA

	statics   map[uint32]*static // by SASS pc
	index     map[uint32]uint32  // SASS pc -> gtrace pc (dense, in SASS pc order)
	prog      []format.Inst
	localSize uint64 // bytes per thread of local memory the trace touches, rounded up to 4
	insts     uint64
	ctas      uint64 // thread blocks the trace holds
}

// static is what every execution of one SASS pc has in common.
type static struct {
	opcode   string
	ndst     int
	dst      [maxRegs]uint16
	nsrc     int
	src      [maxRegs]uint16
	srcLine  uint32
	info     opInfo
	unknown  bool // imported as alu under --unknown-opcode=alu
	hasAddrs bool // its lines carry addresses
}

func (s *static) sameAs(in *instLine) bool {
	return s.opcode == string(in.opcode) && slices.Equal(s.dst[:s.ndst], in.dst[:in.ndst]) &&
		slices.Equal(s.src[:s.nsrc], in.src[:in.nsrc])
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

// visitor receives a kernel file's stream, in file order.
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
	if kf.gen, err = generation(h.binary); err != nil {
		return &SyntaxError{kf.path, 0, 0, err.Error()}
	}
	if h.block.Count() > 1024 {
		return &SyntaxError{kf.path, 0, 0, fmt.Sprintf("block dim (%s) has %d threads; CUDA allows at most 1024", h.block, h.block.Count())}
	}
	if h.grid.Count() > 1<<31-1 {
		return &SyntaxError{kf.path, 0, 0, fmt.Sprintf("grid dim (%s) has %d CTAs; gtrace takes at most 2^31-1", h.grid, h.grid.Count())}
	}
	kf.wpc = int((h.block.Count() + 31) / 32)
	version := h.tracer
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
			var x, y, z uint32
			if k, err := fmt.Sscanf(string(line), "thread block = %d,%d,%d", &x, &y, &z); err != nil || k != 3 {
				return synErr(1, "want \"thread block = x,y,z\"")
			}
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
			var w int
			if k, err := fmt.Sscanf(string(line), "warp = %d", &w); err != nil || k != 1 {
				return synErr(1, "want \"warp = N\"")
			}
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
			if k, err := fmt.Sscanf(string(line), "insts = %d", &want); err != nil || k != 1 || want < 0 {
				return synErr(1, "want \"insts = N\"")
			}
		default:
			if warp < 0 || want < 0 {
				return synErr(1, "an instruction line outside a warp's \"warp = N\" and \"insts = N\"")
			}
			if got == want {
				return synErr(1, "warp %d of thread block %d has more instruction lines than its \"insts = %d\"", warp, cta, want)
			}
			f.reset(line, kf.path, lr.n)
			if err := parseInst(&f, &in, version, h.lineinfo); err != nil {
				return err
			}
			got++
			if err := v.inst(cta, warp, &in, &f); err != nil {
				return err
			}
		}
	}
	if cta != -1 {
		return synErr(0, "the file ends inside thread block %d (no #END_TB): truncated?", cta)
	}
	return nil
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
