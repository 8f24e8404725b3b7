//===- TileToGPU.cpp - convert-tile-to-gpu --------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The kernel pattern: plans a tile.kernel (KernelPlan), opens a gpu.launch
// with the planned dynamic shared memory, gives every buffer its storage and
// lowers the body with the op patterns of the families (KernelContext).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "KernelContext.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Utils/LoweringUtils.h"
#include "tile/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

/// Host code: the current device's multiprocessors, as index (declares
/// the runtime function in the kernel's module the first time).
Value getMultiprocessorCount(OpBuilder &b, Location loc, KernelOp kernel) {
  auto module = kernel->getParentOfType<ModuleOp>();
  auto type = b.getFunctionType({}, {b.getI32Type()});
  StringRef name = runtime::kGpuMultiprocessorCountSymbol;
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    func::FuncOp::create(b, loc, name, type).setPrivate();
  }
  Value count =
      func::CallOp::create(b, loc, name, type.getResults()).getResult(0);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), count);
}

/// A persistent kernel's loop over its tiles, at the builder's position:
/// `for t = block; t < tiles; t += blocks` (the block count from the host:
/// AMD's lowering would read the launch's grid size through ROCm's device
/// library). Returns the tile's block ids (x fastest, then the raster),
/// computed at the start of the loop's body; sets `k.tileLoop` and, on
/// NVIDIA, `k.threadId` to a read of the thread id in the body: LLVM would
/// hoist every address computed from the launch's id out of the loop and
/// keep it live across it (ptxas then spills).
SmallVector<Value> openTileLoop(OpBuilder &b, Location loc, KernelContext &k,
                                KernelOp kernel, Value block, Value tiles,
                                Value blocks, ArrayRef<Value> gridSizes) {
  auto tileLoop = scf::ForOp::create(b, loc, block, tiles, blocks);
  k.tileLoop = tileLoop;
  b.setInsertionPointToStart(tileLoop.getBody());
  SmallVector<Value> ids =
      getBlockIdsOfLinear(b, loc, tileLoop.getInductionVar(), gridSizes,
                          kernel.getRasterAttr());
  if (k.target.isNVIDIA()) {
    Value tid = LLVM::InlineAsmOp::create(
                    b, loc, b.getI32Type(), ValueRange(), "mov.u32 $0, %tid.x;",
                    "=r", /*has_side_effects=*/true, /*is_align_stack=*/false,
                    LLVM::tailcallkind::TailCallKind::None,
                    LLVM::AsmDialectAttr(), ArrayAttr())
                    .getResult(0);
    k.threadId = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), tid);
  }
  return ids;
}

