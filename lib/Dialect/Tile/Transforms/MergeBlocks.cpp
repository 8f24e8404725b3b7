//===- MergeBlocks.cpp - tile-merge-blocks --------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Merges neighbouring blocks of a GEMM kernel's grid into one block whose
// tile is as many times wider along N (the pass's description in Passes.td
// says when and why).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/IndexShifts.h"
#include "tile/Dialect/Tile/Transforms/Transforms.h"
#include "tile/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEMERGEBLOCKS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// The gemm N a merge aims at: wgmma's widest instruction.
static constexpr int64_t kTargetN = 256;
/// The gemm M a merge aims at: two warpgroups' m64 rows, as the bench's
/// GEMM templates have.
static constexpr int64_t kTargetM = 128;

namespace {
/// How a kernel's blocks merge along one grid dim. Each buffer the body
/// writes is either the same in every merged block (no dim) or widened
/// along one dim; each tile.parallel runs as written or widened along one
/// of its dims.
struct BlockMergePlan {
  unsigned gridDim = 0;
  llvm::MapVector<Value, std::optional<unsigned>> buffers;
  SmallVector<std::pair<ParallelOp, unsigned>> parallels;
  GemmOp gemm;
  /// The gemm widens along N (B and C's columns), else along M (A and C's
  /// rows).
  bool widensN = true;
};

/// Walks a kernel's body in order and classifies what it writes (see
/// BlockMergePlan); fails on anything the merged body would not compute as
/// the blocks did.
class BlockMergeAnalysis {
public:
  BlockMergeAnalysis(KernelOp kernel, unsigned gridDim)
      : kernel(kernel), blockId(kernel.getBlockIds()[gridDim]) {
    plan.gridDim = gridDim;
  }

  FailureOr<BlockMergePlan> run() {
    if (failed(visit(kernel.getBody().front())) || !plan.gemm)
      return failure();
    return std::move(plan);
  }

private:
  /// A buffer of the kernel's own that may widen.
  static bool isLocalBuffer(Value buffer) {
    Operation *def = buffer.getDefiningOp();
    if (auto alloc = dyn_cast_if_present<AllocSharedOp>(def))
      return !alloc.getLayoutAttr();
    if (auto fragment = dyn_cast_if_present<FragmentOp>(def))
      return !fragment.getLayoutAttr() && !fragment.getReducerAttr();
    return false;
  }

  static int64_t getExtent(Value buffer, unsigned dim) {
    return cast<ShapedType>(buffer.getType()).getDimSize(dim);
  }

  /// The class `buffer` has so far: none where it is not written yet (or
  /// not one of the kernel's).
  std::optional<std::optional<unsigned>> lookup(Value buffer) {
    auto it = plan.buffers.find(buffer);
    if (it == plan.buffers.end())
      return std::nullopt;
    return it->second;
  }

  /// Records that a write makes `buffer` of class `dim`; fails where it was
  /// of another.
  LogicalResult classify(Value buffer, std::optional<unsigned> dim) {
    if (!isLocalBuffer(buffer))
      return failure();
    auto [it, inserted] = plan.buffers.insert({buffer, dim});
    return success(inserted || it->second == dim);
  }

  /// The shift an index into `buffer` along `dim` needs: a widened
  /// buffer's extent along its dim, 0 elsewhere and into global memory the
  /// blocks share.
  std::optional<int64_t> accessShift(Value buffer, unsigned dim,
                                     IndexShifts &shifts) {
    if (std::optional<std::optional<unsigned>> cls = lookup(buffer)) {
      if (*cls && **cls == dim)
        return getExtent(buffer, dim);
      return 0;
    }
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (type && !type.getMemorySpace() && shifts.get(buffer) == 0)
      return 0;
    return std::nullopt;
  }

  /// Shifts with the block index (and `extra`) seeded.
  std::unique_ptr<IndexShifts>
  makeShifts(std::optional<std::pair<Value, int64_t>> extra = std::nullopt) {
    SmallVector<std::pair<Value, int64_t>> seeds = {{blockId, -1}};
    if (extra)
      seeds.push_back(*extra);
    // Only the analysis in use (`current`) is ever asked.
    return std::make_unique<IndexShifts>(
        kernel.getBody(), seeds, [this](Value buffer, unsigned dim) {
          return accessShift(buffer, dim, *current);
        });
  }

