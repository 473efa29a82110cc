package capture

import (
	"fmt"

	"github.com/gtrace/gtrace/internal/sysmem"
)

// bufferCopies is how many copies of a buf argument's bytes a capture holds at its
// peak: the initial contents (Result.Buffers' Init), the memory image every Run starts
// from, the memory of the run, and the final contents it returns. A texture's texels
// are held once.
const bufferCopies = 4

// availableMemory says how much more memory the process may take; a test gives less.
var availableMemory = sysmem.Available

// MemoryError is a launch whose arguments need more memory than the process can take
// (the Go runtime cannot recover from running out, so the capture asks first).
type MemoryError struct {
	Need    uint64 // bytes the arguments' copies take
	Largest string // the largest argument, as the user wrote it
	Index   int    // its position among the arguments
	Bytes   uint64 // its bytes, one copy
	Limit   sysmem.Limit
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("the kernel's arguments need %s of memory (a buffer is held %d times: its initial contents, the image each run starts from, the run's memory and the final contents); the largest, argument %d (%s), is %s. This process can take %s more: give a smaller COUNT",
		sysmem.Size(e.Need), bufferCopies, e.Index, e.Largest, sysmem.Size(e.Bytes), e.Limit)
}

// checkMemory refuses arguments whose copies would not fit in what the process can
// still take; where the system says nothing about its memory, it lets them through.
func checkMemory(args []Arg) error {
	var need uint64
	e := &MemoryError{Index: -1}
	for i, a := range args {
		var copies uint64
		switch a.Kind {
		case ArgBuf:
			copies = bufferCopies
		case ArgTex2D:
			copies = 1
		default:
			continue
		}
		b := uint64(a.Count) * uint64(a.ElemBytes())
		need += b * copies
		if e.Index < 0 || b > e.Bytes {
			e.Index, e.Largest, e.Bytes = i, a.Source, b
		}
	}
	lim, ok := availableMemory()
	if !ok || need <= lim.Bytes {
		return nil
	}
	e.Need, e.Limit = need, lim
	return e
}
