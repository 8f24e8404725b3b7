//===- TileToROCDL.cpp - the tile-to-rocdl pipeline -----------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Conversion/Passes.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace mlir;

/// gpu-module-to-binary links HSACO with `<toolkit>/llvm/bin/ld.lld`, the
/// layout of a ROCm installation. Without ROCm, any ld.lld will do (Debian's
/// lld-22): it is given that layout through a symbolic link in a directory
/// of tile's own under the system's temporary directory.
static std::string findRocmToolkit() {
  auto hasLld = [](const std::string &dir) {
    return !dir.empty() && llvm::sys::fs::can_execute(dir + "/llvm/bin/ld.lld");
  };
  for (const char *env : {"ROCM_PATH", "ROCM_HOME"})
    if (std::optional<std::string> dir = llvm::sys::Process::GetEnv(env);
        dir && hasLld(*dir))
      return *dir;
  if (hasLld("/opt/rocm"))
    return "/opt/rocm";
  // The lld of the LLVM tile is built with first: an older one may not
  // know the code object version (Debian's plain ld.lld is lld 14).
  std::string major = std::to_string(LLVM_VERSION_MAJOR);
  std::string lld = "/usr/lib/llvm-" + major + "/bin/ld.lld";
  if (!llvm::sys::fs::can_execute(lld)) {
    lld.clear();
    for (std::string name : {"ld.lld-" + major, std::string("ld.lld")})
      if (auto found = llvm::sys::findProgramByName(name)) {
        lld = *found;
        break;
      }
  }
  if (lld.empty())
    return "";
  SmallString<128> dir;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
  llvm::sys::path::append(dir, "tile-rocm-toolkit-" +
                                   std::to_string(llvm::sys::Process::getProcessId()));
  SmallString<128> bin(dir);
  llvm::sys::path::append(bin, "llvm", "bin");
  SmallString<128> link(bin);
  llvm::sys::path::append(link, "ld.lld");
  if (llvm::sys::fs::create_directories(bin))
    return "";
  llvm::sys::fs::remove(link);
  if (llvm::sys::fs::create_link(lld, link))
    return "";
  return std::string(dir);
}

StringRef mlir::tile::getRocmToolkitPath() {
  static const std::string path = findRocmToolkit();
  return path;
}

void mlir::tile::buildTileToROCDLPipeline(
    OpPassManager &pm, const TileToROCDLPipelineOptions &options) {
  buildTileKernelsToGPU(pm, options.chip, options.instructions, "amd");

  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuROCDLAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  target.wave64Flag = true;
  pm.addPass(createGpuROCDLAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  addFloat8Expansion(pm);
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  ConvertAMDGPUToROCDLPassOptions amdgpu;
  amdgpu.chipset = options.chip;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertAMDGPUToROCDLPass(amdgpu));
  // Math through the hardware's instructions and LLVM's intrinsics rather
  // than calls into ROCm's device library (none for current chips in
  // Debian); what would still call it is refused by name.
  pm.addNestedPass<gpu::GPUModuleOp>(tile::createConvertMathToROCDLIntrinsics());
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = options.chip;
  rocdl.runtime = gpu::amd::Runtime::HIP;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToROCDLOps(rocdl));
  // tile.print's hostcall printf links where the toolkit has the device
  // library (a ROCm installation); elsewhere the check refuses it.
  tile::CheckROCDLLibraryCallsOptions check;
  check.deviceLibrary =
      llvm::sys::fs::is_directory(getRocmToolkitPath() + "/amdgcn/bitcode");
  pm.addNestedPass<gpu::GPUModuleOp>(tile::createCheckROCDLLibraryCalls(check));
  // Inline assembly written for another target (NVPTX's constraints) would
  // stop LLVM's AMDGPU code generation outside any diagnostic handler.
  pm.addNestedPass<gpu::GPUModuleOp>(tile::createCheckROCDLInlineAsm());
  // Locations are stripped after the check, so that its errors name the op.
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = getRocmToolkitPath().str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
