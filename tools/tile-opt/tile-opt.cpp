//===- tile-opt.cpp - the tile optimizer driver ---------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// An mlir-opt for tile programs: the tile dialect and its passes, plus the
// upstream dialects and passes that tile pipelines lower through.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Pipelines/Pipelines.h"

using namespace mlir;

namespace mlir::tile::test {
void registerTestLayoutTablesPass();
} // namespace mlir::tile::test

int main(int argc, char **argv) {
  registerAllPasses();
  tile::registerTilePasses();
  tile::registerTileConversionPasses();
  tile::registerTilePipelines();
  tile::test::registerTestLayoutTablesPass();

  DialectRegistry registry;
  registry.insert<tile::TileDialect, affine::AffineDialect,
                  amdgpu::AMDGPUDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  index::IndexDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, nvgpu::NVGPUDialect,
                  NVVM::NVVMDialect, ROCDL::ROCDLDialect, scf::SCFDialect,
                  ub::UBDialect, vector::VectorDialect>();
  registerAllExtensions(registry);

  return asMainReturnCode(
      MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
