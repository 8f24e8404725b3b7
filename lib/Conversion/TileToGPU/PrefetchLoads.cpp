//===- PrefetchLoads.cpp - Global loads of a pipeline one step ahead ------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A pipelined loop's copies run ahead of its body (cp.async, TMA), but a
// load its element work makes from a global tensor, such as a dequantizing
// T.Parallel's scale per group of K (`Scale[n, (k * block_K + j) / group]`),
// is an ordinary load: each iteration waits for it, a global memory latency
// per K step, with nothing else to run (W4A16 at 0.24x torch, H200). Here
// such a load is issued one iteration early and its value carried:
//
//   v0 = lower < upper && path(lower) ? load(lower) : 0
//   for k (carried v):
//     vNext = k + step < upper && path(k + step) ? load(k + step) : 0
//     ... v where the body loaded ...
//     yield vNext
//
// path(k) are the conditions of the branches around the load (a vectorized
// body's run-time alignment test, a bounds test): the prefetched value is
// used only where the iteration takes them, and a load no iteration makes
// is never made. Only loads of tensors the kernel never writes (every use
// of the memref, in the kernel and around it, a read), whose address and
// conditions the body computes without memory effects.
//
//===----------------------------------------------------------------------===//

#include "PrefetchLoads.h"

#include "tile/Dialect/Tile/IR/TileTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

static constexpr llvm::StringLiteral kPrefetchMark = "tile.prefetch_loads";

void mlir::tile::gpu_lowering::markForPrefetch(scf::ForOp loop) {
  loop->setAttr(kPrefetchMark, UnitAttr::get(loop.getContext()));
}

/// Whether every use of `memref`, and of the views of it, reads it (a
/// memref.dim, or an op whose only effects on it are reads).
static bool isOnlyRead(Value memref) {
  for (OpOperand &use : memref.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::DimOp>(user))
      continue;
    if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
      if (view.getViewSource() != memref || !isOnlyRead(view->getResult(0)))
        return false;
      continue;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects)
      return false;
    SmallVector<MemoryEffects::EffectInstance> onValue;
    effects.getEffectsOnValue(memref, onValue);
    if (onValue.empty() ||
        llvm::any_of(onValue, [](const MemoryEffects::EffectInstance &e) {
          return !isa<MemoryEffects::Read>(e.getEffect());
        }))
      return false;
  }
  return true;
}

/// The global memref `load` reads, if it is one.
static Value getGlobalSource(Operation *load) {
  Value memref;
  if (auto scalar = dyn_cast<memref::LoadOp>(load))
    memref = scalar.getMemRef();
  else if (auto vector = dyn_cast<vector::LoadOp>(load))
    memref = vector.getBase();
  else
    return {};
  return isGlobalMemRef(memref.getType()) ? memref : Value();
}

namespace {
/// A load to prefetch: `unit` (the load, or the scf.if guarding it that
/// yields it), the branches around it (each scf.if and whether `unit` is
/// in its then-region), and the ops of the body it needs, in order.
struct Prefetch {
  Operation *unit;
  SmallVector<std::pair<scf::IfOp, bool>> path;
  SmallVector<Operation *> slice;
};
} // namespace

/// `load` (in `loop`) as a prefetch, or nothing where its address or path
/// cannot be computed early.
static std::optional<Prefetch> analyze(scf::ForOp loop, Operation *load) {
  Prefetch p;
  p.unit = load;
  // A bounds test around the load: scf.if (yield load) else (yield a
  // constant).
  if (auto guard = dyn_cast<scf::IfOp>(load->getParentOp());
      guard && guard.getNumResults() == 1 &&
      guard.thenYield().getOperand(0) == load->getResult(0) &&
      llvm::all_of(guard.getElseRegion().front().without_terminator(),
                   [](Operation &op) { return isPure(&op); }) &&
      llvm::all_of(guard.getThenRegion().front().without_terminator(),
                   [&](Operation &op) { return &op == load || isPure(&op); }))
    p.unit = guard;
  // Only branches between the unit and the loop's body.
  for (Operation *parent = p.unit->getParentOp(); parent != loop;
       parent = parent->getParentOp()) {
    auto branch = dyn_cast<scf::IfOp>(parent);
    if (!branch)
      return std::nullopt;
    bool inThen = branch.getThenRegion().isAncestor(
        p.unit->getParentRegion());
    p.path.push_back({branch, inThen});
  }
  // What it needs from the body: pure ops, from the induction variable and
  // values defined outside the loop.
  SetVector<Value> roots;
  for (Value operand : p.unit->getOperands())
    roots.insert(operand);
  getUsedValuesDefinedAbove(p.unit->getRegions(), roots);
  for (auto [branch, inThen] : p.path)
    roots.insert(branch.getCondition());
  llvm::SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> worklist(roots.begin(), roots.end());
  bool varies = false;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!loop->isAncestor(value.getParentRegion()->getParentOp()))
      continue; // from outside the loop
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg != loop.getInductionVar())
        return std::nullopt; // carried, or a nested loop's
      varies = true;
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getNumRegions() != 0 || !isPure(def))
      return std::nullopt;
    if (needed.insert(def).second)
      llvm::append_range(worklist, def->getOperands());
  }
  // The same in every iteration: LLVM hoists it out of the loop.
  if (!varies)
    return std::nullopt;
  loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (needed.contains(op))
      p.slice.push_back(op);
  });
  return p;
}

