"""ReductionPolicy: configurations of memory-bound operations, best first:
elementwise maps (every dim spatial), reductions (``"SSR"``, ``"SRS"``, ...)
and GEMV (a reduction over the matrix).

The input's innermost dim is read in vectors of up to 16 bytes (the widest
power of two that divides it, so that vectors stay aligned). When that dim
is spatial, a block's threads line up along it, each taking 1, 2 or 4
vectors (from one 128-byte segment per row up to covering the dim), and
the rest of the block's threads go to the next spatial dims outwards, then
share the largest reduced dim; a reduced dim that is not innermost is
otherwise walked by each thread, 16 rows (or the largest divisor below) a
step.
When the innermost dim is reduced, `reduce_thread` threads (a warp to the
whole block) share it, each taking 1, 2 or 4 vectors per step, and the
block's other threads take one output each along the spatial dims. Blocks
have 128 or 256 threads.

The estimate: the bytes a block moves (its padded tile of the input, its
outputs) over the multiprocessor's share of DRAM bandwidth, which it
reaches only with enough bytes in flight to cover the memory latency
(resident threads x the vectors each issues); blocks run in waves; a
shared reduced dim adds a tree reduction across threads.
"""

from __future__ import annotations

import math

from ..hint import Hint, TileDict
from .common import (DeviceModel, ceil_div, check_extents, check_topk, dtype_bits,
                     largest_pow2_dividing, pow2_ceil)


