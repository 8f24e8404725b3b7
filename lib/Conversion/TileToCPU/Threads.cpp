//===- Threads.cpp - A block's threads as an OpenMP team ------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Threads.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

/// Whether the team runs `op` in its first thread alone: a tile op that the
/// block runs together (buffers are made before the team starts, and a
/// pipelined loop runs in every thread, its tile ops one by one), or a
/// print of a buffer by one thread.
static bool isCollective(Operation &op) {
  if (auto print = dyn_cast<PrintOp>(op))
    return print.isPrintedByOneThread();
  return op.hasTrait<BlockLevel>() &&
         !isa<AllocSharedOp, FragmentOp, PipelinedOp, ThreadRangeOp,
              AllocBarrierOp>(op);
}

namespace {
/// The thread ops and the collective ops of a kernel, in program order,
/// each with the tile.thread_range it is in (null: the whole team's).
struct ThreadOps {
  SmallVector<std::pair<Operation *, ThreadRangeOp>> threadOps, collectives;
  SmallVector<ThreadRangeOp> ranges;
  SmallVector<AllocBarrierOp> barrierGroups;

  void collect(Block &block, ThreadRangeOp range) {
    for (Operation &op : block) {
      if (auto nested = dyn_cast<ThreadRangeOp>(op)) {
        ranges.push_back(nested);
        collect(nested.getBody().front(), nested);
        continue;
      }
      if (auto group = dyn_cast<AllocBarrierOp>(op)) {
        barrierGroups.push_back(group);
        continue;
      }
      if (isa<ThreadIdOp, BarrierOp, BarrierArriveOp, BarrierWaitOp>(op)) {
        threadOps.push_back({&op, range});
        continue;
      }
      if (isCollective(op)) {
        collectives.push_back({&op, range});
        continue;
      }
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          collect(nested, range);
    }
  }
};

/// Lowers the thread ops of one kernel, whose team runs its body.
class TeamLowering {
public:
  TeamLowering(KernelOp kernel, Value thread, RewriterBase &rewriter)
      : kernel(kernel), thread(thread), rewriter(rewriter) {}

  void run();

private:
  /// memref<count x i64> made before the loop over blocks, whose team
  /// shares it.
  Value allocateWords(Location loc, int64_t count);
  /// The team's first thread stores `words` (i64) from word 0 of `state`,
  /// then the team waits for it.
  void initialize(Location loc, Value state, ArrayRef<int64_t> words);
  /// Gives the processor to another thread (sched_yield), in spin loops.
  void pause(OpBuilder &b, Location loc);
  /// Waits for the threads of `range` (the team where null).
  void synchronize(Location loc, ThreadRangeOp range);
  /// Whether the running thread is the first of `range`.
  Value isFirst(Location loc, ThreadRangeOp range);

  KernelOp kernel;
  Value thread;
  RewriterBase &rewriter;
  /// Barrier words of the thread ranges (one per distinct range).
  Value rangeState;
  std::map<std::pair<int64_t, int64_t>, int64_t> rangeWords;
  /// The words of each tile.alloc_barrier: states, then arrival counts.
  llvm::DenseMap<Value, Value> groupStates;
};
} // namespace

Value TeamLowering::allocateWords(Location loc, int64_t count) {
  OpBuilder::InsertionGuard guard(rewriter);
  auto team = thread.getDefiningOp()->getParentOfType<omp::ParallelOp>();
  rewriter.setInsertionPoint(team->getParentOp());
  return memref::AllocaOp::create(
      rewriter, loc, MemRefType::get({count}, rewriter.getI64Type()));
}

void TeamLowering::initialize(Location loc, Value state,
                              ArrayRef<int64_t> words) {
  auto masked = omp::MaskedOp::create(rewriter, loc, Value());
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.createBlock(&masked.getRegion());
    for (auto [i, word] : llvm::enumerate(words))
      memref::StoreOp::create(
          rewriter, loc,
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                       word),
          state, ValueRange{arith::ConstantIndexOp::create(rewriter, loc, i)});
    omp::TerminatorOp::create(rewriter, loc);
  }
  omp::BarrierOp::create(rewriter, loc);
}

void TeamLowering::pause(OpBuilder &b, Location loc) {
  auto module = kernel->getParentOfType<ModuleOp>();
  StringRef name = "sched_yield";
  if (!module.lookupSymbol<func::FuncOp>(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    func::FuncOp::create(b, module.getLoc(), name,
                         b.getFunctionType({}, {b.getI32Type()}))
        .setPrivate();
  }
  func::CallOp::create(b, loc, name, TypeRange{b.getI32Type()}, ValueRange());
}

void TeamLowering::synchronize(Location loc, ThreadRangeOp range) {
  if (!range) {
    omp::BarrierOp::create(rewriter, loc);
    return;
  }
  Value word = arith::ConstantIndexOp::create(
      rewriter, loc, rangeWords.at({range.getBegin(), range.getEnd()}));
  buildMemoryBarrierSync(rewriter, loc, rangeState, word,
                         range.getThreadCount(),
                         [&](OpBuilder &b, Location l) { pause(b, l); });
}

Value TeamLowering::isFirst(Location loc, ThreadRangeOp range) {
  return arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq, thread,
      arith::ConstantIndexOp::create(rewriter, loc, range.getBegin()));
}

