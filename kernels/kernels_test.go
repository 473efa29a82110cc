package kernels

import (
	"bytes"
	"errors"
	"github.com/gtrace/gtrace/internal/clangtest"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/format"
)

func TestNamesAndEntriesUnique(t *testing.T) {
	names, entries := map[string]bool{}, map[string]string{}
	for _, k := range All() {
		if names[k.Name] {
			t.Errorf("name %q used twice", k.Name)
		}
		names[k.Name] = true
		key := k.PTXFile + ":" + k.Entry
		if other, dup := entries[key]; dup {
			t.Errorf("%s and %s both launch %s", other, k.Name, key)
		}
		entries[key] = k.Name
		if k.Topic == "" || k.Summary == "" || k.Check == nil || k.Launch == nil {
			t.Errorf("%s: Topic, Summary, Launch and Check are all required", k.Name)
		}
		if len(k.Small) == 0 {
			t.Errorf("%s: no Small sizes for quick runs", k.Name)
		}
		if len(k.SIMT) == 0 {
			t.Errorf("%s: no SIMT model", k.Name)
		}
		for _, m := range k.SIMT {
			if m != SIMTStack && m != SIMTITS {
				t.Errorf("%s: unknown SIMT model %q", k.Name, m)
			}
		}
	}
	// The set of issue 3.
	for _, want := range []string{
		"add_vectors", "test_coalesced", "test_mixed", "test_offset_2", "test_offset_4", "test_offset_8",
		"test_offset_32", "test_scattered", "coalesce_sequential", "coalesce_permuted", "coalesce_misaligned",
		"coalesce_broadcast", "coalesce_random", "device_copy_scalar", "copy", "copy4",
		"transpose_v1", "transpose_v2", "transpose_v3", "transpose_v4",
		"reduce_v1", "reduce_v2", "reduce_v3", "reduce_v4_1", "reduce_v4_2", "reduce_v5_1", "reduce_v5_2",
		"bank_linear", "bank_same_word", "bank_two_way", "bank_sums_padded", "bank_double", "constant_access",
		"tex_row_tex", "tex_row_global", "tex_row_restrict", "tex_column_tex", "tex_column_global",
		"tex_column_restrict", "tex_random_tex", "tex_random_global", "tex_random_restrict",
		"particles_aos", "particles_soa", "particles_asta", "divergence_if_else", "divergence_nested",
		"divergence_half_warp", "divergence_warp_aligned", "spinlock",
	} {
		if !names[want] {
			t.Errorf("missing kernel %q", want)
		}
	}
}

func TestLookup(t *testing.T) {
	k, err := Lookup("transpose_v1")
	if err != nil || k.Entry != "matrixTranspose" {
		t.Fatalf("Lookup(transpose_v1) = %v, %v", k, err)
	}
	_, err = Lookup("transpose_v9")
	if err == nil || !strings.Contains(err.Error(), "transpose_v4") || !strings.Contains(err.Error(), "add_vectors") {
		t.Fatalf("Lookup of an unknown name: error %v should list the known names", err)
	}
}

// entryParams returns the .param declarations of entry in ptx, or ok=false when
// ptx has no such entry.
func entryParams(ptx []byte, entry string) (params []string, ok bool) {
	re := regexp.MustCompile(`\.entry\s+` + regexp.QuoteMeta(entry) + `\s*\(([^)]*)\)`)
	m := re.FindSubmatch(ptx)
	if m == nil {
		return nil, false
	}
	for _, p := range strings.Split(string(m[1]), ",") {
		if p = strings.TrimSpace(p); p != "" {
			params = append(params, p)
		}
	}
	return params, true
}

// eachEntryBody calls f with the body of reference kernel name's entry in each PTX
// corpus, clang-14's then nvcc's.
func eachEntryBody(t *testing.T, name string, f func(p Producer, body string)) {
	t.Helper()
	k, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Producer{Clang14, NVCC} {
		src, err := PTXOf(k, p)
		if err != nil {
			t.Fatal(err)
		}
		f(p, entryBody(src, k.Entry))
	}
}

// entryBody returns the text between an entry's braces.
func entryBody(ptx []byte, entry string) string {
	s := string(ptx)
	i := regexp.MustCompile(`\.entry\s+` + regexp.QuoteMeta(entry) + `\s*\(`).FindStringIndex(s)
	if i == nil {
		return ""
	}
	s = s[i[1]:]
	open := strings.Index(s, "{")
	depth := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return s[open : j+1]
			}
		}
	}
	return ""
}

