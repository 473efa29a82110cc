package accelsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gtrace/gtrace/format"
	"github.com/ulikunitz/xz"
)

// fixtureFS is testdata/fixture in memory, so that tests can change a file.
func fixtureFS(t testing.TB) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, name := range []string{ListFile, "kernel-1.traceg", "kernel-2.traceg"} {
		b, err := os.ReadFile("testdata/fixture/" + name)
		if err != nil {
			t.Fatal(err)
		}
		m[name] = &fstest.MapFile{Data: b}
	}
	return m
}

// importFixture imports the trace directory fsys into an in-memory trace.
func importFixture(t testing.TB, fsys fs.FS, opt Options) (*format.Reader, *Report) {
	t.Helper()
	var buf bytes.Buffer
	rep, err := Convert(context.Background(), fsys, &buf, opt)
	if err != nil {
		t.Fatal(err)
	}
	r, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return r, rep
}

// lanesOf returns record i's address per lane (0 for inactive lanes).
func lanesOf(w *format.Warp, i int) [32]uint64 {
	var l [32]uint64
	w.LaneAddrs(i, &l)
	return l
}

func stride(mask uint32, base uint64, step int64) [32]uint64 {
	var l [32]uint64
	k := int64(0)
	for i := range 32 {
		if mask&(1<<i) != 0 {
			l[i] = base + uint64(k*step)
			k++
		}
	}
	return l
}

