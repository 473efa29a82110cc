#!/bin/bash
# atomics.sh OUTDIR: issue 11's atomics probe (scripts/hw/atomics.cu), as
# `scripts/hw/probe.sh atomics OUTDIR`; the H200 run is traces/hw/h200-2026-11-25-atomics/.
exec "$(dirname "$0")/probe.sh" atomics "$@"
