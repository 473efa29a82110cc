#!/usr/bin/env python3
"""half.py: what a GPU computes for each half-precision PTX form (f16, bf16, f16x2,
bf16x2: cvt, add, sub, mul, fma, neg, abs, min, max, ex2, tanh, setp), over inputs
chosen to reach every rounding, overflow, subnormal and NaN case, plus random ones.

    python3 scripts/hw/half.py OUTDIR        (a GPU machine with CuPy)

Each form is one PTX kernel (below), loaded with cuModuleLoadData, so the GPU's PTX
JIT compiles it for the machine's GPU; thread i reads a[i], b[i], c[i] and writes d[i].
OUTDIR/half.json.gz holds per form the instruction, the PTX, the inputs and the
outputs (bits, as unsigned integers), or the error the JIT gave; capture's
TestHalfOnGPU runs the same PTX on the same inputs and compares every output.
"""
import gzip
import json
import os
import subprocess
import sys

import cupy as cp
import numpy as np

# (instruction, destination kind, source kinds). Kinds: h = .b16 (an f16 or bf16),
# r = .b32 (f16x2, bf16x2 or an integer), f = .f32, d = .f64, p = a predicate,
# P = a predicate pair p|q (stored as p | q<<1).
FORMS = [
    ("cvt.rn.f16.f32 {d}, {a};", "h", "f"),
    ("cvt.rz.f16.f32 {d}, {a};", "h", "f"),
    ("cvt.rm.f16.f32 {d}, {a};", "h", "f"),
    ("cvt.rp.f16.f32 {d}, {a};", "h", "f"),
    ("cvt.rn.relu.f16.f32 {d}, {a};", "h", "f"),
    ("cvt.rn.satfinite.f16.f32 {d}, {a};", "h", "f"),
    ("cvt.rn.bf16.f32 {d}, {a};", "h", "f"),
    ("cvt.rz.bf16.f32 {d}, {a};", "h", "f"),
    ("cvt.rn.relu.bf16.f32 {d}, {a};", "h", "f"),
    ("cvt.rn.satfinite.bf16.f32 {d}, {a};", "h", "f"),
    ("cvt.rn.f16x2.f32 {d}, {a}, {b};", "r", "ff"),
    ("cvt.rn.bf16x2.f32 {d}, {a}, {b};", "r", "ff"),
    ("cvt.rn.relu.satfinite.f16x2.f32 {d}, {a}, {b};", "r", "ff"),
    ("cvt.f32.f16 {d}, {a};", "f", "h"),
    ("cvt.f32.bf16 {d}, {a};", "f", "h"),
    ("cvt.rn.f16.f64 {d}, {a};", "h", "d"),
    ("cvt.rn.bf16.f64 {d}, {a};", "h", "d"),
    ("cvt.f64.f16 {d}, {a};", "d", "h"),
    ("cvt.rni.s32.f16 {d}, {a};", "r", "h"),
    ("cvt.rzi.u32.bf16 {d}, {a};", "r", "h"),
    ("cvt.rn.f16.s32 {d}, {a};", "h", "r"),
    ("cvt.rz.bf16.u32 {d}, {a};", "h", "r"),
    ("cvt.rn.bf16.f16 {d}, {a};", "h", "h"),
    ("cvt.rn.f16.bf16 {d}, {a};", "h", "h"),
    ("cvt.rmi.f16.f16 {d}, {a};", "h", "h"),
    ("add.f16 {d}, {a}, {b};", "h", "hh"),
    ("add.ftz.f16 {d}, {a}, {b};", "h", "hh"),
    ("add.sat.f16 {d}, {a}, {b};", "h", "hh"),
    ("sub.f16 {d}, {a}, {b};", "h", "hh"),
    ("mul.f16 {d}, {a}, {b};", "h", "hh"),
    ("add.f16x2 {d}, {a}, {b};", "r", "rr"),
    ("mul.ftz.f16x2 {d}, {a}, {b};", "r", "rr"),
    ("add.bf16 {d}, {a}, {b};", "h", "hh"),
    ("sub.bf16x2 {d}, {a}, {b};", "r", "rr"),
    ("mul.bf16 {d}, {a}, {b};", "h", "hh"),
    ("fma.rn.f16 {d}, {a}, {b}, {c};", "h", "hhh"),
    ("fma.rn.ftz.f16 {d}, {a}, {b}, {c};", "h", "hhh"),
    ("fma.rn.sat.f16 {d}, {a}, {b}, {c};", "h", "hhh"),
    ("fma.rn.relu.f16 {d}, {a}, {b}, {c};", "h", "hhh"),
    ("fma.rn.f16x2 {d}, {a}, {b}, {c};", "r", "rrr"),
    ("fma.rn.bf16 {d}, {a}, {b}, {c};", "h", "hhh"),
    ("fma.rn.relu.bf16 {d}, {a}, {b}, {c};", "h", "hhh"),
    ("fma.rn.bf16x2 {d}, {a}, {b}, {c};", "r", "rrr"),
    ("neg.f16 {d}, {a};", "h", "h"),
    ("neg.ftz.f16x2 {d}, {a};", "r", "r"),
    ("abs.f16 {d}, {a};", "h", "h"),
    ("abs.ftz.f16 {d}, {a};", "h", "h"),
    ("neg.bf16 {d}, {a};", "h", "h"),
    ("abs.bf16x2 {d}, {a};", "r", "r"),
    ("min.f16 {d}, {a}, {b};", "h", "hh"),
    ("max.ftz.f16 {d}, {a}, {b};", "h", "hh"),
    ("min.NaN.f16 {d}, {a}, {b};", "h", "hh"),
    ("max.f16x2 {d}, {a}, {b};", "r", "rr"),
    ("min.bf16 {d}, {a}, {b};", "h", "hh"),
    ("max.NaN.bf16x2 {d}, {a}, {b};", "r", "rr"),
    ("min.xorsign.abs.f16 {d}, {a}, {b};", "h", "hh"),
    ("ex2.approx.f16 {d}, {a};", "h", "h"),
    ("ex2.approx.f16x2 {d}, {a};", "r", "r"),
    ("ex2.approx.ftz.bf16 {d}, {a};", "h", "h"),
    ("tanh.approx.f16 {d}, {a};", "h", "h"),
    ("tanh.approx.bf16x2 {d}, {a};", "r", "r"),
    ("setp.lt.f16 {d}, {a}, {b};", "p", "hh"),
    ("setp.gtu.ftz.f16 {d}, {a}, {b};", "p", "hh"),
    ("setp.eq.bf16 {d}, {a}, {b};", "p", "hh"),
    ("setp.lt.f16 {d}|{e}, {a}, {b};", "P", "hh"),
    ("setp.le.f16x2 {d}|{e}, {a}, {b};", "P", "rr"),
    ("setp.ne.bf16x2 {d}|{e}, {a}, {b};", "P", "rr"),
]

