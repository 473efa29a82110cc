// Command hwcheck checks the reference kernels' Go references against a real GPU:
// it writes each kernel's PTX, launch and initial buffers as a job, runner.cu runs
// the jobs through the CUDA driver API, and hwcheck compares what came back with
// kernels.Kernel.Check.
//
//	go run ./kernels/hwcheck prepare DIR         # here: jobs for both PTX corpora
//	nvcc -O2 -o runner kernels/hwcheck/runner.cu -lcuda
//	./runner DIR/jobs DIR/out                     # on the GPU machine
//	go run ./kernels/hwcheck verify DIR          # here: Check every result
//
// Kernels run at their Small sizes. Buffers are filled as capture fills them
// (capture.Arg.InitBytes documents zero, iota, const and the splitmix64 rand), so
// a capture and the hardware see the same data.
package main

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gtrace/gtrace/kernels"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "prepare" && os.Args[1] != "verify") {
		fmt.Fprintln(os.Stderr, "usage: hwcheck prepare|verify DIR")
		os.Exit(2)
	}
	var err error
	if os.Args[1] == "prepare" {
		err = prepare(os.Args[2])
	} else {
		err = verify(os.Args[2])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hwcheck:", err)
		os.Exit(1)
	}
}

var producers = []kernels.Producer{kernels.Clang14, kernels.NVCC}

func jobName(k *kernels.Kernel, p kernels.Producer) string { return k.Name + "." + string(p) }

func prepare(dir string) error {
	jobs := filepath.Join(dir, "jobs")
	for _, k := range kernels.All() {
		sz, err := kernels.ParseSizes(k, k.Small)
		if err != nil {
			return err
		}
		l := k.Launch(sz)
		for _, p := range producers {
			ptx, err := kernels.PTXOf(k, p)
			if errors.Is(err, kernels.ErrNoCorpus) {
				continue
			}
			if err != nil {
				return err
			}
			ptxPath := filepath.Join("ptx", string(p), k.PTXFile)
			if err := write(filepath.Join(jobs, ptxPath), ptx); err != nil {
				return err
			}
			jd := filepath.Join(jobs, jobName(k, p))
			var b strings.Builder
			fmt.Fprintf(&b, "ptx %s\nentry %s\n", ptxPath, k.Entry)
			fmt.Fprintf(&b, "grid %d %d %d\nblock %d %d %d\nshared %d\n", l.Grid.X, l.Grid.Y, l.Grid.Z, l.Block.X, l.Block.Y, l.Block.Z, l.DynShared)
			for i, spec := range l.Args {
				a, err := parse(spec)
				if err != nil {
					return fmt.Errorf("%s: %w", k.Name, err)
				}
				file := fmt.Sprintf("init%d.bin", i)
				switch a.kind {
				case "buf":
					fmt.Fprintf(&b, "arg buf %s\n", file)
				case "tex2d":
					fmt.Fprintf(&b, "arg tex2d %d %d %s\n", a.w, a.h, file)
				default:
					fmt.Fprintf(&b, "arg scalar %s\n", hex.EncodeToString(a.scalar))
					continue
				}
				if err := write(filepath.Join(jd, file), a.initBytes()); err != nil {
					return err
				}
			}
			for i, c := range l.Consts {
				name, spec, _ := strings.Cut(c, "=")
				a, err := parse("buf:" + spec)
				if err != nil {
					return fmt.Errorf("%s: %w", k.Name, err)
				}
				file := fmt.Sprintf("const%d.bin", i)
				fmt.Fprintf(&b, "const %s %s\n", name, file)
				if err := write(filepath.Join(jd, file), a.initBytes()); err != nil {
					return err
				}
			}
			if err := write(filepath.Join(jd, "job.txt"), []byte(b.String())); err != nil {
				return err
			}
		}
	}
	return nil
}

