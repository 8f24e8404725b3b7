//===- InferLayouts.cpp - tile-infer-layouts ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Gives every fragment, shared buffer and tile.parallel of a kernel a layout:
// user annotations first, then the fixed needs of gemms, then propagation
// through parallel loops, reductions and copies, then free choices (largest
// fragment first), propagating again after each. Each decision remembers the
// op and the reason behind it, for conflict diagnostics and `explain`.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/CompileBounds.h"
#include "tile/Dialect/Tile/Transforms/Transforms.h"
#include "tile/Layout/FragmentLayouts.h"
#include "tile/Layout/FragmentTransfer.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/Debug.h"

#include <numeric>
#include <set>

#define DEBUG_TYPE "tile-infer-layouts"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINFERLAYOUTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The state of inference for one kernel: the decisions so far, kept in
/// the order they were made.
class LayoutInference : public LayoutInferenceState {
public:
  LayoutInference(KernelOp kernel, const TargetInfo &target, bool explain)
      : kernel(kernel), target(target), explain(explain),
        kernelThreads(kernel.getThreadsAttr().getInt()),
        threads(kernelThreads) {}

  LogicalResult run();

  //===--------------------------------------------------------------------===//
  // LayoutInferenceState
  //===--------------------------------------------------------------------===//

  const TargetInfo &getTarget() const override { return target; }
  /// The threads of the op being asked (its tile.thread_range's or the
  /// kernel's).
  int64_t getThreads() const override { return threads; }
  const LayoutDecision *getFragment(Value fragment) const override {
    auto it = fragments.find(fragment);
    return it == fragments.end() ? nullptr : &it->second;
  }
  const LayoutDecision *getLoop(Operation *loop) const override {
    auto it = loops.find(loop);
    return it == loops.end() ? nullptr : &it->second;
  }
  LogicalResult setFragment(Value fragment, const Layout &layout,
                            Operation *op, StringRef reason,
                            bool exact) override;
  void setLoop(Operation *loop, const Layout &layout,
               StringRef reason) override {
    if (loops.count(loop))
      return;
    loops.insert({loop, {layout, loop, reason.str()}});
    changed = true;
  }
  void proposeShared(Value buffer, LayoutAttrInterface layout, Operation *op,
                     StringRef reason) override {
    if (!shared.count(buffer))
      shared.insert({buffer, {layout, {Layout(), op, reason.str()}}});
  }
  LogicalResult conflict(Operation *op, StringRef what, const Layout &wanted,
                         Value fragment) override;

private:
  bool chooseFreeFragment();
  bool chooseFreeLoop();
  void write();
  /// Asks every op of the kernel with the interface; with `propagate`,
  /// repeats until no op decides anything new.
  LogicalResult askOps(bool propagate);

  FragmentLayoutAttr attr(const Layout &layout) {
    return FragmentLayoutAttr::get(kernel.getContext(), layout);
  }

  /// The threads the ops using `fragment` run across (the kernel's
  /// verifier made sure they agree).
  int64_t getThreadsOf(Value fragment) const;

  KernelOp kernel;
  const TargetInfo &target;
  bool explain;
  /// The kernel's threads, and the threads of the op or buffer that layout
  /// inference works on (fewer in a tile.thread_range).
  int64_t kernelThreads;
  int64_t threads;
  bool changed = false;

  SmallVector<FragmentOp> fragmentOps;
  /// The dims of each fragment some tile.parallel indexes uniformly: a free
  /// choice keeps them in each thread's slots.
  llvm::DenseMap<Value, llvm::SmallDenseSet<unsigned>> uniformDims;
  SmallVector<AllocSharedOp> sharedOps;
  SmallVector<ParallelOp> loopOps;
  llvm::MapVector<Value, LayoutDecision> fragments;
  llvm::MapVector<Operation *, LayoutDecision> loops;
  /// Shared buffers: the layout attribute and why (`layout` unused).
  llvm::MapVector<Value, std::pair<LayoutAttrInterface, LayoutDecision>>
      shared;
};

} // namespace

LogicalResult LayoutInference::conflict(Operation *op, StringRef what,
                                        const Layout &wanted,
                                        Value fragment) {
  const LayoutDecision &existing = fragments.find(fragment)->second;
  InFlightDiagnostic diag = op->emitOpError("layout conflict: ")
                            << what << " needs " << attr(wanted)
                            << " but it already has "
                            << attr(existing.layout);
  diag.attachNote(existing.op->getLoc())
      << "that layout was chosen here: " << existing.reason;
  return diag;
}

