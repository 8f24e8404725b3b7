"""Scalar values in kernels: arithmetic with TileLang's promotion rules,
conversions, constants and the math functions (T.exp, T.max, ...)."""

from __future__ import annotations

import math
import struct

from . import dtypes as dt
from .builder import Value, current_builder, error

# ---------------------------------------------------------------------------
# Operands
# ---------------------------------------------------------------------------


class Deferred:
    """Something that reads as a value when used in arithmetic (an element
    reference, a variable, a compile-time symbol): subclasses give
    `_value()`."""

    def _value(self):  # pragma: no cover - abstract
        raise NotImplementedError


class Symbolic(Deferred):
    """A compile-time integer that may not be known yet while tracing: a
    T.const symbol before the annotation that binds it, or an expression of
    such symbols (``K // split_k``). Arithmetic between symbols and Python
    numbers stays symbolic; any other use needs the value."""

    def resolved(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def unbound(self):
        """The names of the symbols not bound yet."""
        raise NotImplementedError  # pragma: no cover

    def text(self):
        """The expression with the symbols' names."""
        return repr(self)

    # Any other use reads the value (an error naming the symbol while it is
    # unbound).
    def __index__(self):
        return int(self._value())

    __int__ = __index__

    def __bool__(self):
        return bool(self._value())

    def __eq__(self, other):
        return self._value() == operand(other)

    def __ne__(self, other):
        return self._value() != operand(other)

    def __hash__(self):
        return hash(self._value())


class SymExpr(Symbolic):
    """An arithmetic expression of T.const symbols, evaluated when used."""

    def __init__(self, op, args):
        self.op = op
        self.args = tuple(args)

    def resolved(self):
        return all(a.resolved() for a in self.args if isinstance(a, Symbolic))

    def unbound(self):
        out = []
        for a in self.args:
            if isinstance(a, Symbolic):
                out += [n for n in a.unbound() if n not in out]
        return out

    def _value(self):
        vals = []
        for a in self.args:
            if isinstance(a, Symbolic) and not a.resolved():
                name = a.unbound()[0]
                raise error(f"T.const '{name}' is used before an annotation binds it "
                            f"(in {self!r})")
            vals.append(operand(a))
        return _SYM_OPS[self.op](*vals)

    def __repr__(self):
        def show(a):
            return a.text() if isinstance(a, Symbolic) else repr(a)
        if self.op in _SYM_INFIX:
            a, b = self.args
            return f"({show(a)} {_SYM_INFIX[self.op]} {show(b)})"
        return f"{self.op}({', '.join(show(a) for a in self.args)})"


_SYM_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//",
              "mod": "%", "pow": "**", "and": "&", "or": "|", "xor": "^",
              "shl": "<<", "shr": ">>"}


def lazy(op, *args):
    """A SymExpr when some argument is an unbound symbol and all are
    compile-time (numbers or symbols); None when the operation can be done
    now."""
    if not any(isinstance(a, Symbolic) and not a.resolved() for a in args):
        return None
    if all(isinstance(a, (Symbolic, int, float)) for a in args):
        return SymExpr(op, args)
    return None


def operand(x):
    """A Value, a Python number or bool, from anything a kernel computes with."""
    while isinstance(x, Deferred):
        x = x._value()
    if isinstance(x, Value):
        if x.dtype is None:
            raise error("a buffer is not a scalar value; index it")
        current_builder().check_visible(x)
        return x
    if isinstance(x, (bool, int, float)):
        return x
    if hasattr(x, "__index__"):
        return x.__index__()
    try:
        import numpy as np
        if isinstance(x, np.generic):
            return x.item()
    except ImportError:  # pragma: no cover
        pass
    raise error(f"cannot use {type(x).__name__} {x!r} as a value in a kernel")


def is_static(x) -> bool:
    return not isinstance(operand(x), Value)


def static_int(x, what="value"):
    """A compile-time integer, or an error saying `what` must be one."""
    x = operand(x)
    if isinstance(x, Value) or isinstance(x, float):
        raise error(f"{what} must be a compile-time integer")
    return int(x)


# ---------------------------------------------------------------------------
# Constants and conversions
# ---------------------------------------------------------------------------


