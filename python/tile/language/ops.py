"""TileLang's kernel operations (T.Kernel, T.copy, T.gemm, T.Parallel, ...)
as tile-dialect operations."""

from __future__ import annotations

import enum

from . import dtypes as dt
from .builder import Value, call_source, current_builder, error, where
from .buffers import (Buffer, BufferRegion, ElementRef, Var, as_buffer,
                      index_operands)
from .values import (binary, constant, convert, lazy, operand, select, static_int,
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
            if not 1 <= len(threads) <= 3:
                raise error(f"T.Kernel takes 1 to 3 thread counts, got {len(threads)}")
            self.thread_dims = tuple(static_int(t, "the thread count") for t in threads)
            threads = 1
            for t in self.thread_dims:
                threads *= t
        else:
            self.thread_dims = (static_int(threads, "T.Kernel's threads"),)
        self.grid = grid
        self.threads = static_int(threads, "T.Kernel's threads")
        if not 1 <= self.threads <= 1024:
            raise error(f"T.Kernel's threads must be 1 to 1024, got {self.threads}")
        self.raster = None
        # tile's addition: min(blocks, multiprocessors) blocks walk the
        # grid's blocks (the kernel is marked persistent).
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
            persistent = " persistent" if kernel.persistent else ""
            return (f"tile.kernel grid({ids}) in ({', '.join(sizes)}) "
                    f"threads({kernel.threads}){raster}{persistent}")

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


def get_block_binding(dim=0):
    """``T.get_block_binding(d)``: the block's index along grid dim `d` (as
    ``with T.Kernel(...) as (bx, by)`` gives it)."""
    k = _kernel()
    d = static_int(dim, "the grid dim")
    if not 0 <= d < len(k.region.args):
        raise error(f"the kernel has {len(k.region.args)} grid dims, asked for dim {d}")
    return k.region.args[d]


def get_block_bindings():
    """``T.get_block_bindings()``: the block's indices, one per grid dim."""
    return list(_kernel().region.args)


def get_block_extent(dim=0):
    """``T.get_block_extent(d)``: the grid's size along dim `d`."""
    k = _kernel()
    d = static_int(dim, "the grid dim")
    if not 0 <= d < len(k.grid):
        raise error(f"the kernel has {len(k.grid)} grid dims, asked for dim {d}")
    return operand(k.grid[d])


def get_block_extents():
    return [operand(g) for g in _kernel().grid]


def get_thread_extent(dim=0):
    """``T.get_thread_extent(d)``: the block's thread count along dim `d` of
    ``T.Kernel(..., threads=(x, y, z))`` (1 past the dims given)."""
    k = _kernel()
    d = _thread_dim(dim)
    return k.thread_dims[d] if d < len(k.thread_dims) else 1


def _thread_dim(dim):
    d = static_int(dim, "the thread dim")
    if not 0 <= d < 3:
        raise error(f"the thread dim must be 0, 1 or 2, got {d}")
    return d


def _outside_parallel(what, why):
    """The builder, checked to be in a kernel and not in a T.Parallel body
    (`why` says what to do instead)."""
    b = current_builder(what)
    _kernel()
    if b.innermost("parallel") is not None:
        raise error(f"{what} in a T.Parallel body: {why}")
    return b


def _thread_index(unit, what):
    """A ``tile.thread_id`` of `unit` (thread, lane, warp): the running
    thread's index, as an index value."""
    b = _outside_parallel(what, "the compiler assigns its iterations to threads; "
                                "use it outside the loop")
    v, _ = b.emit(f"{{result}} = tile.thread_id {unit} : index", dt.index)
    return v


def get_thread_binding(dim=0):
    """``T.get_thread_binding(d)``: the running thread's index along dim `d`
    of ``T.Kernel(..., threads=(x, y, z))`` (threadIdx.x, .y, .z; x varies
    fastest). Code outside tile ops runs in every thread; with a thread's
    index each computes its own part (docs/python.md)."""
    k = _kernel()
    d = _thread_dim(dim)
    if d >= len(k.thread_dims):
        return constant(0, dt.index)
    t = _thread_index("thread", "T.get_thread_binding")
    if len(k.thread_dims) == 1:
        t.span = "tid"
    below = 1
    for extent in k.thread_dims[:d]:
        below *= extent
    if below > 1:
        t = t // below
    if d < len(k.thread_dims) - 1:
        t = t % k.thread_dims[d]
    return t


def get_thread_bindings():
    """``T.get_thread_bindings()``: the running thread's index along each
    dim of the kernel's threads."""
    return [get_thread_binding(d) for d in range(len(_kernel().thread_dims))]


def _warp_size_arg(warp_size, what):
    if warp_size is None:
        return None
    n = static_int(warp_size, f"{what}'s warp_size")
    if n < 1:
        raise error(f"{what}'s warp_size must be positive, got {n}")
    return n


def get_lane_idx(warp_size=None):
    """``T.get_lane_idx(warp_size=None)``: the running thread's lane in its
    warp (the target's warp size: 32 on NVIDIA and the CPU, 64 on AMD)."""
    n = _warp_size_arg(warp_size, "T.get_lane_idx")
    if n is None:
        return _thread_index("lane", "T.get_lane_idx")
    return _thread_index("thread", "T.get_lane_idx") % n


def get_warp_idx(warp_size=None):
    """``T.get_warp_idx(warp_size=None)``: the running thread's warp in the
    block."""
    n = _warp_size_arg(warp_size, "T.get_warp_idx")
    if n is None:
        return _thread_index("warp", "T.get_warp_idx")
    return _thread_index("thread", "T.get_warp_idx") // n


get_warp_idx_sync = get_warp_idx


def get_warp_group_idx(warp_size=None, warps_per_group=None):
    """``T.get_warp_group_idx(warp_size=None, warps_per_group=None)``: the
    running thread's warpgroup (4 warps unless given)."""
    if warps_per_group is not None and warp_size is None:
        raise error("T.get_warp_group_idx expects warp_size when warps_per_group is given")
    group = 4 if warps_per_group is None else static_int(
        warps_per_group, "T.get_warp_group_idx's warps_per_group")
    if group < 1:
        raise error(f"T.get_warp_group_idx's warps_per_group must be positive, got {group}")
    return get_warp_idx(warp_size) // group


def sync_threads(barrier_id=None, arrive_count=None):
    """``T.sync_threads()``: every thread of the block waits for the others
    (a ``tile.barrier``). Kernels that read thread indices get the barriers
    their shared memory accesses need without it."""
    if barrier_id is not None or arrive_count is not None:
        raise error("T.sync_threads(barrier_id, arrive_count) (a named barrier of "
                    "some threads) is not supported: tile's barrier is the whole block's")
    b = _outside_parallel("T.sync_threads", "a barrier is for the whole block, outside "
                                            "the loop")
    b.emit("tile.barrier", result=False)


def _string_literal(text):
    """`text` as an MLIR string literal."""
    out = []
    for ch in str(text):
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append(f"\\{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _printed_expression():
    """The source text of T.print's first argument (TileLang's message for a
    value is ``expr<...>`` of the expression), or None."""
    import ast
    text = call_source()
    if text is None:
        return None
    try:
        call = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call):
        return None
    arg = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "obj"), None)
    if arg is None:
        return None
    return ast.get_source_segment(text.strip(), arg)


