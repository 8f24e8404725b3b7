//===- TargetCodegenTest.cpp - The vendors' sides of the GPU lowering -----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Each target's TargetCodegen builds its vendor's ops and nothing where the
// vendor has no counterpart: named barriers with their id and thread count,
// the async-proxy fence, the thread id re-read in loops (NVIDIA); buffer
// resources and scheduling barriers (AMD).
//
//===----------------------------------------------------------------------===//

#include "FoldingTest.h"

#include "../../lib/Conversion/TileToGPU/TargetCodegen.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

class TargetCodegenTest : public FoldingTest {
protected:
  TargetCodegenTest() {
    context.loadDialect<NVVM::NVVMDialect, LLVM::LLVMDialect,
                        amdgpu::AMDGPUDialect, memref::MemRefDialect>();
  }

  static const TargetCodegen &getCodegen(StringRef chip) {
    FailureOr<TargetInfo> target = TargetInfo::parse(chip);
    EXPECT_TRUE(succeeded(target));
    return TargetCodegen::get(*target);
  }
};

TEST_F(TargetCodegenTest, NVIDIANamedBarrierCountsTheThreads) {
  const TargetCodegen &codegen = getCodegen("sm_90a");
  EXPECT_EQ(&codegen, &getNVVMCodegen());
  Block *body = newFunction(0);
  codegen.namedBarrier(b, loc, /*id=*/1, /*threads=*/256);
  auto barrier = cast<NVVM::BarrierOp>(body->back());
  EXPECT_EQ(evaluate(barrier.getBarrierId(), {}), 1);
  EXPECT_EQ(evaluate(barrier.getNumberOfThreads(), {}), 256);
}

TEST_F(TargetCodegenTest, NVIDIAFencesAndRereadsTheThreadId) {
  const TargetCodegen &codegen = getCodegen("sm_80");
  Block *body = newFunction(0);
  codegen.fenceSharedForAsyncProxy(b, loc);
  auto fence = cast<NVVM::FenceProxyOp>(body->back());
  EXPECT_EQ(fence.getKind(), NVVM::ProxyKind::async_shared);
  Value tid = codegen.rereadThreadId(b, loc);
  ASSERT_TRUE(tid);
  EXPECT_TRUE(tid.getType().isIndex());
  auto read = tid.getDefiningOp()->getOperand(0).getDefiningOp();
  auto inlineAsm = cast<LLVM::InlineAsmOp>(read);
  EXPECT_EQ(inlineAsm.getAsmString(), "mov.u32 $0, %tid.x;");
  EXPECT_TRUE(inlineAsm.getHasSideEffects());

  // Nothing of AMD's.
  size_t before = body->getOperations().size();
  Value fits;
  auto memrefType = MemRefType::get({64}, b.getF16Type());
  Value memref = memref::AllocOp::create(b, loc, memrefType);
  EXPECT_FALSE(codegen.getZeroFillingView(b, loc, memref, fits));
  codegen.schedulingFence(b, loc);
  EXPECT_EQ(body->getOperations().size(), before + 1);
}

TEST_F(TargetCodegenTest, AMDLoadsThroughBufferResources) {
  const TargetCodegen &codegen = getCodegen("gfx942");
  EXPECT_EQ(&codegen, &getROCDLCodegen());
  Block *body = newFunction(0);
  auto memrefType = MemRefType::get({64, 32}, b.getF16Type());
  Value memref = memref::AllocOp::create(b, loc, memrefType);
  Value fits;
  Value view = codegen.getZeroFillingView(b, loc, memref, fits);
  ASSERT_TRUE(view);
  auto cast = view.getDefiningOp<amdgpu::FatRawBufferCastOp>();
  ASSERT_TRUE(cast);
  EXPECT_EQ(cast.getSource(), memref);
  EXPECT_TRUE(cast.getBoundsCheck());
  ASSERT_TRUE(fits);
  EXPECT_TRUE(fits.getType().isInteger(1));

  codegen.schedulingFence(b, loc);
  EXPECT_TRUE(isa<amdgpu::SchedBarrierOp>(body->back()));

  // Nothing of NVIDIA's: no proxy fence, the kernel's thread id serves.
  size_t before = body->getOperations().size();
  codegen.fenceSharedForAsyncProxy(b, loc);
  EXPECT_FALSE(codegen.rereadThreadId(b, loc));
  EXPECT_EQ(body->getOperations().size(), before);
}

} // namespace
