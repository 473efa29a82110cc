#!/usr/bin/env python3
"""halfs.py: run the halfs kernel of cudart/testdata/samples.cu (cuda_fp16.h and
cuda_bf16.h through gtrace's headers), as clang-14 compiled it, on a GPU:

    python3 scripts/hw/halfs.py IN OUTDIR        (a GPU machine with CuPy)

IN holds samples.ptx (clang-14 with `gtrace cuda-include --flags` -O3
-gline-tables-only -S, as capture --cu compiles) and x.bin, y.bin (the kernel's
inputs: 64 floats each, capture's buf:f32:64:rand:7 and rand:8). One CTA of 64
threads, as cudart's TestHalfTypes launches it; OUTDIR/halfs.bin is the output
buffer (1536 u32), then the two 2-byte accumulators; TestHalfTypesOnGPU compares
capture's bytes with these.
"""
import os
import subprocess
import sys

import cupy as cp
import numpy as np


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    mod = cp.cuda.function.Module()
    mod.load(open(os.path.join(src, "samples.ptx"), "rb").read())
    fn = mod.get_function("halfs")
    x = cp.asarray(np.fromfile(os.path.join(src, "x.bin"), dtype=np.float32))
    y = cp.asarray(np.fromfile(os.path.join(src, "y.bin"), dtype=np.float32))
    out = cp.zeros(1536, dtype=np.uint32)
    hacc = cp.zeros(1, dtype=np.uint16)
    bacc = cp.zeros(1, dtype=np.uint16)
    fn((1,), (64,), (x, y, out, hacc, bacc))
    cp.cuda.Device().synchronize()
    with open(os.path.join(outdir, "halfs.bin"), "wb") as f:
        f.write(out.get().tobytes() + hacc.get().tobytes() + bacc.get().tobytes())
    info = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                          capture_output=True, text=True).stdout.strip()
    with open(os.path.join(outdir, "gpu.txt"), "w") as f:
        f.write(info + "\n")
    print(info, "halfs: %d bytes" % (1536 * 4 + 4))


if __name__ == "__main__":
    main()