  /// The dim along which a tile at `offsets` moves with the block index by
  /// its extent (none where it does not move); fails where it moves
  /// otherwise.
  FailureOr<std::optional<unsigned>>
  getMovingDim(Value tile, ArrayRef<OpFoldResult> offsets) {
    std::optional<unsigned> moving;
    for (auto [dim, offset] : llvm::enumerate(offsets)) {
      std::optional<int64_t> shift = 0;
      if (auto value = dyn_cast<Value>(offset))
        shift = current->get(value);
      if (!shift)
        return failure();
      if (*shift == 0)
        continue;
      if (moving || *shift != -getExtent(tile, dim))
        return failure();
      moving = dim;
    }
    return moving;
  }

  LogicalResult visit(Block &block) {
    for (Operation &op : block)
      if (failed(visit(&op)))
        return failure();
    return success();
  }

  LogicalResult visit(Operation *op) {
    if (isa<AllocSharedOp, FragmentOp>(op))
      return success();
    if (auto fill = dyn_cast<FillOp>(op))
      return success(isLocalBuffer(fill.getDest()) &&
                     current->get(fill.getValue()) == 0);
    if (auto copy = dyn_cast<CopyOp>(op))
      return visitCopy(copy);
    if (auto add = dyn_cast<AtomicAddOp>(op)) {
      // Every block adds its own tile: the source must widen with it.
      std::optional<std::optional<unsigned>> cls = lookup(add.getSource());
      FailureOr<std::optional<unsigned>> moving =
          getMovingDim(add.getSource(), add.getMixedOffsets());
      return success(cls && *cls && succeeded(moving) && *moving == *cls &&
                     current->get(add.getDest()) == 0);
    }
    if (auto gemm = dyn_cast<GemmOp>(op))
      return visitGemm(gemm);
    // Tables read on the device (a grouped GEMM's tile plan): their values
    // are checked where they are used.
    if (isa<memref::LoadOp>(op))
      return success();
    if (auto parallel = dyn_cast<ParallelOp>(op))
      return visitParallel(parallel);
    if (auto loop = dyn_cast<PipelinedOp>(op)) {
      for (Value bound : {loop.getLower(), loop.getUpper(), loop.getStep()})
        if (current->get(bound) != 0)
          return failure();
      return visit(loop.getBody().front());
    }
    return success(op->hasTrait<OpTrait::IsTerminator>() ||
                   (isPure(op) && op->getNumRegions() == 0));
  }

  LogicalResult visitCopy(CopyOp copy) {
    Value global = copy.getGlobal();
    if (!global) {
      std::optional<std::optional<unsigned>> cls = lookup(copy.getSource());
      return success(cls && succeeded(classify(copy.getDest(), *cls)));
    }
    if (current->get(global) != 0)
      return failure();
    Value tile = copy.getTile();
    FailureOr<std::optional<unsigned>> moving =
        getMovingDim(tile, copy.getMixedOffsets());
    if (failed(moving))
      return failure();
    if (global == copy.getSource())
      return classify(tile, *moving);
    // A tile the blocks share is stored once, with the same elements.
    std::optional<std::optional<unsigned>> cls = lookup(tile);
    return success(cls && *cls == *moving);
  }

  LogicalResult visitGemm(GemmOp gemm) {
    if (plan.gemm)
      return failure();
    plan.gemm = gemm;
    std::optional<std::optional<unsigned>> a = lookup(gemm.getA());
    std::optional<std::optional<unsigned>> b = lookup(gemm.getB());
    if (!a || !b)
      return failure();
    // One operand the same in every merged block, the other widened along
    // M (op(A) is M x K) or N (op(B) is K x N), and C with it.
    unsigned mDim = gemm.getTransposeA() ? 1 : 0;
    unsigned nDim = gemm.getTransposeB() ? 0 : 1;
    if (!*a && *b == nDim) {
      plan.widensN = true;
      return classify(gemm.getC(), 1u);
    }
    if (*a == mDim && !*b) {
      plan.widensN = false;
      return classify(gemm.getC(), 0u);
    }
    return failure();
  }

  /// Whether `parallel`'s body, widened along `dim` (or not), does what the
  /// blocks did; records the classes its stores give.
  LogicalResult visitParallel(ParallelOp parallel) {
    if (parallel.getLayoutAttr())
      return failure();
    SmallVector<std::optional<unsigned>> candidates = {std::nullopt};
    for (unsigned d = 0, e = parallel.getShape().size(); d < e; ++d)
      candidates.push_back(d);
    for (std::optional<unsigned> dim : candidates) {
      auto saved = plan.buffers;
      if (succeeded(tryParallel(parallel, dim))) {
        if (dim)
          plan.parallels.push_back({parallel, *dim});
        return success();
      }
      plan.buffers = std::move(saved);
    }
    return failure();
  }

