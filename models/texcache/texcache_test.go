package texcache

import (
	"strings"
	"testing"

	"github.com/gtrace/gtrace/models/arch"

	"github.com/gtrace/gtrace/models/cache"
	"github.com/gtrace/gtrace/models/coalesce"
)

func TestBlockLinear(t *testing.T) {
	for _, tc := range []struct {
		x, y, w, e int
		want       uint64
	}{
		{0, 0, 64, 4, 0},
		{3, 0, 64, 4, 12},               // last texel of the first 16-byte sector row
		{0, 1, 64, 4, 16},               // the row below shares the sector
		{4, 0, 64, 4, 32},               // next 16 bytes to the right: next sector
		{0, 2, 64, 4, 64},               // rows 2-3 start the next 64 bytes
		{8, 0, 64, 4, 256},              // bytes 32-63 of a GOB row: second half of the GOB
		{16, 0, 64, 4, 512},             // next GOB to the right
		{0, 8, 64, 4, 4 * 512},          // first GOB of the second GOB row (64*4/64 = 4 GOBs per row)
		{5, 3, 64, 4, 64 + 32 + 16 + 4}, // b=20: (20%32)/16*32 + (3%2)*16 + 20%16, rows 2-3
		{1, 0, 3, 3, 3},                 // 3-byte texels: byte offsets as given
	} {
		if got := BlockLinear(tc.x, tc.y, tc.w, tc.e); got != tc.want {
			t.Errorf("BlockLinear(%d,%d,w=%d,E=%d) = %d, want %d", tc.x, tc.y, tc.w, tc.e, got, tc.want)
		}
	}
	// A 128-byte line holds 8 texels x 4 rows of 4-byte texels.
	lines := map[uint64]int{}
	for y := 0; y < 4; y++ {
		for x := 0; x < 8; x++ {
			lines[BlockLinear(x, y, 64, 4)/128]++
		}
	}
	if len(lines) != 1 {
		t.Errorf("8x4 texels span %d lines, want 1", len(lines))
	}
}

// seed 001's kernels over a W×H uchar4 image, one warp after another on one
// SM: RowAfterRow (tid → x = tid%W, y = tid/W) and ColumnAfterColumn
// (x = tid/H, y = tid%H).
const W, H, E = 512, 512, 4

func sweep(column bool, addr func(x, y int) uint64, fn func([]uint64)) {
	a := make([]uint64, 32)
	for tid := 0; tid < W*H; tid += 32 {
		for l := range a {
			x, y := (tid+l)%W, (tid+l)/W
			if column {
				x, y = (tid+l)/H, (tid+l)%H
			}
			a[l] = addr(x, y)
		}
		fn(a)
	}
}

// 48 KB, whole-line fill, XOR set index (Kepler's read-only/texture size).
var texCfg = cache.Config{Size: 48 << 10, Line: 128, Sector: 128, Ways: 24, SetIndex: cache.XORFold}

