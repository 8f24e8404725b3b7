//===- PipelineStrategies.h - How pipelines fill their stages ---*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. A software-pipelined loop's producers
// (global-to-shared copies run ahead of their consumers) fill the loop's
// stages with one of three copy strategies, each in a file of its own:
//
//   cp.async (CpAsyncPipeline.cpp, sm_80+): every thread copies 16-byte
//     chunks; commit groups, wait_group and a block barrier per iteration.
//   registers (RegisterPipeline.cpp, targets without asynchronous copies:
//     AMD): every thread loads the next iteration's chunks into registers
//     while the body runs and stores them into the other of two shared
//     buffers after it; one block barrier per iteration.
//   TMA (TmaPipeline.cpp and the files Tma.h lists, sm_90): one thread
//     issues bulk tensor copies that complete on the stage's mbarrier;
//     consumers wait on its phase and give the stage back through a second
//     mbarrier. Warp-specialized (sm_90a), that thread is in a producer
//     warpgroup of its own.
//
// Pipelining.cpp plans the loops and picks, at run time, between the
// versions a loop has (TMA, cp.async, as written).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_PIPELINESTRATEGIES_H
#define TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_PIPELINESTRATEGIES_H

#include "../KernelContext.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tile::gpu_lowering {

/// The ops of `loop`'s body that `copy`'s offsets are computed from, in
/// order: pure ops without regions, and reads of tensors the kernel does
/// not write (tables of block indices); failure when another op is among
/// them.
FailureOr<SetVector<Operation *>> getOffsetSlice(const KernelPlan &plan,
                                                 PipelinedOp loop, CopyOp copy);
/// The same for the ops `roots` are computed from.
FailureOr<SetVector<Operation *>>
getOffsetSlice(const KernelPlan &plan, PipelinedOp loop, ValueRange roots);
/// Clones the slice `roots` are computed from at `b` for `iteration`,
/// recording the clones in `mapping`; with `valid`, its tensor reads are
/// made only where `valid` holds (yielding 0 elsewhere).
void cloneOffsetSlice(const KernelPlan &plan, OpBuilder &b, PipelinedOp loop,
                      ValueRange roots, Value iteration, Value valid,
                      IRMapping &mapping);

//===----------------------------------------------------------------------===//
// cp.async
//===----------------------------------------------------------------------===//

/// Why `copy` cannot be a producer of `loop` (run ahead by cp.async or
/// through registers; empty when it can be).
std::string whyNotProducer(const KernelPlan &plan, PipelinedOp loop,
                           CopyOp copy);
/// Why the shared buffer `alloc` that `producer` fills with chunks of
/// `chunk` elements cannot be staged by `loop`'s pipeline (too many
/// unrolled copies, a layout that splits chunks, a use outside the loop or
/// before the producer); empty when it can.
std::string whyNotStagedBuffer(const KernelPlan &plan, PipelinedOp loop,
                               Operation *producer, AllocSharedOp alloc,
                               int64_t chunk);
/// i1, uniform over the block: every chunk `copy` moves starts 16-byte
/// aligned in global memory in every iteration.
Value buildChunkAlignment(KernelContext &k, OpBuilder &b, Location loc,
                          PipelinedOp loop, CopyOp copy);
/// Elements per 16-byte chunk of a producer's tile.
int64_t getProducerChunk(CopyOp copy);
/// One 16-byte chunk of a producer's tile, as the thread that moves it in
/// some iteration sees it.
struct ProducerChunk {
  /// Its first element's index into the buffer's shared memory, in the
  /// stage being filled.
  Value dst;
  /// Its first element's global indices.
  SmallVector<Value> at;
  /// How many of its elements are inside the tensor (0 .. chunk; 0 for an
  /// iteration that is not valid): the rest are zeros.
  Value count;
};
/// Deals the chunks of `chunk` innermost elements of a tile of `shape` to
/// the block's threads round-robin, one a round (a thread with no chunk
/// left in the last round repeats the last one: the same bytes to the same
/// place, instead of a branch), and calls `fn` with the index of each
/// chunk's first element that this thread moves.
void dealChunks(const KernelContext &k, OpBuilder &b, Location loc,
                ArrayRef<int64_t> shape, int64_t chunk,
                function_ref<void(ArrayRef<Value>)> fn);