  LogicalResult tryParallel(ParallelOp parallel, std::optional<unsigned> dim) {
    std::optional<std::pair<Value, int64_t>> seed;
    if (dim)
      seed = {parallel.getInductionVars()[*dim], parallel.getShape()[*dim]};
    IndexShifts *outer = current;
    std::unique_ptr<IndexShifts> shifts = makeShifts(seed);
    current = shifts.get();
    WalkResult result = parallel.getBody().walk([&](Operation *op) {
      bool ok;
      if (auto load = dyn_cast<LoadOp>(op)) {
        ok = current->get(load.getResult()).has_value();
      } else if (auto store = dyn_cast<StoreOp>(op)) {
        ok = current->get(store.getValue()) == 0 &&
             succeeded(visitStore(store.getBuffer(), store.getIndices()));
      } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
        ok = current->get(load.getResult()).has_value();
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        // Every merged block takes the branch its element's block took.
        ok = branch.getNumResults() == 0 &&
             current->get(branch.getCondition()) == 0;
      } else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op)) {
        // Each block adds its own elements: only a widened loop adds for
        // all of them.
        ok = dim && atomic.getResult().use_empty() &&
             current->get(atomic.getValue()) == 0 &&
             current->get(atomic.getMemref()) == 0 &&
             !atomic.getMemRefType().getMemorySpace() &&
             current->indicesMatch(atomic.getMemref(), atomic.getIndices());
      } else {
        ok = op->hasTrait<OpTrait::IsTerminator>() ||
             (isPure(op) && op->getNumRegions() == 0);
      }
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    });
    current = outer;
    return failure(result.wasInterrupted());
  }

  /// A store's indices: into a buffer already classified, as its class
  /// says; into one not yet written, they give its class.
  LogicalResult visitStore(Value buffer, ValueRange indices) {
    if (lookup(buffer) || !isLocalBuffer(buffer))
      return success(current->indicesMatch(buffer, indices));
    std::optional<unsigned> widened;
    for (auto [dim, index] : llvm::enumerate(indices)) {
      std::optional<int64_t> shift = current->get(index);
      if (!shift)
        return failure();
      if (*shift == 0)
        continue;
      if (widened || *shift != getExtent(buffer, dim))
        return failure();
      widened = dim;
    }
    return classify(buffer, widened);
  }

  KernelOp kernel;
  Value blockId;
  BlockMergePlan plan;
  std::unique_ptr<IndexShifts> outermost = makeShifts();
  IndexShifts *current = outermost.get();
};
} // namespace

/// `buffer`'s type `factor` times as wide along `dim`.
static Type widenType(Value buffer, unsigned dim, int64_t factor) {
  auto type = cast<ShapedType>(buffer.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] *= factor;
  if (auto memref = dyn_cast<MemRefType>(type))
    return MemRefType::Builder(memref).setShape(shape);
  return type.cloneWith(shape, type.getElementType());
}

/// The shared memory `kernel`'s buffers take, each times its loop's stages
/// (`stages` for the gemm's loop), with `plan`'s buffers `factor` times as
/// wide.
static int64_t getSharedBytes(KernelOp kernel, const BlockMergePlan &plan,
                              int64_t factor, int64_t stages) {
  auto gemmLoop = dyn_cast<PipelinedOp>(plan.gemm->getParentOp());
  int64_t total = 0;
  kernel.walk([&](AllocSharedOp alloc) {
    MemRefType type = alloc.getType();
    int64_t bytes = llvm::divideCeil(
        type.getNumElements() * type.getElementTypeBitWidth(), 8);
    auto it = plan.buffers.find(alloc.getResult());
    if (it != plan.buffers.end() && it->second)
      bytes *= factor;
    if (PipelinedOp loop = getFillingLoop(alloc))
      bytes *=
          loop == gemmLoop ? stages : std::max<int64_t>(1, loop.getNumStages());
    total += bytes;
  });
  return total;
}

/// The 32-bit registers `kernel`'s fragments take in all, with `plan`'s
/// `factor` times as wide.
static int64_t getFragmentRegisters(KernelOp kernel, const BlockMergePlan &plan,
                                    int64_t factor) {
  return getFragmentRegisters(kernel, [&](FragmentOp op) -> int64_t {
    auto it = plan.buffers.find(op.getResult());
    return it != plan.buffers.end() && it->second ? factor : 1;
  });
}