REG = {"h": ("b16", 2), "r": ("b32", 4), "f": ("f32", 4), "d": ("f64", 8)}
NP = {"h": np.uint16, "r": np.uint32, "f": np.uint32, "d": np.uint64}


def ptx(inst, dk, sk):
    lines = [
        ".version 8.1", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 pd, .param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn)",
        "{",
        ".reg .pred %p<4>;", ".reg .pred %p_d, %p_e;",
        ".reg .b16 %h_a, %h_b, %h_c, %h_d;", ".reg .b32 %r_a, %r_b, %r_c, %r_d, %r_e;",
        ".reg .f32 %f_a, %f_b, %f_c, %f_d;", ".reg .f64 %d_a, %d_b, %d_c, %d_d;",
        ".reg .b32 %r<8>;", ".reg .b64 %rd<16>;",
        "ld.param.u64 %rd1, [pd];", "ld.param.u64 %rd2, [pa];",
        "ld.param.u64 %rd3, [pb];", "ld.param.u64 %rd4, [pc];",
        "ld.param.u32 %r1, [pn];",
        "mov.u32 %r2, %ctaid.x;", "mov.u32 %r3, %ntid.x;", "mov.u32 %r4, %tid.x;",
        "mad.lo.u32 %r5, %r2, %r3, %r4;",
        "setp.ge.u32 %p3, %r5, %r1;", "@%p3 bra DONE;",
        "cvt.u64.u32 %rd5, %r5;",
    ]
    names = {}
    for i, (k, role) in enumerate(zip(sk, "abc")):
        typ, w = REG[k]
        lines += ["mul.lo.u64 %%rd%d, %%rd5, %d;" % (6 + i, w),
                  "add.u64 %%rd%d, %%rd%d, %%rd%d;" % (9 + i, 2 + i, 6 + i),
                  "ld.global.%s %%%s_%s, [%%rd%d];" % (typ, k, role, 9 + i)]
        names[role] = "%%%s_%s" % (k, role)
    if dk in "pP":
        names["d"], names["e"] = "%p_d", "%p_e"
    else:
        names["d"] = "%%%s_d" % dk
    lines.append(inst.format(**names))
    if dk in "pP":
        lines += ["selp.u32 %r_d, 1, 0, %p_d;"]
        if dk == "P":
            lines += ["selp.u32 %r_e, 2, 0, %p_e;", "or.b32 %r_d, %r_d, %r_e;"]
        dk = "r"
    typ, w = REG[dk]
    lines += ["mul.lo.u64 %%rd12, %%rd5, %d;" % w, "add.u64 %rd13, %rd1, %rd12;",
              "st.global.%s [%%rd13], %%%s_d;" % (typ, dk), "DONE:", "ret;", "}", ""]
    return "\n".join(lines), ("r" if dk in "pP" else dk)


H16 = [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0xbc00, 0x3800,
       0x3555, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x6800, 0x4000,
       0x3f80, 0x007f, 0x0080, 0x7f7f, 0x7f80, 0x7fc0, 0x7f81, 0xbf80, 0x3eab, 0x4b80]