struct KernelOpLowering : public OpRewritePattern<KernelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(KernelOp kernel,
                                PatternRewriter &rewriter) const override {
    FailureOr<TargetInfo> target = getTarget(kernel);
    if (failed(target))
      return failure();
    if (target->isCPU())
      return kernel.emitOpError("cannot be lowered to the GPU for target '")
             << target->chip << "'; attach a GPU target (tile-attach-target)";
    FailureOr<KernelPlan> plan = KernelPlan::build(kernel, *target);
    if (failed(plan))
      return failure();
    KernelContext context(*plan);
    RewritePatternSet opPatterns(getContext());
    populateCopyPatterns(opPatterns, context);
    populateGemmPatterns(opPatterns, context);
    populateReductionPatterns(opPatterns, context);
    populatePipeliningPatterns(opPatterns, context);
    context.setPatterns(std::move(opPatterns));

    Location loc = kernel.getLoc();
    rewriter.setInsertionPoint(kernel);
    createTensorMaps(context, rewriter, loc, kernel);
    SmallVector<Value> grid;
    for (OpFoldResult size : kernel.getMixedGrid())
      grid.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));
    Value one = context.constant(rewriter, loc, 1);
    while (grid.size() < 3)
      grid.push_back(one);
    // Persistent: min(tiles, multiprocessors) blocks along x walk the
    // tiles.
    SmallVector<Value> launchGrid = grid;
    Value tiles;
    if (plan->persistent) {
      tiles = arith::MulIOp::create(
          rewriter, loc, arith::MulIOp::create(rewriter, loc, grid[0], grid[1]),
          grid[2]);
      launchGrid = {arith::MinUIOp::create(
                        rewriter, loc, tiles,
                        getMultiprocessorCount(rewriter, loc, kernel)),
                    one, one};
    }
    // TMA pipelines keep their mbarriers in static shared memory, which the
    // dynamic block follows: ask for room to align the block at run time.
    bool staticShared = llvm::any_of(
        plan->pipelines, [](const auto &entry) { return entry.second.tma; });
    Value sharedSize = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI32Type(),
        plan->sharedBytes + (staticShared ? kSharedAlignment : 0));
    // Clustered: pairs of blocks along x share tiles, when x is even.
    Value clusterX;
    if (plan->isClustered()) {
      Value two = context.constant(rewriter, loc, 2);
      Value remainder = arith::RemUIOp::create(rewriter, loc, grid[0], two);
      Value even =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                remainder, context.constant(rewriter, loc, 0));
      clusterX = arith::SelectOp::create(rewriter, loc, even, two, one);
    }
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, launchGrid[0], launchGrid[1], launchGrid[2],
        context.constant(rewriter, loc, plan->getLaunchThreads()), one, one,
        sharedSize, /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
        /*workgroupAttributions=*/{}, /*privateAttributions=*/{}, clusterX,
        clusterX ? one : Value(), clusterX ? one : Value());
    Block &body = launch.getBody().front();
    // The builder leaves out the cluster ids' and sizes' arguments (the
    // last six) that the op expects with clusters.
    if (clusterX)
      while (body.getNumArguments() < 18)
        body.addArgument(rewriter.getIndexType(), loc);
    rewriter.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    rewriter.setInsertionPoint(terminator);

    context.threadId = context.launchThreadId = launch.getThreadIds().x;
    auto dynamicType = MemRefType::get(
        {ShapedType::kDynamic}, rewriter.getI8Type(),
        MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                   gpu::AddressSpace::Workgroup));
    context.dynamicShared =
        gpu::DynamicSharedMemoryOp::create(rewriter, loc, dynamicType);
    if (staticShared) {
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(
          rewriter, loc, context.dynamicShared);
      // (-base) mod 1024
      Value negated = arith::SubIOp::create(
          rewriter, loc, context.constant(rewriter, loc, 0), base);
      context.sharedAlignment = arith::AndIOp::create(
          rewriter, loc, negated,
          context.constant(rewriter, loc, kSharedAlignment - 1));
    }

    // Move the body in (to the consumer threads of a warp-specialized
    // kernel), then give buffers their storage.
    gpu::KernelDim3 blockIds = launch.getBlockIds();
    SmallVector<Value> launchIds{blockIds.x, blockIds.y, blockIds.z};
    launchIds.resize(kernel.getGridRank());
    SmallVector<Value> gridSizes(grid.begin(),
                                 grid.begin() + launchIds.size());
    SmallVector<Value> ids;
    if (!plan->persistent)
      ids = getBlockIds(rewriter, loc, launchIds, gridSizes,
                        kernel.getRasterAttr());
    Operation *bodyEnd = terminator;
    if (plan->warpSpecialized)
      bodyEnd = splitWarpSpecialized(context, rewriter, loc);
    if (plan->persistent) {
      // TMA stores (createTensorMaps made their maps) left reading their
      // scratch are waited for at the end.
      bool storesInFlight = llvm::any_of(context.tmaReady, [](auto &entry) {
        return isa<CopyOp>(entry.first);
      });
      rewriter.setInsertionPoint(bodyEnd);
      ids = openTileLoop(rewriter, loc, context, kernel, blockIds.x, tiles,
                         launchGrid[0], gridSizes);
      if (storesInFlight) {
        rewriter.setInsertionPointAfter(context.tileLoop);
        waitForTmaStoreReads(context, rewriter, loc, context.launchThreadId);
      }
      bodyEnd = cast<scf::ForOp>(context.tileLoop).getBody()->getTerminator();
    }
    rewriter.inlineBlockBefore(&kernel.getBody().front(), bodyEnd, ids);
    SmallVector<Operation *> allocations;
    body.walk([&](Operation *op) {
      if (isa<AllocSharedOp, FragmentOp>(op))
        allocations.push_back(op);
    });
    for (Operation *op : allocations) {
      rewriter.setInsertionPoint(op);
      Value buffer = op->getResult(0);
      if (auto it = plan->shared.find(buffer); it != plan->shared.end()) {
        const SharedBufferPlan &planned = it->second;
        context.shared[buffer] = {
            context.viewShared(rewriter, op->getLoc(), planned.offset,
                               planned.stages * planned.stageElements,
                               planned.type.getElementType()),
            planned.layout,
            planned.type,
            planned.stages,
            planned.stageElements,
            Value()};
        continue;
      }
      const Layout &layout = plan->getFragmentLayout(buffer);
      auto type = cast<FragmentType>(buffer.getType());
      auto slotsType =
          MemRefType::get({getSlotExtent(layout)}, type.getElementType());
      // In the kernel's entry block, where LLVM promotes it to registers
      // (not in the consumers' branch of a warp-specialized kernel).
      rewriter.setInsertionPointToStart(&body);
      Value slots =
          memref::AllocaOp::create(rewriter, op->getLoc(), slotsType);
      context.fragments[buffer] = {slots, layout, type};
    }
    if (failed(context.lowerBlock(body, rewriter)))
      return failure();
    for (Operation *op : allocations)
      rewriter.eraseOp(op);
    rewriter.eraseOp(kernel);
    return success();
  }
};

struct ConvertTileToGPUPass
    : public tile::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTileToGPUPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // A kernel that is left failed with a diagnostic.
    if (getOperation()->walk([](KernelOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::tile::populateTileToGPUPatterns(RewritePatternSet &patterns) {
  patterns.add<KernelOpLowering>(patterns.getContext());
}