func verify(dir string) error {
	jobs, out := filepath.Join(dir, "jobs"), filepath.Join(dir, "out")
	failed, ran := 0, 0
	for _, k := range kernels.All() {
		sz, _ := kernels.ParseSizes(k, k.Small)
		l := k.Launch(sz)
		for _, p := range producers {
			name := jobName(k, p)
			status, err := os.ReadFile(filepath.Join(out, name, "status"))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			ran++
			if string(status) != "ok" {
				fmt.Printf("FAIL %-28s %-8s launch: %s\n", k.Name, p, status)
				failed++
				continue
			}
			init := make([][]byte, len(l.Args))
			final := make([][]byte, len(l.Args))
			for i, spec := range l.Args {
				if !strings.HasPrefix(spec, "buf:") && !strings.HasPrefix(spec, "tex2d:") {
					continue
				}
				init[i], _ = os.ReadFile(filepath.Join(jobs, name, fmt.Sprintf("init%d.bin", i)))
				if strings.HasPrefix(spec, "buf:") {
					final[i], _ = os.ReadFile(filepath.Join(out, name, fmt.Sprintf("arg%d.bin", i)))
				}
			}
			if err := k.Check(sz, init, final); err != nil {
				fmt.Printf("FAIL %-28s %-8s %v\n", k.Name, p, err)
				failed++
				continue
			}
			fmt.Printf("ok   %-28s %-8s\n", k.Name, p)
		}
	}
	fmt.Printf("%d runs, %d failed\n", ran, failed)
	if ran == 0 {
		return fmt.Errorf("no results under %s", out)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d runs disagree with their Go reference", failed, ran)
	}
	return nil
}

func write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// arg is the part of an argument spec that a job needs.
type arg struct {
	kind   string // buf, tex2d or a scalar type
	typ    string
	count  int
	w, h   int
	init   string
	seed   uint64
	value  string
	scalar []byte
}

func parse(spec string) (arg, error) {
	f := strings.Split(spec, ":")
	a := arg{kind: f[0], init: "zero", seed: 1}
	rest := 3
	switch f[0] {
	case "buf":
		a.typ = f[1]
		a.count, _ = strconv.Atoi(f[2])
	case "tex2d":
		a.typ, rest = f[1], 4
		a.w, _ = strconv.Atoi(f[2])
		a.h, _ = strconv.Atoi(f[3])
		a.count = a.w * a.h
	default:
		var bits uint64
		switch f[0] {
		case "f32":
			v, err := strconv.ParseFloat(f[1], 32)
			if err != nil {
				return a, err
			}
			bits = uint64(math.Float32bits(float32(v)))
		case "i32":
			v, err := strconv.ParseInt(f[1], 0, 32)
			if err != nil {
				return a, err
			}
			bits = uint64(uint32(v))
		default:
			return a, fmt.Errorf("scalar %q: not used by the reference kernels", spec)
		}
		a.scalar = binary.LittleEndian.AppendUint32(nil, uint32(bits))
		return a, nil
	}
	if len(f) > rest {
		a.init = f[rest]
		if len(f) > rest+1 {
			a.value = f[rest+1]
			if a.init == "rand" {
				a.seed, _ = strconv.ParseUint(a.value, 0, 64)
			}
		}
	}
	return a, nil
}

// initBytes fills a buffer as capture.Arg.InitBytes does, for the types the
// reference kernels use.
func (a arg) initBytes() []byte {
	size := map[string]int{"f32": 4, "i32": 4, "u32": 4, "f64": 8, "i64": 8, "u64": 8}[a.typ]
	out := make([]byte, a.count*size)
	s := a.seed
	for i := 0; i < a.count; i++ {
		var v uint64
		switch a.init {
		case "zero":
			continue
		case "iota":
			v = uint64(i)
			switch a.typ {
			case "f32":
				v = uint64(math.Float32bits(float32(i)))
			case "f64":
				v = math.Float64bits(float64(i))
			}
		case "const":
			f, _ := strconv.ParseFloat(a.value, 64)
			v = uint64(int64(f))
			switch a.typ {
			case "f32":
				v = uint64(math.Float32bits(float32(f)))
			case "f64":
				v = math.Float64bits(f)
			}
		case "rand":
			// splitmix64 (Steele, Lea and Flood, OOPSLA 2014), as capture uses it.
			s += 0x9e3779b97f4a7c15
			z := s
			z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
			z = (z ^ z>>27) * 0x94d049bb133111eb
			x := z ^ z>>31
			switch a.typ {
			case "f32":
				v = uint64(math.Float32bits(float32(x>>40) / (1 << 24)))
			case "f64":
				v = math.Float64bits(float64(x>>11) / (1 << 53))
			default:
				v = x % 1000
			}
		}
		if size == 4 {
			binary.LittleEndian.PutUint32(out[i*size:], uint32(v))
		} else {
			binary.LittleEndian.PutUint64(out[i*size:], v)
		}
	}
	return out
}
