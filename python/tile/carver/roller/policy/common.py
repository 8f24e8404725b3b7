"""Helpers the policies share: dtype sizes, the candidate sizes a dim keeps,
and the device figures the cost model reads (DeviceModel)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass


def dtype_bits(dtype) -> int:
    """Bits of an element of `dtype` (a tile dtype, or a name such as
    "float16", "int4", "float8_e4m3")."""
    bits = getattr(dtype, "bits", None)
    if isinstance(bits, int):
        return bits
    from ....language.dtypes import as_dtype
    try:
        return as_dtype(dtype).bits
    except Exception:  # noqa: BLE001 - a name tile's kernels do not take (int4)
        found = re.search(r"(\d+)", str(dtype))
        if found is None:
            raise ValueError(f"unknown dtype {dtype!r}") from None
        return int(found.group(1))


def ceil_div(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def pow2_ceil(n: int) -> int:
    return 1 << max(0, int(n) - 1).bit_length()


def largest_pow2_dividing(n: int, cap: int) -> int:
    """The largest power of two <= `cap` that divides `n`."""
    v = 1
    while v * 2 <= cap and n % (v * 2) == 0:
        v *= 2
    return v


def covering(sizes, extent: int) -> list[int]:
    """The sizes worth trying on a dim of `extent`: each up to the smallest
    one that covers the dim in one tile (a larger one only pads more)."""
    sizes = sorted(sizes)
    cover = next((s for s in sizes if s >= extent), sizes[-1])
    return [s for s in sizes if s <= cover]


def check_extents(**extents) -> None:
    for name, value in extents.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def check_topk(topk) -> int:
    if isinstance(topk, bool) or not isinstance(topk, int) or topk < 1:
        raise ValueError(f"topk must be a positive integer, got {topk!r}")
    return topk


def mma_rate(in_bits: int) -> float:
    """Matrix-core throughput on `in_bits` inputs relative to 16-bit: twice
    on 8-bit, half on 32-bit (tf32), a sixteenth on 64-bit."""
    if in_bits <= 16:
        return 16 / max(in_bits, 4)
    return 0.5 if in_bits <= 32 else 1 / 16


@dataclass(frozen=True)
class DeviceModel:
    """What the cost model reads of a TileDevice (arch_base describes the
    fields), with defaults for a TileDevice that lacks tile's own."""

    sms: int
    smem_per_block: int
    smem_per_sm: int
    warp_size: int
    max_threads_per_sm: int
    registers_per_sm: int
    max_registers_per_thread: int
    mma_flops_per_cycle: float
    load_bytes_per_cycle: float
    dram_bytes_per_cycle: float
    memory_latency: float
    l2_bytes: int
    rasterizes: bool
    async_copies: bool

    @classmethod
    def of(cls, arch) -> "DeviceModel":
        if arch is None:
            raise ValueError("no arch: pass a TileDevice (CUDA(...), CDNA(...), CPU())")
        smem = int(getattr(arch, "smem_cap", 0) or 0)
        if smem <= 0:
            raise ValueError(f"{arch!r} gives no shared memory size (smem_cap)")
        platform = getattr(arch, "platform", "unknown")
        sm_version = getattr(arch, "sm_version", 80)
        modern = platform == "CDNA" or (platform == "CUDA" and sm_version >= 80)
        return cls(
            sms=max(1, int(getattr(arch, "compute_max_core", 1) or 1)),
            smem_per_block=smem,
            smem_per_sm=max(smem, int(getattr(arch, "max_smem_usage", 0) or 0)),
            warp_size=int(getattr(arch, "warp_size", 32) or 32),
            max_threads_per_sm=int(getattr(arch, "max_threads_per_sm", 2048)),
            registers_per_sm=int(getattr(arch, "reg_cap", 65536) or 65536),
            max_registers_per_thread=int(getattr(arch, "max_registers_per_thread", 255)),
            mma_flops_per_cycle=float(getattr(arch, "mma_flops_per_cycle", 1024)),
            load_bytes_per_cycle=float(getattr(arch, "load_bytes_per_cycle", 32)),
            dram_bytes_per_cycle=float(getattr(arch, "dram_bytes_per_cycle", 8.0)),
            memory_latency=float(getattr(arch, "memory_latency", 1000)),
            l2_bytes=int(getattr(arch, "l2_cache_size_bytes", 0) or 0),
            rasterizes=modern,
            async_copies=modern,
        )

    def accumulator_budget(self) -> int:
        """32-bit registers a thread may give a GEMM's accumulators: half of
        its registers (the operands' fragments and addresses need the
        rest)."""
        return (self.max_registers_per_thread + 1) // 2

    def residency(self, blocks: int, occupancy: int) -> int:
        """Blocks resident on one multiprocessor at once: what fits
        (`occupancy`), unless the grid is too small to give each that
        many."""
        return max(1, min(occupancy, ceil_div(blocks, self.sms)))

    def pipelined_step(self, compute: float, load: float, stages: int, resident: int) -> float:
        """Cycles of one step of a block's loop that computes for `compute`
        cycles on data loaded in `load` cycles: with a pipeline of
        `stages` >= 2, the slower of the two, unless the loads in flight
        (stages - 1 per resident block) cannot cover the memory latency;
        without one, load and compute in turn (overlapped only across
        resident blocks)."""
        if stages >= 2:
            return max(compute, load, (self.memory_latency + load) / (resident * (stages - 1)))
        return max(compute, load, (compute + load + self.memory_latency) / resident)


def warp_grid(block_m: int, block_n: int, warps: int, atom: int = 16):
    """The warps_M x warps_N split of a block_m x block_n tile whose
    per-warp tiles are whole `atom` x `atom` multiples and closest to
    square (tile's gemm "square" policy), or None."""
    best = None
    for wm in range(1, warps + 1):
        if warps % wm:
            continue
        wn = warps // wm
        if block_m % (wm * atom) or block_n % (wn * atom):
            continue
        score = abs(block_m // wm - block_n // wn)
        if best is None or score < best[0]:
            best = (score, wm, wn)
    return None if best is None else best[1:]


def isqrt(n: int) -> int:
    return int(math.isqrt(max(0, int(n))))


def best_first_by_shape(ranked, shape_of):
    """`ranked` (best first) with each shape's best candidate first, in
    order, then the others in order: the first hints differ in shape."""
    seen, first, rest = set(), [], []
    for candidate in ranked:
        shape = shape_of(candidate)
        (rest if shape in seen else first).append(candidate)
        seen.add(shape)
    return first + rest
