"""tile.transform: TileLang's pass-config keys (``tilelang.transform``).

    @tile.jit(out_idx=[-1], pass_configs={tile.PassConfigKey.TL_ENABLE_FAST_MATH: True})

``PassConfigKey`` has TileLang's members with TileLang's strings, so a
program's ``pass_configs`` (keyed by members or by the strings) carry over.
Each key either changes what tile compiles (``HANDLED``: fast math, GPU
instruction families or strategies left out of the target, the kernel's
code written to a directory) or is accepted and ignored with a one-time
note (tile has no counterpart: TVM's simplifier and storage passes, nvcc
flags, ...). docs/python.md has the table.
"""

from __future__ import annotations

from enum import Enum

from . import env


class PassConfigKey(str, Enum):
    """TileLang's pass-config keys (tilelang/transform/pass_config.py)."""

    TL_SIMPLIFY = "tl.Simplify"
    TL_SIMPLIFY_TRANSITIVELY_PROVE_INEQUALITIES = "transitively_prove_inequalities"
    TL_SIMPLIFY_CONVERT_BOOLEAN_TO_AND_OF_ORS = "convert_boolean_to_and_of_ors"
    TL_SIMPLIFY_APPLY_CONSTRAINTS_TO_BOOLEAN_BRANCHES = "apply_constraints_to_boolean_branches"
    TL_SIMPLIFY_PROPAGATE_KNOWNS_TO_PROVE_CONDITIONAL = "propagate_knowns_to_prove_conditional"
    TL_SIMPLIFY_PROPAGATE_KNOWNS_TO_SIMPLIFY_EXPRESSIONS = \
        "propagate_knowns_to_simplify_expressions"
    TL_SIMPLIFY_ENABLE_LET_INLINE = "enable_simplify_let_inline"
    TL_DISABLE_BUFFER_INIT_CHECK = "tl.disable_buffer_init_check"
    TL_DISABLE_DATA_RACE_CHECK = "tl.disable_data_race_check"
    TL_DISABLE_PRELOWER_SEMANTIC_CHECK = "tl.disable_prelower_semantic_check"
    TL_DISABLE_WARP_SPECIALIZED = "tl.disable_warp_specialized"
    TL_ENABLE_FAST_MATH = "tl.enable_fast_math"
    TL_PTXAS_REGISTER_USAGE_LEVEL = "tl.ptxas_register_usage_level"
    TL_DEVICE_COMPILE_FLAGS = "tl.device_compile_flags"
    TL_EMIT_LINE_DIRECTIVES = "tl.emit_line_directives"
    TL_CONFIG_INDEX_BITWIDTH = "tl.config_index_bitwidth"
    TL_ENABLE_REDUCER_PLAN_VERBOSE = "tl.enable_reducer_plan_verbose"
    TL_LAYOUT_COST_MODEL = "tl.layout_cost_model"
    TL_REDUCER_FORCE_BASELINE = "tl.reducer_force_baseline"
    TL_DISABLE_TMA_LOWER = "tl.disable_tma_lower"
    TL_DISABLE_SAFE_MEMORY_ACCESS = "tl.disable_safe_memory_legalize"
    TL_DISABLE_VECTORIZE_256 = "tl.disable_vectorize_256"
    TL_ENABLE_ASYNC_COPY = "tl.enable_async_copy"
    TL_ENABLE_LOWER_LDGSTG = "tl.enable_lower_ldgstg"
    TL_ENABLE_LOWER_LDGSTG_PREDICATED = "tl.enable_lower_ldgstg_predicated"
    TL_ENABLE_VECTORIZE_PLANNER_VERBOSE = "tl.enable_vectorize_planner_verbose"
    TL_DISABLE_WGMMA = "tl.disable_wgmma"
    TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS = "tl.debug_merge_shared_memory_allocations"
    TL_ENABLE_AGGRESSIVE_SHARED_MEMORY_MERGE = "tl.enable_aggressive_shared_memory_merge"
    TL_DISABLE_SHARED_MEMORY_REUSE = "tl.disable_shared_memory_reuse"
    TL_DISABLE_SHUFFLE_ELECT = "tl.disable_shuffle_elect"
    TL_DISABLE_LOOP_UNSWITCHING = "tl.disable_loop_unswitching"
    TL_LOOP_UNSWITCHING_ALLOW_NON_TRIVIAL_ELSE = "tl.loop_unswitching_allow_non_trivial_else"
    TL_IF_STMT_BINDING_INLINE_REPLAYABLE_BINDS = "tl.if_stmt_binding_inline_replayable_binds"
    TL_DISABLE_THREAD_STORAGE_SYNC = "tl.disable_thread_storage_sync"
    TL_FORCE_LET_INLINE = "tl.force_let_inline"
    TL_AST_PRINT_ENABLE = "tl.ast_print_enable"
    TL_LAYOUT_VISUALIZATION_ENABLE = "tl.layout_visualization_enable"
    TL_LAYOUT_VISUALIZATION_FORMATS = "tl.layout_visualization_formats"
    TL_STORAGE_REWRITE_DETECT_INPLACE = "tl.storage_rewrite_detect_inplace"
    TIR_ENABLE_EQUIV_TERMS_IN_CSE = "tir.enable_equiv_terms_in_cse_tir"
    TIR_DISABLE_CSE = "tirx.disable_cse_tir"
    TIR_SIMPLIFY = "tirx.Simplify"
    TIR_DISABLE_STORAGE_REWRITE = "tirx.disable_storage_rewrite"
    TIR_DISABLE_VECTORIZE = "tirx.disable_vectorize"
    TIR_USE_ASYNC_COPY = "tirx.use_async_copy"
    TIR_ENABLE_DEBUG = "tirx.enable_debug"
    TIR_MERGE_STATIC_SMEM = "tirx.merge_static_smem"
    TIR_ADD_LOWER_PASS = "tirx.add_lower_pass"
    TIR_NOALIAS = "tirx.noalias"
    CUDA_KERNELS_OUTPUT_DIR = "cuda.kernels_output_dir"
    TL_DISABLE_OUT_OF_BOUND_WARNING = "tl.disable_out_of_bound_warning"
    TL_ENABLE_DUMP_IR = "tl.enable_dump_ir"
    TL_DUMP_IR_DIR = "tl.dump_ir_path"
    TL_PASS_PROFILE = "tl.pass_profile"
    TL_PASS_PROFILE_THRESHOLD_MS = "tl.pass_profile_threshold_ms"


