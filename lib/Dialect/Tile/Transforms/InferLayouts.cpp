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
#include "tile/Dialect/Tile/Transforms/GemmPlan.h"
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

/// Why a buffer or loop has its layout.
struct Origin {
  Operation *op = nullptr;
  std::string reason;
};

/// A fragment layout and where it came from.
struct Decision {
  Layout layout;
  Origin origin;
};

/// An element access of a fragment in a tile.parallel body: buffer dim `d`
/// is indexed by induction variable `ivs[d]`.
struct Access {
  Value buffer;
  SmallVector<unsigned> ivs;
  bool isFull(unsigned loopRank) const { return ivs.size() == loopRank; }
};

/// Permutation for a loop layout's dims -> a fragment's dims (or back),
/// keeping the replica dim last.
SmallVector<unsigned> withReplicaLast(ArrayRef<unsigned> perm) {
  SmallVector<unsigned> result(perm);
  result.push_back(perm.size());
  return result;
}

/// A full access's fragment layout seen in loop order.
Layout toLoopOrder(const Layout &fragment, ArrayRef<unsigned> ivs) {
  SmallVector<unsigned> perm(ivs.size());
  for (auto [d, iv] : llvm::enumerate(ivs))
    perm[iv] = d;
  return fragment.permuteInput(withReplicaLast(perm));
}

/// What the loop layout requires of a fragment accessed through `ivs`: the
/// loop layout itself for a full access; its projection onto the used
/// induction variables for a partial one.
Layout requiredFragment(const Layout &loop, ArrayRef<unsigned> ivs) {
  unsigned rank = getFragmentRank(loop);
  Layout projected = loop;
  SmallVector<unsigned> kept;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (llvm::is_contained(ivs, i))
      continue;
    projected = projectFragment(projected, i);
  }
  for (unsigned i = 0; i < rank; ++i)
    if (llvm::is_contained(ivs, i))
      kept.push_back(i);
  // Buffer dim d is the kept position of ivs[d].
  SmallVector<unsigned> perm;
  for (unsigned iv : ivs)
    perm.push_back(llvm::find(kept, iv) - kept.begin());
  return projected.permuteInput(withReplicaLast(perm));
}

/// A loop layout that runs each point on the owners of a partially indexed
/// fragment: the missing loop dims become slot digits.
Layout expandToLoop(const Layout &fragment, ArrayRef<unsigned> ivs,
                    ArrayRef<int64_t> loopShape) {
  // Order the fragment's dims by induction variable, then insert the rest.
  SmallVector<unsigned> order(ivs.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](unsigned x, unsigned y) { return ivs[x] < ivs[y]; });
  Layout loop = fragment.permuteInput(withReplicaLast(order));
  for (unsigned i = 0; i < loopShape.size(); ++i) {
    if (llvm::is_contained(ivs, i))
      continue;
    int64_t slots = getSlotExtent(loop);
    loop = loop.insertDim(i, {LayoutFactor{loopShape[i], kSlotAxis, slots}});
  }
  return loop;
}

/// Every thread that runs a loop point holds the element of `fragment` the
/// point reads through `ivs`.
bool coversLoop(const Layout &fragment, const Layout &loop,
                ArrayRef<unsigned> ivs) {
  bool covered = true;
  int64_t copies = loop.getInShape().back();
  forEachFragmentIndex(loop, [&](ArrayRef<int64_t> point) {
    if (!covered)
      return;
    SmallVector<int64_t> element;
    for (unsigned iv : ivs)
      element.push_back(point[iv]);
    std::set<int64_t> holders = getOwners(fragment, element);
    SmallVector<int64_t> full(point);
    full.push_back(0);
    for (int64_t c = 0; c < copies && covered; ++c) {
      full.back() = c;
      covered = holders.count(loop.apply(full)[kThreadAxis]);
    }
  });
  return covered;
}

class LayoutInference {
public:
  LayoutInference(KernelOp kernel, const TargetInfo &target, bool explain)
      : kernel(kernel), target(target), explain(explain),
        threads(kernel.getThreadsAttr().getInt()) {}

