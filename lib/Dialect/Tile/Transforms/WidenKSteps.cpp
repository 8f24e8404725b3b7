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
#include "tile/Dialect/Tile/Transforms/Transforms.h"
#include "tile/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
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
/// Shared memory a kernel keeps beside its buffers: mbarriers, reduction
/// and layout-conversion scratch.
static constexpr int64_t kSharedReserve = 8 * 1024;

/// `a` when `value` is `a * iv + c` in `loop`'s body, for a constant `a` and
/// a `c` that pure ops compute from values the same in every iteration.
static std::optional<int64_t> getCoefficient(Value value, Value iv,
                                             PipelinedOp loop) {
  if (value == iv)
    return 1;
  if (!loop.getBody().isAncestor(value.getParentRegion()) ||
      matchPattern(value, m_Constant()))
    return 0;
  Operation *def = value.getDefiningOp();
  if (!def || !isPure(def) || def->getNumRegions() != 0)
    return std::nullopt;
  auto operand = [&](unsigned i) {
    return getCoefficient(def->getOperand(i), iv, loop);
  };
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    std::optional<int64_t> lhs = operand(0), rhs = operand(1);
    if (!lhs || !rhs)
      return std::nullopt;
    if (isa<arith::AddIOp>(def))
      return *lhs + *rhs;
    if (isa<arith::SubIOp>(def))
      return *lhs - *rhs;
    if (*lhs == 0 && *rhs == 0)
      return 0;
    if (std::optional<int64_t> c = getConstantIntValue(def->getOperand(1)))
      return *c * *lhs;
    if (std::optional<int64_t> c = getConstantIntValue(def->getOperand(0)))
      return *c * *rhs;
    return std::nullopt;
  }
  for (unsigned i = 0, e = def->getNumOperands(); i < e; ++i)
    if (operand(i) != 0)
      return std::nullopt;
  return 0;
}

namespace {
/// A gemm operand the loop fills: its buffer, the copy into it and the
/// buffer's K dim.
struct KOperand {
  AllocSharedOp alloc;
  CopyOp copy;
  unsigned dim;
};

/// How a loop's iterations merge.
struct KStepPlan {
  SmallVector<KOperand, 2> operands;
  int64_t lower, step, trips, factor;
};
} // namespace

/// The operand of `gemm` whose K dim is `dim`, when it is a shared buffer of
/// its own filled by one copy in `loop` whose tile origin along K advances by
/// the buffer's extent each iteration.
static FailureOr<KOperand> matchOperand(PipelinedOp loop, GemmOp gemm,
                                        Value buffer, unsigned dim,
                                        int64_t step) {
  auto alloc = buffer.getDefiningOp<AllocSharedOp>();
  if (!alloc || alloc.getLayoutAttr() || alloc.getType().getRank() != 2 ||
      !alloc.getType().hasStaticShape())
    return failure();
  CopyOp fill;
  for (Operation *user : alloc->getUsers()) {
    auto copy = dyn_cast<CopyOp>(user);
    if (user == gemm.getOperation() && gemm.getA() != gemm.getB())
      continue;
    if (!copy || fill || copy.getDest() != buffer ||
        copy->getParentOp() != loop || copy.getGlobal() != copy.getSource())
      return failure();
    fill = copy;
  }
  if (!fill)
    return failure();
  Value iv = loop.getInductionVar();
  int64_t width = alloc.getType().getDimSize(dim);
  for (auto [d, offset] : llvm::enumerate(fill.getMixedOffsets())) {
    std::optional<int64_t> coefficient = 0;
    if (auto value = dyn_cast<Value>(offset))
      coefficient = getCoefficient(value, iv, loop);
    if (coefficient != (d == dim ? width / step : 0) ||
        (d == dim && width % step != 0))
      return failure();
  }
  return KOperand{alloc, fill, dim};
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
  GemmOp gemm;
  unsigned copies = 0;
  for (Operation &op : loop.getBody().front()) {
    if (auto g = dyn_cast<GemmOp>(op)) {
      if (gemm || g.getClearAccum())
        return failure();
      gemm = g;
    } else if (isa<CopyOp>(op)) {
      ++copies;
    } else if (!isPure(&op) || op.getNumRegions() != 0) {
      return failure();
    }
  }
  if (!gemm || copies != 2)
    return failure();
  KStepPlan plan;
  plan.lower = *lower;
  plan.step = *step;
  plan.trips = llvm::divideCeil(*upper - *lower, *step);
  FailureOr<KOperand> a = matchOperand(loop, gemm, gemm.getA(),
                                       gemm.getTransposeA() ? 0 : 1, *step);
  FailureOr<KOperand> b = matchOperand(loop, gemm, gemm.getB(),
                                       gemm.getTransposeB() ? 1 : 0, *step);
  if (failed(a) || failed(b))
    return failure();
  plan.operands = {*a, *b};
  // The widest operand's step sets the factor; it must divide `bytes`.
  int64_t widest = 0;
  for (KOperand &operand : plan.operands) {
    MemRefType type = operand.alloc.getType();
    widest = std::max(widest, type.getDimSize(operand.dim) *
                                  type.getElementTypeBitWidth() / 8);
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

/// The stages of the pipelined loop that fills `alloc`, 1 when none does.
static int64_t getStages(AllocSharedOp alloc) {
  for (Operation *user : alloc->getUsers())
    if (auto copy = dyn_cast<CopyOp>(user); copy && copy.getDest() == alloc)
      if (auto loop = dyn_cast<PipelinedOp>(copy->getParentOp()))
        return std::max<int64_t>(1, loop.getNumStages());
  return 1;
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
    bool widened = llvm::any_of(plan.operands, [&](const KOperand &operand) {
      return operand.alloc == alloc;
    });
    total += widened ? bytes * plan.factor * stages : bytes * getStages(alloc);
  });
  return total;
}

/// Rewrites `loop` by `plan` at `stages`.
static void widen(RewriterBase &rewriter, PipelinedOp loop,
                  const KStepPlan &plan, int64_t stages) {
  Location loc = loop.getLoc();
  for (KOperand operand : plan.operands) {
    MemRefType type = operand.alloc.getType();
    SmallVector<int64_t> shape(type.getShape());
    shape[operand.dim] *= plan.factor;
    rewriter.modifyOpInPlace(operand.alloc, [&] {
      operand.alloc.getResult().setType(
          MemRefType::Builder(type).setShape(shape));
    });
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
        sharedBytes = info.sharedMemoryBytes - kSharedReserve;
      }
      SmallVector<PipelinedOp> loops;
      kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
      for (PipelinedOp loop : loops)
        widenKSteps(rewriter, loop, bytes, sharedBytes);
    });
  }
};
} // namespace