# What tile does with the keys it acts on (the rest are ignored with a note).
HANDLED = {
    PassConfigKey.TL_ENABLE_FAST_MATH:
        "True: approximable math (`T.exp`, `T.exp2`, `T.log`, `T.sqrt`, ...) is "
        "`fastmath<afn>` (on NVIDIA `T.exp2` is one `ex2.approx.ftz.f32`)",
    PassConfigKey.TL_DISABLE_WARP_SPECIALIZED:
        "True: the lowering's `warp_specialize` option is off (TMA pipelines keep "
        "every thread a consumer)",
    PassConfigKey.TL_DISABLE_TMA_LOWER:
        "True: the target leaves out `tma` (copies are cp.async or plain vectorized "
        "ones; no warp specialization, TMA stores or multicast, which need it)",
    PassConfigKey.TL_DISABLE_WGMMA:
        "True: the target leaves out `wgmma` (GEMMs use mma.sync)",
    PassConfigKey.TL_ENABLE_ASYNC_COPY:
        "False: the target leaves out `cp.async`",
    PassConfigKey.TIR_USE_ASYNC_COPY:
        "False: the target leaves out `cp.async`",
    PassConfigKey.CUDA_KERNELS_OUTPUT_DIR:
        "a directory: each kernel's tile IR (and PTX on CUDA) is written there, "
        "as `debug_root_path` does",
    PassConfigKey.TL_ENABLE_DUMP_IR:
        "True: each kernel's tile IR (and PTX) is written to `tl.dump_ir_path` "
        "(default `./dump_ir`)",
    PassConfigKey.TL_DUMP_IR_DIR:
        "the directory of `tl.enable_dump_ir`",
}

assert {k.value for k in HANDLED} <= env._KNOWN_CONFIGS


def normalize_pass_configs(pass_configs=None) -> dict:
    """pass_configs keyed by strings (PassConfigKey members become theirs)."""
    return env.normalize_pass_configs(pass_configs)


__all__ = ["PassConfigKey", "HANDLED", "normalize_pass_configs"]