def print(obj=None, msg="", warp_group_id=0, warp_id=0):  # noqa: A001 - TileLang's name
    """``T.print(obj, msg="", warp_group_id=0, warp_id=0)``: TileLang's debug
    print. A value (or ``obj=None``: the message alone) is printed by every
    thread (in a T.Parallel body, by the thread that runs the iteration); a
    buffer element by element with its flat index: a shared buffer,
    a fragment or a global tensor by one thread, ``warp_group_id * 128 +
    warp_id * 32``, a local buffer by every thread. Lines read as TileLang's
    (``msg='...' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=float
    value=1.000000``); see docs/python.md for what differs."""
    b = current_builder("T.print")
    r = b.innermost("parallel", "kernel")
    if r is None:
        raise error("T.print must be inside a T.Kernel")
    in_parallel = r.kind == "parallel"
    if isinstance(obj, Var):
        obj = obj.load()
    elif isinstance(obj, ElementRef):
        obj = obj.load()
    if not isinstance(msg, str):
        raise error(f"T.print's msg must be a string, got {type(msg).__name__}")
    if obj is None:
        if not msg:
            raise error("T.print needs a value, a buffer or a message")
        b.emit(f"tile.print {_string_literal(msg)}", result=False)
        return
    if isinstance(obj, BufferRegion):
        raise error("T.print prints a whole buffer, a value or a message, not a "
                    "region of a buffer (print the buffer, or copy the region "
                    "into one)")
    if isinstance(obj, Buffer):
        if in_parallel:
            raise error("T.print of a buffer cannot be used inside a T.Parallel "
                        "body: print an element there, or the buffer after the "
                        "loop")
        buf = obj
        buf._check_visible()
        name = buf.name or getattr(buf, "assigned_name", None)
        words = [_string_literal(msg if msg or buf.kind == "global"
                                 else f"buffer<{name or buf.kind}, {buf.dtype.name}>"),
                 buf.value.name]
        if name:
            words.append(f"name {_string_literal(name)}")
        if buf.kind != "local":
            wg = static_int(warp_group_id, "T.print's warp_group_id")
            w = static_int(warp_id, "T.print's warp_id")
            thread = wg * 128 + w * 32
            threads = _kernel().threads
            if not 0 <= thread < threads:
                raise error(f"T.print: warp_group_id={wg}, warp_id={w} select thread "
                            f"{thread}, but the kernel has {threads} threads")
            if thread:
                words.append(f"thread {thread}")
        if buf.dtype.kind == "uint":
            words.append("unsigned")
        b.emit(f"tile.print {' '.join(words)} : {buf.type_text()}", result=False)
        return
    v = operand(obj)
    if not isinstance(v, Value):
        # A Python number: TileLang's int32, float32 or bool constant.
        v = constant(v, dt.bool_ if isinstance(v, bool) else
                     dt.float32 if isinstance(v, float) else dt.int32)
    if v.dtype.kind == "index":
        # TileLang's indices (block ids, loop variables) are int32.
        v = convert(v, dt.int32)
    if not msg:
        source = _printed_expression()
        msg = f"expr<{source if source is not None else v.dtype.name}>"
    unsigned = " unsigned" if v.dtype.kind == "uint" else ""
    b.emit(f"tile.print {_string_literal(msg)} {v.name}{unsigned} : {v.dtype.ir}",
           result=False)


def device_assert(condition, msg=""):
    """``T.device_assert(cond, msg)``: stops the kernel when `cond` is false
    (a compile-time condition is checked while tracing)."""
    b = current_builder("T.device_assert")
    c = operand(condition)
    if not isinstance(c, Value):
        if not c:
            raise error(f"T.device_assert fails while tracing: {msg}")
        return
    c = convert(c, dt.bool_)
    text = str(msg).replace("\\", "\\\\").replace('"', '\\"')
    b.emit(f'cf.assert {c.name}, "{text}"', result=False)


