//===- TileReducerOps.cpp - Reducers and their finalize -------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Reducers (tile.fragment reducer(kind), TileLang's T.alloc_reducer): what
// an update of an element is, tile.finalize_reducer, and the order of a
// kernel's reducer operations. A reducer's copies hold partial values from
// its start (the kind's identity, or a tile.fill's value) through its
// updates; tile.finalize_reducer combines them, after which every copy
// holds the total and the reducer reads as an ordinary fragment.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "TileOpVerification.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

//===----------------------------------------------------------------------===//
// Reducers and their updates
//===----------------------------------------------------------------------===//

std::optional<ReduceKind> mlir::tile::getReducerKind(Value buffer) {
  auto fragment = buffer.getDefiningOp<FragmentOp>();
  if (!fragment || !fragment.getReducerAttr())
    return std::nullopt;
  return fragment.getReducerAttr().getValue();
}

/// The kinds a reducer may have.
static bool isReducerKind(ReduceKind kind) {
  return kind == ReduceKind::Sum || kind == ReduceKind::Max ||
         kind == ReduceKind::Min;
}

/// The value `v` converts through conversions of width (extf/truncf,
/// extsi/extui/trunci), each its operand's only use; `v` itself when it is
/// no such conversion.
static Value stripWidthCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::TruncIOp>(def) ||
        !def->getOperand(0).hasOneUse())
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether `op` combines two values as reducers of `kind` do.
static bool isCombineOf(ReduceKind kind, Operation *op) {
  switch (kind) {
  case ReduceKind::Sum:
    return isa<arith::AddFOp, arith::AddIOp>(op);
  case ReduceKind::Max:
    return isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op);
  case ReduceKind::Min:
    return isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op);
  default:
    return false;
  }
}

LoadOp mlir::tile::getReducerUpdateLoad(StoreOp store) {
  Value reducer = store.getBuffer();
  std::optional<ReduceKind> kind = getReducerKind(reducer);
  if (!kind || !store.getValue().hasOneUse())
    return {};
  Value combined = stripWidthCasts(store.getValue());
  Operation *combine = combined.getDefiningOp();
  if (!combine || !isCombineOf(*kind, combine) || !combined.hasOneUse())
    return {};
  auto parallel = store->getParentOfType<ParallelOp>();
  for (Value operand : combine->getOperands()) {
    if (!operand.hasOneUse())
      continue;
    auto load = stripWidthCasts(operand).getDefiningOp<LoadOp>();
    if (load && load.getBuffer() == reducer &&
        load.getIndices() == store.getIndices() &&
        load->getParentOfType<ParallelOp>() == parallel)
      return load;
  }
  return {};
}

/// Whether `parallel`'s body updates `reducer`.
static bool updates(ParallelOp parallel, Value reducer) {
  return llvm::any_of(reducer.getUsers(), [&](Operation *user) {
    auto store = dyn_cast<StoreOp>(user);
    return store && store.getBuffer() == reducer &&
           store->getParentOfType<ParallelOp>() == parallel;
  });
}

SmallVector<ParallelOp> mlir::tile::getReducerUpdateLoops(Value reducer) {
  SmallVector<ParallelOp> loops;
  if (!getReducerKind(reducer))
    return loops;
  // Uses are in the region of the definition.
  reducer.getParentRegion()->walk<WalkOrder::PreOrder>([&](ParallelOp loop) {
    if (updates(loop, reducer))
      loops.push_back(loop);
    return WalkResult::skip();
  });
  return loops;
}

/// The contribution ops of each kind, for diagnostics.
static StringRef describeCombine(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    return "arith.addf or arith.addi";
  case ReduceKind::Max:
    return "arith.maximumf, arith.maxnumf or arith.maxsi";
  default:
    return "arith.minimumf, arith.minnumf or arith.minsi";
  }
}

