"""TileLang's scalar functions from TIR (T.Cast, T.floordiv, T.floormod,
T.clamp, T.Select, T.max_value, T.round, T.isnan, ...) on tile's values:
compile-time numbers fold in Python, run-time values become arith/math
operations."""

from __future__ import annotations

import math

from . import dtypes as dt
from .builder import Value, current_builder, error
from .values import (binary, constant, convert, lazy, operand, promote, select,
                     unary_math)


def Cast(dtype, value):  # noqa: N802 - TileLang's (TIR's) name
    """``T.Cast(dtype, x)``: `x` converted to `dtype` (TIR's argument order;
    ``T.cast(x, dtype)`` is the same)."""
    return convert(value, dt.as_dtype(dtype))


def clamp(x, lo, hi):
    """``T.clamp(x, lo, hi)``: ``min(max(x, lo), hi)``."""
    return binary("min", binary("max", x, lo), hi)


def _ints(a, b, what):
    x, y = operand(a), operand(b)
    for v in (x, y):
        if isinstance(v, Value) and v.dtype.is_float:
            return x, y, True
        if isinstance(v, float):
            return x, y, True
    return x, y, False


def floordiv(a, b):
    """``T.floordiv(a, b)``: division rounding down (Python's ``//``)."""
    r = lazy("floordiv", a, b)
    return r if r is not None else binary("floordiv", a, b)


def floormod(a, b):
    """``T.floormod(a, b)``: the remainder of floordiv, with the sign of
    `b` (Python's ``%``)."""
    r = lazy("mod", a, b)
    if r is not None:
        return r
    x, y, is_float = _ints(a, b, "T.floormod")
    if not isinstance(x, Value) and not isinstance(y, Value):
        return x % y
    if is_float:
        return binary("mod", x, y)  # floats: already floored
    t = promote(x, y)
    if t.kind in ("uint", "bool"):
        return binary("mod", x, y)
    rem = binary("mod", x, y)  # truncated (remsi)
    fix = binary("and", binary("ne", rem, 0),
                 binary("ne", binary("lt", rem, 0), binary("lt", y, 0)))
    return select(fix, binary("add", rem, y), rem)


def truncdiv(a, b):
    """``T.truncdiv(a, b)``: division rounding toward zero (C's ``/``)."""
    x, y, is_float = _ints(a, b, "T.truncdiv")
    if not isinstance(x, Value) and not isinstance(y, Value):
        if is_float:
            return float(math.trunc(x / y))
        return int(x / y) if y else x // y
    q = binary("div", x, y)
    return unary_math("trunc", q) if is_float else q


def truncmod(a, b):
    """``T.truncmod(a, b)``: the remainder of truncdiv, with the sign of `a`
    (C's ``%``)."""
    x, y, is_float = _ints(a, b, "T.truncmod")
    if not isinstance(x, Value) and not isinstance(y, Value):
        return math.fmod(x, y) if is_float else int(math.fmod(x, y))
    if is_float:
        return binary("sub", x, binary("mul", truncdiv(x, y), y))
    return binary("mod", x, y)


def Select(cond, then_value, else_value):  # noqa: N802 - TIR's name
    """``T.Select(c, a, b)``: `a` where `c` holds, else `b`."""
    return select(cond, then_value, else_value)


def _is_dtype(x):
    return isinstance(x, str) or str(x).startswith("torch.")


def reinterpret(value, dtype):
    """``T.reinterpret(x, dtype)``: the bits of `x` read as `dtype`, of the
    same width (``T.reinterpret(bits, T.float16)`` builds a half from its
    bits). TIR's older order, ``T.reinterpret(dtype, x)``, works too."""
    if _is_dtype(value) and not _is_dtype(dtype):
        value, dtype = dtype, value
    d = dt.as_dtype(dtype)
    v = operand(value)
    if not isinstance(v, Value):
        raise error(f"T.reinterpret takes a typed value (e.g. "
                    f"T.uint16({v!r})), not the Python number {v!r}")
    s = v.dtype
    if dt.index in (s, d) or dt.bool_ in (s, d):
        raise error(f"T.reinterpret cannot read {s} as {d}: index and bool "
                    f"have no fixed bits")
    if s.bits != d.bits:
        raise error(f"T.reinterpret reads bits as a type of the same width: "
                    f"{s} has {s.bits}, {d} {d.bits}")
    if s.ir == d.ir:  # int8 <-> uint8: the same bits, another reading
        return Value(v.name, d, v.region)
    r, _ = current_builder().emit(
        f"{{result}} = arith.bitcast {v.name} : {s.ir} to {d.ir}", d, "v")
    return r


