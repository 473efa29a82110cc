package dram

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/scripttest"
)

// TestChannelScripts runs testdata/*.txt. Each file is a list of commands:
//
//	config channels=2 banks=2 row=1024 interleave=256 clock=1000 bw=64 rowmiss=10 rrd=0 latency=100
//	rd 0x20 at=0 -> 101
//	wr 0x60 at=300 -> 390
//	bytes read=192 written=32
//
// config builds Channels (32-byte bursts; rowmiss and rrd in ns, latency in cycles;
// reorder=1 for Timing.Reorder; ccdrd and ccdwr, in ns, for Timing.CCDReadNS and
// CCDWriteNS; turn, in ns, and batch, in lines, for Timing.TurnNS and WriteBatch;
// rowhit, in ns, for Timing.RowHitNS; window, in ns, for Timing.WriteWindowNS);
// rd and wr send one sector at cycle `at` and check the cycle Access returns; drain
// sends the queued writes at `at` and checks when the last is done; bytes checks what
// the channels moved.
func TestChannelScripts(t *testing.T) {
	scripttest.Run(t, "testdata/*.txt", func(t *testing.T) func(scripttest.Line) {
		var c *Channels
		return func(l scripttest.Line) { c = runChannelLine(t, c, l) }
	})
}

// runChannelLine runs one script line on c (nil before the first config) and returns
// the channels the next line uses.
func runChannelLine(t *testing.T, c *Channels, l scripttest.Line) *Channels {
	t.Helper()
	pos, fields := l.Pos, l.Fields
	args, err := scripttest.KeyValues(fields[1:])
	if err != nil {
		t.Fatalf("%s: %v", pos, err)
	}
	switch fields[0] {
	case "config":
		if c, err = channelsOf(args); err != nil {
			t.Fatalf("%s: %v", pos, err)
		}
	case "rd", "wr":
		if c == nil || !l.Arrow || len(fields) != 3 {
			t.Fatalf("%s: want config first, then rd|wr ADDR at=CYCLE -> CYCLE", pos)
		}
		addr, err1 := strconv.ParseUint(fields[1], 0, 64)
		at, err2 := strconv.ParseInt(args["at"], 10, 64)
		w, err3 := strconv.ParseInt(l.Want, 10, 64)
		if err := firstErr(err1, err2, err3); err != nil {
			t.Fatalf("%s: %v", pos, err)
		}
		if got := c.Access(at, addr, fields[0] == "wr"); got != w {
			t.Errorf("%s: %s %#x at %d returns at %d, want %d", pos, fields[0], addr, at, got, w)
		}
	case "drain":
		at, err1 := strconv.ParseInt(args["at"], 10, 64)
		w, err2 := strconv.ParseInt(l.Want, 10, 64)
		if err := firstErr(err1, err2); c == nil || !l.Arrow || err != nil {
			t.Fatalf("%s: want config first, then drain at=CYCLE -> CYCLE (%v)", pos, err)
		}
		if got := c.Drain(at); got != w {
			t.Errorf("%s: drain at %d: the last write is done at %d, want %d", pos, at, got, w)
		}
	case "bytes":
		rd, wr := c.Bytes()
		if got := fmt.Sprintf("read=%s written=%s", args["read"], args["written"]); got != fmt.Sprintf("read=%d written=%d", rd, wr) {
			t.Errorf("%s: moved read=%d written=%d, want %s", pos, rd, wr, got)
		}
	default:
		t.Fatalf("%s: unknown command %q", pos, fields[0])
	}
	return c
}

func channelsOf(args map[string]string) (*Channels, error) {
	n := map[string]float64{}
	for _, k := range []string{"channels", "banks", "row", "interleave", "clock", "bw", "rowmiss", "rrd", "latency"} {
		v, err := strconv.ParseFloat(args[k], 64)
		if err != nil {
			return nil, fmt.Errorf("config %s: %v", k, err)
		}
		n[k] = v
		delete(args, k)
	}
	reorder := args["reorder"] == "1" // optional: 0 (arrival order) when absent
	delete(args, "reorder")
	var opt [6]float64 // optional: ccdrd, ccdwr, turn, rowhit and window in ns, batch in lines; 0 when absent
	for i, k := range []string{"ccdrd", "ccdwr", "turn", "batch", "rowhit", "window"} {
		if v, ok := args[k]; ok {
			var err error
			if opt[i], err = strconv.ParseFloat(v, 64); err != nil {
				return nil, fmt.Errorf("config %s: %v", k, err)
			}
			delete(args, k)
		}
	}
	for k := range args {
		return nil, fmt.Errorf("unknown config key %q", k)
	}
	cfg := Config{Channels: int(n["channels"]), Banks: int(n["banks"]), RowBytes: int(n["row"]),
		BurstLength: 8, BusBytes: 4, Interleave: int(n["interleave"])}
	return NewChannels(cfg, Timing{ClockMHz: int(n["clock"]), BandwidthGBs: n["bw"],
		RowMissNS: n["rowmiss"], RRDNS: n["rrd"], LatencyCycles: int64(n["latency"]), Reorder: reorder,
		CCDReadNS: opt[0], CCDWriteNS: opt[1], TurnNS: opt[2], WriteBatch: int(opt[3]), RowHitNS: opt[4], WriteWindowNS: opt[5]})
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestChannelsRefuseBadTiming(t *testing.T) {
	ok := Timing{ClockMHz: 1000, BandwidthGBs: 64, RowMissNS: 10, LatencyCycles: 100}
	if _, err := NewChannels(titan, ok); err != nil {
		t.Fatalf("valid timing refused: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Timing)
	}{
		{"no bandwidth", func(t *Timing) { t.BandwidthGBs = 0 }},
		{"no clock", func(t *Timing) { t.ClockMHz = 0 }},
		{"negative row miss", func(t *Timing) { t.RowMissNS = -1 }},
		{"negative row hit", func(t *Timing) { t.RowHitNS = -1 }},
		{"row hit past the row miss", func(t *Timing) { t.RowHitNS = 11 }},
		{"negative tRRD", func(t *Timing) { t.RRDNS = -1 }},
		{"negative latency", func(t *Timing) { t.LatencyCycles = -1 }},
	} {
		bad := ok
		tc.edit(&bad)
		if _, err := NewChannels(titan, bad); err == nil || !strings.HasPrefix(err.Error(), "dram: ") {
			t.Errorf("%s: %v, want an error naming dram", tc.name, err)
		}
	}
	if _, err := NewChannels(Config{}, ok); err == nil {
		t.Error("an invalid mapping accepted")
	}
}
