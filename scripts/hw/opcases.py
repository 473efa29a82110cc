#!/usr/bin/env python3
"""opcases.py: run capture's GPU-checked opCases on a GPU.

    python3 scripts/hw/opcases.py CASEDIR OUTDIR     (a GPU machine with CuPy)

CASEDIR (capture/testdata/gpu-opcases, written by
`go test ./capture -run TestOpCasesOnGPU -update-gpu-opcases`) holds one PTX kernel per
case, NAME.ptx, entry `op(px, pout)`, and inputs.bin, three 64-bit words per thread.
Each kernel runs on 4 CTAs of 128 threads, loaded with cuModuleLoadData so that the
driver's PTX JIT compiles it for the GPU; OUTDIR/NAME.bin is its output, two 64-bit
words per thread. capture's TestOpCasesOnGPU checks its Go references against them.
"""
import glob
import os
import subprocess
import sys

import cupy as cp
import numpy as np

THREADS, BLOCK = 512, 128


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    info = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                          capture_output=True, text=True).stdout.strip()
    print(info, "cupy", cp.__version__, flush=True)
    x = cp.asarray(np.fromfile(os.path.join(src, "inputs.bin"), dtype=np.uint64))
    assert x.size == 3 * THREADS, x.size
    failed = 0
    for path in sorted(glob.glob(os.path.join(src, "*.ptx"))):
        name = os.path.basename(path)[:-4]
        try:
            mod = cp.cuda.function.Module()
            mod.load(open(path, "rb").read())
            fn = mod.get_function("op")
            d = cp.zeros(2 * THREADS, dtype=np.uint64)
            fn((THREADS // BLOCK,), (BLOCK,), (x, d))
            cp.cuda.Device().synchronize()
            d.get().tofile(os.path.join(out, name + ".bin"))
            print(name, "ok", flush=True)
        except Exception as e:  # the JIT refused it, or the kernel faulted
            failed += 1
            print(name, "error:", e, flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
