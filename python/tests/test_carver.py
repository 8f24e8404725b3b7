"""tile.carver: the device descriptions (CUDA, CDNA, CPU), the templates'
recommended configurations (valid, within the chip's limits, as many as
asked, best first) and kernels built from them, run on the test target and
checked against NumPy on sizes that are not multiples of the tiles; and
TileLang's autotuning example's use of carver through python -m tile.compat."""

import itertools
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy
from tile import env
from tile.carver import template as templates
from tile.carver.arch import (CDNA, CPU, CUDA, auto_infer_current_arch, check_sm_version,
                              get_arch, has_mma_support, is_ampere_arch, is_cdna_arch,
                              is_cuda_arch, is_hopper_arch, is_volta_arch)
from tile.carver.roller import (Hint, MatmulPolicy, NoRasterization, Rasterization2DColumn,
                                Rasterization2DRow, ReductionPolicy)
from tile.carver.roller.hint import IntrinInfo

ON_GPU = env.cuda_device()[0] is not None
H100, A100, T4 = CUDA("sm_90"), CUDA("sm_80"), CUDA("sm_75")
MI300, MI355 = CDNA("hip"), CDNA("hip -mcpu=gfx950")
ARCHS = [H100, A100, T4, MI300, MI355, CPU()]


@pytest.fixture(autouse=True)
def fresh_notes():
    env._noted.clear()
    yield
    env._noted.clear()


def bits(dtype):
    return T.dtype(dtype).bits


