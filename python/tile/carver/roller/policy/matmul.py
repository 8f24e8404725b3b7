"""MatmulPolicy: GEMM tile configurations, best first.

TileLang's roller searches tile shapes with a cost model over TVM IR; tile
has no TVM, so this is a small search of its own over the configurations
TileLang's GEMM examples tune:

- block_M, block_N in {64, 128, 256}, each only up to the smallest that
  covers its dim (M = 100 tries 64 and 128, not 256);
- block_K a 64- or 128-byte slice of K (32 or 64 for 16-bit inputs), by
  the same rule;
- 128 or 256 threads, split into warps whose share of the block is a
  whole number of 16 x 16 tiles, closest to square;
- 2 to 4 pipeline stages (no more than K has steps; 1 when K is one step).

A configuration is kept when it fits: the accumulators in half a thread's
registers, and in shared memory the larger of the pipeline's stages of A
and B tiles and one block_M x block_N output tile (tile's planner lets the
epilogue's tile reuse the pipeline's buffers).

Each is scored with an estimate of the kernel's cycles. Per block and k
step, the multiprocessor computes for ``2 bm bn bk / mma_flops_per_cycle``
cycles (scaled by input width) and loads its A and B slices in ``(bm + bn)
bk bytes / load_bytes_per_cycle``; a step takes the larger of the two
unless too few loads are in flight to cover the memory latency
(DeviceModel.pipelined_step), plus a fixed ITERATION_OVERHEAD. Blocks run
in waves of ``SMs x resident blocks``, so a grid of 133 blocks on 132 SMs
costs two waves, and blocks that hang over a ragged M or N are paid in
full. Ties go to deeper pipelines, then more threads, then less shared
memory.

The list starts with the best configuration of each block shape (best
first), then the remaining configurations, best first: the first hints
differ in shape, the later ones vary stages, block_K and threads.
Rasterization (a column panel of about sqrt(SMs) blocks) is recommended when
the grid is more than a wave and A and B do not fit in L2, on sm_80+ and
CDNA (TileLang's rule). The operands' layouts (trans_A, trans_B) do not
change the choice.
"""

from __future__ import annotations

from ..hint import Hint, IntrinInfo, TileDict
from ..rasterization import NoRasterization, Rasterization2DColumn
from .common import (DeviceModel, best_first_by_shape, ceil_div, check_extents, check_topk,
                     covering, dtype_bits, isqrt, mma_rate, warp_grid)


