//===- tile-fuzz-cpu.cpp - Fuzz the CPU lowering up to LLVM IR ------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile-to-cpu, then the translation to LLVM IR that the JIT compiles.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

static void translate(mlir::ModuleOp module) {
  llvm::LLVMContext context;
  (void)mlir::translateModuleToLLVMIR(module, context);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::tile::fuzz::runOneInput(data, size, "tile-to-cpu",
                                       translate);
}
