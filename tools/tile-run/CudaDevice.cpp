//===- CudaDevice.cpp - tile-run on NVIDIA GPUs ---------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::run;

std::unique_ptr<Device> mlir::tile::run::createCudaDevice(StringRef chip,
                                                          std::string *why) {
  if (why)
    *why = "this build of tile-run has no CUDA support";
  return nullptr;
}
