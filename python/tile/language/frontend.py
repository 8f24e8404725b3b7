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
from .buffers import Buffer, BufferData, BufferRegion, ElementRef, Var
from .values import Deferred, Symbolic, convert, operand
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
    """TileLang's T.dynamic / T.symbolic: named run-time dimensions
    (``N = T.dynamic("N")``, ``M, N = T.dynamic("M, N")``), in a
    signature or in an eager body's annotations."""
    dims = tuple(DynDim(n) for n in _split_names(name, "T.dynamic"))
    return dims[0] if len(dims) == 1 else dims


dynamic = symbolic


class ConstSym(Symbolic):
    """A compile-time size bound by an annotation (``M, N = T.const("M N")``
    then ``A: T.Tensor[[M, N], ...]``) or by a keyword of ``.compile(M=...)``;
    reads as its integer. Arithmetic on it before it is bound gives a
    symbolic expression (``K // split_k``), evaluated where it is used."""

    def __init__(self, name, value=None):
        self.name = name
        self.value = value

    def resolved(self):
        return self.value is not None

    def unbound(self):
        return [] if self.value is not None else [self.name]

    def _value(self):
        if self.value is None:
            raise error(f"T.const '{self.name}' is used before an annotation binds it")
        return self.value

    def __repr__(self):
        return self.name if self.value is None else str(self.value)

    def text(self):
        return self.name


def _split_names(names, what):
    if not isinstance(names, str):
        raise error(f"{what} takes the names as one string, e.g. \"M, N\"")
    out = [n for n in re.split(r"[\s,]+", names.strip()) if n]
    if not out:
        raise error(f"{what} needs at least one name")
    return out


def const(names: str, dtype="int32"):
    """``M, N, K = T.const("M, N, K")``: compile-time sizes bound by tensor
    annotations in the body (or by keywords: ``kernel.compile(M=1024)``)."""
    from .builder import maybe_builder
    b = maybe_builder()
    given = getattr(b, "const_values", None) or {}
    syms = []
    for n in _split_names(names, "T.const"):
        v = given.get(n)
        if v is not None:
            v = operand(v)
            if isinstance(v, Value) or isinstance(v, float) or isinstance(v, bool):
                raise error(f"T.const '{n}' is given {v!r}; it needs an int")
            v = int(v)
        sym = ConstSym(n, v)
        if b is not None:
            b.__dict__.setdefault("const_syms", {})[n] = sym
        syms.append(sym)
    return syms[0] if len(syms) == 1 else tuple(syms)


