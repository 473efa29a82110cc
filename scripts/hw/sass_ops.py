#!/usr/bin/env python3
# sass_ops.py: per kernel of a `cuobjdump -sass` listing, its SASS opcodes and their
# static counts, one line each ("== NAME: N SASS: OP=n ..."), predicates dropped:
#
#   python3 scripts/hw/sass_ops.py ALL.sass > KERNELS-sass.txt
#
# mathfn.sh and simdcost.sh write their *-sass.txt with it.
import re
import sys

fn, ops = None, {}


def flush():
    if fn:
        print("== %s: %d SASS: %s" % (fn, sum(ops.values()), " ".join("%s=%d" % kv for kv in sorted(ops.items()))))


for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        flush()
        fn, ops = m.group(1), {}
        continue
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
    if fn and m:
        op = re.sub(r"^@!?U?P\w+\s+", "", m.group(2).strip()).split()[0]
        ops[op] = ops.get(op, 0) + 1
flush()
