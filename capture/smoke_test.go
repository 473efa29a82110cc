package capture

import (
	"context"
	"os"
	"testing"

	"github.com/gtrace/gtrace/format"
)

func TestSmokeAll(t *testing.T) {
	files, _ := os.ReadDir("../kernels/ptx")
	for _, f := range files {
		src, _ := os.ReadFile("../kernels/ptx/" + f.Name())
		mod, err := parsePTX(f.Name(), src)
		if err != nil {
			t.Errorf("%s: %v", f.Name(), err)
			continue
		}
		for _, fn := range mod.funcs {
			if !fn.entry {
				continue
			}
			var args []string
			for _, p := range fn.params {
				if p.typ == ".u64" || p.typ == ".b64" {
					if f.Name() == "texture.ptx" && len(args) == 1 && len(fn.params) > 1 && fn.params[1].typ == ".u64" && (fn.name[len(fn.name)-3:] == "Tex") {
						args = append(args, "tex2d:f32:256:256:iota")
						continue
					}
					args = append(args, "buf:f32:1048576:rand")
				} else {
					args = append(args, "u32:256")
				}
			}
			for _, simt := range []format.SIMTModel{format.SIMTStack, format.SIMTITS} {
				k, err := Load(Spec{PTX: src, PTXName: f.Name(), Kernel: fn.name, Grid: format.Dim3{4, 1, 1}, Block: format.Dim3{256, 1, 1}, Args: args, SIMT: simt, MaxInst: 1 << 22})
				if err != nil {
					t.Logf("%s %s: %v", f.Name(), fn.name, err)
					continue
				}
				res, err := k.Run(context.Background(), 0, nil)
				if err != nil {
					t.Logf("%s %s %v: run: %v", f.Name(), fn.name, simt, err)
					continue
				}
				t.Logf("%s %s %v: %d winst", f.Name(), fn.name, simt, res.WarpInsts)
			}
		}
	}
}