def threads_of(hint, arch):
    """A matrix-core hint's threads: its warps times the warp size."""
    return (hint.block[0] // hint.warp[0]) * (hint.block[1] // hint.warp[1]) * arch.warp_size


def config_of(hint):
    """TileLang's autotuning example's conversion of a hint."""
    block_m, block_n = hint.block
    warp_m, warp_n = hint.warp
    return {"block_M": block_m, "block_N": block_n, "block_K": hint.rstep[0],
            "num_stages": hint.pipeline_stage if hint.pipeline_stage > 1 else 0,
            "thread_num": (block_m // warp_m) * (block_n // warp_n) * 32,
            "enable_rasteration": not isinstance(hint.rasterization_plan, NoRasterization)}


# ---------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------


def test_sm_versions_and_predicates():
    assert [check_sm_version(a) for a in ("sm_70", "sm_90a", "sm_100f", "90")] == [70, 90, 100, 90]
    assert [check_sm_version(a) for a in ("gfx942", "sm_", "", "sm_sm_90")] == [-1] * 4
    assert CUDA("cuda -arch=sm_90a").sm_version == 90
    assert CUDA({"arch": "sm_86"}).sm_version == 86
    assert is_hopper_arch(H100) and has_mma_support(H100) and not is_ampere_arch(H100)
    assert is_ampere_arch(A100) and not is_volta_arch(A100) and not has_mma_support(T4)
    assert is_cuda_arch(T4) and not is_cuda_arch(MI300) and is_cdna_arch(MI300)
    with pytest.raises(ValueError, match="names no SM architecture"):
        CUDA({"arch": "gfx942"})
    from tile.carver import matmul_analysis
    assert matmul_analysis.check_sm_version is check_sm_version


def test_reference_chips():
    assert (H100.compute_max_core, H100.smem_cap, H100.warp_size) == (132, 227 * 1024, 32)
    assert (A100.compute_max_core, A100.smem_cap) == (108, 163 * 1024)
    assert CUDA("sm_100").smem_cap == H100.smem_cap  # past the table: the H100's figures
    assert CUDA("sm_87").compute_max_core == CUDA("sm_86").compute_max_core
    assert (MI300.compute_max_core, MI300.smem_cap, MI300.warp_size) == (304, 64 * 1024, 64)
    assert MI355.smem_cap == 160 * 1024 and MI355.mcpu == "gfx950"
    with pytest.raises(ValueError, match="not gfx1100"):
        CDNA("hip -mcpu=gfx1100")
    assert isinstance(get_arch("llvm"), CPU) and isinstance(get_arch("hip"), CDNA)
    assert get_arch("cuda -arch=sm_80").sm_version == 80
    with pytest.raises(ValueError, match="unsupported target"):
        get_arch("metal")


@pytest.mark.skipif(ON_GPU, reason="checks the answer without a GPU")
def test_cuda_without_a_device_describes_an_h100():
    with pytest.warns(UserWarning, match="no CUDA device.*H100"):
        arch = CUDA("cuda")
    assert arch.sm_version == 90 and arch.compute_max_core == 132 and not arch.on_device
    assert isinstance(auto_infer_current_arch(), CPU)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert CUDA("sm_80").sm_version == 80  # a named chip: nothing to say


@pytest.mark.skipif(not ON_GPU, reason="needs the GPU")
def test_cuda_reads_the_device():
    arch = CUDA("cuda")
    assert arch.on_device and arch.compute_max_core > 0 and arch.smem_cap >= 48 * 1024
    assert isinstance(auto_infer_current_arch(), CUDA)


# ---------------------------------------------------------------------------
# MatmulTemplate
# ---------------------------------------------------------------------------


def check_matmul_hint(hint, arch, M, N, K, in_dtype, out_dtype, accum_dtype):
    """Everything a hint promises, recomputed here."""
    bm, bn = hint.block
    wm, wn = hint.warp
    (bk,) = hint.rstep
    assert bm in (64, 128, 256) and bn in (64, 128, 256)
    assert bk * bits(in_dtype) in (512, 1024)  # a 64- or 128-byte slice of K
    assert bm % wm == 0 and bn % wn == 0 and wm % 16 == 0 and wn % 16 == 0
    threads = threads_of(hint, arch)
    assert threads in (128, 256)
    steps = -(-K // bk)
    assert hint.pipeline_stage in ((1,) if steps == 1 else range(2, min(4, steps) + 1))
    smem = max(hint.pipeline_stage * (bm + bn) * bk * bits(in_dtype) // 8,
               bm * bn * bits(out_dtype) // 8)
    assert smem <= arch.smem_cap
    assert bm * bn * max(bits(accum_dtype), 32) // 32 // threads <= \
        (arch.max_registers_per_thread + 1) // 2
    assert hint.use_tc and hint.arch is arch
    assert isinstance(hint.rasterization_plan, (NoRasterization, Rasterization2DColumn))


def hint_key(hint):
    return (tuple(hint.block), tuple(hint.warp), tuple(hint.rstep), hint.pipeline_stage)


SHAPES = [(4096, 4096, 4096), (100, 72, 48), (1, 4096, 4096), (8192, 1024, 11008),
          (333, 4097, 65)]


@pytest.mark.parametrize("arch", ARCHS, ids=repr)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtypes", [(T.float16, T.float16, T.float32),
                                    (T.int8, T.int32, T.int32),
                                    (T.float32, T.float32, T.float32)], ids=str)
def test_matmul_hints_are_valid(arch, shape, dtypes):
    M, N, K = shape
    template = templates.MatmulTemplate(M=M, N=N, K=K, in_dtype=dtypes[0], out_dtype=dtypes[1],
                                        accum_dtype=dtypes[2]).with_arch(arch)
    hints = template.recommend_hints(topk=20)
    assert 0 < len(hints) <= 20
    for hint in hints:
        check_matmul_hint(hint, arch, M, N, K, *dtypes)
    assert len({hint_key(h) for h in hints}) == len(hints)  # distinct


def test_topk_is_honored():
    template = templates.MatmulTemplate(M=4096, N=4096, K=4096).with_arch(H100)
    everything = MatmulPolicy(H100, 4096, 4096, 4096).candidates()
    assert len(everything) > 20
    for topk in (1, 3, 20):
        hints = template.recommend_hints(topk=topk)
        assert len(hints) == topk
        assert [hint_key(h) for h in hints] == [hint_key(td.hint) for td in everything[:topk]]
    assert len(template.recommend_hints(topk=10000)) == len(everything)
    for topk in (0, -1, 2.5):
        with pytest.raises(ValueError, match="topk"):
            template.recommend_hints(topk=topk)


def test_hints_are_best_first():
    candidates = MatmulPolicy(H100, 4096, 4096, 4096, "float16", "float16",
                              "float32").candidates()
    shapes = []
    for td in candidates:
        if tuple(td.output_tile) not in shapes:
            shapes.append(tuple(td.output_tile))
    # First each block shape's best, then the rest; each part by cost.
    first, rest = candidates[:len(shapes)], candidates[len(shapes):]
    assert [tuple(td.output_tile) for td in first] == shapes
    assert all(a.cost <= b.cost for a, b in zip(first, first[1:]))
    assert all(a.cost <= b.cost for a, b in zip(rest, rest[1:]))
    assert candidates[0].cost == min(td.cost for td in candidates)
    # The measured best of tile on an H200 (docs/performance.md).
    best = candidates[0].hint
    assert sorted(best.block) == [128, 256] and best.rstep == [64]
    assert threads_of(best, H100) == 256 and best.pipeline_stage == 4
    assert best.rasterization_plan == Rasterization2DColumn(11)  # 512 tiles, 64 MiB > L2


def test_small_problems_get_small_blocks_and_fewer_hints():
    small = MatmulPolicy(H100, 100, 72, 48).candidates()
    large = MatmulPolicy(H100, 4096, 4096, 4096).candidates()
    assert len(small) < len(large)
    assert all(max(td.output_tile) <= 128 for td in small)  # 256 only pads more
    assert small[0].hint.block == [64, 64]
    assert all(isinstance(td.hint.rasterization_plan, NoRasterization) for td in small)
    # One k step: no pipeline; K = 48 in 32-wide steps: two stages.
    assert {(td.hint.rstep[0], td.hint.pipeline_stage) for td in small} == {(64, 1), (32, 2)}
    assert all(td.hint.block[0] == 64 for td in MatmulPolicy(H100, 1, 4096, 4096).candidates())


def test_blocks_that_divide_a_ragged_problem_win():
    # 320 = 5 x 64: 64-wide blocks cover it exactly (25 blocks, under a
    # wave); 128 and 256 pad it to 384 and 512.
    best = MatmulPolicy(H100, 320, 320, 4096).candidates()[0]
    assert 320 % best.output_tile[0] == 0 and 320 % best.output_tile[1] == 0
    # 1024^2 in 128 x 128 blocks is 64 blocks on 132 SMs; 64 x 128 blocks
    # use twice the SMs in the same single wave.
    best = MatmulPolicy(H100, 1024, 1024, 1024).candidates()[0]
    assert best.num_wave == 1 and sorted(best.output_tile) == [64, 128]


def test_limits_of_smaller_chips():
    for arch in (T4, MI300, A100):
        candidates = MatmulPolicy(arch, 4096, 4096, 4096).candidates()
        assert candidates and all(td.smem_cost <= arch.smem_cap for td in candidates)
        assert all(threads_of(td.hint, arch) in (128, 256) for td in candidates)
    # An H100 holds four stages of 128 x 256 x 64; an A100 three.
    stages = {arch: max(td.hint.pipeline_stage for td in MatmulPolicy(arch, 4096, 4096, 4096)
                        .candidates() if sorted(td.output_tile) == [128, 256]
                        and td.hint.rstep == [64]) for arch in (H100, A100)}
    assert stages == {H100: 4, A100: 3}


def test_matmul_template_api():
    template = templates.MatmulTemplate(M=100, N=72, K=48, in_dtype=T.float16,
                                        out_dtype=T.float16, accum_dtype=T.float32)
    assert "M=100" in repr(template) and template.params_as_dict()["trans_B"] is True
    assert template.with_arch("sm_80").arch.sm_version == 80 and template.has_arch()
    assert template.is_ampere_arch() and not template.is_cdna_arch()
    assert not template.with_arch(None).has_arch()
    assert type(template.arch) is type(auto_infer_current_arch())  # found on first use
    func = template.equivalent_function()
    assert [(p.name, p.shape) for p in func.params] == [("A", (100, 48)), ("B", (72, 48)),
                                                       ("C", (100, 72))]
    rng = np.random.default_rng(0)
    a = rng.standard_normal((100, 48)).astype(np.float16)
    b = rng.standard_normal((72, 48)).astype(np.float16)
    c = func(a, b)
    assert c.dtype == np.float16
    np.testing.assert_allclose(c, (a.astype(np.float64) @ b.astype(np.float64).T),
                               rtol=1e-2, atol=1e-2)
    bias = templates.MatmulTemplate(M=5, N=6, K=7, trans_A=True, trans_B=False,
                                    with_bias=True, out_dtype="float32")
    a, b, v = rng.standard_normal((7, 5)), rng.standard_normal((7, 6)), rng.standard_normal(6)
    np.testing.assert_allclose(bias.equivalent_function()(a, b, v), a.T @ b + v, rtol=1e-5)
    for bad in ({"M": 0, "N": 1, "K": 1}, {"M": 4, "N": None, "K": 1}, {"M": 2.0, "N": 1, "K": 1}):
        with pytest.raises(ValueError, match="positive integer"):
            templates.MatmulTemplate(**bad)


def test_hint_objects():
    hint = templates.MatmulTemplate(M=4096, N=4096, K=4096).with_arch(H100).recommend_hints(1)[0]
    d = hint.to_dict()
    assert d["block"] == hint.block and d["warp"] == hint.warp and d["use_tc"] is True
    again = Hint.from_dict(d)
    assert again.block == hint.block and again.pipeline_stage == hint.pipeline_stage
    assert repr(hint) == str(d)
    assert Hint.from_dict({"block": [4, 8], "step": [1, 2]}).step == [1, 2]
    assert Hint().tensorcore_legalization().block == []
    text = repr(IntrinInfo("float16", "float32", True, 1, 2))
    assert "float16" in text and "input_transform_kind=1" in text
    assert NoRasterization().swizzle_args()["enable"] is False
    assert Rasterization2DRow(8).swizzle_args() == {"panel_size": 8, "order": "row",
                                                    "enable": True}
    assert Rasterization2DColumn(4).panel_width == 4 and Rasterization2DColumn(4).order == "column"


# ---------------------------------------------------------------------------
# Kernels built from the hints
# ---------------------------------------------------------------------------


@tile.jit(out_idx=[-1], target=TARGET)
def gemm_from_config(M, N, K, block_M, block_N, block_K, num_stages, thread_num,
                     enable_rasteration, swizzle=None):
    """TileLang's autotuning example's kernel (C = A @ B.T), with a plan's
    T.use_swizzle arguments."""
    swizzle = swizzle or {"panel_size": 10, "enable": enable_rasteration}

    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((N, K), T.float16),
             C: T.Tensor((M, N), T.float16)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=thread_num) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), T.float16)
            B_shared = T.alloc_shared((block_N, block_K), T.float16)
            C_local = T.alloc_fragment((block_M, block_N), T.float32)
            C_shared = T.alloc_shared((block_M, block_N), T.float16)
            T.use_swizzle(**swizzle)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])
    return main


