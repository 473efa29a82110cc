#!/bin/bash
# unroll.sh: how far ptxas unrolls loops beyond their PTX (issue 11, lat.branch), for
# nvcc's PTX and for clang-14's. On a machine with nvcc (clang-14's PTX is made here
# first if clang-14 is on PATH, else taken from OUTDIR/clang-14.ptx if present):
#
#   scripts/hw/unroll.sh OUTDIR
#
# writes to OUTDIR, for each producer P (nvcc, clang-14):
#   P.ptx        the PTX of scripts/hw/unroll_kernels.cu
#   P.sass       its SASS for sm_90 (ptxas -O3)
#   unroll.txt   per producer and kernel: FMA (or load) instructions per trip of its
#                main loop (of the backward branches, the one whose span, from its
#                target to the branch, holds the most) in the PTX and in the SASS
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/unroll.sh OUTDIR}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
exec > >(tee "$OUTDIR/unroll.log") 2>&1
if command -v clang-14 >/dev/null; then
	clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
		-Xclang -target-feature -Xclang +ptx70 -I cudart/include -include gtrace_cuda_runtime.h \
		-O3 -S -o "$OUTDIR/clang-14.ptx" scripts/hw/unroll_kernels.cu
fi
if command -v nvcc >/dev/null; then
	nvcc --version | tail -1
	nvcc -O3 -arch=sm_80 -ptx -o "$OUTDIR/nvcc.ptx" scripts/hw/unroll_kernels.cu || exit 1
	for p in nvcc clang-14; do
		[ -f "$OUTDIR/$p.ptx" ] || continue
		ptxas -O3 -arch=sm_90 -o "$OUTDIR/$p.cubin" "$OUTDIR/$p.ptx" || exit 1
		cuobjdump -sass "$OUTDIR/$p.cubin" >"$OUTDIR/$p.sass"
		rm -f "$OUTDIR/$p.cubin"
	done
fi
python3 - "$OUTDIR" <<'PY' | tee "$OUTDIR/unroll.txt"
import os, re, sys
out = sys.argv[1]
def count(seg, is_sass):
    f = sum(1 for x in seg if (re.search(r"\bFFMA\b", x) if is_sass else x.startswith("fma.rn.f32")))
    l = sum(1 for x in seg if (re.search(r"\bLDG\b", x) if is_sass else x.startswith("ld.global")))
    return f + l
def loops(lines, is_sass):
    """kernel -> list of (ops in the innermost backward loop)"""
    res, fn, body = {}, None, []
    def flush():
        if fn is None: return
        best = None
        for i, (pc, ins) in enumerate(body):
            m = re.search(r"BRA\s+(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))", ins) if is_sass else re.search(r"bra(?:\.uni)?\s+(\S+);", ins)
            if not m: continue
            if is_sass:
                if m.group(1) is None: continue
                t = int(m.group(1), 16)
                if t >= pc: continue
                seg = [x for _, x in body if t <= _ <= pc]
            else:
                lab = m.group(1)
                idx = [j for j, (_, x) in enumerate(body) if x == lab + ":"]
                if not idx or idx[0] > i: continue
                seg = [x for _, x in body[idx[0]:i + 1]]
            if best is None or count(seg, is_sass) > count(best, is_sass): best = seg
        res[fn] = best or []
    for line in lines:
        m = re.search(r"Function : (\S+)", line) if is_sass else re.match(r"\.visible \.entry (\w+)", line)
        if m:
            flush(); fn, body = m.group(1), []
            continue
        if is_sass:
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
            if fn and m: body.append((int(m.group(1), 16), m.group(2).strip()))
        elif fn:
            s = line.strip()
            if s: body.append((len(body), s))
    flush()
    return res
for p in ("nvcc", "clang-14"):
    ptx, sass = os.path.join(out, p + ".ptx"), os.path.join(out, p + ".sass")
    if not (os.path.exists(ptx) and os.path.exists(sass)): continue
    a, b = loops(open(ptx), False), loops(open(sass), True)
    for k in sorted(a):
        na, nb = count(a[k], False), count(b.get(k, []), True)
        print("%-9s %-14s PTX %3d a trip, SASS %3d a trip: ptxas unrolls x%s" % (p, k, na, nb, "%g" % (nb / na) if na else "?"))
PY