def no_set_max_nreg():
    """T.no_set_max_nreg(): TileLang's request that its warp specialization
    set no register budgets. tile sets them only in the warp specialization
    it chooses itself (docs/pipeline.md), for its own producer and
    consumers: the hint changes no result and is accepted as it is."""
    _kernel()


def disable_warp_group_reg_alloc():
    """T.disable_warp_group_reg_alloc(): as T.no_set_max_nreg (accepted; tile
    chooses its warp groups' register budgets)."""
    _kernel()


def use_swizzle(panel_size=8, order="row", enable=True):
    """T.use_swizzle: rasterize block ids in panels (L2 reuse). The order
    blocks run in changes, not what they compute: on a grid that is not
    2-d (which tile's raster does not take) it does nothing."""
    k = _kernel()
    if not enable:
        return
    panel = static_int(panel_size, "the panel size")
    if order not in ("row", "column", "col"):
        raise error(f"order must be 'row' or 'column', got {order!r}")
    order = "column" if order in ("column", "col") else "row"
    if len(k.grid) != 2:
        return
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


def _alloc(kind, shape, dtype, what, scope=None, reducer=None):
    b = _block_level(what)
    dims = _static_shape(shape, what)
    buf = Buffer(kind, None, dims, dt.as_dtype(dtype))
    buf.reducer = reducer
    opname = "tile.alloc_shared" if kind == "shared" else "tile.fragment"

    def head(op):
        kind_text = f" reducer({reducer})" if reducer else ""
        layout = f" layout({buf.layout})" if buf.layout else ""
        return f"{buf.value.name} = {opname}{kind_text}{layout} : {buf.type_text()}"

    hint = "smem" if kind == "shared" else "frag"
    buf.value = Value(b.fresh(hint), None, b.current)
    _, buf.op = b.emit(head, result=False)
    return buf


def alloc_shared(shape, dtype, scope="shared.dyn"):
    """T.alloc_shared: a buffer in the block's shared memory."""
    return _alloc("shared", shape, dtype, "T.alloc_shared")


def alloc_fragment(shape, dtype, scope="local.fragment"):
    """T.alloc_fragment: a register tile spread over the block's threads. As
    in TileLang, the scope says where the buffer is: ``"local"`` a
    per-thread array (T.alloc_local), ``"shared"`` / ``"shared.dyn"`` shared
    memory (T.alloc_shared)."""
    if scope == "local":
        return alloc_local(shape, dtype)
    if scope in ("shared", "shared.dyn"):
        return alloc_shared(shape, dtype)
    if scope != "local.fragment":
        raise error(f"T.alloc_fragment: unknown scope {scope!r} (local.fragment, local, "
                    "shared or shared.dyn)")
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


def alloc_var(dtype, *args, init=None, scope="local.var"):
    """T.alloc_var(dtype, init): a per-thread scalar variable. TileLang's
    forms: ``(dtype)``, ``(dtype, init)``, ``(dtype, scope)``,
    ``(dtype, init, scope)``, ``init=`` / ``scope=`` by keyword."""
    if len(args) > 2:
        raise error(f"T.alloc_var takes at most 3 arguments, got {len(args) + 1}")
    if len(args) == 1:
        if isinstance(args[0], str) and init is None and not _is_dtype_name(args[0]):
            scope = args[0]
        elif isinstance(args[0], (dt.dtype, str)) and not isinstance(dtype, (dt.dtype, str)):
            dtype, init = args[0], dtype  # the seeds' (init, dtype) order
        else:
            if init is not None:
                raise error("T.alloc_var: the initial value is given twice")
            init = args[0]
    elif len(args) == 2:
        if init is not None:
            raise error("T.alloc_var: the initial value is given twice")
        init, scope = args
    if not isinstance(dtype, (dt.dtype, str)):
        raise error("T.alloc_var takes the dtype first: T.alloc_var(T.int32, 0)")
    if not isinstance(scope, str):
        raise error("T.alloc_var's scope must be a string")
    v = Var(alloc_local((1,), dtype))
    if init is not None:
        v.store(init)
    return v


def _is_dtype_name(x):
    try:
        dt.as_dtype(x)
        return True
    except Exception:
        return False


_REDUCER_OPS = ("sum", "max", "min")


def alloc_reducer(shape, dtype, op="sum", replication=None):
    """T.alloc_reducer(shape, dtype, op="sum", replication=None): a reducer,
    a fragment whose elements T.Parallel loops over a wider domain
    accumulate into (``r[i] += x[i, j]``, ``r[i] = T.max(r[i], x[i, j])``),
    each thread into its own copies; ``T.finalize_reducer`` combines them.
    It starts at the op's identity (0, -inf, +inf); ``T.clear`` /
    ``T.fill`` give it a start value, counted once. `replication` ("all",
    "none") is accepted and, as in TileLang since its reducer v2, does not
    change the result: the layout follows the loops that update it."""
    if op not in _REDUCER_OPS:
        if op in ("bitand", "bitor", "bitxor"):
            raise error(f"T.alloc_reducer(op={op!r}) is not supported: tile's "
                        "reducers are 'sum', 'max' and 'min'")
        raise error(f"T.alloc_reducer's op must be 'sum', 'max' or 'min', got {op!r}")
    if replication not in (None, "all", "none"):
        raise error("T.alloc_reducer's replication must be 'all', 'none' or None, "
                    f"got {replication!r}")
    d = dt.as_dtype(dtype)
    if not (d.is_float or d.is_int) or d is dt.index or d is dt.bool_:
        raise error(f"a reducer's dtype is a float or an integer, got {d.name}")
    if op != "sum" and d.kind == "uint":
        raise error(f"T.alloc_reducer(op={op!r}) on {d.name}: tile's integer "
                    "reducers compare as signed; use a signed dtype")
    return _alloc("fragment", shape, d, "T.alloc_reducer", reducer=op)


