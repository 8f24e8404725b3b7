//===- ROCDLCodegen.cpp - AMD's side of the GPU lowering ------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Buffer resources (loads past a tensor's end return zeros) and the
// scheduling barrier. CDNA has no named barriers and no asynchronous proxy.
//
//===----------------------------------------------------------------------===//

#include "../TargetCodegen.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::tile::gpu_lowering;

/// i1: `memref`'s extent (the largest size x stride, in bytes, as a buffer
/// resource describes it) fits the signed 32-bit offsets of buffer loads.
static Value fitsBufferResource(OpBuilder &b, Value memref) {
  Location loc = memref.getLoc();
  auto type = cast<MemRefType>(memref.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value extent = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [size, stride] :
       llvm::zip(metadata.getSizes(), metadata.getStrides()))
    extent = arith::MaxUIOp::create(
        b, loc, extent, arith::MulIOp::create(b, loc, size, stride));
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, extent,
      arith::ConstantIndexOp::create(b, loc, (int64_t(1) << 31) / bytes));
}

namespace {
class ROCDLCodegen final : public TargetCodegen {
public:
  void namedBarrier(OpBuilder &, Location, int64_t, int64_t) const override {
    llvm_unreachable("no named barriers on AMD: the plan never splits the "
                     "block there");
  }

  // No mbarriers on AMD: KernelPlan refuses tile.alloc_barrier there.
  Value createBarrierGroup(OpBuilder &, Location, int64_t) const override {
    return Value();
  }
  void initBarrier(OpBuilder &, Location, Value, Value, Value) const override {
    llvm_unreachable("no mbarriers on AMD");
  }
  void arriveAtBarrier(OpBuilder &, Location, Value, Value) const override {
    llvm_unreachable("no mbarriers on AMD");
  }
  void waitForBarrier(OpBuilder &, Location, const tile::TargetInfo &, Value,
                      Value, Value) const override {
    llvm_unreachable("no mbarriers on AMD");
  }

  void fenceSharedForAsyncProxy(OpBuilder &, Location) const override {}

  Value rereadThreadId(OpBuilder &, Location) const override { return Value(); }

  Value getZeroFillingView(OpBuilder &b, Location loc, Value memref,
                           Value &fits) const override {
    Value view = amdgpu::FatRawBufferCastOp::create(
        b, loc, memref, /*validBytes=*/Value(),
        /*cacheSwizzleStride=*/Value(), /*boundsCheck=*/true,
        /*resetOffset=*/true);
    fits = fitsBufferResource(b, memref);
    return view;
  }

  /// On AMD the scheduler would otherwise, for example, hoist a pipeline's
  /// stores (and the wait for the loads they store) above the loop body's
  /// MFMAs when that saves registers.
  void schedulingFence(OpBuilder &b, Location loc) const override {
    amdgpu::SchedBarrierOp::create(
        b, loc,
        amdgpu::sched_barrier_opt_enumAttr::get(
            b.getContext(), amdgpu::sched_barrier_opt_enum::none));
  }

  StringRef getDeviceSyncScope() const override { return "agent"; }

  int64_t getAtomicAddVectorWidth(const tile::TargetInfo &,
                                  Type) const override {
    return 1;
  }

  void buildAtomicAddVector(OpBuilder &, Location, Value, ValueRange,
                            Value) const override {
    llvm_unreachable("AMD GPUs add one element at a time");
  }
};
} // namespace

const TargetCodegen &mlir::tile::gpu_lowering::getROCDLCodegen() {
  static const ROCDLCodegen codegen;
  return codegen;
}