/// Calls `fn` with each chunk of `copy`'s tile that this thread moves in
/// `iteration` into `stage` (chunks dealt round-robin over the block).
void forEachChunk(KernelContext &k, OpBuilder &b, PipelinedOp loop,
                  CopyOp copy, Value iteration, Value stage, Value valid,
                  function_ref<void(const ProducerChunk &)> fn);

//===----------------------------------------------------------------------===//
// tile.im2col (Im2Col.cpp)
//===----------------------------------------------------------------------===//

/// Elements per 16-byte chunk of the column tile; 1 where its rows are
/// not whole chunks or the image's channels are not unit-stride.
int64_t getIm2ColWidth(Im2ColOp op);
/// i1, uniform: the image's pixels start 16-byte aligned and C is a
/// multiple of the chunk (so chunks never cross pixels).
Value buildIm2ColAlignment(OpBuilder &b, Location loc, Im2ColOp op);
/// Why `op` cannot be a cp.async producer of `loop` (empty when it can).
std::string whyNotIm2ColProducer(const KernelPlan &plan, PipelinedOp loop,
                                 Im2ColOp op);
/// forEachChunk for a tile.im2col producer: a chunk's source size is 0 in
/// the padding, past the pixels or filter, and in iterations not `valid`.
void forEachIm2ColChunk(KernelContext &k, OpBuilder &b, PipelinedOp loop,
                        Im2ColOp op, Value iteration, Value stage, Value valid,
                        function_ref<void(const ProducerChunk &)> fn);

/// Builds the cp.async version of `loop` at `b`'s insertion point.
LogicalResult buildCpAsyncPipeline(KernelContext &k, PatternRewriter &rewriter,
                                   PipelinedOp loop, const PipelinePlan &plan,
                                   OpBuilder &b);
/// Builds the register-staged version of `loop` (targets without cp.async)
/// at `b`'s insertion point.
LogicalResult buildRegisterPipeline(KernelContext &k, PatternRewriter &rewriter,
                                    PipelinedOp loop, const PipelinePlan &plan,
                                    OpBuilder &b);

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

/// Whether `copy` (global to shared: a pipeline's producer, or a copy that
/// signals a barrier) can be a TMA load: a 2-d tile (or slice) of a tensor
/// from outside the kernel, into a shared buffer laid out in TMA boxes.
bool isTmaLoad(const KernelPlan &plan, CopyOp copy);
/// The dim of the whole tensor that a TMA producer's slice `slice` (null:
/// none) keeps as its tile's rows.
int64_t getTmaRowDim(memref::SubViewOp slice);
/// Whether the TMA boxes of `copy`, a TMA producer, can be split between
/// the two blocks of a cluster pair (an even number of them).
bool canMulticast(const KernelPlan &plan, CopyOp copy);
/// Whether `gemm` may stay in flight across iterations of `loop`'s TMA
/// version.
bool canStayInFlight(const KernelPlan &plan, PipelinedOp loop, GemmOp gemm);
/// The ops of `scope` (outside `loop`) that `loop`'s bounds and its
/// producers' offsets are computed from, in order; failure when one of
/// them is not a pure op without regions in `scope`'s block. A
/// warp-specialized producer computes them itself.
FailureOr<SetVector<Operation *>> getProducerSetup(const KernelPlan &plan,
                                                   PipelinedOp loop,
                                                   ArrayRef<CopyOp> producers,
                                                   Region &scope);
/// Builds the TMA version of `loop` at `b`'s insertion point; when it is
/// the kernel's warp-specialized loop, its producer goes into
/// `k.hopper.producerEnd`.
LogicalResult buildTmaPipeline(KernelContext &k, PatternRewriter &rewriter,
                               PipelinedOp loop, const PipelinePlan &plan,
                               OpBuilder &b);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_PIPELINESTRATEGIES_H
