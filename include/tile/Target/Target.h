//===- Target.h - What a target chip can do ---------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A TargetInfo describes the chip tile kernels are compiled for (sm_80,
// sm_90a, gfx942, host): its warp size, shared-memory and register limits,
// and the instruction families the compiler may use. It is built once from
// the module's `#tile.target` attribute (or a chip name) and handed to layout
// inference and the lowerings, which choose their strategies from it rather
// than from version checks of their own.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_TARGET_H
#define TILE_TARGET_TARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::tile {

/// Instruction families a strategy may need. Names (for `#tile.target`'s
/// `features`) in getFeatureName.
enum class Feature : uint32_t {
  /// Asynchronous global-to-shared copies of 4-16 bytes (sm_80+).
  CpAsync = 1u << 0,
  /// Warp-wide 8x8 matrix loads from shared memory (sm_75+).
  LdMatrix = 1u << 1,
  /// Warp-level tensor-core MMA, m16n8k* (sm_80+).
  MmaSync = 1u << 2,
  /// Bulk tensor copies described by tensor maps, completing on mbarriers
  /// (sm_90+).
  Tma = 1u << 3,
  /// Warpgroup-level asynchronous MMA from shared-memory descriptors, and
  /// register reallocation between warpgroups (sm_90a).
  Wgmma = 1u << 4,
  /// CDNA matrix-core instructions (gfx908+).
  Mfma = 1u << 5,
};
constexpr unsigned kNumFeatures = 6;

/// "cp.async", "ldmatrix", "mma.sync", "tma", "wgmma", "mfma". (Which
/// strategies a compile builds from them, such as warp specialization, are
/// the GPU lowering's options: GpuCodegenOptions.)
StringRef getFeatureName(Feature feature);
std::optional<Feature> parseFeature(StringRef name);

/// Who makes the chip kernels are compiled for; to the JIT library also
/// the runtime that runs them (jit::Target: none, CUDA, ROCm).
enum class Vendor { CPU, NVIDIA, AMD };

struct TargetInfo {
  using Vendor = tile::Vendor;
  /// The fp8 formats a chip's MFMA multiplies: none, FNUZ's (CDNA3) or
  /// OCP's (CDNA4: f8E4M3FN, f8E5M2).
  enum class Fp8Format { None, Fnuz, Ocp };

  Vendor vendor = Vendor::CPU;
  /// The chip as written: "sm_80", "sm_90a", "gfx942", "host".
  std::string chip = "host";
  /// NVIDIA compute capability times 10 (80, 90), or the gfx number (942).
  int64_t version = 0;
  /// Threads that execute in lockstep: 32 (NVIDIA), 64 (CDNA), 1 (CPU).
  int64_t warpSize = 1;
  /// Largest dynamic shared memory (LDS) per block, in bytes.
  int64_t sharedMemoryBytes = 0;
  /// 32-bit registers (VGPRs) one thread may use.
  int64_t registersPerThread = 0;
  /// 32-bit registers of a multiprocessor's register file, which one
  /// block's threads may share out (setmaxnreg): 64K on NVIDIA.
  int64_t registerFileSize = 0;
  /// Threads one block may have.
  int64_t maxThreadsPerBlock = 0;
  /// Threads of a warpgroup, the unit of wgmma and setmaxnreg (128 where
  /// `wgmma` exists; 0 elsewhere).
  int64_t warpgroupSize = 0;
  /// The fp8 format MFMA takes here (with `mfma`).
  Fp8Format mfmaFp8 = Fp8Format::None;
  /// MFMA multiplies i8 as 16x16x32 (CDNA3 on) rather than 16x16x16.
  bool mfmaI8K32 = false;
  /// The Feature bits the compiler may use.
  uint32_t features = 0;

  /// Describes `chip` with every feature it has; fails on names it does not
  /// know.
  static FailureOr<TargetInfo> parse(StringRef chip);
  /// Describes `chip`, restricted to `featureNames` when given (each must
  /// exist on the chip); fails with a message in `error` otherwise.
  static FailureOr<TargetInfo>
  get(StringRef chip, std::optional<ArrayRef<StringRef>> featureNames,
      std::string &error);

  bool isNVIDIA() const { return vendor == Vendor::NVIDIA; }
  bool isAMD() const { return vendor == Vendor::AMD; }
  bool isCPU() const { return vendor == Vendor::CPU; }
  bool has(Feature feature) const {
    return features & static_cast<uint32_t>(feature);
  }
  bool hasMmaSync() const { return has(Feature::MmaSync); }
  bool hasWgmma() const { return has(Feature::Wgmma); }
  bool hasMfma() const { return has(Feature::Mfma); }
  /// The names of the features this target may use, in Feature order.
  SmallVector<StringRef> getFeatureNames() const;
};

/// The chip names parse() accepts, for diagnostics.
StringRef getKnownChips();

} // namespace mlir::tile

#endif // TILE_TARGET_TARGET_H
