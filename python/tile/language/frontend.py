"""Functions and their parameters: T.prim_func, T.macro, tensor
annotations (T.Tensor, T.StridedTensor, T.dyn, T.const, T.ptr,
T.match_buffer, T.empty) and the traced result, PrimFunc."""

from __future__ import annotations

import functools
import inspect
import itertools
import re

from . import dtypes as dt
from ..errors import TileError
from .builder import FunctionBuilder, Value, building, current_builder, error, where
from .buffers import Buffer, BufferRegion, ElementRef, Var
from .values import Deferred, convert, operand
from .rewrite import rewrite

# ---------------------------------------------------------------------------
# Annotations
# ---------------------------------------------------------------------------

_anonymous = itertools.count()


class DynDim(Deferred):
    """A dimension known only at run time (``T.dyn["K"]``,
    ``T.symbolic("K")``); the same name in several tensors means the same
    size. In the kernel body it reads as that size."""

    def __init__(self, name=None):
        self.name = name if name is not None else f"_dyn{next(_anonymous)}"

    def _value(self):
        b = current_builder(f"the dynamic size {self.name}")
        sig = getattr(b, "signature", None)
        entry = sig.groups.get(self.name) if sig is not None else None
        if entry is None or entry[1] is None:
            raise error(f"the dynamic size '{self.name}' is no parameter's dimension")
        return entry[1]

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"{self.name}$dyn"


class _DynFactory:
    """``T.dyn`` (an anonymous run-time dim) and ``T.dyn["K"]`` (a named
    one)."""

    def __getitem__(self, name):
        return DynDim(str(name))

    def __call__(self, name=None):
        return DynDim(name)

    def __repr__(self):
        return "T.dyn"


dyn = _DynFactory()


def symbolic(name, dtype="int32"):
    """TileLang's T.symbolic / T.dynamic: a named run-time dimension."""
    return DynDim(name)


dynamic = symbolic


class ConstSym(Deferred):
    """A compile-time size bound by an annotation (``M, N = T.const("M N")``
    then ``A: T.Tensor[[M, N], ...]``); reads as its integer."""

    def __init__(self, name):
        self.name = name
        self.value = None

    def _value(self):
        if self.value is None:
            raise error(f"T.const '{self.name}' is used before an annotation binds it")
        return self.value

    def __index__(self):
        return self._value()

    __int__ = __index__

    def __bool__(self):
        return bool(self._value())

    def __eq__(self, other):
        return self._value() == operand(other)

    def __ne__(self, other):
        return self._value() != operand(other)

    def __hash__(self):
        return hash(self._value())

    def __repr__(self):
        return f"{self.name}$" if self.value is None else str(self.value)


def const(names: str):
    """``M, N, K = T.const("M N K")``: compile-time sizes bound by tensor
    annotations."""
    syms = tuple(ConstSym(n) for n in re.split(r"[\s,]+", names.strip()) if n)
    return syms[0] if len(syms) == 1 else syms


class TensorAnnot:
    """A tensor parameter's type: shape entries are ints, T.dyn dims, T.const
    symbols or ``int`` (compile-time, from the argument); dtype None means
    the argument's."""

    def __init__(self, shape, dtype=None, strides=None, strided=False):
        if isinstance(shape, (int, DynDim, ConstSym)) or shape is int:
            shape = (shape,)
        self.shape = list(shape)
        if dtype is None or dtype is inspect.Parameter.empty:
            self.dtype = None
        else:
            import typing
            self.dtype = None if dtype is typing.Any else dt.as_dtype(dtype)
        self.strides = None if strides is None else list(strides)
        self.strided = strided

    def __repr__(self):
        return f"TensorAnnot(shape={self.shape}, strides={self.strides}, dtype={self.dtype!r})"

    # Placeholders (par_compile configs) answer like arrays.
    @property
    def ndim(self):
        return len(self.shape)


class _TensorType(type):
    def __getitem__(cls, params):
        if not isinstance(params, tuple) or len(params) != 2:
            raise TileError("T.Tensor[shape, dtype] takes a shape and a dtype")
        return TensorAnnot(params[0], params[1])


class Tensor(metaclass=_TensorType):
    """``T.Tensor((M, K), dtype)`` (a parameter type, or a placeholder in
    par_compile configs) and ``T.Tensor[[int, int], T.float16]`` (an eager
    annotation)."""

    def __new__(cls, shape, dtype="float32", strides=None):
        return TensorAnnot(shape, dtype, strides, strided=strides is not None)


