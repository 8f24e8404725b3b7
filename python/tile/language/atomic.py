"""Atomics: T.atomic_add / atomic_max / atomic_min of one value into one
element (``memref.atomic_rmw``) or of a tile into a region of a global
tensor (``tile.atomic_add``, or a T.Parallel of element atomics), the
vectorized T.atomic_addx2 / atomic_addx4, T.atomic_load / atomic_store /
atomic_or of one element, and their memory orders (``tile.fence``)."""

from __future__ import annotations

from .builder import current_builder, error
from .buffers import Buffer, BufferRegion, ElementRef, index_operands
from .values import binary, constant, convert

# TileLang's memory orders. tile's atomics are relaxed (atomic, ordered with
# nothing else); an order adds device-scope fences around one (tile.fence):
# a release fence before it, an acquire fence after it (consume is read as
# acquire), both for acq_rel, and seq_cst fences on both sides for seq_cst.
MEMORY_ORDERS = ("relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst")
_FENCE_BEFORE = {"release": "release", "acq_rel": "release", "seq_cst": "seq_cst"}
_FENCE_AFTER = {"consume": "acquire", "acquire": "acquire", "acq_rel": "acquire",
                "seq_cst": "seq_cst"}
_LOAD_ORDERS = ("relaxed", "consume", "acquire", "seq_cst")
_STORE_ORDERS = ("relaxed", "release", "seq_cst")


def _check_order(memory_order, what, allowed=MEMORY_ORDERS):
    if memory_order is None:
        return
    if memory_order not in allowed:
        known = "unknown" if memory_order not in MEMORY_ORDERS else "unsupported"
        raise error(f"{what}: {known} memory_order {memory_order!r} (one of "
                    f"{', '.join(allowed)})")


def _fence(order, what):
    current_builder(what).emit(f"tile.fence {order}", result=False)


def _ordered(memory_order, what, emit):
    """`emit()` (a relaxed atomic) with the fences that give it `memory_order`."""
    if memory_order in _FENCE_BEFORE:
        _fence(_FENCE_BEFORE[memory_order], what)
    result = emit()
    if memory_order in _FENCE_AFTER:
        _fence(_FENCE_AFTER[memory_order], what)
    return result


def _rmw_kind(op, d, what):
    if op == "add":
        return "addf" if d.is_float else "addi"
    if d.is_float:
        return {"max": "maxnumf", "min": "minnumf"}[op]
    unsigned = d.kind in ("uint", "bool")
    return {"max": "maxu" if unsigned else "maxs",
            "min": "minu" if unsigned else "mins"}[op]


def _element(op, ref, value, what, kind=None):
    """One atomic read-modify-write of ``ref`` (an element), of `kind` (a
    memref.atomic_rmw kind) or else the kind of `op`; returns the previous
    value."""
    b = current_builder(what)
    buf = ref.buffer
    if buf.kind == "fragment":
        raise error(f"{what} on a fragment element: fragments are per-thread "
                    "registers; atomics update global or shared memory")
    if buf.kind == "local":
        raise error(f"{what} on a local variable: it is private to its thread; "
                    "assign to it instead")
    if b.innermost("kernel") is None:
        raise error(f"{what} must be inside a T.Kernel")
    buf._check_visible()
    v = convert(value, buf.dtype)
    idx = ", ".join(index_operands(ref.indices))
    kind = kind or _rmw_kind(op, buf.dtype, what)
    prev, _ = b.emit(f"{{result}} = memref.atomic_rmw {kind} {v.name}, {buf.value.name}"
                     f"[{idx}] : ({buf.dtype.ir}, {buf.type_text()}) -> {buf.dtype.ir}",
                     buf.dtype)
    return prev


def _tile_source(value, what):
    """A tile operand (shared buffer or fragment, whole or a region) as
    (buffer, starts, extents) or None when `value` is a scalar."""
    if isinstance(value, Buffer):
        if value.kind not in ("shared", "fragment"):
            raise error(f"{what}: the value must be a tile (shared buffer or fragment) "
                        f"or a scalar, got a {value.kind} buffer")
        return value
    if isinstance(value, BufferRegion):
        return value
    return None


def _tile_atomic(op, dst, value, what):
    """A tile added (max-ed, min-ed) into a region of a global tensor."""
    from .ops import _Side, _check_region_shape, _global_view, _offsets_text, \
        _parallel_copy, _block_level
    b = _block_level(what)
    side = _Side(dst, "the destination")
    if not side.is_global:
        raise error(f"{what} of a tile adds into global memory")
    if op == "add" and isinstance(value, Buffer):
        _check_region_shape(side, value.shape)
        name, gtype, offsets, _ = _global_view(side, value.ndim)
        b.emit(f"tile.atomic_add {value.value.name} -> {name}[{_offsets_text(offsets)}] : "
               f"{value.type_text()}, {gtype}", result=False)
        return
    # Element atomics in a T.Parallel over the tile.
    src = _Side(value, "the value")
    _parallel_copy(src, side, what, combine=op)


