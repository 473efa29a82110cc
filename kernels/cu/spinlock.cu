// An intra-warp spin lock, the kind of algorithm that the hardware-mapping
// seed (cuda-hardware-mapping-simt-memory-spaces, "Independent Thread
// Scheduling") says a CRS stack cannot run: "threads in two separate parts of
// a branch in the same warp cannot synchronize with one another".
//
// Every thread takes the one lock with atomicCAS, increments a counter and
// releases the lock. One lane of a warp wins; under a reconvergence stack the
// winner then waits at the loop exit (the reconvergence point) for the losers,
// which spin for ever on a lock the winner never gets to release. With
// Independent Thread Scheduling (Volta+) the winner's path is scheduled too,
// and every thread gets through.
#include "gtrace_cuda.h"

extern "C" __global__ void spinlock(int *lock, volatile int *counter)
{
	while (atomicCAS(lock, 0, 1) != 0)
		;
	*counter = *counter + 1;
	__threadfence();
	atomicExch(lock, 0);
}
