package accelsim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/internal/atomicfile"
)

// ExportOptions steer an export.
type ExportOptions struct {
	// SASS is the binary version the kernel traces claim (70..90; 0 means 80). It picks
	// the generation's opcode spellings and must be one the importer reads.
	SASS int
	// Progress, if set, is called after each CTA with the CTAs exported so far and the
	// trace's total (from the metadata: counting warp-instructions would read the trace
	// twice).
	Progress func(done, total uint64)
}

// ExportReport is what an export wrote.
type ExportReport struct {
	Kernels   int
	WarpInsts uint64
	// Texture counts texture fetches: written as TEX with their texel addresses, which
	// Accel-Sim and gtrace's importer read as instructions without memory.
	Texture uint64
}

// Header keys the exporter adds for gtrace's importer; Accel-Sim's parser reads a header
// line by its first two words and skips these.
const (
	// keyAddressMap = 1 says the addresses are in gtrace's address map already: generic
	// accesses carry format.SharedWindow-based shared addresses and LocalPhysBase-based
	// local ones, which the importer keeps as they are.
	keyAddressMap = "gtrace address map"
)

// Export writes trace r as an Accel-Sim trace directory: kernel-N.traceg for each launch
// (N from 1) and kernelslist.g naming them, as the tracer and its post-processing would
// have written them for the same warps on a GPU. dir is created if needed and must not
// hold a kernelslist.g already. Each file is written whole or not at all, the list last.
func Export(ctx context.Context, r *format.Reader, dir string, opt ExportOptions) (*ExportReport, error) {
	if opt.SASS == 0 {
		opt.SASS = 80
	}
	gen, err := generation(opt.SASS)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	list := filepath.Join(dir, ListFile)
	if _, err := os.Stat(list); err == nil {
		return nil, fmt.Errorf("%s already holds an Accel-Sim trace (%s): give an empty or new folder", dir, ListFile)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	m := r.Meta()
	ex := &exporter{r: r, opt: opt, gen: gen, rep: &ExportReport{Kernels: len(m.Launches)}}
	for k := range m.Launches {
		ex.total += uint64(r.NumCTAs(k))
	}
	var names []string
	for k := range m.Launches {
		name := fmt.Sprintf("kernel-%d.traceg", k+1)
		err := atomicfile.WriteFile(ctx, filepath.Join(dir, name), func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<20)
			if err := ex.kernel(ctx, bw, k); err != nil {
				return err
			}
			return bw.Flush()
		})
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	err = atomicfile.WriteFile(ctx, list, func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(names, "\n")+"\n")
		return err
	})
	if err != nil {
		return nil, err
	}
	return ex.rep, nil
}

type exporter struct {
	r     *format.Reader
	opt   ExportOptions
	gen   int
	rep   *ExportReport
	total uint64 // CTAs
	done  uint64
	lanes [32]uint64
	buf   []byte
}

// kernel writes launch k's kernel trace.
func (ex *exporter) kernel(ctx context.Context, w *bufio.Writer, k int) error {
	l := &ex.r.Meta().Launches[k]
	prog := l.Program.Insts
	// Each pc's text around the mask, built once: "PC " and " NDST [Rd] OPCODE NSRC [Rs] ".
	head := make([]string, len(prog))
	body := make([]string, len(prog))
	entry, err := entryInsts(k, l)
	if err != nil {
		return err
	}
	hasLocal := false
	for i := range prog {
		in := &prog[i]
		head[i] = fmt.Sprintf("%04x ", i*16)
		body[i] = fmt.Sprintf(" %s %s %s ", regList(in.RegsWritten, 1), sassName(in, ex.gen, i < entry), regList(in.RegsRead, 4))
		hasLocal = hasLocal || in.Space == format.SpaceLocal
	}
	if hasLocal && l.LocalBytes == 0 {
		return fmt.Errorf("kernel %d (%s) accesses local memory, but the trace does not say how many bytes each thread has (captured before local_bytes was recorded): capture it again", k, l.Kernel)
	}
	regs := l.RegsPerThread
	fmt.Fprintf(w, "-kernel name = %s\n-kernel id = %d\n-grid dim = (%d,%d,%d)\n-block dim = (%d,%d,%d)\n",
		l.Kernel, k+1, l.Grid.X, l.Grid.Y, l.Grid.Z, l.Block.X, l.Block.Y, l.Block.Z)
	fmt.Fprintf(w, "-shmem = %d\n-nregs = %d\n-binary version = %d\n-cuda stream id = 0\n", l.SharedBytes, regs, ex.opt.SASS)
	fmt.Fprintf(w, "-shmem base_addr = 0x%016x\n-local mem base_addr = 0x%016x\n", format.SharedWindow, format.LocalWindow)
	fmt.Fprintf(w, "-nvbit version = none (gtrace export)\n-accelsim tracer version = 3\n")
	fmt.Fprintf(w, "-%s = 1\n-%s = %d\n\n", keyAddressMap, keyLocalBytes, l.LocalBytes)
	fmt.Fprintf(w, "#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n")
	wpc := uint64(l.WarpsPerCTA())
	for c := range ex.r.NumCTAs(k) {
		if err := ctx.Err(); err != nil {
			return err
		}
		ws, err := ex.r.ReadCTA(k, c)
		if err != nil {
			return err
		}
		n := 0
		for _, wp := range ws {
			n += wp.Len()
		}
		ex.done++
		if n == 0 {
			continue // as the post-processing skips a thread block that ran nothing
		}
		x := uint32(c) % l.Grid.X
		y := uint32(c) / l.Grid.X % l.Grid.Y
		z := uint32(c) / l.Grid.X / l.Grid.Y
		fmt.Fprintf(w, "\n#BEGIN_TB\n\nthread block = %d,%d,%d\n", x, y, z)
		for wi, wp := range ws {
			fmt.Fprintf(w, "\nwarp = %d\ninsts = %d\n", wi, wp.Len())
			gw := uint64(c)*wpc + uint64(wi)
			for i := range wp.Len() {
				pc := wp.PC[i]
				in := &prog[pc]
				b := append(ex.buf[:0], head[pc]...)
				b = appendHex(b, uint64(wp.Mask[i]), 8)
				b = append(b, body[pc]...)
				if in.MemOp == format.MemNone || in.Space == format.SpaceParam {
					b = append(b, "0 \n"...)
				} else {
					if in.MemOp == format.MemTex {
						ex.rep.Texture++
					}
					mask := wp.LaneAddrs(i, &ex.lanes)
					if in.Space == format.SpaceLocal {
						if err := ex.localOffsets(mask, gw, uint64(l.LocalBytes)); err != nil {
							return fmt.Errorf("kernel %d cta %d warp %d pc %d: %w", k, c, wi, pc, err)
						}
					}
					b = strconv.AppendUint(b, uint64(max(in.Width, 1)), 10)
					b = appendAddrs(append(b, ' '), mask, &ex.lanes)
					b = append(b, '\n')
				}
				ex.buf = b
				if _, err := w.Write(b); err != nil {
					return err
				}
			}
			ex.rep.WarpInsts += uint64(wp.Len())
		}
		w.WriteString("\n#END_TB\n")
		if p := ex.opt.Progress; p != nil {
			p(ex.done, ex.total)
		}
	}
	return nil
}

