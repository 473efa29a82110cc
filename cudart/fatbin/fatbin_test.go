package fatbin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/debtool"
	"github.com/klauspost/compress/zstd"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFixtures reads the fat binaries nvcc 11.8 made (scripts/fatbin-fixtures.sh):
// every PTX entry is, byte for byte, the PTX cuobjdump extracts for its architecture,
// stored as the flags say, and the SASS entry is an ELF file.
func TestFixtures(t *testing.T) {
	for _, c := range []struct {
		name  string
		ptx   []int // architectures of the PTX entries, in order
		sass  []int
		store string
	}{
		{"lz4", []int{80}, nil, "lz4"},
		{"plain", []int{80}, nil, "none"},
		{"multi", []int{70, 90}, []int{80, 80}, "lz4"}, // cuobjdump -lelf lists both sm_80 cubins
	} {
		es, err := Parse(readFixture(t, c.name+".fatbin"))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var ptx, sass []int
		for i := range es {
			e := &es[i]
			if e.Kind == KindELF {
				sass = append(sass, e.Arch)
				p, err := e.Payload()
				if err != nil || !bytes.HasPrefix(p, []byte("\x7fELF")) {
					t.Errorf("%s: SASS entry for sm_%d: %.8q, %v; want an ELF file", c.name, e.Arch, p, err)
				}
				continue
			}
			ptx = append(ptx, e.Arch)
			want := readFixture(t, c.name+".sm_"+strconv.Itoa(e.Arch)+".ptx")
			if !bytes.Equal(e.Data, want) {
				t.Errorf("%s: PTX for compute_%d differs from cuobjdump's (%d bytes, want %d)", c.name, e.Arch, len(e.Data), len(want))
			}
			if e.Compression() != c.store || e.Major != 7 || e.Minor != 8 {
				t.Errorf("%s: compute_%d stored %s, PTX %d.%d; want %s, 7.8", c.name, e.Arch, e.Compression(), e.Major, e.Minor, c.store)
			}
			if ks := Kernels(e.Data); !slices.Equal(ks, []string{"_Z5saxpyifPKfPf", "_Z5scalePff"}) {
				t.Errorf("%s: kernels %v", c.name, ks)
			}
		}
		if !slices.Equal(ptx, c.ptx) || !slices.Equal(sass, c.sass) {
			t.Errorf("%s: PTX for %v and SASS for %v; want %v and %v", c.name, ptx, sass, c.ptx, c.sass)
		}
	}
}

// TestZstdEntry: CUDA 12.4 and later store payloads as ZSTD frames (flag 0x8000,
// nvopen-tools' description). nvcc 11.8 cannot make one, so the test re-stores the
// lz4 fixture's PTX as a ZSTD frame in the same container layout and reads it back.
func TestZstdEntry(t *testing.T) {
	b := readFixture(t, "lz4.fatbin")
	es, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	e := es[0]
	enc, _ := zstd.NewWriter(nil)
	text := append(bytes.Clone(e.Data), 0)
	frame := enc.EncodeAll(text, nil)
	hdr := bytes.Clone(b[e.Offset : e.Offset+72])
	le := binary.LittleEndian
	padded := (len(frame) + 7) &^ 7
	le.PutUint64(hdr[8:], uint64(padded))
	le.PutUint32(hdr[16:], uint32(len(frame)))
	le.PutUint64(hdr[40:], e.Flags&^FlagLZ4|FlagZstd)
	le.PutUint64(hdr[56:], uint64(len(text)))
	body := append(hdr, frame...)
	body = append(body, make([]byte, padded-len(frame))...)
	cont := make([]byte, 16, 16+len(body))
	le.PutUint32(cont, magic)
	le.PutUint16(cont[4:], 1)
	le.PutUint16(cont[6:], 16)
	le.PutUint64(cont[8:], uint64(len(body)))
	got, err := Parse(append(cont, body...))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Compression() != "zstd" || !bytes.Equal(got[0].Data, e.Data) {
		t.Errorf("the ZSTD entry reads back as %d entries, %s, %d bytes; want the lz4 fixture's %d bytes of PTX", len(got), got[0].Compression(), len(got[0].Data), len(e.Data))
	}
}

