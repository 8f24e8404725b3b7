//===- WidenKSteps.cpp - tile-widen-k-steps -------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Merges consecutive iterations of a pipelined GEMM loop whose K steps are
// narrow, so that each stage carries `bytes` along K (the pass's
// description in Passes.td says when and why).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/IndexShifts.h"
#include "tile/Dialect/Tile/Transforms/Transforms.h"
#include "tile/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWIDENKSTEPS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Most iterations merged into one.
static constexpr int64_t kMaxFactor = 4;

namespace {
/// A shared buffer the merged loop widens along `dim`, `width` wide there
/// as written.
struct KBuffer {
  AllocSharedOp alloc;
  unsigned dim;
  int64_t width;
};

/// How a loop's iterations merge: the buffers that widen along K, and the
/// dim of the tile.parallel (one that dequantizes a tile) that widens with
/// them.
struct KStepPlan {
  SmallVector<KBuffer> buffers;
  ParallelOp parallel;
  unsigned parallelDim = 0;
  int64_t lower, step, trips, factor;

  const KBuffer *find(Value buffer) const {
    for (const KBuffer &b : buffers)
      if (AllocSharedOp(b.alloc).getResult() == buffer)
        return &b;
    return nullptr;
  }
};

} // namespace

/// The buffer `copy` fills, widened along the one dim its origin moves with
/// `loop`'s induction variable, by its tile's extent each iteration.
static FailureOr<KBuffer> matchCopy(PipelinedOp loop, CopyOp copy,
                                    int64_t step) {
  auto alloc = copy.getDest().getDefiningOp<AllocSharedOp>();
  if (!alloc || copy.getGlobal() != copy.getSource())
    return failure();
  // Offsets computed from global memory read what they read in every
  // iteration: the loop writes only shared memory.
  IndexShifts shifts(loop.getBody(), {{loop.getInductionVar(), -step}},
                     [](Value buffer, unsigned) -> std::optional<int64_t> {
                       if (cast<MemRefType>(buffer.getType()).getMemorySpace())
                         return std::nullopt;
                       return 0;
                     });
  std::optional<unsigned> dim;
  for (auto [d, offset] : llvm::enumerate(copy.getMixedOffsets())) {
    std::optional<int64_t> shift = 0;
    if (auto value = dyn_cast<Value>(offset))
      shift = shifts.get(value);
    if (!shift)
      return failure();
    if (*shift == 0)
      continue;
    if (dim || *shift != -alloc.getType().getDimSize(d))
      return failure();
    dim = d;
  }
  if (!dim)
    return failure();
  return KBuffer{alloc, *dim, alloc.getType().getDimSize(*dim)};
}