def _reducer(x, what):
    buf = as_buffer(x, what)
    if getattr(buf, "reducer", None) is None:
        raise error(f"{what} must be a reducer (T.alloc_reducer), got a {buf.kind} "
                    "buffer")
    return buf


def _reducer_identity(buf):
    d = buf.dtype
    if buf.reducer == "sum":
        return constant(0, d)
    low = buf.reducer == "max"
    if d.is_float:
        return constant(float("-inf") if low else float("inf"), d)
    bits = d.bits
    return constant(-(1 << (bits - 1)) if low else (1 << (bits - 1)) - 1, d)


def finalize_reducer(reducer, dst=None, batch=1, annotations=None):
    """T.finalize_reducer(reducer, dst=None, batch=1): combines the partial
    values the threads accumulated into each element of `reducer`; then
    every copy holds the total, and the reducer reads as a fragment. With
    `dst` (TileLang's reducer v2), the totals are also copied into that
    fragment. `batch` (how many elements TileLang's all-reduce combines per
    call) must be positive and changes nothing: tile combines all elements
    in one exchange."""
    b = _block_level("T.finalize_reducer")
    buf = _reducer(reducer, "T.finalize_reducer's argument")
    if static_int(batch, "T.finalize_reducer's batch") < 1:
        raise error(f"T.finalize_reducer: batch must be >= 1, got {batch}")
    b.emit(f"tile.finalize_reducer {buf.value.name} : {buf.type_text()}", result=False)
    if dst is not None:
        out = as_buffer(dst, "T.finalize_reducer's destination")
        if getattr(out, "reducer", None) is not None:
            raise error("T.finalize_reducer's destination must be a fragment, not a "
                        "reducer")
        if out.kind != "fragment" or tuple(out.shape) != tuple(buf.shape) or \
                out.dtype is not buf.dtype:
            raise error(f"T.finalize_reducer's destination must be a fragment of the "
                        f"reducer's shape {list(buf.shape)} and dtype {buf.dtype.name}")
        copy(buf, out)


def reducer_init(reducer, init=None):
    """T.reducer_init(reducer, init=None) (TileLang's reducer v2): starts a
    reduction into `reducer`, at the op's identity or at `init` (counted
    once)."""
    b = _block_level("T.reducer_init")
    buf = _reducer(reducer, "T.reducer_init's argument")
    v = _reducer_identity(buf) if init is None else convert(init, buf.dtype)
    b.emit(f"tile.fill {buf.value.name}, {v.name} : {buf.type_text()}", result=False)


def reducer_update(target, value):
    """T.reducer_update(reducer[indices], value) (TileLang's reducer v2), in a
    T.Parallel body: combines `value` into the element with the reducer's
    op (``r[i] += value`` for a sum)."""
    if not isinstance(target, ElementRef):
        raise error("T.reducer_update takes an element of a reducer, reducer[indices], "
                    f"first; got {type(target).__name__}")
    buf = _reducer(target.buffer, "T.reducer_update's target")
    if not ElementRef._in_parallel():
        raise error("T.reducer_update is used in a T.Parallel body")
    op = {"sum": "add", "max": "max", "min": "min"}[buf.reducer]
    target.store(binary(op, target.load(), convert(value, buf.dtype)))


# ---------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------


