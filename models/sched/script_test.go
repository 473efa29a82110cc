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
//	policy gto warps=4      a fresh warp scheduling Policy (lrr, gto, gtrr, two-level)
//	                        with warps 0..3 added
//	pick 0,1,2 -> 0         Policy.Pick among the ready warps ("-" for none), then
//	                        Issued; -1 when it picks none
//	longstall 0             Policy.LongStall
//	remove 1                Policy.Remove
//	scoreboard              a fresh Scoreboard
//	add 0 regs=1,2 ready=100 why=long     Scoreboard.Add (why: fixed, short or long)
//	fullboard 0 ready=50    Add one pending write per free entry, to registers 1000 on,
//	                        ready at 50, 51, ... (long)
//	check 2 rd=1 wr=3 -> wait@100 long    Scoreboard.Check: go, or wait@CYCLE and why
//	drained -> 100          Scoreboard.Drained
//	pipe lanes=16           a fresh Pipe
//	free 0 -> wait@2        Pipe.Free: go, or wait@CYCLE
//	occupy 0 [n=2]          Pipe.TakeN
//	rate lanes=48 cycles=10 -> 15          warp instructions a fresh Pipe starts, tried
//	                        twice a cycle (a dual-issuing scheduler)
//	lsu queue=32 mshrs=4    a fresh LSU
//	reserve 0 n=4 cyc=2 -> 0               LSU.Reserve: the first pass's cycle
//	queuewait 0 -> wait@8   LSU.QueueWait: go, or wait@CYCLE
//	miss 50                 LSU.Miss
//	mshrwait 0 -> wait@30   LSU.MSHRWait
//	issuewait 0 load -> go  LSU.IssueWait for a load (an MSHR) or a store
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
	pol  Policy
	sb   *Scoreboard
	p    *Pipe
	u    *LSU
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
		if !s.runUnits(f) {
			s.t.Fatalf("%s: unknown command %q", l.Pos, f[0])
		}
	}
}

// runUnits runs the commands of an SM's issue resources (Scoreboard, Pipe, LSU), and
// reports whether f[0] is one of them.
func (s *script) runUnits(f []string) bool {
	switch f[0] {
	case "policy":
		p, err := New(f[1])
		if err != nil {
			s.t.Fatalf("%s: %v", s.line.Pos, err)
		}
		n := s.key("warps")
		per := s.keyOr("cta", n) // warps a CTA: all in one unless cta=N
		for w := range n {
			p.Add(int(w), int(w/per))
		}
		s.pol = p
	case "pick":
		ready := map[int]bool{}
		if len(f) > 1 {
			for _, w := range s.regs("") {
				ready[int(w)] = true
			}
		}
		w := s.policy().Pick(func(w int) bool { return ready[w] })
		if w >= 0 {
			s.pol.Issued(w)
		}
		s.check(fmt.Sprint(w))
	case "longstall":
		s.policy().LongStall(int(s.arg(1, "")))
	case "remove":
		s.policy().Remove(int(s.arg(1, "")))
	case "scoreboard":
		s.sb = &Scoreboard{}
	case "add":
		s.board().Add(s.arg(1, ""), s.regs("regs"), s.key("ready"), s.reason())
	case "fullboard":
		b, now, ready := s.board(), s.arg(1, ""), s.key("ready")
		for i := 0; b.n < ScoreboardSize; i++ {
			b.Add(now, []uint16{uint16(1000 + i)}, ready+int64(i), Long)
		}
	case "check":
		ok, until, why := s.board().Check(s.arg(1, ""), s.regs("rd"), s.regs("wr"))
		answer := waitAt(!ok, until)
		if !ok {
			answer += " " + reasonNames[why]
		}
		s.check(answer)
	case "drained":
		s.check(fmt.Sprint(s.board().Drained()))
	case "pipe":
		s.p = &Pipe{Lanes: int(s.arg(1, "lanes="))}
	case "free":
		ok, at := s.pipe().Free(s.arg(1, ""))
		s.check(waitAt(!ok, at))
	case "occupy":
		n := int64(1)
		if len(f) > 2 {
			n = s.arg(2, "n=")
		}
		s.pipe().TakeN(s.arg(1, ""), int(n))
	case "rate":
		p, n := Pipe{Lanes: int(s.arg(1, "lanes="))}, 0
		for now := range s.arg(2, "cycles=") {
			for range 2 {
				if ok, _ := p.Free(now); ok {
					p.Take(now)
					n++
				}
			}
		}
		s.check(fmt.Sprint(n))
	case "lsu":
		s.u = &LSU{Queue: s.arg(1, "queue="), MSHRs: int(s.arg(2, "mshrs="))}
	case "reserve":
		s.check(fmt.Sprint(s.lsu().Reserve(s.arg(1, ""), int(s.arg(2, "n=")), s.arg(3, "cyc="))))
	case "queuewait":
		s.check(waitAt(s.lsu().QueueWait(s.arg(1, ""))))
	case "miss":
		s.lsu().Miss(s.arg(1, ""))
	case "mshrwait":
		s.check(waitAt(s.lsu().MSHRWait(s.arg(1, ""))))
	case "issuewait":
		if len(f) != 3 || (f[2] != "load" && f[2] != "store") {
			s.t.Fatalf("%s: want issuewait CYCLE load|store", s.line.Pos)
		}
		s.check(waitAt(s.lsu().IssueWait(s.arg(1, ""), f[2] == "load")))
	default:
		return false
	}
	return true
}

