//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_TD
#define TILE_DIALECT_TILE_IR_TILEOPS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "tile/Dialect/Tile/IR/TileAttrDefs.td"
include "tile/Dialect/Tile/IR/TileEnums.td"
include "tile/Dialect/Tile/IR/TileInterfaces.td"
include "tile/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Buffer : AnyTypeOf<[AnyMemRef, Tile_FragmentType],
    "memref or fragment">;
def Tile_TileOperand : AnyTypeOf<[AnyStaticShapeMemRef, Tile_FragmentType],
    "statically shaped memref or fragment">;

/// Block-level ops run collectively by all threads of a block: they must be
/// nested in a tile.kernel, and not in a tile.parallel body.
def Tile_BlockLevel : NativeOpTrait<"BlockLevel"> {
  let cppNamespace = "::mlir::tile";
}

//===----------------------------------------------------------------------===//
// tile.kernel
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    AutomaticAllocationScope, RecursiveMemoryEffects, SingleBlock,
    NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "launch a grid of thread blocks (TileLang's T.Kernel)";
  let description = [{
    Runs its body once per block of a 1-, 2- or 3-d grid. Grid sizes are
    static integers or `index` values; the number of threads per block is
    static. The body's arguments are the block ids, one per grid dim.

    Every thread of the block executes the body; tile operations in it are
    collective, and the compiler divides their work over the threads. With
    `raster(...)`, block ids follow a rasterized order (see `#tile.raster`).

    Two keywords ask for a way of running the kernel, with the same results:
    - `persistent`: on a GPU, the launch has min(blocks, multiprocessors)
      blocks, each walking the grid's blocks in a loop (block b takes b,
      b + blocks, ... in the raster's order);
    - `specialize`: the i1 values the kernel uses from outside it (up to
      three) are specialized on: one kernel per combination of their values,
      with the branches they decide folded away, and the host launches the
      one that applies (tile-specialize-kernels).

    ```mlir
    tile.kernel grid(%bx, %by) in (8, %n) threads(128) {
      %acc = tile.fragment : !tile.fragment<128x128xf32>
    }
    tile.kernel grid(%bx, %by) in (%m, %n) threads(256)
        raster(#tile.raster<8, row>) persistent {
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_grid,
                       DenseI64ArrayAttr:$static_grid,
                       I64Attr:$threads,
                       OptionalAttr<Tile_RasterAttr>:$raster,
                       UnitAttr:$persistent,
                       UnitAttr:$specialize);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of grid dims.
    unsigned getGridRank() { return getStaticGrid().size(); }
    /// The block id arguments of the body.
    ::mlir::Block::BlockArgListType getBlockIds() {
      return getBody().front().getArguments();
    }
    /// Grid sizes, static ones as attributes.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedGrid();
  }];
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

def Tile_AllocSharedOp : Tile_Op<"alloc_shared", [Tile_BlockLevel,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "allocate a shared-memory buffer (TileLang's T.alloc_shared)";
  let description = [{
    Allocates a statically shaped buffer in the block's shared memory, live
    for the enclosing `tile.kernel`. The result is a `memref` in
    `#gpu.address_space<workgroup>` with the identity layout: indices are
    logical. The physical arrangement is the optional `layout` attribute
    (user annotation, TileLang's T.annotate_layout), which layout inference
    fills in when absent.

    ```mlir
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared layout(#tile.swizzle<64>) : memref<32x128xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins OptionalAttr<Tile_LayoutAttrInterface>:$layout);
  let results = (outs Res<AnyStaticShapeMemRef, "",
                          [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "(`layout` `(` $layout^ `)`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_FragmentOp : Tile_Op<"fragment", [Tile_BlockLevel,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "allocate a register fragment (TileLang's T.alloc_fragment, T.alloc_reducer)";
  let description = [{
    Allocates a register tile spread over the block's threads. Its elements
    are undefined until written. The optional `layout` attribute says which
    thread and register slot holds each element; layout inference fills it
    in when absent.

    With `reducer(kind)` (`sum`, `max` or `min`; TileLang's
    `T.alloc_reducer`) the fragment is a reducer: each thread that holds a
    copy of an element accumulates into its copy privately, and
    `tile.finalize_reducer` combines the copies. Its elements start at the
    kind's identity (0, -inf, +inf; the integer type's minimum and
    maximum), each time the allocation runs. It is written only by
    `tile.fill` (a starting value, combined once into each element), by
    updates in `tile.parallel` bodies (`tile.store` of `kind(tile.load of
    the same element, x)`, at any subset of the loop's induction variables)
    and by `tile.finalize_reducer`; it is read after that finalize, where
    every copy holds the element's total. Layout inference gives it the
    layout of the loops that update it: the threads that run a loop's
    iterations along the dims the reducer lacks hold partial values.

    ```mlir
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %c = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %rowsum = tile.fragment reducer(sum) : !tile.fragment<128xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<Tile_LayoutAttrInterface>:$layout,
                       OptionalAttr<Tile_ReduceKindAttr>:$reducer);
  let results = (outs Res<Tile_FragmentType, "",
                          [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = [{
    `` custom<Reducer>($reducer) (`layout` `(` $layout^ `)`)? attr-dict
    `:` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [Tile_BlockLevel, AttrSizedOperandSegments]> {
  let summary = "copy a tile (TileLang's T.copy)";
  let description = [{
    Copies a tile between global memory, shared memory and fragments, in any
    direction but global to global. The tile shape is the shape of the
    non-global side; on the global side, `[offsets]` give the tile's first
    element (one static or `index` offset per dim, equal rank).

    Partial tiles at the edge of a global tensor are legal: elements read
    outside the tensor are `pad` (default 0), elements written outside it
    are dropped. Element types may differ when both are integers or both
    floats; values are converted.

    ```mlir
    tile.copy %A[%m, %k] -> %As : memref<?x?xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %acc -> %C[%m, 0] : !tile.fragment<128x128xf32>, memref<1024x256xf16>
    tile.copy %As -> %frag : memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x32xf16>
    ```

    With `barrier(%bars[%i])` (TileLang's `T.tma_copy(src, dst,
    barrier=...)`), a copy from global to shared memory signals barrier `i`:
    it may still be in flight after the op, and the barrier's current phase
    completes only once its data has landed, so the threads that wait for
    that phase read it. On Hopper it is a TMA load that counts its bytes on
    the mbarrier; elsewhere the threads copy before going on.

    ```mlir
    tile.copy %A[%m, %k] -> %As barrier(%bars[%c0]) : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.barrier<2>
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "tile source", [MemRead]>:$source,
                       Arg<Tile_Buffer, "tile destination", [MemWrite]>:$dest,
                       Variadic<Index>:$offsets,
                       DenseI64ArrayAttr:$static_offsets,
                       OptionalAttr<TypedAttrInterface>:$pad,
                       Optional<Tile_BarrierType>:$barrier,
                       Optional<Index>:$barrier_index);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The global-memory side, if any.
    ::mlir::Value getGlobal();
    /// The side whose shape is the tile shape.
    ::mlir::Value getTile();
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedOffsets();
  }];
}

def Tile_Im2ColOp : Tile_Op<"im2col", [Tile_BlockLevel]> {
  let summary = "a block's im2col tile of a 2-d convolution (TileLang's T.im2col)";
  let description = [{
    Fills the shared buffer `col` (pixels x channels) with the columns of
    an NHWC image that a convolution's implicit GEMM multiplies: element
    `[i, j]` is `image[n, h, w, c]` for output pixel
    `m = pixel_block * pixels + i` (n, oh, ow, with ow fastest, over the
    N x OH x OW output) and filter position `q = k_block * channels + j`
    (kh, kw, c, with c fastest, over the KH x KW x C filter; square
    filters of `kernel` x `kernel`), `h = oh * stride - padding +
    kh * dilation`, `w = ow * stride - padding + kw * dilation`, and
    `OH = (H + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1`
    (OW likewise). Elements in the padding, past the last pixel or past
    the filter's end are 0. In a `tile.pipelined` loop it is a producer
    like a global-to-shared `tile.copy` (cp.async chunks of 16 bytes, the
    padding's zero-filled), where C is a multiple of 16 bytes' elements.

    ```mlir
    tile.im2col %img[%by, %k] -> %cols kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "NHWC image", [MemRead]>:$image,
                       Arg<AnyStaticShapeMemRef, "column tile",
                           [MemWrite]>:$col,
                       Index:$pixel_block,
                       Index:$k_block,
                       ConfinedAttr<I64Attr, [IntPositive]>:$kernel,
                       ConfinedAttr<I64Attr, [IntPositive]>:$stride,
                       ConfinedAttr<I64Attr, [IntPositive]>:$dilation,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$padding);
  let assemblyFormat = [{
    $image `[` $pixel_block `,` $k_block `]` `->` $col `kernel` $kernel
    `stride` $stride `dilation` $dilation `padding` $padding attr-dict
    `:` type($image) `,` type($col)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [Tile_BlockLevel]> {
  let summary = "atomically add a tile into global memory (TileLang's T.atomic_add)";
  let description = [{
    Adds each element of the source tile (shared buffer or fragment) into
    the global tensor at `[offsets]`, atomically per element. Partial tiles
    follow `tile.copy`: elements outside the tensor are dropped. The
    destination element type must be the source's, or both must be floats.

    ```mlir
    tile.atomic_add %part -> %Out[%m, 0] : !tile.fragment<64x64xf32>, memref<1024x64xf32>
    ```
  }];
  let arguments = (ins Arg<Tile_TileOperand, "tile to add", [MemRead]>:$source,
                       Arg<AnyMemRef, "global destination",
                           [MemRead, MemWrite]>:$dest,
                       Variadic<Index>:$offsets,
                       DenseI64ArrayAttr:$static_offsets);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedOffsets();
  }];
}

def Tile_FillOp : Tile_Op<"fill", [Tile_BlockLevel,
    TypesMatchWith<"value type matches the buffer's element type", "dest",
                   "value", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()">]> {
  let summary = "fill a tile with a value (TileLang's T.fill, T.clear)";
  let description = [{
    Writes `value` into every element of a shared buffer or fragment.
    TileLang's `T.clear(buf)` is a fill with zero.

    ```mlir
    %zero = arith.constant 0.0 : f32
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    ```
  }];
  let arguments = (ins Arg<Tile_TileOperand, "filled tile", [MemWrite]>:$dest,
                       AnyType:$value);
  let assemblyFormat = "$dest `,` $value attr-dict `:` type($dest)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_GemmOp : Tile_Op<"gemm", [Tile_BlockLevel]> {
  let summary = "tile matrix multiply-accumulate (TileLang's T.gemm)";
  let description = [{
    Computes `C += op(A) x op(B)` where `op` transposes when `transpose_a` /
    `transpose_b` is set; with `clear_accum`, `C = op(A) x op(B)`. A and B
    are shared buffers or fragments, C is a fragment: op(A) is M x K, op(B)
    is K x N, C is M x N. `policy` says how the block's warps divide the C
    tile (`square`, `full_row`: warps stacked along M, `full_col`: along N).

    Element types (A, B -> C): f16 -> f16 or f32; bf16 -> f32; f32 -> f32
    (tf32 tensor cores or FMA); f64 -> f64; i8 -> i32; f8E4M3FN / f8E5M2 /
    f8E4M3FNUZ / f8E5M2FNUZ -> f32 (A and B may mix f8 types).

    ```mlir
    tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    tile.gemm %As, %Bt, %acc transpose_b policy full_row : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    ```
  }];
  let arguments = (ins Arg<Tile_TileOperand, "A", [MemRead]>:$a,
                       Arg<Tile_TileOperand, "B", [MemRead]>:$b,
                       Arg<Tile_FragmentType, "C", [MemRead, MemWrite]>:$c,
                       UnitAttr:$transpose_a,
                       UnitAttr:$transpose_b,
                       UnitAttr:$clear_accum,
                       DefaultValuedAttr<Tile_WarpPolicyAttr,
                                         "::mlir::tile::WarpPolicy::Square">:$policy);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`clear_accum` $clear_accum^)? (`policy` $policy^)? attr-dict
    `:` type($a) `,` type($b) `,` qualified(type($c))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getM();
    int64_t getN();
    int64_t getK();
  }];
}

def Tile_ReduceOp : Tile_Op<"reduce", [Tile_BlockLevel]> {
  let summary = "reduce a tile along one dim (TileLang's T.reduce_*)";
  let description = [{
    Reduces `source` along `dim` into `dest`, whose shape is the source's
    without `dim` (a rank-1 source reduces into a 1-element tile). Kinds:
    `sum`, `max`, `min`, `absmax` (max of |x|), `abssum` (sum of |x|). With
    `clear = false` the result is combined with what `dest` holds;
    otherwise (the default) `dest` is overwritten. Element types are equal
    or both floats.

    ```mlir
    tile.reduce max %scores -> %rowmax dim 1 : !tile.fragment<64x128xf32>, !tile.fragment<64xf32>
    tile.reduce sum %scores -> %rowsum dim 1 {clear = false} : !tile.fragment<64x128xf32>, !tile.fragment<64xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind,
                       Arg<Tile_TileOperand, "reduced tile", [MemRead]>:$source,
                       Arg<Tile_TileOperand, "result", [MemRead, MemWrite]>:$dest,
                       I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "true">:$clear);
  let assemblyFormat = [{
    $kind $source `->` $dest `dim` $dim attr-dict `:` type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_CumSumOp : Tile_Op<"cumsum", [Tile_BlockLevel]> {
  let summary = "inclusive prefix sum along one dim (TileLang's T.cumsum)";
  let description = [{
    `dest[..., i, ...] = sum of source[..., j, ...] for j <= i` along `dim`
    (for `j >= i` with `reverse`). Source and destination have the same
    shape and element type; they may be the same buffer.

    ```mlir
    tile.cumsum %s -> %s dim 1 : memref<64x128xf32, #gpu.address_space<workgroup>>, memref<64x128xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<Tile_TileOperand, "scanned tile", [MemRead]>:$source,
                       Arg<Tile_TileOperand, "result", [MemWrite]>:$dest,
                       I64Attr:$dim,
                       UnitAttr:$reverse);
  let assemblyFormat = [{
    $source `->` $dest `dim` $dim (`reverse` $reverse^)? attr-dict
    `:` type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_FinalizeReducerOp : Tile_Op<"finalize_reducer", [Tile_BlockLevel]> {
  let summary = "combine a reducer's partial values (TileLang's T.finalize_reducer)";
  let description = [{
    Combines, for each element of a reducer (a `tile.fragment` with
    `reducer(kind)`), the partial values its copies accumulated, with the
    reducer's kind, and leaves the total in every copy: in registers where
    one thread holds several copies, by shuffles within a warp, through
    shared scratch across warps. Afterwards the reducer reads as an
    ordinary fragment. A reducer is finalized once per reduction: another
    reduction into it starts with a `tile.fill`.

    ```mlir
    %r = tile.fragment reducer(sum) : !tile.fragment<64xf32>
    tile.parallel (%i, %j) in (64, 128) {
      %x = tile.load %s[%i, %j] : !tile.fragment<64x128xf32>
      %old = tile.load %r[%i] : !tile.fragment<64xf32>
      %new = arith.addf %old, %x : f32
      tile.store %new, %r[%i] : !tile.fragment<64xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<64xf32>
    ```
  }];
  let arguments = (ins Arg<Tile_FragmentType, "reducer",
                           [MemRead, MemWrite]>:$reducer);
  let assemblyFormat = "$reducer attr-dict `:` qualified(type($reducer))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reducer's kind (from its allocation).
    ::mlir::tile::ReduceKind getKind();
  }];
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

def Tile_ThreadIdOp : Tile_Op<"thread_id", [Tile_BlockLevel, Pure]> {
  let summary = "the running thread's index in its block (TileLang's T.get_thread_binding)";
  let description = [{
    The index of the thread that runs this code in its block: `thread`
    counts threads, in `[0, threads)` of the kernel; `lane` is the
    thread's place in its warp and `warp` the warp's index, for the target's
    warp size (32 on NVIDIA and the CPU, 64 on AMD).

    Code outside tile ops runs in every thread of the block (each thread
    computes the block-level scalars for itself); with a thread index,
    threads compute different things: per-thread loads and stores,
    `memref.alloca` arrays private to the thread, branches on the index. A
    kernel that reads a thread index keeps its thread count as written
    (tile-widen-kernels leaves it), gets barriers between its accesses to
    shared memory where threads may see each other's (tile-insert-barriers),
    and its tile ops must take operands that are the same in every thread.

    ```mlir
    %t = tile.thread_id thread : index
    %lane = tile.thread_id lane : index
    %warp = tile.thread_id warp : index
    ```
  }];
  let arguments = (ins Tile_ThreadUnitAttr:$unit);
  let results = (outs Index:$result);
  let assemblyFormat = "$unit attr-dict `:` type($result)";
}

def Tile_BarrierOp : Tile_Op<"barrier", [Tile_BlockLevel]> {
  let summary = "wait for every thread of the block (TileLang's T.sync_threads)";
  let description = [{
    Every thread of the block waits here until all have arrived, and the
    shared memory accesses each made before it are visible to all after it.
    Every thread must reach it: it may not be under a branch or in a loop
    whose condition differs between threads. tile-insert-barriers places
    them where a kernel that reads thread indices needs them; one written
    by hand is kept.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_ThreadRangeOp : Tile_Op<"thread_range", [Tile_BlockLevel,
    RecursiveMemoryEffects, SingleBlock, NoTerminator]> {
  let summary = "a region that some of the block's threads run (TileLang's T.ws)";
  let description = [{
    Runs its body in the threads `begin` to `end` (exclusive) of the block
    only; the others skip it. Tile ops in the body are collective over those
    threads, which the compiler divides their work over (fragments the body
    uses are laid out over them), and a `tile.barrier` in it waits for them
    alone. TileLang's `with T.ws(i):` is the range of warpgroup i (threads
    128 i to 128 (i + 1)); consecutive warpgroups make one range.

    Different ranges run at the same time: what they share in shared memory
    is ordered by the kernel's barriers (`tile.alloc_barrier`,
    `tile.barrier_arrive`, `tile.barrier_wait`), as the program says; the
    compiler adds no barrier between a range and the code around it. Bounds
    are multiples of 32, and ranges do not nest. A kernel with thread ranges
    keeps its thread count, its pipelined loops run as written, and its
    shared buffers each have memory of their own.

    ```mlir
    tile.thread_range 128 to 256 {
      tile.barrier_wait %bars[%c1], %parity : !tile.barrier<2>
      tile.copy %A[%m, %k] -> %As barrier(%bars[%c0]) : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.barrier<2>
      tile.barrier_arrive %bars[%c0] : !tile.barrier<2>
    }
    ```
  }];
  let arguments = (ins I64Attr:$begin, I64Attr:$end);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$begin `to` $end attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getThreadCount() { return getEnd() - getBegin(); }
  }];
}

def Tile_AllocBarrierOp : Tile_Op<"alloc_barrier", [Tile_BlockLevel]> {
  let summary = "make a group of barriers (TileLang's T.alloc_barrier)";
  let description = [{
    Makes barriers in the block's shared memory, one per entry of
    `arrive_counts`, each completing a phase after that many arrivals. They
    are ready when every thread has passed this op (it is at the kernel's
    level, outside thread ranges). A barrier's first phase has parity 0.

    ```mlir
    %ready = tile.alloc_barrier [128] : !tile.barrier<1>
    %stages = tile.alloc_barrier [128, 128, 256, 256] : !tile.barrier<4>
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$arrive_counts);
  let results = (outs Tile_BarrierType:$result);
  let assemblyFormat = "$arrive_counts attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_BarrierArriveOp : Tile_Op<"barrier_arrive"> {
  let summary = "arrive at a barrier (TileLang's T.barrier_arrive, T.mbarrier_arrive)";
  let description = [{
    The running thread arrives at barrier `index` of the group, once: the
    barrier's current phase completes with the last of its arrival count
    (and the copies that signal it). The thread's writes to shared memory
    before it are visible to the threads that wait for that phase. Each
    thread that runs it arrives (it is not a tile op: under a branch, only
    the threads that take it do).

    ```mlir
    tile.barrier_arrive %bars[%i] : !tile.barrier<2>
    ```
  }];
  let arguments = (ins Tile_BarrierType:$barrier, Index:$index);
  let assemblyFormat = "$barrier `[` $index `]` attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def Tile_BarrierWaitOp : Tile_Op<"barrier_wait"> {
  let summary = "wait for a barrier's phase (TileLang's T.barrier_wait, T.mbarrier_wait_parity)";
  let description = [{
    The running thread waits until the phase of barrier `index` whose parity
    is `parity` (its low bit) has completed: the barrier's phases count 0,
    1, 2, ... from its allocation, and a wait for the parity of the phase
    before the current one returns at once (so waiting for parity 1 on a new
    barrier does not block). What the arriving threads wrote before arriving,
    and what the copies that signal the phase wrote, is visible after it.

    ```mlir
    tile.barrier_wait %bars[%i], %parity : !tile.barrier<2>
    ```
  }];
  let arguments = (ins Tile_BarrierType:$barrier, Index:$index, Index:$parity);
  let assemblyFormat = [{
    $barrier `[` $index `]` `,` $parity attr-dict `:` qualified(type($barrier))
  }];
  let hasVerifier = 1;
}

def Tile_FenceOp : Tile_Op<"fence"> {
  let summary = "order a thread's memory accesses across the device (TileLang's memory_order)";
  let description = [{
    A memory fence of the running thread, at the scope of the device (every
    thread of the launch, and the host's view once the kernel ends; on the
    CPU target the whole process). With `release`, the thread's memory
    accesses before the fence are visible to any thread that observes a
    write it makes after it (with an `acquire` fence or atomic after its
    read); with `acquire`, the accesses after the fence see what was
    released before a write it observed before it; `acq_rel` both, and
    `seq_cst` also orders it in one total order with the other `seq_cst`
    fences. Atomics (`memref.atomic_rmw`) are relaxed: a release atomic is a
    `release` fence before one, an acquire atomic an `acquire` fence after
    one (what TileLang's `memory_order` argument of its atomics says).

    Unlike a barrier, a fence waits for no other thread: it may be anywhere
    in a kernel, under any control flow and in `tile.parallel` bodies.

    ```mlir
    tile.fence release
    %old = memref.atomic_rmw addi %one, %counter[%c0] : (i32, memref<1xi32>) -> i32
    tile.fence acquire
    ```
  }];
  let arguments = (ins Tile_MemoryOrderAttr:$order);
  let assemblyFormat = "$order attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_Printable : AnyTypeOf<[AnySignlessInteger, Index, AnyFloat, AnyMemRef,
                                Tile_FragmentType],
    "integer, index, float, memref or fragment">;

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "print a value or a buffer for debugging (TileLang's T.print)";
  let description = [{
    Prints lines to the standard output, as TileLang's `T.print` does (on a
    GPU through the device's printf, on the host through the C library's).
    Each line starts with the message and the printing block and thread:

    ```
    msg='<message>' BlockIdx=(bx, by, bz), ThreadIdx=(tx, 0, 0)
    ```

    `BlockIdx` is the block's place in the launched grid (before `raster`:
    the hardware's block index), missing grid dims are 0; `ThreadIdx` is the
    thread's index in the block.

    - Without an operand, every thread prints the message line.
    - A scalar (integer, index or float) is printed by every thread, the
      line followed by `: dtype=<type> value=<value>`.
    - A buffer is printed element by element in row-major order, one line
      per element ending with `: buffer=<name>, index=<flat index>,
      dtype=<type> value=<value>`. A thread-local buffer (a `memref.alloca`
      of the kernel, or a memref in `#gpu.address_space<private>`) is
      printed by every thread; a global tensor, a shared buffer and a
      fragment by one thread, `thread` (default 0), after a barrier: a
      fragment's elements are first gathered from the threads that hold
      them, whatever its layout. `name` is the buffer's name in the lines
      (default: its kind, `global`, `shared`, `fragment` or `local`).

    In a `tile.parallel` body a print takes a message or a scalar (an
    element read there, say): each iteration prints it from the thread that
    runs it (from every thread that runs it, where the loop's layout
    replicates iterations), as TileLang's print in a `T.Parallel` loop.

    Types are named as TileLang names them (`int`, `long`, `float`,
    `half_t`, `bfloat16_t`, `fp8_e4_t`, `bool`, ...); floats print with
    `%f`, `i1` as `true`/`false`, integers as signed unless `unsigned` is
    given. `index` values print as 64-bit integers (`dtype=index`).

    ```mlir
    tile.print "hello"
    tile.print "bx" %bx : index
    tile.print "acc" %acc name "C_local" : !tile.fragment<16x8xf32>
    tile.print "" %As name "A_shared" thread 32 : memref<16x16xf16, #gpu.address_space<workgroup>>
    tile.print "count" %n unsigned : i32
    tile.parallel (%i) in (64) {
      %x = tile.load %acc[%i] : !tile.fragment<64xf32>
      tile.print "x" %x : f32
    }
    ```
  }];
  let arguments = (ins StrAttr:$message,
                       Arg<Optional<Tile_Printable>, "printed value or buffer",
                           [MemRead]>:$value,
                       OptionalAttr<StrAttr>:$name,
                       OptionalAttr<I64Attr>:$thread,
                       UnitAttr:$is_unsigned);
  let assemblyFormat = [{
    $message ($value^)? (`name` $name^)? (`thread` $thread^)?
    (`unsigned` $is_unsigned^)? attr-dict (`:` type($value)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// What is printed: nothing but the message, a scalar, or a buffer of
    /// one of four kinds.
    enum class Printed { Message, Scalar, Global, Shared, Fragment, Local };
    Printed getPrinted();
    /// The tile.parallel whose body holds the print, if any.
    ::mlir::tile::ParallelOp getParallel();
    /// Whether one thread prints (the buffer kinds but Local).
    bool isPrintedByOneThread();
    /// The thread that prints a buffer printed by one thread.
    int64_t getPrintingThread();
    /// The buffer's name in the lines: `name`, or the buffer's kind.
    ::llvm::StringRef getBufferName();
    /// The element type printed (the scalar's type, or the buffer's
    /// element type); null for a message.
    ::mlir::Type getPrintedType();
  }];
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

def Tile_ParallelOp : Tile_Op<"parallel", [Tile_BlockLevel,
    RecursiveMemoryEffects, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "elementwise body over a tile's index space (TileLang's T.Parallel)";
  let description = [{
    Runs the body once for every index of a static iteration space; the
    arguments are the index. Iterations are independent: the compiler
    partitions them over the block's threads (the optional `layout`, a
    fragment layout over the iteration space, records how; layout inference
    derives it from the fragments the body touches). Bodies access
    elements with `tile.load` and `tile.store`; a fragment is indexed by the
    loop's own arguments, so each iteration touches elements its thread
    owns, or in some dims by a value that is the same in every iteration (a
    constant, or one defined outside the loop), which layout inference keeps
    in each thread's slots.

    ```mlir
    tile.parallel (%i, %j) in (64, 128) {
      %x = tile.load %s[%i, %j] : !tile.fragment<64x128xf32>
      %m = tile.load %rowmax[%i] : !tile.fragment<64xf32>
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      tile.store %e, %s[%i, %j] : !tile.fragment<64x128xf32>
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$shape,
                       OptionalAttr<Tile_LayoutAttrInterface>:$layout);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().front().getArguments();
    }
  }];
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [Tile_BlockLevel,
    RecursiveMemoryEffects, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "software-pipelined loop (TileLang's T.Pipelined)";
  let description = [{
    A loop from `lower` to `upper` by `step` whose iterations the compiler
    overlaps: with `stages(n)`, copies into shared memory run up to n - 1
    iterations ahead of the compute that reads them, in multi-buffered
    shared memory. `stages(0)` and `stages(1)` run the loop as written.

    `order` and `stage` optionally schedule the body by hand, one entry per
    op of the body: `order` is the issue order (a permutation) and `stage`
    the pipeline stage (0 <= stage < max(1, n)) of each op.

    ```mlir
    tile.pipelined %k = %c0 to %nk step %c1 stages(3) {
      tile.copy %A[%m, %k] -> %As : memref<1024x512xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper, Index:$step,
                       I64Attr:$num_stages,
                       OptionalAttr<DenseI64ArrayAttr>:$order,
                       OptionalAttr<DenseI64ArrayAttr>:$stage);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getInductionVar() { return getBody().front().getArgument(0); }
  }];
}

//===----------------------------------------------------------------------===//
// Element access (in tile.parallel bodies)
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [
    TypesMatchWith<"result type matches the buffer's element type", "buffer",
                   "result", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()">]> {
  let summary = "read one element in a tile.parallel body";
  let description = [{
    Reads `buffer[indices]` (a fragment, shared buffer or global memref).
    A fragment must be indexed by distinct induction variables of the
    enclosing `tile.parallel` (a subset broadcasts, as `rowmax[%i]` in an
    `(%i, %j)` loop). A global read outside the tensor gives `pad`
    (default 0). A reducer is read after its `tile.finalize_reducer`; in a
    loop that updates it, only by an update (see `tile.store`).

    ```mlir
    %x = tile.load %acc[%i, %j] : !tile.fragment<64x64xf32>
    %g = tile.load %A[%r, %c] : memref<?x?xf16>
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "read buffer", [MemRead]>:$buffer,
                       Variadic<Index>:$indices,
                       OptionalAttr<TypedAttrInterface>:$pad);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$buffer `[` $indices `]` attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    TypesMatchWith<"value type matches the buffer's element type", "buffer",
                   "value", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()">]> {
  let summary = "write one element in a tile.parallel body";
  let description = [{
    Writes `value` to `buffer[indices]`. A fragment must be indexed by all
    induction variables of the enclosing `tile.parallel`, each once, so
    iterations write distinct elements. A global write outside the tensor
    is dropped.

    A store to a reducer is an update: its value is the reducer's kind
    applied to a `tile.load` of the same element (used only there) and a
    contribution (`arith.addf`/`addi` for `sum`, `arith.maximumf`/`maxnumf`/
    `maxsi` for `max`, `arith.minimumf`/`minnumf`/`minsi` for `min`; the
    load and the result may go through a conversion of width), and its
    indices may be any subset of the induction variables, or uniform:
    iterations that differ in the others accumulate into one element.

    ```mlir
    tile.store %y, %acc[%i, %j] : !tile.fragment<64x64xf32>
    %old = tile.load %rowmax[%i] : !tile.fragment<64xf32>
    %new = arith.maximumf %old, %y : f32
    tile.store %new, %rowmax[%i] : !tile.fragment<64xf32>
    ```
  }];
  let arguments = (ins AnyType:$value,
                       Arg<Tile_Buffer, "written buffer", [MemWrite]>:$buffer,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $buffer `[` $indices `]` attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEOPS_TD
