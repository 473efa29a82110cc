#!/bin/bash
# opcases.sh: run capture's GPU-checked opCases (scripts/hw/opcases.py) on a GPU machine
# with CuPy:
#
#   scripts/hw/opcases.sh OUTDIR
#
# writes OUTDIR/NAME.bin per case and OUTDIR/opcases.log. The run the tests read is
# traces/hw/h100-2026-11-26-opcases/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/opcases.sh OUTDIR}
mkdir -p "$OUTDIR"
python3 scripts/hw/opcases.py capture/testdata/gpu-opcases "$OUTDIR" 2>&1 | tee "$OUTDIR/opcases.log"
exit "${PIPESTATUS[0]}"
