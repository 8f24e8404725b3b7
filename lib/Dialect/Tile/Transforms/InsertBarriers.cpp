//===- InsertBarriers.cpp - tile-insert-barriers --------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Barriers for kernels whose threads differ (they read tile.thread_id): which
// values differ between threads (ThreadVariance), the checks that tile ops
// see none of them, and the barriers between conflicting accesses to shared
// buffers.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Transforms.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

//===----------------------------------------------------------------------===//
// Which values differ between threads
//===----------------------------------------------------------------------===//

Operation *getDivergentAncestor(Operation *op,
                                const class ThreadVariance &variance);

/// The values of a kernel that may differ between its threads: thread
/// indices, what is computed from them, what a thread reads from its own
/// memory (a memref.alloca) where some thread may have written it
/// differently, what an atomic returns, loop variables and results of loops
/// and branches that such values control. A thread's own variable that
/// every thread writes alike (values and indices the same in each, not
/// under control flow that differs, not in a tile.parallel, whose
/// iterations are spread over the threads) reads the same in each: a
/// uniform counter.
class ThreadVariance {
public:
  explicit ThreadVariance(KernelOp kernel) : kernel(kernel) {
    // Loops carry values around: repeat until nothing changes.
    bool changed = true;
    while (changed) {
      changed = false;
      kernel.walk([&](Operation *op) { changed |= visit(op); });
    }
  }

  bool isVarying(Value value) const { return varying.contains(value); }

  bool anyVarying(ValueRange values) const {
    return llvm::any_of(values, [&](Value v) { return isVarying(v); });
  }

private:
  bool mark(Value value) { return varying.insert(value).second; }
  bool markAll(ValueRange values) {
    bool changed = false;
    for (Value v : values)
      changed |= mark(v);
    return changed;
  }

public:
  /// Whether `op` loads from a thread's own variable that threads may have
  /// written differently.
  bool readsVaryingPrivateMemory(Operation *op) const {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load)
      return false;
    auto alloca =
        getViewRoot(load.getMemRef()).getDefiningOp<memref::AllocaOp>();
    return alloca && varyingAllocas.contains(alloca);
  }

private:
  /// Whether some thread may write `alloca` differently from another: a
  /// store of a varying value or at a varying index, a store in a
  /// tile.parallel or under divergent control flow, or any use other than
  /// loads, stores and views.
  bool isWrittenDifferently(memref::AllocaOp alloca) const {
    if (!kernel->isAncestor(alloca))
      return true;
    SmallVector<Value> worklist{alloca.getResult()};
    while (!worklist.empty()) {
      Value memory = worklist.pop_back_val();
      for (Operation *user : memory.getUsers()) {
        if (isa<memref::LoadOp>(user))
          continue;
        if (auto store = dyn_cast<memref::StoreOp>(user)) {
          if (store.getMemRef() != memory || isVarying(store.getValue()) ||
              anyVarying(store.getIndices()) ||
              user->getParentOfType<ParallelOp>() ||
              user->getParentOfType<ThreadRangeOp>() ||
              getDivergentAncestor(user, *this))
            return true;
          continue;
        }
        if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1 &&
            getViewRoot(user->getResult(0)) == alloca.getResult()) {
          worklist.push_back(user->getResult(0));
          continue;
        }
        return true;
      }
    }
    return false;
  }

  bool visit(Operation *op) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(op))
      return !varyingAllocas.contains(alloca) && isWrittenDifferently(alloca)
                 ? varyingAllocas.insert(alloca).second
                 : false;
    if (isa<ThreadIdOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(op) ||
        readsVaryingPrivateMemory(op))
      return markAll(op->getResults());
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      bool changed = false;
      if (anyVarying(
              {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})) {
        changed |= mark(loop.getInductionVar());
        changed |= markAll(loop.getRegionIterArgs());
        changed |= markAll(loop.getResults());
      }
      Operation *yield = loop.getBody()->getTerminator();
      for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
        if (isVarying(init) || isVarying(yield->getOperand(i))) {
          changed |= mark(loop.getRegionIterArgs()[i]);
          changed |= mark(loop.getResult(i));
        }
      return changed;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (isVarying(branch.getCondition()))
        return markAll(branch.getResults());
      bool changed = false;
      for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()})
        if (!region->empty())
          for (auto [i, yielded] :
               llvm::enumerate(region->front().getTerminator()->getOperands()))
            if (isVarying(yielded))
              changed |= mark(branch.getResult(i));
      return changed;
    }
    if (auto loop = dyn_cast<PipelinedOp>(op)) {
      if (anyVarying({loop.getLower(), loop.getUpper(), loop.getStep()}))
        return mark(loop.getBody().front().getArgument(0));
      return false;
    }
    if (op->getNumRegions() != 0 && !isa<ParallelOp, KernelOp>(op)) {
      // Other control flow (scf.while, ...): all it defines may differ.
      bool changed = markAll(op->getResults());
      for (Region &region : op->getRegions())
        for (Block &block : region)
          changed |= markAll(block.getArguments());
      return changed;
    }
    if (anyVarying(op->getOperands()))
      return markAll(op->getResults());
    return false;
  }

  KernelOp kernel;
  llvm::DenseSet<Value> varying;
  llvm::DenseSet<Operation *> varyingAllocas;
};

