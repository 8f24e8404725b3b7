//===- CompileBounds.cpp - What a kernel may cost to compile --------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/CompileBounds.h"

#include "tile/Dialect/Tile/Transforms/GemmPlan.h"
#include "tile/Layout/FragmentLayouts.h"

using namespace mlir;
using namespace mlir::tile;

/// Threads that hold some element (or copy) of `fragment`.
static int64_t getHolderCount(const Layout &fragment) {
  int64_t count = 1;
  for (const Layout::DimFactors &dim : fragment.getDims())
    for (const LayoutFactor &f : dim)
      if (f.outDim == kThreadAxis)
        count *= f.size;
  return count;
}

/// The fragment layout `op` (a tile.fragment or tile.parallel) carries, if
/// it has one that is valid for its shape.
static std::optional<Layout> getFragmentLayout(Operation *op,
                                               LayoutAttrInterface attr,
                                               ArrayRef<int64_t> shape,
                                               Type element) {
  if (!attr || !attr.isFragmentLayout())
    return std::nullopt;
  FailureOr<Layout> layout =
      attr.getLayout(shape, element, [&] { return op->emitOpError(); });
  if (failed(layout))
    return std::nullopt;
  return *layout;
}

static LogicalResult checkFragment(FragmentOp op, const TargetInfo &target) {
  FragmentType type = op.getType();
  LayoutAttrInterface attr = op.getLayoutAttr();
  std::optional<Layout> layout = getFragmentLayout(
      op, attr, type.getShape(), type.getElementType());
  int64_t limit = target.registersPerThread;
  if (!layout || limit == 0)
    return success();
  int64_t registers = getRegistersPerThread(
      *layout, type.getElementType().getIntOrFloatBitWidth());
  if (registers <= limit)
    return success();
  int64_t holders = getHolderCount(*layout);
  return op.emitOpError("needs ")
         << registers << " registers per thread, more than the " << limit
         << " of " << target.chip << ": its layout " << attr << " gives "
         << (holders == 1 ? "its one thread " : "each of its ")
         << (holders == 1 ? "" : std::to_string(holders) + " threads ")
         << getSlotExtent(*layout) << " elements of " << type.getElementType();
}

static LogicalResult checkParallel(ParallelOp op) {
  LayoutAttrInterface attr = op.getLayoutAttr();
  std::optional<Layout> layout = getFragmentLayout(
      op, attr, op.getShape(), IndexType::get(op->getContext()));
  if (!layout)
    return success();
  int64_t slots = getSlotExtent(*layout);
  int64_t bodyOps = 0;
  op.getBody().walk([&](Operation *) { ++bodyOps; });
  if (slots * bodyOps <= kMaxUnrolledOps)
    return success();
  return op.emitOpError("would unroll its body of ")
         << bodyOps << " ops " << slots << " times per thread ("
         << slots * bodyOps << " ops) under its layout " << attr
         << "; the limit is " << kMaxUnrolledOps
         << " ops: use more threads or a smaller tile";
}

static LogicalResult checkGemm(GemmOp op, const TargetInfo &target,
                               int64_t threads) {
  FailureOr<GemmPlan> plan = planGemm(op, target, threads);
  if (failed(plan))
    return failure();
  int64_t instructions = plan->repeatsM * plan->repeatsN;
  // FMA with both operands in shared memory loops over K; everything else
  // is unrolled along K as well.
  if (plan->instruction != GemmInstruction::Fma ||
      isa<FragmentType>(op.getA().getType()) ||
      isa<FragmentType>(op.getB().getType()))
    instructions *= plan->repeatsK;
  if (instructions <= kMaxUnrolledOps)
    return success();
  return op.emitOpError("would unroll ")
         << instructions << " instructions per thread (" << plan->describe()
         << "); the limit is " << kMaxUnrolledOps
         << ": use more threads or a smaller tile";
}

LogicalResult mlir::tile::checkCompileBounds(KernelOp kernel,
                                             const TargetInfo &target) {
  if (target.isCPU())
    return success();
  WalkResult result = kernel.walk([&](Operation *op) {
    LogicalResult status = success();
    if (auto fragment = dyn_cast<FragmentOp>(op))
      status = checkFragment(fragment, target);
    else if (auto loop = dyn_cast<ParallelOp>(op))
      status = checkParallel(loop);
    else if (auto gemm = dyn_cast<GemmOp>(op))
      status = checkGemm(gemm, target, getThreadCount(gemm));
    return failed(status) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
