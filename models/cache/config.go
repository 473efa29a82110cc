package cache

import (
	"fmt"
	"math/bits"
)

// Chunk is the byte size that one bit of a sector mask covers.
const Chunk = 32

// MaxLine is the largest line size a mask (uint8, one bit per Chunk) can describe.
const MaxLine = 8 * Chunk

// Replacement selects the victim within a set.
type Replacement uint8

const (
	LRU  Replacement = iota // least recently used (the zero value)
	FIFO                    // first in, first out: hits do not refresh a line
	// SRRIP is static re-reference interval prediction with 2-bit values (Jaleel et al.,
	// "High performance cache replacement using re-reference interval prediction",
	// ISCA 2010, hit-priority form): a line comes in with a long interval (2), a hit
	// makes it near (0), and the victim is a line at distant (3), the set aged until one
	// is; ties go to the least recently used. Lines touched once leave before lines
	// touched again, so a shuffled footprint past the capacity keeps part of itself where
	// LRU keeps none.
	SRRIP
)

// WritePolicy says what a store does to this cache.
type WritePolicy uint8

const (
	WriteBack    WritePolicy = iota // dirty chunks written below on eviction (the zero value)
	WriteThrough                    // every store forwarded below; present chunks stay valid
	WriteEvict                      // every store forwarded below; a hit line is invalidated
)

// SetIndex is the function from line address to set.
type SetIndex uint8

const (
	Linear    SetIndex = iota // line address modulo sets (the zero value)
	FermiHash                 // gpgpu-sim's FERMI_HASH_SET_FUNCTION (Nugteren et al., HPCA 2014); 32 or 64 sets
	XORFold                   // line address XOR-folded onto log2(sets) bits; sets a power of two
)

// Config describes one cache. The zero value is "no cache": Size 0 makes
// every load a miss that is fetched and every store forwarded, with nothing
// kept.
type Config struct {
	Size   int // bytes; 0 = absent
	Line   int // bytes, a power of two from 32 to 256; 0 means 128
	Sector int // fill/valid granularity in bytes, a multiple of 32 dividing Line; 0 means 32
	// Sets and Ways: give one and leave the other 0 to derive it from Size;
	// if both are given, Sets*Ways*Line must equal Size.
	Sets          int
	Ways          int
	Replacement   Replacement
	Write         WritePolicy
	WriteAllocate bool
	SetIndex      SetIndex
	MSHRs         int // outstanding-miss entries; 0 = fills complete at once
}

// Geometry returns the line size, sector size, sets and ways after defaults
// and derivation, or an error that says which value is inconsistent.
func (c Config) Geometry() (line, sector, sets, ways int, err error) {
	line, sector, sets, ways = c.Line, c.Sector, c.Sets, c.Ways
	if line == 0 {
		line = 128
	}
	if sector == 0 {
		sector = Chunk
	}
	if line < Chunk || line > MaxLine || bits.OnesCount(uint(line)) != 1 {
		return 0, 0, 0, 0, fmt.Errorf("line %d B: want a power of two from %d to %d", line, Chunk, MaxLine)
	}
	if sector < Chunk || sector%Chunk != 0 || line%sector != 0 {
		return 0, 0, 0, 0, fmt.Errorf("sector %d B: want a multiple of %d that divides the %d B line", sector, Chunk, line)
	}
	if c.Size < 0 || c.MSHRs < 0 || sets < 0 || ways < 0 {
		return 0, 0, 0, 0, fmt.Errorf("size, sets, ways and mshrs must not be negative")
	}
	if c.Size == 0 {
		return line, sector, 0, 0, nil
	}
	if c.Size%line != 0 {
		return 0, 0, 0, 0, fmt.Errorf("size %d B is not a multiple of the %d B line", c.Size, line)
	}
	lines := c.Size / line
	switch {
	case sets == 0 && ways == 0:
		return 0, 0, 0, 0, fmt.Errorf("give sets or ways (size %d B = sets × ways × %d B)", c.Size, line)
	case sets == 0:
		if lines%ways != 0 {
			return 0, 0, 0, 0, fmt.Errorf("size %d B / %d B lines = %d lines does not divide into %d ways", c.Size, line, lines, ways)
		}
		sets = lines / ways
	case ways == 0:
		if lines%sets != 0 {
			return 0, 0, 0, 0, fmt.Errorf("size %d B / %d B lines = %d lines does not divide into %d sets", c.Size, line, lines, sets)
		}
		ways = lines / sets
	default:
		if sets*ways != lines {
			return 0, 0, 0, 0, fmt.Errorf("sets %d × ways %d × line %d B = %d B, not size %d B", sets, ways, line, sets*ways*line, c.Size)
		}
	}
	switch c.SetIndex {
	case FermiHash:
		if sets != 32 && sets != 64 {
			return 0, 0, 0, 0, fmt.Errorf("fermi set hash needs 32 or 64 sets, have %d (change ways or size)", sets)
		}
	case XORFold:
		if bits.OnesCount(uint(sets)) != 1 {
			return 0, 0, 0, 0, fmt.Errorf("xor set index needs a power-of-two set count, have %d", sets)
		}
	case Linear:
	default:
		return 0, 0, 0, 0, fmt.Errorf("unknown set index function %d", c.SetIndex)
	}
	return line, sector, sets, ways, nil
}

// Validate reports the first inconsistency in c, or nil.
func (c Config) Validate() error {
	_, _, _, _, err := c.Geometry()
	return err
}

var (
	replacementNames = []string{LRU: "lru", FIFO: "fifo", SRRIP: "srrip"}
	writeNames       = []string{WriteBack: "write-back", WriteThrough: "write-through", WriteEvict: "write-evict"}
	setIndexNames    = []string{Linear: "linear", FermiHash: "fermi", XORFold: "xor"}
)

func (r Replacement) String() string { return name(replacementNames, int(r)) }
func (w WritePolicy) String() string { return name(writeNames, int(w)) }
func (s SetIndex) String() string    { return name(setIndexNames, int(s)) }

func name(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("invalid(%d)", i)
}

func parse(names []string, what, s string) (int, error) {
	for i, n := range names {
		if n == s {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want one of %v)", what, s, names)
}

// UnmarshalText parses "lru", "fifo" or "srrip".
func (r *Replacement) UnmarshalText(b []byte) error {
	i, err := parse(replacementNames, "replacement", string(b))
	*r = Replacement(i)
	return err
}

// UnmarshalText parses "write-back", "write-through" or "write-evict".
func (w *WritePolicy) UnmarshalText(b []byte) error {
	i, err := parse(writeNames, "write policy", string(b))
	*w = WritePolicy(i)
	return err
}

// UnmarshalText parses "linear", "fermi" or "xor".
func (s *SetIndex) UnmarshalText(b []byte) error {
	i, err := parse(setIndexNames, "set index", string(b))
	*s = SetIndex(i)
	return err
}

// MarshalText is the inverse of UnmarshalText.
func (r Replacement) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// MarshalText is the inverse of UnmarshalText.
func (w WritePolicy) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// MarshalText is the inverse of UnmarshalText.
func (s SetIndex) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