// TestFixtureImports reads the hand-written fixture, which holds each address mode
// (base+stride, list, base+delta), every space the importer remaps (global, explicit
// shared offsets, generic into the shared window, local) and a thread block the trace
// lacks, and checks every record it names.
func TestFixtureImports(t *testing.T) {
	r, rep := importFixture(t, fixtureFS(t), Options{Producer: "test"})
	defer r.Close()
	if rep.Kernels != 2 || rep.WarpInsts != 33 || rep.Memcpys != 2 || rep.EmptyCTAs != 1 {
		t.Errorf("report %+v; want 2 kernels, 33 warp-instructions, 2 memcpys, 1 empty CTA", rep)
	}
	m := r.Meta()
	k0 := &m.Launches[0]
	if k0.Kernel != "_Z6fixturePfS_" || k0.Grid != (format.Dim3{X: 2, Y: 1, Z: 1}) || k0.Block != (format.Dim3{X: 64, Y: 1, Z: 1}) ||
		k0.SharedBytes != 1024 || k0.RegsPerThread != 16 || k0.SIMT != format.SIMTITS || !strings.HasPrefix(k0.PTXProducer, "SASS sm_80") {
		t.Errorf("launch 0 = %+v", *k0)
	}
	wantProg := []struct {
		op    string
		class format.Class
		space format.Space
		memop format.MemOp
		width uint8
		cache format.CacheOp
		rd    []uint16
		wr    []uint16
		text  string
	}{
		{"S2R", format.ClassALU, 0, 0, 0, 0, nil, []uint16{0}, "/*0000*/ S2R R0"},
		{"IMAD.WIDE", format.ClassALU, 0, 0, 0, 0, []uint16{0}, []uint16{2}, "/*0010*/ IMAD.WIDE R2, R0, R255"},
		{"LDG.E", format.ClassMem, format.SpaceGlobal, format.MemLoad, 4, 0, []uint16{2}, []uint16{4}, "/*0020*/ LDG.E R4, R2"},
		{"LDG.E.64", format.ClassMem, format.SpaceGlobal, format.MemLoad, 8, 0, []uint16{2}, []uint16{6}, "/*0030*/ LDG.E.64 R6, R2"},
		{"STS", format.ClassMem, format.SpaceShared, format.MemStore, 4, 0, []uint16{0, 4}, nil, "/*0040*/ STS R0, R4"},
		{"BAR.SYNC.DEFER_BLOCKING", format.ClassSync, 0, 0, 0, 0, nil, nil, "/*0050*/ BAR.SYNC.DEFER_BLOCKING"},
		{"LD.E", format.ClassMem, format.SpaceGeneric, format.MemLoad, 4, 0, []uint16{2}, []uint16{8}, "/*0060*/ LD.E R8, R2"},
		{"STL", format.ClassMem, format.SpaceLocal, format.MemStore, 4, 0, []uint16{1, 4}, nil, "/*0070*/ STL R1, R4"},
		{"ATOMG.E.ADD.STRONG.GPU", format.ClassMem, format.SpaceGlobal, format.MemAtomic, 4, format.CacheVolatile, []uint16{2, 4}, []uint16{9}, "/*0080*/ ATOMG.E.ADD.STRONG.GPU R9, R2, R4"},
		{"EXIT", format.ClassControl, 0, 0, 0, 0, nil, nil, "/*0090*/ EXIT"},
	}
	if len(k0.Program.Insts) != len(wantProg) {
		t.Fatalf("kernel 0 has %d program rows, want %d", len(k0.Program.Insts), len(wantProg))
	}
	for i, w := range wantProg {
		in := k0.Program.Insts[i]
		got := fmt.Sprint(in.Opcode, in.Class, in.Space, in.MemOp, in.Width, in.CacheOp, in.RegsRead, in.RegsWritten, in.PTX)
		want := fmt.Sprint(w.op, w.class, w.space, w.memop, w.width, w.cache, w.rd, w.wr, w.text)
		if got != want {
			t.Errorf("pc %d: %s\nwant %s", i, got, want)
		}
	}

	const localSize = 0x10 + 4 // STL at offset 0x10, 4 bytes
	local := func(gw uint64) [32]uint64 {
		var l [32]uint64
		for i := range 32 {
			l[i] = format.LocalPhysBase + gw*localSize*32 + 0x10/4*128 + uint64(i)*4
		}
		return l
	}
	type rec struct {
		cta, warp, row int
		pc             uint32
		mask           uint32
		lanes          [32]uint64
	}
	all := uint32(0xffffffff)
	want := []rec{
		{0, 0, 2, 2, all, stride(all, 0x7f2000000000, 4)},
		{0, 0, 3, 3, 0xf, [32]uint64{0x7f2000001000, 0x7f2000001100, 0x7f2000001200, 0x7f2000001300}},
		{0, 0, 4, 4, 0xf, [32]uint64{0x80, 0x84, 0x88, 0x100}},
		{0, 0, 6, 6, 3, [32]uint64{format.SharedWindow + 0x40, format.SharedWindow + 0x44}},
		{0, 0, 7, 7, all, local(0)},
		{0, 0, 8, 8, all, stride(all, 0x7f2000002000, 0)},
		{0, 1, 4, 4, 0xf, [32]uint64{0x180, 0x184, 0x188, 0x200}},
		{0, 1, 6, 6, 3, [32]uint64{format.SharedWindow + 0x140, format.SharedWindow + 0x144}},
		{0, 1, 7, 7, all, local(1)},
		{1, 0, 2, 2, 0, [32]uint64{}},
		{1, 1, 1, 2, 0xffff0000, stride(0xffff0000, 0x7f2000000100, 4)},
	}
	for _, w := range want {
		ws, err := r.ReadCTA(0, w.cta)
		if err != nil {
			t.Fatal(err)
		}
		wp := ws[w.warp]
		if wp.PC[w.row] != w.pc || wp.Mask[w.row] != w.mask || lanesOf(wp, w.row) != w.lanes {
			t.Errorf("cta %d warp %d row %d: pc %d mask %08x lanes %x\nwant pc %d mask %08x lanes %x",
				w.cta, w.warp, w.row, wp.PC[w.row], wp.Mask[w.row], lanesOf(wp, w.row), w.pc, w.mask, w.lanes)
		}
	}
	if ws, _ := r.ReadCTA(0, 1); ws[0].Len() != 4 || ws[1].Len() != 3 {
		t.Errorf("kernel 0 cta 1 warps have %d and %d records, want 4 and 3", ws[0].Len(), ws[1].Len())
	}

	k1 := &m.Launches[1]
	if k1.Kernel != "_Z5smallPi" || !strings.HasPrefix(k1.PTXProducer, "SASS sm_90") || len(k1.Program.Insts) != 3 {
		t.Fatalf("launch 1 = %+v", *k1)
	}
	for i, line := range []uint32{12, 13, 14} {
		if k1.Program.Insts[i].Line != line {
			t.Errorf("kernel 1 pc %d: line %d, want %d (from -enable lineinfo)", i, k1.Program.Insts[i].Line, line)
		}
	}
	if st := k1.Program.Insts[1]; st.Width != 16 || st.MemOp != format.MemStore {
		t.Errorf("STG.E.128: width %d memop %s, want 16 st", st.Width, st.MemOp)
	}
	for cta, n := range []int{3, 0, 3} {
		ws, err := r.ReadCTA(1, cta)
		if err != nil {
			t.Fatal(err)
		}
		if ws[0].Len() != n {
			t.Errorf("kernel 1 cta %d: %d records, want %d", cta, ws[0].Len(), n)
		}
	}
	ws, _ := r.ReadCTA(1, 2)
	if got := lanesOf(ws[0], 1); got != stride(all, 0x7f2000004200, 16) {
		t.Errorf("kernel 1 cta 2 STG lanes %x", got)
	}
}

func xzBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// dump prints every record of a trace: kernel, CTA, warp, pc, mask and lane addresses.
func dump(t testing.TB, trace []byte) string {
	t.Helper()
	r, err := format.NewReader(bytes.NewReader(trace), int64(len(trace)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	for w, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		for i := range w.Len() {
			fmt.Fprintf(&b, "%d %d %d %d %08x %x\n", w.Kernel, w.CTA, w.Warp, w.PC[i], w.Mask[i], lanesOf(w, i))
		}
	}
	return b.String()
}

// TestXZ reads a kernel trace compressed with xz as its plain form, and refuses a cut one.
func TestXZ(t *testing.T) {
	plain := fixtureFS(t)
	var want bytes.Buffer
	if _, err := Convert(context.Background(), plain, &want, Options{}); err != nil {
		t.Fatal(err)
	}
	z := fixtureFS(t)
	z["kernel-2.traceg.xz"] = &fstest.MapFile{Data: xzBytes(t, z["kernel-2.traceg"].Data)}
	delete(z, "kernel-2.traceg")
	z[ListFile].Data = bytes.Replace(z[ListFile].Data, []byte("kernel-2.traceg"), []byte("kernel-2.traceg.xz"), 1)
	var got bytes.Buffer
	if _, err := Convert(context.Background(), z, &got, Options{}); err != nil {
		t.Fatal(err)
	}
	if g, w := dump(t, got.Bytes()), dump(t, want.Bytes()); g != w {
		t.Errorf("the xz import differs from the plain one:\n%s\nwant\n%s", g, w)
	}
	data := z["kernel-2.traceg.xz"].Data
	for _, cut := range []int{len(data) / 2, len(data) - 5} {
		z["kernel-2.traceg.xz"] = &fstest.MapFile{Data: data[:cut]}
		if _, err := Convert(context.Background(), z, &bytes.Buffer{}, Options{}); err == nil {
			t.Errorf("an xz file cut to %d of %d bytes imported with no error", cut, len(data))
		} else {
			t.Logf("cut at %d: %v", cut, err)
		}
	}
}

// TestBadInput: each damage of the fixture is an error naming the file, the line and
// the column, never a trace that reads differently.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name, file, old, new string
		want                 string
	}{
		{"unknown opcode", "kernel-1.traceg", "0090 ffffffff 0 EXIT", "0090 ffffffff 0 FROB", "kernel-1.traceg:32:17: unknown SASS opcode FROB"},
		{"later generation", "kernel-1.traceg", "0090 ffffffff 0 EXIT", "0090 ffffffff 0 UTMALDG", "kernel-1.traceg:32:17: SASS opcode UTMALDG is listed from sm_90 on, but this kernel's binary is sm_80"},
		{"bad pc", "kernel-1.traceg", "0010 ffffffff 1 R2 IMAD.WIDE", "00g0 ffffffff 1 R2 IMAD.WIDE", "kernel-1.traceg:24:1: PC \"00g0\""},
		{"bad register", "kernel-1.traceg", "1 R0 S2R 0 0 \n0010", "1 X0 S2R 0 0 \n0010", "kernel-1.traceg:23:17: destination register \"X0\""},
		{"short list", "kernel-1.traceg", "0x00007f2000001200 0x00007f2000001300 \n0040 0000000f 0 STS 2 R0 R4 4 2 0x80", "0x00007f2000001200 \n0040 0000000f 0 STS 2 R0 R4 4 2 0x80", "kernel-1.traceg:26:95: line ends where address of lane 3 was expected"},
		{"extra delta", "kernel-1.traceg", "0x80 4 4 120", "0x80 4 4 120 8", "kernel-1.traceg:27:46: unexpected \"8\""},
		{"mode 3", "kernel-1.traceg", "4 1 0x7f2000000000 4 \n0030", "4 3 0x7f2000000000 4 \n0030", "kernel-1.traceg:25:33: address mode \"3\""},
		{"gapped stride", "kernel-1.traceg", "0060 00000003 1 R8 LD.E 1 R2 4 1 0x7ff000000040", "0060 00000005 1 R8 LD.E 1 R2 4 1 0x7ff000000040", "kernel-1.traceg:29:49: base+stride address mode with active mask 00000005"},
		{"insts count", "kernel-1.traceg", "insts = 4", "insts = 5", "warp 0 of thread block 1 has 4 instruction lines, its \"insts = 5\" says 5"},
		{"order", "kernel-2.traceg", "thread block = 2,0,0", "thread block = 0,0,0", "kernel-2.traceg:31:1: thread block 0,0,0 (linear id 0) comes after 0"},
		{"outside grid", "kernel-2.traceg", "thread block = 2,0,0", "thread block = 3,0,0", "outside the grid"},
		{"truncated", "kernel-2.traceg", "14 0020 ffffffff 0 EXIT 0 0 \n\n#END_TB\n", "14 0020 ffff", "kernel-2.traceg:37: the file ends inside thread block 2 (no #END_TB): truncated?"},
		{"no end", "kernel-2.traceg", "14 0020 ffffffff 0 EXIT 0 0 \n\n#END_TB\n", "14 0020 ffffffff 0 EXIT 0 0 \n", "kernel-2.traceg:37: the file ends inside thread block 2 (no #END_TB): truncated?"},
		{"no bases", "kernel-1.traceg", "-shmem base_addr = 0x00007ff000000000\n", "", "generic LD.E, but the header gives no -shmem base_addr"},
		{"global in window", "kernel-1.traceg", "LD.E 1 R2 4 1 0x7ff000000040", "LD.E 1 R2 4 1 0x100000000000", "falls in gtrace's generic shared window"},
		{"pc changes", "kernel-1.traceg", "0010 ffffffff 1 R2 IMAD.WIDE 2 R0 R255 0 \n0020 ffffffff 1 R4 LDG.E 1 R2 4 1 0x7f2000000080", "0010 ffffffff 1 R3 IMAD.WIDE 2 R0 R255 0 \n0020 ffffffff 1 R4 LDG.E 1 R2 4 1 0x7f2000000080", "kernel-1.traceg:37:20: pc 0010 is IMAD.WIDE with other registers"},
		{"binary version", "kernel-1.traceg", "-binary version = 80", "-binary version = 61", "binary version 61"},
		{"big grid", "kernel-2.traceg", "-grid dim = (3,1,1)", "-grid dim = (3000,1,1)", "kernel-2.traceg: the grid (3000,1,1) has 3000 thread blocks but the trace holds 2"},
		{"big block", "kernel-2.traceg", "-block dim = (32,1,1)", "-block dim = (2048,1,1)", "CUDA allows at most 1024"},
		{"list command", ListFile, "MemcpyHtoD,0x00007f2000004000,128", "cudaFree,0x0", "kernelslist.g:3:1: unknown command"},
		{"list path", ListFile, "kernel-2.traceg", "../kernel-2.traceg", "kernelslist.g:4:1:"},
		{"missing file", ListFile, "kernel-2.traceg", "kernel-3.traceg", "kernel-3.traceg"},
		{"mem without addresses", "kernel-2.traceg", "13 0010 ffffffff 0 STG.E.128 2 R2 R4 16 1 0x7f2000004000 16 ", "13 0010 ffffffff 0 STG.E.128 2 R2 R4 0 ", "kernel-2.traceg:24:38: STG.E.128 is a memory instruction, but this line of it has no addresses"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := fixtureFS(t)
			data := string(fsys[c.file].Data)
			i := strings.Index(data, c.old)
			if c.name == "no end" || c.name == "truncated" { // the file's last thread block
				i = strings.LastIndex(data, c.old)
			}
			if i < 0 {
				t.Fatalf("fixture lacks %q", c.old)
			}
			fsys[c.file].Data = []byte(data[:i] + c.new + data[i+len(c.old):])
			_, err := Convert(context.Background(), fsys, &bytes.Buffer{}, Options{})
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// TestUnknownAsALU imports an unknown opcode as alu and counts it.
func TestUnknownAsALU(t *testing.T) {
	fsys := fixtureFS(t)
	fsys["kernel-1.traceg"].Data = bytes.ReplaceAll(fsys["kernel-1.traceg"].Data, []byte("S2R 0 0"), []byte("FROB.X 0 0"))
	r, rep := importFixture(t, fsys, Options{UnknownAsALU: true})
	defer r.Close()
	if rep.Unknown["FROB.X"] != 4 {
		t.Errorf("unknown counts %v, want FROB.X 4", rep.Unknown)
	}
	if in := r.Meta().Launches[0].Program.Insts[0]; in.Class != format.ClassALU || in.Opcode != "FROB.X" {
		t.Errorf("pc 0 = %+v, want FROB.X as alu", in)
	}
	if s := rep.Summary(); !strings.Contains(s, "unknown opcodes imported as alu (warp-instructions): FROB.X 4") {
		t.Errorf("summary %q", s)
	}
}

// TestOpcodeTable checks the table's rows against each other: a memory row has a space,
// every row names a generation, and what lookup reads off the modifiers.
func TestOpcodeTable(t *testing.T) {
	for name, row := range sassOps {
		if row.since != smVolta && row.since != smTuring && row.since != smAmpere && row.since != smHopper {
			t.Errorf("%s: since %d is no generation", name, row.since)
		}
		if (row.memop != format.MemNone) != (row.class == format.ClassMem) || (row.memop != format.MemNone) != (row.space != format.SpaceNone) {
			t.Errorf("%s: class %s space %s memop %s disagree", name, row.class, row.space, row.memop)
		}
	}
	for _, c := range []struct {
		op    string
		width uint8
		cache format.CacheOp
	}{
		{"LDG.E", 4, 0}, {"LDG.E.128.SYS", 16, 0}, {"LDG.E.U8.CONSTANT", 1, format.CacheNC}, {"LDS.U16", 2, 0},
		{"ATOM.E.ADD.F64.RN", 8, 0}, {"LDGSTS.E.BYPASS.LTC128B.128", 16, format.CacheCG}, {"LDSM.16.M88.4", 16, 0},
		{"STG.E.STRONG.GPU", 4, format.CacheVolatile}, {"ATOMS.CAS.64", 8, 0},
	} {
		in, err := lookup(c.op, smAmpere, true)
		if err != nil {
			t.Fatal(err)
		}
		if in.width != c.width || in.cacheOp != c.cache {
			t.Errorf("%s: width %d cache %q, want %d %q", c.op, in.width, in.cacheOp, c.width, c.cache)
		}
	}
	var unk *errUnknownOpcode
	if _, err := lookup("HGMMA.64x128x16.F32", smAmpere, false); !errors.As(err, &unk) || unk.later != smHopper {
		t.Errorf("HGMMA on sm_80: %v, want listed from sm_90", err)
	}
}
