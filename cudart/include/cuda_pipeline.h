// cuda_pipeline.h: the CUDA SDK's name that brings in the pipeline primitives
// (cuda_pipeline_primitives.h), so that a program's #include <cuda_pipeline.h> finds
// them without a CUDA SDK.
#if defined(__NVCC__) || defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)
#include_next <cuda_pipeline.h>
#else
#include "cuda_pipeline_primitives.h"
#endif
