"""tile.carver.arch.arch_base: TileDevice, the description of a chip that
carver's templates size their tiles for (``tilelang.carver.arch.TileDevice``).

TileLang's fields keep their names and meanings, except where noted:

- ``compute_max_core``: streaming multiprocessors (compute units on AMD).
- ``smem_cap``: the shared memory one block may use, in bytes. TileLang
  takes the 48 KiB a block gets without opting in; tile's runtime opts every
  kernel in, so this is the opt-in maximum (227 KiB on an H100).
- ``max_smem_usage``: the shared memory of one multiprocessor, which the
  blocks resident on it share (TileLang: twice ``smem_cap``).
- ``reg_cap``: 32-bit registers per multiprocessor; ``warp_size``;
  ``sm_partition`` (schedulers per multiprocessor); ``l2_cache_size_bytes``;
  ``transaction_size`` and ``bandwidth`` as TileLang's (unused by tile).

tile's cost model (tile.carver.roller.policy) reads these as well, each per
multiprocessor and per clock cycle, so that only their ratios matter:

- ``mma_flops_per_cycle``: dense matrix-core FLOPs on 16-bit inputs.
- ``load_bytes_per_cycle``: what a multiprocessor loads from L2 while every
  one of them loads (the operand path of a GEMM).
- ``dram_bytes_per_cycle``: its share of DRAM bandwidth (the path of
  memory-bound operations).
- ``memory_latency``: cycles from a global load's issue to its data.
- ``max_threads_per_sm``, ``max_registers_per_thread``.
"""

from __future__ import annotations


class TileDevice:
    """A chip's description; subclasses fill it (CUDA, CDNA, CPU). Fields
    are plain attributes: set them to model another chip."""

    def __init__(self) -> None:
        self.platform: str = "unknown"
        self.name: str = "unknown"
        self.target = None
        self.compute_capability: str = "unknown"
        self.compute_max_core: int = 0
        self.warp_size: int = 32
        self.sm_partition: int = 4
        self.reg_cap: int = 0
        self.smem_cap: int = 0
        self.max_smem_usage: int = 0
        self.l2_cache_size_bytes: int = 0
        self.transaction_size: list[int] = [32, 128]
        self.bandwidth: list[int] = [0, 0]
        # tile's cost model (see the module's docstring).
        self.max_threads_per_sm: int = 2048
        self.max_registers_per_thread: int = 255
        self.mma_flops_per_cycle: int = 1024
        self.load_bytes_per_cycle: int = 32
        self.dram_bytes_per_cycle: float = 8.0
        self.memory_latency: int = 1000

    def get_avaliable_tensorintrin_shapes(self):
        """TileLang's (misspelt) name: the M x N shapes of the chip's matrix
        instructions."""
        return [[16, 16]]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.compute_max_core} cores)"


__all__ = ["TileDevice"]
