//===- NVVMCodegen.cpp - NVIDIA's side of the GPU lowering ----------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Named barriers (bar.sync id, count), mbarriers (the kernel's own:
// tile.alloc_barrier), the proxy fence that orders threads'
// shared-memory writes before TMA and wgmma read them, and a read of %tid.x
// that LLVM cannot hoist.
//
//===----------------------------------------------------------------------===//

#include "../Strategies/Tma.h"
#include "../TargetCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

class NVVMCodegen final : public TargetCodegen {
public:
  void namedBarrier(OpBuilder &b, Location loc, int64_t id,
                    int64_t threads) const override {
    auto i32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
    };
    Value barrier = i32(id);
    Value count = i32(threads);
    NVVM::BarrierOp::create(b, loc, TypeRange{}, barrier, count,
                            /*reductionOp=*/{},
                            /*reductionPredicate=*/Value());
  }

  Value createBarrierGroup(OpBuilder &b, Location loc,
                           int64_t count) const override {
    MLIRContext *context = b.getContext();
    auto type = nvgpu::MBarrierGroupType::get(
        context,
        gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup),
        count);
    return nvgpu::MBarrierCreateOp::create(b, loc, type);
  }

  void initBarrier(OpBuilder &b, Location loc, Value group, Value index,
                   Value arrivals) const override {
    nvgpu::MBarrierInitOp::create(b, loc, group, arrivals, index,
                                  /*predicate=*/Value());
  }

  void arriveAtBarrier(OpBuilder &b, Location loc, Value group,
                       Value index) const override {
    nvgpu::MBarrierArriveOp::create(
        b, loc, nvgpu::MBarrierTokenType::get(b.getContext()), group, index);
  }

  void waitForBarrier(OpBuilder &b, Location loc, const TargetInfo &target,
                      Value group, Value index, Value parity) const override {
    if (target.has(Feature::Tma)) {
      // sm_90's try_wait suspends the thread for up to the ticks given.
      nvgpu::MBarrierTryWaitParityOp::create(
          b, loc, group, parity,
          arith::ConstantIndexOp::create(b, loc, kMBarrierWaitTicks), index);
      return;
    }
    // sm_80 has the polling test_wait: while (!test_wait(parity)) {}
    Value pointer = getMBarrierPointer(b, loc, group, index);
    Value phase = arith::ExtUIOp::create(b, loc, b.getI32Type(), parity);
    scf::WhileOp::create(
        b, loc, TypeRange(), ValueRange(),
        [&](OpBuilder &before, Location l, ValueRange) {
          Value done = NVVM::MBarrierTestWaitOp::create(
              before, l, before.getI1Type(), pointer, phase);
          Value waiting = arith::XOrIOp::create(
              before, l, done,
              arith::ConstantIntOp::create(before, l, before.getI1Type(), 1));
          scf::ConditionOp::create(before, l, waiting, ValueRange());
        },
        [&](OpBuilder &after, Location l, ValueRange) {
          scf::YieldOp::create(after, l);
        });
  }

  void fenceSharedForAsyncProxy(OpBuilder &b, Location loc) const override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }

  /// LLVM would hoist every address computed from gpu.thread_id out of a
  /// loop and keep it live across it (ptxas then spills): an inline-asm
  /// read with side effects stays in the loop.
  Value rereadThreadId(OpBuilder &b, Location loc) const override {
    Value tid = LLVM::InlineAsmOp::create(
                    b, loc, b.getI32Type(), ValueRange(), "mov.u32 $0, %tid.x;",
                    "=r", /*has_side_effects=*/true, /*is_align_stack=*/false,
                    LLVM::tailcallkind::TailCallKind::None,
                    LLVM::AsmDialectAttr(), ArrayAttr())
                    .getResult(0);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), tid);
  }

  Value getZeroFillingView(OpBuilder &, Location, Value,
                           Value &) const override {
    return Value();
  }

  void schedulingFence(OpBuilder &, Location) const override {}

  /// NVPTX's name for PTX's .gpu scope.
  StringRef getDeviceSyncScope() const override { return "device"; }

  /// `red.global.add.v2/v4.f32`: sm_90 and PTX 8.1.
  int64_t getAtomicAddVectorWidth(const tile::TargetInfo &target,
                                  Type element) const override {
    return target.version >= 90 && element.isF32() ? 4 : 1;
  }

  void buildAtomicAddVector(OpBuilder &b, Location loc, Value memref,
                            ValueRange index, Value v) const override {
    auto type = cast<VectorType>(v.getType());
    int64_t width = type.getNumElements();
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value element = metadata.getOffset();
    for (auto [i, stride] : llvm::zip(index, metadata.getStrides()))
      element = arith::AddIOp::create(b, loc, element,
                                      arith::MulIOp::create(b, loc, i, stride));
    Value bytes = arith::MulIOp::create(
        b, loc, element, arith::ConstantIndexOp::create(b, loc, 4));
    Value address = arith::AddIOp::create(
        b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref),
        bytes);
    SmallVector<Value> operands = {
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address)};
    std::string lanes, constraints = "l";
    for (int64_t l = 0; l < width; ++l) {
      operands.push_back(vector::ExtractOp::create(b, loc, v, l));
      lanes += (l ? ", $" : "$") + std::to_string(l + 1);
      constraints += ",f";
    }
    std::string text = "red.global.add.v" + std::to_string(width) +
                       ".f32 [$0], {" + lanes + "};";
    auto red = LLVM::InlineAsmOp::create(
        b, loc, TypeRange(), operands, text, constraints + ",~{memory}",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    // PTX ISA 8.1 (tile-raise-ptx-version).
    red->setAttr("tile.ptx_version", b.getI64IntegerAttr(81));
  }
};
} // namespace

const TargetCodegen &mlir::tile::gpu_lowering::getNVVMCodegen() {
  static const NVVMCodegen codegen;
  return codegen;
}
