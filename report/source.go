package report

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gtrace/gtrace/format"
	"github.com/gtrace/gtrace/replay"
)

// SourceCol is a column of the source view: a counter summed or averaged over the
// instructions of a line, and how its heat is read.
type SourceCol struct {
	Label string
	Hint  string // the metrics it is made of, shown on hover
	// heat maps a value to 0 (cool) .. 1 (hot), given the column's largest value in
	// the view: the heat map marks where the cost is.
	heat func(v, max float64) float64
}

// Source view columns, in order; SourceLine.Cells follows it.
const (
	colInst = iota
	colSectors
	colWays
	colSIMD
	colL1
	colL2
	colStalls
	numCols
)

func share(v, max float64) float64 {
	if max <= 0 {
		return 0
	}
	return v / max
}

// lack is the heat of a percentage where 100 is best.
func lack(v, _ float64) float64 { return (100 - v) / 100 }

// SourceCols are the source view's columns.
var SourceCols = [numCols]SourceCol{
	{"warp-inst", "smsp__inst_executed.sum", share},
	// 4 sectors a request is a warp's 4-byte loads in one 128-byte line; 32 is one
	// sector per lane.
	{"sectors per req", "global ld+st: l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum over l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum",
		func(v, _ float64) float64 { return (v - 4) / 28 }},
	{"conflict ways", "the most lanes of one shared request on one bank (gtrace__shared_requests_ways_N.sum)",
		func(v, _ float64) float64 { return (v - 1) / 31 }},
	{"SIMD eff.", "gtrace__simd_efficiency.pct, weighted by gtrace__ptx_inst_executed.sum", lack},
	{"L1 hit", "global load sectors: l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_{hit,miss}.sum", lack},
	{"L2 hit", "lts__t_sector_hit_rate.pct, weighted by lts__t_sectors_srcunit_tex_op_{read,write,atom,red}.sum", lack},
	{"stall cycles", "warp-cycles stalled, all reasons: smsp__pcsamp_warps_issue_stalled_*", share},
}

// SourceView is one launch's counters per source line on one arch: the lines of its
// CUDA file when the PTX has a line table (.loc) and the file is found, the line
// numbers alone when it is not, and the PTX instructions when there is no line table.
type SourceView struct {
	Run   int    // the index in KernelPage.Runs whose counters it shows
	ByPTX bool   // one row per PTX instruction: the trace has no line table
	Note  string // why the view shows what it shows; "" for a CUDA file found
	Files []SourceFile
	Max   [numCols]float64 // each column's largest value over the view's lines
}

// SourceFile is the lines of one file that the launch's instructions come from.
type SourceFile struct {
	Path  string
	Found bool // the text was read; otherwise Text is the lines' PTX
	Lines []SourceLine
}

// SourceLine is one line: its text, its instructions and their counters summed.
type SourceLine struct {
	Line  uint32 // the line in Path; the pc in a view ByPTX
	Text  string
	PCs   []SourcePC
	Cells [numCols]float64 // NaN where no instruction of the line does the thing
}

// SourcePC is one instruction of a line with its own counters and stall reasons.
type SourcePC struct {
	PC     uint32
	PTX    string
	Cells  [numCols]float64
	Stalls []StallCount // the largest first; none without a timing replay
}

// StallCount is the warp-cycles one instruction spent in one warp state.
type StallCount struct {
	Reason string
	Cycles float64
}

// maxSourceContext is the most lines without instructions shown between two lines
// that have some: a longer gap folds to a marker.
const maxSourceContext = 3

// pcSums are the sums a line's cells are made of.
type pcSums struct {
	inst, ptxInst, simdW       float64
	secs, reqs                 float64
	ways                       float64
	l1Hit, l1All, l2Hit, l2All float64
	stalls                     float64
	any                        [numCols]bool
}