class Layout:
    """A layout: ``T.Layout("#tile.swizzle<128>")``, an attribute of the
    dialect in its syntax (see docs/dialect.md), or TileLang's
    ``T.Layout(shape, lambda i, j: [...])``, an index map."""

    def __init__(self, text_or_shape, forward_fn=None):
        self.fn = forward_fn
        if forward_fn is None:
            if not isinstance(text_or_shape, str):
                raise error("T.Layout takes a layout attribute's text, or a shape and "
                            "an index function")
            self.text = text_or_shape.strip()
            self.shape = None
        else:
            if not callable(forward_fn):
                raise error("T.Layout(shape, fn): fn must be a function of the indices")
            self.text = None
            self.shape = tuple(text_or_shape)

    def __repr__(self):
        if self.text is None:
            return f"T.Layout({list(self.shape)}, {self.fn!r})"
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
    """T.annotate_layout({buffer: layout}): fixes buffers' layouts. A global
    tensor's layout (TileLang's ``T.Layout(shape, fn)`` on a parameter) is
    accepted and changes nothing: tile indexes global tensors logically, so
    kernels that agree on the layout of an intermediate tensor get the
    same results."""
    if not isinstance(layouts, dict):
        raise error("T.annotate_layout takes a dict {buffer: layout}")
    for buf, layout in layouts.items():
        if isinstance(buf, Buffer) and buf.kind == "global":
            if not isinstance(layout, Layout):
                raise error(f"a layout must be a T.Layout, got {type(layout).__name__}")
            continue
        if not isinstance(buf, Buffer) or buf.kind not in ("shared", "fragment"):
            raise error("T.annotate_layout's keys are shared buffers, fragments or "
                        "global tensors")
        if isinstance(layout, str):
            layout = Layout(layout)
        if not isinstance(layout, Layout):
            raise error(f"a layout must be a T.Layout (or its text), got "
                        f"{type(layout).__name__}")
        if layout.text is None:
            raise error("a layout given as an index function applies to global "
                        "tensors only; for shared buffers and fragments use "
                        "T.make_swizzled_layout or a layout attribute of the dialect "
                        '(T.Layout("#tile.padded<8>"), docs/dialect.md)')
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
    new_shape = [buf.shape[d] for d in kept]
    strides_out = [src_strides[d] for d in kept]
    view = Buffer("global", None, new_shape, buf.dtype, buf.name, strides=strides_out)
    # A view at static offsets of a tensor with a static layout has a
    # static offset (memref.subview's result type says so).
    static_offs = [operand(o) for o in offs]
    if buf.strides is None and all(isinstance(s, int) for s in src_strides) and \
            not any(isinstance(o, Value) for o in static_offs):
        view.offset = sum(int(o) * st for o, st in zip(static_offs, src_strides))
    src_type = buf.type_text()
    view_type = view.type_text()

    def subview(index_text):
        off_text = ", ".join(index_text(o) for o in offs)
        size_text = ", ".join(index_text(s) for s in sizes)
        return (f"{{result}} = memref.subview {buf.value.name}[{off_text}] [{size_text}] "
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
        head = subview(_mixed)
        cache = b.__dict__.setdefault("views", {})
        key = (id(kernel), head)
        if key not in cache:
            cache[key] = b.emit_hoisted(head, None, "view")
        view.value = cache[key]
    elif kernel is not None and all(v.dtype is dt.index or _castable(v) for v in values) and \
            (home := _view_home(b, kernel, values)) is not b.current:
        # Its integer offsets become indices where the view goes (a group
        # read from a table in the kernel's body, used in a loop).
        def index_text(x):
            x = operand(x)
            if not isinstance(x, Value):
                return str(int(x))
            if x.dtype is dt.index:
                return x.name
            cast = "index_castui" if x.dtype.kind == "uint" else "index_cast"
            return b.emit_before_body(
                home, f"{{result}} = arith.{cast} {x.name} : {x.dtype.ir} to index",
                dt.index).name
        view.value = b.emit_before_body(home, subview(index_text), None, "view")
    else:
        view.value, _ = b.emit(subview(_mixed), None, "view")
    return view.value.name, view_type, [indices[d] for d in kept], view


def _castable(v):
    """Whether `v` becomes an index by one arith.index_cast(ui)."""
    return v.dtype.is_int and v.dtype.kind in ("int", "uint") and v.dtype.ir != "i1"


def _view_home(b, kernel, values):
    """The outermost region between the current one and `kernel`'s body
    where every value of `values` is defined: a view goes there, out of
    the loops and branches that do not change it."""
    chain = []
    r = b.current
    while r is not None:
        chain.append(r)
        if r is kernel:
            break
        r = r.parent
    depth = len(chain) - 1  # (T.min shadows the builtin here)
    for v in values:
        if v.region in chain and chain.index(v.region) < depth:
            depth = chain.index(v.region)
    # Regions that run their body other than once per entry (parallel
    # iterations) keep their views: only loops and branches are left.
    for i in range(depth):
        if chain[i].kind not in ("pipelined", "for", "if", "while"):
            return chain[i]
    return chain[depth]


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


def copy(src, dst, pad=None, coalesced_width=None, disable_tma=False,
         eviction_policy=None, annotations=None, loop_layout=None, _barrier=None):
    """T.copy(src, dst): copies a tile between global memory, shared memory
    and fragments. A global side is a tensor with an element origin
    (``A[by * 128, k * 32]``) or a region (``A[i0:i1, j0:j1]``); the tile's
    shape is the other side's. Regions of shared buffers and fragments
    (``S[:, k]``, ``acc[:h, :]``) copy element by element in a T.Parallel.
    ``pad`` (tile's extension) is the value read outside the tensor
    (default 0)."""
    b = _block_level("T.copy")
    s, d = _Side(src, "the source"), _Side(dst, "the destination")
    s, d = _whole(s), _whole(d)
    if s.is_global and d.is_global:
        return _copy_global_to_global(s, d, pad)
    if not s.is_global and not d.is_global:
        if s.origin is not None or d.origin is not None or \
                s.buffer.shape != d.buffer.shape:
            if s.origin is None and d.origin is None:
                raise error(f"T.copy between tiles of different shapes "
                            f"{list(s.buffer.shape)} and {list(d.buffer.shape)}")
            _parallel_copy(s, d, "T.copy")
            return
        b.emit(f"tile.copy {s.buffer.value.name} -> {d.buffer.value.name} : "
               f"{s.buffer.type_text()}, {d.buffer.type_text()}", result=False)
        return
    tile, glob = (d, s) if s.is_global else (s, d)
    if tile.origin is not None:
        _parallel_copy(s, d, "T.copy", pad=pad)
        return
    tile_shape = tile.buffer.shape
    _check_region_shape(glob, tile_shape)
    name, gtype, offsets, _ = _global_view(glob, len(tile_shape))
    offs = _offsets_text(offsets)
    attr = ""
    if pad is not None:
        if not s.is_global:
            raise error("pad applies to copies that read global memory")
        attr = f" {{pad = {_pad_literal(pad, s.buffer.dtype)} : {s.buffer.dtype.ir}}}"
    if _barrier is not None:
        # T.tma_copy: a load into shared memory that signals a barrier.
        if not s.is_global or tile.buffer.kind != "shared":
            raise error("T.tma_copy with a barrier copies from global to shared memory")
        group, index = _barrier
        b.emit(f"tile.copy {name}[{offs}] -> {tile.buffer.value.name} "
               f"barrier({group.value.name}[{index}]){attr} : {gtype}, "
               f"{tile.buffer.type_text()}, {group.type_text()}", result=False)
    elif s.is_global:
        b.emit(f"tile.copy {name}[{offs}] -> {tile.buffer.value.name}{attr} : "
               f"{gtype}, {tile.buffer.type_text()}", result=False)
    else:
        b.emit(f"tile.copy {tile.buffer.value.name} -> {name}[{offs}] : "
               f"{tile.buffer.type_text()}, {gtype}", result=False)


def _pad_literal(pad, et):
    pv = operand(pad)
    if isinstance(pv, Value):
        raise error("pad must be a compile-time number")
    from .values import _float_literal
    return _float_literal(float(pv), et) if et.is_float else str(int(pv))


def _whole(side):
    """A region of a shared buffer or fragment that covers all of it is
    the buffer itself."""
    if side.origin != "region" or side.is_global:
        return side
    buf = side.buffer
    for start, extent, size in zip(side.indices, side.extents, buf.shape):
        st = operand(start)
        if isinstance(st, Value) or st != 0 or extent != size:
            return side
    side.origin, side.extents = None, None
    return side


def _region_dims(side, what):
    """(starts, extents) of a copy side; extents None for an indexed
    (dropped) dim, "?" for a dynamic one; an element origin's extents are
    None (taken from the other side)."""
    buf = side.buffer
    if side.origin is None:
        return [0] * buf.ndim, list(buf.shape)
    if side.origin == "region":
        return list(side.indices), list(side.extents)
    return list(side.indices), None


class _If:
    """``with _If(cond):`` an scf.if around what the body emits (cond a
    run-time i1; a compile-time True emits nothing)."""

    def __init__(self, cond):
        self.cond = cond

    def __enter__(self):
        b = current_builder()
        if self.cond is True:
            self.region = None
            return self
        c = convert(self.cond, dt.bool_)
        _, op = b.emit(f"scf.if {c.name}", result=False)
        self.region = b.open_region("if", op)
        return self

    def __exit__(self, exc_type, *rest):
        if self.region is not None:
            current_builder().leave_region(self.region, exc_type is not None)
        return False


def _and(a, b):
    if a is True:
        return b
    if b is True:
        return a
    return binary("and", a, b)


def _parallel_copy(s, d, what, pad=None, combine=None):
    """Copies (or, with `combine` "add"/"max"/"min", atomically combines)
    a region element by element in a T.Parallel. A fragment side must be
    the whole fragment (each thread touches the elements of its own loop
    indices), so the loop then runs over the fragment's shape and masks
    the rows and columns beyond the region."""
    sides = {"src": s, "dst": d}
    dims = {k: _region_dims(v, what) for k, v in sides.items()}
    tile = None
    for k in ("src", "dst"):
        starts, extents = dims[k]
        if extents is not None:
            kept = [e for e in extents if e is not None]
            if any(e == "?" for e in kept):
                raise error(f"{what}: the region of '{sides[k].buffer.name}' needs a "
                            "static shape")
            if tile is None:
                tile = kept
            elif kept != tile:
                raise error(f"{what}: the regions have shapes {tile} and {kept}")
    if tile is None:
        raise error(f"{what}: both sides are element origins; give one a region")
    for k in ("src", "dst"):
        starts, extents = dims[k]
        if extents is None:  # an element origin: leading dims indexed
            nbuf = sides[k].buffer.ndim
            if nbuf < len(tile):
                raise error(f"{what}: '{sides[k].buffer.name}' has {nbuf} dimensions, "
                            f"the tile {len(tile)}")
            dims[k] = (starts, [None] * (nbuf - len(tile)) + list(tile))
    loop = list(tile)
    for k in ("src", "dst"):
        side = sides[k]
        if side.buffer.kind != "fragment":
            continue
        starts, extents = dims[k]
        for axis, (st, e) in enumerate(zip(starts, extents)):
            # An indexed dim reads the same element in every iteration (a
            # uniform index, which the tile dialect keeps in every thread's
            # slots); the sliced ones run over the loop's own indices.
            if e is None:
                continue
            stv = operand(st)
            if isinstance(stv, Value) or stv != 0:
                raise error(
                    f"{what}: fragment '{side.buffer.name or ''}' is sliced from "
                    f"{_show(st)} in dim {axis}; a fragment's elements are accessed "
                    "at the T.Parallel loop's own indices (or at one index for all "
                    "of them), so a slice of a fragment must start at 0")
        full = [n for n, e in zip(side.buffer.shape, extents) if e is not None]
        if any(f < t for f, t in zip(full, tile)):
            raise error(f"{what}: the region is larger than fragment "
                        f"'{side.buffer.name or ''}'")
        if loop != list(tile) and loop != full:
            raise error(f"{what}: both fragments must have the same shape")
        loop = full
    for ivs in Parallel(*loop):
        ivs = ivs if isinstance(ivs, tuple) else (ivs,)
        mask = True
        for axis, (iv, e, n) in enumerate(zip(ivs, tile, loop)):
            if e < n:
                mask = _and(mask, binary("lt", iv, e))
        with _If(mask):
            idx = {}
            for k in ("src", "dst"):
                starts, extents = dims[k]
                out, it = [], iter(ivs)
                for st, e in zip(starts, extents):
                    out.append(st if e is None else binary("add", st, next(it)))
                idx[k] = out
            src_ref = ElementRef(s.buffer, idx["src"])
            if pad is not None and s.is_global:
                v = _load_padded(src_ref, pad)
            else:
                v = src_ref.load()
            dst_ref = ElementRef(d.buffer, idx["dst"])
            if combine is None:
                dst_ref.store(v)
            else:
                from .atomic import _element
                inside = True
                if d.is_global:
                    for i, size in zip(idx["dst"], d.buffer.shape):
                        inside = _and(inside, binary("lt", i, size))
                with _If(inside):
                    _element(combine, dst_ref, v, what)


def _load_padded(ref, pad):
    """A global element read whose out-of-tensor value is `pad`."""
    b = current_builder()
    buf = ref.buffer
    idx = ", ".join(index_operands(ref.indices))
    lit = _pad_literal(pad, buf.dtype)
    v, _ = b.emit(f"{{result}} = tile.load {buf.value.name}[{idx}] {{pad = {lit} : "
                  f"{buf.dtype.ir}}} : {buf.type_text()}", buf.dtype)
    return v


def _show(x):
    v = operand(x)
    return "a run-time value" if isinstance(v, Value) else str(v)


def im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad,
           eviction_policy=None, annotations=None):
    """``T.im2col(img, col, by, k, kernel, stride, dilation, pad)``: the
    block's im2col tile of a 2-d convolution. `img` is an NHWC tensor,
    `col` a (pixels x channels) shared buffer or fragment; element
    ``[i, j]`` is the input under output pixel ``by * pixels + i`` (n, oh,
    ow) at filter position ``k * channels + j`` (kh, kw, c, c fastest),
    0 in the padding. Into a shared buffer it is one tile.im2col (which a
    T.Pipelined loop runs ahead as 16-byte cp.async chunks); into a
    fragment, a T.Parallel."""
    _block_level("T.im2col")
    src = as_buffer(img, "T.im2col's image")
    dst = as_buffer(col, "T.im2col's column buffer")
    if src.kind != "global" or src.ndim != 4:
        raise error("T.im2col's image must be a 4-d (N, H, W, C) global tensor")
    if dst.kind not in ("shared", "fragment") or dst.ndim != 2:
        raise error("T.im2col's column buffer must be a 2-d shared buffer or fragment")
    k = static_int(kernel, "T.im2col's kernel size")
    st = static_int(stride, "T.im2col's stride")
    dil = static_int(dilation, "T.im2col's dilation")
    p = static_int(pad, "T.im2col's padding")
    if k < 1 or st < 1 or dil < 1 or p < 0:
        raise error(f"T.im2col needs a kernel, stride and dilation of at least 1 "
                    f"and padding of at least 0, got {k}, {st}, {dil}, {p}")
    if dst.kind == "shared":
        if src.dtype != dst.dtype:
            raise error(f"T.im2col's column buffer is {dst.dtype}, its image "
                        f"{src.dtype}: they must match")
        b = current_builder()
        steps = [convert(s, dt.index).name for s in (nhw_step, c_step)]
        b.emit(f"tile.im2col {src.value.name}[{steps[0]}, {steps[1]}] -> "
               f"{dst.value.name} kernel {k} stride {st} dilation {dil} padding {p} : "
               f"{src.type_text()}, {dst.type_text()}", result=False)
        return
    _, H, W, C = src.shape
    oh_n = binary("add", binary("floordiv", binary("sub", binary("add", H, 2 * p),
                                                       dil * (k - 1) + 1), st), 1)
    ow_n = binary("add", binary("floordiv", binary("sub", binary("add", W, 2 * p),
                                                       dil * (k - 1) + 1), st), 1)
    rows, cols = dst.shape
    for i, j in Parallel(rows, cols):
        m = binary("add", binary("mul", nhw_step, rows), i)
        kk = binary("add", binary("mul", c_step, cols), j)
        ow = binary("mod", m, ow_n)
        oh = binary("mod", binary("floordiv", m, ow_n), oh_n)
        n = binary("floordiv", m, binary("mul", ow_n, oh_n))
        c = binary("mod", kk, C)
        kw = binary("mod", binary("floordiv", kk, C), k)
        kh = binary("floordiv", kk, binary("mul", C, k))
        h = binary("add", binary("sub", binary("mul", oh, st), p), binary("mul", kh, dil))
        w = binary("add", binary("sub", binary("mul", ow, st), p), binary("mul", kw, dil))
        inside = binary("and", binary("and", binary("ge", h, 0), binary("lt", h, H)),
                        binary("and", binary("ge", w, 0), binary("lt", w, W)))
        v = ElementRef(src, (n, h, w, c)).load()
        ElementRef(dst, (i, j)).store(select(inside, v, constant(0, src.dtype)))


