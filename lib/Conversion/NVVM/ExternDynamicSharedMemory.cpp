//===- ExternDynamicSharedMemory.cpp - the dynamic block's linkage --------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Gives the zero-length workgroup globals that convert-gpu-to-nvvm makes
// for gpu.dynamic_shared_memory external linkage, so that the NVPTX backend
// declares them as the dynamic shared-memory block (after all static shared
// variables) rather than as a static variable of their own.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::tile {
#define GEN_PASS_DEF_EXTERNDYNAMICSHAREDMEMORY
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct ExternDynamicSharedMemory
    : tile::impl::ExternDynamicSharedMemoryBase<ExternDynamicSharedMemory> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (!array || array.getNumElements() != 0 ||
          global.getAddrSpace() != NVVM::NVVMMemorySpace::Shared ||
          global.getLinkage() != LLVM::Linkage::Internal)
        continue;
      global.setLinkage(LLVM::Linkage::External);
      global.setDsoLocal(false);
    }
  }
};
} // namespace