/// Whether the accesses of `plan.parallel`'s body, with `j` its induction
/// variable along `plan.parallelDim`, do in the merged loop what the
/// iterations did: indices into a widened buffer shift by its extent along
/// K and not along the other dims, indices into global memory (which the
/// loop does not write) and stored values not at all; no other memory.
static bool accessesMerge(PipelinedOp loop, const KStepPlan &plan) {
  ParallelOp parallel = plan.parallel;
  auto accessShift = [&](Value buffer, unsigned dim) -> std::optional<int64_t> {
    if (const KBuffer *widened = plan.find(buffer))
      return dim == widened->dim ? widened->width : 0;
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || type.getMemorySpace())
      return std::nullopt;
    return 0;
  };
  IndexShifts shifts(loop.getBody(),
                     {{loop.getInductionVar(), -plan.step},
                      {parallel.getInductionVars()[plan.parallelDim],
                       parallel.getShape()[plan.parallelDim]}},
                     accessShift);
  WalkResult result = parallel.getBody().walk([&](Operation *op) {
    bool ok;
    if (auto load = dyn_cast<LoadOp>(op))
      ok = shifts.get(load.getResult()).has_value();
    else if (auto store = dyn_cast<StoreOp>(op))
      ok = plan.find(store.getBuffer()) &&
           shifts.indicesMatch(store.getBuffer(), store.getIndices()) &&
           shifts.get(store.getValue()) == 0;
    else
      ok = isPure(op) && op->getNumRegions() == 0;
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Whether every use of `plan`'s buffers is its fill (one copy, or the
/// parallel's stores for a buffer no copy fills), the gemm, or a load in
/// the parallel.
static bool usedOnlyInLoop(const KStepPlan &plan, GemmOp gemm) {
  for (KBuffer buffer : plan.buffers) {
    unsigned copies = 0, stores = 0;
    for (Operation *user : buffer.alloc->getUsers()) {
      if (isa<CopyOp>(user))
        ++copies;
      else if (isa<StoreOp>(user) && user->getParentOp() == plan.parallel)
        ++stores;
      else if (!(isa<LoadOp>(user) && plan.parallel &&
                 user->getParentOp() == plan.parallel) &&
               user != gemm.getOperation())
        return false;
    }
    if (copies + (stores ? 1 : 0) != 1)
      return false;
  }
  return true;
}

/// The plan for `loop`, if its iterations can merge into steps of `bytes`
/// along K.
static FailureOr<KStepPlan> matchLoop(PipelinedOp loop, int64_t bytes) {
  if (loop.getNumStages() < 2 || loop.getOrder() || loop.getStage())
    return failure();
  std::optional<int64_t> lower = getConstantIntValue(loop.getLower());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpper());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *step <= 0 || *upper <= *lower)
    return failure();
  KStepPlan plan;
  plan.lower = *lower;
  plan.step = *step;
  plan.trips = llvm::divideCeil(*upper - *lower, *step);
  GemmOp gemm;
  SmallVector<CopyOp> copies;
  for (Operation &op : loop.getBody().front()) {
    if (auto g = dyn_cast<GemmOp>(op)) {
      if (gemm || g.getClearAccum())
        return failure();
      gemm = g;
    } else if (auto parallel = dyn_cast<ParallelOp>(op)) {
      if (plan.parallel || parallel.getLayoutAttr() || gemm)
        return failure();
      plan.parallel = parallel;
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      copies.push_back(copy);
    } else if (!isPure(&op) || op.getNumRegions() != 0) {
      return failure();
    }
  }
  if (!gemm || gemm.getA() == gemm.getB())
    return failure();
  // The copies' buffers, then the gemm's operands: filled by a copy along
  // their K dim, or else by the parallel.
  for (CopyOp copy : copies) {
    FailureOr<KBuffer> buffer = matchCopy(loop, copy, *step);
    if (failed(buffer) || plan.find(buffer->alloc))
      return failure();
    plan.buffers.push_back(*buffer);
  }
  for (auto [operand, dim] :
       {std::pair(gemm.getA(), gemm.getTransposeA() ? 0u : 1u),
        std::pair(gemm.getB(), gemm.getTransposeB() ? 1u : 0u)}) {
    auto alloc = operand.getDefiningOp<AllocSharedOp>();
    if (!alloc)
      return failure();
    if (const KBuffer *filled = plan.find(operand)) {
      if (filled->dim != dim)
        return failure();
      continue;
    }
    if (!plan.parallel)
      return failure();
    plan.buffers.push_back({alloc, dim, alloc.getType().getDimSize(dim)});
    // The parallel computes this operand over its tile: its K dim is the
    // parallel's.
    if (ArrayRef<int64_t>(plan.parallel.getShape()) !=
        alloc.getType().getShape())
      return failure();
    plan.parallelDim = dim;
  }
  for (KBuffer buffer : plan.buffers) {
    MemRefType type = buffer.alloc.getType();
    if (buffer.alloc.getLayoutAttr() || !type.hasStaticShape())
      return failure();
  }
  if (!usedOnlyInLoop(plan, gemm) ||
      (plan.parallel && !accessesMerge(loop, plan)))
    return failure();
  // The gemm's step sets the factor; it must divide `bytes`.
  int64_t widest = 0;
  for (auto [operand, dim] :
       {std::pair(gemm.getA(), gemm.getTransposeA() ? 0 : 1),
        std::pair(gemm.getB(), gemm.getTransposeB() ? 1 : 0)}) {
    auto type = cast<MemRefType>(operand.getType());
    widest = std::max(widest,
                      type.getDimSize(dim) * type.getElementTypeBitWidth() / 8);
  }
  if (widest == 0 || bytes % widest != 0)
    return failure();
  plan.factor = std::min(bytes / widest, kMaxFactor);
  while (plan.factor >= 2 && plan.trips % plan.factor != 0)
    plan.factor /= 2;
  if (plan.factor < 2)
    return failure();
  return plan;
}

PipelinedOp mlir::tile::getFillingLoop(AllocSharedOp alloc) {
  for (Operation *user : alloc->getUsers())
    if (auto copy = dyn_cast<CopyOp>(user); copy && copy.getDest() == alloc)
      if (auto loop = dyn_cast<PipelinedOp>(copy->getParentOp()))
        return loop;
  return {};
}