func (s *pcSums) add(mem, tim map[string]float64) {
	s.inst += mem["smsp__inst_executed.sum"]
	s.any[colInst] = true
	if n := mem["gtrace__ptx_inst_executed.sum"]; n > 0 {
		s.ptxInst += n
		s.simdW += n * mem["gtrace__simd_efficiency.pct"]
		s.any[colSIMD] = true
	}
	for _, op := range []string{"ld", "st"} {
		if r := mem["l1tex__t_requests_pipe_lsu_mem_global_op_"+op+".sum"]; r > 0 {
			s.reqs += r
			s.secs += mem["l1tex__t_sectors_pipe_lsu_mem_global_op_"+op+".sum"]
			s.any[colSectors] = true
		}
	}
	if w := conflictWays(mem); w > 0 {
		s.ways = max(s.ways, float64(w))
		s.any[colWays] = true
	}
	hit, miss := mem["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"], mem["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"]
	if hit+miss > 0 {
		s.l1Hit += hit
		s.l1All += hit + miss
		s.any[colL1] = true
	}
	var l2 float64
	for _, op := range []string{"read", "write", "atom", "red"} {
		l2 += mem["lts__t_sectors_srcunit_tex_op_"+op+".sum"]
	}
	if l2 > 0 {
		s.l2Hit += l2 * mem["lts__t_sector_hit_rate.pct"] / 100
		s.l2All += l2
		s.any[colL2] = true
	}
	if tim != nil {
		for name, v := range tim {
			if strings.HasPrefix(name, stallPrefix) {
				s.stalls += v
			}
		}
		s.any[colStalls] = true
	}
}

func (s *pcSums) cells() [numCols]float64 {
	var c [numCols]float64
	vals := [numCols]float64{s.inst, s.secs / s.reqs, s.ways, s.simdW / s.ptxInst,
		100 * s.l1Hit / s.l1All, 100 * s.l2Hit / s.l2All, s.stalls}
	for i := range c {
		c[i] = math.NaN()
		if s.any[i] {
			c[i] = vals[i]
		}
	}
	return c
}

const stallPrefix = "smsp__pcsamp_warps_issue_stalled_"