def likely(cond):
    """``T.likely(c)``: `c` (a hint TileLang passes to its code generator)."""
    return cond


def _limit(dtype, high):
    d = dt.as_dtype(dtype)
    if d.is_float:
        finfo = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
                 "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308,
                 "float8_e4m3": 448.0, "float8_e5m2": 57344.0,
                 "float8_e4m3fnuz": 240.0, "float8_e5m2fnuz": 57344.0}[d.name]
        return constant(finfo if high else -finfo, d)
    if d is dt.bool_:
        return constant(bool(high), d)
    bits = d.bits
    if d.kind == "uint":
        v = (1 << bits) - 1 if high else 0
    else:
        v = (1 << (bits - 1)) - 1 if high else -(1 << (bits - 1))
    return constant(v, d)


def max_value(dtype):
    """``T.max_value(dtype)``: the largest finite value of `dtype`."""
    return _limit(dtype, True)


def min_value(dtype):
    """``T.min_value(dtype)``: the lowest finite value of `dtype`."""
    return _limit(dtype, False)


def round(x):  # noqa: A001 - TileLang's name
    """``T.round(x)``: to the nearest integer, halves away from zero."""
    return unary_math("round", x)


def trunc(x):
    """``T.trunc(x)``: toward zero."""
    return unary_math("trunc", x)


def nearbyint(x):
    """``T.nearbyint(x)``: to the nearest integer, halves to even."""
    return unary_math("roundeven", x)


rint = nearbyint


def sigmoid(x):
    """``T.sigmoid(x)`` = 1 / (1 + exp(-x))."""
    v = operand(x)
    if not isinstance(v, Value):
        return 1.0 / (1.0 + math.exp(-v))
    if not v.dtype.is_float:
        v = convert(v, dt.float32)
    one = constant(1.0, v.dtype)
    e = unary_math("exp", binary("sub", 0.0, v))
    return binary("div", one, binary("add", one, e))


def exp10(x):
    """``T.exp10(x)`` = 2 ** (x * log2(10))."""
    v = operand(x)
    if not isinstance(v, Value):
        return 10.0 ** v
    return unary_math("exp2", binary("mul", v, math.log2(10.0)))


def _classify(x, what):
    v = operand(x)
    if not isinstance(v, Value):
        return v, None
    if not v.dtype.is_float:
        return v, "int"
    return v, v.dtype


def isnan(x):
    """``T.isnan(x)``."""
    v, t = _classify(x, "T.isnan")
    if t is None:
        return math.isnan(v)
    if t == "int":
        return False
    r, _ = current_builder().emit(
        f"{{result}} = arith.cmpf uno, {v.name}, {v.name} : {t.ir}", dt.bool_)
    return r


def isinf(x):
    """``T.isinf(x)``."""
    v, t = _classify(x, "T.isinf")
    if t is None:
        return math.isinf(v)
    if t == "int":
        return False
    return binary("eq", unary_math("abs", v), float("inf"))


def isfinite(x):
    """``T.isfinite(x)``: neither infinite nor NaN."""
    v, t = _classify(x, "T.isfinite")
    if t is None:
        return math.isfinite(v)
    if t == "int":
        return True
    return binary("lt", unary_math("abs", v), float("inf"))


def _int_op(op, what):
    def fn(a, b):
        for v in (operand(a), operand(b)):
            if isinstance(v, float) or (isinstance(v, Value) and v.dtype.is_float):
                raise error(f"{what} takes integers")
        return binary(op, a, b)
    fn.__name__ = what.split(".")[-1]
    fn.__doc__ = f"``{what}(a, b)`` on integers."
    return fn


bitwise_and = _int_op("and", "T.bitwise_and")
bitwise_or = _int_op("or", "T.bitwise_or")
bitwise_xor = _int_op("xor", "T.bitwise_xor")
shift_left = _int_op("shl", "T.shift_left")
shift_right = _int_op("shr", "T.shift_right")


def bitwise_not(x):
    """``T.bitwise_not(x)`` on integers."""
    v = operand(x)
    if isinstance(v, float) or (isinstance(v, Value) and v.dtype.is_float):
        raise error("T.bitwise_not takes integers")
    return ~v if not isinstance(v, Value) else binary("xor", v, -1)


def index_to_coordinates(index, shape):
    """``T.index_to_coordinates(i, shape)``: the row-major coordinates of
    flat index `i` in `shape`."""
    coords = []
    rest = index
    for extent in reversed(list(shape)):
        coords.append(floormod(rest, extent))
        rest = floordiv(rest, extent)
    return list(reversed(coords))
