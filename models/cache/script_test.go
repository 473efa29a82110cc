package cache

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/scripttest"
)

// TestScripts runs testdata/*.txt. Each file is a list of commands:
//
//	config size=512 line=128 sector=32 ways=2 write=write-through alloc=false mshrs=0 index=linear repl=lru
//	ld 0x1000 sectors=0b0001 → miss fetch=0b0001
//	st 0x1000 sectors=0b0001 → hit forward=0b0001
//	drain
//	stats ld.sectors=2 ld.hits=1 ld.misses=1 fetched=1
//
// After the arrow, a bare word checks the outcome (hit: every chunk hit;
// miss: none hit or merged; merge: some merged; partial: some hit, some
// missed) and key=value pairs check Result fields (hit, merged, miss, fetch,
// forward, evict, dirty). Fields not named are not checked.
//
// The timed parts have their own commands:
//
//	inflight every=1024 horizon=1000      a fresh InFlight
//	fill 0x1000 sectors=0b0011 at=100     InFlight.Fill
//	pending 0x1000 sectors=0b0001 t=50 → 100                InFlight.Pending
//	held → 3                              InFlight.Len
//	ports slices=2 in=32 out=64 atomic=1  fresh Ports (bytes a cycle in and out;
//	                                      an atomic's pass in sectors' times)
//	read 0 t=0 sectors=4 → 0              Ports.Read on slice 0: the start cycle
//	write 0 t=0 sectors=4 → 0             Ports.Write, a store's sectors
//	atomic 0 t=0 sectors=1 → 0            Ports.Write, an atomic's
func TestScripts(t *testing.T) {
	scripttest.Run(t, "testdata/*.txt", func(t *testing.T) func(scripttest.Line) {
		var c *Sectored
		u := &timed{t: t}
		return func(l scripttest.Line) {
			if !u.run(l) {
				c = runLine(t, c, l)
			}
		}
	})
}

// timed runs the script commands of the timed parts, InFlight and Ports.
type timed struct {
	t     *testing.T
	f     *InFlight
	p     *Ports
	line  scripttest.Line
	pairs map[string]string
}

// run runs l if it is a timed part's command, and reports whether it was.
func (u *timed) run(l scripttest.Line) bool {
	u.t.Helper()
	u.line = l
	var err error
	if u.pairs, err = scripttest.KeyValues(l.Fields[1:]); err != nil {
		u.t.Fatalf("%s: %v", l.Pos, err)
	}
	switch l.Fields[0] {
	case "inflight":
		u.f = NewInFlight(int(u.int("every")), u.int("horizon"))
	case "fill":
		u.flight().Fill(u.addr(), uint8(u.int("sectors")), u.int("at"))
	case "pending":
		u.check(u.flight().Pending(u.addr(), uint8(u.int("sectors")), u.int("t")))
	case "held":
		u.check(int64(u.flight().Len()))
	case "ports":
		p, err := NewPorts(int(u.int("slices")), u.float("in"), u.float("out"), u.float("atomic"))
		if err != nil {
			u.t.Fatalf("%s: %v", l.Pos, err)
		}
		u.p = p
	case "read":
		u.check(u.ports().Read(int(u.addr()), u.int("t"), int(u.int("sectors"))))
	case "write", "atomic":
		u.check(u.ports().Write(int(u.addr()), u.int("t"), int(u.int("sectors")), l.Fields[0] == "atomic"))
	default:
		return false
	}
	return true
}

// addr is the line's first argument: an address, or a slice.
func (u *timed) addr() uint64 {
	u.t.Helper()
	if len(u.line.Fields) < 2 {
		u.t.Fatalf("%s: want an address or a slice first", u.line.Pos)
	}
	return mustUint(u.t, u.line.Pos, u.line.Fields[1])
}

func (u *timed) int(key string) int64 {
	u.t.Helper()
	v, ok := u.pairs[key]
	if !ok {
		u.t.Fatalf("%s: want %s=N", u.line.Pos, key)
	}
	return int64(mustUint(u.t, u.line.Pos, v))
}

func (u *timed) float(key string) float64 {
	u.t.Helper()
	x, err := strconv.ParseFloat(u.pairs[key], 64)
	if err != nil {
		u.t.Fatalf("%s: %s: %v", u.line.Pos, key, err)
	}
	return x
}

func (u *timed) check(got int64) {
	u.t.Helper()
	u.line.Check(u.t, fmt.Sprint(got))
}

func (u *timed) flight() *InFlight { return scripttest.Need(u.t, u.line, u.f, "inflight") }

func (u *timed) ports() *Ports { return scripttest.Need(u.t, u.line, u.p, "ports") }

