"""Buffers (global tensors, shared memory, fragments, local variables),
element references and regions (slices)."""

from __future__ import annotations

from . import dtypes as dt
from .builder import Value, current_builder, error
from .values import Deferred, affine_form, convert, operand, static_int


def _dims_text(shape):
    return "x".join("?" if isinstance(d, Value) or d is None else str(d)
                    for d in shape)


class Buffer:
    """A tensor a kernel reads or writes. `kind` is "global", "shared",
    "fragment" or "local"."""

    def __init__(self, kind, value, shape, dtype, name=None, strides=None,
                 op=None):
        self.kind = kind
        self.value = value
        # None: a tensor parameter of an eager kernel whose annotation in
        # the body has not declared it yet.
        self._shape = None if shape is None else tuple(shape)
        self.dtype = None if dtype is None else dt.as_dtype(dtype)
        self.name = name
        # The name the kernel's source first assigns it to (T.print's name
        # of an allocated buffer).
        self.assigned_name = None
        # Global buffers: None (row-major) or a tuple of int | None (dynamic).
        self.strides = strides
        self.op = op  # the allocating op (layouts are written on it)
        self.layout = None
        # A reducer's op ("sum", "max", "min"; T.alloc_reducer), else None.
        self.reducer = None
        # Set once an op's text names the type: a later annotation can no
        # longer change the parameter's shape.
        self.used = False

    def _declared(self):
        if self._shape is None:
            raise error(f"tensor '{self.name}' is used before the annotation that "
                        f"declares it ({self.name}: T.Tensor(shape, dtype))")

    @property
    def shape(self):
        self._declared()
        return self._shape

    @property
    def ndim(self):
        self._declared()
        return len(self._shape)

    @property
    def data(self):
        """The buffer's storage, for ``T.Tensor(shape, dtype, buf.data)``
        (a view with another shape)."""
        return BufferData(self)

    def type_text(self):
        self._declared()
        self.used = True
        dims = _dims_text(self._shape)
        elt = self.dtype.ir
        if self.kind == "fragment":
            return f"!tile.fragment<{dims}x{elt}>"
        if self.kind == "shared":
            return f"memref<{dims}x{elt}, #gpu.address_space<workgroup>>"
        if self.strides is not None:
            strides = ", ".join("?" if s is None else str(s) for s in self.strides)
            offset = getattr(self, "offset", None)
            if offset == 0:
                return f"memref<{dims}x{elt}, strided<[{strides}]>>"
            offset = "?" if offset is None else offset
            return f"memref<{dims}x{elt}, strided<[{strides}], offset: {offset}>>"
        return f"memref<{dims}x{elt}>"

    def __repr__(self):
        if self._shape is None:
            return f"<{self.kind} buffer {self.name or ''} (not declared yet)>"
        return f"<{self.kind} buffer {self.name or ''} {self.dtype.name}{list(self._shape)}>"

    def __getitem__(self, key):
        self._declared()
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            fill = self.ndim - (len(key) - 1)
            key = key[:i] + (slice(None),) * fill + key[i + 1:]
        if len(key) != self.ndim:
            raise error(f"{self._label()} has {self.ndim} dimensions, indexed with "
                        f"{len(key)}")
        if any(isinstance(k, slice) for k in key):
            return BufferRegion(self, key)
        return ElementRef(self, key)

    def __setitem__(self, key, value):
        target = self[key]
        if isinstance(target, BufferRegion):
            raise error(f"assigning to a slice of {self._label()}; use T.copy or "
                        "T.fill on regions, or a T.Parallel loop")
        target.store(value)

    def _label(self):
        return f"{self.kind} buffer '{self.name}'" if self.name else f"{self.kind} buffer"

    def _check_visible(self):
        current_builder().check_visible(self.value, "buffer")


class BufferData:
    """``buf.data``: what ``T.Tensor(shape, dtype, data)`` views."""

    def __init__(self, buffer):
        self.buffer = buffer

    def __repr__(self):
        return f"<data of {self.buffer!r}>"


def _index(i, what):
    i = operand(i)
    if isinstance(i, float):
        raise error(f"{what} index {i} is not an integer")
    if isinstance(i, Value):
        if i.dtype.is_float:
            raise error(f"{what} index is a {i.dtype.name} value, not an integer")
        return convert(i, dt.index)
    return int(i)


def index_operands(indices, what="buffer"):
    """Index values as SSA names (constants for Python ints)."""
    from .values import constant
    names = []
    for i in indices:
        v = _index(i, what)
        if not isinstance(v, Value):
            v = constant(v, dt.index)
        names.append(v.name)
    return names


