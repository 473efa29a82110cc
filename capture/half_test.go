package capture

import (
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// halfRun is scripts/hw/half.py's output: per PTX form, the kernel, its inputs and
// what the GPU wrote.
type halfRun struct {
	GPU   string `json:"gpu"`
	Forms []struct {
		Inst  string     `json:"inst"`
		Dst   string     `json:"dst"`
		Src   string     `json:"src"`
		PTX   string     `json:"ptx"`
		In    [][]uint64 `json:"in"`
		Out   []uint64   `json:"out"`
		Error string     `json:"error"`
	} `json:"forms"`
}

const halfGPURun = "../traces/hw/h100-2026-11-26-half/half.json.gz"

func loadHalfRun(t *testing.T) *halfRun {
	f, err := os.Open(halfGPURun)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var run halfRun
	if err := json.NewDecoder(z).Decode(&run); err != nil {
		t.Fatal(err)
	}
	return &run
}

// halfKinds are half.py's operand kinds: element bytes and buffer type.
var halfKinds = map[byte]struct {
	size int
	typ  string
}{'h': {2, "u16"}, 'r': {4, "u32"}, 'f': {4, "u32"}, 'd': {8, "u64"}, 'p': {4, "u32"}, 'P': {4, "u32"}}

// TestHalfOnGPU runs each half-precision form of scripts/hw/half.py on the inputs an
// H100 ran it on and wants the H100's bits on every output; a form the GPU's PTX JIT
// refused, capture must refuse too.
func TestHalfOnGPU(t *testing.T) {
	run := loadHalfRun(t)
	if len(run.Forms) < 60 {
		t.Fatalf("%s has %d forms, want the 66 of half.py", halfGPURun, len(run.Forms))
	}
	for _, form := range run.Forms {
		t.Run(strings.TrimSuffix(strings.Fields(form.Inst)[0], ";"), func(t *testing.T) {
			spec := Spec{PTX: []byte(form.PTX), Kernel: "k", Block: d3(128, 1, 1), Data: map[int][]byte{}}
			if form.Error != "" {
				if _, err := Load(spec); err == nil {
					t.Fatalf("%s: the GPU refused it (%s), capture loads it", form.Inst, form.Error)
				} else {
					t.Logf("refused as on the GPU: %v", err)
				}
				return
			}
			n := len(form.Out)
			spec.Grid = d3(uint32((n+127)/128), 1, 1)
			dk := halfKinds[form.Dst[0]]
			spec.Args = []string{fmt.Sprintf("buf:%s:%d", dk.typ, n)}
			for i := 0; i < 3; i++ {
				if i >= len(form.Src) {
					spec.Args = append(spec.Args, "buf:u32:1")
					continue
				}
				k := halfKinds[form.Src[i]]
				spec.Args = append(spec.Args, fmt.Sprintf("buf:%s:%d", k.typ, n))
				b := make([]byte, n*k.size)
				for j, v := range form.In[i] {
					putN(b[j*k.size:], k.size, v)
				}
				spec.Data[i+1] = b
			}
			spec.Args = append(spec.Args, fmt.Sprintf("u32:%d", n))
			k, err := Load(spec)
			if err != nil {
				t.Fatal(err)
			}
			res, err := k.Run(context.Background(), 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			// .approx forms are the H100's approximations (its SFU), which capture
			// does not reproduce bit for bit: each element may be one ulp away.
			approx := strings.Contains(form.Inst, ".approx")
			out, bad, near := res.Buffers[0].Final, 0, 0
			for j, want := range form.Out {
				got := getN(out[j*dk.size:], dk.size)
				if got != want && approx && withinUlp(got, want, dk.size) {
					near++
					continue
				}
				if got != want {
					if bad++; bad <= 8 {
						var in []string
						for _, col := range form.In {
							in = append(in, fmt.Sprintf("%#x", col[j]))
						}
						t.Errorf("%s on %s: %#x, the H100 %#x", form.Inst, strings.Join(in, ", "), got, want)
					}
				}
			}
			if bad > 8 {
				t.Errorf("%s: %d of %d outputs differ", form.Inst, bad, n)
			}
			if approx {
				t.Logf("%s: %d of %d outputs exact, %d one ulp away", form.Inst, n-near-bad, n, near)
				if near*5 > n {
					t.Errorf("%s: %d of %d outputs one ulp away from the H100's, more than a fifth", form.Inst, near, n)
				}
			}
		})
	}
}

func putN(b []byte, n int, v uint64) {
	switch n {
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

func getN(b []byte, n int) uint64 {
	switch n {
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// withinUlp: each 16-bit element of got is at most one unit in the last place from
// want's, with the same sign (adjacent bit patterns of a sign-magnitude format).
func withinUlp(got, want uint64, size int) bool {
	for i := 0; i < size/2; i++ {
		g, w := uint16(got>>(16*i)), uint16(want>>(16*i))
		if (g^w)&0x8000 != 0 || g-w+1 > 2 {
			return false
		}
	}
	return true
}

// halfAtomPTX: every thread adds 1.0 to an .f16 with atom, (1.0, 0.5) to a .bf16x2
// and (1.0, -1.0) to an .f16x2 with red.
const halfAtomPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry ha(.param .u64 pout)
{
.reg .b16 %h<4>;
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [pout];
cvta.to.global.u64 %rd1, %rd1;
mov.b16 %h1, 0x3c00;
atom.global.add.noftz.f16 %h2, [%rd1], %h1;
mov.b32 %r1, 0x3f003f80;
red.global.add.noftz.bf16x2 [%rd1+4], %r1;
mov.b32 %r2, 0xbc003c00;
red.global.add.noftz.f16x2 [%rd1+8], %r2;
ret;
}
`

// TestHalfAtomics: 300 adds of 1.0 reach 300 in .f16 (exact to 2048), but stop at
// 256 in .bf16 (8 significant bits: 256 + 1 is a tie, to even 256) and 0.5s at 128.
func TestHalfAtomics(t *testing.T) {
	res := run(t, Spec{PTX: []byte(halfAtomPTX), Kernel: "ha", Grid: d3(3, 1, 1), Block: d3(100, 1, 1),
		Args: []string{"buf:u32:3"}}, nil)
	out := res.Buffers[0].Final
	for i, want := range []uint64{0x5cb0, 0x43004380, 0xdcb05cb0} {
		if got := getN(out[4*i:], 4); got != want {
			t.Errorf("word %d: %#x, want %#x", i, got, want)
		}
	}
}

// TestHalfRefusals: half forms outside the PTX ISA, or not modelled, are refused by
// what is wrong with them.
func TestHalfRefusals(t *testing.T) {
	checkRefusals(t, map[string]string{
		"atom.global.add.f16 %rs1, [%rd1], %rs2;":       "is .add.noftz only",
		"atom.global.min.noftz.f16 %rs1, [%rd1], %rs2;": "is .add.noftz only",
		"setp.lt.f16 %p1|%p2, %rs1, %rs2;":              "writes one predicate",
		"setp.lt.f16x2 %p1, %r1, %r2;":                  "writes a pair p|q",
		"cvt.f32.f16x2 %f1, %r1;":                       "takes no .f16x2 source",
		"cvt.rn.relu.f32.f64 %f1, %fd1;":                "unsupported modifier .relu",
		"cvt.rn.f16x2.f64 %r1, %fd1, %fd2;":             "takes two .f32 sources",
		"cvt.s32.f16 %r1, %rs1;":                        "needs .rni, .rzi, .rmi or .rpi",
		"add.rz.f16 %rs1, %rs2, %rs3;":                  "rounds to nearest only",
		"ex2.f16 %rs1, %rs2;":                           "needs .approx",
		"add.f16 %rs1, %rs2, 0f3F800000;":               "float literal",
		"min.xorsign.f16 %rs1, %rs2, %rs3;":             "go together",
		"shfl.sync.bfly.f16 %rs1, %rs2, 1, 31, -1;":     "unsupported type .f16 on shfl",
		"fma.rn.oob.f16 %rs1, %rs2, %rs3, %rs4;":        "unsupported modifier .oob",
		"add.s16x2 %r1, %r2, %r3;":                      "unsupported type .s16x2",
		"cvt.rn.satfinite.f32.f16 %f1, %rs1;":           "need a .f16 or .bf16 destination",
		"mul.f16 %rs1, %rs2;":                           "wrong number of operands",
	})
}
