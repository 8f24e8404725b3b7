//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAttachTarget : Pass<"tile-attach-target", "::mlir::ModuleOp"> {
  let summary = "give the module the #tile.target its kernels compile for";
  let description = [{
    Sets the module's `tile.target` attribute to `#tile.target<chip>`
    (restricted to `features` when given), replacing any target it had.
    Layout inference and the lowerings read the target from there: the chip
    decides the warp size, the limits and the instruction families, and
    `features` can withhold some of them (e.g. `features=cp.async,ldmatrix,
    mma.sync` on sm_90a keeps kernels on the Ampere-class path). Fails on an
    unknown chip, a feature the chip lacks, or a chip not from `vendor`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target chip: sm_80, sm_90a, gfx942, host, ...">,
    ListOption<"features", "features", "std::string",
               "Instruction families kernels may use (default: all the "
               "chip has): cp.async, ldmatrix, mma.sync, tma, wgmma, mfma">,
    Option<"vendor", "vendor", "std::string", /*default=*/"\"\"",
           "The vendor the chip must be from (nvidia, amd; empty: any), "
           "as a pipeline for one vendor's GPUs asks">
  ];
  // #tile.target lives in the tile dialect, loaded or not (a module without
  // tile ops).
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileMergeBlocks : Pass<"tile-merge-blocks"> {
  let summary = "merge neighbouring blocks of a GEMM kernel's grid into one "
                "block with a wider tile";
  let description = [{
    TileLang's usual GEMM tile is 128 x 128 (or 64 wide); on wgmma targets
    a block that multiplies a 128 x 256 tile reads each A tile once for
    twice the columns, and its warpgroups issue m64n256 instructions, the
    shape cuBLAS and the bench's templates use (on an H200 an int8
    dequantizing GEMM as TileLang users write it ran at 0.92x its torch
    counterpart with 128 x 128 tiles, 1.09x with 128 x 256;
    docs/performance.md).

    This pass merges `f` neighbouring blocks along the grid dim whose block
    index moves the gemm's N into one block: the grid is `f` times shorter
    there, the body sees the first merged block's index (`f * b`), and
    every buffer and tile.parallel that differs between the blocks becomes
    `f` times as wide along the dim that moves with the block index, so the
    gemm multiplies an `f` times wider B tile into an `f` times wider
    accumulator. `f` makes the gemm's N 256 (2 from 128, 4 from 64). A
    gemm of 64 rows then has pairs of blocks merged along the dim that
    moves M, its A tile (and C's rows) widening instead, to 128 rows.

    A kernel is merged where that computes what the blocks did: a grid dim
    that `f` divides, no raster or persistent schedule and no thread
    index or layouts written by the user; one tile.gemm, on shared or
    fragment operands whose B (and then C) widens along N while A stays
    the same in every merged block (A widening along M and B the same,
    for the merge along M); a body of tile.alloc_shared and
    tile.fragment buffers (no layout, not reducers), tile.fill, tile.copy
    (global offsets that move with the block index by the tile's extent
    along one dim, or not at all), tile.atomic_add, tile.pipelined loops
    whose bounds the blocks share, tile.parallel loops whose indices and
    values shift as the widening needs (see IndexShifts.h: `Bias[bx * 128 +
    j]` over a widened `j` reads what each block read; `scf.if` on
    conditions that do not shift), reads of tables in global memory at
    indices that do not move (a grouped GEMM's tile plan), and pure
    arithmetic. Anything else keeps the kernel as written.

    It pays only where the merged grid still fills the GPU: at least
    `min-blocks` merged blocks (default two waves of an H100's 132
    multiprocessors). A grid with extents known only at run time keeps the
    kernel as written and adds the merged copy beside it, in an `scf.if`
    on the host that launches the copy where the grid has `min-blocks`
    blocks once merged and `f` divides the merged dim. Merged kernels fit
    the target's shared memory less 8 KiB (the
    loops' stages reduced, not below 2) and on targets with wgmma. Run
    before tile-widen-kernels, which gives the wider accumulator the
    threads it needs.
  }];
  let options = [
    Option<"minBlocks", "min-blocks", "int64_t", /*default=*/"264",
           "The fewest blocks a merged grid may have">,
  ];
}

def TileWidenKernels : Pass<"tile-widen-kernels"> {
  let summary = "give a kernel whose fragments would spill, or whose "
                "loop converts gemm operands, more threads";
  let description = [{
    A tile kernel names no thread: `threads(N)` says how many threads share
    its tiles, and the compiler divides every op's work over them. Where
    the kernel's fragments need more 32-bit registers per thread than
    three quarters of what the target gives a thread (each fragment's bits
    spread evenly over the threads), the registers spill (TileLang's
    128 x 128 attention at 128 threads: 255 registers and a kilobyte of
    spills per thread, docs/performance.md). This pass doubles the kernel's
    threads until they fit, up to `max-threads`. Kernels of whole warps
    only: a count that is not a multiple of the warp size, kernels whose
    fragments or parallel loops carry a layout written by the user (which
    fixes the threads), kernels that read a thread index
    (`tile.thread_id`), and kernels whose layouts conflict at the wider
    count (layout inference is tried on a copy), keep theirs, as does every
    kernel on the CPU target. Run before tile-infer-layouts.

    On targets with wgmma, a kernel of one warpgroup (128 threads) whose
    pipelined loop computes an operand of a gemm of at least 128 rows in a
    tile.parallel each iteration (weights dequantized between the copies
    and the gemm) gets a second one: the conversion, run by the loop's
    consumer threads between gemms, bounds such a loop, and two warpgroups
    share it (on an H200, int8 and int4 dequantizing GEMMs as TileLang
    users write them ran 15% faster; docs/performance.md).
  }];
  let options = [
    Option<"maxThreads", "max-threads", "int64_t", /*default=*/"256",
           "The most threads a kernel is widened to (0: none is widened)">,
  ];
}

def TileRasterKernels : Pass<"tile-raster-kernels"> {
  let summary = "launch the blocks of GEMM-shaped kernels in panels that "
                "share their tiles in L2";
  let description = [{
    A GPU launches a grid's blocks in the order of their linear index, x
    fastest. For a GEMM whose grid is (N tiles, M tiles) that order makes
    each wave of blocks read a few rows of A and every column of B: at
    8192^3 with 128 x 128 tiles one wave reads all of B (128 MB), more
    than an H100's L2 holds, so B comes from HBM again in every wave.
    Launched in panels of `panel` columns (TileLang's
    `T.use_swizzle(panel)`, `#tile.raster<panel, row>`), a wave reads
    `panel` columns of B and `waves / panel` rows of A, and its blocks
    find each other's tiles in L2.

    The pass gives a kernel that rasterization: a kernel on a GPU target
    with a 2-d grid and no raster of its own, not persistent, with a
    `tile.gemm` and two copies from global memory in loops, one whose tile
    origin depends on the first block id and not the second, the other
    the reverse (the operands a GEMM's blocks share along rows and along
    columns). Not rasterized: kernels with a run-time `scf.while` (blocks
    that may wait on one another expect the launch order), kernels whose
    static grid's x is at most `panel` (nothing would change), and every
    kernel on the CPU target. The block ids the body sees are a
    permutation of the launched ones, so the program's results do not
    change.
  }];
  let options = [
    Option<"panel", "panel", "int64_t", /*default=*/"8",
           "The panel's width in blocks along the grid's x (0: no kernel "
           "is rasterized)">,
  ];
}

def TileWidenKSteps : Pass<"tile-widen-k-steps"> {
  let summary = "merge the narrow K steps of a pipelined GEMM loop into "
                "wider ones";
  let description = [{
    A pipelined loop whose every iteration copies an A and a B tile of
    `block_K` along K into shared memory and multiplies them pays, per
    iteration, a wait for its stage, a fence and a wait for the tensor
    cores. With 32-wide f16 K steps (TileLang's usual `block_K = 32`) that
    overhead is as long as the multiply itself: on an H200 a 128 x 128 x 32
    GEMM runs at 0.61-0.74x cuBLAS where the same kernel with 64-wide steps
    runs at 0.80-0.93x (docs/performance.md).

    The pass merges `f` consecutive iterations of such a loop into one: its
    shared buffers become `f` times as wide along K, each copy loads the `f`
    tiles its iterations loaded (they are adjacent), and the gemm reduces
    over all of them. `f` makes a step `bytes` wide along K (2 for 32-wide
    f16 steps at 128 bytes; at most 4). A loop is merged when it is a
    `tile.pipelined` loop with 2 or more stages and no schedule written by
    hand, static bounds whose trip count `f` divides, and a body of one
    `tile.gemm` (not `clear_accum`), copies from global memory into shared
    buffers (one each; along one dim the tile origin is `W * k + c` for a
    `W` as wide as the tile per step of `k` and a `c` the same in every
    iteration, along the others independent of `k`), pure index arithmetic,
    and at most one `tile.parallel` before the gemm that computes a gemm
    operand the copies do not fill (weights dequantized in shared memory).
    The buffers are `tile.alloc_shared` without a layout, used only there.

    Such a parallel widens with the loop along the operand's K dim, and is
    merged only where its body, run over `f` tiles, computes what the `f`
    iterations did: with `j` its induction variable along K and a tile `W`
    wide, every index and value it computes must shift between iteration
    `k`'s element `j + W` and iteration `k + 1`'s element `j` by a constant
    that the merged buffers absorb: by nothing for values, stored elements
    and indices into global memory (`k * W + j`, `(k * W + j) / group`,
    `j % 2` for an even `W`), and by the buffer's K extent for its K index
    (`j`, `j / 2` into bytes of two 4-bit weights). Its other memory
    accesses must be to global memory, which the loop does not write.
    The results are the same sums, in another order.

    On a kernel with a `#tile.target`, only targets with `wgmma` are
    changed (where the gain is measured), and only while the kernel's shared
    buffers, times their loops' stages, fit the chip's shared memory less 8
    KiB (its barriers and reduction scratch); else the loop keeps fewer
    stages (not below 2) or is left as written. Without a target every such
    loop is merged.
  }];
  let options = [
    Option<"bytes", "bytes", "int64_t", /*default=*/"128",
           "The extent along K, in bytes, a step should reach (0: no loop "
           "is changed)">,
  ];
}

def TileSpecializeKernels : Pass<"tile-specialize-kernels"> {
  let summary = "launch a kernel marked specialize as one variant per "
                "value of the i1 values it takes from outside";
  let description = [{
    A `tile.kernel` marked `specialize` that uses i1
    values defined outside it (conditions the host computes, such as "the
    length is a multiple of the block") becomes one kernel per combination
    of their values, launched under `scf.if`s on those values: in each
    copy the values are constants, and the `scf.if`s and `arith.select`s
    they decide fold away. The kernel author writes one kernel with the
    branch where it belongs (inside a loop, around a mask); each launched
    kernel has no branch, as FlashAttention's `Is_even_MN` template
    kernels have none. At most three such values (eight variants); a kernel
    marked but using none is an error.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileInsertBarriers : Pass<"tile-insert-barriers"> {
  let summary = "place barriers where the threads of a kernel that reads "
                "thread indices share shared memory";
  let description = [{
    In a kernel that reads a thread index (`tile.thread_id`), code outside
    tile ops runs differently in each thread, and a thread may read what
    another wrote to shared memory. This pass puts a `tile.barrier` before
    each access to a shared buffer that another thread's earlier access may
    conflict with (a read after a write, a write after a read or a write,
    an atomic after a plain access and the reverse; atomics among
    themselves do not conflict), counting what loops carry from one
    iteration to the next, as TileLang's thread synchronization does. It
    tracks buffers, not elements: an access that only its own thread made
    earlier still gets a barrier. Barriers go into loops and branches whose
    bounds and conditions are the same in every thread; a branch or loop
    that differs between threads is one access as a whole, its barrier
    before or after it.

    It also checks what such a kernel may not do, each a located error: a
    tile op (collective: every thread runs it together) with an operand
    that depends on a thread index, or under a branch or in a loop that
    differs between threads; a value that depends on a thread index used in
    a `tile.parallel` body. Kernels without a thread index are left as
    they are.
  }];
}

def TileInferLayouts : Pass<"tile-infer-layouts"> {
  let summary = "give every fragment, shared buffer and parallel loop a layout";
  let description = [{
    Runs on every `tile.kernel` under the op it is scheduled on, for the
    target of the enclosing module (`tile.target`, see tile-attach-target).
    Afterwards every `tile.fragment`, `tile.alloc_shared` and
    `tile.parallel` carries a `layout` attribute.

    Layouts come, in order of precedence, from:
    1. user annotations (`layout(...)` written in the source);
    2. ops with fixed needs: a `tile.gemm` gives its accumulator, and any
       operand held in registers, the fragment layout of the chip's matrix
       instruction (mma.sync on sm_80+, MFMA on CDNA, an FMA layout
       otherwise), tiled over the block's warps by the gemm's warp policy;
       shared operands get a swizzle that ldmatrix reads without bank
       conflicts;
    3. propagation: a `tile.parallel` runs each iteration on the threads
       that own the fragment elements it touches, so fragments indexed by
       all of its induction variables share its layout and fragments
       indexed by some of them get its projection; `tile.reduce` gives its
       result the projection of its source; fragment-to-fragment copies and
       `tile.cumsum` keep layouts equal;
    4. free choice for what is left, largest fragment first: 128-bit vectors
       per thread, consecutive threads on consecutive vectors; shared
       buffers no op constrains are row-major.

    Fails, naming both ops and both layouts, when two needs conflict, and
    when a gemm's tile shape does not fit the instruction.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark on every buffer and loop saying why it got its "
           "layout">
  ];
}

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
