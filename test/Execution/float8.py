#!/usr/bin/env python3
"""Inputs and expected results of the f8 conversion tests, computed with
exact rational arithmetic (fractions), independently of the compiler.

usage: float8.py OUTDIR ROWS
       float8.py gemm OUTDIR M N K FMT_A FMT_B

Writes, each ROWS x 64:
  x32.npy, x16.npy, x64.npy   f32 / f16 / f64 values to round into f8: every
                              f8 value, every midpoint between neighbours
                              (ties) and the source type's next values on
                              both sides of it, values past the largest
                              finite one, infinities, NaN, zeros, source
                              subnormals and random magnitudes, all signed
  e4m3_32.npy, e4m3_16.npy, e4m3_64.npy, e5m2_32.npy, ...,
  e4m3fnuz_32.npy, ..., e5m2fnuz_64.npy
                              those values rounded to nearest even into
                              f8E4M3FN / f8E5M2 / f8E4M3FNUZ / f8E5M2FNUZ (as
                              f64; too large a value is infinity in f8E5M2 and
                              NaN in the others, as APFloat rounds; the FNUZ
                              types have no negative zero: what rounds to
                              zero is +0)
  codes_e4m3.npy, codes_e5m2.npy, codes_e4m3fnuz.npy, codes_e5m2fnuz.npy
                              every f8 value, NaN and the infinities included,
                              repeated (for the extension tests)

gemm writes a.npy (M x K) and b.npy (N x K), the decoded values (f64) of
random codes of formats FMT_A and FMT_B (e4m3, e5m2, e4m3fnuz, e5m2fnuz)
whose magnitudes are 0 or in [1/8, 8], and ref.npy (f32 M x N), a b^T in
f64. For K <= 64 every partial sum of such products is a multiple of
2^-11 below 2^12, which f32 holds: an f32 accumulation in any order is
exact, and the result must equal ref.npy.
"""

import bisect
import functools
import math
import os
import sys
from fractions import Fraction

import numpy as np

# name: exponent bits, mantissa bits, bias, non-finite values: "ieee"
# (infinities and NaNs at the all-ones exponent), "fn" (no infinity, NaN at
# magnitude 0x7f) or "fnuz" (no infinity, no negative zero, NaN 0x80).
FORMATS = {"e4m3": (4, 3, 7, "fn"), "e5m2": (5, 2, 15, "ieee"),
           "e4m3fnuz": (4, 3, 8, "fnuz"), "e5m2fnuz": (5, 2, 16, "fnuz")}


def decode(fmt, code):
    """The value of the f8 code `code` (0..255) as a float."""
    e, m, bias, kind = FORMATS[fmt]
    sign = -1.0 if code & 0x80 else 1.0
    exponent, mantissa = (code & 0x7F) >> m, code & ((1 << m) - 1)
    if kind == "ieee" and exponent == (1 << e) - 1:
        return sign * math.inf if mantissa == 0 else math.nan
    if kind == "fn" and code & 0x7F == 0x7F:
        return math.nan
    if kind == "fnuz" and code == 0x80:
        return math.nan
    if exponent == 0:
        return sign * math.ldexp(mantissa, 1 - bias - m)
    return sign * math.ldexp((1 << m) + mantissa, exponent - bias - m)


@functools.cache
def finite_magnitudes(fmt):
    """The non-negative finite values in code order (codes 0, 1, ...)."""
    values = [decode(fmt, c) for c in range(128)]
    return [v for v in values if math.isfinite(v)]


@functools.cache
def candidates_of(fmt):
    """The finite magnitudes as fractions, then one step past the largest
    (which stands for overflow)."""
    values = finite_magnitudes(fmt)
    past = values[-1] + (values[-1] - values[-2])
    return [Fraction(v) for v in values] + [Fraction(past)]


def round_to(fmt, x):
    """`x` rounded to nearest, ties to even, into format `fmt`."""
    if math.isnan(x):
        return math.nan
    sign = -1.0 if math.copysign(1.0, x) < 0 else 1.0
    values = finite_magnitudes(fmt)
    candidates = candidates_of(fmt)
    a = Fraction(abs(x)) if math.isfinite(x) else 2 * candidates[-1]
    if a >= candidates[-1]:
        code = len(candidates) - 1
    else:
        # The largest candidate <= a.
        code = bisect.bisect_right(candidates, a) - 1
        if a != candidates[code]:
            low, high = a - candidates[code], candidates[code + 1] - a
            if high < low or (high == low and code % 2 == 1):
                code += 1
    kind = FORMATS[fmt][3]
    if code == len(candidates) - 1:
        return sign * math.inf if kind == "ieee" else math.nan
    if code == 0 and kind == "fnuz":
        return 0.0
    return sign * values[code]


def interesting(dtype, rng, count):
    """Signed values of `dtype` that exercise every rounding case."""
    values = [0.0, math.inf, math.nan, 1e-30, 1e-40, 65504.0, 1e6]
    nxt = lambda v, d: float(np.nextafter(dtype(v), dtype(d)))
    for fmt in FORMATS:
        finite = finite_magnitudes(fmt)
        past = finite[-1] + (finite[-1] - finite[-2])
        for lo, hi in zip(finite, finite[1:] + [past]):
            mid = (lo + hi) / 2
            values += [lo, mid, nxt(mid, 0), nxt(mid, math.inf)]
        values += [past, nxt(past, 0), past * 3]
    values += list(np.exp(rng.uniform(-20, 12, count)))
    values = [v for v in values if not np.isinf(dtype(v)) or math.isinf(v)]
    signed = values + [-v for v in values]
    return np.array(signed, dtype=dtype)


def gemm(out, m, n, k, fmt_a, fmt_b):
    if k > 64:
        sys.exit("float8.py: gemm needs K <= 64 to be exact in f32")
    rng = np.random.default_rng(m * 10007 + n * 101 + k)

    def sample(fmt, shape):
        values = [decode(fmt, c) for c in range(256)]
        values = [v for v in values
                  if v == 0 or 0.125 <= abs(v) <= 8]
        return rng.choice(np.array(values, dtype=np.float64), shape)

    a, b = sample(fmt_a, (m, k)), sample(fmt_b, (n, k))
    np.save(os.path.join(out, "a.npy"), a)
    np.save(os.path.join(out, "b.npy"), b)
    np.save(os.path.join(out, "ref.npy"), (a @ b.T).astype(np.float32))


def main():
    np.seterr(over="ignore")
    if sys.argv[1] == "gemm":
        out, m, n, k, fmt_a, fmt_b = sys.argv[2:]
        return gemm(out, int(m), int(n), int(k), fmt_a, fmt_b)
    out, rows = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(8)
    n = rows * 64
    for bits, dtype in ((32, np.float32), (16, np.float16), (64, np.float64)):
        x = rng.permutation(interesting(dtype, rng, 200))
        if len(x) > n:
            sys.exit(f"float8.py: {len(x)} values need {-(-len(x) // 64)} rows")
        x = np.resize(x, n).reshape(rows, 64)
        np.save(os.path.join(out, f"x{bits}.npy"), x)
        for fmt in FORMATS:
            ref = np.vectorize(lambda v: round_to(fmt, float(v)))(x)
            np.save(os.path.join(out, f"{fmt}_{bits}.npy"), ref.astype(np.float64))
    for fmt in FORMATS:
        codes = np.resize(np.arange(256), n).reshape(rows, 64)
        ref = np.vectorize(lambda c: decode(fmt, int(c)))(codes)
        np.save(os.path.join(out, f"codes_{fmt}.npy"), ref.astype(np.float64))


if __name__ == "__main__":
    main()
