//===- Pipelines.h - tile compilation pipelines -----------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The pass pipelines that take a tile program to a target: tile-to-cpu
// (host loops, then LLVM), and, with their issues, tile-to-nvvm and
// tile-to-rocdl. Registered in tile-opt as `--tile-to-cpu` etc.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINES_PIPELINES_H
#define TILE_PIPELINES_PIPELINES_H

#include "tile/Conversion/TileToGPU/GpuCodegenOptions.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::tile {

/// Options of tile-to-nvvm.
struct TileToNVVMPipelineOptions
    : public PassPipelineOptions<TileToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("Target chip"),
                                        llvm::cl::init("sm_80")};
  PassOptions::ListOption<std::string> instructions{
      *this, "instructions",
      llvm::cl::desc("Instruction families kernels may use (default: all "
                     "the chip has): cp.async, ldmatrix, mma.sync, tma, "
                     "wgmma")};
  PassOptions::Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("TMA pipelines' copies in a producer warpgroup "
                     "(GpuCodegenOptions)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tmaStore{
      *this, "tma-store",
      llvm::cl::desc("Persistent kernels' stores as TMA stores "
                     "(GpuCodegenOptions)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tmaMulticast{
      *this, "tma-multicast",
      llvm::cl::desc("Cluster pairs sharing tiles by TMA multicast "
                     "(GpuCodegenOptions)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> deepenPipelines{
      *this, "deepen-pipelines",
      llvm::cl::desc("Pipelines written with fewer than 4 stages get more "
                     "where that costs no occupancy, GEMM loops' narrow K "
                     "steps merge (GpuCodegenOptions)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> rasterBlocks{
      *this, "raster-blocks",
      llvm::cl::desc("GEMM-shaped kernels launch their blocks in panels "
                     "that share tiles in L2 (GpuCodegenOptions)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> mergeBlocks{
      *this, "merge-blocks",
      llvm::cl::desc("Neighbouring blocks of GEMM kernels merge into blocks "
                     "of 256-wide tiles (GpuCodegenOptions)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features, e.g. +ptx80"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the device code (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Device binary: isa (PTX), bin (cubin) or fatbin"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit (libdevice, ptxas); default: "
                     "$CUDA_HOME, $CUDA_PATH, ptxas's on $PATH, "
                     "/usr/local/cuda, NVIDIA's wheels")};

  /// The lowering's policies these options set.
  GpuCodegenOptions getCodegenOptions() const {
    GpuCodegenOptions codegen;
    codegen.warpSpecialize = warpSpecialize;
    codegen.tmaStore = tmaStore;
    codegen.tmaMulticast = tmaMulticast;
    codegen.deepenPipelines = deepenPipelines;
    codegen.rasterBlocks = rasterBlocks;
    codegen.mergeBlocks = mergeBlocks;
    return codegen;
  }
};

/// The CUDA toolkit directory: of $CUDA_HOME, $CUDA_PATH, the parent of the
/// ptxas on $PATH, /usr/local/cuda, $TILE_CUDA_WHEEL_TOOLKIT (NVIDIA's
/// wheels nvidia-cuda-nvcc and nvidia-nvvm where the Python package found
/// them) and the wheels' directory the build installed, the first that holds
/// both libdevice and ptxas, else the first that holds either; empty when
/// none does. Looked up once per process.
StringRef getCudaToolkitPath();

/// libdevice in CUDA toolkit `toolkit`: nvvm/libdevice/libdevice.10.bc.
std::string getLibdevicePath(StringRef toolkit);

/// The ptxas gpu-module-to-binary runs with toolkit `toolkit`: its
/// bin/ptxas, else the one on $PATH; empty when there is none.
std::string findPtxas(StringRef toolkit);

/// tile-to-nvvm: layout inference, tile ops to per-thread gpu/nvgpu code,
/// then the passes of upstream's gpu-lower-to-nvvm-pipeline, which outline
/// kernels, lower them to NVVM, serialize them with gpu-module-to-binary
/// (linking libdevice from the toolkit) and lower the host side to LLVM.
void buildTileToNVVMPipeline(OpPassManager &pm,
                             const TileToNVVMPipelineOptions &options);

/// Options of tile-to-rocdl.
struct TileToROCDLPipelineOptions
    : public PassPipelineOptions<TileToROCDLPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target chip (gfx90a, gfx942, ...)"),
      llvm::cl::init("gfx942")};
  PassOptions::ListOption<std::string> instructions{
      *this, "instructions",
      llvm::cl::desc("Instruction families kernels may use (default: all "
                     "the chip has): mfma")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the device code (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Device binary: isa (AMDGPU assembly) or bin (HSACO)"),
      llvm::cl::init("bin")};
};

/// A directory `D` with `D/llvm/bin/ld.lld`, where gpu-module-to-binary
/// finds the linker of HSACO code objects: $ROCM_PATH, $ROCM_HOME or
/// /opt/rocm when they have one, else a directory of tile's own linking to
/// the ld.lld of tile's LLVM version (Debian's lld-22, else ld.lld on
/// $PATH); empty when there is no ld.lld.
StringRef getRocmToolkitPath();

/// tile-to-rocdl: layout inference, tile ops to per-thread gpu/amdgpu code,
/// outlining, lowering of the kernels to ROCDL (math through LLVM's
/// intrinsics, so no ROCm device library is needed), serialization with
/// gpu-module-to-binary (ld.lld links the HSACO) and the host side to LLVM.
void buildTileToROCDLPipeline(OpPassManager &pm,
                              const TileToROCDLPipelineOptions &options);

/// The front both GPU pipelines share: attach the target (`chip`, from
/// `vendor`, restricted to `instructions` when given), infer layouts, lower
/// tile ops to per-thread gpu code (with `codegen`'s policies), outline the
/// kernels, clean up.
void buildTileKernelsToGPU(OpPassManager &pm, StringRef chip,
                           ArrayRef<std::string> instructions, StringRef vendor,
                           const GpuCodegenOptions &codegen = {});

/// Arithmetic on f8 values as f32 arithmetic between conversions (upstream's
/// arith-emulate-unsupported-floats), then the conversions as integer
/// arithmetic (tile-expand-float8): what every pipeline runs before
/// convert-arith-to-llvm, which has no f8 types.
void addFloat8Expansion(OpPassManager &pm);

struct TileToCPUPipelineOptions
    : public PassPipelineOptions<TileToCPUPipelineOptions> {
  PassOptions::Option<bool> openmp{
      *this, "openmp",
      llvm::cl::desc("Spread the grid's blocks over threads with OpenMP "
                     "(the code calls libomp and tileCpuThreadCount); "
                     "otherwise one loop runs them in order"),
      llvm::cl::init(false)};
};

/// tile-to-cpu: tile kernels to loops (convert-tile-to-cpu, the grid a loop
/// or an OpenMP worksharing loop), cleaned up and lowered to the LLVM
/// dialect.
void buildTileToCPUPipeline(OpPassManager &pm,
                            const TileToCPUPipelineOptions &options = {});

/// Registers every tile pipeline with the pass registry.
void registerTilePipelines();

} // namespace mlir::tile

#endif // TILE_PIPELINES_PIPELINES_H
