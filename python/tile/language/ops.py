"""TileLang's kernel operations (T.Kernel, T.copy, T.gemm, T.Parallel, ...)
as tile-dialect operations."""

from __future__ import annotations

import enum

from . import dtypes as dt
from .builder import Value, current_builder, error, where
from .buffers import (Buffer, BufferRegion, ElementRef, Var, as_buffer,
                      index_operands)
from .values import (binary, constant, convert, operand, select, static_int,
                     unary_math)

# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


def _block_level(what):
    """Checks that a block-level operation is in a kernel and not in a
    T.Parallel body; returns the builder."""
    b = current_builder(what)
    r = b.innermost("parallel", "kernel")
    if r is None:
        raise error(f"{what} must be inside a T.Kernel")
    if r.kind == "parallel":
        raise error(f"{what} cannot be used inside a T.Parallel body (it is an "
                    "operation of the whole block)")
    return b


class Kernel:
    """``with T.Kernel(gx, gy, threads=128) as (bx, by):`` launches a grid of
    thread blocks; the body runs once per block."""

    def __init__(self, *grid, threads=128, is_cpu=False, prelude=None,
                 persistent=False):
        if len(grid) == 1 and isinstance(grid[0], (list, tuple)):
            grid = tuple(grid[0])
        if not 1 <= len(grid) <= 3:
            raise error(f"T.Kernel takes 1 to 3 grid sizes, got {len(grid)}")
        if isinstance(threads, (list, tuple)):
            n = 1
            for t in threads:
                n *= static_int(t, "the thread count")
            threads = n
        self.grid = grid
        self.threads = static_int(threads, "T.Kernel's threads")
        if not 1 <= self.threads <= 1024:
            raise error(f"T.Kernel's threads must be 1 to 1024, got {self.threads}")
        self.raster = None
        # tile's addition: min(blocks, multiprocessors) blocks walk the
        # grid's blocks (the kernel is marked tile.persistent).
        self.persistent = bool(persistent)

    def __enter__(self):
        b = current_builder("T.Kernel")
        if b.innermost("kernel") is not None:
            raise error("T.Kernel cannot be nested in another T.Kernel")
        sizes = []
        for g in self.grid:
            g = operand(g)
            if isinstance(g, Value):
                if g.dtype.is_float:
                    raise error("grid sizes must be integers")
                sizes.append(convert(g, dt.index).name)
            else:
                g = int(g)
                if g < 1:
                    raise error(f"grid sizes must be positive, got {g}")
                sizes.append(str(g))
        names = ["bx", "by", "bz"][: len(sizes)]
        kernel = self

        def head(op):
            ids = ", ".join(v.name for v in op.regions[0].args)
            raster = f" raster({kernel.raster})" if kernel.raster else ""
            attrs = (" attributes {tile.persistent}" if kernel.persistent
                     else "")
            return (f"tile.kernel grid({ids}) in ({', '.join(sizes)}) "
                    f"threads({kernel.threads}){raster}{attrs}")

        _, self.op = b.emit(head, result=False)
        self.region = b.open_region("kernel", self.op, names, dt.index)
        self.region.owner = self
        b.kernels += 1
        ids = self.region.args
        return ids[0] if len(ids) == 1 else tuple(ids)

    def __exit__(self, exc_type, *rest):
        current_builder().leave_region(self.region, exc_type is not None)
        return False


def _kernel():
    b = current_builder()
    r = b.innermost("kernel")
    if r is None:
        raise error("this must be used inside a T.Kernel")
    return r.owner


def use_swizzle(panel_size=8, order="row", enable=True):
    """T.use_swizzle: rasterize block ids in panels (L2 reuse)."""
    k = _kernel()
    if not enable:
        return
    panel = static_int(panel_size, "the panel size")
    if order not in ("row", "column", "col"):
        raise error(f"order must be 'row' or 'column', got {order!r}")
    order = "column" if order in ("column", "col") else "row"
    k.raster = f"#tile.raster<{panel}>" if order == "row" else f"#tile.raster<{panel}, column>"


# ---------------------------------------------------------------------------
# Allocation
# ---------------------------------------------------------------------------


def _static_shape(shape, what):
    if isinstance(shape, (int,)) or not hasattr(shape, "__iter__"):
        shape = (shape,)
    dims = tuple(static_int(d, f"the shape of {what}") for d in shape)
    for d in dims:
        if d < 1:
            raise error(f"{what} dims must be positive, got {list(dims)}")
    return dims