var reasonNames = map[Reason]string{Fixed: "fixed", Short: "short", Long: "long"}

// waitAt is a unit's answer: go, or wait@CYCLE.
func waitAt(wait bool, at int64) string {
	if wait {
		return fmt.Sprintf("wait@%d", at)
	}
	return "go"
}

// key is the integer value of the line's key=N field.
func (s *script) key(k string) int64 {
	s.t.Helper()
	v, ok := s.lookup(k)
	if !ok {
		s.t.Fatalf("%s: want %s=N", s.line.Pos, k)
	}
	return v
}

// keyOr is the integer value of the line's key=N field, or def where it has none.
func (s *script) keyOr(k string, def int64) int64 {
	s.t.Helper()
	if v, ok := s.lookup(k); ok {
		return v
	}
	return def
}

func (s *script) lookup(k string) (int64, bool) {
	s.t.Helper()
	for i, f := range s.line.Fields {
		if strings.HasPrefix(f, k+"=") {
			return s.arg(i, k+"="), true
		}
	}
	return 0, false
}

// regs is the line's key=N1,N2,... list (with key "", its first argument's); none
// when the key is absent or the list is "-".
func (s *script) regs(k string) []uint16 {
	s.t.Helper()
	kv, err := scripttest.KeyValues(s.line.Fields[1:])
	if err != nil {
		s.t.Fatalf("%s: %v", s.line.Pos, err)
	}
	list := kv[k]
	if k == "" {
		list = s.line.Fields[1]
	}
	if list == "" || list == "-" {
		return nil
	}
	var out []uint16
	for _, r := range strings.Split(list, ",") {
		n, err := strconv.ParseUint(r, 10, 16)
		if err != nil {
			s.t.Fatalf("%s: %s: %v", s.line.Pos, k, err)
		}
		out = append(out, uint16(n))
	}
	return out
}

func (s *script) reason() Reason {
	s.t.Helper()
	kv, _ := scripttest.KeyValues(s.line.Fields[1:])
	for r, name := range reasonNames {
		if kv["why"] == name {
			return r
		}
	}
	s.t.Fatalf("%s: want why=fixed, short or long", s.line.Pos)
	return 0
}

func (s *script) policy() Policy {
	if s.pol == nil {
		s.t.Fatalf("%s: want policy first", s.line.Pos)
	}
	return s.pol
}

func (s *script) board() *Scoreboard { return scripttest.Need(s.t, s.line, s.sb, "scoreboard") }

func (s *script) pipe() *Pipe { return scripttest.Need(s.t, s.line, s.p, "pipe") }

func (s *script) lsu() *LSU { return scripttest.Need(s.t, s.line, s.u, "lsu") }

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
	s.line.Check(s.t, got)
}

func (s *script) launcher() *CTALauncher { return scripttest.Need(s.t, s.line, s.l, "launcher") }

func (s *script) grid() *Grid { return scripttest.Need(s.t, s.line, s.g, "grid") }

func idOrNone(id int, ok bool) string {
	if !ok {
		return "none"
	}
	return strconv.Itoa(id)
}

func (s *script) order() *WarpOrder { return scripttest.Need(s.t, s.line, s.o, "inorder or divergent") }

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