def _float_literal(value: float, d: dt.dtype) -> str:
    if d is dt.float64:
        return "0x%016X" % struct.unpack(">Q", struct.pack(">d", value))[0]
    if d is dt.float32:
        return "0x%08X" % struct.unpack(">I", struct.pack(">f", value))[0]
    if d is dt.float16:
        try:
            return "0x%04X" % struct.unpack(">H", struct.pack(">e", value))[0]
        except OverflowError:
            return "0x%04X" % (0xFC00 if value < 0 else 0x7C00)
    if d is dt.bfloat16:
        bits = struct.unpack(">I", struct.pack(">f", value))[0]
        if math.isnan(value):
            return "0x7FC0"
        bits += 0x7FFF + ((bits >> 16) & 1)
        return "0x%04X" % (bits >> 16)
    raise AssertionError(d)


def constant(value, d: dt.dtype) -> Value:
    """A constant of dtype `d` from a Python number."""
    b = current_builder()
    if d.is_float:
        value = float(value)
        if d in dt.FLOAT8:
            wide = constant(value, dt.float32)
            return convert(wide, d)
        return b.constant(_float_literal(value, d), d, d.ir)
    if isinstance(value, float):
        if value != int(value):
            raise error(f"{value} is not an integer ({d.name})")
        value = int(value)
    if d is dt.bool_:
        return b.constant("true" if value else "false", d, "i1")
    value = int(value)
    if d.bits < 64 and d is not dt.index:
        value &= (1 << d.bits) - 1
        if d.kind == "int" and value >= 1 << (d.bits - 1):
            value -= 1 << d.bits
    return b.constant(str(value), d, d.ir)


def _emit(text, d, hint="v"):
    v, _ = current_builder().emit(text, d, hint)
    return v


def convert(v, d: dt.dtype) -> Value:
    """`v` (a Value or Python number) as dtype `d`."""
    d = dt.as_dtype(d)
    v = operand(v)
    if not isinstance(v, Value):
        return constant(v, d)
    s = v.dtype
    if s is d or (s.ir == d.ir and s.kind == d.kind):
        return v
    if d is dt.bool_:
        zero = constant(0, s)
        if s.is_float:
            return _emit(f"{{result}} = arith.cmpf une, {v.name}, {zero.name} : {s.ir}", d)
        return _emit(f"{{result}} = arith.cmpi ne, {v.name}, {zero.name} : {s.ir}", d)
    unsigned = s.kind in ("uint", "bool")
    if s.is_int and d.is_int:
        if s is dt.index or d is dt.index:
            if s.ir == "i1":
                v = convert(v, dt.int32)
                s = dt.int32
            op = "index_castui" if unsigned else "index_cast"
            return _emit(f"{{result}} = arith.{op} {v.name} : {s.ir} to {d.ir}", d)
        if s.bits == d.bits:
            return Value(v.name, d, v.region)
        if s.bits < d.bits:
            op = "extui" if unsigned else "extsi"
        else:
            op = "trunci"
        return _emit(f"{{result}} = arith.{op} {v.name} : {s.ir} to {d.ir}", d)
    if s.is_int and d.is_float:
        if s is dt.index:
            v = convert(v, dt.int64)
            s = dt.int64
        op = "uitofp" if unsigned else "sitofp"
        return _emit(f"{{result}} = arith.{op} {v.name} : {s.ir} to {d.ir}", d)
    if s.is_float and d.is_int:
        target = dt.int64 if d is dt.index else d
        op = "fptoui" if d.kind == "uint" else "fptosi"
        r = _emit(f"{{result}} = arith.{op} {v.name} : {s.ir} to {target.ir}", target)
        return convert(r, d) if target is not d else r
    # float to float
    if s.bits == d.bits:  # f16 <-> bf16
        v = convert(v, dt.float32)
        s = dt.float32
    op = "extf" if s.bits < d.bits else "truncf"
    return _emit(f"{{result}} = arith.{op} {v.name} : {s.ir} to {d.ir}", d)


def cast(value, d):
    """T.cast(x, dtype)."""
    return convert(value, dt.as_dtype(d))