def _alloc(kind, shape, dtype, what, scope=None):
    b = _block_level(what)
    dims = _static_shape(shape, what)
    buf = Buffer(kind, None, dims, dt.as_dtype(dtype))
    opname = "tile.alloc_shared" if kind == "shared" else "tile.fragment"

    def head(op):
        layout = f" layout({buf.layout})" if buf.layout else ""
        return f"{buf.value.name} = {opname}{layout} : {buf.type_text()}"

    hint = "smem" if kind == "shared" else "frag"
    buf.value = Value(b.fresh(hint), None, b.current)
    _, buf.op = b.emit(head, result=False)
    return buf


def alloc_shared(shape, dtype, scope="shared.dyn"):
    """T.alloc_shared: a buffer in the block's shared memory."""
    return _alloc("shared", shape, dtype, "T.alloc_shared")


def alloc_fragment(shape, dtype, scope="local.fragment"):
    """T.alloc_fragment: a register tile spread over the block's threads."""
    return _alloc("fragment", shape, dtype, "T.alloc_fragment")


def alloc_local(shape, dtype):
    """T.alloc_local: a per-thread array."""
    b = current_builder("T.alloc_local")
    if b.innermost("kernel") is None:
        raise error("T.alloc_local must be inside a T.Kernel")
    dims = _static_shape(shape, "T.alloc_local")
    d = dt.as_dtype(dtype)
    buf = Buffer("local", None, dims, d)
    buf.value, _ = b.emit(f"{{result}} = memref.alloca() : {buf.type_text()}", None, "local")
    return buf


def alloc_var(dtype, init=None, scope="local.var"):
    """T.alloc_var(dtype, init): a per-thread scalar variable."""
    if isinstance(dtype, (int, float)) and not isinstance(init, (dt.dtype, str)) and init is None:
        raise error("T.alloc_var takes the dtype first: T.alloc_var(T.int32, 0)")
    if isinstance(init, (dt.dtype, str)) and not isinstance(dtype, (dt.dtype, str)):
        dtype, init = init, dtype
    v = Var(alloc_local((1,), dtype))
    if init is not None:
        v.store(init)
    return v


# ---------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------


class Layout:
    """A layout attribute in the dialect's syntax, e.g.
    ``T.Layout("#tile.swizzle<128>")`` (see docs/dialect.md)."""

    def __init__(self, text: str):
        self.text = text.strip()

    def __repr__(self):
        return f"T.Layout({self.text!r})"


def make_swizzled_layout(buffer, mode=None):
    """The widest XOR swizzle (32/64/128 bytes) the rows of a shared buffer
    allow (TileLang's make_swizzled_layout)."""
    buf = as_buffer(buffer, "make_swizzled_layout's argument")
    if mode is None:
        row = buf.shape[-1] * buf.dtype.bytes
        mode = next((m for m in (128, 64, 32) if row % m == 0), None)
        if mode is None:
            raise error(f"rows of {row} bytes cannot be swizzled (need a multiple "
                        "of 32 bytes)")
    return Layout(f"#tile.swizzle<{mode}>")


def make_padded_layout(buffer, pad):
    return Layout(f"#tile.padded<{static_int(pad, 'the padding')}>")


def annotate_layout(layouts):
    """T.annotate_layout({buffer: layout}): fixes buffers' layouts."""
    if not isinstance(layouts, dict):
        raise error("T.annotate_layout takes a dict {buffer: layout}")
    for buf, layout in layouts.items():
        if not isinstance(buf, Buffer) or buf.kind not in ("shared", "fragment"):
            raise error("T.annotate_layout's keys are shared buffers or fragments")
        if isinstance(layout, str):
            layout = Layout(layout)
        if not isinstance(layout, Layout):
            raise error(f"a layout must be a T.Layout (or its text), got "
                        f"{type(layout).__name__}")
        buf.layout = layout.text


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------


