package sched

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/scripttest"
)

// TestScripts runs testdata/*.txt. Each file is a list of commands:
//
//	launcher cycles=99      a fresh CTALauncher
//	vacate 0                room for one more CTA from cycle 0
//	launch 0 -> yes         whether a CTA starts at cycle 0 (yes or no)
//	next 0 -> 99            CTALauncher.Next(0)
//	waiting -> 1            how many CTAs wait
//	grid total=3            a fresh Grid
//	take -> 0               Grid.Take: a CTA id, or none
//	peek -> 1               Grid.Peek: a CTA id, or none
//	retire 1 -> 1           Grid.Retire(1)
//	left -> 2               Grid.Left
//	spread total=5 sms=2 per=2 -> 0 1 0 1      the SM of each CTA Spread places
//	inorder n=4 [order=3,0,1,2]    a fresh InOrder WarpOrder
//	divergent paths=0,0,1,2,0 flags=-,s,-,-,r [window=256]
//	                        a fresh Divergent WarpOrder: flags s (split), r (rejoin), sr, -
//	candidates -> 2 3       WarpOrder.Candidates (every one: fn answers false)
//	issue 2                 WarpOrder.Issued(2)
//	nextrec -> 1            WarpOrder.Next
//	latest -> 0             WarpOrder.Latest
//	finished -> no          WarpOrder.Finished (yes or no)
func TestScripts(t *testing.T) {
	scripttest.Run(t, "testdata/*.txt", func(t *testing.T) func(scripttest.Line) {
		s := &script{t: t}
		return s.run
	})
}

type script struct {
	t    *testing.T
	l    *CTALauncher
	g    *Grid
	o    *WarpOrder
	line scripttest.Line
}

func (s *script) run(l scripttest.Line) {
	s.t.Helper()
	s.line = l
	f := l.Fields
	switch f[0] {
	case "launcher":
		s.l = &CTALauncher{Cycles: s.arg(1, "cycles=")}
	case "grid":
		s.g = &Grid{Total: int(s.arg(1, "total="))}
	case "spread":
		var sms []string
		Spread(int(s.arg(1, "total=")), int(s.arg(2, "sms=")), int(s.arg(3, "per=")), func(sm int) {
			sms = append(sms, strconv.Itoa(sm))
		})
		s.check(strings.Join(sms, " "))
	case "vacate":
		s.launcher().Vacate(s.arg(1, ""))
	case "launch":
		s.check(yesNo(s.launcher().Launch(s.arg(1, ""))))
	case "waiting":
		s.check(fmt.Sprint(s.launcher().Waiting()))
	case "take":
		s.check(idOrNone(s.grid().Take()))
	case "peek":
		s.check(idOrNone(s.grid().Peek()))
	case "retire":
		s.check(fmt.Sprint(s.grid().Retire(int(s.arg(1, "")))))
	case "left":
		s.check(fmt.Sprint(s.grid().Left()))
	case "inorder", "divergent":
		s.o = s.newOrder()
	case "candidates":
		var c []string
		s.order().Candidates(func(i int) bool {
			c = append(c, strconv.Itoa(i))
			return false
		})
		s.check(strings.Join(c, " "))
	case "issue":
		s.order().Issued(int(s.arg(1, "")))
	case "next":
		s.check(fmt.Sprint(s.launcher().Next(s.arg(1, ""))))
	case "nextrec":
		s.check(fmt.Sprint(s.order().Next()))
	case "latest":
		s.check(fmt.Sprint(s.order().Latest()))
	case "finished":
		s.check(yesNo(s.order().Finished()))
	default:
		s.t.Fatalf("%s: unknown command %q", l.Pos, f[0])
	}
}

// arg is field i of the line, after prefix, as an integer.
func (s *script) arg(i int, prefix string) int64 {
	s.t.Helper()
	f := s.line.Fields
	if i >= len(f) || !strings.HasPrefix(f[i], prefix) {
		s.t.Fatalf("%s: want %sN as argument %d", s.line.Pos, prefix, i)
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(f[i], prefix), 10, 64)
	if err != nil {
		s.t.Fatalf("%s: %v", s.line.Pos, err)
	}
	return n
}

func (s *script) check(got string) {
	s.t.Helper()
	if !s.line.Arrow {
		s.t.Fatalf("%s: want -> and the answer", s.line.Pos)
	}
	if got != s.line.Want {
		s.t.Errorf("%s: %s gives %q, want %q", s.line.Pos, strings.Join(s.line.Fields, " "), got, s.line.Want)
	}
}

func (s *script) launcher() *CTALauncher {
	if s.l == nil {
		s.t.Fatalf("%s: want launcher first", s.line.Pos)
	}
	return s.l
}

func (s *script) grid() *Grid {
	if s.g == nil {
		s.t.Fatalf("%s: want grid first", s.line.Pos)
	}
	return s.g
}

func idOrNone(id int, ok bool) string {
	if !ok {
		return "none"
	}
	return strconv.Itoa(id)
}

func (s *script) order() *WarpOrder {
	if s.o == nil {
		s.t.Fatalf("%s: want inorder or divergent first", s.line.Pos)
	}
	return s.o
}

// newOrder builds the WarpOrder of an inorder or divergent line.
func (s *script) newOrder() *WarpOrder {
	s.t.Helper()
	kv, err := scripttest.KeyValues(s.line.Fields[1:])
	if err != nil {
		s.t.Fatalf("%s: %v", s.line.Pos, err)
	}
	ints := func(key string) []int32 {
		if kv[key] == "" {
			return nil
		}
		var out []int32
		for _, f := range strings.Split(kv[key], ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				s.t.Fatalf("%s: %s: %v", s.line.Pos, key, err)
			}
			out = append(out, int32(n))
		}
		return out
	}
	if s.line.Fields[0] == "inorder" {
		n, err := strconv.Atoi(kv["n"])
		if err != nil {
			s.t.Fatalf("%s: n: %v", s.line.Pos, err)
		}
		o := InOrder(n, ints("order"))
		return &o
	}
	var paths []uint16
	for _, p := range ints("paths") {
		paths = append(paths, uint16(p))
	}
	const split, rejoin = 1, 2
	var flags []uint8
	for _, f := range strings.Split(kv["flags"], ",") {
		var b uint8
		for _, c := range strings.TrimPrefix(f, "-") {
			switch c {
			case 's':
				b |= split
			case 'r':
				b |= rejoin
			default:
				s.t.Fatalf("%s: flag %q: want s, r or -", s.line.Pos, c)
			}
		}
		flags = append(flags, b)
	}
	if len(flags) != len(paths) {
		s.t.Fatalf("%s: %d paths, %d flags", s.line.Pos, len(paths), len(flags))
	}
	window := 256
	if w := ints("window"); w != nil {
		window = int(w[0])
	}
	o := Divergent(paths, flags, split, rejoin, window, ints("order"))
	return &o
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
