package sched

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/scripttest"
)

// TestLauncherScripts runs testdata/*.txt. Each file is a list of commands:
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
func TestLauncherScripts(t *testing.T) {
	scripttest.Run(t, "testdata/*.txt", func(t *testing.T) func(scripttest.Line) {
		s := &launchScript{t: t}
		return s.run
	})
}

type launchScript struct {
	t    *testing.T
	l    *CTALauncher
	g    *Grid
	line scripttest.Line
}

func (s *launchScript) run(l scripttest.Line) {
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
		s.check(map[bool]string{true: "yes", false: "no"}[s.launcher().Launch(s.arg(1, ""))])
	case "next":
		s.check(fmt.Sprint(s.launcher().Next(s.arg(1, ""))))
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
	default:
		s.t.Fatalf("%s: unknown command %q", l.Pos, f[0])
	}
}

// arg is field i of the line, after prefix, as an integer.
func (s *launchScript) arg(i int, prefix string) int64 {
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

func (s *launchScript) check(got string) {
	s.t.Helper()
	if !s.line.Arrow {
		s.t.Fatalf("%s: want -> and the answer", s.line.Pos)
	}
	if got != s.line.Want {
		s.t.Errorf("%s: %s gives %q, want %q", s.line.Pos, strings.Join(s.line.Fields, " "), got, s.line.Want)
	}
}

func (s *launchScript) launcher() *CTALauncher {
	if s.l == nil {
		s.t.Fatalf("%s: want launcher first", s.line.Pos)
	}
	return s.l
}

func (s *launchScript) grid() *Grid {
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
