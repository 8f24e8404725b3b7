//===- TargetCodegen.cpp - What NVVM and ROCDL code differ in -------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "TargetCodegen.h"

#include <cassert>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

TargetCodegen::~TargetCodegen() = default;

const TargetCodegen &TargetCodegen::get(const TargetInfo &target) {
  assert(!target.isCPU() && "the GPU lowering runs for GPU targets only");
  return target.isAMD() ? getROCDLCodegen() : getNVVMCodegen();
}
