package cache

import (
	"fmt"
	"math"
)

// ticks is the fixed-point unit Ports keep time in: 1/ticks of a cycle, so that a
// port moving 21.1 bytes per cycle keeps its rate in integers.
const ticks = 1024

// Ports is a sliced cache's ports with time, as the timing engine drives the L2: each
// slice's input port takes one read request (one line, whatever its sectors) or one
// 32-byte store sector at its byte rate, and an atomic's pass for at least its own
// time; each slice's data return moves read sectors (and an atomic's old values) at
// its rate. Requests reserve them in the order they come (nondecreasing time), so
// queueing delay is the wait for the reservation. Not safe for concurrent use.
type Ports struct {
	inBusy  []int64 // ticks: each slice's input port
	outBusy []int64 // ticks: each slice's data return
	inT     int64   // ticks the port needs per read request or store sector
	atomT   int64   // ticks the port needs per atomic pass, at least
	sectorT int64   // ticks the return needs per read sector
}

// NewPorts returns the idle ports of n slices whose input ports take in bytes per
// cycle and whose data returns move out bytes per cycle; an atomic holds the input port
// for atomicPass times a sector's time, at least one sector's.
func NewPorts(n int, in, out, atomicPass float64) (*Ports, error) {
	if n < 1 || !(in > 0) || !(out > 0) || math.IsInf(in, 0) || math.IsInf(out, 0) || !(atomicPass >= 0) {
		return nil, fmt.Errorf("cache ports: %d slices at %g B/cycle in, %g out, atomic pass %g: want slices, positive finite rates and a pass of at least 0", n, in, out, atomicPass)
	}
	p := &Ports{inBusy: make([]int64, n), outBusy: make([]int64, n),
		inT: ticksPer(Chunk, in), sectorT: ticksPer(Chunk, out)}
	p.atomT = max(int64(math.Round(float64(p.inT)*atomicPass)), p.inT)
	return p, nil
}

// ticksPer returns the ticks a server moving perCycle bytes per cycle needs for n
// bytes, at least one.
func ticksPer(n int, perCycle float64) int64 {
	return max(int64(math.Round(ticks*float64(n)/max(perCycle, 1e-9))), 1)
}

// Read takes slice s's input port for one request and its data return for sectors
// read sectors, from cycle t on, and returns the cycle service starts.
func (p *Ports) Read(s int, t int64, sectors int) int64 { return p.reserve(s, t, p.inT, sectors) }

// Write takes slice s's input port for sectors store sectors from cycle t on (an
// atomic: at least one atomic pass, and the return for its old values), and returns
// the cycle service starts.
func (p *Ports) Write(s int, t int64, sectors int, atomic bool) int64 {
	out, in := 0, int64(sectors)*p.inT
	if atomic {
		out = sectors
		in = max(in, p.atomT)
	}
	return p.reserve(s, t, in, out)
}

func (p *Ports) reserve(s int, t int64, in int64, out int) int64 {
	start := max(t*ticks, p.inBusy[s])
	p.inBusy[s] = start + in
	if out > 0 {
		start = max(start, p.outBusy[s])
		p.outBusy[s] = start + int64(out)*p.sectorT
	}
	return (start + ticks - 1) / ticks
}