func TestEntryName(t *testing.T) {
	ptx := []byte(".visible .entry _Z5saxpyifPKfPf(\n.param .u32 p\n)\n.visible .entry plain(\n)")
	for name, want := range map[string]string{"saxpy": "_Z5saxpyifPKfPf", "plain": "plain", "sax": "sax", "_Z5saxpyifPKfPf": "_Z5saxpyifPKfPf"} {
		if got := EntryName(ptx, name); got != want {
			t.Errorf("EntryName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestPTXFor: a kernel runs from the PTX of the highest architecture that declares it;
// an unknown kernel's error lists the program's kernels; a program of SASS only says
// how to rebuild it.
func TestPTXFor(t *testing.T) {
	es, err := Parse(readFixture(t, "multi.fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := PTXFor(es, "_Z5scalePff")
	if err != nil || e.Arch != 90 {
		t.Errorf("PTXFor(scale) = %+v, %v; want compute_90's", e, err)
	}
	if _, err := PTXFor(es, "nosuch"); err == nil || !strings.Contains(err.Error(), "its kernels: _Z5saxpyifPKfPf, _Z5scalePff") {
		t.Errorf("PTXFor(nosuch): %v", err)
	}
	sassOnly := slices.DeleteFunc(slices.Clone(es), func(e Entry) bool { return e.Kind == KindPTX })
	if _, err := PTXFor(sassOnly, "_Z5scalePff"); err == nil || !strings.Contains(err.Error(), "SASS only (for sm_[80 80])") || !strings.Contains(err.Error(), "code=compute_XX") {
		t.Errorf("PTXFor on SASS only: %v", err)
	}
}

// TestPTXForVar: a variable is read from the PTX of the highest architecture that
// declares it as .global or .const, by its whole name (not a longer one that ends with it,
// nor a register or a use).
func TestPTXForVar(t *testing.T) {
	old := ".version 7.0\n.global .align 4 .u32 count = 1;\n"
	cur := ".version 8.0\n.visible .global .align 4 .u32 count;\n.const .align 4 .b8 coef[16];\n.global .u32 mytotal;\nld.global.u32 %r1, [total];\n"
	es := []Entry{{Kind: KindPTX, Arch: 90, Data: []byte(cur)}, {Kind: KindPTX, Arch: 52, Data: []byte(old)}, {Kind: KindELF, Arch: 100}}
	for name, arch := range map[string]int{"count": 90, "coef": 90, "mytotal": 90} {
		if e, err := PTXForVar(es, name); err != nil || e.Arch != arch {
			t.Errorf("PTXForVar(%s) = %+v, %v; want compute_%d's", name, e, err, arch)
		}
	}
	if e, err := PTXForVar(es[1:], "count"); err != nil || e.Arch != 52 {
		t.Errorf("PTXForVar(count) without compute_90 = %+v, %v", e, err)
	}
	for _, name := range []string{"total", "coe", "u32"} {
		if _, err := PTXForVar(es, name); err == nil || !strings.Contains(err.Error(), `no .global or .const variable "`+name+`"`) {
			t.Errorf("PTXForVar(%s): %v, want none", name, err)
		}
	}
}

// TestCorruption: every truncation of a fat binary and every bit flip of its headers is
// a *FormatError or reads as entries; none panics. (A flip inside a payload changes the
// code silently where nothing checks it: fat binaries carry no checksum.)
func TestCorruption(t *testing.T) {
	for _, name := range []string{"lz4", "plain", "multi"} {
		b := readFixture(t, name+".fatbin")
		check := func(what string, v []byte) {
			es, err := Parse(v)
			var fe *FormatError
			if err != nil && !errors.As(err, &fe) {
				t.Errorf("%s %s: untyped error %v", name, what, err)
			}
			for i := range es {
				if _, err := es[i].Payload(); err != nil && !errors.As(err, &fe) {
					t.Errorf("%s %s: untyped payload error %v", name, what, err)
				}
			}
		}
		for n := 0; n < len(b); n++ {
			check("truncated", b[:n])
		}
		es, _ := Parse(b)
		heads := []int{0}
		for _, e := range es {
			heads = append(heads, int(e.Offset))
		}
		for _, h := range heads {
			for i := h; i < h+72 && i < len(b); i++ {
				for bit := 0; bit < 8; bit++ {
					v := bytes.Clone(b)
					v[i] ^= 1 << bit
					check("flipped", v)
				}
			}
		}
	}
}

// FuzzParse: no input makes Parse or Payload panic, and every error is a *FormatError.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"lz4", "plain", "multi"} {
		f.Add(readFixture(f, name+".fatbin"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := Parse(b)
		var fe *FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("untyped error %v", err)
		}
		for i := range es {
			if _, err := es[i].Payload(); err != nil && !errors.As(err, &fe) {
				t.Fatalf("untyped payload error %v", err)
			}
		}
	})
}

// TestNvccBinaries builds testdata/saxpy.cu with nvcc 11.8 in the ways users build
// programs (PTX only, PTX and SASS, -G, -lineinfo, -rdc=true, a shared library, the
// default target) and reads each program's PTX as cuobjdump -all extracts it: the
// program's own and the device runtime's (libcudadevrt, in __nv_relfatbin).
func TestNvccBinaries(t *testing.T) {
	nvcc := debtool.PathNonFree(t, "nvcc", "nvidia-cuda-toolkit")
	cuobjdump := debtool.PathNonFree(t, "cuobjdump", "nvidia-cuda-toolkit")
	clang := debtool.Path(t, "clang-14", "clang-14")
	src, _ := filepath.Abs("testdata/saxpy.cu")
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"ptx", []string{"-gencode", "arch=compute_80,code=compute_80"}},
		{"both", []string{"-gencode", "arch=compute_80,code=[compute_80,sm_80]", "-lineinfo"}},
		{"debug", []string{"-G", "-gencode", "arch=compute_75,code=compute_75"}},
		{"rdc", []string{"-rdc=true", "-gencode", "arch=compute_80,code=compute_80"}},
		{"lib.so", []string{"-shared", "-Xcompiler", "-fPIC", "-gencode", "arch=compute_86,code=compute_86"}},
		{"default", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"-ccbin", clang, "-cudart", "shared", "-o", filepath.Join(dir, c.name)}, c.flags...)
			if out, err := exec.Command(nvcc, append(args, src)...).CombinedOutput(); err != nil {
				t.Fatalf("nvcc: %v\n%s", err, out)
			}
			cmd := exec.Command(cuobjdump, "-all", "-xptx", "all", c.name)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("cuobjdump: %v\n%s", err, out)
			}
			want, _ := filepath.Glob(filepath.Join(dir, "*.ptx"))
			es, err := ReadFile(filepath.Join(dir, c.name))
			if err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			for _, e := range es {
				if e.Kind == KindPTX {
					got = append(got, e.Data)
				}
			}
			if len(got) != len(want) || len(want) == 0 {
				t.Fatalf("%d PTX entries, cuobjdump extracted %d", len(got), len(want))
			}
			for _, w := range want {
				b, _ := os.ReadFile(w)
				if !slices.ContainsFunc(got, func(g []byte) bool { return bytes.Equal(g, b) }) {
					t.Errorf("cuobjdump's %s is not among the PTX read", filepath.Base(w))
				}
			}
			if e, err := PTXFor(es, "_Z5saxpyifPKfPf"); err != nil || !strings.Contains(string(e.Data), ".entry _Z5saxpyifPKfPf") {
				t.Errorf("PTXFor(saxpy): %v", err)
			}
		})
	}
	if _, err := ReadFile(clang); !errors.Is(err, ErrNoFatbin) {
		t.Errorf("a program with no device code: %v, want ErrNoFatbin", err)
	}
}