Buffer_ = Tensor


class _StridedType(type):
    def __getitem__(cls, params):
        if not isinstance(params, tuple) or len(params) != 3:
            raise TileError("T.StridedTensor[shape, strides, dtype] takes three entries")
        return TensorAnnot(params[0], params[2], params[1], strided=True)


class StridedTensor(metaclass=_StridedType):
    """``T.StridedTensor[shape, strides, dtype]``: a tensor with any strides
    (each an int or T.dyn)."""

    def __new__(cls, shape, strides, dtype="float32"):
        return TensorAnnot(shape, dtype, strides, strided=True)


class _PtrType:
    def __repr__(self):
        return "T.ptr"


ptr = _PtrType()
handle = ptr


class _RefType:
    def __repr__(self):
        return "T.Ref"


Ref = _RefType()

# ---------------------------------------------------------------------------
# Parameters of the traced function
# ---------------------------------------------------------------------------


class ParamInfo:
    """What the extension checks for one parameter at each call."""

    def __init__(self, name, kind, dtype, sizes=(), strides=(), output=False):
        self.name = name
        self.kind = kind  # "memref", "pointer" or "scalar"
        self.dtype = dtype
        self.sizes = list(sizes)  # (kind, value, group) per dim
        self.strides = list(strides)
        self.output = output
        # Output allocation: ("static", n) | ("dim", param, axis) |
        # ("scalar", param) per dim.
        self.alloc_shape = None
        self.buffer = None

    def spec(self):
        if self.kind == "scalar":
            return (self.name, "scalar", self.dtype.code)
        return (self.name, self.kind, self.dtype.code, self.sizes, self.strides)

    def __repr__(self):
        return f"ParamInfo({self.name}, {self.kind}, {self.dtype.name})"


STATIC, FROM_ARRAY, FROM_SCALAR, CONTIGUOUS = 0, 1, 2, 3


class _Signature:
    """Parameters being built for one trace."""

    def __init__(self, builder):
        self.builder = builder
        self.params = []  # ParamInfo in IR order
        self.groups = {}  # dyn name -> (group id, dim Value)
        self.pointers = []

    def group(self, name):
        if name not in self.groups:
            self.groups[name] = (len(self.groups), None)
        return self.groups[name][0]

    def tensor(self, name, shape, dtype, strides=None, output=False, dyn_names=None):
        """A global tensor parameter. `shape` entries: int (static) or a
        DynDim; `strides`: None (row-major) or int / DynDim entries."""
        b = self.builder
        index = len(self.params)
        info = ParamInfo(name, "memref", dtype, output=output)
        buf = Buffer("global", None, [None] * len(shape), dtype, name,
                     strides=None if strides is None else
                     [s if isinstance(s, int) else None for s in strides])
        slot = _Slot(buf)
        buf.value = b.add_param(_hint(name), slot)
        b.params[-1] = (buf.value, slot)
        dims = []
        for axis, d in enumerate(shape):
            if isinstance(d, DynDim):
                gid, first = self.groups.get(d.name, (None, None))
                if gid is None:
                    gid = self.group(d.name)
                info.sizes.append((FROM_ARRAY, 0, gid))
                if first is None:
                    c = _index_const(axis)
                    first = b.emit_prologue(
                        f"{{result}} = memref.dim {buf.value.name}, {c.name} : {{type}}",
                        dt.index, "dim", origin=("dim", index, axis))
                    slot.dims.append(first)
                    self.groups[d.name] = (gid, first)
                dims.append(first)
            else:
                info.sizes.append((STATIC, int(d), -1))
                dims.append(int(d))
        if strides is None:
            info.strides = [(CONTIGUOUS, 0, -1)] * len(shape)
        else:
            for s in strides:
                if isinstance(s, DynDim):
                    info.strides.append((FROM_ARRAY, 0, -1))
                else:
                    info.strides.append((STATIC, int(s), -1))
        buf._shape = tuple(dims)
        info.buffer = buf
        self.params.append(info)
        return buf

    def scalar(self, name, dtype):
        index = len(self.params)
        info = ParamInfo(name, "scalar", dtype)
        v = self.builder.add_param(_hint(name), dtype.ir, dtype, origin=("scalar", index))
        self.params.append(info)
        return v

    def pointer(self, name):
        info = ParamInfo(name, "pointer", None)
        p = _Pointer(self, info, len(self.params))
        self.params.append(info)
        self.pointers.append(p)
        slot = _Slot(None)
        p.slot = slot
        p.value = self.builder.add_param(_hint(name), slot)
        return p

    def finish(self):
        for p in self.pointers:
            if p.info.dtype is None:
                raise TileError(f"T.ptr parameter '{p.info.name}' needs a "
                                f"T.match_buffer in the body")