class ReductionPolicy:
    """`structure[i]` "S" (spatial, kept) or "R" (reduced) for each dim of
    `shape`; the output has the spatial dims, in order."""

    THREADS = (128, 256)
    ITEMS = (1, 2, 4)
    VECTOR_BYTES = 16
    # rstep of a reduced dim that is not innermost: rows a thread stages
    # per step (the largest divisor of the dim up to this).
    OUTER_RSTEP = 16
    # Cycles of one level of a tree reduction across threads.
    SHUFFLE_CYCLES = 30

    def __init__(self, arch, shape, structure=None, in_dtype="float16", out_dtype=None,
                 input_name="A"):
        shape = list(shape)
        if not shape:
            raise ValueError("shape must have at least one dim")
        check_extents(**{f"shape[{i}]": s for i, s in enumerate(shape)})
        structure = "S" * len(shape) if structure is None else str(structure).upper()
        if len(structure) != len(shape) or set(structure) - {"S", "R"}:
            raise ValueError(f"structure must be one 'S' or 'R' per dim of {shape}, "
                             f"got {structure!r}")
        self.arch = arch
        self.device = DeviceModel.of(arch)
        self.shape = shape
        self.structure = structure
        self.in_bits = dtype_bits(in_dtype)
        self.out_bits = dtype_bits(out_dtype if out_dtype is not None else in_dtype)
        self.input_name = input_name
        self.spatial = [i for i, k in enumerate(structure) if k == "S"]
        self.reduced = [i for i, k in enumerate(structure) if k == "R"]
        inner = shape[-1]
        self.vector = largest_pow2_dividing(inner, max(1, self.VECTOR_BYTES * 8 // self.in_bits))
        self._candidates = None

    def candidates(self) -> list[TileDict]:
        if self._candidates is None:
            ranked, seen = [], set()
            for rank, td in sorted(self._enumerate(), key=lambda r: r[0]):
                h = td.hint
                key = (tuple(h.block), tuple(h.thread), tuple(h.rstep), tuple(h.reduce_thread))
                if key not in seen:
                    seen.add(key)
                    ranked.append(td)
            self._candidates = ranked
        return self._candidates

    def emit_config(self, topk: int = 10) -> list[Hint]:
        return [td.hint for td in self.candidates()[:check_topk(topk)]]

    def _enumerate(self):
        inner = len(self.shape) - 1
        cover = pow2_ceil(self.shape[inner])
        # Threads along the innermost dim: from one 128-byte segment per row
        # up to covering the dim.
        segment = max(1, 1024 // (self.vector * self.in_bits))
        for threads in self.THREADS:
            for items in self.ITEMS:
                if items > 1 and self.vector * items > cover:
                    continue
                cap = min(threads, pow2_ceil(ceil_div(self.shape[inner], self.vector * items)))
                if self.structure[inner] == "S":
                    for along in _powers(min(segment, cap), cap):
                        yield self._spatial_inner(threads, items, along)
                    continue
                options = {min(t, cap) for t in _powers(self.device.warp_size, threads)}
                for reduce_threads in sorted(options):
                    yield self._reduce_inner(threads, reduce_threads, items)

    def _spread(self, threads, thread, block, skip=None):
        """Gives `threads` to the spatial dims but `skip`, innermost first;
        returns the threads left over."""
        for dim in reversed(self.spatial):
            if dim == skip or threads == 1:
                continue
            t = min(threads, pow2_ceil(self.shape[dim]))
            thread[dim], block[dim] = t, t
            threads //= t
        return threads

    def _spatial_inner(self, threads, items, along):
        inner = len(self.shape) - 1
        thread = {d: 1 for d in self.spatial}
        block = {d: 1 for d in self.spatial}
        thread[inner], block[inner] = along, along * self.vector * items
        left = self._spread(threads // along, thread, block, skip=inner)
        rstep = {d: _largest_divisor(self.shape[d], self.OUTER_RSTEP) for d in self.reduced}
        reduce_thread = {d: 1 for d in self.reduced}
        if left > 1 and self.reduced:
            # Threads the outputs leave share the largest reduced dim.
            dim = max(self.reduced, key=lambda d: self.shape[d])
            shared = min(left, pow2_ceil(ceil_div(self.shape[dim], rstep[dim])))
            reduce_thread[dim], rstep[dim] = shared, rstep[dim] * shared
            left //= shared
        return self._estimate(threads // left, items, thread, block, rstep, reduce_thread)

    def _reduce_inner(self, threads, reduce_threads, items):
        inner = len(self.shape) - 1
        thread = {d: 1 for d in self.spatial}
        block = {d: 1 for d in self.spatial}
        left = self._spread(threads // reduce_threads, thread, block)
        rstep = {d: 1 for d in self.reduced}
        reduce_thread = {d: 1 for d in self.reduced}
        rstep[inner] = reduce_threads * self.vector * items
        reduce_thread[inner] = reduce_threads
        return self._estimate(threads // left, items, thread, block, rstep, reduce_thread)

    def _estimate(self, threads, items, thread, block, rstep, reduce_thread):
        d = self.device
        blocks = 1
        for dim in self.spatial:
            blocks *= ceil_div(self.shape[dim], block[dim])
        outputs = 1
        for dim in self.spatial:
            outputs *= block[dim]
        reduced = 1
        for dim in self.reduced:
            reduced *= ceil_div(self.shape[dim], rstep[dim]) * rstep[dim]
        block_bytes = outputs * reduced * self.in_bits / 8 + outputs * self.out_bits / 8
        occupancy = max(1, d.max_threads_per_sm // threads)
        resident = d.residency(blocks, occupancy)
        # Each thread has its vectors of every staged row in flight at once.
        rows = 1
        for dim in self.reduced:
            if dim != len(self.shape) - 1:
                rows *= rstep[dim] // reduce_thread[dim]
        in_flight = resident * threads * self.vector * items * rows * self.in_bits / 8
        bandwidth = min(d.dram_bytes_per_cycle, in_flight / d.memory_latency)
        shared = max((reduce_thread[dim] for dim in self.reduced), default=1)
        tree = math.log2(shared) * self.SHUFFLE_CYCLES * ceil_div(outputs * shared, threads)
        waves = ceil_div(blocks, d.sms * resident)
        cost = waves * (block_bytes * resident / bandwidth + tree + d.memory_latency)

        inner = len(self.shape) - 1
        hint = Hint()
        hint.arch = self.arch
        hint.use_tc = False
        hint.block = [block[dim] for dim in self.spatial]
        hint.thread = [thread[dim] for dim in self.spatial]
        hint.rstep = [rstep[dim] for dim in self.reduced]
        hint.reduce_thread = [reduce_thread[dim] for dim in self.reduced]
        hint._step = [self.vector if dim == inner else 1 for dim in self.spatial]
        hint.vectorize = {self.input_name: self.vector} if self.vector > 1 else {}

        td = TileDict(hint.block)
        td.tile_map = {"output": hint.block}
        td.rstep_map = {"output": {f"r{i}": rstep[dim] for i, dim in enumerate(self.reduced)}}
        td.smem_cost = 0
        td.block_per_SM = occupancy
        td.grid_size = blocks
        td.num_wave = waves
        td.traffic = int(blocks * block_bytes)
        td.cost = cost
        td.hint = hint
        return (cost, -threads, items, hint.block), td


def _powers(start, stop):
    value = start
    while value <= stop:
        yield value
        value *= 2


def _largest_divisor(n, cap):
    return max(v for v in range(1, min(n, cap) + 1) if n % v == 0)


__all__ = ["ReductionPolicy"]