LogicalResult LayoutInference::setFragment(Value fragment, const Layout &layout,
                                           Operation *op, StringRef reason,
                                           bool exact) {
  auto it = fragments.find(fragment);
  if (it == fragments.end()) {
    LLVM_DEBUG(llvm::dbgs() << "layout " << layout << ": " << reason << "\n");
    fragments.insert({fragment, LayoutDecision{layout, op, reason.str()}});
    changed = true;
    return success();
  }
  if (haveSameOwners(it->second.layout, layout, exact))
    return success();
  return conflict(op, reason, layout, fragment);
}

LogicalResult LayoutInference::askOps(bool propagate) {
  do {
    changed = false;
    WalkResult result = kernel.walk([&](LayoutInferenceOpInterface op) {
      threads = getThreadCount(op);
      LogicalResult status =
          propagate ? op.propagateLayouts(*this) : op.requireLayouts(*this);
      return failed(status) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  } while (propagate && changed);
  return success();
}

bool LayoutInference::chooseFreeFragment() {
  FragmentOp best;
  // A reducer that loops update is where they run (its own rule), not a
  // free choice.
  for (FragmentOp op : fragmentOps)
    if (!fragments.count(op.getResult()) &&
        !(op.getReducerAttr() &&
          !getReducerUpdateLoops(op.getResult()).empty()) &&
        (!best ||
         op.getType().getNumElements() > best.getType().getNumElements()))
      best = op;
  if (!best)
    return false;
  threads = getThreadsOf(best.getResult());
  FragmentType type = best.getType();
  // Spread the dims indexed by induction variables; those some loop indexes
  // uniformly become slot digits (every holder holds all of them), and a
  // fragment indexed only uniformly is held whole by every thread.
  const llvm::SmallDenseSet<unsigned> &uniform = uniformDims[best.getResult()];
  SmallVector<int64_t> spread;
  SmallVector<unsigned> slotDims;
  for (auto [d, size] : llvm::enumerate(type.getShape())) {
    if (uniform.contains(d))
      slotDims.push_back(d);
    else
      spread.push_back(size);
  }
  Layout layout = insertSlotDims(
      spread.empty()
          ? makeFragment({}, {LayoutFactor{threads, kThreadAxis, 1}})
          : getVectorizedFragment(
                spread, type.getElementType().getIntOrFloatBitWidth(),
                threads),
      slotDims, type.getShape());
  fragments.insert(
      {best.getResult(),
       {layout, best,
        std::string("free choice: runs of up to 128 bits per thread along "
                    "the innermost dim, consecutive threads on consecutive "
                    "runs") +
            (uniform.empty() ? ""
                             : "; the dims a tile.parallel indexes at a "
                               "uniform value in every thread's slots")}});
  return true;
}

bool LayoutInference::chooseFreeLoop() {
  for (ParallelOp loop : loopOps) {
    if (loops.count(loop))
      continue;
    // Vectorize for the first element type the body touches.
    unsigned bits = 32;
    loop.getBody().walk([&](Operation *op) {
      if (isa<LoadOp, StoreOp>(op)) {
        Value buffer = isa<LoadOp>(op) ? cast<LoadOp>(op).getBuffer()
                                       : cast<StoreOp>(op).getBuffer();
        bits = cast<ShapedType>(buffer.getType()).getElementTypeBitWidth();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    threads = getThreadCount(loop);
    loops.insert({loop,
                  {getVectorizedFragment(loop.getShape(), bits, threads), loop,
                   "free choice: no fragment constrains it; runs of up to 128 "
                   "bits per thread along the innermost dim"}});
    return true;
  }
  return false;
}

void LayoutInference::write() {
  MLIRContext *context = kernel.getContext();
  auto remark = [&](Operation *op, Attribute layout,
                    const LayoutDecision &decision) {
    if (!explain)
      return;
    InFlightDiagnostic diag = op->emitRemark("layout ")
                              << layout << ": " << decision.reason;
    if (decision.op != op)
      diag.attachNote(decision.op->getLoc()) << "decided by this op";
  };
  for (FragmentOp op : fragmentOps) {
    const LayoutDecision &decision = fragments.find(op.getResult())->second;
    if (!op.getLayoutAttr())
      op.setLayoutAttr(attr(decision.layout));
    remark(op, op.getLayoutAttr(), decision);
  }
  for (AllocSharedOp op : sharedOps) {
    auto it = shared.find(op.getResult());
    if (it == shared.end())
      it = shared
               .insert({op.getResult(),
                        {LinearLayoutAttr::get(context),
                         {Layout(), op,
                          "free choice: no op constrains it, so row-major"}}})
               .first;
    if (!op.getLayoutAttr())
      op.setLayoutAttr(it->second.first);
    remark(op, op.getLayoutAttr(), it->second.second);
  }
  for (ParallelOp op : loopOps) {
    const LayoutDecision &decision = loops.find(op)->second;
    if (!op.getLayoutAttr())
      op.setLayoutAttr(attr(decision.layout));
    remark(op, op.getLayoutAttr(), decision);
  }
  if (!explain)
    return;
  // How copies between fragments move their elements.
  kernel.walk([&](CopyOp copy) {
    auto source = fragments.find(copy.getSource());
    auto dest = fragments.find(copy.getDest());
    if (source == fragments.end() || dest == fragments.end())
      return;
    unsigned bits =
        cast<FragmentType>(copy.getSource().getType()).getElementTypeBitWidth();
    threads = getThreadCount(copy);
    FragmentTransfer transfer =
        planFragmentTransfer(source->second.layout, dest->second.layout, bits,
                             threads, target.warpSize);
    InFlightDiagnostic diag = copy.emitRemark("moves elements through ")
                              << transfer.describe();
    if (transfer.kind == TransferKind::SharedMemory)
      diag << (bits > 32 && planFragmentTransfer(source->second.layout,
                                                 dest->second.layout, 32,
                                                 threads, target.warpSize)
                                    .kind != TransferKind::SharedMemory
                   ? ": shuffles move 32 bits at most"
                   : ": the two layouts put elements in different warps");
    else if (transfer.kind == TransferKind::WarpShuffle)
      diag << ": the two layouts put elements on different lanes of a warp";
  });
}

/// The op of `fragment`'s kernel that uses it directly or through a
/// tile.parallel body (the body's loop).
static Operation *getUsingTileOp(Operation *user) {
  if (auto loop = user->getParentOfType<ParallelOp>())
    return loop;
  return user;
}

int64_t LayoutInference::getThreadsOf(Value fragment) const {
  for (Operation *user : fragment.getUsers())
    return getThreadCount(getUsingTileOp(user));
  return kernelThreads;
}

LogicalResult LayoutInference::run() {
  // User annotations come first.
  kernel.walk([&](Operation *op) {
    auto annotated = [&](LayoutAttrInterface attr, ArrayRef<int64_t> shape,
                         Type element) -> std::optional<Layout> {
      if (!attr || !attr.isFragmentLayout())
        return std::nullopt;
      FailureOr<Layout> layout =
          attr.getLayout(shape, element, [&] { return op->emitOpError(); });
      return succeeded(layout) ? std::optional<Layout>(*layout) : std::nullopt;
    };
    if (auto fragment = dyn_cast<FragmentOp>(op)) {
      fragmentOps.push_back(fragment);
      FragmentType type = fragment.getType();
      if (std::optional<Layout> layout = annotated(
              fragment.getLayoutAttr(), type.getShape(), type.getElementType()))
        fragments.insert(
            {fragment.getResult(), {*layout, op, "annotated in the source"}});
    } else if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      sharedOps.push_back(alloc);
      if (LayoutAttrInterface layout = alloc.getLayoutAttr())
        shared.insert({alloc.getResult(),
                       {layout, {Layout(), op, "annotated in the source"}}});
    } else if (auto loop = dyn_cast<ParallelOp>(op)) {
      loopOps.push_back(loop);
      forEachFragmentAccess(
          loop, [&](Operation *, Value buffer, ArrayRef<unsigned> dims) {
            for (auto [d, iv] : llvm::enumerate(dims))
              if (iv == kUniformDim)
                uniformDims[buffer].insert(d);
          });
      if (std::optional<Layout> layout =
              annotated(loop.getLayoutAttr(), loop.getShape(),
                        IndexType::get(op->getContext())))
        loops.insert({op, {*layout, op, "annotated in the source"}});
    }
  });
  // Fixed needs, then propagation and free choices, largest first.
  if (failed(askOps(/*propagate=*/false)))
    return failure();
  while (true) {
    if (failed(askOps(/*propagate=*/true)))
      return failure();
    if (!chooseFreeFragment() && !chooseFreeLoop())
      break;
  }
  write();
  return checkCompileBounds(kernel, target);
}

LogicalResult mlir::tile::inferLayouts(KernelOp kernel,
                                       const TargetInfo &target,
                                       bool explain) {
  return LayoutInference(kernel, target, explain).run();
}

namespace {
struct TileInferLayoutsPass
    : public tile::impl::TileInferLayoutsBase<TileInferLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](KernelOp kernel) {
      FailureOr<TargetInfo> target = getTarget(kernel);
      if (failed(target) || failed(inferLayouts(kernel, *target, explain)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