// paramBytes is the size of a .param declaration: ".param .u64 name",
// ".param .align 8 .b8 name[24]".
func paramBytes(p string) int {
	if m := regexp.MustCompile(`\.b8\s+\S+\[(\d+)\]`).FindStringSubmatch(p); m != nil {
		n := 0
		for _, c := range m[1] {
			n = 10*n + int(c-'0')
		}
		return n
	}
	for _, f := range strings.Fields(p) {
		switch f {
		case ".u64", ".s64", ".b64", ".f64":
			return 8
		case ".u32", ".s32", ".b32", ".f32":
			return 4
		}
	}
	return 0
}

// argBytes is how many bytes of parameter space a spec's value fills.
func argBytes(spec string) int {
	switch kind, _, _ := strings.Cut(spec, ":"); kind {
	case "buf", "tex2d", "i64", "u64", "f64":
		return 8
	case "i32", "u32", "f32":
		return 4
	case "i16", "u16":
		return 2
	case "i8", "u8":
		return 1
	}
	return 0
}

func TestEntriesMatchArgs(t *testing.T) {
	for _, p := range []Producer{Clang14, NVCC} {
		for _, k := range All() {
			ptx, err := PTXOf(k, p)
			if errors.Is(err, ErrNoCorpus) {
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", k.Name, err)
			}
			params, ok := entryParams(ptx, k.Entry)
			if !ok {
				t.Errorf("%s (%s): no .entry %s in %s", k.Name, p, k.Entry, k.PTXFile)
				continue
			}
			args := k.Launch(k.Defaults()).Args
			if len(params) != len(args) {
				t.Errorf("%s (%s): %d parameters, %d argument specs", k.Name, p, len(params), len(args))
				continue
			}
			for i := range params {
				if pb, ab := paramBytes(params[i]), argBytes(args[i]); pb != ab {
					t.Errorf("%s (%s): parameter %d %q is %d bytes, spec %q gives %d", k.Name, p, i, params[i], pb, args[i], ab)
				}
			}
		}
	}
}

var (
	callRe     = regexp.MustCompile(`\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$%][\w$]*)\s*[,;]`)
	funcBodyRe = regexp.MustCompile(`\.func\s+(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)\s*(?:\([^)]*\))?\s*\{`)
)

// TestNoUnresolvedCalls: the emulator has no libdevice and no libm, so every call
// in the corpus must go to a .func defined in the same file.
func TestNoUnresolvedCalls(t *testing.T) {
	for _, dir := range []string{"ptx", "ptx-nvcc"} {
		files, _ := fs.Glob(corpus, dir+"/*.ptx")
		for _, f := range files {
			b, _ := corpus.ReadFile(f)
			if bytes.Contains(b, []byte(".extern .func")) {
				t.Errorf("%s declares an external function", f)
			}
			defined := map[string]bool{}
			for _, m := range funcBodyRe.FindAllSubmatch(b, -1) {
				defined[string(m[1])] = true
			}
			for _, m := range callRe.FindAllSubmatch(b, -1) {
				if !defined[string(m[1])] {
					t.Errorf("%s calls %s, which it does not define", f, m[1])
				}
			}
		}
	}
	// The check itself: divergence.ptx calls A, B and C.
	b, _ := corpus.ReadFile("ptx/divergence.ptx")
	if n := len(callRe.FindAll(b, -1)); n < 3 {
		t.Errorf("found %d calls in divergence.ptx, want at least 3: the call pattern no longer matches", n)
	}
}

// TestPTXShowsTheLesson guards what each kernel is there to show against a compiler
// that optimises it away: the instruction each lesson is about must be in its entry.
func TestPTXShowsTheLesson(t *testing.T) {
	want := map[string][]string{
		"device_copy_scalar": {"ld.global.u32", "st.global.u32"},
		"copy":               {"ld.global.nc.u32"},
		"copy4":              {"ld.global.nc.v4.u32", "st.global.v4.u32"},
		"transpose_v1":       {"ld.global.f32", "st.global.f32"},
		"transpose_v2":       {"st.shared.f32", "bar.sync", "ld.shared.f32"},
		"reduce_v1":          {"rem.u32", "bar.sync"},
		"reduce_v5_1":        {"ld.volatile.shared.f32", "st.volatile.shared.f32"},
		"reduce_v5_2":        {"ld.volatile.shared.f32"},
		"bank_double":        {"st.shared.f64", "ld.shared.f64"},
		"constant_access":    {"ld.const.f32", "ld.global.f32", "ld.global.nc.f32"},
		"tex_row_tex":        {"tex.2d.v4.f32.s32"},
		"tex_row_global":     {"ld.global.f32"},
		"tex_row_restrict":   {"ld.global.nc.f32"},
		"tex_random_tex":     {"tex.2d.v4.f32.s32"},
		"divergence_if_else": {"call", "bra"},
		"divergence_nested":  {"selp"},
		"spinlock":           {"atom.global.cas.b32", "atom.global.exch.b32", "membar.gl"},
	}
	for name, ops := range want {
		k, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		ptx, _ := PTX(k)
		body := entryBody(ptx, k.Entry)
		for _, op := range ops {
			if !strings.Contains(body, op) {
				t.Errorf("%s: %s is not in .entry %s", name, op, k.Entry)
			}
		}
	}
	// Plain loads must stay plain: ld.global.nc there would erase the comparison.
	for _, name := range []string{"device_copy_scalar", "tex_row_global", "tex_column_global", "tex_random_global", "transpose_v1"} {
		k, _ := Lookup(name)
		ptx, _ := PTX(k)
		if strings.Contains(entryBody(ptx, k.Entry), ".nc.") {
			t.Errorf("%s: plain global loads became non-coherent", name)
		}
	}
}

