// check.h: CHECK(call) ends the program with the file, line, call and the runtime's
// words when a CUDA runtime call fails. Shared by the example programs of this folder.
#ifndef EXAMPLES_CHECK_H
#define EXAMPLES_CHECK_H
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                          \
	do {                                                                                     \
		cudaError_t e_ = (call);                                                             \
		if (e_ != cudaSuccess) {                                                             \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(1);                                                                         \
		}                                                                                    \
	} while (0)
#endif
