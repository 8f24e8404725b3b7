"""Warp specialization written by hand (TileLang's ``T.ws``): regions that
some warpgroups of the block run, and the barriers they hand tiles over
with (``T.alloc_barrier``, ``T.barrier_arrive``, ``T.barrier_wait``,
``T.tma_copy``). See docs/python.md, "Warp specialization by hand"."""

from . import dtypes as dt
from .builder import current_builder, error
from .ops import _block_level, _kernel, copy
from .values import Value, constant, convert, operand, static_int

#: Threads of a warpgroup (TileLang's ``T.ws`` counts in warpgroups).
WARPGROUP = 128


class ws:
    """``with T.ws(i):`` (or ``T.ws(i, j)``, consecutive warpgroups) runs the
    body in warpgroup i of the block only: threads 128 i to 128 (i + 1). Its
    tile ops (copies, gemms, ...) are those threads' and its fragments are
    laid out over them; other warpgroups' regions run at the same time, and
    the program orders what they share with barriers."""

    def __init__(self, *warp_group_idx):
        if len(warp_group_idx) == 1 and isinstance(warp_group_idx[0], (list, tuple)):
            warp_group_idx = tuple(warp_group_idx[0])
        if not warp_group_idx:
            raise error("T.ws needs at least one warpgroup index")
        ids = sorted({static_int(i, "T.ws's warpgroup index") for i in warp_group_idx})
        if ids[0] < 0:
            raise error(f"T.ws's warpgroup indices must be >= 0, got {ids[0]}")
        if ids != list(range(ids[0], ids[-1] + 1)):
            raise error(f"T.ws's warpgroups must be consecutive, got {ids}: tile's "
                        "thread ranges are contiguous")
        self.begin = ids[0] * WARPGROUP
        self.end = (ids[-1] + 1) * WARPGROUP

    def __enter__(self):
        b = _block_level("T.ws")
        k = _kernel()
        if self.end > k.threads:
            raise error(f"T.ws covers threads {self.begin} to {self.end}, but the "
                        f"kernel has {k.threads} threads")
        if b.innermost("thread_range") is not None:
            raise error("T.ws cannot be nested in another T.ws")
        _, op = b.emit(f"tile.thread_range {self.begin} to {self.end}", result=False)
        self.region = b.open_region("thread_range", op)
        return self

    def __exit__(self, exc_type, *rest):
        current_builder().leave_region(self.region, exc_type is not None)
        return False


WarpSpecialize = ws


class Barriers:
    """Barriers of the block made by ``T.alloc_barrier``; ``bars[i]`` is one
    of them (a barrier used without an index is the first)."""

    def __init__(self, value, counts):
        self.value = value
        self.counts = counts

    def type_text(self):
        return f"!tile.barrier<{len(self.counts)}>"

    def __getitem__(self, index):
        i = operand(index)
        if not isinstance(i, Value):
            i = static_int(i, "a barrier index")
            if not 0 <= i < len(self.counts):
                raise error(f"barrier index {i} is out of range: T.alloc_barrier "
                            f"made {len(self.counts)}")
        return BarrierRef(self, index)

    def __len__(self):
        return len(self.counts)


class BarrierRef:
    """One barrier of a group: ``bars[i]``."""

    def __init__(self, group, index):
        self.group = group
        self.index = index


def _barrier(mbarrier, what):
    """(group, index name) of a barrier argument."""
    if isinstance(mbarrier, Barriers):
        mbarrier = BarrierRef(mbarrier, 0)
    if not isinstance(mbarrier, BarrierRef):
        raise error(f"{what} expects a barrier from T.alloc_barrier, got "
                    f"{type(mbarrier).__name__}")
    i = operand(mbarrier.index)
    if isinstance(i, Value):
        if i.dtype.is_float:
            raise error(f"{what}: a barrier index must be an integer")
        name = convert(i, dt.index).name
    else:
        name = constant(int(i), dt.index).name
    return mbarrier.group, name


