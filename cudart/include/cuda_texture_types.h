// cuda_texture_types.h: the CUDA SDK's name for part of gtrace_texture.h (through
// gtrace_cuda_runtime.h), so that a program's own #include <cuda_texture_types.h> finds it without a CUDA SDK.
#include "gtrace_cuda_runtime.h"
