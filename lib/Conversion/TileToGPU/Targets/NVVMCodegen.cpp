//===- NVVMCodegen.cpp - NVIDIA's side of the GPU lowering ----------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Named barriers (bar.sync id, count), the proxy fence that orders threads'
// shared-memory writes before TMA and wgmma read them, and a read of %tid.x
// that LLVM cannot hoist.
//
//===----------------------------------------------------------------------===//

#include "../TargetCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
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
};
} // namespace

const TargetCodegen &mlir::tile::gpu_lowering::getNVVMCodegen() {
  static const NVVMCodegen codegen;
  return codegen;
}