// buildSource makes the source view of launch l from run's per-pc counters (the timing
// replay's, for stalls, if it has them). readFile reads a CUDA file the line table names.
func buildSource(l *format.Launch, run *Run, runIndex int, readFile func(string) ([]byte, error)) *SourceView {
	sv := &SourceView{Run: runIndex}
	mem := perPC(run.Memory)
	var tim map[uint32]map[string]float64
	if run.Timing != nil {
		tim = perPC(run.Timing)
	}
	prog := l.Program.Insts
	hasLines := slices.ContainsFunc(prog, func(in format.Inst) bool { return in.Line != 0 })
	type key struct {
		file string
		line uint32
	}
	lines := map[key]*SourceLine{}
	sums := map[key]*pcSums{}
	for pc := range prog {
		in := &prog[pc]
		m, ok := mem[uint32(pc)]
		if !ok {
			continue // never executed
		}
		var t map[string]float64
		if tim != nil {
			t = tim[uint32(pc)]
			if t == nil {
				t = map[string]float64{}
			}
		}
		k := key{in.File, in.Line}
		if !hasLines {
			k = key{"", uint32(pc)}
		}
		ln := lines[k]
		if ln == nil {
			ln = &SourceLine{Line: k.line}
			lines[k] = ln
			sums[k] = &pcSums{}
		}
		sums[k].add(m, t)
		var one pcSums
		one.add(m, t)
		sp := SourcePC{PC: uint32(pc), PTX: in.PTX, Cells: one.cells()}
		for name, v := range t {
			if strings.HasPrefix(name, stallPrefix) && v > 0 {
				sp.Stalls = append(sp.Stalls, StallCount{strings.TrimPrefix(name, stallPrefix), v})
			}
		}
		slices.SortFunc(sp.Stalls, func(a, b StallCount) int {
			return cmp.Or(cmp.Compare(b.Cycles, a.Cycles), strings.Compare(a.Reason, b.Reason))
		})
		ln.PCs = append(ln.PCs, sp)
	}
	for k, ln := range lines {
		ln.Cells = sums[k].cells()
		for c, v := range ln.Cells {
			if !math.IsNaN(v) {
				sv.Max[c] = max(sv.Max[c], v)
			}
		}
	}
	if !hasLines {
		sv.ByPTX = true
		sv.Note = "The trace's PTX has no line table (.loc): one row per PTX instruction. Compile with -lineinfo (nvcc) or -gline-tables-only (clang), as gtrace capture --cu does, to see CUDA lines."
		f := SourceFile{Path: "PTX"}
		for pc := range prog {
			if ln := lines[key{"", uint32(pc)}]; ln != nil {
				ln.Text = prog[pc].PTX
				f.Lines = append(f.Lines, *ln)
			}
		}
		sv.Files = []SourceFile{f}
		return sv
	}
	// Files in order of their instructions' count, the kernel's own file first.
	count := map[string]int{}
	for k, ln := range lines {
		count[k.file] += len(ln.PCs)
	}
	var files []string
	for f := range count {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	var missing []string
	for _, path := range files {
		f := SourceFile{Path: path}
		var nums []uint32
		for k := range lines {
			if k.file == path {
				nums = append(nums, k.line)
			}
		}
		slices.Sort(nums)
		var text []string
		if path != "" {
			if b, err := readFile(path); err == nil {
				text = strings.Split(string(b), "\n")
				f.Found = true
			} else {
				missing = append(missing, path)
			}
		}
		prev := uint32(0)
		for _, n := range nums {
			// The lines between two that have instructions, up to maxSourceContext: a
			// loop's header and braces read better with their neighbours.
			if f.Found && prev != 0 && n-prev-1 <= maxSourceContext {
				for c := prev + 1; c < n; c++ {
					f.Lines = append(f.Lines, SourceLine{Line: c, Text: lineText(text, c), Cells: nanCells()})
				}
			}
			ln := lines[key{path, n}]
			if f.Found {
				ln.Text = lineText(text, n)
			} else {
				ln.Text = ln.PCs[0].PTX
			}
			f.Lines = append(f.Lines, *ln)
			prev = n
		}
		sv.Files = append(sv.Files, f)
	}
	if len(missing) > 0 {
		sv.Note = fmt.Sprintf("Source file%s not found: %s. Its lines show their first PTX instruction instead.",
			plural(len(missing)), strings.Join(missing, ", "))
	}
	return sv
}

func lineText(text []string, n uint32) string {
	if n == 0 || int(n) > len(text) {
		return ""
	}
	return strings.TrimRight(text[n-1], "\r")
}

func nanCells() [numCols]float64 {
	var c [numCols]float64
	for i := range c {
		c[i] = math.NaN()
	}
	return c
}

// perPC indexes a replay's per-pc metrics by pc and name.
func perPC(k *replay.KernelReport) map[uint32]map[string]float64 {
	out := make(map[uint32]map[string]float64, len(k.PerPC))
	for _, p := range k.PerPC {
		m := make(map[string]float64, len(p.Metrics))
		for _, x := range p.Metrics {
			m[x.Name] = x.Value
		}
		out[p.PC] = m
	}
	return out
}

// readSource reads a file a line table names, trying dir with the file's base name when
// the path itself is not there (a trace made on another machine). Each path is read
// once: the launches of one file share it.
func readSource(dir string) func(string) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	seen := map[string]read{}
	return func(path string) ([]byte, error) {
		if r, ok := seen[path]; ok {
			return r.b, r.err
		}
		b, err := os.ReadFile(path)
		if err != nil && dir != "" {
			if b2, err2 := os.ReadFile(filepath.Join(dir, filepath.Base(path))); err2 == nil {
				b, err = b2, nil
			}
		}
		seen[path] = read{b, err}
		return b, err
	}
}