/// The value `p` gives at iteration `iv`, where `valid` holds and its path
/// is taken, else zeros (at `b`'s insertion point; `iv` replaces the
/// loop's induction variable `inductionVar`).
static Value buildPrefetch(OpBuilder &b, Location loc, Value inductionVar,
                           const Prefetch &p, Value iv, Value valid) {
  IRMapping mapping;
  mapping.map(inductionVar, iv);
  for (Operation *op : p.slice)
    b.clone(*op, mapping);
  for (auto [branch, inThen] : p.path) {
    Value taken = mapping.lookupOrDefault(branch.getCondition());
    if (!inThen)
      taken = arith::XOrIOp::create(
          b, loc, taken, arith::ConstantIntOp::create(b, loc, 1, 1));
    valid = arith::AndIOp::create(b, loc, valid, taken);
  }
  Type type = p.unit->getResult(0).getType();
  auto guard = scf::IfOp::create(b, loc, TypeRange{type}, valid,
                                 /*withElseRegion=*/true);
  OpBuilder inside = guard.getThenBodyBuilder();
  Operation *clone = inside.clone(*p.unit, mapping);
  scf::YieldOp::create(inside, loc, clone->getResult(0));
  inside = guard.getElseBodyBuilder();
  scf::YieldOp::create(
      inside, loc,
      arith::ConstantOp::create(inside, loc, cast<TypedAttr>(
                                                 inside.getZeroAttr(type)))
          .getResult());
  return guard.getResult(0);
}

/// The 32-bit registers the values prefetched into a loop may take in all
/// (each carried through the loop): a scale or two per row run, not a
/// scalar version's every element.
constexpr int64_t kMaxPrefetchRegisters = 8;

static void prefetchLoop(RewriterBase &rewriter, scf::ForOp loop) {
  SmallVector<Prefetch> prefetches;
  llvm::SmallPtrSet<Operation *, 8> units;
  int64_t registers = 0;
  loop.getBody()->walk([&](Operation *op) {
    Value memref = getGlobalSource(op);
    if (!memref || !isOnlyRead(memref) ||
        loop->isAncestor(memref.getParentRegion()->getParentOp()))
      return;
    std::optional<Prefetch> p = analyze(loop, op);
    if (!p || units.contains(p->unit))
      return;
    Type type = p->unit->getResult(0).getType();
    Type element = getElementTypeOrSelf(type);
    if (!element.isIntOrFloat())
      return;
    int64_t count = isa<VectorType>(type)
                        ? cast<VectorType>(type).getNumElements()
                        : 1;
    int64_t needs =
        llvm::divideCeil(count * element.getIntOrFloatBitWidth(), 32);
    if (registers + needs > kMaxPrefetchRegisters)
      return;
    registers += needs;
    units.insert(p->unit);
    prefetches.push_back(std::move(*p));
  });
  if (prefetches.empty())
    return;

  Location loc = loop.getLoc();
  Value lower = loop.getLowerBound(), upper = loop.getUpperBound(),
        step = loop.getStep();
  rewriter.setInsertionPoint(loop);
  Value any = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                    lower, upper);
  SmallVector<Value> first;
  for (const Prefetch &p : prefetches)
    first.push_back(buildPrefetch(rewriter, loc, loop.getInductionVar(), p,
                                  lower, any));

  auto next = [&](OpBuilder &b, Location l,
                  ArrayRef<BlockArgument>) -> SmallVector<Value> {
    // At the top of the body, before anything else is issued.
    Block *body = b.getInsertionBlock();
    b.setInsertionPointToStart(body);
    // The body's ops use the new loop's induction variable now.
    Value iv = body->getArgument(0);
    Value ivNext = arith::AddIOp::create(b, l, iv, step);
    Value more =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, ivNext, upper);
    SmallVector<Value> values;
    for (const Prefetch &p : prefetches)
      values.push_back(buildPrefetch(b, l, iv, p, ivNext, more));
    return values;
  };
  // The body moves into the new loop (the prefetches' ops with it).
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, first, /*replaceInitOperandUsesInLoop=*/false, next);
  if (failed(replaced))
    return;
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  ValueRange carried = newLoop.getRegionIterArgs().take_back(prefetches.size());
  for (auto [p, value] : llvm::zip(prefetches, carried)) {
    rewriter.replaceAllUsesWith(p.unit->getResult(0), value);
    rewriter.eraseOp(p.unit);
  }
}

void mlir::tile::gpu_lowering::prefetchLoads(RewriterBase &rewriter,
                                             Operation *launch) {
  SmallVector<scf::ForOp> loops;
  launch->walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kPrefetchMark))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    loop->removeAttr(kPrefetchMark);
    prefetchLoop(rewriter, loop);
  }
}
