package accelsim

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gtrace/gtrace/format"
)

// FuzzImport feeds damaged kernel traces (seeded from the fixture) and kernel lists to
// the importer: it must return a trace that reads back, or an error, never panic.
//
//	go test -run '^$' -fuzz FuzzImport -fuzztime 1000000x ./format/accelsim/
func FuzzImport(f *testing.F) {
	base := fixtureFS(f)
	f.Add(base["kernel-1.traceg"].Data, base[ListFile].Data)
	f.Add(base["kernel-2.traceg"].Data, []byte("kernel-1.traceg\n"))
	f.Fuzz(func(t *testing.T, kernel, list []byte) {
		fsys := fstest.MapFS{
			ListFile:          {Data: list},
			"kernel-1.traceg": {Data: kernel},
			"kernel-2.traceg": base["kernel-2.traceg"],
		}
		stop := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("import took over 5 s on list %q kernel %q", list, kernel)) })
		defer stop.Stop()
		var buf bytes.Buffer
		rep, err := Convert(context.Background(), fsys, &buf, Options{UnknownAsALU: len(kernel)%2 == 0})
		if err != nil {
			return
		}
		r, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("the importer wrote a trace the reader refuses: %v", err)
		}
		defer r.Close()
		n := uint64(0)
		for w, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			n += uint64(w.Len())
		}
		if n != rep.WarpInsts {
			t.Fatalf("the trace holds %d warp-instructions, the report says %d", n, rep.WarpInsts)
		}
	})
}