def alloc_barrier(arrive_count):
    """``T.alloc_barrier(arrive_count)``: barriers in shared memory, one per
    count of a list (or one), each completing a phase after that many
    arrivals. Made by the whole block, at the kernel's level."""
    b = _block_level("T.alloc_barrier")
    if b.current.kind != "kernel":
        raise error("T.alloc_barrier must be at the kernel's level (not in a "
                    "loop, branch or T.ws)")
    counts = arrive_count if isinstance(arrive_count, (list, tuple)) else [arrive_count]
    counts = [static_int(c, "an arrival count") for c in counts]
    if not counts:
        raise error("T.alloc_barrier needs at least one arrival count")
    for c in counts:
        if c < 1:
            raise error(f"arrival counts must be positive, got {c}")
    text = ", ".join(map(str, counts))
    value, _ = b.emit(f"{{result}} = tile.alloc_barrier [{text}] : "
                      f"!tile.barrier<{len(counts)}>", None, hint="bars")
    return Barriers(value, counts)


def _thread_op(what):
    b = current_builder(what)
    _kernel()
    if b.innermost("parallel") is not None:
        raise error(f"{what} in a T.Parallel body: a barrier is the running "
                    "thread's, and the compiler assigns the body's iterations to threads")
    return b


def _arrive(mbarrier, what):
    b = _thread_op(what)
    group, index = _barrier(mbarrier, what)
    b.emit(f"tile.barrier_arrive {group.value.name}[{index}] : {group.type_text()}",
           result=False)


def mbarrier_arrive(mbarrier, cta_id=None):
    """``T.mbarrier_arrive(b)``: the running thread arrives at barrier `b`."""
    if cta_id is not None:
        raise error("T.mbarrier_arrive(b, cta_id) (arriving at another block's "
                    "barrier in a cluster) is not supported")
    _arrive(mbarrier, "T.mbarrier_arrive")


def barrier_arrive(mbarrier):
    """``T.barrier_arrive(b)``: as ``T.mbarrier_arrive``."""
    _arrive(mbarrier, "T.barrier_arrive")


def _wait(mbarrier, parity, what):
    b = _thread_op(what)
    group, index = _barrier(mbarrier, what)
    p = operand(parity)
    if isinstance(p, Value):
        if p.dtype.is_float:
            raise error(f"{what}: the parity must be an integer")
        p = convert(p, dt.index)
    else:
        p = constant(int(p) & 1, dt.index)
    b.emit(f"tile.barrier_wait {group.value.name}[{index}], {p.name} : "
           f"{group.type_text()}", result=False)


def mbarrier_wait_parity(mbarrier, parity):
    """``T.mbarrier_wait_parity(b, parity)``: the running thread waits until
    the phase of barrier `b` of that parity (0 or 1, its low bit) has
    completed; on a new barrier, parity 1 passes at once."""
    _wait(mbarrier, parity, "T.mbarrier_wait_parity")


def barrier_wait(mbarrier, parity):
    """``T.barrier_wait(b, parity)``: as ``T.mbarrier_wait_parity``."""
    _wait(mbarrier, parity, "T.barrier_wait")


def tma_copy(src, dst, *, barrier=None, cluster_mask=None, leader_scope_threads=None,
             eviction_policy=None, annotations=None):
    """``T.tma_copy(src, dst, barrier=b)``: a copy from global to shared
    memory that completes on barrier `b`: the threads that wait for the
    barrier's phase see its data. (On Hopper a TMA load counted on the
    mbarrier; elsewhere the range's threads copy before going on.) A store
    (shared to global) takes no barrier and is done when the op is."""
    if cluster_mask is not None:
        raise error("T.tma_copy's cluster_mask (multicast within a cluster) is "
                    "not supported")
    if barrier is None:
        copy(src, dst)
        return
    group, index = _barrier(barrier, "T.tma_copy")
    copy(src, dst, _barrier=(group, index))


def tma_store_wait(*args, **kwargs):
    """``T.tma_store_wait()``: tile's stores are done when their copy is."""
    _kernel()


# -- the lower-level primitives TileLang's hand-specialized programs use ------

def set_max_nreg(reg_count, is_inc):
    """``T.set_max_nreg(n, is_inc)``: TileLang's register budget of the running
    warpgroup (setmaxnreg). A hint: tile's thread ranges keep the budget the
    compiler gives the kernel; accepted."""
    _kernel()
    static_int(reg_count, "T.set_max_nreg's register count")
    static_int(is_inc, "T.set_max_nreg's is_inc")


