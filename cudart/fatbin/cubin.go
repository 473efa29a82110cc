package fatbin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
)

// A cubin (a SASS entry's payload) is an ELF file whose section .nv.info holds
// attributes of its kernels, one record after another: a format byte and an attribute
// byte, then for format EIFMT_SVAL (4) a 16-bit size and that many bytes, for the
// others (EIFMT_NVAL 1, EIFMT_BVAL 2, EIFMT_HVAL 3) a 16-bit value. The attribute
// EIATTR_REGCOUNT (0x2f) is an SVAL of two 32-bit words: the kernel's symbol index
// and the registers ptxas gave a thread of it. Public descriptions: CuAssembler's
// CuNVInfo.py (cloudcores/CuAssembler) and GVirtuS's cudart plugin
// (gvirtus/GVirtuS, CudaRtHandler.h); checked against `cuobjdump -res-usage` on the
// cubins nvcc 11.8 makes for sm_70, sm_80 and sm_90 (TestCubinRegisters).
const (
	eifmtSVAL      = 4
	eiattrRegcount = 0x2f
)

// cubinReader reads a cubin as debug/elf expects an ELF file: a cubin's header keeps
// the CUDA ABI version in e_version (bytes 20-23: 0x76 and up, where ELF has 1), which
// debug/elf refuses as not matching e_ident's version; the reader gives 1 there.
type cubinReader struct{ r *bytes.Reader }

func (c cubinReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	for i := max(off, 20); i < min(off+int64(n), 24); i++ {
		p[i-off] = 0
		if i == 20 {
			p[i-off] = 1
		}
	}
	return n, err
}

// CubinRegisters reads the registers a thread of each kernel of a cubin uses, by its
// symbol name.
func CubinRegisters(cubin []byte) (map[string]int, error) {
	f, err := elf.NewFile(cubinReader{bytes.NewReader(cubin)})
	if err != nil {
		return nil, fmt.Errorf("cubin: %v", err)
	}
	syms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) {
		return map[string]int{}, nil // no symbols, so no kernels (the fat binary's common cubin)
	} else if err != nil {
		return nil, fmt.Errorf("cubin: symbol table: %v", err)
	}
	out := map[string]int{}
	for _, s := range f.Sections {
		if s.Name != ".nv.info" {
			continue
		}
		b, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("cubin: section .nv.info: %v", err)
		}
		for off := 0; off < len(b); {
			if off+4 > len(b) {
				return nil, fmt.Errorf("cubin: .nv.info: a record cut short at byte %d", off)
			}
			format, attr := b[off], b[off+1]
			if format != eifmtSVAL {
				off += 4
				continue
			}
			n := int(binary.LittleEndian.Uint16(b[off+2:]))
			val := b[off+4:]
			if n > len(val) {
				return nil, fmt.Errorf("cubin: .nv.info: attribute %#x at byte %d declares %d bytes, %d are left", attr, off, n, len(val))
			}
			val = val[:n]
			off += 4 + n
			if attr != eiattrRegcount {
				continue
			}
			if n != 8 {
				return nil, fmt.Errorf("cubin: .nv.info: EIATTR_REGCOUNT of %d bytes, want 8", n)
			}
			// debug/elf's Symbols leaves out the null symbol 0: index i is syms[i-1].
			sym, regs := int(binary.LittleEndian.Uint32(val)), int(binary.LittleEndian.Uint32(val[4:]))
			if sym < 1 || sym > len(syms) {
				return nil, fmt.Errorf("cubin: .nv.info: EIATTR_REGCOUNT of symbol %d, which the symbol table (%d) lacks", sym, len(syms))
			}
			out[syms[sym-1].Name] = regs
		}
	}
	return out, nil
}

// Registers is the registers a thread uses in each SASS entry of a fat binary whose
// architecture keep accepts (nil: every one), each cubin decompressed and read once:
// architecture (80 for sm_80) to kernel name to count. A cubin that cannot be read is
// an error naming its entry.
func Registers(entries []Entry, keep func(arch int) bool) (map[int]map[string]int, error) {
	out := map[int]map[string]int{}
	for i := range entries {
		e := &entries[i]
		if e.Kind != KindELF || (keep != nil && !keep(e.Arch)) {
			continue
		}
		b, err := e.Payload()
		if err != nil {
			return nil, err
		}
		regs, err := CubinRegisters(b)
		if err != nil {
			return nil, formatErr(e.Offset, "SASS entry for sm_%d: %v", e.Arch, err)
		}
		if out[e.Arch] == nil {
			out[e.Arch] = regs
		} else {
			maps.Copy(out[e.Arch], regs)
		}
	}
	return out, nil
}