def run_gemm(config, M, N, K, rng, swizzle=None):
    kernel = gemm_from_config(M, N, K, **config, swizzle=swizzle)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    c = to_numpy(kernel(to_device(a), to_device(b)))
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=2e-2)


def test_recommended_configs_compile_and_compute(rng):
    M, N, K = 100, 72, 48
    arch = get_arch(TARGET) if TARGET == "cuda" else H100
    hints = templates.MatmulTemplate(M=M, N=N, K=K, in_dtype=T.float16, out_dtype=T.float16,
                                     accum_dtype=T.float32).with_arch(arch).recommend_hints(3)
    assert len(hints) == 3
    for hint in hints:
        config = config_of(hint)
        config["thread_num"] = threads_of(hint, arch)
        run_gemm(config, M, N, K, rng)


def test_a_large_problems_config_with_its_raster(rng):
    # 4096^3's best (128 x 256 x 64, four stages, a column raster) run on a
    # smaller, ragged problem.
    hint = templates.MatmulTemplate(M=4096, N=4096, K=4096, in_dtype=T.float16,
                                    accum_dtype=T.float32).with_arch(H100).recommend_hints(1)[0]
    plan = hint.rasterization_plan
    assert isinstance(plan, Rasterization2DColumn)
    config = config_of(hint)
    config["thread_num"] = threads_of(hint, H100)
    run_gemm(config, 300, 520, 200, rng, swizzle=plan.swizzle_args())