class ElementRef(Deferred):
    """`buffer[i, j]`: reads as the element's value where a value is needed,
    names the element where a place is (T.copy's origin, a T.Ref argument,
    an assignment target)."""

    __slots__ = ("buffer", "indices")

    def __init__(self, buffer, indices):
        self.buffer = buffer
        self.indices = tuple(indices)

    @staticmethod
    def _in_parallel():
        scope = current_builder().innermost("parallel", "kernel")
        return scope is not None and scope.kind == "parallel"

    def _access(self):
        b = current_builder()
        buf = self.buffer
        buf._check_visible()
        in_parallel = self._in_parallel()
        if buf.kind == "fragment" and not in_parallel:
            raise error(f"elements of fragment '{buf.name or ''}' are read and written "
                        "inside T.Parallel bodies, where each thread owns its elements "
                        "(outside one, a one-element fragment may be written)")
        if buf.kind != "local" and b.innermost("kernel") is None:
            raise error("buffer elements are accessed inside a T.Kernel")
        idx = ", ".join(index_operands(self.indices))
        return in_parallel and buf.kind != "local", idx

    def _value(self):
        return self.load()

    def load(self):
        tile_access, idx = self._access()
        buf = self.buffer
        op = "tile.load" if tile_access else "memref.load"
        v, _ = current_builder().emit(
            f"{{result}} = {op} {buf.value.name}[{idx}] : {buf.type_text()}", buf.dtype)
        return v

    def store(self, value):
        buf = self.buffer
        v = convert(value, buf.dtype)
        if buf.kind == "fragment" and not self._in_parallel() and \
                all(n == 1 for n in buf.shape):
            # A one-element fragment written by the whole block (TileLang's
            # broadcast scalar, `x[0] = v`): every thread that holds it
            # writes it, which is a fill.
            current_builder().emit(f"tile.fill {buf.value.name}, {v.name} : "
                                   f"{buf.type_text()}", result=False)
            return
        tile_access, idx = self._access()
        op = "tile.store" if tile_access else "memref.store"
        current_builder().emit(f"{op} {v.name}, {buf.value.name}[{idx}] : {buf.type_text()}",
                               result=False)

    def __repr__(self):
        return f"<element of {self.buffer!r}>"


class BufferRegion:
    """`buffer[i0:i1, j]`: a region of a buffer (T.copy's source or
    destination)."""

    def __init__(self, buffer, key):
        self.buffer = buffer
        self.starts = []
        self.extents = []  # None for an index (a dim of extent 1 that is dropped)
        for d, k in enumerate(key):
            if isinstance(k, slice):
                if k.step not in (None, 1):
                    raise error("slices with a step are not supported in regions")
                start = 0 if k.start is None else k.start
                stop = buffer.shape[d] if k.stop is None else k.stop
                self.starts.append(start)
                extent = _static_extent(start, stop)
                self.extents.append(extent)
            else:
                self.starts.append(k)
                self.extents.append(None)

    @property
    def shape(self):
        return tuple(e for e in self.extents if e is not None)


def _static_extent(start, stop):
    """stop - start when it is known at compile time (also for
    `bx * 64 : (bx + 1) * 64`), else "?"."""
    s, e = operand(start), operand(stop)
    if not isinstance(s, Value) and not isinstance(e, Value):
        return int(e) - int(s)
    # `bx * 64 : (bx + 1) * 64` and `x : x + k` have a static extent: the
    # affine forms of the bounds differ by a constant.
    if (isinstance(s, Value) and s.dtype.is_float) or (isinstance(e, Value) and e.dtype.is_float):
        raise error("slice bounds must be integers")
    fs, fe = affine_form(s), affine_form(e)
    diff = {k: fe.get(k, 0) - fs.get(k, 0) for k in set(fs) | set(fe)}
    if all(c == 0 for k, c in diff.items() if k != 1):
        return diff.get(1, 0)
    return "?"


class Var(Deferred):
    """T.alloc_var: a per-thread scalar variable. Reads as its value;
    assigning to its name stores into it."""

    def __init__(self, buffer):
        self.buffer = buffer

    @property
    def dtype(self):
        return self.buffer.dtype

    def _value(self):
        return self.load()

    def load(self):
        return ElementRef(self.buffer, (0,)).load()

    def store(self, value):
        ElementRef(self.buffer, (0,)).store(value)

    def __iadd__(self, other):
        self.store(self + other)
        return self

    def __isub__(self, other):
        self.store(self - other)
        return self

    def __imul__(self, other):
        self.store(self * other)
        return self

    def __repr__(self):
        return f"<var {self.buffer.name or ''} {self.dtype.name}>"


def as_buffer(x, what):
    if isinstance(x, Buffer):
        x._check_visible()
        return x
    raise error(f"{what} must be a buffer, got {type(x).__name__}")
