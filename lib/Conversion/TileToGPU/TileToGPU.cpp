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
#include "PrefetchLoads.h"
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
  if (Value tid = k.codegen.rereadThreadId(b, loc))
    k.threadId = k.blockThreadId = tid;
  return ids;
}

/// Whether the context's tile ops carry their GPU lowering models.
static bool hasGpuLoweringModels(MLIRContext *context) {
  std::optional<RegisteredOperationName> copy =
      RegisteredOperationName::lookup(CopyOp::getOperationName(), context);
  return copy && copy->hasInterface<GpuLoweringOpInterface>();
}

/// Where a kernel launches: its grid (index values, padded with 1 to three
/// dims) and the blocks launched along each dim. Persistent: min(tiles,
/// multiprocessors) blocks along x walk the `tiles`.
struct LaunchGrid {
  SmallVector<Value> grid;
  SmallVector<Value> blocks;
  Value tiles;
  /// The index 1 the grid and the launch are padded with.
  Value one;
};

/// Host code: the LaunchGrid of `kernel`.
LaunchGrid buildLaunchGrid(OpBuilder &b, Location loc, const KernelContext &k,
                           KernelOp kernel) {
  LaunchGrid result;
  SmallVector<Value> &grid = result.grid;
  for (OpFoldResult size : kernel.getMixedGrid())
    grid.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  Value one = result.one = k.constant(b, loc, 1);
  while (grid.size() < 3)
    grid.push_back(one);
  result.blocks = grid;
  if (k.plan.persistent) {
    result.tiles = arith::MulIOp::create(
        b, loc, arith::MulIOp::create(b, loc, grid[0], grid[1]), grid[2]);
    result.blocks = {arith::MinUIOp::create(
                         b, loc, result.tiles,
                         getMultiprocessorCount(b, loc, kernel)),
                     one, one};
  }
  return result;
}

/// The gpu.launch of a kernel over `grid`, with the planned threads and
/// dynamic shared memory (and room to align it at run time where
/// static shared memory comes first). Clustered: pairs of blocks along x
/// share tiles, when x is even. Its body holds only its terminator.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, const KernelContext &k,
                           const LaunchGrid &grid, bool staticShared) {
  const KernelPlan &plan = k.plan;
  Value one = grid.one;
  Value sharedSize = arith::ConstantIntOp::create(
      b, loc, b.getI32Type(),
      plan.sharedBytes + (staticShared ? kSharedAlignment : 0));
  Value clusterX;
  if (plan.isClustered()) {
    Value two = k.constant(b, loc, 2);
    Value remainder = arith::RemUIOp::create(b, loc, grid.grid[0], two);
    Value even = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       remainder, k.constant(b, loc, 0));
    clusterX = arith::SelectOp::create(b, loc, even, two, one);
  }
  auto launch = gpu::LaunchOp::create(
      b, loc, grid.blocks[0], grid.blocks[1], grid.blocks[2],
      k.constant(b, loc, plan.getLaunchThreads()), one, one, sharedSize,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
      /*workgroupAttributions=*/{}, /*privateAttributions=*/{}, clusterX,
      clusterX ? one : Value(), clusterX ? one : Value());
  Block &body = launch.getBody().front();
  // The builder leaves out the cluster ids' and sizes' arguments (the
  // last six) that the op expects with clusters.
  if (clusterX)
    while (body.getNumArguments() < 18)
      body.addArgument(b.getIndexType(), loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

/// At the start of the launch: the thread id and the dynamic shared memory
/// in `k`, and where static shared memory comes first, the bytes to the
/// dynamic block's first aligned address.
void setUpLaunchContext(OpBuilder &b, Location loc, KernelContext &k,
                        gpu::LaunchOp launch, bool staticShared) {
  k.threadId = k.launchThreadId = k.blockThreadId = launch.getThreadIds().x;
  auto dynamicType = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  k.dynamicShared = gpu::DynamicSharedMemoryOp::create(b, loc, dynamicType);
  if (!staticShared)
    return;
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, k.dynamicShared);
  // (-base) mod 1024
  Value negated = arith::SubIOp::create(b, loc, k.constant(b, loc, 0), base);
  k.sharedAlignment = arith::AndIOp::create(
      b, loc, negated, k.constant(b, loc, kSharedAlignment - 1));
}

/// Moves the kernel's body into the launch, with its tile's block ids: to
/// the consumer threads of a warp-specialized kernel, into the tile loop of
/// a persistent one.
void moveBodyIn(PatternRewriter &rewriter, Location loc, KernelContext &k,
                KernelOp kernel, gpu::LaunchOp launch,
                const LaunchGrid &grid) {
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  SmallVector<Value> launchIds{blockIds.x, blockIds.y, blockIds.z};
  launchIds.resize(kernel.getGridRank());
  SmallVector<Value> gridSizes(grid.grid.begin(),
                               grid.grid.begin() + launchIds.size());
  SmallVector<Value> ids;
  if (!k.plan.persistent)
    ids = getBlockIds(rewriter, loc, launchIds, gridSizes,
                      kernel.getRasterAttr());
  Operation *bodyEnd = launch.getBody().front().getTerminator();
  if (k.plan.warpSpecialized)
    bodyEnd = splitWarpSpecialized(k, rewriter, loc);
  if (k.plan.persistent) {
    // TMA stores (createTensorMaps made their maps) left reading their
    // scratch are waited for at the end.
    bool storesInFlight = llvm::any_of(
        k.hopper.tmaReady, [](auto &entry) { return isa<CopyOp>(entry.first); });
    rewriter.setInsertionPoint(bodyEnd);
    ids = openTileLoop(rewriter, loc, k, kernel, blockIds.x, grid.tiles,
                       grid.blocks[0], gridSizes);
    if (storesInFlight) {
      rewriter.setInsertionPointAfter(k.tileLoop);
      waitForTmaStoreReads(k, rewriter, loc, k.launchThreadId);
    }
    bodyEnd = cast<scf::ForOp>(k.tileLoop).getBody()->getTerminator();
  }
  rewriter.inlineBlockBefore(&kernel.getBody().front(), bodyEnd, ids);
}