class _Slot:
    """A parameter's type text, known when the trace ends."""

    def __init__(self, buffer):
        self.buffer = buffer
        self.dims = []

    def __str__(self):
        return self.buffer.type_text()


def _index_const(axis):
    from .values import constant
    return constant(axis, dt.index)


def _hint(name):
    name = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return name if name and not name[0].isdigit() else "a" + name


class _Pointer:
    """A T.ptr parameter, until T.match_buffer gives it a shape."""

    def __init__(self, sig, info, index):
        self.sig = sig
        self.info = info
        self.index = index
        self.buffer = None


def match_buffer(pointer, shape, dtype="float32", strides=None):
    """``A = T.match_buffer(A, (M, K), T.float16)``: the tensor behind a
    T.ptr parameter; sizes and strides are ints or run-time scalar
    parameters."""
    if isinstance(pointer, Buffer):
        return pointer
    if not isinstance(pointer, _Pointer):
        raise error("T.match_buffer takes a T.ptr parameter")
    if pointer.buffer is not None:
        raise error(f"T.match_buffer is applied to '{pointer.info.name}' twice")
    if isinstance(shape, (int, Value, Deferred)):
        shape = (shape,)
    d = dt.as_dtype(dtype)
    info = pointer.info
    info.dtype = d
    b = current_builder()

    def extent(x, what):
        v = operand(x)
        if isinstance(v, Value):
            if v.origin is None or v.origin[0] != "scalar":
                raise error(f"T.match_buffer {what} must be ints or run-time scalar "
                            "parameters")
            return (FROM_SCALAR, v.origin[1], -1), None
        return (STATIC, int(v), -1), int(v)

    sizes, dims = [], []
    for x in shape:
        e, static = extent(x, "sizes")
        sizes.append(e)
        dims.append(static)
    if strides is None:
        info.strides = [(CONTIGUOUS, 0, -1)] * len(dims)
        layout = None
    else:
        if len(strides) != len(dims):
            raise error("T.match_buffer's strides and shape differ in length")
        info.strides, layout = [], []
        for x in strides:
            e, static = extent(x, "strides")
            info.strides.append(e)
            layout.append(static)
    info.sizes = sizes
    buf = Buffer("global", pointer.value, [None] * len(dims), d, info.name,
                 strides=layout)
    pointer.slot.buffer = buf
    shape_values = []
    for axis, (s, x) in enumerate(zip(dims, shape)):
        if s is None:
            c = _index_const(axis)
            v = b.emit_prologue(
                f"{{result}} = memref.dim {pointer.value.name}, {c.name} : {buf.type_text() if False else '{type}'}",
                dt.index, "dim")
            pointer.slot.dims.append(v)
            shape_values.append(v)
        else:
            shape_values.append(s)
    buf._shape = tuple(shape_values)
    pointer.buffer = buf
    info.buffer = buf
    return buf


def empty(shape, dtype="float32"):
    """``C = T.empty((M, N), dtype)`` in an eager kernel: an output tensor,
    allocated at each call and returned."""
    b = current_builder("T.empty")
    sig = getattr(b, "signature", None)
    if sig is None or not getattr(b, "eager", False):
        raise error("T.empty creates outputs of eager @tile.jit kernels; in a "
                    "T.prim_func, declare the output as a parameter (and use out_idx)")
    if b.innermost("kernel") is not None:
        raise error("T.empty must be called outside T.Kernel")
    if isinstance(shape, (int, Value, Deferred)):
        shape = (shape,)
    alloc, dims = [], []
    for x in shape:
        v = operand(x)
        if isinstance(v, Value):
            if v.origin is None:
                raise error("T.empty's shape entries must be ints, tensor dims or "
                            "run-time scalar parameters")
            alloc.append(v.origin)
            dims.append(DynDim(f"_out{next(_anonymous)}"))
        else:
            alloc.append(("static", int(v)))
            dims.append(int(v))
    name = f"out{sum(1 for p in sig.params if p.output)}"
    buf = sig.tensor(name, dims, dt.as_dtype(dtype), output=True)
    info = sig.params[-1]
    info.alloc_shape = alloc
    # The output's dynamic dims equal the sizes they came from.
    buf._shape = tuple(operand(x) if isinstance(operand(x), Value) else d
                       for x, d in zip(shape, buf.shape))
    return buf