class TensorAnnot:
    """A tensor parameter's type: shape entries are ints, T.dyn dims, T.const
    symbols or ``int`` (compile-time, from the argument); dtype None means
    the argument's."""

    def __init__(self, shape, dtype=None, strides=None, strided=False):
        if isinstance(shape, (int, DynDim, Symbolic, Value)) or shape is int:
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

    def __new__(cls, shape, dtype="float32", data=None, strides=None, scope=None):
        if data is not None:
            # T.Tensor(shape, dtype, A.data) in a kernel body: a view.
            return view(shape, dtype, data)
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
        # A global scratch tensor (T.alloc_global) the kernel allocates at
        # each call; not an argument of the JITKernel.
        self.workspace = False
        self.index = None

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
        buf = self.reserve_tensor(name, output)
        self.describe_tensor(buf, shape, dtype, strides)
        return buf

    def reserve_tensor(self, name, output=False, workspace=False):
        """A tensor parameter whose shape and dtype `describe_tensor` gives
        later (an eager body's annotation, or T.alloc_global)."""
        b = self.builder
        info = ParamInfo(name, "memref", None, output=output)
        info.workspace = workspace
        info.index = len(self.params)
        buf = Buffer("global", None, None, None, name)
        slot = _Slot(buf)
        buf.value = b.add_param(_hint(name), slot)
        b.params[-1] = (buf.value, slot)
        buf.param = info
        buf.slot = slot
        info.buffer = buf
        self.params.append(info)
        return buf

    def describe_tensor(self, buf, shape, dtype, strides=None):
        """Gives a reserved tensor parameter its shape (ints and DynDims),
        element type and strides."""
        dtype = dt.as_dtype(dtype)
        if dtype.code is None:
            raise error(f"{dtype.name} tensors cannot be kernel parameters (the "
                        "runtime has no such element type)")
        info = buf.param
        info.dtype = dtype
        info.sizes = []
        buf.dtype = dtype
        buf.strides = (None if strides is None else
                       [s if isinstance(s, int) else None for s in strides])
        buf._shape = (None,) * len(shape)
        dims = []
        for axis, d in enumerate(shape):
            if isinstance(d, DynDim):
                info.sizes.append((FROM_ARRAY, 0, self.group(d.name)))
                dims.append(self._dim_value(buf, axis, d.name))
            else:
                info.sizes.append((STATIC, int(d), -1))
                dims.append(int(d))
        info.strides = []
        if strides is None:
            info.strides = [(CONTIGUOUS, 0, -1)] * len(shape)
        else:
            for s in strides:
                if isinstance(s, DynDim):
                    info.strides.append((FROM_ARRAY, 0, -1))
                else:
                    info.strides.append((STATIC, int(s), -1))
        buf._shape = tuple(dims)

    def _dim_value(self, buf, axis, group_name):
        """The size of dim `axis` of a tensor parameter as an index value:
        the first tensor of a dyn group reads it (memref.dim), the others
        share it."""
        gid, first = self.groups.get(group_name, (None, None))
        if first is None:
            c = _index_const(axis)
            first = self.builder.emit_prologue(
                f"{{result}} = memref.dim {buf.value.name}, {c.name} : {{type}}",
                dt.index, "dim", origin=("dim", buf.param.index, axis))
            buf.slot.dims.append(first)
            self.groups[group_name] = (self.group(group_name), first)
        return first

    def make_dynamic(self, buf, axis, group_name):
        """Dim `axis` of a tensor parameter declared static from its
        argument becomes a run-time size (an eager body's annotation with
        T.dynamic)."""
        info = buf.param
        info.sizes[axis] = (FROM_ARRAY, 0, self.group(group_name))
        shape = list(buf._shape)
        shape[axis] = self._dim_value(buf, axis, group_name)
        buf._shape = tuple(shape)

    def scalar(self, name, dtype):
        index = len(self.params)
        if dtype.code is None:
            raise error(f"{dtype.name} scalars cannot be kernel parameters (the "
                        "runtime has no such type)")
        info = ParamInfo(name, "scalar", dtype)
        info.index = index
        v = self.builder.add_param(_hint(name), dtype.ir, dtype, origin=("scalar", index))
        self.params.append(info)
        return v

    def pointer(self, name):
        info = ParamInfo(name, "pointer", None)
        info.index = len(self.params)
        p = _Pointer(self, info, len(self.params))
        self.params.append(info)
        self.pointers.append(p)
        slot = _Slot(None)
        p.slot = slot
        p.value = self.builder.add_param(_hint(name), slot)
        return p

    def finish(self):
        for info in self.params:
            if info.kind == "memref" and info.dtype is None:
                raise TileError(f"tensor '{info.name}' is not given and no annotation "
                                f"in the body declares it ({info.name}: "
                                "T.Tensor(shape, dtype))")
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


def _allocated_shape(shape, what, prefix, positive=False):
    """(shape, alloc, dims) of a tensor the JITKernel allocates at each call
    (T.empty, T.alloc_global): each entry an int, or a run-time size (a
    tensor dim, a scalar parameter) that becomes a dynamic dim named
    `prefix` + a number; `alloc` says where each size comes from."""
    if isinstance(shape, (int, Value, Deferred)):
        shape = (shape,)
    alloc, dims = [], []
    for x in shape:
        v = operand(x)
        if isinstance(v, Value):
            if v.origin is None:
                raise error(f"{what} must be ints, tensor dims or run-time scalar "
                            "parameters")
            alloc.append(v.origin)
            dims.append(DynDim(f"{prefix}{next(_anonymous)}"))
        else:
            if positive and (isinstance(v, float) or int(v) < 1):
                raise error(f"{what} must be positive ints, got {v!r}")
            alloc.append(("static", int(v)))
            dims.append(int(v))
    return shape, alloc, dims


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
    shape, alloc, dims = _allocated_shape(shape, "T.empty's shape entries", "_out")
    name = f"out{sum(1 for p in sig.params if p.output)}"
    buf = sig.tensor(name, dims, dt.as_dtype(dtype), output=True)
    info = sig.params[-1]
    info.alloc_shape = alloc
    # The output's dynamic dims equal the sizes they came from.
    buf._shape = tuple(operand(x) if isinstance(operand(x), Value) else d
                       for x, d in zip(shape, buf.shape))
    return buf