/// Gives each buffer of the launch's `body` its storage in `k`: a shared
/// buffer a view of the dynamic block, a fragment a private array of slots
/// in the entry block. Returns their allocations.
SmallVector<Operation *> allocateBuffers(OpBuilder &b, KernelContext &k,
                                         Block &body) {
  SmallVector<Operation *> allocations;
  body.walk([&](Operation *op) {
    if (isa<AllocSharedOp, FragmentOp, AllocBarrierOp>(op))
      allocations.push_back(op);
  });
  for (Operation *op : allocations) {
    b.setInsertionPoint(op);
    if (auto barriers = dyn_cast<AllocBarrierOp>(op)) {
      createBarrierGroup(k, b, barriers);
      continue;
    }
    Value buffer = op->getResult(0);
    if (auto it = k.plan.shared.find(buffer); it != k.plan.shared.end()) {
      const SharedBufferPlan &planned = it->second;
      k.shared[buffer] = {
          k.viewShared(b, op->getLoc(), planned.offset,
                       planned.stages * planned.stageElements,
                       planned.type.getElementType()),
          planned.layout,
          planned.type,
          planned.stages,
          planned.stageElements,
          Value()};
      continue;
    }
    const Layout &layout = k.plan.getFragmentLayout(buffer);
    auto type = cast<FragmentType>(buffer.getType());
    auto slotsType =
        MemRefType::get({getSlotExtent(layout)}, type.getElementType());
    // In the kernel's entry block, where LLVM promotes it to registers
    // (not in the consumers' branch of a warp-specialized kernel).
    b.setInsertionPointToStart(&body);
    Value slots = memref::AllocaOp::create(b, op->getLoc(), slotsType);
    k.fragments[buffer] = {slots, layout, type};
  }
  return allocations;
}

struct KernelOpLowering : public OpRewritePattern<KernelOp> {
  KernelOpLowering(MLIRContext *context, const GpuCodegenOptions &options)
      : OpRewritePattern(context), options(options) {}

  LogicalResult matchAndRewrite(KernelOp kernel,
                                PatternRewriter &rewriter) const override {
    FailureOr<TargetInfo> target = getTarget(kernel);
    if (failed(target))
      return failure();
    if (target->isCPU())
      return kernel.emitOpError("cannot be lowered to the GPU for target '")
             << target->chip << "'; attach a GPU target (tile-attach-target)";
    if (!hasGpuLoweringModels(getContext()))
      return kernel.emitOpError(
          "cannot be lowered: the tile ops' GPU lowering models are not "
          "registered (call mlir::tile::registerGpuLoweringModels)");
    FailureOr<KernelPlan> plan = KernelPlan::build(kernel, *target, options);
    if (failed(plan))
      return failure();
    KernelContext context(*plan);
    // Fences first, wherever they are: a tile.parallel body's ops are
    // cloned for each slot a thread holds, and LLVM fences clone as they are.
    lowerFences(rewriter, kernel, context.codegen.getDeviceSyncScope());

    Location loc = kernel.getLoc();
    rewriter.setInsertionPoint(kernel);
    createTensorMaps(context, rewriter, loc, kernel);
    LaunchGrid grid = buildLaunchGrid(rewriter, loc, context, kernel);
    // TMA pipelines keep their mbarriers in static shared memory, which the
    // dynamic block follows: ask for room to align the block at run time.
    bool staticShared = plan->barrierCount != 0 ||
                        llvm::any_of(plan->pipelines, [](const auto &entry) {
                          return entry.second.tma;
                        });
    gpu::LaunchOp launch =
        createLaunch(rewriter, loc, context, grid, staticShared);
    Block &body = launch.getBody().front();
    rewriter.setInsertionPoint(body.getTerminator());
    setUpLaunchContext(rewriter, loc, context, launch, staticShared);
    // Move the body in, then give buffers their storage.
    moveBodyIn(rewriter, loc, context, kernel, launch, grid);
    SmallVector<Operation *> allocations =
        allocateBuffers(rewriter, context, body);
    if (failed(context.lowerBlock(body, rewriter)))
      return failure();
    prefetchLoads(rewriter, launch);
    for (Operation *op : allocations)
      rewriter.eraseOp(op);
    rewriter.eraseOp(kernel);
    return success();
  }

  GpuCodegenOptions options;
};

struct ConvertTileToGPUPass
    : public tile::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerGpuLoweringModels(registry);
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    GpuCodegenOptions options;
    options.warpSpecialize = warpSpecialize;
    options.tmaStore = tmaStore;
    options.tmaMulticast = tmaMulticast;
    options.deepenPipelines = deepenPipelines;
    populateTileToGPUPatterns(patterns, options);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // A kernel that is left failed with a diagnostic.
    if (getOperation()->walk([](KernelOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::tile::populateTileToGPUPatterns(RewritePatternSet &patterns,
                                           const GpuCodegenOptions &options) {
  patterns.add<KernelOpLowering>(patterns.getContext(), options);
}