// entryInsts is how many program rows, from pc 0, are launch k's entry function
// (format.Program.EntryInsts). A trace that does not say is all entry when it calls no
// function; one that calls is refused, as its rets cannot be told apart.
func entryInsts(k int, l *format.Launch) (int, error) {
	prog := l.Program.Insts
	if l.Program.EntryInsts > 0 {
		return int(l.Program.EntryInsts), nil
	}
	for i := range prog {
		if in := &prog[i]; in.Class == format.ClassControl && strings.HasPrefix(in.Opcode, "call") {
			return 0, fmt.Errorf("kernel %d (%s) calls functions, but the trace does not say where its entry function ends (captured before entry_insts was recorded): capture it again", k, l.Kernel)
		}
	}
	return len(prog), nil
}

// localOffsets turns the lanes' local addresses (format.LocalAddr) back into per-thread
// offsets, as NVBit reports an LDL's.
func (ex *exporter) localOffsets(mask uint32, gw, localBytes uint64) error {
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		off, ok := format.LocalOffset(ex.lanes[l], gw, localBytes, l)
		if !ok {
			return fmt.Errorf("lane %d's local address %#x is not in its thread's local memory (%d bytes per thread)", l, ex.lanes[l], localBytes)
		}
		ex.lanes[l] = off
	}
	return nil
}

// appendAddrs writes a memory line's address part as the tracer does: base+stride when
// the active lanes are contiguous and evenly spaced (within a 32-bit stride), else
// base+deltas. A record with no active lane is "1 0x0 0", as the tracer writes it.
func appendAddrs(b []byte, mask uint32, lanes *[32]uint64) []byte {
	if mask == 0 {
		return append(b, "1 0x0 0 "...)
	}
	first := bits.TrailingZeros32(mask)
	base := lanes[first]
	contiguous := (mask>>first)&(mask>>first+1) == 0
	if contiguous {
		stride := int64(0)
		if mask>>first > 1 {
			stride = int64(lanes[first+1] - base)
		}
		ok := stride == int64(int32(stride))
		for l := first + 1; ok && mask&(1<<l) != 0; l++ {
			ok = lanes[l]-lanes[l-1] == uint64(stride)
		}
		if ok {
			b = appendHex(append(b, "1 0x"...), base, 1)
			return append(strconv.AppendInt(append(b, ' '), stride, 10), ' ')
		}
	}
	b = append(appendHex(append(b, "2 0x"...), base, 1), ' ')
	prev := base
	for m := mask & (mask - 1); m != 0; m &= m - 1 {
		a := lanes[bits.TrailingZeros32(m)]
		b = strconv.AppendInt(b, int64(a-prev), 10)
		b = append(b, ' ')
		prev = a
	}
	return b
}

// regList writes "N R<a> R<b> ..." for at most limit general registers (Accel-Sim's parser
// takes one destination and four sources). Predicates are left out, as NVBit's tracer
// leaves them out. PTX registers are numbered by capture; an id of 255 or more moves up
// by one, so that none reads as SASS's RZ (255), which the importer drops.
func regList(regs []uint16, limit int) string {
	var parts []string
	for _, r := range regs {
		if r&format.PredReg != 0 || len(parts) == limit {
			continue
		}
		id := int(r)
		if id >= rz {
			id++
		}
		parts = append(parts, "R"+strconv.Itoa(id))
	}
	return strings.TrimSpace(strconv.Itoa(len(parts)) + " " + strings.Join(parts, " "))
}

// appendHex appends v in lower-case hexadecimal, zero-padded to at least digits digits.
func appendHex(b []byte, v uint64, digits int) []byte {
	for n := max((bits.Len64(v)+3)/4, 1); n < digits; n++ {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, v, 16)
}
