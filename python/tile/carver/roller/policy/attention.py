"""FlashAttentionPolicy: forward attention configurations, best first.

A block takes block_M query rows of one (batch, head) and walks the keys and
values block_N at a time: S = Q K^T, an online softmax, O += P V. Tried:
block_M in {64, 128}, block_N in {32, 64, 128} (each only up to the
smallest that covers its sequence), 128 or 256 threads with the warps
stacked along the rows (16 or more rows each), 1 or 2 pipeline stages of K
and V. Kept when the O and S accumulators fit in three quarters of a
thread's registers and Q plus the stages of K and V fit in shared memory.

The estimate is MatmulPolicy's: per key step, the two GEMMs' FLOPs and the
softmax's exponentials (EXPONENTIALS_PER_CYCLE per multiprocessor) against
loading a block_N slice of K and V; waves of blocks; a causal mask skips
the key blocks past each query block's diagonal. The list starts with each
(block_M, block_N)'s best configuration.
"""

from __future__ import annotations

from ..hint import Hint, IntrinInfo, TileDict
from .common import (DeviceModel, best_first_by_shape, ceil_div, check_extents, check_topk,
                     covering, dtype_bits, mma_rate)


class FlashAttentionPolicy:
    """softmax(Q K^T) V over [batch, heads, seq, head_dim] tensors."""

    BLOCK_M = (64, 128)
    BLOCK_N = (32, 64, 128)
    THREADS = (128, 256)
    STAGES = (1, 2)
    EXPONENTIALS_PER_CYCLE = 16
    ITERATION_OVERHEAD = 64

    def __init__(self, arch, batch_size, num_heads, seq_length, seq_kv_length, head_dim,
                 in_dtype="float16", out_dtype="float16", accum_dtype="float32",
                 is_causal=False):
        check_extents(batch_size=batch_size, num_heads=num_heads, seq_length=seq_length,
                      seq_kv_length=seq_kv_length, head_dim=head_dim)
        self.arch = arch
        self.device = DeviceModel.of(arch)
        self.heads = batch_size * num_heads
        self.seq, self.seq_kv, self.dim = seq_length, seq_kv_length, head_dim
        self.in_dtype, self.accum_dtype = in_dtype, accum_dtype
        self.in_bits = dtype_bits(in_dtype)
        self.out_bits = dtype_bits(out_dtype)
        self.is_causal = is_causal
        self._candidates = None

    def candidates(self) -> list[TileDict]:
        if self._candidates is None:
            found = sorted(self._enumerate(), key=lambda ranked: ranked[0])
            self._candidates = best_first_by_shape(
                [td for _, td in found], lambda td: (td.output_tile[0], td.hint.rstep[0]))
        return self._candidates

    def emit_config(self, topk: int = 10) -> list[Hint]:
        return [td.hint for td in self.candidates()[:check_topk(topk)]]

    def key_steps(self, bm, bn) -> float:
        """Key blocks a query block walks, on average."""
        blocks = ceil_div(self.seq, bm)
        if not self.is_causal:
            return ceil_div(self.seq_kv, bn)
        # Query row r sees keys up to r + (seq_kv - seq) (aligned at the end).
        offset = self.seq_kv - self.seq
        total = sum(ceil_div(max(1, min(self.seq_kv, (i + 1) * bm + offset)), bn)
                    for i in range(blocks))
        return total / blocks

    def _enumerate(self):
        d = self.device
        budget = (d.max_registers_per_thread + 1) * 3 // 4
        for bm in covering(self.BLOCK_M, self.seq):
            for bn in covering(self.BLOCK_N, self.seq_kv):
                for threads in self.THREADS:
                    warps = threads // d.warp_size
                    if threads % d.warp_size or bm % (warps * 16):
                        continue
                    registers = (bm * self.dim + bm * bn) // threads
                    if registers > budget:
                        continue
                    for stages in self.STAGES:
                        if stages > 1 and ceil_div(self.seq_kv, bn) < 2:
                            continue
                        ranked = self._estimate(bm, bn, threads, warps, stages, registers)
                        if ranked is not None:
                            yield ranked

    def _estimate(self, bm, bn, threads, warps, stages, registers):
        d = self.device
        in_bytes = self.in_bits / 8
        q_bytes = bm * self.dim * in_bytes
        kv_bytes = 2 * bn * self.dim * in_bytes
        smem = int(max(q_bytes + stages * kv_bytes, bm * self.dim * self.out_bits / 8))
        if smem > d.smem_per_block:
            return None
        occupancy = max(1, min(d.smem_per_sm // smem, d.max_threads_per_sm // threads,
                               d.registers_per_sm // (threads * (registers + 32))))
        blocks = self.heads * ceil_div(self.seq, bm)
        resident = d.residency(blocks, occupancy)
        waves = ceil_div(blocks, d.sms * resident)
        compute = (4 * bm * bn * self.dim / (d.mma_flops_per_cycle * mma_rate(self.in_bits))
                   + bm * bn / self.EXPONENTIALS_PER_CYCLE)
        load = kv_bytes / d.load_bytes_per_cycle
        step = d.pipelined_step(compute, load, stages, resident) + self.ITERATION_OVERHEAD
        edges = 2 * d.memory_latency + (q_bytes + bm * self.dim * self.out_bits / 8) \
            / d.load_bytes_per_cycle
        cost = waves * resident * (self.key_steps(bm, bn) * step + edges)

        hint = Hint()
        hint.arch = self.arch
        hint.use_tc = True
        hint.block = [bm, self.dim]
        hint.warp = [bm // warps, self.dim]
        hint.rstep = [bn]
        hint.pipeline_stage = stages
        hint.use_async = stages > 1 and d.async_copies
        hint.intrin_info = IntrinInfo(self.in_dtype, self.accum_dtype, True)
        hint.shared_scope = "shared.dyn"

        td = TileDict([bm, self.dim])
        td.tile_map = {"O": [bm, self.dim]}
        td.rstep_map = {"O": {"kv": bn}}
        td.smem_cost = smem
        td.block_per_SM = occupancy
        td.grid_size = blocks
        td.num_wave = waves
        td.traffic = int(blocks * (q_bytes + self.key_steps(bm, bn) * kv_bytes))
        td.cost = cost
        td.hint = hint
        return (cost, -stages, -threads, smem, bm, bn), td


__all__ = ["FlashAttentionPolicy"]