  LogicalResult run();

private:
  LogicalResult seed();
  LogicalResult applyGemms();
  LogicalResult propagate();
  LogicalResult propagateParallel(ParallelOp loop);
  LogicalResult propagateReduce(ReduceOp reduce);
  LogicalResult propagateEqual(Value a, Value b, Operation *op);
  bool chooseFreeFragment();
  bool chooseFreeLoop();
  void write();

  /// Records `layout` for fragment `buffer`; if it has one already, the two
  /// must agree (`exact`: slot for slot, else thread for thread).
  LogicalResult setFragment(Value buffer, const Layout &layout, Origin origin,
                            bool exact);
  LogicalResult conflict(Operation *op, StringRef what, const Layout &wanted,
                         const Decision &existing);
  FragmentLayoutAttr attr(const Layout &layout) {
    return FragmentLayoutAttr::get(kernel.getContext(), layout);
  }

  KernelOp kernel;
  const TargetInfo &target;
  bool explain;
  int64_t threads;
  bool changed = false;

  SmallVector<FragmentOp> fragmentOps;
  SmallVector<AllocSharedOp> sharedOps;
  SmallVector<ParallelOp> loopOps;
  llvm::MapVector<Value, Decision> fragments;
  llvm::MapVector<Operation *, Decision> loops;
  llvm::MapVector<Value, std::pair<LayoutAttrInterface, Origin>> shared;
};

} // namespace

LogicalResult LayoutInference::conflict(Operation *op, StringRef what,
                                        const Layout &wanted,
                                        const Decision &existing) {
  InFlightDiagnostic diag = op->emitOpError("layout conflict: ")
                            << what << " needs " << attr(wanted)
                            << " but it already has "
                            << attr(existing.layout);
  diag.attachNote(existing.origin.op->getLoc())
      << "that layout was chosen here: " << existing.origin.reason;
  return diag;
}

LogicalResult LayoutInference::setFragment(Value buffer, const Layout &layout,
                                           Origin origin, bool exact) {
  auto it = fragments.find(buffer);
  if (it == fragments.end()) {
    LLVM_DEBUG(llvm::dbgs() << "layout " << layout << ": " << origin.reason
                            << "\n");
    fragments.insert({buffer, Decision{layout, std::move(origin)}});
    changed = true;
    return success();
  }
  if (haveSameOwners(it->second.layout, layout, exact))
    return success();
  return conflict(origin.op, origin.reason, layout, it->second);
}

LogicalResult LayoutInference::seed() {
  kernel.walk([&](Operation *op) {
    if (auto fragment = dyn_cast<FragmentOp>(op)) {
      fragmentOps.push_back(fragment);
      if (auto layout = dyn_cast_or_null<FragmentLayoutAttr>(
              fragment.getLayoutAttr()))
        fragments.insert({fragment.getResult(),
                          {layout.toLayout(), {op, "annotated in the source"}}});
    } else if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      sharedOps.push_back(alloc);
      if (LayoutAttrInterface layout = alloc.getLayoutAttr())
        shared.insert({alloc.getResult(),
                       {layout, {op, "annotated in the source"}}});
    } else if (auto loop = dyn_cast<ParallelOp>(op)) {
      loopOps.push_back(loop);
      if (auto layout =
              dyn_cast_or_null<FragmentLayoutAttr>(loop.getLayoutAttr()))
        loops.insert({op, {layout.toLayout(), {op, "annotated in the source"}}});
    }
  });
  return success();
}

