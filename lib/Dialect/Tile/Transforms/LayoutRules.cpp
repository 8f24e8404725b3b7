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
// touches; a reduction's result is its source without the reduced dim; a
// copy between fragments or a scan keeps the layout.
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
  bool isFull(unsigned loopRank) const { return ivs.size() == loopRank; }
  bool hasUniformDims() const { return ivs.size() != dims.size(); }
};

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
    SmallVector<Access> accesses;
    forEachFragmentAccess(loop, [&](Value buffer, ArrayRef<unsigned> dims) {
      Access access{buffer, SmallVector<unsigned>(dims), {}};
      for (unsigned iv : dims)
        if (iv != kUniformDim)
          access.ivs.push_back(iv);
      accesses.push_back(std::move(access));
    });

    // The loop layout: from a fragment indexed by every induction variable,
    // else from one indexed by some of them.
    for (bool full : {true, false}) {
      if (state.getLoop(loop))
        break;
      for (const Access &access : accesses) {
        const LayoutDecision *known = state.getFragment(access.buffer);
        if (access.isFull(rank) != full || !known)
          continue;
        std::optional<Layout> indexed =
            withoutUniformDims(known->layout, access);
        if (!indexed)
          continue;
        state.setLoop(loop,
                      full ? toLoopOrder(*indexed, access.ivs)
                           : expandToLoop(*indexed, access.ivs,
                                          loop.getShape()),
                      full ? "runs each iteration on the threads that own "
                             "the fragment elements it indexes"
                           : "runs each iteration on the threads that hold "
                             "the broadcast fragment element it reads");
        break;
      }
    }
    const LayoutDecision *decided = state.getLoop(loop);
    if (!decided)
      return success();
    const Layout &loopLayout = decided->layout;

    for (const Access &access : accesses) {
      Layout needed = requiredFragment(loopLayout, access.ivs);
      ArrayRef<int64_t> shape =
          cast<FragmentType>(access.buffer.getType()).getShape();
      const LayoutDecision *have = state.getFragment(access.buffer);
      if (!have) {
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
      std::optional<Layout> indexed = withoutUniformDims(have->layout, access);
      bool ok = indexed &&
                (access.isFull(rank)
                     ? haveSameOwners(*indexed, needed, /*slots=*/false)
                     : coversLoop(*indexed, loopLayout, access.ivs));
      if (!ok)
        return state.conflict(loop,
                              "this tile.parallel (" + decided->reason +
                                  ") reads a fragment that",
                              withUniformDims(needed, access, shape),
                              access.buffer);
    }
    return success();
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

/// Gives the undecided one of two fragments the other's layout.
LogicalResult propagateEqual(LayoutInferenceState &state, Value a, Value b,
                             Operation *op) {
  if (!isa<FragmentType>(a.getType()) || !isa<FragmentType>(b.getType()))
    return success();
  const LayoutDecision *knownA = state.getFragment(a);
  const LayoutDecision *knownB = state.getFragment(b);
  std::string reason = "copied to or from a fragment with this layout by "
                       "this '" +
                       op->getName().getStringRef().str() + "'";
  if (knownA && !knownB)
    return state.setFragment(b, knownA->layout, op, reason, false);
  if (knownB && !knownA)
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
    ReduceOp::attachInterface<ReduceLayoutRule>(*context);
    CopyOp::attachInterface<SameLayoutRule<CopyOp>>(*context);
    CumSumOp::attachInterface<SameLayoutRule<CumSumOp>>(*context);
  });
}