/// Rewrites `kernel` by `plan`, `factor` blocks into one, its gemm's loop
/// at `stages`.
static void merge(RewriterBase &rewriter, KernelOp kernel,
                  const BlockMergePlan &plan, int64_t factor, int64_t stages) {
  Location loc = kernel.getLoc();
  SmallVector<int64_t> grid(kernel.getStaticGrid());
  if (!ShapedType::isDynamic(grid[plan.gridDim])) {
    grid[plan.gridDim] /= factor;
    rewriter.modifyOpInPlace(kernel, [&] { kernel.setStaticGrid(grid); });
  } else {
    // The launch divides the extent (which the caller made sure `factor`
    // divides).
    unsigned operand = llvm::count_if(
        ArrayRef<int64_t>(grid).take_front(plan.gridDim),
        [](int64_t extent) { return ShapedType::isDynamic(extent); });
    OpOperand &extent = kernel.getDynamicGridMutable()[operand];
    rewriter.setInsertionPoint(kernel);
    Value divisor = arith::ConstantIndexOp::create(rewriter, loc, factor);
    Value merged = arith::DivUIOp::create(rewriter, loc, extent.get(), divisor);
    rewriter.modifyOpInPlace(kernel, [&] { extent.set(merged); });
  }
  // The body sees the first merged block's index.
  Value blockId = kernel.getBlockIds()[plan.gridDim];
  rewriter.setInsertionPointToStart(&kernel.getBody().front());
  Value factorValue = arith::ConstantIndexOp::create(rewriter, loc, factor);
  auto first = arith::MulIOp::create(rewriter, loc, blockId, factorValue);
  rewriter.replaceAllUsesExcept(blockId, first, first);
  for (const auto &entry : plan.buffers) {
    Value buffer = entry.first;
    if (!entry.second)
      continue;
    Type type = widenType(buffer, *entry.second, factor);
    rewriter.modifyOpInPlace(buffer.getDefiningOp(),
                             [&] { buffer.setType(type); });
  }
  for (const auto &entry : plan.parallels) {
    ParallelOp parallel = entry.first;
    SmallVector<int64_t> shape(parallel.getShape());
    shape[entry.second] *= factor;
    rewriter.modifyOpInPlace(parallel, [&] { parallel.setShape(shape); });
  }
  if (auto loop = dyn_cast<PipelinedOp>(plan.gemm->getParentOp());
      loop && static_cast<int64_t>(loop.getNumStages()) != stages)
    rewriter.modifyOpInPlace(loop, [&] {
      loop.setNumStagesAttr(rewriter.getI64IntegerAttr(stages));
    });
}

/// How many blocks `plan` merges: enough to make the gemm's N (or M) the
/// target's, fewer where they do not divide the grid's static `extent`; 1
/// for none.
static int64_t getFactor(const BlockMergePlan &plan, int64_t extent) {
  GemmOp gemm = plan.gemm;
  int64_t size = plan.widensN ? gemm.getN() : gemm.getM();
  int64_t goal = plan.widensN ? kTargetN : kTargetM;
  if (size <= 0 || size >= goal || goal % size != 0)
    return 1;
  int64_t factor = goal / size;
  while (factor >= 2 && !ShapedType::isDynamic(extent) && extent % factor != 0)
    factor /= 2;
  return std::max<int64_t>(factor, 1);
}

/// Whether `plan`'s buffers and fragments, `factor` times as wide, fit
/// `target`; sets `stages` to the gemm loop's stages they fit at.
static bool fits(KernelOp kernel, const BlockMergePlan &plan, int64_t factor,
                 const TargetInfo &target, int64_t &stages) {
  int64_t threads = std::max<int64_t>(kernel.getThreadsAttr().getInt(), 256);
  int64_t registers = getFragmentRegisters(kernel, plan, factor);
  if (llvm::divideCeilSigned(registers, threads) >
      target.registersPerThread * 3 / 4)
    return false;
  int64_t budget = target.sharedMemoryBytes - kSharedMemoryReserve;
  while (stages > 2 && getSharedBytes(kernel, plan, factor, stages) > budget)
    --stages;
  return getSharedBytes(kernel, plan, factor, stages) <= budget;
}

