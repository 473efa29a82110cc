package accelsim_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/format/accelsim"
	"github.com/gtrace/gtrace/kernels"
)

// captureKernel captures reference kernel k at sizes into memory.
func captureKernel(t testing.TB, k *kernels.Kernel, sizes []string) *format.Reader {
	t.Helper()
	sz, err := kernels.ParseSizes(k, sizes)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := k.Spec(sz, kernels.Clang14)
	if err != nil {
		t.Fatal(err)
	}
	spec.SIMT = format.SIMTITS // SASS traces come from sm_70 and later
	r, _, err := kernels.CaptureInMemory(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// captureNamed is captureKernel for the reference kernel of that name; nil sizes are
// its small ones.
func captureNamed(t testing.TB, name string, sizes []string) *format.Reader {
	t.Helper()
	k, err := kernels.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if sizes == nil {
		sizes = k.Small
	}
	return captureKernel(t, k, sizes)
}

// importDir imports the Accel-Sim trace directory dir into an in-memory trace.
func importDir(t testing.TB, dir string) (*format.Reader, *accelsim.Report) {
	t.Helper()
	return accelsim.ImportFS(t, os.DirFS(dir), accelsim.Options{})
}

// TestExportRoundTrip exports every reference kernel as an Accel-Sim trace and imports
// it again: every warp-instruction keeps its pc, mask, class and lane addresses, and
// every program row its class, memory operation, space and width. Two kinds of row
// change, as SASS and the Accel-Sim format have no more: a parameter access comes back
// as an alu instruction without memory (ptxas makes a kernel parameter a constant-bank
// operand and a function parameter a register), and a texture fetch as class other
// without addresses (NVBit records no texel coordinates).
func TestExportRoundTrip(t *testing.T) {
	for _, k := range kernels.All() {
		t.Run(k.Name, func(t *testing.T) {
			r := captureKernel(t, k, k.Small)
			defer r.Close()
			dir := t.TempDir()
			xrep, err := accelsim.Export(context.Background(), r, dir, accelsim.ExportOptions{SASS: 90})
			if err != nil {
				t.Fatal(err)
			}
			back, irep := importDir(t, dir)
			defer back.Close()
			if irep.WarpInsts != xrep.WarpInsts || irep.Texture != xrep.Texture || len(irep.AddrsIgnored) != 0 {
				t.Errorf("exported %+v, imported %+v", *xrep, *irep)
			}
			compareTraces(t, r, back)
			checkExits(t, back)
		})
	}
}

// exportOneWarp captures kernel k of ptx as one warp (ITS, one argument), exports it
// for sm_<sass> and imports it again; every warp-instruction must come back as it went
// (compareTraces). It returns the import, closed when the test ends.
func exportOneWarp(t *testing.T, ptx, arg string, sass int) *format.Reader {
	t.Helper()
	r, _, err := kernels.CaptureInMemory(context.Background(), capture.Spec{PTX: []byte(ptx), PTXName: "k.ptx", Kernel: "k",
		Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1}, SIMT: format.SIMTITS, Args: []string{arg}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := t.TempDir()
	if _, err := accelsim.Export(context.Background(), r, dir, accelsim.ExportOptions{SASS: sass}); err != nil {
		t.Fatal(err)
	}
	back, _ := importDir(t, dir)
	t.Cleanup(func() { back.Close() })
	compareTraces(t, r, back)
	return back
}

// TestExportCpAsyncLdmatrix: a cp.async exports as LDGSTS (.BYPASS for .cg) and comes
// back as the global load of its source that capture records, at its width and cache
// operator; an ldmatrix exports as LDSM with its matrix count and comes back as the
// 16-byte shared load it is.
func TestExportCpAsyncLdmatrix(t *testing.T) {
	ptx := `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.shared .align 16 .b8 s[512];
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [p];
mov.u32 %r0, 0;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 16;
add.s64 %rd3, %rd1, %rd2;
shl.b32 %r2, %r1, 4;
mov.u32 %r3, s;
add.u32 %r3, %r3, %r2;
cp.async.cg.shared.global [%r3], [%rd3], 16;
cp.async.ca.shared.global [%r3], [%rd3], 8;
cp.async.wait_all;
ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r0, %r1, %r2, %r3}, [%r3];
ret;
}
`
	back := exportOneWarp(t, ptx, "buf:u8:512", 80)
	got := map[string]format.CacheOp{}
	ldsm := false
	for _, in := range back.Meta().Launches[0].Program.Insts {
		ldsm = ldsm || strings.HasPrefix(in.Opcode, "LDSM")
		if strings.HasPrefix(in.Opcode, "LDGSTS") {
			got[in.Opcode] = in.CacheOp
		}
		if strings.HasPrefix(in.Opcode, "LDSM") && (in.Opcode != "LDSM.16.MT88.4" || in.Space != format.SpaceShared || in.Width != 16) {
			t.Errorf("ldmatrix came back as %s (%v, %d bytes), want LDSM.16.MT88.4 (shared, 16 bytes)", in.Opcode, in.Space, in.Width)
		}
	}
	if c, ok := got["LDGSTS.E.BYPASS.128"]; !ok || c != format.CacheCG || len(got) != 2 {
		t.Errorf("LDGSTS rows %v, want LDGSTS.E.BYPASS.128 (cg) and LDGSTS.E.64", got)
	}
	if !ldsm {
		t.Error("no LDSM row came back for the ldmatrix")
	}
	if _, ok := got["LDGSTS.E.64"]; !ok {
		t.Errorf("LDGSTS rows %v, want LDGSTS.E.64", got)
	}
}

// checkExits checks what Accel-Sim needs to end a warp: every lane that runs executes
// EXIT once (its set_completed asserts a lane completes once, and a warp with a lane that
// never does is never done), and the warp's last instruction is an EXIT.
func checkExits(t *testing.T, r *format.Reader) {
	t.Helper()
	for k, l := range r.Meta().Launches {
		prog := l.Program.Insts
		for c := range r.NumCTAs(k) {
			ws, err := r.ReadCTA(k, c)
			if err != nil {
				t.Fatal(err)
			}
			for w, wp := range ws {
				var ran, exited uint32
				last := ""
				for i := range wp.Len() {
					m := wp.Mask[i]
					ran |= m
					last = prog[wp.PC[i]].Opcode
					if last == "EXIT" {
						if exited&m != 0 {
							t.Fatalf("launch %d cta %d warp %d: lanes %08x exit twice", k, c, w, exited&m)
						}
						exited |= m
					}
				}
				if wp.Len() > 0 && (ran != exited || last != "EXIT") {
					t.Fatalf("launch %d cta %d warp %d: lanes %08x ran, %08x exited; last instruction %s", k, c, w, ran, exited, last)
				}
			}
		}
	}
}

func compareTraces(t *testing.T, a, b *format.Reader) {
	t.Helper()
	la, lb := a.Meta().Launches, b.Meta().Launches
	if len(la) != len(lb) {
		t.Fatalf("%d launches, came back as %d", len(la), len(lb))
	}
	for k := range la {
		pa, pb := la[k].Program.Insts, lb[k].Program.Insts
		if la[k].LocalBytes != lb[k].LocalBytes || la[k].Grid != lb[k].Grid || la[k].Block != lb[k].Block {
			t.Errorf("launch %d: local bytes %d grid %s block %s, came back as %d %s %s", k,
				la[k].LocalBytes, la[k].Grid, la[k].Block, lb[k].LocalBytes, lb[k].Grid, lb[k].Block)
		}
		bad := 0
		for c := range a.NumCTAs(k) {
			wa, err := a.ReadCTA(k, c)
			if err != nil {
				t.Fatal(err)
			}
			wb, err := b.ReadCTA(k, c)
			if err != nil {
				t.Fatal(err)
			}
			for w := range wa {
				if wa[w].Len() != wb[w].Len() {
					t.Fatalf("launch %d cta %d warp %d: %d records, came back as %d", k, c, w, wa[w].Len(), wb[w].Len())
				}
				for i := range wa[w].Len() {
					ia, ib := &pa[wa[w].PC[i]], &pb[wb[w].PC[i]]
					var xa, xb [32]uint64
					ma, mb := wa[w].LaneAddrs(i, &xa), wb[w].LaneAddrs(i, &xb)
					if ia.MemOp == format.MemTex {
						xa, ma = [32]uint64{}, 0
					}
					want := *ia
					switch {
					case ia.MemOp == format.MemTex:
						want = format.Inst{Class: format.ClassOther}
					case ia.Space == format.SpaceParam:
						want = format.Inst{Class: format.ClassALU}
						xa, ma = [32]uint64{}, 0
					}
					same := wa[w].Mask[i] == wb[w].Mask[i] && xa == xb && ma == mb && ib.Space == want.Space &&
						ib.Class == want.Class && ib.MemOp == want.MemOp && ib.Width == want.Width
					if !same && bad < 5 {
						bad++
						t.Errorf("launch %d cta %d warp %d row %d: %s (%s %s %s w%d) mask %08x %x\ncame back as %s (%s %s %s w%d) mask %08x %x",
							k, c, w, i, ia.PTX, ia.Class, ia.Space, ia.MemOp, ia.Width, wa[w].Mask[i], xa,
							ib.PTX, ib.Class, ib.Space, ib.MemOp, ib.Width, wb[w].Mask[i], xb)
					}
				}
			}
		}
	}
}

// A trace written before programs recorded where the entry function ends
// (EntryInsts 0) exports when it calls no function, its every ret an EXIT, and is refused
// with a message when it calls one, whose rets could not be told from the entry's.
func TestExportWithoutEntryInsts(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		ok     bool
	}{{"copy", true}, {"divergence_if_else", false}} {
		t.Run(tc.kernel, func(t *testing.T) {
			r := captureNamed(t, tc.kernel, nil)
			defer r.Close()
			meta := *r.Meta()
			meta.Launches = slices.Clone(meta.Launches)
			meta.Launches[0].Program.EntryInsts = 0
			var buf bytes.Buffer
			w, err := format.NewWriter(&buf, meta)
			if err != nil {
				t.Fatal(err)
			}
			for c := range r.NumCTAs(0) {
				ws, err := r.ReadCTA(0, c)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.WriteCTA(0, c, ws); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			old, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			dir := t.TempDir()
			_, err = accelsim.Export(context.Background(), old, dir, accelsim.ExportOptions{SASS: 80})
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "capture it again") {
					t.Fatalf("export of a calling kernel without entry_insts: %v, want a refusal", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			back, _ := importDir(t, dir)
			defer back.Close()
			checkExits(t, back)
		})
	}
}

var update = flag.Bool("update", false, "rewrite testdata/export from the exporter")

// TestExportGolden keeps the exporter's output for two small captures byte for byte:
// testdata/export holds what Accel-Sim (dev 73f9fac, docs/PEERS.md) was shown to run, a
// coalesced copy and a kernel with a divergent call (EXIT for the entry's ret, RET.REL
// for the function's). A change to the exporter shows here as a diff to review, and
// -update rewrites the files.
func TestExportGolden(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		sizes  []string
	}{
		{"copy", []string{"n=1024", "blocks=2"}},
		{"divergence_if_else", []string{"blocks=2"}},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			r := captureNamed(t, tc.kernel, tc.sizes)
			defer r.Close()
			dir := t.TempDir()
			if _, err := accelsim.Export(context.Background(), r, dir, accelsim.ExportOptions{SASS: 80}); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "export", tc.kernel)
			for _, f := range []string{accelsim.ListFile, "kernel-1.traceg"} {
				got, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if *update {
					if err := os.MkdirAll(golden, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(golden, f), got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(filepath.Join(golden, f))
				if err != nil {
					t.Fatalf("%v (run go test -run TestExportGolden -update)", err)
				}
				if !bytes.Equal(got, want) {
					gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
					for i := range min(len(gl), len(wl)) {
						if gl[i] != wl[i] {
							t.Fatalf("%s line %d:\n got %q\nwant %q\n(review, then go test -run TestExportGolden -update)", f, i+1, gl[i], wl[i])
						}
					}
					t.Fatalf("%s: %d lines, want %d", f, len(gl), len(wl))
				}
			}
		})
	}
}

// TestExportMma: an mma.sync exports as the HMMA ptxas makes of it (shape, accumulator
// type and .BF16, as cuobjdump shows for scripts/hw/mma.cu) and comes back in its class,
// tensor.
func TestExportMma(t *testing.T) {
	ptx := `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .b32 %r<16>;
.reg .f64 %fd<4>;
mov.u32 %r0, 0;
mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r0, %r1, %r2, %r3}, {%r0, %r0, %r0, %r0}, {%r0, %r0}, {%r0, %r0, %r0, %r0};
mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%r4, %r5, %r6, %r7}, {%r0, %r0}, {%r0}, {%r0, %r0, %r0, %r0};
mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r8, %r9}, {%r0, %r0, %r0, %r0}, {%r0, %r0}, {%r0, %r0};
mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%r4, %r5, %r6, %r7}, {%r0, %r0, %r0, %r0}, {%r0, %r0}, {%r0, %r0, %r0, %r0};
mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r4, %r5, %r6, %r7}, {%r0, %r0, %r0, %r0}, {%r0, %r0}, {%r0, %r0, %r0, %r0};
mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%r4, %r5, %r6, %r7}, {%r0, %r0}, {%r0}, {%r0, %r0, %r0, %r0};
mov.b64 %fd0, 0;
mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd0}, {%fd0}, {%fd0, %fd0};
ret;
}
`
	for _, c := range []struct {
		sass int
		f64  string
	}{{80, "DMMA.884"}, {90, "DMMA.8x8x4"}} {
		back := exportOneWarp(t, ptx, "u64:0", c.sass)
		var got []string
		for _, in := range back.Meta().Launches[0].Program.Insts {
			if in.Class == format.ClassTensor {
				got = append(got, in.Opcode)
			}
		}
		if want := []string{"HMMA.16816.F32", "HMMA.1688.F32.BF16", "HMMA.16816.F16", "HMMA.1688.F32.TF32", "IMMA.16832.S8.S8.SAT",
			"IMMA.16816.U8.S8", c.f64}; !slices.Equal(got, want) {
			t.Errorf("sm_%d: tensor rows %v, want %v", c.sass, got, want)
		}
	}
}

// TestExportMbarrier: mbarrier instructions export as the SYNCS instructions ptxas
// makes of them for sm_90 (ARRIVES for cp.async.mbarrier.arrive) and come back as sync
// rows; pending_count, arithmetic on a state, as an ALU row. For sm_80 the same kernel
// exports as MEMBAR.ALL.CTA and ARRIVES.
func TestExportMbarrier(t *testing.T) {
	ptx := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
.shared .align 8 .b64 mb;
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
.reg .pred %p<2>;
mbarrier.init.shared.b64 [mb], 64;
mbarrier.arrive.shared.b64 %rd1, [mb];
cp.async.mbarrier.arrive.noinc.shared.b64 [mb];
cp.async.mbarrier.arrive.shared.b64 [mb];
mbarrier.test_wait.shared.b64 %p1, [mb], %rd1;
mbarrier.try_wait.parity.shared.b64 %p1, [mb], 0;
mbarrier.pending_count.b64 %r1, %rd1;
mbarrier.inval.shared.b64 [mb];
ret;
}
`
	for _, c := range []struct {
		sass int
		want []string
	}{
		{90, []string{"SYNCS.EXCH.64", "SYNCS.ARRIVE.TRANS64.A1T0", "ARRIVES.LDGSTSBAR.64.ARVCNT", "ARRIVES.LDGSTSBAR.64.TRANSCNT",
			"SYNCS.PHASECHK.TRANS64", "SYNCS.PHASECHK.TRANS64.TRYWAIT", "SHF.R", "SYNCS.CCTL.IV"}},
		{80, []string{"MEMBAR.ALL.CTA", "MEMBAR.ALL.CTA", "ARRIVES.LDGSTSBAR.64.ARVCNT", "ARRIVES.LDGSTSBAR.64.TRANSCNT",
			"MEMBAR.ALL.CTA", "MEMBAR.ALL.CTA", "LOP3.LUT", "MEMBAR.ALL.CTA"}},
	} {
		back := exportOneWarp(t, ptx, "u64:0", c.sass)
		insts := back.Meta().Launches[0].Program.Insts
		var got []string
		for _, in := range insts[:len(insts)-1] { // all but the EXIT
			got = append(got, in.Opcode)
			want := format.ClassSync
			if strings.HasPrefix(in.Opcode, "SHF") || strings.HasPrefix(in.Opcode, "LOP3") {
				want = format.ClassALU
			}
			if in.Class != want || in.MemOp != format.MemNone {
				t.Errorf("sm_%d: %s came back as class %v, memop %v; want %v, none", c.sass, in.Opcode, in.Class, in.MemOp, want)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("sm_%d: rows %v, want %v", c.sass, got, c.want)
		}
	}
}