def annotate_producer_reg_dealloc(reg_count=24):
    """``T.annotate_producer_reg_dealloc(n)``: a register hint; accepted."""
    _kernel()


def annotate_consumer_reg_alloc(reg_count=240):
    """``T.annotate_consumer_reg_alloc(n)``: a register hint; accepted."""
    _kernel()


def wgmma_gemm(A, B, C, transpose_A=False, transpose_B=False, policy=None,
               clear_accum=False, k_pack=1, wg_wait=0):
    """``T.wgmma_gemm(A, B, C, ...)``: TileLang's gemm issued without waiting
    (``T.wait_wgmma`` waits). tile's ``T.gemm`` is done when it returns, so
    the wait has nothing left to wait for."""
    from .ops import GemmWarpPolicy, gemm
    gemm(A, B, C, transpose_A=transpose_A, transpose_B=transpose_B,
         policy=GemmWarpPolicy.Square if policy is None else policy,
         clear_accum=clear_accum, k_pack=k_pack)


def wait_wgmma(id=0):
    """``T.wait_wgmma(n)``: tile's gemms are complete when issued; accepted."""
    _kernel()


def ptx_commit_group():
    """``T.ptx_commit_group()``: tile's ``T.ptx_cp_async`` copies are done when
    issued; accepted."""
    _kernel()


def ptx_wait_group(num=0):
    """``T.ptx_wait_group(n)``: as ``T.ptx_commit_group``; accepted."""
    _kernel()


class AccessPtr:
    """``T.access_ptr(buffer[i, j], mask, extent)``: the place of an element,
    for ``T.ptx_cp_async``."""

    def __init__(self, element, access_mask, extent):
        from .buffers import ElementRef
        if not isinstance(element, ElementRef):
            raise error("T.access_ptr takes a buffer element (buffer[i, j])")
        self.element = element
        self.access_mask = access_mask
        self.extent = extent


def access_ptr(element, access_mask="rw", extent=1, offset=0):
    """``T.access_ptr(buffer[i, j], "r" | "w" | "rw", extent)``."""
    if offset:
        raise error("T.access_ptr's offset is not supported: index the element instead")
    return AccessPtr(element, access_mask, extent)


def ptx_cp_async(dst, src, bytes):
    """``T.ptx_cp_async(T.access_ptr(S[...], "w", n), T.access_ptr(A[...], "r",
    n), bytes)``: the running thread copies `bytes` bytes of consecutive
    elements (along the innermost dim) from `src`'s element to `dst`'s. tile
    copies them before going on (TileLang's copy is asynchronous: its
    ``T.cp_async_barrier_noinc`` or ``T.ptx_wait_group`` are then at once
    satisfied)."""
    from .buffers import ElementRef
    _thread_op("T.ptx_cp_async")
    if not isinstance(dst, AccessPtr) or not isinstance(src, AccessPtr):
        raise error("T.ptx_cp_async takes two T.access_ptr places")
    d, s = dst.element, src.element
    if d.buffer.dtype != s.buffer.dtype:
        raise error(f"T.ptx_cp_async copies between buffers of one dtype, got "
                    f"{s.buffer.dtype.name} and {d.buffer.dtype.name}")
    n = static_int(bytes, "T.ptx_cp_async's byte count")
    width = d.buffer.dtype.bits // 8
    if n <= 0 or n % width:
        raise error(f"T.ptx_cp_async copies whole elements: {n} bytes of "
                    f"{d.buffer.dtype.name}")
    for e in range(n // width):
        def at(ref):
            return ElementRef(ref.buffer, ref.indices[:-1] + (ref.indices[-1] + e,))
        at(d).store(at(s).load())


def cp_async_barrier_noinc(mbarrier):
    """``T.cp_async_barrier_noinc(b)``: the running thread arrives at `b` once
    its ``T.ptx_cp_async`` copies are done (counted in the barrier's arrival
    count): tile's are done already, so an arrival."""
    _arrive(mbarrier, "T.cp_async_barrier_noinc")
