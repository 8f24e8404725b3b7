//===- LayoutRules.cpp - What each tile op needs of layouts ---------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The LayoutInferenceOpInterface models of the tile ops, one rule per op:
// a gemm fixes its accumulator's and register operands' layouts to its
// instruction's (and proposes swizzles for its shared operands); a parallel
// loop runs each iteration on the owners of the fragment elements it
// touches (once, where it updates a reducer); a reducer is where the loops
// that update it run; a reduction's result is its source without the
// reduced dim; a copy between fragments or a scan keeps the layout.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Transforms.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/GemmPlan.h"
#include "tile/Layout/FragmentLayouts.h"

#include "mlir/IR/DialectRegistry.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// An element access of a fragment in a tile.parallel body: buffer dim `d`
/// is indexed by induction variable `dims[d]`, or by a uniform value
/// (kUniformDim). `ivs` are the induction variables of the other dims, in
/// buffer order: the access seen without its uniform dims.
struct Access {
  Value buffer;
  SmallVector<unsigned> dims;
  SmallVector<unsigned> ivs;
  /// A tile.store (of a reducer: an update).
  bool isStore = false;
  /// The buffer is a reducer.
  bool isReducer = false;
  bool isFull(unsigned loopRank) const { return ivs.size() == loopRank; }
  bool hasUniformDims() const { return ivs.size() != dims.size(); }
};

/// The fragment element accesses of `loop`'s body (those whose nearest
/// tile.parallel it is).
SmallVector<Access> collectAccesses(ParallelOp loop) {
  SmallVector<Access> accesses;
  forEachFragmentAccess(
      loop, [&](Operation *op, Value buffer, ArrayRef<unsigned> dims) {
        Access access{buffer, SmallVector<unsigned>(dims), {}};
        for (unsigned iv : dims)
          if (iv != kUniformDim)
            access.ivs.push_back(iv);
        access.isStore = isa<StoreOp>(op);
        access.isReducer = getReducerKind(buffer).has_value();
        accesses.push_back(std::move(access));
      });
  return accesses;
}

/// Whether a fragment layout holds some element more than once.
bool hasCopies(const Layout &fragment) {
  return fragment.getInShape().back() > 1;
}

/// `fragment` with one copy of each element (copy 0's place).
Layout withoutCopies(const Layout &fragment) {
  return makeFragment(fragment.getDims().drop_back());
}

/// Whether `reducer` is updated in some tile.parallel body (its layout is
/// then the reducer rule's to decide).
bool hasUpdates(Value reducer) {
  return getReducerKind(reducer) && !getReducerUpdateLoops(reducer).empty();
}

/// Whether dim `dim` of `fragment` is in each thread's slots only (no
/// thread digit): a uniform index then reads the same thread's slots.
bool isSlotOnly(const Layout &fragment, unsigned dim) {
  return llvm::all_of(fragment.getFactors(dim), [](const LayoutFactor &f) {
    return f.size == 1 || f.outDim == kSlotAxis;
  });
}

/// `fragment` without the dims `access` indexes uniformly, or nothing when
/// one of them has thread digits (a uniform index cannot read it).
std::optional<Layout> withoutUniformDims(const Layout &fragment,
                                         const Access &access) {
  Layout result = fragment;
  for (int64_t d = access.dims.size() - 1; d >= 0; --d) {
    if (access.dims[d] != kUniformDim)
      continue;
    if (!isSlotOnly(fragment, d))
      return std::nullopt;
    result = projectFragment(result, d);
  }
  return result;
}

/// `fragment` (the layout of the access's induction-variable dims) with the
/// uniformly indexed dims inserted as slot digits: every thread that holds
/// an element holds all of them along those dims.
Layout withUniformDims(const Layout &fragment, const Access &access,
                       ArrayRef<int64_t> shape) {
  SmallVector<unsigned> uniform;
  for (auto [d, iv] : llvm::enumerate(access.dims))
    if (iv == kUniformDim)
      uniform.push_back(d);
  return insertSlotDims(fragment, uniform, shape);
}

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

//===----------------------------------------------------------------------===//
// tile.gemm: the instruction's layouts
//===----------------------------------------------------------------------===//

