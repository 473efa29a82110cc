package capture

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the lexer, parser and decoder: they must return a
// module or an error, never panic or run away. Seeds: every PTX file in testdata and
// the reference corpora.
func FuzzParse(f *testing.F) {
	for _, g := range []string{"testdata/*.ptx", "../kernels/ptx/*.ptx", "../kernels/ptx-nvcc/*.ptx"} {
		files, _ := filepath.Glob(g)
		for _, name := range files {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		mod, err := parsePTX("fuzz.ptx", src)
		if err != nil {
			return
		}
		for _, fn := range mod.funcs {
			if !fn.entry || fn.noBody {
				continue
			}
			args := make([]string, len(fn.params))
			for i := range args {
				args[i] = "u64:0"
				if typeSize(fn.params[i].typ) == 4 {
					args[i] = "u32:0"
				}
			}
			// Load parses the whole module again: decoding one entry per input keeps an
			// execution cheap (a corpus file holds up to 20 entries).
			Load(Spec{PTX: src, PTXName: "fuzz.ptx", Kernel: fn.name, Grid: d3(1, 1, 1), Block: d3(1, 1, 1), Args: args})
			break
		}
	})
}

// FuzzParseArg feeds arbitrary --arg and --const SPECs to their parsers: each returns an
// argument or an error naming the SPEC, never panics; what parses parses the same again,
// and a buffer's initial contents are exactly COUNT elements.
func FuzzParseArg(f *testing.F) {
	for _, s := range []string{"i32:7", "u64:0x10", "f32:1.5", "f64:-2e300", "i8:-128", "u16:65535",
		"buf:f32:1024", "buf:u8:16:iota", "buf:i32:8:rand:42", "buf:i32:8:hot:50:3", "buf:f64:4:const:3.25", "buf:u32:3:zero",
		"tex2d:f32:16:8", "tex2d:u8:4:4:rand", "buf:f32:0", "tex2d:f32:70000:1", "buf:x:1", "i32:1:2",
		"t=0", "t_x=2:float4", "t=1:uchar2:norm", "t=1:norm", "t=-1", "t=0:int3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseArg(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Errorf("ParseArg(%q): error %q does not name the SPEC", s, err)
			}
		} else {
			again, err := ParseArg(a.Source)
			if err != nil || !reflect.DeepEqual(again, a) {
				t.Errorf("ParseArg(%q) = %+v; parsed again: %+v, %v", s, a, again, err)
			}
			if a.Kind != ArgScalar && a.Count*a.ElemBytes() <= 1<<16 {
				if n := len(a.InitBytes()); n != a.Count*a.ElemBytes() {
					t.Errorf("ParseArg(%q): %d initial bytes, want %d × %d", s, n, a.Count, a.ElemBytes())
				}
			}
		}
		if c, err := parseConst(s); err == nil && (c.name == "" || c.arg.Kind != ArgBuf) {
			t.Errorf("parseConst(%q) = %+v", s, c)
		}
		// --texref: an error names the SPEC; an accepted one names a reference and an
		// argument, and a format it gives has 1, 2 or 4 channels of 8, 16 or 32 bits.
		b, err := ParseTexBind(s)
		f := b.Format
		switch {
		case err != nil && !strings.Contains(err.Error(), strconv.Quote(s)):
			t.Errorf("ParseTexBind(%q): error %q does not name the SPEC", s, err)
		case err == nil && (b.Name == "" || b.Arg < 0 || b.Source != s):
			t.Errorf("ParseTexBind(%q) = %+v", s, b)
		case err == nil && f != (ChannelFormat{}) && (f.Channels == 3 || f.Channels > 4 || f.Bits%8 != 0 || f.Bits > 32 || f.Kind > ChannelFloat):
			t.Errorf("ParseTexBind(%q): format %s", s, f)
		}
	})
}