def promote(a, b):
    """The dtype two operands are computed in (TileLang's rules: index wins
    among integers but over 8- and 16-bit ones, which meet an index in
    int32, floats win over integers, wider wins)."""
    ta = a.dtype if isinstance(a, Value) else None
    tb = b.dtype if isinstance(b, Value) else None
    if ta is None and tb is None:
        return None
    if ta is None or tb is None:
        t = ta or tb
        other = b if ta is not None else a
        if isinstance(other, float) and not t.is_float:
            return dt.float32
        return t
    if ta is tb:
        return ta
    if ta.is_float and tb.is_float:
        if ta.bits == tb.bits:
            return dt.float32
        return ta if ta.bits > tb.bits else tb
    if ta.is_float:
        return ta
    if tb.is_float:
        return tb
    if ta is dt.index or tb is dt.index:
        # TileLang's indices are int32: an 8- or 16-bit value meets one in
        # int32 (a loaded byte shifted by `(j % 2) * 4`), not in 64 bits.
        other = tb if ta is dt.index else ta
        if other.is_int and other is not dt.bool_ and other.bits < 32:
            return dt.int32
        return dt.index
    if ta is dt.bool_:
        return tb
    if tb is dt.bool_:
        return ta
    return ta if ta.bits >= tb.bits else tb


_PY_OPS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y, "div": lambda x, y: x / y,
    "floordiv": lambda x, y: x // y, "mod": lambda x, y: x % y,
    "and": lambda x, y: x & y, "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y, "shl": lambda x, y: x << y,
    "shr": lambda x, y: x >> y, "max": max, "min": min,
    "lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y,
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
}
_SYM_OPS = dict(_PY_OPS, pow=lambda x, y: x ** y,
                ceildiv=lambda x, y: -(-int(x) // int(y)),
                neg=lambda x: -x)

_INT_OPS = {
    "add": "addi", "sub": "subi", "mul": "muli", "div": "divsi",
    "floordiv": "floordivsi", "mod": "remsi", "and": "andi", "or": "ori",
    "xor": "xori", "shl": "shli", "shr": "shrsi", "max": "maxsi", "min": "minsi",
}
_UINT_OPS = dict(_INT_OPS, div="divui", floordiv="divui", mod="remui",
                 shr="shrui", max="maxui", min="minui")
_FLOAT_OPS = {
    "add": "addf", "sub": "subf", "mul": "mulf", "div": "divf",
    "max": "maximumf", "min": "minimumf",
}
_CMP_INT = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}
_CMP_UINT = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "eq": "eq", "ne": "ne"}
_CMP_FLOAT = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}


_FLIPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq"}


def _thread_span(op, a, b):
    """The threads (lo, hi) for which `a op b` holds, where it compares the
    block's thread index with a constant (or joins two such with `and`)."""
    if op == "and":
        if isinstance(a, Value) and isinstance(b, Value) and \
                isinstance(a.span, tuple) and isinstance(b.span, tuple):
            his = [h for h in (a.span[1], b.span[1]) if h is not None]
            return max(a.span[0], b.span[0]), min(his) if his else None
        return None
    if op not in _FLIPPED:
        return None
    if isinstance(b, Value) and b.span == "tid" and not isinstance(a, Value):
        a, b, op = b, a, _FLIPPED[op]
    if not (isinstance(a, Value) and a.span == "tid") or isinstance(b, Value) \
            or isinstance(b, float):
        return None
    c = int(b)
    return {"lt": (0, c), "le": (0, c + 1), "gt": (c + 1, None),
            "ge": (c, None), "eq": (c, c + 1)}[op]


def binary(op: str, a, b):
    # Operands once: reading an element (a Deferred) emits its load.
    a, b = operand(a), operand(b)
    r = _binary(op, a, b)
    span = _thread_span(op, a, b)
    if span is not None and isinstance(r, Value):
        r.span = span
    return r