def reshape(src, shape):
    """``T.reshape(A, shape)``: a global tensor seen with another shape
    (T.Tensor(shape, A.dtype, A.data))."""
    from .frontend import view as _view
    buf = as_buffer(src, "T.reshape's source")
    return _view(shape, buf.dtype, buf)


def view(src, shape=None, dtype=None):
    """``T.view(A, shape, dtype)``: as T.reshape (the element type must stay)."""
    from .frontend import view as _view
    buf = as_buffer(src, "T.view's source")
    return _view(buf.shape if shape is None else shape, dtype or buf.dtype, buf)


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
    """The side as T.copy takes it again: a region stays a region (its
    indexed dims, wherever they are, are the ones dropped)."""
    if side.origin is None:
        return side.buffer
    if side.origin == "region":
        region = BufferRegion.__new__(BufferRegion)
        region.buffer, region.starts = side.buffer, list(side.indices)
        region.extents = list(side.extents)
        return region
    return ElementRef(side.buffer, side.indices)


# ---------------------------------------------------------------------------
# Compute
# ---------------------------------------------------------------------------


class GemmWarpPolicy(enum.Enum):
    """How the block's warps divide a gemm's C tile (TileLang's values 0, 1,
    2 name them too)."""
    Square = "square"
    FullRow = "full_row"
    FullCol = "full_col"

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 3:
            return (cls.Square, cls.FullRow, cls.FullCol)[value]
        return None

    def is_square(self):
        return self is GemmWarpPolicy.Square

    def is_full_row(self):
        return self is GemmWarpPolicy.FullRow

    def is_full_col(self):
        return self is GemmWarpPolicy.FullCol