// runLine runs one script line on c (nil before the first config) and returns the
// cache the next line uses.
func runLine(t *testing.T, c *Sectored, l scripttest.Line) *Sectored {
	t.Helper()
	pos, fields, want := l.Pos, l.Fields, l.Want
	switch fields[0] {
	case "config":
		cfg, err := parseConfig(fields[1:])
		if err != nil {
			t.Fatalf("%s: %v", pos, err)
		}
		if c, err = New(cfg); err != nil {
			t.Fatalf("%s: %v", pos, err)
		}
	case "ld", "st":
		if len(fields) < 2 {
			t.Fatalf("%s: want ld|st ADDR [sectors=MASK]", pos)
		}
		addr, err := strconv.ParseUint(fields[1], 0, 64)
		if err != nil {
			t.Fatalf("%s: %v", pos, err)
		}
		mask := c.full
		for _, kv := range fields[2:] {
			k, v, _ := strings.Cut(kv, "=")
			if k != "sectors" {
				t.Fatalf("%s: unknown argument %q", pos, k)
			}
			mask = uint8(mustUint(t, pos, v))
		}
		op := Load
		if fields[0] == "st" {
			op = Store
		}
		r := c.Access(addr, mask, op)
		checkResult(t, pos, r, want)
	case "drain":
		c.Drain()
	case "flush":
		c.FlushDirty(nil)
	case "stats":
		checkStats(t, pos, c.Stats(), fields[1:])
	default:
		t.Fatalf("%s: unknown command %q", pos, fields[0])
	}
	return c
}

func mustUint(t *testing.T, pos, v string) uint64 {
	t.Helper()
	v = strings.ReplaceAll(v, "_", "")
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		t.Fatalf("%s: %v", pos, err)
	}
	return n
}

func parseConfig(args []string) (Config, error) {
	var c Config
	for _, kv := range args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return c, fmt.Errorf("want key=value, got %q", kv)
		}
		var err error
		atoi := func() int {
			var n int
			n, err = strconv.Atoi(v)
			return n
		}
		switch k {
		case "size":
			c.Size = atoi()
		case "line":
			c.Line = atoi()
		case "sector":
			c.Sector = atoi()
		case "sets":
			c.Sets = atoi()
		case "ways":
			c.Ways = atoi()
		case "mshrs":
			c.MSHRs = atoi()
		case "alloc":
			c.WriteAllocate, err = strconv.ParseBool(v)
		case "write":
			err = c.Write.UnmarshalText([]byte(v))
		case "repl":
			err = c.Replacement.UnmarshalText([]byte(v))
		case "index":
			err = c.SetIndex.UnmarshalText([]byte(v))
		default:
			err = fmt.Errorf("unknown config key %q", k)
		}
		if err != nil {
			return c, err
		}
	}
	return c, c.Validate()
}

func checkResult(t *testing.T, pos string, r Result, want string) {
	t.Helper()
	got := fmt.Sprintf("hit=%#04b merged=%#04b miss=%#04b fetch=%#04b forward=%#04b evict=%v/%#x dirty=%#04b",
		r.Hit, r.Merged, r.Miss, r.Fetch, r.Forward, r.Evicted, r.EvictLine, r.EvictDirty)
	for _, w := range strings.Fields(want) {
		k, v, isKV := strings.Cut(w, "=")
		var ok bool
		if !isKV {
			switch k {
			case "hit":
				ok = r.AllHit()
			case "miss":
				ok = r.Hit == 0 && r.Merged == 0 && r.Miss != 0
			case "merge":
				ok = r.Merged != 0
			case "partial":
				ok = r.Hit != 0 && r.Miss != 0
			default:
				t.Fatalf("%s: unknown outcome %q", pos, k)
			}
		} else {
			n := mustUint(t, pos, v)
			switch k {
			case "hit":
				ok = uint64(r.Hit) == n
			case "merged":
				ok = uint64(r.Merged) == n
			case "miss":
				ok = uint64(r.Miss) == n
			case "fetch":
				ok = uint64(r.Fetch) == n
			case "forward":
				ok = uint64(r.Forward) == n
			case "evict":
				ok = r.Evicted && r.EvictLine == n
			case "dirty":
				ok = uint64(r.EvictDirty) == n
			default:
				t.Fatalf("%s: unknown result field %q", pos, k)
			}
		}
		if !ok {
			t.Errorf("%s: want %s, got %s", pos, w, got)
		}
	}
}

func checkStats(t *testing.T, pos string, s Stats, want []string) {
	t.Helper()
	for _, w := range want {
		k, v, _ := strings.Cut(w, "=")
		n := mustUint(t, pos, v)
		var got uint64
		op, field, isOp := strings.Cut(k, ".")
		if isOp {
			var o OpStats
			switch op {
			case "ld":
				o = s.Op[Load]
			case "st":
				o = s.Op[Store]
			default:
				t.Fatalf("%s: unknown op %q", pos, op)
			}
			switch field {
			case "requests":
				got = o.Requests
			case "sectors":
				got = o.Sectors
			case "hits":
				got = o.Hits
			case "misses":
				got = o.Misses
			case "merges":
				got = o.Merges
			default:
				t.Fatalf("%s: unknown stat %q", pos, field)
			}
		} else {
			switch k {
			case "fetched":
				got = s.Fetched
			case "forwarded":
				got = s.Forwarded
			case "writtenback":
				got = s.WrittenBack
			case "evictions":
				got = s.Evictions
			default:
				t.Fatalf("%s: unknown stat %q", pos, k)
			}
		}
		if got != n {
			t.Errorf("%s: %s = %d, want %d", pos, k, got, n)
		}
	}
}
