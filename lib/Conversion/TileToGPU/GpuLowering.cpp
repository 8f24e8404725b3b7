//===- GpuLowering.cpp - How each tile op is planned and lowered ----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "GpuLowering.h"

#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

#include "GpuLoweringInterface.cpp.inc"

void mlir::tile::registerGpuLoweringModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, TileDialect *) {
    attachCopyLowerings(context);
    attachIm2ColLowering(context);
    attachGemmLowering(context);
    attachReductionLowerings(context);
    attachPipelinedLowering(context);
    attachPrintLowering(context);
    attachThreadLowerings(context);
  });
}