class _Side:
    """One side of a copy: a buffer with offsets (global) or a whole tile."""

    def __init__(self, x, what):
        self.origin = None
        self.extents = None
        if isinstance(x, Buffer):
            self.buffer = x
            self.indices = [0] * x.ndim
        elif isinstance(x, ElementRef):
            self.buffer = x.buffer
            self.indices = list(x.indices)
            self.origin = "element"
        elif isinstance(x, BufferRegion):
            self.buffer = x.buffer
            self.indices = list(x.starts)
            self.extents = list(x.extents)
            self.origin = "region"
        elif isinstance(x, Var):
            raise error(f"{what} of T.copy is a variable; copies move tiles")
        else:
            raise error(f"{what} of T.copy must be a buffer, a region or an element "
                        f"origin, got {type(x).__name__}")
        self.buffer._check_visible()
        self.what = what

    @property
    def is_global(self):
        return self.buffer.kind == "global"


def _global_view(side, rank):
    """The global side's memref and offsets for a tile of `rank` dims:
    leading indexed dims beyond the tile's rank are taken out with a
    rank-reducing memref.subview."""
    buf = side.buffer
    g = buf.ndim
    indices = side.indices
    if g == rank:
        return buf.value.name, buf.type_text(), indices, buf
    if g < rank:
        raise error(f"the tile has {rank} dimensions but the global tensor '{buf.name}' "
                    f"has {g}")
    # Drop dims: those indexed by a scalar (extent None) first, leading ones.
    drop = []
    if side.extents is not None:
        drop = [d for d, e in enumerate(side.extents) if e is None][: g - rank]
    else:
        drop = list(range(g - rank))
    if len(drop) != g - rank:
        raise error(f"the region of '{buf.name}' has more sliced dims than the "
                    f"{rank}-d tile")
    b = current_builder()
    offs, sizes, strides_out = [], [], []
    # Strides of the source (static when row-major and static-shaped).
    src_strides = _strides_of(buf)
    kept = [d for d in range(g) if d not in drop]
    for d in range(g):
        if d in drop:
            offs.append(indices[d])
            sizes.append(1)
        else:
            offs.append(0)
            sizes.append(buf.shape[d])
    off_text = ", ".join(_mixed(o) for o in offs)
    size_text = ", ".join(_mixed(s) for s in sizes)
    new_shape = [buf.shape[d] for d in kept]
    strides_out = [src_strides[d] for d in kept]
    view = Buffer("global", None, new_shape, buf.dtype, buf.name, strides=strides_out)
    src_type = buf.type_text()
    view_type = view.type_text()
    head = (f"{{result}} = memref.subview {buf.value.name}[{off_text}] [{size_text}] "
            f"[{', '.join('1' for _ in range(g))}] : {src_type} to {view_type}")
    # A view whose offsets are known at the kernel's top goes there, once:
    # pipelined loops move copies ahead of their body.
    kernel = b.innermost("kernel")
    operands = [operand(o) for o in offs] + [operand(s) for s in sizes]
    values = [o for o in operands if isinstance(o, Value)]
    def outside(v):  # defined before the kernel's body starts
        return v.dtype is dt.index and (
            any(v is a for a in kernel.args) or
            (v.region is not kernel and v.region.encloses(kernel)))
    if kernel is not None and all(outside(v) for v in values):
        cache = b.__dict__.setdefault("views", {})
        key = (id(kernel), head)
        if key not in cache:
            cache[key] = b.emit_hoisted(head, None, "view")
        view.value = cache[key]
    else:
        view.value, _ = b.emit(head, None, "view")
    return view.value.name, view_type, [indices[d] for d in kept], view


def _strides_of(buf):
    if buf.strides is not None:
        return list(buf.strides)
    out, s = [], 1
    for d in reversed(buf.shape):
        out.append(s)
        s = s * d if (s is not None and isinstance(d, int)) else None
    return list(reversed(out))


def _mixed(x):
    x = operand(x)
    if isinstance(x, Value):
        return convert(x, dt.index).name
    return str(int(x))


def _offsets_text(indices):
    parts = []
    for i in indices:
        i = operand(i)
        if isinstance(i, Value):
            if i.dtype.is_float:
                raise error("copy offsets must be integers")
            parts.append(convert(i, dt.index).name)
        else:
            parts.append(str(int(i)))
    return ", ".join(parts)


def _check_region_shape(side, tile_shape):
    if side.extents is None:
        return
    ext = [e for e in side.extents if e is not None]
    if len(ext) != len(tile_shape):
        return
    for e, t in zip(ext, tile_shape):
        if e != "?" and e != t:
            raise error(f"the region of '{side.buffer.name}' has shape "
                        f"{[x for x in ext]}, but the tile is {list(tile_shape)}")