def _binary(op: str, a, b):
    a, b = operand(a), operand(b)
    t = promote(a, b)
    if t is None:
        return _PY_OPS[op](a, b)
    # Fold the identities that index arithmetic produces everywhere.
    if op in ("add", "sub") and not isinstance(b, Value) and b == 0:
        return convert(a, t)
    if op == "add" and not isinstance(a, Value) and a == 0:
        return convert(b, t)
    if op == "mul" and not isinstance(b, Value) and b == 1:
        return convert(a, t)
    if op == "mul" and not isinstance(a, Value) and a == 1:
        return convert(b, t)
    if op in ("div", "floordiv") and not isinstance(b, Value) and b == 1 and t.is_int:
        return convert(a, t)
    x, y = convert(a, t), convert(b, t)
    if op in ("add", "sub", "mul") and t.is_int:
        r = _emit(f"{{result}} = arith.{_INT_OPS[op]} {x.name}, {y.name} : {t.ir}", t)
        r.affine = _affine(op, a, b)
        return r
    if op in _CMP_INT:
        if t.is_float:
            pred, name = _CMP_FLOAT[op], "cmpf"
        else:
            pred = (_CMP_UINT if t.kind in ("uint", "bool") else _CMP_INT)[op]
            name = "cmpi"
        return _emit(f"{{result}} = arith.{name} {pred}, {x.name}, {y.name} : {t.ir}",
                     dt.bool_)
    if t.is_float:
        if op == "mod":
            # Python's (floored) modulo: x - floor(x / y) * y; GPUs have no frem.
            q = _emit(f"{{result}} = arith.divf {x.name}, {y.name} : {t.ir}", t)
            f = _emit(f"{{result}} = math.floor {q.name} : {t.ir}", t)
            m = _emit(f"{{result}} = arith.mulf {f.name}, {y.name} : {t.ir}", t)
            return _emit(f"{{result}} = arith.subf {x.name}, {m.name} : {t.ir}", t)
        if op == "floordiv":
            q = _emit(f"{{result}} = arith.divf {x.name}, {y.name} : {t.ir}", t)
            return _emit(f"{{result}} = math.floor {q.name} : {t.ir}", t)
        name = _FLOAT_OPS.get(op)
        if name is None:
            raise error(f"operator '{op}' is not defined on {t.name} values")
    else:
        name = (_UINT_OPS if t.kind in ("uint", "bool") else _INT_OPS)[op]
    # Float products and sums may fuse into fmas, as nvcc's default
    # (-fmad=true) lets TileLang's kernels do (Triton's too).
    flags = f" {CONTRACT}" if t.is_float and op in ("add", "sub", "mul") else ""
    return _emit(f"{{result}} = arith.{name} {x.name}, {y.name}{flags} : {t.ir}", t)


def affine_form(x):
    """{atom: coefficient, 1: constant} of an integer operand."""
    if isinstance(x, Value):
        return dict(x.affine) if x.affine is not None else {x.name: 1}
    return {1: int(x)}


def _affine(op, a, b):
    fa, fb = affine_form(a), affine_form(b)
    if op == "mul":
        if set(fa) == {1}:
            fa, fb = fb, fa
        if set(fb) != {1}:
            return None
        return {k: c * fb[1] for k, c in fa.items()}
    sign = 1 if op == "add" else -1
    out = dict(fa)
    for k, c in fb.items():
        out[k] = out.get(k, 0) + sign * c
    return {k: c for k, c in out.items() if c or k == 1}


# The math functions tl.enable_fast_math lets the compiler approximate
# (`fastmath<afn>`: on NVIDIA, exp2 becomes one ex2.approx.ftz).
APPROXIMABLE = frozenset({"exp", "exp2", "log", "log2", "log10", "sqrt", "rsqrt",
                          "sin", "cos", "tan", "tanh", "erf"})
NO_FAST_MATH = "fastmath<none>"
FAST_MATH = "fastmath<afn>"
# Float +, -, * may contract into fmas (always, as with nvcc's -fmad=true).
CONTRACT = "fastmath<contract>"


def with_fast_math(ir: str) -> str:
    """The IR with its approximable math functions marked `afn`."""
    return ir.replace(f" {NO_FAST_MATH} :", f" {FAST_MATH} :")


def unary_math(fn: str, x, float_only=True):
    x = operand(x)
    if not isinstance(x, Value):
        pyfn = {"exp": math.exp, "exp2": lambda v: 2.0 ** v, "log": math.log,
                "log2": math.log2, "log10": math.log10, "sqrt": math.sqrt,
                "rsqrt": lambda v: 1 / math.sqrt(v), "sin": math.sin,
                "cos": math.cos, "tanh": math.tanh, "floor": math.floor,
                "ceil": math.ceil, "abs": abs, "tan": math.tan,
                "erf": math.erf, "trunc": math.trunc, "roundeven": round,
                "round": lambda v: math.copysign(math.floor(abs(v) + 0.5), v)}[fn]
        return pyfn(x)
    t = x.dtype
    if fn == "abs":
        op = "math.absf" if t.is_float else "math.absi"
        return _emit(f"{{result}} = {op} {x.name} : {t.ir}", t)
    if not t.is_float:
        x = convert(x, dt.float32)
        t = dt.float32
    # Functions that may be approximated carry fastmath<none>, which the
    # build turns into fastmath<afn> with tl.enable_fast_math (FAST_MATH).
    flags = f" {NO_FAST_MATH}" if fn in APPROXIMABLE else ""
    if t.bits < 32:
        # Math on half types goes through f32 (as TileLang's CUDA code does).
        wide = convert(x, dt.float32)
        r = _emit(f"{{result}} = math.{fn} {wide.name}{flags} : f32", dt.float32)
        return convert(r, t)
    return _emit(f"{{result}} = math.{fn} {x.name}{flags} : {t.ir}", t)


