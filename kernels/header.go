package kernels

import _ "embed"

// CUDAHeader is cu/gtrace_cuda.h: the few definitions (__global__, __shared__, the
// builtin variables, atomics, a tex2D helper) that a .cu file needs to compile with
// clang-14 -nocudainc -nocudalib, i.e. without a CUDA SDK. `gtrace capture --cu` puts it
// on the include path.
//
//go:embed cu/gtrace_cuda.h
var CUDAHeader []byte