def copy(src, dst, pad=None, coalesced_width=None, disable_tma=False):
    """T.copy(src, dst): copies a tile between global memory, shared memory
    and fragments. A global side is a tensor with an element origin
    (``A[by * 128, k * 32]``) or a region (``A[i0:i1, j0:j1]``); the tile's
    shape is the other side's. ``pad`` (tile's extension) is the value read
    outside the tensor (default 0)."""
    b = _block_level("T.copy")
    s, d = _Side(src, "the source"), _Side(dst, "the destination")
    if s.is_global and d.is_global:
        return _copy_global_to_global(s, d, pad)
    if not s.is_global and not d.is_global:
        for side in (s, d):
            if side.origin is not None:
                raise error("regions of shared buffers and fragments are not supported "
                            "in T.copy; copy whole tiles")
        if s.buffer.shape != d.buffer.shape:
            raise error(f"T.copy between tiles of different shapes "
                        f"{list(s.buffer.shape)} and {list(d.buffer.shape)}")
        b.emit(f"tile.copy {s.buffer.value.name} -> {d.buffer.value.name} : "
               f"{s.buffer.type_text()}, {d.buffer.type_text()}", result=False)
        return
    tile, glob = (d, s) if s.is_global else (s, d)
    if tile.origin is not None:
        raise error("regions of shared buffers and fragments are not supported in "
                    "T.copy; copy whole tiles")
    tile_shape = tile.buffer.shape
    _check_region_shape(glob, tile_shape)
    name, gtype, offsets, _ = _global_view(glob, len(tile_shape))
    offs = _offsets_text(offsets)
    attr = ""
    if pad is not None:
        if not s.is_global:
            raise error("pad applies to copies that read global memory")
        pv = operand(pad)
        if isinstance(pv, Value):
            raise error("pad must be a compile-time number")
        from .values import _float_literal
        et = s.buffer.dtype
        lit = _float_literal(float(pv), et) if et.is_float else str(int(pv))
        attr = f" {{pad = {lit} : {et.ir}}}"
    if s.is_global:
        b.emit(f"tile.copy {name}[{offs}] -> {tile.buffer.value.name}{attr} : "
               f"{gtype}, {tile.buffer.type_text()}", result=False)
    else:
        b.emit(f"tile.copy {tile.buffer.value.name} -> {name}[{offs}] : "
               f"{tile.buffer.type_text()}, {gtype}", result=False)


def _copy_global_to_global(s, d, pad):
    """Global to global goes through a fragment of the region's shape."""
    shape = None
    for side in (s, d):
        if side.extents is not None:
            ext = [e for e in side.extents if e is not None]
            if all(e != "?" for e in ext):
                shape = tuple(ext)
                break
    if shape is None:
        raise error("T.copy between global tensors needs a region of static shape "
                    "(e.g. A[bx * 64:(bx + 1) * 64, :] with a static tensor shape)")
    frag = alloc_fragment(shape, s.buffer.dtype)
    frag.name = "copy"
    copy(_as_arg(s), frag, pad=pad)
    copy(frag, _as_arg(d))


def _as_arg(side):
    if side.origin is None:
        return side.buffer
    return ElementRef(side.buffer, side.indices)


# ---------------------------------------------------------------------------
# Compute
# ---------------------------------------------------------------------------


class GemmWarpPolicy(enum.Enum):
    """How the block's warps divide a gemm's C tile."""
    Square = "square"
    FullRow = "full_row"
    FullCol = "full_col"


