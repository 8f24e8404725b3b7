//===- Pipelines.cpp - registering the tile pipelines ---------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mlir::tile::addFloat8Expansion(OpPassManager &pm) {
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"f8E4M3FN", "f8E5M2", "f8E4M3FNUZ",
                            "f8E5M2FNUZ"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(createExpandFloat8());
}

void mlir::tile::registerTilePipelines() {
  PassPipelineRegistration<TileToCPUPipelineOptions>(
      "tile-to-cpu",
      "Lower tile kernels to host loops and then to the LLVM dialect",
      buildTileToCPUPipeline);
  PassPipelineRegistration<TileToNVVMPipelineOptions>(
      "tile-to-nvvm",
      "Lower tile kernels to NVVM, serialize them, and lower the host side "
      "to LLVM",
      buildTileToNVVMPipeline);
  PassPipelineRegistration<TileToROCDLPipelineOptions>(
      "tile-to-rocdl",
      "Lower tile kernels to ROCDL, serialize them (HSACO), and lower the "
      "host side to LLVM",
      buildTileToROCDLPipeline);
}