def annotate(value, annotation, name):
    """``A: T.Tensor[[M, K], dtype]`` in an eager body: checks the tensor,
    binds T.const symbols, marks T.dyn dims."""
    if isinstance(annotation, (dt.dtype, str)) and not isinstance(value, Buffer):
        return convert(value, dt.as_dtype(annotation))
    if not isinstance(annotation, TensorAnnot):
        return value
    if not isinstance(value, Buffer) or value.kind != "global":
        raise error(f"'{name}' is annotated as a tensor but is a "
                    f"{type(value).__name__}")
    buf = value
    if annotation.dtype is not None and annotation.dtype != buf.dtype:
        raise error(f"'{name}' has dtype {buf.dtype.name}, annotated "
                    f"{annotation.dtype.name}")
    if len(annotation.shape) != buf.ndim:
        raise error(f"'{name}' has {buf.ndim} dimensions, annotated "
                    f"{len(annotation.shape)}")
    for axis, (want, have) in enumerate(zip(annotation.shape, buf.shape)):
        if isinstance(want, ConstSym):
            if isinstance(have, Value):
                raise error(f"dim {axis} of '{name}' is dynamic; T.const '{want.name}' "
                            "needs a compile-time size")
            if want.value is None:
                want.value = have
            elif want.value != have:
                raise error(f"dim {axis} of '{name}' is {have}, but '{want.name}' "
                            f"is {want.value}")
        elif isinstance(want, int) and not isinstance(want, bool):
            if not isinstance(have, Value) and have != want:
                raise error(f"dim {axis} of '{name}' is {have}, annotated {want}")
        elif isinstance(want, DynDim):
            if not isinstance(have, Value):
                raise error(f"dim {axis} of '{name}' must be declared T.dyn in the "
                            "function's signature to be dynamic")
    return buf


# ---------------------------------------------------------------------------
# The traced function
# ---------------------------------------------------------------------------


class PrimFunc:
    """A traced kernel function: its tile IR (``.ir``, ``str()``) and the
    parameters the compiled kernel checks."""

    def __init__(self, name, ir, params, where_, source_func=None):
        self.name = name
        self.ir = ir
        self.params = params
        self.where = where_
        self.func = source_func

    @property
    def outputs(self):
        return [i for i, p in enumerate(self.params) if p.output]

    def __str__(self):
        return self.ir

    def with_ir(self, ir):
        """The same function compiled from `ir` (its parameters unchanged)."""
        return PrimFunc(self.name, ir, self.params, self.where, self.func)

    def script(self):
        return self.ir

    def __repr__(self):
        return f"<tile PrimFunc @{self.name} ({len(self.params)} params)>"


def _eval_annotations(func):
    hints = {}
    anns = getattr(func, "__annotations__", {})
    scope = dict(func.__globals__)
    if func.__closure__:
        for n, c in zip(func.__code__.co_freevars, func.__closure__):
            try:
                scope[n] = c.cell_contents
            except ValueError:
                pass
    for k, v in anns.items():
        if isinstance(v, str):
            try:
                v = eval(v, scope)  # noqa: S307 - the user's own annotation
            except Exception as e:
                raise TileError(f"cannot evaluate the annotation of '{k}': {e}") from None
        hints[k] = v
    return hints


def _function_name(func):
    name = re.sub(r"[^A-Za-z0-9_]", "_", func.__name__)
    return name if name and name != "_" else "kernel"


def trace(func, make_args, eager=False, name=None):
    """Runs `func` (rewritten) in a new builder. `make_args(signature)`
    gives its arguments. Returns (PrimFunc, result)."""
    code = func.__code__
    loc = (code.co_filename, code.co_firstlineno, 1)
    b = FunctionBuilder(name or _function_name(func), loc)
    sig = _Signature(b)
    b.signature = sig
    b.eager = eager
    fn = rewrite(func)
    with building(b):
        args, kwargs = make_args(sig)
        result = fn(*args, **kwargs)
        if b.current is not b.entry:  # pragma: no cover - regions always close
            raise TileError("internal error: a region was left open")
        sig.finish()
        for v, slot in b.params:
            if isinstance(slot, _Slot):
                _fix_dim_types(b, slot)
        ir = "module {\n" + b.print() + "\n}\n"
    if b.kernels == 0:
        raise TileError(f"{loc[0]}:{loc[1]}: error: '{func.__name__}' launches no "
                        "T.Kernel", None)
    return PrimFunc(b.name, ir, sig.params, loc, func), result