/// The stages of the pipelined loop that fills `alloc`, 1 when none does.
static int64_t getStages(AllocSharedOp alloc) {
  PipelinedOp loop = getFillingLoop(alloc);
  return loop ? std::max<int64_t>(1, loop.getNumStages()) : 1;
}

/// The shared memory `kernel`'s buffers take, each times its loop's stages,
/// with `plan`'s buffers `factor` times as wide and its loop at `stages`.
static int64_t getSharedBytes(KernelOp kernel, const KStepPlan &plan,
                              int64_t stages) {
  int64_t total = 0;
  kernel.walk([&](AllocSharedOp alloc) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape())
      return;
    int64_t bytes = llvm::divideCeil(
        type.getNumElements() * type.getElementTypeBitWidth(), 8);
    bool widened = plan.find(alloc) != nullptr;
    total += widened ? bytes * plan.factor * stages : bytes * getStages(alloc);
  });
  return total;
}

/// Rewrites `loop` by `plan` at `stages`.
static void widen(RewriterBase &rewriter, PipelinedOp loop,
                  const KStepPlan &plan, int64_t stages) {
  Location loc = loop.getLoc();
  for (KBuffer buffer : plan.buffers) {
    MemRefType type = buffer.alloc.getType();
    SmallVector<int64_t> shape(type.getShape());
    shape[buffer.dim] *= plan.factor;
    rewriter.modifyOpInPlace(buffer.alloc, [&] {
      buffer.alloc.getResult().setType(
          MemRefType::Builder(type).setShape(shape));
    });
  }
  if (ParallelOp parallel = plan.parallel) {
    SmallVector<int64_t> shape(parallel.getShape());
    shape[plan.parallelDim] *= plan.factor;
    rewriter.modifyOpInPlace(parallel, [&] { parallel.setShape(shape); });
  }
  // The merged loop counts from 0 by 1; its body sees the first of the
  // iterations it runs.
  rewriter.setInsertionPoint(loop);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value zero = index(0), trips = index(plan.trips / plan.factor),
        one = index(1);
  rewriter.modifyOpInPlace(loop, [&] {
    loop.getLowerMutable().assign(zero);
    loop.getUpperMutable().assign(trips);
    loop.getStepMutable().assign(one);
    loop.setNumStagesAttr(rewriter.getI64IntegerAttr(stages));
  });
  Value iv = loop.getInductionVar();
  rewriter.setInsertionPointToStart(&loop.getBody().front());
  auto scaled =
      arith::MulIOp::create(rewriter, loc, iv, index(plan.factor * plan.step));
  Value first = scaled;
  if (plan.lower != 0)
    first = arith::AddIOp::create(rewriter, loc, scaled, index(plan.lower));
  rewriter.replaceAllUsesExcept(iv, first, scaled);
}

bool mlir::tile::widenKSteps(RewriterBase &rewriter, PipelinedOp loop,
                             int64_t bytes,
                             std::optional<int64_t> sharedBytes) {
  // Thread ranges hand their tiles over with the kernel's own barriers,
  // step by step as written.
  if (hasThreadRanges(loop->getParentOfType<KernelOp>()))
    return false;
  FailureOr<KStepPlan> plan = matchLoop(loop, bytes);
  if (failed(plan))
    return false;
  int64_t stages = loop.getNumStages();
  if (sharedBytes) {
    auto kernel = loop->getParentOfType<KernelOp>();
    while (stages >= 2 && getSharedBytes(kernel, *plan, stages) > *sharedBytes)
      --stages;
    if (stages < 2)
      return false;
  }
  widen(rewriter, loop, *plan, stages);
  return true;
}

namespace {
struct TileWidenKStepsPass
    : public tile::impl::TileWidenKStepsBase<TileWidenKStepsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (bytes < 0) {
      getOperation()->emitError("tile-widen-k-steps: bytes must be 0 or "
                                "positive, got ")
          << static_cast<int64_t>(bytes);
      return signalPassFailure();
    }
    if (bytes == 0)
      return;
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](KernelOp kernel) {
      std::optional<int64_t> sharedBytes;
      if (TargetAttr target = findTargetAttr(kernel)) {
        const TargetInfo &info = target.getInfo();
        if (!info.hasWgmma())
          return;
        sharedBytes = info.sharedMemoryBytes - kSharedMemoryReserve;
      }
      SmallVector<PipelinedOp> loops;
      kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
      for (PipelinedOp loop : loops)
        widenKSteps(rewriter, loop, bytes, sharedBytes);
    });
  }
};
} // namespace
