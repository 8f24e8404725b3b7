//===- KernelContext.cpp - Lowering one tile.kernel to per-thread code ----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "KernelContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// The index of slot `slot` in a fragment's private array, plus `offset`
/// when given.
static Value getSlotIndex(OpBuilder &b, Location loc, int64_t slot,
                          Value offset) {
  Value index = arith::ConstantIndexOp::create(b, loc, slot);
  return offset ? arith::AddIOp::create(b, loc, index, offset).getResult()
                : index;
}

Value FragmentStorage::load(OpBuilder &b, Location loc, int64_t slot,
                            Value offset) const {
  return loadAt(b, loc, getSlotIndex(b, loc, slot, offset));
}

void FragmentStorage::store(OpBuilder &b, Location loc, int64_t slot,
                            Value value, Value offset) const {
  storeAt(b, loc, getSlotIndex(b, loc, slot, offset), value);
}

Value FragmentStorage::loadAt(OpBuilder &b, Location loc, Value index) const {
  return memref::LoadOp::create(b, loc, slots, ValueRange{index});
}

void FragmentStorage::storeAt(OpBuilder &b, Location loc, Value index,
                              Value value) const {
  memref::StoreOp::create(b, loc, value, slots, ValueRange{index});
}

Operation *KernelContext::getPlanned(Operation *op) const {
  auto it = clones.find(op);
  return it == clones.end() ? op : it->second;
}

void KernelContext::recordClones(const IRMapping &mapping) {
  for (auto [original, clone] : mapping.getOperationMap())
    clones[clone] = getPlanned(original);
}

const GemmPlan &KernelContext::getGemmPlan(GemmOp op) const {
  return plan.gemms.find(getPlanned(op))->second;
}

const Layout &KernelContext::getLoopLayout(ParallelOp op) const {
  return plan.loops.find(getPlanned(op))->second;
}

const FragmentTransfer &KernelContext::getTransfer(CopyOp op) const {
  return plan.transfers.find(getPlanned(op))->second;
}

const FragmentStorage *KernelContext::getFragment(Value buffer) const {
  auto it = fragments.find(buffer);
  return it == fragments.end() ? nullptr : &it->second;
}

const SharedStorage *KernelContext::getShared(Value buffer) const {
  if (auto it = scope->staged.find(buffer); it != scope->staged.end())
    return &it->second;
  auto it = shared.find(buffer);
  return it == shared.end() ? nullptr : &it->second;
}

SharedStorage KernelContext::getStage(OpBuilder &b, Location loc,
                                      Value buffer, Value stage) const {
  SharedStorage storage = shared.lookup(buffer);
  storage.stageOffset = arith::MulIOp::create(
      b, loc, stage, constant(b, loc, storage.stageElements));
  return storage;
}

bool KernelContext::isInFlight(Operation *gemm) const {
  return scope->inFlight.contains(getPlanned(gemm));
}

Value KernelContext::viewShared(OpBuilder &b, Location loc, int64_t byteOffset,
                                int64_t count, Type type) const {
  auto viewType = MemRefType::get(
      {count}, type, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::AddressSpace::Workgroup));
  return memref::ViewOp::create(
      b, loc, viewType, dynamicShared,
      sharedByteOffset(b, loc, constant(b, loc, byteOffset)), ValueRange());
}

Value KernelContext::sharedByteOffset(OpBuilder &b, Location loc,
                                      Value byteOffset) const {
  if (!sharedAlignment)
    return byteOffset;
  return arith::AddIOp::create(b, loc, byteOffset, sharedAlignment);
}

Value KernelContext::getScratch(OpBuilder &b, Location loc, Operation *op,
                                int64_t count, Type type) const {
  return viewShared(b, loc, plan.scratch.lookup(getPlanned(op)), count, type);
}

void KernelContext::barrier(OpBuilder &b, Location loc) const {
  if (rangeBarrierId != 0) {
    codegen.namedBarrier(b, loc, rangeBarrierId, threads);
    return;
  }
  if (!plan.warpSpecialized) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  // Barrier 0 is the whole block's; the producer warpgroup never joins.
  codegen.namedBarrier(b, loc, /*id=*/1, threads);
}