def gemm(A, B, C, transpose_A=False, transpose_B=False,
         policy=GemmWarpPolicy.Square, clear_accum=False, k_pack=1, wg_wait=0):
    """T.gemm: C += op(A) x op(B) on tiles (A, B shared or fragments, C a
    fragment)."""
    b = _block_level("T.gemm")
    a = as_buffer(A, "T.gemm's A")
    bb = as_buffer(B, "T.gemm's B")
    c = as_buffer(C, "T.gemm's C")
    for name, x in (("A", a), ("B", bb)):
        if x.kind not in ("shared", "fragment"):
            raise error(f"T.gemm's {name} must be a shared buffer or a fragment, "
                        f"got a {x.kind} buffer")
    if c.kind != "fragment":
        raise error(f"T.gemm's C must be a fragment, got a {c.kind} buffer")
    if isinstance(policy, str):
        try:
            policy = GemmWarpPolicy(policy)
        except ValueError:
            raise error(f"unknown warp policy {policy!r}") from None
    if not isinstance(policy, GemmWarpPolicy):
        raise error("policy must be a T.GemmWarpPolicy")
    flags = ""
    if transpose_A:
        flags += " transpose_a"
    if transpose_B:
        flags += " transpose_b"
    if clear_accum:
        flags += " clear_accum"
    if policy is not GemmWarpPolicy.Square:
        flags += f" policy {policy.value}"
    b.emit(f"tile.gemm {a.value.name}, {bb.value.name}, {c.value.name}{flags} : "
           f"{a.type_text()}, {bb.type_text()}, {c.type_text()}", result=False)


def fill(buffer, value, _what="T.fill"):
    """T.fill(buffer, value): writes `value` into every element."""
    b = _block_level(_what)
    buf = as_buffer(buffer, f"{_what}'s buffer")
    if buf.kind not in ("shared", "fragment"):
        if buf.kind == "local":
            for i in range(buf.shape[0]) if buf.ndim == 1 else ():
                ElementRef(buf, (i,)).store(value)
            return
        raise error(f"{_what} writes shared buffers and fragments")
    v = convert(value, buf.dtype)
    b.emit(f"tile.fill {buf.value.name}, {v.name} : {buf.type_text()}", result=False)


def clear(buffer):
    """T.clear(buffer): fills with zero."""
    fill(buffer, 0, "T.clear")


def _tile_operand(x, what):
    buf = as_buffer(x, what)
    if buf.kind not in ("shared", "fragment"):
        raise error(f"{what} must be a shared buffer or a fragment, got a "
                    f"{buf.kind} buffer")
    return buf


def reduce(buffer, out, reduce_type, dim=-1, clear=True):
    """T.reduce(buffer, out, kind, dim, clear)."""
    b = _block_level(f"T.reduce_{reduce_type}")
    src = _tile_operand(buffer, f"T.reduce_{reduce_type}'s source")
    dst = _tile_operand(out, f"T.reduce_{reduce_type}'s destination")
    d = static_int(dim, "dim")
    if d < 0:
        d += src.ndim
    if not 0 <= d < src.ndim:
        raise error(f"dim {dim} is out of range for a {src.ndim}-d tile")
    kinds = {"sum": "sum", "max": "max", "min": "min", "abssum": "abssum",
             "absmax": "absmax"}
    if reduce_type not in kinds:
        raise error(f"unknown reduction {reduce_type!r}")
    attr = "" if clear else " {clear = false}"
    b.emit(f"tile.reduce {kinds[reduce_type]} {src.value.name} -> {dst.value.name} "
           f"dim {d}{attr} : {src.type_text()}, {dst.type_text()}", result=False)


def reduce_sum(buffer, out, dim=-1, clear=True):
    reduce(buffer, out, "sum", dim, clear)


def reduce_max(buffer, out, dim=-1, clear=True):
    reduce(buffer, out, "max", dim, clear)


def reduce_min(buffer, out, dim=-1, clear=True):
    reduce(buffer, out, "min", dim, clear)


def reduce_abssum(buffer, out, dim=-1, clear=True):
    reduce(buffer, out, "abssum", dim, clear)


def reduce_absmax(buffer, out, dim=-1, clear=True):
    reduce(buffer, out, "absmax", dim, clear)


def cumsum(src, dst=None, dim=0, reverse=False):
    """T.cumsum(src, dst=None, dim=0, reverse=False): inclusive prefix sums."""
    b = _block_level("T.cumsum")
    s = _tile_operand(src, "T.cumsum's source")
    t = s if dst is None else _tile_operand(dst, "T.cumsum's destination")
    d = static_int(dim, "dim")
    if d < 0:
        d += s.ndim
    if not 0 <= d < s.ndim:
        raise error(f"dim {dim} is out of range for a {s.ndim}-d tile")
    rev = " reverse" if reverse else ""
    b.emit(f"tile.cumsum {s.value.name} -> {t.value.name} dim {d}{rev} : "
           f"{s.type_text()}, {t.type_text()}", result=False)


