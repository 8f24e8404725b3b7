//===- TileToNVVM.cpp - the tile-to-nvvm pipeline -------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace mlir;

static bool hasLibdevice(StringRef toolkit) {
  return !toolkit.empty() && llvm::sys::fs::exists(tile::getLibdevicePath(toolkit));
}

static bool hasPtxas(StringRef toolkit) {
  return !toolkit.empty() &&
         llvm::sys::fs::can_execute(toolkit + "/bin/ptxas");
}

static std::string findCudaToolkit() {
  SmallVector<std::string> candidates;
  for (const char *env : {"CUDA_HOME", "CUDA_PATH"})
    if (std::optional<std::string> dir = llvm::sys::Process::GetEnv(env))
      candidates.push_back(*dir);
  if (auto ptxas = llvm::sys::findProgramByName("ptxas"))
    candidates.push_back(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas))
            .str());
  candidates.push_back("/usr/local/cuda");
  // NVIDIA's wheels (nvidia-cuda-nvcc: ptxas; nvidia-nvvm: libdevice): where
  // the Python package found them ($TILE_CUDA_WHEEL_TOOLKIT), and where the
  // build installed them (scripts/install-cuda-wheels.sh).
  if (std::optional<std::string> dir =
          llvm::sys::Process::GetEnv("TILE_CUDA_WHEEL_TOOLKIT"))
    candidates.push_back(*dir);
#ifdef TILE_CUDA_WHEEL_TOOLKIT
  candidates.push_back(TILE_CUDA_WHEEL_TOOLKIT);
#endif
  // The first with both libdevice and ptxas, else the first with either.
  for (const std::string &dir : candidates)
    if (hasLibdevice(dir) && hasPtxas(dir))
      return dir;
  for (const std::string &dir : candidates)
    if (hasLibdevice(dir) || hasPtxas(dir))
      return dir;
  return "";
}

std::string mlir::tile::findPtxas(StringRef toolkit) {
  if (hasPtxas(toolkit))
    return (toolkit + "/bin/ptxas").str();
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  return "";
}

std::string mlir::tile::getLibdevicePath(StringRef toolkit) {
  return (toolkit + "/nvvm/libdevice/libdevice.10.bc").str();
}

StringRef mlir::tile::getCudaToolkitPath() {
  static const std::string path = findCudaToolkit();
  return path;
}

void mlir::tile::buildTileKernelsToGPU(OpPassManager &pm, StringRef chip,
                                       ArrayRef<std::string> instructions,
                                       StringRef vendor,
                                       const GpuCodegenOptions &codegen) {
  TileAttachTargetOptions tileTarget;
  tileTarget.chip = chip.str();
  tileTarget.vendor = vendor.str();
  tileTarget.features.assign(instructions.begin(), instructions.end());
  pm.addPass(createTileAttachTarget(tileTarget));
  pm.addPass(createTileSpecializeKernels());
  pm.addPass(createTileInsertBarriers());
  if (codegen.mergeBlocks && vendor == "nvidia")
    pm.addPass(createTileMergeBlocks());
  pm.addPass(createTileWidenKernels());
  // Measured on NVIDIA only (docs/performance.md).
  if (codegen.rasterBlocks && vendor == "nvidia")
    pm.addPass(createTileRasterKernels());
  // Part of deepening a pipeline; the pass changes wgmma targets only.
  if (codegen.deepenPipelines && vendor == "nvidia")
    pm.addPass(createTileWidenKSteps());
  pm.addPass(createTileInferLayouts());
  ConvertTileToGPUOptions lowering;
  lowering.warpSpecialize = codegen.warpSpecialize;
  lowering.tmaStore = codegen.tmaStore;
  lowering.tmaMulticast = codegen.tmaMulticast;
  lowering.deepenPipelines = codegen.deepenPipelines;
  pm.addPass(createConvertTileToGPU(lowering));
  // Constants (and dims, compares, selects of them) the kernels use from
  // outside go into them, so that they stay constants there (loop bounds
  // and steps, a kernel's scale) instead of becoming kernel parameters;
  // then outline before any canonicalization, which would hoist the
  // constants the lowering made inside the kernels (slot indices) out of
  // them.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tile::buildTileToNVVMPipeline(
    OpPassManager &pm, const TileToNVVMPipelineOptions &options) {
  buildTileKernelsToGPU(pm, options.chip, options.instructions, "nvidia",
                        options.getCodegenOptions());

  // The passes of upstream's gpu-lower-to-nvvm-pipeline, in its order, with
  // the toolkit given to gpu-module-to-binary (which upstream takes from
  // the environment only): libdevice must be linked for math functions.
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addNestedPass<gpu::GPUModuleOp>(tile::createRaisePtxVersion());
  pm.addPass(createLowerAffinePass());
  pm.addNestedPass<gpu::GPUModuleOp>(tile::createConvertInt8ToFloatByBits());
  addFloat8Expansion(pm);
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  std::string toolkit = options.toolkit.empty() ? getCudaToolkitPath().str()
                                               : std::string(options.toolkit);
  pm.addNestedPass<gpu::GPUModuleOp>(tile::createConvertMathToNVVMIntrinsics());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  // What needs a part of the toolkit that is missing is an error, at the op
  // that needs it (locations are stripped only after this check).
  tile::CheckNVVMToolkitOptions needs;
  if (hasLibdevice(toolkit))
    needs.libdevice = getLibdevicePath(toolkit);
  needs.ptxas = findPtxas(toolkit);
  needs.format = options.format;
  pm.addNestedPass<gpu::GPUModuleOp>(tile::createCheckNVVMToolkit(needs));
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(tile::createExternDynamicSharedMemory());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