def gemm(A, B, C, transpose_A=False, transpose_B=False,
         policy=GemmWarpPolicy.Square, clear_accum=False, k_pack=1, wg_wait=0,
         mbar=None):
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
    if isinstance(policy, (str, int)) and not isinstance(policy, GemmWarpPolicy):
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
    """T.fill(buffer, value): writes `value` into every element (of a
    buffer, a region of one, or a T.alloc_var variable)."""
    if isinstance(buffer, Var):
        buffer.store(value)
        return
    b = _block_level(_what)
    if isinstance(buffer, BufferRegion):
        side = _whole(_Side(buffer, "the buffer"))
        if side.origin is not None:
            _fill_region(side, value, _what)
            return
        buffer = side.buffer
    buf = as_buffer(buffer, f"{_what}'s buffer")
    if buf.kind == "local":
        import itertools
        for idx in itertools.product(*[range(n) for n in buf.shape]):
            ElementRef(buf, idx).store(value)
        return
    if buf.kind not in ("shared", "fragment"):
        raise error(f"{_what} writes shared buffers, fragments and local variables; "
                    f"for a global tensor, fill a region of it (A[i0:i1, j0:j1])")
    v = convert(value, buf.dtype)
    b.emit(f"tile.fill {buf.value.name}, {v.name} : {buf.type_text()}", result=False)