/// Whether `op`'s region runs in some threads and not others (or a
/// different number of times): a branch or a loop that varying values
/// control, or control flow this pass does not follow.
bool isDivergent(Operation *op, const ThreadVariance &variance);

/// The innermost op of `op`'s kernel around `op` whose region runs
/// differently in different threads, if any. A tile.thread_range is where
/// the search stops: its threads are the block of the tile ops in it.
Operation *getDivergentAncestor(Operation *op, const ThreadVariance &variance) {
  for (Operation *parent = op->getParentOp();
       !isa<KernelOp, ThreadRangeOp>(parent); parent = parent->getParentOp())
    if (isDivergent(parent, variance))
      return parent;
  return nullptr;
}

bool isDivergent(Operation *op, const ThreadVariance &variance) {
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return variance.isVarying(branch.getCondition());
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return variance.anyVarying(
        {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
  if (auto loop = dyn_cast<PipelinedOp>(op))
    return variance.anyVarying(
        {loop.getLower(), loop.getUpper(), loop.getStep()});
  return op->getNumRegions() != 0 &&
         !isa<ParallelOp, KernelOp, ThreadRangeOp>(op);
}

/// Whether `op` is a tile op that the whole block runs together.
bool isCollective(Operation *op) {
  return op->hasTrait<BlockLevel>() &&
         !isa<ThreadIdOp, AllocSharedOp, FragmentOp, AllocBarrierOp>(op);
}

/// The located errors for tile ops that would see threads differ.
LogicalResult checkCollectives(KernelOp kernel,
                               const ThreadVariance &variance) {
  WalkResult result = kernel.walk([&](Operation *op) {
    if (auto loop = dyn_cast<ParallelOp>(op)) {
      WalkResult inner = loop.getBody().walk([&](Operation *nested) {
        // A thread's own variable that threads wrote differently, read in
        // the body, is such a value too.
        bool readsVarying =
            variance.readsVaryingPrivateMemory(nested) &&
            !loop->isAncestor(
                getViewRoot(nested->getOperand(0)).getDefiningOp());
        for (Value operand : nested->getOperands())
          if (readsVarying ||
              (variance.isVarying(operand) &&
               !loop->isAncestor(operand.getParentRegion()->getParentOp()))) {
            nested->emitOpError("uses a value that depends on a thread index "
                                "in a 'tile.parallel' body, whose iterations "
                                "the compiler assigns to threads");
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
      if (inner.wasInterrupted())
        return WalkResult::interrupt();
    }
    if (!isCollective(op))
      return WalkResult::advance();
    for (OpOperand &operand : op->getOpOperands())
      if (variance.isVarying(operand.get())) {
        op->emitOpError("operand #")
            << operand.getOperandNumber()
            << " depends on a thread index: a tile op runs in all threads "
               "together and needs the same operands in each";
        return WalkResult::interrupt();
      }
    if (Operation *parent = getDivergentAncestor(op, variance)) {
      InFlightDiagnostic diag =
          op->emitOpError("is under control flow that differs between "
                          "threads: every thread must reach it");
      diag.attachNote(parent->getLoc()) << "the control flow is here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Accesses to shared memory
//===----------------------------------------------------------------------===//

using BufferSet = llvm::SmallDenseSet<Value, 4>;

/// The shared buffers accessed since the last barrier, by kind of access.
struct Accesses {
  BufferSet reads, writes, atomics;

  bool empty() const {
    return reads.empty() && writes.empty() && atomics.empty();
  }
  void clear() { *this = Accesses(); }
  void add(const Accesses &other) {
    reads.insert(other.reads.begin(), other.reads.end());
    writes.insert(other.writes.begin(), other.writes.end());
    atomics.insert(other.atomics.begin(), other.atomics.end());
  }
  bool operator==(const Accesses &other) const {
    return reads == other.reads && writes == other.writes &&
           atomics == other.atomics;
  }

  /// Whether `later`, by another thread after these, needs a barrier.
  bool conflictsWith(const Accesses &later) const {
    auto meets = [](const BufferSet &a,
                    std::initializer_list<const BufferSet *> others) {
      return llvm::any_of(a, [&](Value v) {
        return llvm::any_of(others,
                            [&](const BufferSet *s) { return s->contains(v); });
      });
    };
    return meets(later.reads, {&writes, &atomics}) ||
           meets(later.writes, {&reads, &writes, &atomics}) ||
           meets(later.atomics, {&reads, &writes});
  }
};

bool isShared(Value memory) {
  auto type = dyn_cast<MemRefType>(memory.getType());
  auto space =
      type ? dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace())
           : nullptr;
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// The accesses to shared buffers of `op` and the ops nested in it.
Accesses collectAccesses(Operation *op) {
  Accesses accesses;
  op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects)
      return;
    bool atomic = isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(nested);
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value memory = effect.getValue();
      if (!memory || !isShared(memory))
        continue;
      Value buffer = getViewRoot(memory);
      if (atomic)
        accesses.atomics.insert(buffer);
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        accesses.writes.insert(buffer);
      else if (isa<MemoryEffects::Read>(effect.getEffect()))
        accesses.reads.insert(buffer);
    }
  });
  return accesses;
}

/// Walks a block in program order with the accesses made since the last
/// barrier, placing a barrier (with `insert`; else only as if) before each
/// access that conflicts with them.
class BarrierPlacer {
public:
  explicit BarrierPlacer(const ThreadVariance &variance) : variance(variance) {}

  void place(Block &block, Accesses &pending, bool insert) {
    for (Operation &op : block) {
      if (isa<BarrierOp>(op)) {
        pending.clear();
        continue;
      }
      Accesses accesses = collectAccesses(&op);
      if (accesses.empty())
        continue;
      if (!isDivergent(&op, variance) && placeInRegions(op, pending, insert))
        continue;
      if (pending.conflictsWith(accesses)) {
        if (insert) {
          OpBuilder b(&op);
          BarrierOp::create(b, op.getLoc());
        }
        pending.clear();
      }
      pending.add(accesses);
    }
  }

private:
  /// Places barriers inside `op`'s regions, where every thread runs them
  /// alike; false for an op whose regions are not followed (its accesses
  /// then count as one).
  bool placeInRegions(Operation &op, Accesses &pending, bool insert) {
    if (auto range = dyn_cast<ThreadRangeOp>(op)) {
      // Its barriers are its threads'; what it shares with the code around
      // it and with other ranges, the kernel's own barriers order.
      Accesses inner;
      place(range.getBody().front(), inner, insert);
      return true;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      Accesses taken = pending;
      place(*branch.thenBlock(), taken, insert);
      Accesses other = pending;
      if (branch.elseBlock())
        place(*branch.elseBlock(), other, insert);
      pending = taken;
      pending.add(other);
      return true;
    }
    if (isa<scf::ForOp, PipelinedOp>(op)) {
      // What an iteration leaves pending meets the next one: iterate to the
      // fixed point before placing.
      Block &body = op.getRegion(0).front();
      Accesses entry = pending;
      while (true) {
        Accesses end = entry;
        place(body, end, /*insert=*/false);
        end.add(pending);
        if (end == entry)
          break;
        entry = end;
      }
      Accesses end = entry;
      place(body, end, insert);
      // None or some iterations ran.
      pending.add(end);
      return true;
    }
    return false;
  }

  const ThreadVariance &variance;
};

} // namespace

LogicalResult mlir::tile::insertBarriers(KernelOp kernel) {
  bool readsThreads =
      kernel.walk([](ThreadIdOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (!readsThreads)
    return success();
  ThreadVariance variance(kernel);
  if (failed(checkCollectives(kernel, variance)))
    return failure();
  Accesses pending;
  BarrierPlacer(variance).place(kernel.getBody().front(), pending,
                                /*insert=*/true);
  return success();
}

namespace {
struct TileInsertBarriersPass
    : public tile::impl::TileInsertBarriersBase<TileInsertBarriersPass> {
  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    for (KernelOp kernel : kernels)
      if (failed(insertBarriers(kernel)))
        signalPassFailure();
  }
};
} // namespace
