"""tile.language, imported as ``T``: TileLang's kernel language.

A kernel is a Python function traced into tile-dialect IR: ``T.Kernel``
launches blocks, ``T.alloc_shared`` / ``T.alloc_fragment`` allocate tiles,
``T.copy`` / ``T.gemm`` / ``T.reduce_*`` work on whole tiles, ``T.Parallel``
bodies work on elements. See docs/python.md.
"""

from .dtypes import (bfloat16, bool_ as bool, dtype, float8_e4m3, float8_e5m2,  # noqa: F401
                     float8_e4m3fnuz, float8_e5m2fnuz,
                     float16, float32, float64, index, int8, int16, int32, int64,
                     uint8, uint16, uint32, uint64)
from .frontend import (ConstSym, DynDim, Macro, PrimFunc, Ref, StridedTensor,  # noqa: F401
                       Tensor, TensorAnnot, alloc_global, const, dyn, dynamic, empty,
                       handle, macro, match_buffer, prim_func, ptr, symbolic)
from .frontend import Tensor as Buffer  # noqa: F401
from .ops import (GemmWarpPolicy, Kernel, Layout, Parallel, Persistent,  # noqa: F401
                  Pipelined, Serial, Unroll, Vectorized, abs, alloc_fragment,
                  alloc_local, alloc_reducer, alloc_shared, alloc_var,
                  annotate_layout, ceil, ceildiv, cdiv, clear, copy, cos, cumsum,
                  device_assert, disable_warp_group_reg_alloc, erf, exp, exp2, fill, finalize_reducer, floor, gemm,
                  get_block_binding, get_block_bindings, get_block_extent,
                  get_block_extents, get_lane_idx, get_thread_binding,
                  get_thread_bindings, get_thread_extent, get_warp_group_idx,
                  get_warp_idx, get_warp_idx_sync,
                  if_then_else, im2col, infinity, log, log2, log10,
                  make_padded_layout, make_swizzled_layout, max, min, no_set_max_nreg, pow,
                  print,
                  reduce, reduce_absmax, reduce_abssum, reduce_max, reduce_min,
                  reduce_sum, reducer_init, reducer_update, reshape, rsqrt, serial, sin, sqrt,
                  sync_threads, tan, tanh, unroll,
                  use_swizzle, vectorized, view)
from .atomic import (atomic_add, atomic_addx2, atomic_addx4, atomic_load,  # noqa: F401
                     atomic_max, atomic_min, atomic_or, atomic_store)
from .tir import (Cast, Select, bitwise_and, bitwise_not, bitwise_or,  # noqa: F401
                  bitwise_xor, clamp, exp10, floordiv, floormod, index_to_coordinates,
                  isfinite, isinf, isnan, likely, max_value, min_value, nearbyint,
                  reinterpret, rint, round, shift_left, shift_right, sigmoid, trunc, truncdiv,
                  truncmod)
from .values import cast  # noqa: F401
from .warp_specialize import (WarpSpecialize, access_ptr, alloc_barrier,  # noqa: F401
                              annotate_consumer_reg_alloc, annotate_producer_reg_dealloc,
                              barrier_arrive, barrier_wait, cp_async_barrier_noinc,
                              mbarrier_arrive, mbarrier_wait_parity, ptx_commit_group,
                              ptx_cp_async, ptx_wait_group, set_max_nreg, tma_copy,
                              tma_store_wait, wait_wgmma, wgmma_gemm, ws)
from . import fp8  # noqa: F401

# TileLang's other dtype names: torch's fp8 spelling and the C names.
float8_e4m3fn = float8_e4m3
half = float16
float = float32  # noqa: A001 - TileLang's name
# TileLang's tf32 buffers hold f32 bits that its gemms multiply as tf32;
# tile's gemms of f32 already use the tensor cores' tf32 (wgmma, mma.sync).
tfloat32 = float32
double = float64
short = int16
int = int32  # noqa: A001 - TileLang's name
long = int64
uint = uint32
