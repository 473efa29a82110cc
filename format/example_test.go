package format_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gtrace/gtrace/format"
)

// Write a one-CTA trace of a single coalesced load, read it back, and expand its
// addresses.
func Example() {
	dir, err := os.MkdirTemp("", "gtrace-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "k.gtrace")

	meta := format.Meta{Producer: "example", Launches: []format.Launch{{
		Kernel: "copy", Grid: format.Dim3{X: 1, Y: 1, Z: 1}, Block: format.Dim3{X: 32, Y: 1, Z: 1},
		Program: format.Program{Insts: []format.Inst{
			{PC: 0, Opcode: "ld.global.f32", Class: format.ClassMem, Space: format.SpaceGlobal, MemOp: format.MemLoad, Width: 4},
			{PC: 1, Opcode: "exit", Class: format.ClassControl},
		}},
	}}}
	w, err := format.Create(path, meta)
	if err != nil {
		log.Fatal(err)
	}
	warp := &format.Warp{Kernel: 0, CTA: 0, Warp: 0}
	var lanes [32]uint64
	for l := range lanes {
		lanes[l] = 0x1000 + 4*uint64(l)
	}
	warp.AppendMem(0, 0xFFFFFFFF, 0, 0, &lanes)
	warp.Append(1, 0xFFFFFFFF, 0, 0)
	if err := w.WriteCTA(0, 0, []*format.Warp{warp}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := format.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	got, err := r.ReadWarp(0, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	addrs := got.Addrs(0, nil)
	fmt.Printf("%d records; record 0 is %s, mode %d, %d lanes from %#x to %#x\n",
		got.Len(), r.Meta().Launches[0].Program.Insts[got.PC[0]].Opcode, got.Mode[0], len(addrs), addrs[0], addrs[31])
	// Output: 2 records; record 0 is ld.global.f32, mode 2, 32 lanes from 0x1000 to 0x107c
}
