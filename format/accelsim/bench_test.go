package accelsim_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/format/accelsim"
	"github.com/gtrace/gtrace/kernels"
	"github.com/ulikunitz/xz"
)

// exportKernel captures reference kernel name at sizes, exports it to a temporary
// Accel-Sim directory and returns the directory and the capture's warp-instructions.
func exportKernel(b *testing.B, name string, sizes ...string) (string, uint64) {
	b.Helper()
	k, err := kernels.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	r := captureKernel(b, k, sizes)
	defer r.Close()
	dir := b.TempDir()
	rep, err := accelsim.Export(context.Background(), r, dir, accelsim.ExportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return dir, rep.WarpInsts
}

// benchKernels are the launches the import benchmarks export and read back.
var benchKernels = []struct {
	name  string
	sizes []string
}{
	{"transpose_v1", []string{"n=512"}},
	{"volkov_memcpy_f1", []string{"n=1048576"}},
}

// BenchmarkImport: import speed from .traceg in warp-instructions per second on one
// goroutine (both passes), on transpose V1 (every load 32 sectors, base+delta lines)
// and a Volkov copy (coalesced, base+stride lines). Issue 12's target: 5 M/s per core.
func BenchmarkImport(b *testing.B) {
	for _, c := range benchKernels {
		b.Run(c.name, func(b *testing.B) {
			dir, insts := exportKernel(b, c.name, c.sizes...)
			fsys := os.DirFS(dir)
			b.ResetTimer()
			for b.Loop() {
				if _, err := accelsim.Convert(context.Background(), fsys, io.Discard, accelsim.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(insts)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mwarp-inst/s")
		})
	}
}

// BenchmarkImportSize: bytes per warp-instruction of the imported trace against the
// .traceg it came from and that file compressed with xz (ulikunitz/xz, its default
// preset; `xz -1` gives about the same on these files).
func BenchmarkImportSize(b *testing.B) {
	for _, c := range benchKernels {
		b.Run(c.name, func(b *testing.B) {
			dir, insts := exportKernel(b, c.name, c.sizes...)
			text, err := os.ReadFile(filepath.Join(dir, "kernel-1.traceg"))
			if err != nil {
				b.Fatal(err)
			}
			var z bytes.Buffer
			zw, _ := xz.NewWriter(&z)
			zw.Write(text)
			zw.Close()
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if _, err := accelsim.Convert(context.Background(), os.DirFS(dir), &out, accelsim.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := format.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len())); err != nil {
				b.Fatal(err)
			}
			n := float64(insts)
			b.ReportMetric(float64(len(text))/n, "traceg-B/inst")
			b.ReportMetric(float64(z.Len())/n, "xz-B/inst")
			b.ReportMetric(float64(out.Len())/n, "gtrace-B/inst")
		})
	}
}