def _fill_region(side, value, what):
    starts, extents = _region_dims(side, what)
    kept = [e for e in extents if e is not None]
    if any(e == "?" for e in kept):
        raise error(f"{what}: the region of '{side.buffer.name}' needs a static shape")
    if side.buffer.kind == "fragment":
        raise error(f"{what} of a part of fragment '{side.buffer.name or ''}': a "
                    "fragment's elements are written at the T.Parallel loop's own "
                    "indices; fill the whole fragment or use a T.Parallel with a mask")
    for ivs in Parallel(*kept):
        ivs = ivs if isinstance(ivs, tuple) else (ivs,)
        it = iter(ivs)
        idx = [st if e is None else binary("add", st, next(it))
               for st, e in zip(starts, extents)]
        ElementRef(side.buffer, idx).store(value)


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

    def __init__(self, *extents, coalesced_width=None, loop_layout=None,
                 prefer_async=None, annotations=None):
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
                 sync=None, group=None, annotations=None):
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
Serial = serial
Vectorized = serial
Unroll = unroll


class Persistent(_Loop):
    """``for bx, by in T.Persistent([M_tiles, N_tiles], wave_size, index):``
    TileLang's persistent loop: block `index` of `wave_size` blocks visits
    the tiles index, index + wave_size, ... of the domain, walked in groups
    of `group_size` along its last dim (L2 reuse); each iteration's body
    sees the tile's coordinates. A loop over waves with the body under a
    bound check."""

    def __init__(self, domain, wave_size, index, group_size=8):
        if not isinstance(domain, (list, tuple)) or not domain:
            raise error("T.Persistent's domain is a list of tile counts")
        self.domain = list(domain)
        self.wave_size = wave_size
        self.index = index
        self.group_size = group_size

    def __iter__(self):
        b = current_builder("T.Persistent")
        if b.innermost("kernel") is None:
            raise error("T.Persistent must be inside a T.Kernel")
        dom = [operand(d) for d in self.domain]
        last = dom[-1]
        group = max(1, min(static_int(self.group_size, "group_size"), last)) \
            if not isinstance(last, Value) else binary("max", 1, binary(
                "min", self.group_size, last))
        grouped = [ceildiv(last, group)] + dom[:-1] + [group]
        padded = 1
        for g in grouped:
            padded = binary("mul", padded, g)
        waves = ceildiv(padded, self.wave_size)
        loop = serial(waves)
        outer = loop._open()
        for_region = outer.current
        w = for_region.args[0]
        try:
            rem = binary("add", binary("mul", w, self.wave_size), self.index)
            idxs = [None] * len(grouped)
            for i in range(len(grouped) - 1, 0, -1):
                idxs[i] = binary("mod", rem, grouped[i])
                rem = binary("floordiv", rem, grouped[i])
            idxs[0] = rem
            last_coord = binary("add", binary("mul", idxs[0], group), idxs[-1])
            coords = [idxs[i + 1] for i in range(len(dom) - 1)] + [last_coord]
            with _If(binary("lt", last_coord, last)):
                yield coords[0] if len(coords) == 1 else tuple(coords)
        finally:
            b.leave_region(for_region, b.current is not for_region)




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
    r = lazy("ceildiv", a, b)
    if r is not None:
        return r
    x, y = operand(a), operand(b)
    if not isinstance(x, Value) and not isinstance(y, Value):
        return -(-int(x) // int(y))
    return binary("floordiv", binary("sub", binary("add", x, y), 1), y)


def max(a, b):  # noqa: A001 - TileLang's name
    r = lazy("max", a, b)
    return r if r is not None else binary("max", a, b)


def min(a, b):  # noqa: A001 - TileLang's name
    r = lazy("min", a, b)
    return r if r is not None else binary("min", a, b)


cdiv = ceildiv


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