struct GemmLayoutRule
    : public LayoutInferenceOpInterface::ExternalModel<GemmLayoutRule, GemmOp> {
  LogicalResult requireLayouts(Operation *op,
                               LayoutInferenceState &state) const {
    auto gemm = cast<GemmOp>(op);
    FailureOr<GemmPlan> plan =
        planGemm(gemm, state.getTarget(), state.getThreads());
    if (failed(plan))
      return failure();
    std::string how = plan->describe();
    if (failed(state.setFragment(gemm.getC(), plan->c, gemm,
                                 "the accumulator of this tile.gemm (" + how +
                                     ")",
                                 /*exact=*/true)))
      return failure();
    for (auto [name, operand, layout] :
         {std::make_tuple("A", gemm.getA(), &plan->a),
          std::make_tuple("B", gemm.getB(), &plan->b)}) {
      if (isa<FragmentType>(operand.getType())) {
        if (failed(state.setFragment(operand, *layout, gemm,
                                     std::string("operand ") + name +
                                         " of this tile.gemm (" + how + ")",
                                     /*exact=*/true)))
          return failure();
        continue;
      }
      // Swizzles serve ldmatrix-style row reads of tensor-core operands.
      if (plan->instruction == GemmInstruction::Fma ||
          !operand.getDefiningOp<AllocSharedOp>())
        continue;
      auto type = cast<MemRefType>(operand.getType());
      // MFMA reads an operand stored K-outer element by element, in pairs
      // of K steps where both operands are in shared memory.
      bool kOuter =
          operand == gemm.getA() ? gemm.getTransposeA() : !gemm.getTransposeB();
      bool pairedReads = plan->instruction == GemmInstruction::Mfma &&
                         plan->repeatsK % 2 == 0 &&
                         gemm.getA().getDefiningOp<AllocSharedOp>() &&
                         gemm.getB().getDefiningOp<AllocSharedOp>();
      if (kOuter && pairedReads) {
        if (LayoutAttrInterface layout =
                getMfmaKOuterOperandLayout(type, *plan, state.getTarget()))
          state.proposeShared(operand, layout, gemm,
                              std::string("operand ") + name +
                                  " of this tile.gemm: its rows ordered so "
                                  "that MFMA's lane groups read distinct "
                                  "LDS banks");
        continue;
      }
      if (LayoutAttrInterface swizzle =
              getPreferredOperandLayout(type, state.getTarget()))
        state.proposeShared(operand, swizzle, gemm,
                            std::string("operand ") + name +
                                " of this tile.gemm: the swizzle lets "
                                "ldmatrix read rows without bank conflicts");
    }
    return success();
  }

};

//===----------------------------------------------------------------------===//
// tile.parallel: iterations run where their fragment elements live
//===----------------------------------------------------------------------===//