void KernelContext::publishShared(OpBuilder &b, Location loc) const {
  if (plan.asyncProxyUsesShared)
    codegen.fenceSharedForAsyncProxy(b, loc);
  barrier(b, loc);
}

SmallVector<Value> KernelContext::fragmentIndex(OpBuilder &b, Location loc,
                                                const Layout &fragment,
                                                int64_t slot,
                                                Value thread) const {
  if (!thread)
    return gpu_lowering::fragmentIndex(b, loc, fragment, slot, threadId,
                                       threads);
  return gpu_lowering::fragmentIndex(b, loc, fragment, slot, thread,
                                     getThreadExtent(fragment));
}

Value KernelContext::sharedOffset(OpBuilder &b, Location loc,
                                  const SharedStorage &buffer,
                                  ValueRange index) const {
  Value result = applyLayout(b, loc, buffer.layout, index, /*outDim=*/0);
  if (std::optional<Swizzle> swizzle = buffer.layout.getSwizzle())
    result = applySwizzle(b, loc, result, *swizzle);
  if (buffer.stageOffset)
    result = arith::AddIOp::create(b, loc, result, buffer.stageOffset);
  return result;
}

LogicalResult KernelContext::lowerBlock(Block &block,
                                        PatternRewriter &rewriter,
                                        const LoweringScope &blockScope) {
  const LoweringScope *enclosing = scope;
  scope = &blockScope;
  LogicalResult status = lowerBlock(block, rewriter);
  scope = enclosing;
  return status;
}

/// Rewrites a thread's own element access of a shared buffer (a
/// memref.load, memref.store or memref.atomic_rmw written between thread
/// indices, outside tile ops) to the buffer's storage at the element's
/// place in its layout. Other ops get the shared buffer only as tile ops'
/// operands. Returns true when `op` was such an access.
static FailureOr<bool> lowerSharedAccess(const KernelContext &k, Operation &op,
                                         PatternRewriter &rewriter) {
  auto retarget = [&](auto access) {
    const SharedStorage *shared = k.getShared(access.getMemref());
    if (!shared)
      return false;
    rewriter.setInsertionPoint(access);
    Value offset =
        k.sharedOffset(rewriter, access.getLoc(), *shared, access.getIndices());
    rewriter.modifyOpInPlace(access, [&] {
      access.getMemrefMutable().assign(shared->memory);
      access.getIndicesMutable().assign(offset);
    });
    return true;
  };
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return retarget(load);
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return retarget(store);
  if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op))
    return retarget(atomic);
  for (Value operand : op.getOperands())
    if (k.getShared(operand))
      return op.emitOpError(
          "uses a shared buffer outside tile ops: between thread indices a "
          "shared buffer is read and written by memref.load, memref.store "
          "and memref.atomic_rmw");
  return false;
}

LogicalResult KernelContext::lowerBlock(Block &block,
                                        PatternRewriter &rewriter) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    // Storage was given out up front; the kernel's lowering erases these.
    // A reducer starts at the identity wherever its allocation runs.
    if (isa<AllocSharedOp, FragmentOp, AllocBarrierOp>(op)) {
      if (auto fragment = dyn_cast<FragmentOp>(op);
          fragment && fragment.getReducerAttr()) {
        rewriter.setInsertionPoint(&op);
        startReducer(*this, rewriter, fragment);
      }
      continue;
    }
    if (isa<LoadOp, StoreOp>(op))
      return op.emitOpError("must be nested in a 'tile.parallel' body");
    rewriter.setInsertionPoint(&op);
    if (auto lowering = dyn_cast<GpuLoweringOpInterface>(op)) {
      if (failed(lowering.lower(*this, rewriter)))
        return failure();
      continue;
    }
    if (isa<TileDialect>(op.getDialect()))
      return op.emitOpError("cannot be lowered to the GPU");
    FailureOr<bool> access = lowerSharedAccess(*this, op, rewriter);
    if (failed(access))
      return failure();
    if (*access)
      continue;
    // Other ops stay; tile ops inside their regions are lowered in place.
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        if (failed(lowerBlock(nested, rewriter)))
          return failure();
  }
  return success();
}