LogicalResult LayoutInference::applyGemms() {
  WalkResult result = kernel.walk([&](GemmOp gemm) {
    FailureOr<GemmPlan> plan = planGemm(gemm, target, threads);
    if (failed(plan))
      return WalkResult::interrupt();
    std::string how = plan->describe();
    if (failed(setFragment(gemm.getC(), plan->c,
                           {gemm, "the accumulator of this tile.gemm (" +
                                      how + ")"},
                           /*exact=*/true)))
      return WalkResult::interrupt();
    for (auto [name, operand, layout] :
         {std::make_tuple("A", gemm.getA(), &plan->a),
          std::make_tuple("B", gemm.getB(), &plan->b)}) {
      if (isa<FragmentType>(operand.getType())) {
        if (failed(setFragment(operand, *layout,
                               {gemm, std::string("operand ") + name +
                                          " of this tile.gemm (" + how + ")"},
                               /*exact=*/true)))
          return WalkResult::interrupt();
        continue;
      }
      // Swizzles serve ldmatrix-style row reads of tensor-core operands.
      auto type = cast<MemRefType>(operand.getType());
      if (plan->instruction == GemmInstruction::Fma ||
          !operand.getDefiningOp<AllocSharedOp>() || shared.count(operand))
        continue;
      if (LayoutAttrInterface swizzle =
              getPreferredOperandLayout(type, target))
        shared.insert({operand,
                       {swizzle,
                        {gemm, std::string("operand ") + name +
                                   " of this tile.gemm: the swizzle lets "
                                   "ldmatrix read rows without bank "
                                   "conflicts"}}});
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult LayoutInference::propagateParallel(ParallelOp loop) {
  unsigned rank = loop.getShape().size();
  SmallVector<Access> accesses;
  loop.getBody().walk([&](Operation *op) {
    Value buffer;
    ValueRange indices;
    if (auto load = dyn_cast<LoadOp>(op)) {
      buffer = load.getBuffer();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      buffer = store.getBuffer();
      indices = store.getIndices();
    }
    if (!buffer || !isa<FragmentType>(buffer.getType()) ||
        op->getParentOfType<ParallelOp>() != loop)
      return;
    Access access{buffer, {}};
    for (Value index : indices)
      access.ivs.push_back(cast<BlockArgument>(index).getArgNumber());
    accesses.push_back(std::move(access));
  });

  // The loop layout: from a fragment indexed by every induction variable,
  // else from one indexed by some of them.
  if (!loops.count(loop)) {
    for (bool full : {true, false}) {
      for (const Access &access : accesses) {
        auto known = fragments.find(access.buffer);
        if (access.isFull(rank) != full || known == fragments.end())
          continue;
        Layout layout =
            full ? toLoopOrder(known->second.layout, access.ivs)
                 : expandToLoop(known->second.layout, access.ivs,
                                loop.getShape());
        loops.insert(
            {loop,
             {layout,
              {loop, full ? "runs each iteration on the threads that own "
                            "the fragment elements it indexes"
                          : "runs each iteration on the threads that hold "
                            "the broadcast fragment element it reads"}}});
        changed = true;
        break;
      }
      if (loops.count(loop))
        break;
    }
  }
  auto known = loops.find(loop);
  if (known == loops.end())
    return success();
  const Layout &loopLayout = known->second.layout;

  for (const Access &access : accesses) {
    Layout needed = requiredFragment(loopLayout, access.ivs);
    auto have = fragments.find(access.buffer);
    if (have == fragments.end()) {
      if (failed(setFragment(
              access.buffer, needed,
              {loop, access.isFull(rank)
                         ? "indexed by every induction variable of this "
                           "tile.parallel, so it shares the loop's layout"
                         : "broadcast in this tile.parallel: the loop "
                           "layout projected onto the induction variables "
                           "that index it"},
              /*exact=*/false)))
        return failure();
      continue;
    }
    bool ok = access.isFull(rank)
                  ? haveSameOwners(have->second.layout, needed, /*slots=*/false)
                  : coversLoop(have->second.layout, loopLayout, access.ivs);
    if (!ok)
      return conflict(loop,
                      "this tile.parallel (" + known->second.origin.reason +
                          ") reads a fragment that",
                      needed, have->second);
  }
  return success();
}

LogicalResult LayoutInference::propagateReduce(ReduceOp reduce) {
  auto source = fragments.find(reduce.getSource());
  if (source == fragments.end() || !isa<FragmentType>(reduce.getDest().getType()))
    return success();
  Layout result = projectFragment(source->second.layout,
                                  reduce.getDimAttr().getInt());
  if (getFragmentRank(result) == 0)
    result = result.insertDim(0, {});
  return setFragment(reduce.getDest(), result,
                     {reduce, "the result of this tile.reduce: the source's "
                              "layout without the reduced dim"},
                     /*exact=*/false);
}

LogicalResult LayoutInference::propagateEqual(Value a, Value b,
                                              Operation *op) {
  if (!isa<FragmentType>(a.getType()) || !isa<FragmentType>(b.getType()))
    return success();
  auto knownA = fragments.find(a), knownB = fragments.find(b);
  std::string reason = "copied to or from a fragment with this layout by "
                       "this '" +
                       op->getName().getStringRef().str() + "'";
  if (knownA != fragments.end() && knownB == fragments.end())
    return setFragment(b, knownA->second.layout, {op, reason}, false);
  if (knownB != fragments.end() && knownA == fragments.end())
    return setFragment(a, knownB->second.layout, {op, reason}, false);
  return success();
}

LogicalResult LayoutInference::propagate() {
  do {
    changed = false;
    WalkResult result = kernel.walk([&](Operation *op) {
      LogicalResult status = success();
      if (auto loop = dyn_cast<ParallelOp>(op))
        status = propagateParallel(loop);
      else if (auto reduce = dyn_cast<ReduceOp>(op))
        status = propagateReduce(reduce);
      else if (auto copy = dyn_cast<CopyOp>(op))
        status = propagateEqual(copy.getSource(), copy.getDest(), op);
      else if (auto cumsum = dyn_cast<CumSumOp>(op))
        status = propagateEqual(cumsum.getSource(), cumsum.getDest(), op);
      return failed(status) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  } while (changed);
  return success();
}

bool LayoutInference::chooseFreeFragment() {
  FragmentOp best;
  for (FragmentOp op : fragmentOps)
    if (!fragments.count(op.getResult()) &&
        (!best || op.getType().getNumElements() >
                      best.getType().getNumElements()))
      best = op;
  if (!best)
    return false;
  FragmentType type = best.getType();
  Layout layout = getVectorizedFragment(
      type.getShape(), type.getElementType().getIntOrFloatBitWidth(), threads);
  fragments.insert({best.getResult(),
                    {layout,
                     {best, "free choice: runs of up to 128 bits per thread "
                            "along the innermost dim, consecutive threads on "
                            "consecutive runs"}}});
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
    loops.insert({loop,
                  {getVectorizedFragment(loop.getShape(), bits, threads),
                   {loop, "free choice: no fragment constrains it; runs of "
                          "up to 128 bits per thread along the innermost "
                          "dim"}}});
    return true;
  }
  return false;
}

void LayoutInference::write() {
  MLIRContext *context = kernel.getContext();
  auto remark = [&](Operation *op, Attribute layout, const Origin &origin) {
    if (!explain)
      return;
    InFlightDiagnostic diag = op->emitRemark("layout ")
                              << layout << ": " << origin.reason;
    if (origin.op != op)
      diag.attachNote(origin.op->getLoc()) << "decided by this op";
  };
  for (FragmentOp op : fragmentOps) {
    const Decision &decision = fragments.find(op.getResult())->second;
    if (!op.getLayoutAttr())
      op.setLayoutAttr(attr(decision.layout));
    remark(op, op.getLayoutAttr(), decision.origin);
  }
  for (AllocSharedOp op : sharedOps) {
    auto it = shared.find(op.getResult());
    if (it == shared.end())
      it = shared
               .insert({op.getResult(),
                        {LinearLayoutAttr::get(context),
                         {op, "free choice: no op constrains it, so "
                              "row-major"}}})
               .first;
    if (!op.getLayoutAttr())
      op.setLayoutAttr(it->second.first);
    remark(op, op.getLayoutAttr(), it->second.second);
  }
  for (ParallelOp op : loopOps) {
    const Decision &decision = loops.find(op)->second;
    if (!op.getLayoutAttr())
      op.setLayoutAttr(attr(decision.layout));
    remark(op, op.getLayoutAttr(), decision.origin);
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

LogicalResult LayoutInference::run() {
  if (failed(seed()) || failed(applyGemms()))
    return failure();
  while (true) {
    if (failed(propagate()))
      return failure();
    if (!chooseFreeFragment() && !chooseFreeLoop())
      break;
  }
  write();
  return success();
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
