package replay

import (
	"fmt"
	"strings"
	"testing"
)

// TestInL2Lines: a texture or constant cache's read reaches the L2 as requests for the
// L2's lines, each chunk where it is in its line.
func TestInL2Lines(t *testing.T) {
	for _, c := range []struct {
		l2   int
		line uint64
		mask uint8
		want string
	}{
		{128, 0x000, 0b0011, "0x0:0011"},            // a 64-byte line, first half
		{128, 0x040, 0b0011, "0x0:1100"},            // second half: chunks 2 and 3
		{128, 0x1c0, 0b0001, "0x180:0100"},          // one chunk of it
		{128, 0x080, 0b1010, "0x80:1010"},           // a whole L2 line, as it was
		{128, 0x100, 0xff, "0x100:1111 0x180:1111"}, // a 256-byte line spans two
		{128, 0x100, 0b10000001, "0x100:0001 0x180:1000"},
		{128, 0x100, 0xf0, "0x180:1111"}, // only its upper half
		{32, 0x040, 0b0011, "0x40:0001 0x60:0001"},
	} {
		var got []string
		inL2Lines(c.l2, func(line uint64, m uint8) {
			got = append(got, fmt.Sprintf("%#x:%04b", line, m))
		})(c.line, c.mask)
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("L2 lines of %d B, line %#x, chunks %08b: %s, want %s", c.l2, c.line, c.mask, g, c.want)
		}
	}
}