def atomic_add(dst, value, memory_order=None):
    """T.atomic_add(dst, value): adds a tile into global memory (dst a region
    or origin, value a tile), or one value into one element."""
    b = current_builder("T.atomic_add")
    if isinstance(value, Buffer):
        _block_level("T.atomic_add of a tile")
        src = _tile_operand(value, "T.atomic_add's value")
        side = _Side(dst, "the destination")
        if not side.is_global:
            raise error("T.atomic_add adds into global memory")
        _check_region_shape(side, src.shape)
        name, gtype, offsets, _ = _global_view(side, src.ndim)
        b.emit(f"tile.atomic_add {src.value.name} -> {name}[{_offsets_text(offsets)}] : "
               f"{src.type_text()}, {gtype}", result=False)
        return
    if not isinstance(dst, ElementRef):
        raise error("T.atomic_add of a value adds into one element: dst must be "
                    "buffer[indices]")
    buf = dst.buffer
    if buf.kind == "fragment":
        raise error("atomics on fragment elements make no sense; fragments are "
                    "per-thread")
    if b.innermost("kernel") is None:
        raise error("T.atomic_add must be inside a T.Kernel")
    v = convert(value, buf.dtype)
    kind = "addf" if buf.dtype.is_float else "addi"
    idx = ", ".join(index_operands(dst.indices))
    b.emit(f"{{result}} = memref.atomic_rmw {kind} {v.name}, {buf.value.name}[{idx}] : "
           f"({buf.dtype.ir}, {buf.type_text()}) -> {buf.dtype.ir}", buf.dtype)


# ---------------------------------------------------------------------------
# Loops
# ---------------------------------------------------------------------------


class _Loop:
    """A loop the kernel runs (not Python): iterating it traces the body
    once with the induction variables as values."""

    kind = "for"

    def __iter__(self):
        b = self._open()
        region = b.current
        ivs = region.args
        try:
            yield ivs[0] if len(ivs) == 1 else tuple(ivs)
        finally:
            b.leave_region(region, b.current is not region)


def _bound(x, what):
    x = operand(x)
    if isinstance(x, Value):
        if x.dtype.is_float:
            raise error(f"{what} must be an integer")
        return convert(x, dt.index)
    return constant(int(x), dt.index)


class Parallel(_Loop):
    """``for i, j in T.Parallel(M, N):`` an elementwise body over a tile's
    index space; the compiler spreads iterations over the block's threads."""

    def __init__(self, *extents, coalesced_width=None):
        if not extents:
            raise error("T.Parallel needs at least one extent")
        self.extents = [static_int(e, "T.Parallel's extents") for e in extents]
        for e in self.extents:
            if e < 1:
                raise error(f"T.Parallel's extents must be positive, got {self.extents}")

    def _open(self):
        b = _block_level("T.Parallel")
        shape = ", ".join(map(str, self.extents))

        def head(op):
            ivs = ", ".join(v.name for v in op.regions[0].args)
            return f"tile.parallel ({ivs}) in ({shape})"

        _, op = b.emit(head, result=False)
        hints = ["i", "j", "k", "l", "m", "n"]
        b.open_region("parallel", op, [hints[d % 6] for d in range(len(self.extents))],
                      dt.index)
        return b


def _range_args(start, stop, step):
    if stop is None:
        start, stop = 0, start
    return start, stop, step


class Pipelined(_Loop):
    """``for k in T.Pipelined(n, num_stages=3):`` a loop whose copies into
    shared memory run ahead of the compute that reads them."""

    def __init__(self, start, stop=None, num_stages=0, order=None, stage=None,
                 sync=None, group=None):
        self.start, self.stop, _ = _range_args(start, stop, 1)
        self.num_stages = static_int(num_stages, "num_stages")
        if self.num_stages < 0:
            raise error(f"num_stages must be >= 0, got {self.num_stages}")
        self.order = None if order is None else [static_int(o, "order") for o in order]
        self.stage = None if stage is None else [static_int(s, "stage") for s in stage]

    def _open(self):
        b = _block_level("T.Pipelined")
        lb, ub = _bound(self.start, "T.Pipelined's start"), _bound(self.stop, "T.Pipelined's stop")
        one = constant(1, dt.index)
        extra = ""
        if self.order is not None:
            extra += f" order [{', '.join(map(str, self.order))}]"
        if self.stage is not None:
            extra += f" stage [{', '.join(map(str, self.stage))}]"
        stages = self.num_stages

        def head(op):
            iv = op.regions[0].args[0].name
            return (f"tile.pipelined {iv} = {lb.name} to {ub.name} step {one.name} "
                    f"stages({stages}){extra}")

        _, op = b.emit(head, result=False)
        b.open_region("pipelined", op, ["k"], dt.index)
        return b