// TestCubinRegisters: the registers a thread in each cubin of the multi fixture
// (cuobjdump -res-usage on the program it came from: saxpy 10, scale 8 for sm_80), and,
// where nvcc is installed, in cubins for sm_70, sm_80 and sm_90 against what
// cuobjdump -res-usage says of the same program.
func TestCubinRegisters(t *testing.T) {
	es, err := Parse(readFixture(t, "multi.fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]int{"_Z5saxpyifPKfPf": 10, "_Z5scalePff": 8} {
		got, err := KernelRegisters(es, k)
		if err != nil || len(got) != 1 || got[80] != want {
			t.Errorf("KernelRegisters(%s) = %v, %v; want sm_80: %d", k, got, err, want)
		}
	}
	if got, err := KernelRegisters(es, "nope"); err != nil || len(got) != 0 {
		t.Errorf("KernelRegisters(nope) = %v, %v; want none", got, err)
	}

	nvcc := debtool.PathNonFree(t, "nvcc", "nvidia-cuda-toolkit")
	cuobjdump := debtool.PathNonFree(t, "cuobjdump", "nvidia-cuda-toolkit")
	clang := debtool.Path(t, "clang-14", "clang-14")
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/saxpy.cu")
	args := []string{"-ccbin", clang, "-cudart", "shared", "-o", filepath.Join(dir, "p")}
	for _, sm := range []string{"70", "80", "90"} {
		args = append(args, "-gencode", "arch=compute_"+sm+",code=sm_"+sm)
	}
	if out, err := exec.Command(nvcc, append(args, src)...).CombinedOutput(); err != nil {
		t.Fatalf("nvcc: %v\n%s", err, out)
	}
	out, err := exec.Command(cuobjdump, "-res-usage", filepath.Join(dir, "p")).CombinedOutput()
	if err != nil {
		t.Fatalf("cuobjdump: %v\n%s", err, out)
	}
	want := map[string]map[int]int{} // kernel -> arch -> registers
	arch := 0
	var fn string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if a, ok := strings.CutPrefix(line, "arch = sm_"); ok {
			arch, _ = strconv.Atoi(a)
		} else if f, ok := strings.CutPrefix(line, "Function "); ok {
			fn = strings.TrimSuffix(f, ":")
		} else if r, ok := strings.CutPrefix(line, "REG:"); ok && fn != "" {
			n, _ := strconv.Atoi(strings.Fields(r)[0])
			if want[fn] == nil {
				want[fn] = map[int]int{}
			}
			want[fn][arch] = n
		}
	}
	es, err = ReadFile(filepath.Join(dir, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 2 {
		t.Fatalf("cuobjdump -res-usage gave %v", want)
	}
	for k, w := range want {
		got, err := KernelRegisters(es, k)
		if err != nil || len(w) != 3 || !maps.Equal(got, w) {
			t.Errorf("KernelRegisters(%s) = %v, %v; cuobjdump says %v", k, got, err, w)
		}
	}
}

// A damaged .nv.info is an error naming the entry, never a panic or a count.
func TestCubinRegistersDamaged(t *testing.T) {
	es, err := Parse(readFixture(t, "multi.fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	var cubin []byte
	for i := range es {
		if es[i].Kind == KindELF {
			b, _ := es[i].Payload()
			if r, _ := CubinRegisters(b); len(r) > 0 {
				cubin = b
			}
		}
	}
	if cubin == nil {
		t.Fatal("the multi fixture has no cubin with kernels")
	}
	at := bytes.Index(cubin, []byte{eifmtSVAL, eiattrRegcount, 8, 0})
	if at < 0 {
		t.Fatal("no EIATTR_REGCOUNT record")
	}
	for name, damage := range map[string]func(b []byte){
		"symbol out of range": func(b []byte) { binary.LittleEndian.PutUint32(b[at+4:], 999) },
		"size past the end":   func(b []byte) { binary.LittleEndian.PutUint16(b[at+2:], 60000) },
		"wrong size":          func(b []byte) { binary.LittleEndian.PutUint16(b[at+2:], 4) },
		"not an ELF file":     func(b []byte) { b[1] = 'X' },
	} {
		b := slices.Clone(cubin)
		damage(b)
		if r, err := CubinRegisters(b); err == nil {
			t.Errorf("%s: %v, no error", name, r)
		}
	}
}

// KernelRegisters is the registers a thread of kernel (its .entry name) uses in each
// SASS entry of a fat binary that holds it, by Registers: architecture (80 for sm_80)
// to count.
func KernelRegisters(entries []Entry, kernel string) (map[int]int, error) {
	all, err := Registers(entries, nil)
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for a, regs := range all {
		if n, ok := regs[kernel]; ok {
			out[a] = n
		}
	}
	return out, nil
}
