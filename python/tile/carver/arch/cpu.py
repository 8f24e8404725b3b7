"""tile.carver.arch.cpu: the host (``tilelang.carver.arch.cpu``), which
tile's CPU target runs kernels on.

Kernels written for a GPU run there for testing, so ``CPU()`` keeps a GPU's
limits on a block (an H100's 227 KiB of shared memory, 255 registers per
thread): what carver recommends for it also fits a GPU. Its "cores" are the
host's processors; its throughput figures are a core's (AVX2-class FMA).
"""

from __future__ import annotations

import os

from .arch_base import TileDevice


def is_cpu_arch(arch: TileDevice) -> bool:
    return isinstance(arch, CPU)


class CPU(TileDevice):
    """The host processor."""

    def __init__(self, target="llvm"):
        super().__init__()
        self.platform = "CPU"
        self.target = "cpu"
        self.name = "host"
        self.compute_max_core = os.cpu_count() or 1
        self.smem_cap = 227 * 1024
        self.max_smem_usage = 227 * 1024
        self.reg_cap = 65536
        self.l2_cache_size_bytes = 1024 * 1024
        self.max_threads_per_sm = 1024
        self.mma_flops_per_cycle = 32
        self.load_bytes_per_cycle = 64
        self.dram_bytes_per_cycle = 8.0
        self.memory_latency = 300

    def __repr__(self):
        return "CPU()"


__all__ = ["is_cpu_arch", "CPU"]
