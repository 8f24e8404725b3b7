//===- Pipelines.cpp - registering the tile pipelines ---------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mlir::tile::registerTilePipelines() {
  PassPipelineRegistration<>(
      "tile-to-cpu",
      "Lower tile kernels to host loops and then to the LLVM dialect",
      [](OpPassManager &pm) { buildTileToCPUPipeline(pm); });
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
