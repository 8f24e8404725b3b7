//===- TileToNVVM.cpp - the tile-to-nvvm pipeline -------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::tile::buildTileToNVVMPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options) {
  TileInferLayoutsOptions inference;
  inference.chip = options.chip;
  pm.addPass(createTileInferLayouts(inference));
  ConvertTileToGPUOptions lowering;
  lowering.chip = options.chip;
  pm.addPass(createConvertTileToGPU(lowering));
  // Outline before any canonicalization: outlining sinks the constants
  // kernels use into them, so slot indices stay constants (and fragments
  // registers) instead of becoming kernel parameters.
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = options.format;
  nvvm.optLevel = options.optLevel;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}