@tile.jit(out_idx=[-1], target=TARGET)
def add_one(R, C, block, thread):
    threads = thread[0] * thread[1]

    @T.prim_func
    def main(A: T.Tensor((R, C), T.float16), B: T.Tensor((R, C), T.float16)):
        with T.Kernel(T.ceildiv(C, block[1]), T.ceildiv(R, block[0]), threads=threads) as (bx, by):
            for i, j in T.Parallel(block[0], block[1]):
                r, c = by * block[0] + i, bx * block[1] + j
                if r < R and c < C:
                    B[r, c] = A[r, c] + T.float16(1)
    return main


def test_elementwise_configs_compile_and_compute(rng):
    R, C = 37, 1000
    template = templates.ElementwiseTemplate(shape=[R, C], dtype=T.float16).with_arch(H100)
    a = rng.standard_normal((R, C)).astype(np.float16)
    for hint in template.recommend_hints(topk=2):
        b = to_numpy(add_one(R, C, tuple(hint.block), tuple(hint.thread))(to_device(a)))
        np.testing.assert_array_equal(b, template.equivalent_function()(a))
        np.testing.assert_array_equal(b, a + np.float16(1))


# ---------------------------------------------------------------------------
# The other templates
# ---------------------------------------------------------------------------


def check_memory_bound_hint(hint, spatial, reduced):
    assert len(hint.block) == len(hint.thread) == len(spatial)
    assert len(hint.rstep) == len(hint.reduce_thread) == len(reduced)
    threads = int(np.prod(hint.thread)) * int(np.prod(hint.reduce_thread))
    assert threads <= 256 and threads & (threads - 1) == 0
    for block, thread, step in zip(hint.block, hint.thread, hint.step):
        assert block % (thread * step) == 0
    for rstep, thread in zip(hint.rstep, hint.reduce_thread):
        assert rstep % thread == 0
    assert not hint.use_tc