def annotate(value, annotation, name):
    """``A: T.Tensor[[M, K], dtype]`` in an eager body: declares a tensor
    parameter not given (``.compile(M=...)``), checks a given one, binds
    T.const symbols, makes T.dynamic dims run-time sizes."""
    if isinstance(annotation, (dt.dtype, str)) and not isinstance(value, Buffer):
        return convert(value, dt.as_dtype(annotation))
    if not isinstance(annotation, TensorAnnot):
        return value
    if not isinstance(value, Buffer) or value.kind != "global":
        raise error(f"'{name}' is annotated as a tensor but is a "
                    f"{type(value).__name__}")
    buf = value
    b = current_builder()
    if buf._shape is None:
        _declare(b.signature, buf, annotation, name)
        _recheck(b)
        return buf
    if annotation.dtype is not None and annotation.dtype != buf.dtype:
        raise error(f"'{name}' has dtype {buf.dtype.name}, annotated "
                    f"{annotation.dtype.name}")
    if len(annotation.shape) != buf.ndim:
        raise error(f"'{name}' has {buf.ndim} dimensions, annotated "
                    f"{len(annotation.shape)}")
    # Symbols first (dims may be expressions of symbols bound by later dims).
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
    for axis, (want, have) in enumerate(zip(annotation.shape, buf.shape)):
        if isinstance(want, ConstSym):
            continue
        if isinstance(want, Symbolic):
            if isinstance(have, Value):
                raise error(f"dim {axis} of '{name}' is dynamic; {want!r} needs a "
                            "compile-time size")
            b.__dict__.setdefault("pending_checks", []).append(
                (want, have, name, axis, where()))
        elif isinstance(want, DynDim):
            if not isinstance(have, Value):
                if not getattr(buf, "redeclarable", False):
                    raise error(f"dim {axis} of '{name}' must be declared T.dyn in the "
                                "function's signature to be dynamic")
                if buf.used:
                    raise error(f"'{name}' is used before the annotation that makes "
                                f"dim {axis} dynamic; annotate it first")
                b.signature.make_dynamic(buf, axis, want.name)
        elif isinstance(want, int) and not isinstance(want, bool):
            if not isinstance(have, Value) and have != want:
                raise error(f"dim {axis} of '{name}' is {have}, annotated {want}")
        elif want is not int:
            v = operand(want)
            if not isinstance(v, Value) and not isinstance(have, Value) and int(v) != have:
                raise error(f"dim {axis} of '{name}' is {have}, annotated {v}")
    _recheck(b)
    return buf


def _declare(sig, buf, annotation, name):
    """A tensor parameter that was not given, declared by its annotation."""
    if annotation.dtype is None:
        raise error(f"'{name}' is not given, so its annotation must have a dtype")
    names = []
    for want in annotation.shape:
        if isinstance(want, Symbolic):
            names += [n for n in want.unbound() if n not in names]
    if names:
        raise error(f"'{name}' is not given and T.const {', '.join(names)} has no "
                    f"value: pass '{name}', or {names[0]}=... as a keyword")
    shape = []
    for axis, want in enumerate(annotation.shape):
        if isinstance(want, DynDim):
            shape.append(want)
            continue
        if want is int:
            raise error(f"dim {axis} of '{name}' is taken from the argument "
                        f"(int), but '{name}' is not given")
        v = operand(want)
        if isinstance(v, Value) or isinstance(v, float) or int(v) < 0:
            raise error(f"dim {axis} of '{name}' must be a compile-time size or "
                        f"T.dynamic, got {want!r}")
        shape.append(int(v))
    strides = None
    if annotation.strided:
        strides = [s if isinstance(s, DynDim) else int(operand(s))
                   for s in annotation.strides]
    sig.describe_tensor(buf, shape, annotation.dtype, strides)


def _recheck(b, final=False):
    """Checks the annotated dims that are expressions of symbols once the
    symbols are bound."""
    left = []
    for want, have, name, axis, loc in getattr(b, "pending_checks", ()):
        if not want.resolved():
            if final:
                raise TileError(f"dim {axis} of '{name}' is annotated {want!r}, but "
                                f"T.const {', '.join(want.unbound())} is never bound",
                                loc)
            left.append((want, have, name, axis, loc))
            continue
        if int(want._value()) != have:
            raise TileError(f"dim {axis} of '{name}' is {have}, annotated "
                            f"{want!r} = {int(want._value())}", loc)
    b.pending_checks = left


def finish_consts(b):
    """At the end of an eager trace: every annotated expression checked,
    every keyword given for a T.const used."""
    _recheck(b, final=True)
    known = getattr(b, "const_syms", {})
    for n in getattr(b, "const_values", None) or {}:
        if n not in known:
            raise TileError(f"keyword argument '{n}' is neither a parameter of "
                            f"'{b.name}' nor a T.const of its body")


def alloc_global(shape, dtype, scope="global"):
    """``T.alloc_global(shape, dtype)``: a global scratch tensor, allocated
    at each call of the kernel (an extra parameter the JITKernel fills in)."""
    b = current_builder("T.alloc_global")
    sig = getattr(b, "signature", None)
    if sig is None:  # pragma: no cover - every trace has a signature
        raise error("T.alloc_global needs a traced function")
    shape, alloc, dims = _allocated_shape(shape, "T.alloc_global's sizes", "_ws",
                                          positive=True)
    n = sum(1 for p in sig.params if p.workspace)
    buf = sig.reserve_tensor(f"workspace{n}", workspace=True)
    sig.describe_tensor(buf, dims, dtype)
    buf.param.alloc_shape = alloc
    buf._shape = tuple(operand(x) if isinstance(operand(x), Value) else d
                       for x, d in zip(shape, buf.shape))
    return buf


