package cudart

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/debtool"
)

// ptxas's report names each entry and then its figures; only the asked kernel's count.
func TestParsePtxas(t *testing.T) {
	out := `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'a' for 'sm_80'
ptxas info    : Function properties for a
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, 368 bytes cmem[0]
ptxas info    : Compiling entry function 'b' for 'sm_90'
ptxas info    : Function properties for b
    24 bytes stack frame, 20 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 16 registers, 368 bytes cmem[0]
`
	for _, c := range []struct {
		kernel string
		want   Registers
	}{
		{"a", Registers{PerThread: 40, Target: "sm_80"}},
		{"b", Registers{PerThread: 16, SpillStores: 20, SpillLoads: 16, Target: "sm_90"}},
	} {
		if got, err := parsePtxas(out, c.kernel); err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.kernel, got, err, c.want)
		}
	}
	if _, err := parsePtxas(out, "c"); err == nil || !strings.Contains(err.Error(), "no register count for c") {
		t.Errorf("a kernel ptxas did not compile: %v; want an error naming it", err)
	}
}

// Real ptxas: a kernel's count, .maxnreg bounding it (with the spills that costs
// reported), and a PTX ptxas refuses, as an error quoting ptxas without the temporary
// file's name.
func TestPtxasRegisters(t *testing.T) {
	debtool.PathNonFree(t, "ptxas", "nvidia-cuda-toolkit")
	ptx := string(samples(t))
	ctx := context.Background()
	free, err := PtxasRegisters(ctx, []byte(ptx), "m_lgammaf")
	if err != nil {
		t.Fatal(err)
	}
	if free.PerThread < 24 || free.PerThread > 255 || free.Target != "sm_80" || free.Release == "" {
		t.Fatalf("m_lgammaf: %+v; want more than 24 registers (it works in double), sm_80, a release", free)
	}
	// .maxnreg goes between an entry's parameters and its body.
	i := strings.Index(ptx, ".entry m_lgammaf(")
	j := i + strings.Index(ptx[i:], "\n{")
	bounded, err := PtxasRegisters(ctx, []byte(ptx[:j]+"\n.maxnreg 24"+ptx[j:]), "m_lgammaf")
	if err != nil {
		t.Fatal(err)
	}
	if bounded.PerThread > 24 || bounded.SpillStores == 0 {
		t.Errorf("m_lgammaf under .maxnreg 24: %+v; want at most 24 registers and spills (%d without)", bounded, free.PerThread)
	}
	bad := strings.Replace(ptx, ".version 7.0", ".version 99.0", 1)
	_, err = PtxasRegisters(ctx, []byte(bad), "m_lgammaf")
	if err == nil || !strings.Contains(err.Error(), "the PTX") || strings.Contains(err.Error(), "gtrace-ptxas-") {
		t.Errorf("PTX .version 99.0: %v; want ptxas's error about the PTX", err)
	}
	t.Logf("m_lgammaf: %d registers; %d under .maxnreg 24, spilling %d bytes (ptxas %s)", free.PerThread, bounded.PerThread, bounded.SpillStores, free.Release)
}

func TestPtxasMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := exec.LookPath("ptxas"); err == nil {
		t.Fatal("ptxas is still on PATH")
	}
	if _, err := PtxasRegisters(context.Background(), []byte(".version 7.0\n"), "k"); !errors.Is(err, ErrNoPtxas) {
		t.Errorf("no ptxas: %v; want ErrNoPtxas", err)
	}
}

// The header's PTX is PTX a GPU's assembler takes: every kernel of samples.cu and
// texture.cu assembles for sm_80 and sm_90. (ptxas refused clang-14's 64-bit match
// forms, whose result it gives 64 bits, and the video instructions' immediate c, both
// of which capture takes.)
func TestHeaderPTXAssembles(t *testing.T) {
	ptxas := debtool.PathNonFree(t, "ptxas", "nvidia-cuda-toolkit")
	tex, err := compile(t, "testdata/texture.cu")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, ptx := range map[string][]byte{"samples": samples(t), "texture": tex} {
		in := filepath.Join(dir, name+".ptx")
		if err := os.WriteFile(in, ptx, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, sm := range []string{"sm_80", "sm_90"} {
			if out, err := exec.Command(ptxas, "-arch="+sm, "-o", filepath.Join(dir, "out.cubin"), in).CombinedOutput(); err != nil {
				t.Errorf("ptxas -arch=%s %s.cu's PTX: %v\n%s", sm, name, err, firstLines(string(out), 10))
			}
		}
	}
}