LogicalResult mlir::tile::detail::verifyReducerUpdate(StoreOp store,
                                                      ReduceKind kind) {
  if (getReducerUpdateLoad(store))
    return success();
  return store.emitOpError("stores to a ")
         << stringifyReduceKind(kind)
         << " reducer a value that is not an update of the element: "
            "expected "
         << describeCombine(kind)
         << " of a 'tile.load' of the same element (used only there) and "
            "the contribution";
}

LogicalResult mlir::tile::detail::verifyReducerLoad(LoadOp load) {
  Value reducer = load.getBuffer();
  auto parallel = load->getParentOfType<ParallelOp>();
  if (!parallel || !getReducerKind(reducer) || !updates(parallel, reducer))
    return success();
  for (Operation *user : reducer.getUsers()) {
    auto store = dyn_cast<StoreOp>(user);
    if (!store || store.getBuffer() != reducer ||
        store->getParentOfType<ParallelOp>() != parallel)
      continue;
    // A store that is no update is the error to report (its verifier's).
    LoadOp updated = getReducerUpdateLoad(store);
    if (!updated || updated == load)
      return success();
  }
  return load.emitOpError(
      "reads a reducer in the 'tile.parallel' that updates it, other than to "
      "update the element: its value is known after 'tile.finalize_reducer'");
}

//===----------------------------------------------------------------------===//
// FragmentOp (reducer), FinalizeReducerOp
//===----------------------------------------------------------------------===//

LogicalResult mlir::tile::detail::verifyReducerFragment(FragmentOp op) {
  ReduceKind kind = op.getReducerAttr().getValue();
  if (!isReducerKind(kind))
    return op.emitOpError("a reducer's kind is sum, max or min, got ")
           << stringifyReduceKind(kind);
  Type element = op.getType().getElementType();
  if (!isa<FloatType>(element) && !element.isSignlessInteger())
    return op.emitOpError(
               "a reducer's elements are floats or signless integers, got ")
           << element;
  return success();
}

ReduceKind FinalizeReducerOp::getKind() {
  return getReducerKind(getReducer()).value_or(ReduceKind::Sum);
}

LogicalResult FinalizeReducerOp::verify() {
  if (!getReducerKind(getReducer()))
    return emitOpError("expects a reducer (a 'tile.fragment' with "
                       "'reducer(kind)'), got another fragment");
  return success();
}

//===----------------------------------------------------------------------===//
// The order of a kernel's reducer operations
//===----------------------------------------------------------------------===//

namespace {

/// Where a reducer may be, as a set: at its start (every copy holds the
/// identity), open (copies hold partial values: after a fill or an
/// update), final (every copy holds the total: after its finalize).
enum ReducerState : unsigned { kFresh = 1, kOpen = 2, kFinal = 4 };

using StateMap = llvm::DenseMap<Value, unsigned>;

StateMap merge(const StateMap &a, const StateMap &b) {
  StateMap result = a;
  for (auto [reducer, state] : b)
    result[reducer] |= state;
  return result;
}

/// Walks a kernel's body in program order, following each reducer's state
/// through regions (a loop's body as often as it changes them); reports
/// the first op that uses a reducer where its state does not allow it.
class ReducerOrderChecker {
public:
  LogicalResult check(KernelOp kernel) {
    StateMap states;
    walk(kernel.getBody().front(), states, /*report=*/true);
    return failure(failed);
  }

private:
  void walk(Block &block, StateMap &states, bool report) {
    for (Operation &op : block) {
      if (failed)
        return;
      visit(&op, states, report);
    }
  }

  InFlightDiagnostic error(Operation *op, Value reducer, const Twine &what) {
    failed = true;
    InFlightDiagnostic diag = op->emitOpError(what);
    if (!isa<FinalizeReducerOp>(op))
      diag.attachNote(reducer.getLoc()) << "the reducer";
    return diag;
  }