/// Where `kernel`'s grid has extents known only at run time: runs a merged
/// copy of it when the grid has at least `minBlocks` blocks once merged and
/// `factor` divides the merged dim, `kernel` as written otherwise
/// (`scf.if` on the host). Returns the copy.
static KernelOp cloneUnderCondition(RewriterBase &rewriter, KernelOp kernel,
                                    unsigned gridDim, int64_t factor,
                                    int64_t minBlocks) {
  Location loc = kernel.getLoc();
  rewriter.setInsertionPoint(kernel);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  int64_t known = 1;
  for (int64_t extent : kernel.getStaticGrid())
    if (!ShapedType::isDynamic(extent))
      known *= extent;
  Value blocks = index(known);
  for (Value extent : kernel.getDynamicGrid())
    blocks = arith::MulIOp::create(rewriter, loc, blocks, extent);
  Value condition =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, blocks,
                            index(minBlocks * factor));
  if (ShapedType::isDynamic(kernel.getStaticGrid()[gridDim])) {
    OpFoldResult extent = kernel.getMixedGrid()[gridDim];
    Value remainder = arith::RemUIOp::create(rewriter, loc, cast<Value>(extent),
                                             index(factor));
    Value divides = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, remainder, index(0));
    condition = arith::AndIOp::create(rewriter, loc, condition, divides);
  }
  auto branch = scf::IfOp::create(rewriter, loc, condition,
                                  /*withElseRegion=*/true);
  rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
  auto copy = cast<KernelOp>(rewriter.clone(*kernel));
  rewriter.moveOpBefore(kernel, branch.elseBlock()->getTerminator());
  return copy;
}

/// Merges `kernel`'s blocks along one grid dim, one that widens the gemm
/// along N where there is one. Returns the kernel merged (`kernel`, or a
/// copy that runs where the grid is big enough), none where it merged none.
static KernelOp mergeOnce(RewriterBase &rewriter, KernelOp kernel,
                          int64_t minBlocks, const TargetInfo *target) {
  ArrayRef<int64_t> grid = kernel.getStaticGrid();
  bool dynamic = llvm::any_of(
      grid, [](int64_t extent) { return ShapedType::isDynamic(extent); });
  int64_t blocks = 1;
  for (int64_t extent : grid)
    if (!ShapedType::isDynamic(extent))
      blocks *= extent;
  for (bool alongN : {true, false}) {
    for (unsigned dim = 0, e = grid.size(); dim < e; ++dim) {
      FailureOr<BlockMergePlan> plan = BlockMergeAnalysis(kernel, dim).run();
      if (failed(plan) || plan->widensN != alongN)
        continue;
      int64_t factor = getFactor(*plan, grid[dim]);
      if (factor < 2 || (!dynamic && blocks / factor < minBlocks))
        continue;
      auto loop = dyn_cast<PipelinedOp>(plan->gemm->getParentOp());
      int64_t stages = loop ? loop.getNumStages() : 1;
      if (target && !fits(kernel, *plan, factor, *target, stages))
        continue;
      if (!dynamic) {
        merge(rewriter, kernel, *plan, factor, stages);
        return kernel;
      }
      KernelOp copy =
          cloneUnderCondition(rewriter, kernel, dim, factor, minBlocks);
      FailureOr<BlockMergePlan> copyPlan = BlockMergeAnalysis(copy, dim).run();
      assert(succeeded(copyPlan) && "a copy merges as its original");
      merge(rewriter, copy, *copyPlan, factor, stages);
      return copy;
    }
  }
  return {};
}

bool mlir::tile::mergeBlocks(RewriterBase &rewriter, KernelOp kernel,
                             int64_t minBlocks, const TargetInfo *target) {
  if (kernel.getPersistent() || kernel.getRasterAttr() ||
      kernel.getSpecialize())
    return false;
  if (namesThreads(kernel))
    return false;
  // Along N first, then along M (64-row tiles): each merge brings one to
  // its goal.
  bool changed = false;
  for (int round = 0; round < 2 && kernel; ++round) {
    kernel = mergeOnce(rewriter, kernel, minBlocks, target);
    changed |= static_cast<bool>(kernel);
  }
  return changed;
}

namespace {
struct TileMergeBlocksPass
    : public tile::impl::TileMergeBlocksBase<TileMergeBlocksPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](KernelOp kernel) {
      std::optional<TargetInfo> target;
      if (TargetAttr attr = findTargetAttr(kernel)) {
        target = attr.getInfo();
        if (!target->hasWgmma())
          return;
      }
      mergeBlocks(rewriter, kernel, minBlocks, target ? &*target : nullptr);
    });
  }
};
} // namespace