def atomic_add(dst, value, memory_order=None, return_prev=False, use_tma=False):
    """``T.atomic_add(dst, value)``: ``dst[...] += value`` atomically. `dst`
    an element and `value` a scalar (returns the previous value with
    ``return_prev=True``), or `dst` a region / element origin of a global
    tensor and `value` a tile."""
    _check_order(memory_order, "T.atomic_add")
    return _ordered(memory_order, "T.atomic_add",
                    lambda: _atomic("add", dst, value, return_prev, "T.atomic_add"))


def atomic_max(dst, value, memory_order=None, return_prev=False):
    """``T.atomic_max(dst, value)``: ``dst = max(dst, value)`` atomically."""
    _check_order(memory_order, "T.atomic_max")
    return _ordered(memory_order, "T.atomic_max",
                    lambda: _atomic("max", dst, value, return_prev, "T.atomic_max"))


def atomic_min(dst, value, memory_order=None, return_prev=False):
    """``T.atomic_min(dst, value)``: ``dst = min(dst, value)`` atomically."""
    _check_order(memory_order, "T.atomic_min")
    return _ordered(memory_order, "T.atomic_min",
                    lambda: _atomic("min", dst, value, return_prev, "T.atomic_min"))


def _atomic(op, dst, value, return_prev, what):
    current_builder(what)
    tile_value = _tile_source(value, what)
    if tile_value is not None:
        if return_prev:
            raise error(f"{what} of a tile cannot return the previous values "
                        "(return_prev is for one element)")
        _tile_atomic(op, dst, tile_value, what)
        return None
    if not isinstance(dst, ElementRef):
        raise error(f"{what} of a value updates one element: dst must be "
                    "buffer[indices]")
    prev = _element(op, dst, value, what)
    return prev if return_prev else None


def _vector(dst, value, lanes, return_prev, what):
    if not isinstance(dst, ElementRef) or not isinstance(value, ElementRef):
        raise error(f"{what}(dst, value) takes two elements, buffer[i, j]: the "
                    f"{lanes} consecutive elements from there are added")
    if value.buffer.kind == "fragment":
        raise error(f"{what} reads {lanes} consecutive elements of its value, which a "
                    "fragment does not allow (a thread reads the elements of its own "
                    "T.Parallel indices); use T.atomic_add per element")
    prevs = []
    for k in range(lanes):
        d_idx = tuple(dst.indices[:-1]) + (binary("add", dst.indices[-1], k),)
        v_idx = tuple(value.indices[:-1]) + (binary("add", value.indices[-1], k),)
        prevs.append(_element("add", ElementRef(dst.buffer, d_idx),
                              ElementRef(value.buffer, v_idx), what))
    return tuple(prevs) if return_prev else None


def atomic_addx2(dst, value, return_prev=False):
    """``T.atomic_addx2(dst[i, j], src[i, j])``: adds ``src[i, j:j+2]`` into
    ``dst[i, j:j+2]`` (each element atomically)."""
    return _vector(dst, value, 2, return_prev, "T.atomic_addx2")


def atomic_addx4(dst, value, return_prev=False):
    """``T.atomic_addx4``: as atomic_addx2, four elements."""
    return _vector(dst, value, 4, return_prev, "T.atomic_addx4")


def _one_element(ref, what):
    """`ref` as one element: buffer[indices], or a buffer's first element
    (TileLang passes a one-element buffer, or its address, as a flag)."""
    if isinstance(ref, ElementRef):
        return ref
    if isinstance(ref, Buffer):
        return ElementRef(ref, (0,) * ref.ndim)
    raise error(f"{what} reads or writes one element: pass buffer[indices] "
                f"(or a buffer, for its first element), got {type(ref).__name__}")


def atomic_load(src, memory_order="seq_cst"):
    """``T.atomic_load(src, memory_order="seq_cst")``: the value of element
    `src`, read atomically (as an atomic that adds nothing: an integer or-ed
    with 0, a float plus -0.0), with acquire or seq_cst ordering."""
    what = "T.atomic_load"
    _check_order(memory_order, what, _LOAD_ORDERS)
    ref = _one_element(src, what)
    d = ref.buffer.dtype
    if d.is_float:
        kind, nothing = "addf", constant(-0.0, d)
    else:
        kind, nothing = "ori", constant(0, d)
    return _ordered(memory_order, what,
                    lambda: _element("load", ref, nothing, what, kind=kind))


def atomic_store(dst, src, memory_order="seq_cst"):
    """``T.atomic_store(dst, value, memory_order="seq_cst")``: writes element
    `dst` atomically (an exchange), with release or seq_cst ordering."""
    what = "T.atomic_store"
    _check_order(memory_order, what, _STORE_ORDERS)
    ref = _one_element(dst, what)
    _ordered(memory_order, what,
             lambda: _element("store", ref, src, what, kind="assign"))


def atomic_or(dst, value, memory_order=None):
    """``T.atomic_or(dst, value)``: ``dst |= value`` atomically, for an
    integer element."""
    what = "T.atomic_or"
    _check_order(memory_order, what)
    ref = _one_element(dst, what)
    if ref.buffer.dtype.is_float:
        raise error(f"{what} takes an integer element, got {ref.buffer.dtype.name}")
    _ordered(memory_order, what, lambda: _element("or", ref, value, what, kind="ori"))