@pytest.mark.parametrize("structure,shape", [("SSR", [1024, 1024, 1024]), ("SS", [1024, 1024]),
                                             ("SRS", [1024, 1024, 1024]), ("RS", [1000, 37]),
                                             ("R", [999]), ("SR", [5, 100])])
def test_general_reduction(structure, shape, rng):
    template = templates.GeneralReductionTemplate(structure=structure, shape=shape,
                                                  dtype=T.float16).with_arch(H100)
    hints = template.recommend_hints(topk=20)
    assert 0 < len(hints) <= 20
    spatial = [s for s, k in zip(shape, structure) if k == "S"]
    reduced = [s for s, k in zip(shape, structure) if k == "R"]
    for hint in hints:
        check_memory_bound_hint(hint, spatial, reduced)
    func = template.equivalent_function()
    assert func.outputs[0].shape == tuple(spatial)
    if np.prod(shape) <= 10 ** 5:
        a = rng.standard_normal(shape).astype(np.float16)
        axes = tuple(i for i, k in enumerate(structure) if k == "R")
        np.testing.assert_allclose(func(a), a.astype(np.float64).sum(axis=axes), rtol=2e-3,
                                   atol=2e-2)
    with pytest.raises(ValueError, match="structure"):
        templates.GeneralReductionTemplate(structure="SX", shape=[2, 2])


def test_reduction_threads_share_a_long_reduced_dim():
    # 64 outputs of 100000 rows each: no output-per-thread layout fills
    # the chip, so the best hint shares the rows among threads.
    best = ReductionPolicy(H100, [100000, 64], "RS").emit_config(1)[0]
    assert best.reduce_thread[0] > 1
    # Contiguous reduced rows go to reduce threads, in 16-byte vectors.
    best = ReductionPolicy(H100, [4096, 4096], "SR").emit_config(1)[0]
    assert best.reduce_thread[0] >= 32 and best.vectorize == {"A": 8}