F32 = [0x00000000, 0x80000000, 0x3f800000, 0x3f801000, 0x3f801001, 0x3f803000, 0x3f802fff,
       0x3f808000, 0x3f808001, 0x3f818000, 0x3f817fff, 0x477fe000, 0x477fefff, 0x477ff000,
       0x47800000, 0xc77ff000, 0x501502f9, 0x7f7fffff, 0x7f7f8000, 0x7f800000, 0xff800000,
       0x7fc00000, 0x7f800001, 0xffc00001, 0x7fa00000, 0x33800000, 0x33000000, 0x33000001,
       0x33c00000, 0x38000000, 0x387fc000, 0x387fe000, 0x00000001, 0x007fffff, 0x00800000,
       0x00400000, 0xbe99999a, 0x3eaaaaab, 0x4b000001, 0xcb7fffff, 0x3f7fffff, 0xbf7fffff]
F64 = [0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0x3ff0020000000000,
       0x3ff0020000000001, 0x3ff0060000000000, 0x3ff0100000000000, 0x3ff0100000000001,
       0x40effc0000000000, 0x40effdffffffffff, 0x40effe0000000000, 0x3e70000000000000,
       0x3e60000000000000, 0x3e60000000000001, 0x7ff0000000000000, 0x7ff8000000000000,
       0x7ff0000000000001, 0x47efffffe0000000, 0x47efffffffffffff, 0x0000000000000001,
       0x3fd5555555555555, 0xbfd3333333333333, 0x4415af1d78b58c40]
I32 = [0, 1, 0xffffffff, 2047, 2049, 4097, 4099, 65504, 65519, 65520, 65536, 0x7fffffff,
       0x80000000, 16777217, 16777219, 0x01000003, 0xff000001, 257, 259, 0x80000001]


def specials(k):
    if k == "h":
        return H16
    if k == "f":
        return F32
    if k == "d":
        return F64
    # r: integers, and x2 pairs of the 16-bit specials
    return I32 + [H16[i] | H16[(7 * i + 3) % len(H16)] << 16 for i in range(len(H16))]


def rand(k, n, rng):
    if k == "f":
        u = rng.integers(0, 1 << 32, n // 2, dtype=np.uint64).astype(np.uint32)
        m = (rng.standard_normal(n - n // 2) * np.exp2(rng.uniform(-30, 20, n - n // 2))).astype(np.float32)
        return np.concatenate([u, m.view(np.uint32)])
    if k == "d":
        u = rng.integers(0, 1 << 63, n // 2, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n // 2, dtype=np.uint64)
        m = rng.standard_normal(n - n // 2) * np.exp2(rng.uniform(-30, 20, n - n // 2))
        return np.concatenate([u, m.view(np.uint64)])
    bits = 16 if k == "h" else 32
    return rng.integers(0, 1 << bits, n, dtype=np.uint64).astype(NP[k])


def inputs(sk, rng, nrand=512):
    sp = [specials(k) for k in sk]
    cols = [[] for _ in sk]
    if len(sk) == 1:
        cols[0] = list(sp[0])
    else:
        for i, x in enumerate(sp[0]):
            for j, y in enumerate(sp[1]):
                cols[0].append(x)
                cols[1].append(y)
                if len(sk) == 3:
                    cols[2].append(sp[2][(i * 5 + j) % len(sp[2])])
    out = []
    for k, c in zip(sk, cols):
        out.append(np.concatenate([np.array(c, dtype=np.uint64).astype(NP[k]), rand(k, nrand, rng)]))
    return out


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    info = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                          capture_output=True, text=True).stdout.strip()
    rng = np.random.default_rng(20261126)
    res = {"gpu": info, "cupy": cp.__version__, "forms": []}
    for inst, dk, sk in FORMS:
        text, sk_d = ptx(inst, dk, sk)
        ins = inputs(sk, rng)
        n = len(ins[0])
        form = {"inst": inst, "dst": dk, "src": sk, "ptx": text}
        try:
            mod = cp.cuda.function.Module()
            mod.load(text.encode())
            fn = mod.get_function("k")
            dev = [cp.asarray(x) for x in ins] + [cp.zeros(1, dtype=np.uint32)] * (3 - len(ins))
            d = cp.zeros(n, dtype=NP[sk_d])
            fn(((n + 127) // 128,), (128,), (d, dev[0], dev[1], dev[2], np.uint32(n)))
            cp.cuda.Device().synchronize()
            form["in"] = [[int(v) for v in x] for x in ins]
            form["out"] = [int(v) for v in d.get()]
        except Exception as e:  # the JIT refused the form: record why
            form["error"] = str(e)
        print(inst, "error: " + form["error"] if "error" in form else "%d values" % n, flush=True)
        res["forms"].append(form)
    with gzip.open(os.path.join(outdir, "half.json.gz"), "wt") as f:
        json.dump(res, f, separators=(",", ":"))
    print(info)


if __name__ == "__main__":
    main()
