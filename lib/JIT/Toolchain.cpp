//===- Toolchain.cpp - What compiling for a target involves ---------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/Toolchain.h"

#include "tile/Config/BuildId.h"
#include "tile/JIT/HostMachine.h"
#include "tile/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::jit;

LogicalResult mlir::tile::jit::buildPipeline(OpPassManager &pm,
                                             const CompileOptions &options,
                                             bool deviceText) {
  StringRef format = deviceText ? "isa" : "bin";
  switch (options.target) {
  case Target::CPU: {
    TileToCPUPipelineOptions cpu;
    cpu.openmp = usesOpenMP(options);
    buildTileToCPUPipeline(pm, cpu);
    return success();
  }
  case Target::NVIDIA: {
    TileToNVVMPipelineOptions nvvm;
    nvvm.chip = options.chip;
    nvvm.format = format.str();
    nvvm.warpSpecialize = options.codegen.warpSpecialize;
    nvvm.tmaStore = options.codegen.tmaStore;
    nvvm.tmaMulticast = options.codegen.tmaMulticast;
    nvvm.deepenPipelines = options.codegen.deepenPipelines;
    nvvm.rasterBlocks = options.codegen.rasterBlocks;
    nvvm.mergeBlocks = options.codegen.mergeBlocks;
    buildTileToNVVMPipeline(pm, nvvm);
    return success();
  }
  case Target::AMD: {
    TileToROCDLPipelineOptions rocdl;
    rocdl.chip = options.chip;
    rocdl.format = format.str();
    buildTileToROCDLPipeline(pm, rocdl);
    return success();
  }
  }
  return failure();
}

FailureOr<std::string>
mlir::tile::jit::getDeviceSource(ModuleOp module,
                                 const CompileOptions &options) {
  if (options.target == Target::CPU)
    return std::string();
  OwningOpRef<ModuleOp> lowered = module.clone();
  PassManager pm(module.getContext());
  if (failed(buildPipeline(pm, options, /*deviceText=*/true)) ||
      failed(pm.run(*lowered)))
    return failure();
  return extractDeviceBinary(*lowered);
}

bool mlir::tile::jit::usesOpenMP(const CompileOptions &options) {
  return options.target == Target::CPU && options.cpuParallel &&
         !getOpenMPRuntime().empty();
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
  // The ptxas gpu-module-to-binary runs.
  std::string ptxas = findPtxas(getCudaToolkitPath());
  if (ptxas.empty())
    return "none";
  SmallString<128> output;
  if (llvm::sys::fs::createTemporaryFile("tile-ptxas", "txt", output))
    return "unknown";
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(output),
                                          std::nullopt};
  int rc = llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--version"}, std::nullopt,
                                     redirects);
  auto text = llvm::MemoryBuffer::getFile(output);
  llvm::sys::fs::remove(output);
  if (rc != 0 || !text)
    return "unknown";
  StringRef version = (*text)->getBuffer().trim();
  return version.substr(version.rfind('\n') + 1).str();
}

const std::string &mlir::tile::jit::getPtxasVersion() {
  static const std::string version = findPtxasVersion();
  return version;
}

void mlir::tile::jit::printToolchain(llvm::raw_ostream &os, StringRef cpu) {
  os << "tile " << TILE_VERSION << " (build " << TILE_BUILD_ID << "), LLVM "
     << LLVM_VERSION_STRING << "\n";
  std::string resolved = resolveHostCpu(cpu);
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> host =
      getHostMachineBuilder(resolved);
  os << "host CPU: " << resolved;
  if (host)
    os << " (" << host->getCPU() << ", " << host->getTargetTriple().str()
       << ")\n";
  else
    os << ": " << llvm::toString(host.takeError()) << "\n";
  const std::string &openmp = getOpenMPRuntime();
  os << "CPU threads: " << getCpuThreadCount() << " ("
     << (openmp.empty() ? "no OpenMP runtime: one loop" : openmp) << ")\n";
  StringRef cuda = getCudaToolkitPath();
  os << "CUDA toolkit: " << (cuda.empty() ? "none found" : cuda)
     << " (ptxas: " << getPtxasVersion() << "; libdevice: ";
  std::string libdevice = getLibdevicePath(cuda);
  os << (!cuda.empty() && llvm::sys::fs::exists(libdevice) ? libdevice
                                                            : "none")
     << ")\n";
}