def test_elementwise():
    for shape in ([1024, 1024], [1024], [1024, 1024, 1024], [7, 13]):
        hints = templates.ElementwiseTemplate(shape=shape, dtype="float16").with_arch(
            A100).recommend_hints(topk=20)
        assert 0 < len(hints) <= 20
        for hint in hints:
            check_memory_bound_hint(hint, shape, [])
        # Vectors only where they stay aligned (13 is odd).
        assert hints[0].step[-1] == (1 if shape[-1] % 2 else 8)


@pytest.mark.parametrize("dtypes", [(T.float16, T.float16, T.float16), (T.int8, T.int32, T.int32),
                                    (T.float16, T.float32, T.float16)], ids=str)
def test_gemv(dtypes, rng):
    template = templates.GEMVTemplate(N=1024, K=1024, in_dtype=dtypes[0], out_dtype=dtypes[1],
                                      accum_dtype=dtypes[2]).with_arch(H100)
    hints = template.recommend_hints(topk=20)
    assert 0 < len(hints) <= 20
    for hint in hints:
        assert hint.block[0] == 1 and hint.thread[0] == 1
        check_memory_bound_hint(hint, [1, 1024], [1024])
        assert hint.vectorize == {"B": 128 // bits(dtypes[0])}
    a, b = rng.standard_normal((1, 7)), rng.standard_normal((5, 7))
    out = templates.GEMVTemplate(N=5, K=7, out_dtype="float32").equivalent_function()(a, b)
    np.testing.assert_allclose(out, a @ b.T, rtol=1e-5)


def attention_by_rows(q, k, v, causal):
    """One query row at a time, in float64."""
    out = np.zeros(q.shape)
    sq, skv, d = q.shape[2], k.shape[2], q.shape[3]
    for b, h, i in itertools.product(range(q.shape[0]), range(q.shape[1]), range(sq)):
        keys = skv if not causal else i + (skv - sq) + 1
        s = k[b, h, :keys] @ q[b, h, i] / np.sqrt(d)
        p = np.exp(s - s.max())
        out[b, h, i] = (p / p.sum()) @ v[b, h, :keys]
    return out


@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention(causal, rng):
    template = templates.FlashAttentionTemplate(
        batch_size=4, num_heads=32, seq_length=512, seq_kv_length=512, head_dim=128,
        is_causal=causal, in_dtype=T.float16, accum_dtype=T.float32,
        out_dtype=T.float16).with_arch(H100)
    hints = template.recommend_hints(topk=20)
    assert 0 < len(hints) <= 20
    for hint in hints:
        block_m, dim = hint.block
        assert block_m in (64, 128) and dim == 128 and hint.rstep[0] in (32, 64, 128)
        assert threads_of(hint, H100) in (128, 256) and hint.warp[0] % 16 == 0
        smem = (block_m + hint.pipeline_stage * 2 * hint.rstep[0]) * dim * 2
        assert smem <= H100.smem_cap
    assert len({hint_key(h) for h in hints}) == len(hints)
    small = templates.FlashAttentionTemplate(batch_size=1, num_heads=2, seq_length=5,
                                             seq_kv_length=9, head_dim=4, is_causal=causal,
                                             out_dtype="float32")
    q = rng.standard_normal((1, 2, 5, 4))
    k, v = rng.standard_normal((1, 2, 9, 4)), rng.standard_normal((1, 2, 9, 4))
    np.testing.assert_allclose(small.equivalent_function()(q, k, v),
                               attention_by_rows(q, k, v, causal), rtol=1e-6)


def test_conv(rng):
    template = templates.ConvTemplate(N=2, C=3, H=9, W=7, F=4, K=3, S=2, D=1, P=1,
                                      out_dtype="float32").with_arch(H100)
    assert template.output_size == (5, 4)
    hints = template.recommend_hints(topk=5)
    assert 0 < len(hints) <= 5 and all(h.block[0] == 64 for h in hints)  # M = 2 * 5 * 4
    a, b = rng.standard_normal((2, 9, 7, 3)), rng.standard_normal((3, 3, 3, 4))
    padded = np.pad(a, ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = np.zeros((2, 5, 4, 4))
    for n, y, x, f in itertools.product(range(2), range(5), range(4), range(4)):
        want[n, y, x, f] = np.sum(padded[n, 2 * y:2 * y + 3, 2 * x:2 * x + 3, :] * b[..., f])
    np.testing.assert_allclose(template.equivalent_function()(a, b), want, rtol=1e-6)
    with pytest.raises(ValueError, match="larger"):
        templates.ConvTemplate(N=1, C=1, H=2, W=2, F=1, K=5, S=1, D=1, P=0)


# ---------------------------------------------------------------------------
# TileLang's program
# ---------------------------------------------------------------------------


def test_tilelang_autotune_example_configs_through_compat(tmp_path):
    """examples/gemm/example_gemm_autotune.py's get_configs(with_roller=True)
    (without torch: CUDA unless on ROCm), its kernels run on the test
    target."""
    (tmp_path / "prog.py").write_text(textwrap.dedent(f'''
        import numpy as np
        import tilelang as tl
        import tilelang.language as T
        from tilelang import carver
        from tilelang.carver.template import MatmulTemplate
        from tilelang.carver.arch import CUDA, CDNA
        from tilelang.carver.roller.rasterization import NoRasterization

        def get_configs(M, N, K, topk=20):
            arch = CUDA("cuda")
            carve_template = MatmulTemplate(M=M, N=N, K=K, in_dtype=T.float16,
                                            out_dtype=T.float16,
                                            accum_dtype=T.float32).with_arch(arch)
            func = carve_template.equivalent_function()
            assert func is not None, "Function is None"
            roller_hints = carve_template.recommend_hints(topk=topk)
            configs = []
            for hint in roller_hints:
                block_m, block_n = hint.block
                warp_m, warp_n = hint.warp
                block_rows, block_cols = block_m // warp_m, block_n // warp_n
                configs.append(dict(block_M=block_m, block_N=block_n, block_K=hint.rstep[0],
                                    num_stages=hint.pipeline_stage if hint.pipeline_stage > 1
                                    else 0, thread_num=block_rows * block_cols * 32,
                                    enable_rasteration=hint.rasterization_plan
                                    is not NoRasterization))
            return configs

        @tl.jit(out_idx=[-1], target="{TARGET}")
        def matmul(M, N, K, block_M, block_N, block_K, num_stages, thread_num,
                   enable_rasteration, dtype=T.float16, accum_dtype=T.float32):
            @T.prim_func
            def gemm_autotune(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
                              C: T.Tensor((M, N), dtype)):
                with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M),
                              threads=thread_num) as (bx, by):
                    A_shared = T.alloc_shared((block_M, block_K), dtype)
                    B_shared = T.alloc_shared((block_N, block_K), dtype)
                    C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
                    T.use_swizzle(panel_size=10, enable=enable_rasteration)
                    T.clear(C_local)
                    for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                        T.copy(A[by * block_M, k * block_K], A_shared)
                        T.copy(B[bx * block_N, k * block_K], B_shared)
                        T.gemm(A_shared, B_shared, C_local, transpose_B=True)
                    T.copy(C_local, C[by * block_M, bx * block_N])
            return gemm_autotune

        M, N, K = 100, 72, 48
        configs = get_configs(M, N, K, topk=4)
        assert len(configs) == 4, configs
        assert carver.MatmulTemplate is MatmulTemplate
        rng = np.random.default_rng(0)
        a = rng.standard_normal((M, K)).astype(np.float16)
        b = rng.standard_normal((N, K)).astype(np.float16)
        for config in configs[:2]:
            kernel = matmul(M, N, K, **config)
            if "{TARGET}" == "cuda":
                import torch
                c = kernel(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()).cpu().numpy()
            else:
                c = kernel(a, b)
            ref = a.astype(np.float32) @ b.astype(np.float32).T
            assert np.abs(c.astype(np.float32) - ref).max() < 5e-2, config
        print("ok", configs[0])
    '''))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        os.path.abspath(p) for p in sys.path if p and os.path.isdir(p))
    r = subprocess.run([sys.executable, "-m", "tile.compat", "prog.py"], cwd=str(tmp_path),
                       env=environment, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok {'block_M': 64, 'block_N': 64" in r.stdout
    if not ON_GPU:
        assert "describes an H100" in r.stderr