func TestDefaultLaunches(t *testing.T) {
	spec := regexp.MustCompile(`^(?:(?:i8|u8|i16|u16|i32|u32|i64|u64|f32|f64):-?[0-9.e+-]+` +
		`|buf:(?:i8|u8|i16|u16|i32|u32|i64|u64|f32|f64):[1-9][0-9]*(?::(?:zero|iota|rand(?::[0-9]+)?|const:[^:]+))?` +
		`|tex2d:f32:[1-9][0-9]*:[1-9][0-9]*(?::(?:zero|iota|rand(?::[0-9]+)?|const:[^:]+))?)$`)
	konst := regexp.MustCompile(`^[A-Za-z_]\w*=(?:f32|i32|u32|f64):[1-9][0-9]*(?::(?:zero|iota|rand(?::[0-9]+)?|const:[^:]+))?$`)
	for _, k := range All() {
		sz, err := ParseSizes(k, nil)
		if err != nil {
			t.Errorf("%s: the defaults fail their own bounds: %v", k.Name, err)
			continue
		}
		if !maps(sz, k.Defaults()) {
			t.Errorf("%s: ParseSizes(nil) = %v, Defaults() = %v", k.Name, sz, k.Defaults())
		}
		l := k.Launch(sz)
		threads := l.Block.Count()
		if threads == 0 || threads > 1024 || l.Grid.Count() == 0 || l.Grid.X > 1<<31-1 || l.Grid.Y > 65535 || l.Grid.Z > 65535 {
			t.Errorf("%s: launch %v x %v is not a valid CUDA launch", k.Name, l.Grid, l.Block)
		}
		if l.DynShared > 48<<10 {
			t.Errorf("%s: %d bytes of dynamic shared memory", k.Name, l.DynShared)
		}
		for _, a := range l.Args {
			if !spec.MatchString(a) {
				t.Errorf("%s: argument spec %q does not follow the grammar", k.Name, a)
			}
		}
		for _, c := range l.Consts {
			if !konst.MatchString(c) {
				t.Errorf("%s: const spec %q does not follow the grammar", k.Name, c)
			}
		}
		if _, err := layoutOf(l); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}

func maps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// The defaults that other tests and the benchmark rely on (issue 3).
func TestRequiredDefaults(t *testing.T) {
	cases := []struct {
		name        string
		grid, block format.Dim3
		shared      uint32
		args0       string
	}{
		{"transpose_v1", dim2(64, 64), dim2(32, 32), 0, "buf:f32:4194304:rand:1"},
		{"transpose_v2", dim2(64, 64), dim2(32, 32), 0, "buf:f32:4194304:rand:1"},
		{"transpose_v3", dim2(64, 64), dim2(32, 32), 0, "buf:f32:4194304:rand:1"},
		{"transpose_v4", dim2(64, 64), dim2(32, 8), 0, "buf:f32:4194304:rand:1"},
		{"reduce_v1", dim1(16384), dim1(256), 1024, "buf:f32:4194304:rand:1"},
		{"reduce_v3", dim1(16384), dim1(256), 1024, "buf:f32:4194304:rand:1"},
		{"reduce_v4_1", dim1(8192), dim1(256), 1024, "buf:f32:4194304:rand:1"},
		{"reduce_v5_2", dim1(2048), dim1(256), 1024, "buf:f32:4194304:rand:1"},
		{"add_vectors", dim1(2048), dim1(512), 0, "buf:f32:1048576:zero"},
		{"test_coalesced", dim1(8192), dim1(256), 0, "buf:i32:2097152:rand:1"},
		{"constant_access", dim1(128), dim1(128), 0, "buf:f32:128:rand:1"},
		{"spinlock", dim1(1), dim1(32), 0, "buf:i32:1:zero"},
	}
	for _, c := range cases {
		k, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		l := k.Launch(k.Defaults())
		if l.Grid != c.grid || l.Block != c.block || l.DynShared != c.shared || l.Args[0] != c.args0 {
			t.Errorf("%s: default launch %v x %v shared %d args[0] %q; want %v x %v shared %d %q",
				c.name, l.Grid, l.Block, l.DynShared, l.Args[0], c.grid, c.block, c.shared, c.args0)
		}
	}
	k, _ := Lookup("spinlock")
	if !slices.Equal(k.SIMT, []string{SIMTITS}) {
		t.Errorf("spinlock: SIMT %v, want only its", k.SIMT)
	}
}

func TestParseSizes(t *testing.T) {
	k, _ := Lookup("reduce_v4_2") // n: multiple of 2048
	for _, c := range []struct {
		kv   []string
		n    int
		fail string
	}{
		{nil, 1 << 22, ""},
		{[]string{"n=4096"}, 4096, ""},
		{[]string{"n=2^20"}, 1 << 20, ""},
		{[]string{"n=1<<21"}, 1 << 21, ""},
		{[]string{"n = 0x1000"}, 4096, ""},
		{[]string{"n=3000"}, 0, "multiple of 2048"},
		{[]string{"n=0"}, 0, "out of range"},
		{[]string{"n=-2048"}, 0, "out of range"},
		{[]string{"n=2^40"}, 0, "exponent"},
		{[]string{"n=lots"}, 0, "not a number"},
		{[]string{"m=4096"}, 0, `unknown size "m"; sizes: n`},
		{[]string{"n"}, 0, "want name=value"},
		{[]string{"n=4096", "n=8192"}, 0, "given twice"},
	} {
		sz, err := ParseSizes(k, c.kv)
		switch {
		case c.fail == "" && err != nil:
			t.Errorf("ParseSizes(%q): %v", c.kv, err)
		case c.fail == "" && sz["n"] != c.n:
			t.Errorf("ParseSizes(%q) n = %d, want %d", c.kv, sz["n"], c.n)
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
			t.Errorf("ParseSizes(%q) error %v, want one saying %q", c.kv, err, c.fail)
		}
	}
	// Bounds beyond a multiple: the constant kernel indexes a 128-entry array.
	kc, _ := Lookup("constant_access")
	if _, err := ParseSizes(kc, []string{"threads=129"}); err == nil {
		t.Error("constant_access accepts 129 threads")
	}
}

func TestNVCCCorpus(t *testing.T) {
	files, _ := fs.Glob(corpus, "ptx-nvcc/*.ptx")
	k, _ := Lookup("transpose_v1")
	_, err := PTXOf(k, NVCC)
	if len(files) == 0 {
		if !errors.Is(err, ErrNoCorpus) || !strings.Contains(err.Error(), "gen.sh nvcc") {
			t.Fatalf("PTXOf(nvcc) without the corpus: %v; want ErrNoCorpus and how to make it", err)
		}
		t.Skip("the nvcc corpus has not been generated (sh kernels/gen.sh nvcc on a CUDA machine)")
	}
	// Once there, it must be complete: TestEntriesMatchArgs checks every entry.
	for _, k := range All() {
		if _, err := PTXOf(k, NVCC); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}

// TestPTXUpToDate regenerates the clang-14 corpus and compares it with the committed
// one, so that a .cu edit without `make ptx` fails here.
func TestPTXUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every kernel")
	}
	clang := clangtest.Clang14(t)
	out := t.TempDir()
	cmd := exec.Command("sh", "gen.sh", "clang")
	cmd.Env = append(os.Environ(), "PTX_OUT="+out, "CLANG="+clang)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen.sh: %v\n%s", err, b)
	}
	committed, _ := fs.Glob(corpus, "ptx/*.ptx")
	fresh, _ := filepath.Glob(filepath.Join(out, "*.ptx"))
	if len(fresh) != len(committed) {
		t.Errorf("gen.sh made %d files, %d are committed", len(fresh), len(committed))
	}
	for _, f := range fresh {
		got, _ := os.ReadFile(f)
		want, err := corpus.ReadFile("ptx/" + filepath.Base(f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("kernels/ptx/%s is stale: run make ptx (sh kernels/gen.sh) and commit it", filepath.Base(f))
		}
	}
}

func TestGenShFailsWithoutCompiler(t *testing.T) {
	for _, mode := range []string{"clang", "nvcc"} {
		cmd := exec.Command("sh", "gen.sh", mode)
		cmd.Env = append(os.Environ(), "CLANG=no-such-clang", "NVCC=no-such-nvcc", "PTX_OUT="+t.TempDir())
		b, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(b), "not found") {
			t.Errorf("gen.sh %s without its compiler: err %v, output %q; want a failure saying so", mode, err, b)
		}
	}
}
