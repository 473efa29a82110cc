package capture

import (
	"os"
	"path/filepath"
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
