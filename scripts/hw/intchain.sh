#!/bin/bash
# intchain.sh: run scripts/hw/intchain.cu (integer dependent latency and issue rate,
# issue 15 item 9) on a GPU machine with nvcc:
#
#   scripts/hw/intchain.sh OUTDIR
#
# writes to OUTDIR:
#   intchain.csv        every launch (see intchain.cu), no profiler
#   intchain-sass.txt   the SASS of each step's ILP-1 kernel, and per kernel the SASS
#                       instructions in its loop (the body between the loop's label
#                       and its backward branch), so cycles per trip divide into
#                       cycles per SASS instruction
#   intchain.log        the whole run
# The run docs cite is traces/hw/<gpu>-<date>-intchain/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/intchain.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-intchain}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/intchain.log") 2>&1

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
nvcc --version | tail -1
nvcc -O3 -arch=sm_90 -o "$WORK/intchain" scripts/hw/intchain.cu || exit 1
cuobjdump -sass "$WORK/intchain" >"$WORK/all.sass"
# Per kernel: its name, then the loop's SASS (the instructions from the target of the
# last backward BRA to that BRA).
python3 - "$WORK/all.sass" >"$OUTDIR/intchain-sass.txt" <<'PY'
import re, sys
fn, body = None, []
funcs = []
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        if fn: funcs.append((fn, body))
        fn, body = m.group(1), []
        continue
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
    if fn and m:
        body.append((int(m.group(1), 16), m.group(2).strip()))
if fn: funcs.append((fn, body))
for fn, body in funcs:
    loop = []
    for i, (pc, ins) in enumerate(body):
        t = re.search(r"0x([0-9a-f]+)", ins) if "BRA" in ins else None
        if t and int(t.group(1), 16) < pc:
            loop = [x for x in body if int(t.group(1), 16) <= x[0] <= pc]
    ops = {}
    for _, ins in loop:
        op = re.sub(r"^@!?U?P\w+\s+", "", ins).split()[0]
        ops[op] = ops.get(op, 0) + 1
    print("== %s: loop %d SASS: %s" % (fn, len(loop), " ".join("%s=%d" % kv for kv in sorted(ops.items()))))
    if "Li1EEv" in fn:  # chain<OP, 1>
        for pc, ins in loop:
            print("   %04x %s" % (pc, ins))
PY
grep "^==" "$OUTDIR/intchain-sass.txt"
echo "== run"
timeout 300 "$WORK/intchain" >"$OUTDIR/intchain.csv"
echo "exit $?"
cat "$OUTDIR/intchain.csv"