  void visit(Operation *op, StateMap &states, bool report) {
    if (auto fragment = dyn_cast<FragmentOp>(op)) {
      if (fragment.getReducerAttr())
        states[fragment.getResult()] = kFresh;
      return;
    }
    if (auto fill = dyn_cast<FillOp>(op)) {
      if (states.count(fill.getDest()))
        states[fill.getDest()] = kOpen;
      return;
    }
    if (auto finalize = dyn_cast<FinalizeReducerOp>(op)) {
      Value reducer = finalize.getReducer();
      if (report && (states.lookup(reducer) & kFinal))
        error(op, reducer,
              "finalizes a reducer that holds its totals already: another "
              "reduction into it starts with 'tile.fill'");
      states[reducer] = kFinal;
      return;
    }
    if (auto parallel = dyn_cast<ParallelOp>(op)) {
      visitParallel(parallel, states, report);
      return;
    }
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      // Writes first: an op that reads and writes a reducer is a writer.
      for (bool writes : {true, false}) {
        for (const MemoryEffects::EffectInstance &effect : instances) {
          Value reducer = effect.getValue();
          if (!reducer || !states.count(reducer) || !report)
            continue;
          if (writes && isa<MemoryEffects::Write>(effect.getEffect())) {
            error(op, reducer,
                  "writes a reducer: only 'tile.fill', updates in "
                  "'tile.parallel' bodies and 'tile.finalize_reducer' write "
                  "one");
            return;
          }
          if (!writes && isa<MemoryEffects::Read>(effect.getEffect()) &&
              (states.lookup(reducer) & kOpen)) {
            error(op, reducer,
                  "reads a reducer before 'tile.finalize_reducer' has "
                  "combined its partial values");
            return;
          }
        }
      }
    }
    for (Region &region : op->getRegions())
      if (!region.empty())
        visitRegions(op, states, report);
  }

  /// A loop updates the reducers it stores to; other loads of a reducer
  /// read it.
  void visitParallel(ParallelOp parallel, StateMap &states, bool report) {
    llvm::SmallSetVector<Value, 4> updated, read;
    parallel.getBody().walk([&](Operation *nested) {
      if (auto store = dyn_cast<StoreOp>(nested)) {
        if (states.count(store.getBuffer()))
          updated.insert(store.getBuffer());
      } else if (auto load = dyn_cast<LoadOp>(nested)) {
        if (states.count(load.getBuffer()))
          read.insert(load.getBuffer());
      }
    });
    for (Value reducer : updated) {
      if (report && (states.lookup(reducer) & kFinal)) {
        error(parallel, reducer,
              "updates a reducer after its 'tile.finalize_reducer': "
              "'tile.fill' it first to start another reduction");
        return;
      }
      states[reducer] = kOpen;
    }
    for (Value reducer : read) {
      if (updated.contains(reducer))
        continue;
      if (report && (states.lookup(reducer) & kOpen)) {
        error(parallel, reducer,
              "reads a reducer before 'tile.finalize_reducer' has combined "
              "its partial values");
        return;
      }
    }
  }

  /// An op's regions: one of them runs, or none where the op may go on
  /// without them; a loop's body may run again with what it left.
  void visitRegions(Operation *op, StateMap &states, bool report) {
    auto branch = dyn_cast<RegionBranchOpInterface>(op);
    bool skippable = !branch;
    if (branch) {
      SmallVector<RegionSuccessor> successors;
      branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
      skippable = llvm::any_of(
          successors, [](const RegionSuccessor &s) { return s.isParent(); });
    }
    StateMap before = states;
    StateMap after;
    if (skippable)
      after = states;
    for (Region &region : op->getRegions()) {
      if (region.empty())
        continue;
      bool repeats =
          !branch || branch.isRepetitiveRegion(region.getRegionNumber());
      StateMap entry = before;
      while (repeats) {
        StateMap out = entry;
        walk(region.front(), out, /*report=*/false);
        StateMap next = merge(entry, out);
        if (next == entry)
          break;
        entry = std::move(next);
      }
      StateMap out = entry;
      walk(region.front(), out, report);
      after = merge(after, out);
    }
    states = std::move(after);
  }

  bool failed = false;
};

} // namespace

LogicalResult mlir::tile::detail::verifyReducerOrder(KernelOp kernel) {
  return ReducerOrderChecker().check(kernel);
}