class serial(_Loop):
    """``for i in T.serial(n)`` (also ``range`` inside kernels): a
    sequential loop."""

    def __init__(self, start, stop=None, step=1, annotations=None):
        self.start, self.stop, self.step = _range_args(start, stop, step)

    def _open(self):
        b = current_builder("T.serial")
        if b.innermost("kernel") is None:
            raise error("loops over run-time ranges must be inside a T.Kernel")
        lb = _bound(self.start, "the loop's start")
        ub = _bound(self.stop, "the loop's stop")
        st = operand(self.step)
        if not isinstance(st, Value) and int(st) <= 0:
            raise error(f"the loop's step must be positive, got {st}")
        step = _bound(st, "the loop's step")

        def head(op):
            iv = op.regions[0].args[0].name
            return f"scf.for {iv} = {lb.name} to {ub.name} step {step.name}"

        _, op = b.emit(head, result=False)
        b.open_region("for", op, ["it"], dt.index)
        return b


def unroll(start, stop=None, step=1, explicit=False):
    """T.unroll: unrolled while tracing when the bounds are compile-time
    integers, else a serial loop."""
    start, stop, step = _range_args(start, stop, step)
    if all(not isinstance(operand(x), Value) for x in (start, stop, step)):
        return range(int(operand(start)), int(operand(stop)), int(operand(step)))
    return serial(start, stop, step)


vectorized = serial


def kernel_range(*args):
    """`range` in kernel bodies: a Python range for compile-time bounds
    outside kernels, T.serial inside them (TileLang's meaning)."""
    b = current_builder("range")
    if b.innermost("kernel") is None and all(not isinstance(operand(a), Value) for a in args):
        return range(*[int(operand(a)) for a in args])
    if len(args) == 1:
        return serial(args[0])
    return serial(*args)


# ---------------------------------------------------------------------------
# Math
# ---------------------------------------------------------------------------


def ceildiv(a, b):
    """T.ceildiv(a, b) = (a + b - 1) // b for non-negative integers."""
    x, y = operand(a), operand(b)
    if not isinstance(x, Value) and not isinstance(y, Value):
        return -(-int(x) // int(y))
    return binary("floordiv", binary("sub", binary("add", x, y), 1), y)


def max(a, b):  # noqa: A001 - TileLang's name
    return binary("max", a, b)


def min(a, b):  # noqa: A001 - TileLang's name
    return binary("min", a, b)


def _math(name):
    def fn(x):
        return unary_math(name, x)
    fn.__name__ = name
    fn.__doc__ = f"T.{name}(x)"
    return fn


exp = _math("exp")
exp2 = _math("exp2")
log = _math("log")
log2 = _math("log2")
log10 = _math("log10")
sqrt = _math("sqrt")
rsqrt = _math("rsqrt")
sin = _math("sin")
cos = _math("cos")
tan = _math("tan")
tanh = _math("tanh")
erf = _math("erf")
floor = _math("floor")
ceil = _math("ceil")


def abs(x):  # noqa: A001 - TileLang's name
    return unary_math("abs", x)


def if_then_else(cond, then_value, else_value):
    """T.if_then_else(c, a, b): `a` where `c` holds, else `b` (both are
    evaluated)."""
    return select(cond, then_value, else_value)


def infinity(dtype):
    return convert(float("inf"), dt.as_dtype(dtype))


def pow(x, y):  # noqa: A001
    x, y = operand(x), operand(y)
    if not isinstance(x, Value) and not isinstance(y, Value):
        return x ** y
    from .values import promote
    t = promote(x, y)
    if not t.is_float:
        t = dt.float32
    a, c = convert(x, t), convert(y, t)
    v, _ = current_builder().emit(f"{{result}} = math.powf {a.name}, {c.name} : {t.ir}", t)
    return v


def _unused():  # keep `where` imported for tools that introspect ops
    return where
