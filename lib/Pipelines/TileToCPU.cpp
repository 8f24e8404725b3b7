//===- TileToCPU.cpp - the tile-to-cpu pipeline ---------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::tile::buildTileToCPUPipeline(
    OpPassManager &pm, const TileToCPUPipelineOptions &options) {
  TileAttachTargetOptions target;
  target.chip = "host";
  pm.addPass(createTileAttachTarget(target));
  pm.addPass(createTileSpecializeKernels());
  pm.addPass(createTileInsertBarriers());
  ConvertTileToCPUOptions cpu;
  cpu.openmp = options.openmp;
  pm.addPass(createConvertTileToCPU(cpu));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  addFloat8Expansion(pm);
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}