void TeamLowering::run() {
  ThreadOps ops;
  ops.collect(kernel.getBody().front(), ThreadRangeOp());
  Location loc = kernel.getLoc();
  Block &body = kernel.getBody().front();

  // The ranges' barrier words, zero at the start of each block.
  for (ThreadRangeOp range : ops.ranges)
    rangeWords.try_emplace({range.getBegin(), range.getEnd()},
                           static_cast<int64_t>(rangeWords.size()));
  if (!rangeWords.empty()) {
    rangeState = allocateWords(loc, rangeWords.size());
    rewriter.setInsertionPointToStart(&body);
    initialize(loc, rangeState, SmallVector<int64_t>(rangeWords.size(), 0));
  }
  // Each barrier group: its states (zero) and arrival counts.
  for (AllocBarrierOp group : ops.barrierGroups) {
    ArrayRef<int64_t> counts = group.getArriveCounts();
    Value state = allocateWords(group.getLoc(), 2 * counts.size());
    rewriter.setInsertionPoint(group);
    SmallVector<int64_t> words(counts.size(), 0);
    llvm::append_range(words, counts);
    initialize(group.getLoc(), state, words);
    groupStates[group.getResult()] = state;
  }
  // Copies that signal a barrier are done when the copy is: the CPU's are
  // synchronous.
  kernel.walk([&](CopyOp copy) {
    if (copy.getBarrier())
      rewriter.modifyOpInPlace(copy, [&] {
        copy.getBarrierMutable().clear();
        copy.getBarrierIndexMutable().clear();
      });
  });

  for (auto [op, range] : ops.threadOps) {
    Location at = op->getLoc();
    rewriter.setInsertionPoint(op);
    if (isa<BarrierOp>(op)) {
      synchronize(at, range);
      rewriter.eraseOp(op);
    } else if (auto arrive = dyn_cast<BarrierArriveOp>(op)) {
      Value state = groupStates.lookup(arrive.getBarrier());
      int64_t groups = arrive.getBarrier().getType().getCount();
      Value count = memref::LoadOp::create(
          rewriter, at, state,
          ValueRange{arith::AddIOp::create(
              rewriter, at, arrive.getIndex(),
              arith::ConstantIndexOp::create(rewriter, at, groups))});
      buildMemoryBarrierArrive(rewriter, at, state, arrive.getIndex(), count);
      rewriter.eraseOp(op);
    } else if (auto wait = dyn_cast<BarrierWaitOp>(op)) {
      buildMemoryBarrierWait(rewriter, at,
                             groupStates.lookup(wait.getBarrier()),
                             wait.getIndex(),
                             buildLowBit(rewriter, at, wait.getParity()),
                             [&](OpBuilder &b, Location l) { pause(b, l); });
      rewriter.eraseOp(op);
    } else {
      rewriter.replaceOp(
          op, buildThreadIndex(rewriter, at, cast<ThreadIdOp>(op).getUnit(),
                               thread, cpu_lowering::kCpuWarpSize));
    }
  }
  for (AllocBarrierOp group : ops.barrierGroups)
    rewriter.eraseOp(group);

  // barrier; masked { op }; barrier (in a range: its first thread)
  for (auto [op, range] : ops.collectives) {
    Location at = op->getLoc();
    rewriter.setInsertionPoint(op);
    synchronize(at, range);
    Operation *single;
    if (range) {
      auto first = scf::IfOp::create(rewriter, at, isFirst(at, range),
                                     /*withElseRegion=*/false);
      rewriter.moveOpBefore(op, first.thenBlock()->getTerminator());
      single = first;
    } else {
      auto masked = omp::MaskedOp::create(rewriter, at, Value());
      rewriter.createBlock(&masked.getRegion());
      Operation *end = omp::TerminatorOp::create(rewriter, at);
      rewriter.moveOpBefore(op, end);
      single = masked;
    }
    rewriter.setInsertionPointAfter(single);
    synchronize(at, range);
  }

  // Each range's body runs in its threads.
  for (ThreadRangeOp range : ops.ranges) {
    Location at = range.getLoc();
    rewriter.setInsertionPoint(range);
    Value inside = arith::AndIOp::create(
        rewriter, at,
        arith::CmpIOp::create(
            rewriter, at, arith::CmpIPredicate::uge, thread,
            arith::ConstantIndexOp::create(rewriter, at, range.getBegin())),
        arith::CmpIOp::create(
            rewriter, at, arith::CmpIPredicate::ult, thread,
            arith::ConstantIndexOp::create(rewriter, at, range.getEnd())));
    auto branch = scf::IfOp::create(rewriter, at, inside,
                                    /*withElseRegion=*/false);
    rewriter.inlineBlockBefore(&range.getBody().front(),
                               branch.thenBlock()->getTerminator());
    rewriter.eraseOp(range);
  }
}

void cpu_lowering::lowerThreadOps(KernelOp kernel, Value thread,
                                  RewriterBase &rewriter) {
  TeamLowering(kernel, thread, rewriter).run();
}