struct ParallelLayoutRule
    : public LayoutInferenceOpInterface::ExternalModel<ParallelLayoutRule,
                                                       ParallelOp> {
  LogicalResult propagateLayouts(Operation *op,
                                 LayoutInferenceState &state) const {
    auto loop = cast<ParallelOp>(op);
    unsigned rank = loop.getShape().size();
    SmallVector<Access> accesses = collectAccesses(loop);
    // A loop that updates a reducer runs each iteration once, so that no
    // contribution is counted twice: on copy 0's thread where the fragment
    // it follows is replicated.
    llvm::SmallPtrSet<Value, 2> updated;
    for (const Access &access : accesses)
      if (access.isStore && access.isReducer)
        updated.insert(access.buffer);
    bool updates = !updated.empty();

    // The loop layout: from a fragment indexed by every induction variable,
    // else from one indexed by some of them. A reducer the loop updates
    // leads only where it holds each element once (elsewhere the loops
    // that update it decide where its copies are).
    for (bool full : {true, false}) {
      if (state.getLoop(loop))
        break;
      for (const Access &access : accesses) {
        const LayoutDecision *known = state.getFragment(access.buffer);
        if (access.isFull(rank) != full || !known)
          continue;
        if (updated.contains(access.buffer) && hasCopies(known->layout))
          continue;
        std::optional<Layout> indexed =
            withoutUniformDims(known->layout, access);
        if (!indexed)
          continue;
        Layout layout =
            full ? toLoopOrder(*indexed, access.ivs)
                 : expandToLoop(*indexed, access.ivs, loop.getShape());
        std::string reason =
            full ? "runs each iteration on the threads that own the "
                   "fragment elements it indexes"
                 : "runs each iteration on the threads that hold the "
                   "broadcast fragment element it reads";
        if (updates && hasCopies(layout)) {
          layout = withoutCopies(layout);
          reason += " (on the first copy's thread only: it updates a "
                    "reducer)";
        }
        state.setLoop(loop, layout, reason);
        break;
      }
    }
    const LayoutDecision *decided = state.getLoop(loop);
    if (!decided)
      return success();
    const Layout &loopLayout = decided->layout;
    if (updates && hasCopies(loopLayout))
      return loop.emitOpError("updates a reducer, but its layout runs each "
                              "iteration on ")
             << loopLayout.getInShape().back()
             << " threads: a loop that updates a reducer runs each iteration "
                "once";

    for (const Access &access : accesses) {
      Layout needed = requiredFragment(loopLayout, access.ivs);
      ArrayRef<int64_t> shape =
          cast<FragmentType>(access.buffer.getType()).getShape();
      const LayoutDecision *have = state.getFragment(access.buffer);
      if (!have) {
        // The loops that update a reducer decide its layout.
        if (access.isReducer && hasUpdates(access.buffer))
          continue;
        if (failed(state.setFragment(
                access.buffer, withUniformDims(needed, access, shape), loop,
                access.hasUniformDims()
                    ? "indexed at a uniform value in this tile.parallel: "
                      "the loop layout on the induction variables that index "
                      "it, the uniformly indexed dims in every thread's slots"
                : access.isFull(rank)
                    ? "indexed by every induction variable of this "
                      "tile.parallel, so it shares the loop's layout"
                    : "broadcast in this tile.parallel: the loop layout "
                      "projected onto the induction variables that index it",
                /*exact=*/false)))
          return failure();
        continue;
      }
      // A full access shares the loop's owners, but for reducers (whose
      // copies hold partial values, or the total) and reads in a loop that
      // updates a reducer (on one copy of each iteration), whose threads
      // need only hold what they touch.
      bool sameOwners = access.isFull(rank) && !access.isReducer &&
                        (access.isStore || !updates);
      std::optional<Layout> indexed = withoutUniformDims(have->layout, access);
      bool ok = indexed &&
                (sameOwners ? haveSameOwners(*indexed, needed, /*slots=*/false)
                            : coversLoop(*indexed, loopLayout, access.ivs));
      if (!ok)
        return state.conflict(
            loop,
            "this tile.parallel (" + decided->reason +
                (access.isStore ? ") writes" : ") reads") + " a fragment that",
            withUniformDims(needed, access, shape), access.buffer);
    }
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tile.fragment reducer(kind): where the loops that update it run
//===----------------------------------------------------------------------===//

struct ReducerLayoutRule
    : public LayoutInferenceOpInterface::ExternalModel<ReducerLayoutRule,
                                                       FragmentOp> {
  /// Once every loop that updates the reducer has its layout: the
  /// projection of one of them onto the reducer's dims (the threads that
  /// run the other dims' iterations hold partial values), the first that
  /// also holds what every other decided loop touches; else every element
  /// on every thread.
  LogicalResult propagateLayouts(Operation *op,
                                 LayoutInferenceState &state) const {
    auto fragment = cast<FragmentOp>(op);
    Value reducer = fragment.getResult();
    if (!fragment.getReducerAttr() || state.getFragment(reducer))
      return success();
    SmallVector<ParallelOp> updaters = getReducerUpdateLoops(reducer);
    if (updaters.empty() || llvm::any_of(updaters, [&](ParallelOp loop) {
          return !state.getLoop(loop);
        }))
      return success();
    // The reducer's accesses in loops with layouts.
    SmallVector<std::pair<ParallelOp, Access>> uses;
    llvm::SmallPtrSet<Operation *, 4> seen;
    for (Operation *user : reducer.getUsers()) {
      auto loop = user->getParentOfType<ParallelOp>();
      if (!isa<LoadOp, StoreOp>(user) || !loop || !state.getLoop(loop) ||
          !seen.insert(loop).second)
        continue;
      for (Access &access : collectAccesses(loop))
        if (access.buffer == reducer)
          uses.push_back({loop, std::move(access)});
    }
    auto holdsAll = [&](const Layout &candidate) {
      return llvm::all_of(uses, [&](const auto &use) {
        std::optional<Layout> indexed =
            withoutUniformDims(candidate, use.second);
        return indexed && coversLoop(*indexed, state.getLoop(use.first)->layout,
                                     use.second.ivs);
      });
    };
    ArrayRef<int64_t> shape = fragment.getType().getShape();
    for (const auto &[loop, access] : uses) {
      if (!access.isStore)
        continue;
      Layout candidate = withUniformDims(
          requiredFragment(state.getLoop(loop)->layout, access.ivs), access,
          shape);
      if (holdsAll(candidate))
        return state.setFragment(
            reducer, candidate, loop,
            "updated in this tile.parallel: the loop layout on the "
            "induction variables that index it, the threads that run the "
            "other iterations holding partial values",
            /*exact=*/false);
    }
    SmallVector<unsigned> dims(shape.size());
    std::iota(dims.begin(), dims.end(), 0);
    Layout everywhere = insertSlotDims(
        makeFragment({}, {LayoutFactor{state.getThreads(), kThreadAxis, 1}}),
        dims, shape);
    return state.setFragment(
        reducer, everywhere, updaters.front(),
        "every element on every thread: the tile.parallel loops that update "
        "or read it run an element's iterations on different threads",
        /*exact=*/false);
  }
};

//===----------------------------------------------------------------------===//
// tile.reduce: the source without the reduced dim
//===----------------------------------------------------------------------===//

struct ReduceLayoutRule
    : public LayoutInferenceOpInterface::ExternalModel<ReduceLayoutRule,
                                                       ReduceOp> {
  LogicalResult propagateLayouts(Operation *op,
                                 LayoutInferenceState &state) const {
    auto reduce = cast<ReduceOp>(op);
    const LayoutDecision *source = state.getFragment(reduce.getSource());
    if (!source || !isa<FragmentType>(reduce.getDest().getType()))
      return success();
    Layout result =
        projectFragment(source->layout, reduce.getDimAttr().getInt());
    if (getFragmentRank(result) == 0)
      result = result.insertDim(0, {});
    return state.setFragment(reduce.getDest(), result, reduce,
                             "the result of this tile.reduce: the source's "
                             "layout without the reduced dim",
                             /*exact=*/false);
  }
};

//===----------------------------------------------------------------------===//
// tile.copy between fragments, tile.cumsum: the same layout on both sides
//===----------------------------------------------------------------------===//

/// Gives the undecided one of two fragments the other's layout (but a
/// reducer's, which the loops that update it decide).
LogicalResult propagateEqual(LayoutInferenceState &state, Value a, Value b,
                             Operation *op) {
  if (!isa<FragmentType>(a.getType()) || !isa<FragmentType>(b.getType()))
    return success();
  const LayoutDecision *knownA = state.getFragment(a);
  const LayoutDecision *knownB = state.getFragment(b);
  std::string reason = "copied to or from a fragment with this layout by "
                       "this '" +
                       op->getName().getStringRef().str() + "'";
  if (knownA && !knownB && !hasUpdates(b))
    return state.setFragment(b, knownA->layout, op, reason, false);
  if (knownB && !knownA && !hasUpdates(a))
    return state.setFragment(a, knownB->layout, op, reason, false);
  return success();
}

template <typename Op>
struct SameLayoutRule
    : public LayoutInferenceOpInterface::ExternalModel<SameLayoutRule<Op>, Op> {
  LogicalResult propagateLayouts(Operation *op,
                                 LayoutInferenceState &state) const {
    auto concrete = cast<Op>(op);
    return propagateEqual(state, concrete.getSource(), concrete.getDest(), op);
  }
};

} // namespace

void mlir::tile::registerLayoutInferenceModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, TileDialect *) {
    GemmOp::attachInterface<GemmLayoutRule>(*context);
    ParallelOp::attachInterface<ParallelLayoutRule>(*context);
    FragmentOp::attachInterface<ReducerLayoutRule>(*context);
    ReduceOp::attachInterface<ReduceLayoutRule>(*context);
    CopyOp::attachInterface<SameLayoutRule<CopyOp>>(*context);
    CumSumOp::attachInterface<SameLayoutRule<CumSumOp>>(*context);
  });
}
