//===- Toolchain.cpp - What compiling for a target involves ---------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/Toolchain.h"

#include "tile/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::jit;

LogicalResult mlir::tile::jit::buildPipeline(OpPassManager &pm,
                                             const CompileOptions &options) {
  switch (options.target) {
  case Target::CPU:
    buildTileToCPUPipeline(pm);
    return success();
  case Target::CUDA: {
    TileToNVVMPipelineOptions nvvm;
    nvvm.chip = options.chip;
    nvvm.format = "bin";
    buildTileToNVVMPipeline(pm, nvvm);
    return success();
  }
  case Target::ROCm: {
    TileToROCDLPipelineOptions rocdl;
    rocdl.chip = options.chip;
    rocdl.format = "bin";
    buildTileToROCDLPipeline(pm, rocdl);
    return success();
  }
  }
  return failure();
}

std::string mlir::tile::jit::extractDeviceBinary(ModuleOp module) {
  std::string bytes;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      if (auto gpuObject = dyn_cast<gpu::ObjectAttr>(object))
        bytes += gpuObject.getObject().getValue().str();
  });
  return bytes;
}

static std::string findPtxasVersion() {
  // The ptxas gpu-module-to-binary runs: the toolkit's, else the one on
  // $PATH.
  SmallVector<std::string> candidates;
  if (!getCudaToolkitPath().empty())
    candidates.push_back((getCudaToolkitPath() + "/bin/ptxas").str());
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    candidates.push_back(*onPath);
  for (const std::string &ptxas : candidates) {
    if (!llvm::sys::fs::can_execute(ptxas))
      continue;
    SmallString<128> output;
    if (llvm::sys::fs::createTemporaryFile("tile-ptxas", "txt", output))
      continue;
    std::optional<StringRef> redirects[] = {std::nullopt, StringRef(output),
                                            std::nullopt};
    int rc = llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--version"},
                                       std::nullopt, redirects);
    auto text = llvm::MemoryBuffer::getFile(output);
    llvm::sys::fs::remove(output);
    if (rc != 0 || !text)
      continue;
    StringRef version = (*text)->getBuffer().trim();
    return version.substr(version.rfind('\n') + 1).str();
  }
  return "none";
}

const std::string &mlir::tile::jit::getPtxasVersion() {
  static const std::string version = findPtxasVersion();
  return version;
}