func TestColumnVsRow(t *testing.T) {
	blockLinear := func(x, y int) uint64 { return 1<<30 + BlockLinear(x, y, W, E) }
	rowMajor := func(x, y int) uint64 { return 1<<30 + uint64(y*W+x)*E }
	image := float64(W * H * E / 32) // sectors in the image

	var tex [2]Stats // [row, column]
	var glSectors, glFetched [2]float64
	for i, column := range []bool{false, true} {
		tc, err := New(texCfg)
		if err != nil {
			t.Fatal(err)
		}
		sweep(column, blockLinear, func(a []uint64) { tc.Access(a, E) })
		tex[i] = tc.Stats()

		// Global memory through an equally sized sectored L1 (Volta+ style).
		l1, _ := cache.New(cache.Config{Size: 48 << 10, Sets: 4})
		co, _ := coalesce.New(coalesce.Sectors32)
		reqs := 0.0
		sweep(column, rowMajor, func(a []uint64) {
			r := co.Coalesce(^uint32(0), a, E, false)
			reqs++
			glSectors[i] += float64(r.Sectors)
			for _, u := range r.Units() {
				glFetched[i] += float64(popcount(l1.Access(u.Line, u.Sectors, cache.Load).Fetch))
			}
		})
		glSectors[i] /= reqs
	}
	t.Logf("texture hit rate: row %.1f%%, column %.1f%%; L2 traffic: row %.2fx, column %.2fx the image",
		tex[0].HitRate(), tex[1].HitRate(), float64(tex[0].Fetched)/image, float64(tex[1].Fetched)/image)
	t.Logf("global: sectors/request row %.0f, column %.0f; L2 traffic row %.2fx, column %.2fx the image",
		glSectors[0], glSectors[1], glFetched[0]/image, glFetched[1]/image)

	// Texture: column keeps its hit rate (a 4-texel-tall line is reused by 4
	// row sweeps, an 8-texel-wide one by 8 column sweeps: 75% and 87.5%).
	if tex[0].HitRate() != 75 || tex[1].HitRate() != 87.5 {
		t.Errorf("texture hit rates %.2f%% / %.2f%%, want 75%% / 87.5%%", tex[0].HitRate(), tex[1].HitRate())
	}
	// ... and both fetch the image once from L2.
	if tex[0].Fetched != uint64(image) || tex[1].Fetched != uint64(image) {
		t.Errorf("texture fetched %d / %d sectors, want the image's %d", tex[0].Fetched, tex[1].Fetched, int(image))
	}
	// Global: a column request touches 32 sectors against 4 for a row (exact),
	// and the L1 cannot hold a 512-line column strip (64 KB > 48 KB), so
	// column sweeps move 8x the image from L2 (each 32 B sector for 4 B).
	if glSectors[0] != 4 || glSectors[1] != 32 {
		t.Errorf("global sectors/request %.1f / %.1f, want 4 / 32", glSectors[0], glSectors[1])
	}
	if glFetched[0] != image || glFetched[1] != 8*image {
		t.Errorf("global L2 traffic %.2fx / %.2fx the image, want 1x / 8x", glFetched[0]/image, glFetched[1]/image)
	}
}

func popcount(m uint8) (n int) {
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

func TestNoAllocation(t *testing.T) {
	tc, _ := New(texCfg)
	a := make([]uint64, 32)
	for l := range a {
		a[l] = BlockLinear(3, l, W, E)
	}
	if n := testing.AllocsPerRun(1000, func() { tc.Access(a, E) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func BenchmarkAccess(b *testing.B) {
	tc, _ := New(texCfg)
	a := make([]uint64, 32)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		x := i / (H / 32)
		y0 := i % (H / 32) * 32
		for l := range a {
			a[l] = BlockLinear(x%W, y0+l, W, E)
		}
		tc.Access(a, E)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "warp-inst/s")
}

// Every preset's texture cache keeps a column sweep as cheap as a row sweep
// (L2 traffic within 10%) on a 256x256 uchar4 image, whose 64-line column
// strip fits even Fermi's 12 KB.
func TestPresetsColumnVsRow(t *testing.T) {
	for _, name := range arch.Names() {
		a, g, _ := strings.Cut(name, "/")
		c, err := arch.Preset(a, g)
		if err != nil {
			t.Fatal(err)
		}
		var fetched [2]float64
		for i, column := range []bool{false, true} {
			tc, err := New(c.Tex)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			a := make([]uint64, 32)
			for tid := 0; tid < 256*256; tid += 32 {
				for l := range a {
					x, y := (tid+l)%256, (tid+l)/256
					if column {
						x, y = y, x
					}
					a[l] = BlockLinear(x, y, 256, 4)
				}
				tc.Access(a, 4)
			}
			fetched[i] = float64(tc.Stats().Fetched)
		}
		if fetched[1] > 1.1*fetched[0] {
			t.Errorf("%s: column sweep fetched %.0f sectors, row sweep %.0f", name, fetched[1], fetched[0])
		}
	}
}