def _fix_dim_types(builder, slot):
    for op in builder.prologue:
        for v in slot.dims:
            if isinstance(op.head, str) and op.head.startswith(v.name + " ="):
                op.head = op.head.replace("{type}", str(slot))


def prim_func(func=None, *, private=False, check_well_formed=True):
    """T.prim_func: traces a kernel function whose parameters are annotated
    (``A: T.Tensor((M, K), T.float16)``, ``n: T.int32``, ``p: T.ptr``)."""
    if func is None:
        return functools.partial(prim_func, private=private)
    if isinstance(func, PrimFunc):
        return func
    hints = _eval_annotations(func)
    params = list(inspect.signature(func).parameters.values())

    def make_args(sig):
        args = []
        for p in params:
            ann = hints.get(p.name, inspect.Parameter.empty)
            args.append(lazy_param(sig, p.name, ann, func))
        return args, {}

    pf, result = trace(func, make_args)
    return pf


def lazy_param(sig, name, ann, func):
    if isinstance(ann, TensorAnnot):
        shape = []
        for d in ann.shape:
            if d is int or isinstance(d, ConstSym):
                raise TileError(f"{_where(func)}: error: parameter '{name}' of a "
                                "T.prim_func needs a concrete shape (ints or T.dyn)")
            if isinstance(d, DynDim):
                shape.append(d)
            else:
                try:
                    shape.append(int(operand(d)))
                except (TypeError, TileError):
                    raise TileError(f"{_where(func)}: error: dim {d!r} of '{name}' is "
                                    "not an int or T.dyn") from None
        if ann.dtype is None:
            raise TileError(f"{_where(func)}: error: parameter '{name}' needs a dtype")
        strides = None
        if ann.strided:
            strides = [s if isinstance(s, DynDim) else int(s) for s in ann.strides]
        return sig.tensor(name, shape, ann.dtype, strides)
    if ann is ptr:
        return sig.pointer(name)
    if isinstance(ann, (dt.dtype, str)):
        return sig.scalar(name, dt.as_dtype(ann))
    if ann is int:
        return sig.scalar(name, dt.int32)
    if ann is float:
        return sig.scalar(name, dt.float32)
    raise TileError(f"{_where(func)}: error: parameter '{name}' of a T.prim_func needs "
                    "an annotation: T.Tensor(shape, dtype), a dtype (T.int32) or T.ptr")


def _where(func):
    code = func.__code__
    return f"{code.co_filename}:{code.co_firstlineno}"


# ---------------------------------------------------------------------------
# Macros
# ---------------------------------------------------------------------------


class Macro:
    """T.macro: a function inlined where it is called in a kernel. Parameters
    annotated T.Ref receive places (``x[i]``, variables) and assigning to
    them writes through; return any number of values."""

    def __init__(self, func):
        self.func = func
        functools.update_wrapper(self, func)
        self._refs = None

    def _ref_params(self):
        if self._refs is None:
            hints = _eval_annotations(self.func)
            self._refs = {n for n, a in hints.items() if a is Ref}
            self._names = list(inspect.signature(self.func).parameters)
        return self._refs

    def __call__(self, *args, **kwargs):
        from .builder import maybe_builder
        if maybe_builder() is None:
            return self.func(*args, **kwargs)
        refs = self._ref_params()
        names = self._names
        args = list(args)
        for i, a in enumerate(args):
            pname = names[i] if i < len(names) else None
            args[i] = self._bind(pname, a, refs)
        for k in list(kwargs):
            kwargs[k] = self._bind(k, kwargs[k], refs)
        return rewrite(self.func)(*args, **kwargs)

    @staticmethod
    def _bind(pname, a, refs):
        if pname in refs:
            if not isinstance(a, (ElementRef, Var)):
                raise error(f"argument '{pname}' is a T.Ref: pass an element "
                            "(buf[i]) or a variable (T.alloc_var)")
            return a
        if isinstance(a, (ElementRef, Var)):
            return a.load()
        return a

    def __repr__(self):
        return f"<T.macro {self.func.__name__}>"


def macro(func=None, hygienic=True):
    if func is None:
        return functools.partial(macro, hygienic=hygienic)
    return Macro(func)


def _unused():
    return where, BufferRegion