def select(cond, a, b):
    c = operand(cond)
    if not isinstance(c, Value):
        return a if c else b
    a, b = operand(a), operand(b)
    t = promote(a, b) or (dt.float32 if isinstance(a, float) or isinstance(b, float)
                          else dt.int32)
    x, y = convert(a, t), convert(b, t)
    c = convert(c, dt.bool_)
    return _emit(f"{{result}} = arith.select {c.name}, {x.name}, {y.name} : {t.ir}", t)


def negate(x):
    x = operand(x)
    if not isinstance(x, Value):
        return -x
    if x.dtype.is_float:
        return _emit(f"{{result}} = arith.negf {x.name} : {x.dtype.ir}", x.dtype)
    return binary("sub", 0, x)


def invert(x):
    x = operand(x)
    if not isinstance(x, Value):
        return ~x
    if x.dtype is dt.bool_:
        return binary("xor", x, True)
    return binary("xor", x, -1)


def _define_operators(cls, load):
    """Gives `cls` Python's arithmetic operators, reading operands through
    `load`."""

    def make(op, reflected=False):
        if reflected:
            return lambda self, other: binary(op, other, load(self))
        return lambda self, other: binary(op, load(self), other)

    for op, name in [("add", "add"), ("sub", "sub"), ("mul", "mul"),
                     ("div", "truediv"), ("floordiv", "floordiv"),
                     ("mod", "mod"), ("and", "and"), ("or", "or"),
                     ("xor", "xor"), ("shl", "lshift"), ("shr", "rshift")]:
        setattr(cls, f"__{name}__", make(op))
        setattr(cls, f"__r{name}__", make(op, True))
    for op in ("lt", "le", "gt", "ge"):
        setattr(cls, f"__{op}__", make(op))
    cls.__neg__ = lambda self: negate(load(self))
    cls.__pos__ = lambda self: load(self)
    cls.__invert__ = lambda self: invert(load(self))
    cls.__abs__ = lambda self: unary_math("abs", load(self))


_define_operators(Value, lambda v: v)
_define_operators(Deferred, lambda v: v._value())


def _define_symbolic_operators(cls):
    """Arithmetic on symbols stays symbolic until they are bound."""

    def make(op, reflected=False):
        def fn(self, other):
            a, b = (other, self) if reflected else (self, other)
            r = lazy(op, a, b)
            if r is not None:
                return r
            if op == "pow":
                x, y = operand(a), operand(b)
                if isinstance(x, Value) or isinstance(y, Value):
                    raise error("** needs compile-time operands; use T.pow")
                return x ** y
            return binary(op, a, b)
        return fn

    for op, name in [("add", "add"), ("sub", "sub"), ("mul", "mul"),
                     ("div", "truediv"), ("floordiv", "floordiv"),
                     ("mod", "mod"), ("and", "and"), ("or", "or"),
                     ("xor", "xor"), ("shl", "lshift"), ("shr", "rshift"),
                     ("pow", "pow")]:
        setattr(cls, f"__{name}__", make(op))
        setattr(cls, f"__r{name}__", make(op, True))

    def neg(self):
        r = lazy("neg", self)
        return r if r is not None else negate(self._value())

    cls.__neg__ = neg
    cls.__pos__ = lambda self: self


_define_symbolic_operators(Symbolic)


def _value_eq(self, other):
    return binary("eq", self, other)


def _value_ne(self, other):
    return binary("ne", self, other)


def _no_bool(self):
    raise error("the truth value of a run-time value is not known while "
                "tracing; use it in an `if` of a kernel body, T.if_then_else, "
                "or & | ~ instead of and/or/not")


def _no_index(self):
    raise error("a run-time value cannot be used where Python needs a "
                "compile-time integer")


for _cls in (Value, Deferred):
    _cls.__eq__ = _value_eq
    _cls.__ne__ = _value_ne
    _cls.__hash__ = object.__hash__
    _cls.__bool__ = _no_bool
Value.__index__ = _no_index


def _astype(self, d):
    return convert(self, d)


Value.astype = _astype
Deferred.astype = _astype
