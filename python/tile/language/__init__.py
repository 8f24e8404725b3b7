"""tile.language, imported as ``T``: TileLang's kernel language.

A kernel is a Python function traced into tile-dialect IR: ``T.Kernel``
launches blocks, ``T.alloc_shared`` / ``T.alloc_fragment`` allocate tiles,
``T.copy`` / ``T.gemm`` / ``T.reduce_*`` work on whole tiles, ``T.Parallel``
bodies work on elements. See docs/python.md.
"""

from .dtypes import (bfloat16, bool_ as bool, dtype, float8_e4m3, float8_e5m2,  # noqa: F401
                     float8_e4m3fnuz, float8_e5m2fnuz,
                     float16, float32, float64, index, int8, int16, int32, int64,
                     uint8)
from .frontend import (ConstSym, DynDim, Macro, PrimFunc, Ref, StridedTensor,  # noqa: F401
                       Tensor, TensorAnnot, const, dyn, dynamic, empty, handle,
                       macro, match_buffer, prim_func, ptr, symbolic)
from .frontend import Tensor as Buffer  # noqa: F401
from .ops import (GemmWarpPolicy, Kernel, Layout, Parallel, Pipelined,  # noqa: F401
                  abs, alloc_fragment, alloc_local, alloc_shared, alloc_var,
                  annotate_layout, atomic_add, ceil, ceildiv, clear, copy, cos,
                  cumsum, erf, exp, exp2, fill, floor, gemm, if_then_else,
                  infinity, log, log2, log10, make_padded_layout,
                  make_swizzled_layout, max, min, pow, reduce, reduce_absmax,
                  reduce_abssum, reduce_max, reduce_min, reduce_sum, rsqrt,
                  serial, sin, sqrt, tan, tanh, unroll, use_swizzle, vectorized)
from .values import cast  # noqa: F401

float8_e4m3fn = float8_e4m3