class MatmulPolicy:
    """C[M, N] = A[M, K] @ B[K, N] on `arch` (see the module's docstring)."""

    BLOCK_SIZES = (64, 128, 256)
    K_SLICE_BYTES = (64, 128)
    THREADS = (128, 256)
    STAGES = (2, 3, 4)
    # Cycles every k step costs besides its loads and MMAs: the barrier,
    # the pipeline's bookkeeping, issuing the instructions.
    ITERATION_OVERHEAD = 64

    def __init__(self, arch, M, N, K, in_dtype="float16", out_dtype="float16",
                 accum_dtype="float16", trans_B=True, name="C"):
        check_extents(M=M, N=N, K=K)
        self.arch = arch
        self.device = DeviceModel.of(arch)
        self.M, self.N, self.K = M, N, K
        self.in_dtype, self.out_dtype, self.accum_dtype = in_dtype, out_dtype, accum_dtype
        self.in_bits = dtype_bits(in_dtype)
        self.out_bits = dtype_bits(out_dtype)
        self.accum_bits = dtype_bits(accum_dtype)
        self.trans_B = trans_B
        self.name = name
        self._candidates = None

    def block_k_sizes(self) -> list[int]:
        return covering([max(1, b * 8 // self.in_bits) for b in self.K_SLICE_BYTES], self.K)

    def candidates(self) -> list[TileDict]:
        """Every configuration that fits, in the order hints are given."""
        if self._candidates is None:
            found = sorted(self._enumerate(), key=lambda ranked: ranked[0])
            self._candidates = best_first_by_shape([td for _, td in found],
                                                   lambda td: tuple(td.output_tile))
        return self._candidates

    def emit_config(self, topk: int = 10) -> list[Hint]:
        """The best `topk` configurations as Hints."""
        return [td.hint for td in self.candidates()[:check_topk(topk)]]

    def _enumerate(self):
        d = self.device
        for bm in covering(self.BLOCK_SIZES, self.M):
            for bn in covering(self.BLOCK_SIZES, self.N):
                for bk in self.block_k_sizes():
                    for threads in self.THREADS:
                        if threads % d.warp_size:
                            continue
                        grid = warp_grid(bm, bn, threads // d.warp_size)
                        accumulators = bm * bn * max(self.accum_bits, 32) // 32 // threads
                        if grid is None or accumulators > d.accumulator_budget():
                            continue
                        steps = ceil_div(self.K, bk)
                        for stages in [s for s in self.STAGES if s <= steps] or [1]:
                            ranked = self._estimate(bm, bn, bk, threads, grid, stages,
                                                    accumulators)
                            if ranked is not None:
                                yield ranked

    def _estimate(self, bm, bn, bk, threads, grid, stages, accumulators):
        d = self.device
        in_bytes, out_bytes = self.in_bits / 8, self.out_bits / 8
        stage_bytes = (bm + bn) * bk * in_bytes
        smem = int(max(stages * stage_bytes, bm * bn * out_bytes))
        if smem > d.smem_per_block:
            return None
        occupancy = max(1, min(d.smem_per_sm // smem, d.max_threads_per_sm // threads,
                               d.registers_per_sm // (threads * (accumulators + 32))))
        blocks = ceil_div(self.M, bm) * ceil_div(self.N, bn)
        resident = d.residency(blocks, occupancy)
        waves = ceil_div(blocks, d.sms * resident)
        steps = ceil_div(self.K, bk)
        compute = 2 * bm * bn * bk / (d.mma_flops_per_cycle * mma_rate(self.in_bits))
        load = stage_bytes / d.load_bytes_per_cycle
        step = d.pipelined_step(compute, load, stages, resident) + self.ITERATION_OVERHEAD
        epilogue = d.memory_latency + bm * bn * out_bytes / d.load_bytes_per_cycle
        cost = waves * resident * (steps * step + epilogue)

        td = TileDict([bm, bn])
        td.tile_map = {self.name: [bm, bn]}
        td.rstep_map = {self.name: {"k": bk}}
        td.smem_cost = smem
        td.block_per_SM = occupancy
        td.grid_size = blocks
        td.num_wave = waves
        td.traffic = int(blocks * steps * stage_bytes)
        td.cost = cost
        td.hint = self._hint(bm, bn, bk, grid, stages, blocks)
        return (cost, -stages, -threads, smem, bm, bn, bk), td

    def _rasterization(self, bm, blocks):
        d = self.device
        inputs = (self.M + self.N) * self.K * self.in_bits // 8
        rows = ceil_div(self.M, bm)
        if not d.rasterizes or blocks <= d.sms or inputs <= d.l2_bytes or rows < 2:
            return NoRasterization()
        return Rasterization2DColumn(max(2, min(isqrt(d.sms), rows)))

    def _hint(self, bm, bn, bk, grid, stages, blocks) -> Hint:
        hint = Hint()
        hint.arch = self.arch
        hint.use_tc = True
        hint.block = [bm, bn]
        hint.warp = [bm // grid[0], bn // grid[1]]
        hint.rstep = [bk]
        hint.pipeline_stage = stages
        hint.use_async = stages > 1 and self.device.async_copies
        hint.rasterization_plan = self._rasterization(bm, blocks)
        hint.intrin_info = IntrinInfo(self.in_dtype, self.accum_dtype, self.trans_B)
        hint.shared_scope = "shared.dyn"
        return hint


__all__ = ["MatmulPolicy"]