def view(shape, dtype, data):
    """``T.Tensor(shape, dtype, buf.data)``: the contiguous global tensor
    `buf` seen with another shape (same dtype, same number of elements)."""
    b = current_builder("T.Tensor(shape, dtype, data)")
    if isinstance(data, _Pointer):
        return match_buffer(data, shape, dtype)
    src = data.buffer if isinstance(data, BufferData) else data
    if not isinstance(src, Buffer):
        raise error(f"T.Tensor's data must be a tensor's .data, got {type(data).__name__}")
    if src.kind != "global":
        raise error(f"T.Tensor views global tensors; '{src.name}' is a {src.kind} buffer")
    if src.strides is not None:
        raise error(f"'{src.name}' has strides; T.Tensor views contiguous tensors")
    d = dt.as_dtype(dtype)
    if d != src.dtype:
        raise error(f"T.Tensor views '{src.name}' ({src.dtype.name}) as {d.name}; "
                    "reinterpreting the element type is not supported")
    if isinstance(shape, (int, Value, Deferred)):
        shape = (shape,)
    sizes = []
    for x in shape:
        v = operand(x)
        if isinstance(v, Value):
            if v.dtype.is_float:
                raise error("T.Tensor's sizes must be integers")
            v = convert(v, dt.index)
        elif isinstance(v, float) or int(v) < 0:
            raise error(f"T.Tensor's sizes must be non-negative integers, got {v!r}")
        else:
            v = int(v)
        sizes.append(v)
    if all(isinstance(x, int) for x in sizes) and all(isinstance(x, int) for x in src.shape):
        n_new, n_old = 1, 1
        for x in sizes:
            n_new *= x
        for x in src.shape:
            n_old *= x
        if n_new != n_old:
            raise error(f"T.Tensor views '{src.name}' of {n_old} elements as "
                        f"{list(sizes)} ({n_new} elements)")
    for x in sizes:
        if isinstance(x, Value) and x.region is not b.entry:
            raise error("T.Tensor's sizes must be known outside T.Kernel (ints, tensor "
                        "dims or scalar parameters)")
    # Row-major strides of the new shape.
    strides, acc = [], 1
    for x in reversed(sizes):
        strides.append(acc)
        if isinstance(acc, int) and isinstance(x, int):
            acc *= x
        else:
            def mul(result, a=acc, c=x):
                text = [v.name if isinstance(v, Value) else None for v in (a, c)]
                for i, v in enumerate((a, c)):
                    if text[i] is None:
                        text[i] = b.constant(str(v), dt.index, "index").name
                return f"{result} = arith.muli {text[0]}, {text[1]} : index"
            acc = b.emit_outside_kernel(mul, "stride", dt.index)
    strides.reverse()
    view_buf = Buffer("global", None, sizes, d, src.name)

    def mixed(x):
        return x.name if isinstance(x, Value) else str(x)

    def head(result):
        return (f"{result} = memref.reinterpret_cast {src.value.name} to offset: [0], "
                f"sizes: [{', '.join(mixed(x) for x in sizes)}], strides: "
                f"[{', '.join(mixed(x) for x in strides)}] : {src.type_text()} to "
                f"{view_buf.type_text()}")

    view_buf.value = b.emit_outside_kernel(head, "view")
    return view_buf


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
        if isinstance(v, str) and not isinstance(v, dt.dtype):
            try:
                v = eval(v, scope)  # noqa: S307 - the user's own annotation
            except Exception as e:
                raise TileError(f"cannot evaluate the annotation of '{k}': {e}") from None
        hints[k] = v
    return hints


def _function_name(func):
    name = re.sub(r"[^A-Za-z0-9_]", "_", func.__name__)
    return name if name and name != "_" else "kernel"


def trace(func, make_args, eager=False, name=None, const_values=None):
    """Runs `func` (rewritten) in a new builder. `make_args(signature)`
    gives its arguments; `const_values` binds T.const symbols by name.
    Returns (PrimFunc, result)."""
    code = func.__code__
    loc = (code.co_filename, code.co_firstlineno, 1)
    b = FunctionBuilder(name or _function_name(func), loc)
    sig = _Signature(b)
    b.signature = sig
    b.eager = eager
    b.const_values = dict(const_values or {})
    fn = rewrite(func)
    with building(b):
        args, kwargs = make_args(sig)
        result = fn(*args, **kwargs)
        if b.current is not b.entry:  # pragma: no cover - regions always close
            raise TileError("internal error: a region was left open")
        finish_consts(b)
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
