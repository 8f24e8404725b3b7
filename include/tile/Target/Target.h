//===- Target.h - What a target chip can do ---------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A TargetInfo names a chip (sm_80, sm_90a, gfx942, host) and answers what
// layout inference and the lowerings ask of it: its warp size and which
// matrix instructions exist.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_TARGET_H
#define TILE_TARGET_TARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::tile {

struct TargetInfo {
  enum class Vendor { NVIDIA, AMD, CPU };

  Vendor vendor = Vendor::CPU;
  /// The chip as written: "sm_80", "sm_90a", "gfx942", "host".
  std::string chip = "host";
  /// NVIDIA compute capability times 10 (80, 90), or the gfx number (942).
  int64_t version = 0;
  /// Threads that execute in lockstep: 32 (NVIDIA), 64 (CDNA), 1 (CPU).
  int64_t warpSize = 1;

  /// Parses a chip name; fails on names it does not know.
  static FailureOr<TargetInfo> parse(StringRef chip);

  bool isNVIDIA() const { return vendor == Vendor::NVIDIA; }
  bool isAMD() const { return vendor == Vendor::AMD; }
  bool isCPU() const { return vendor == Vendor::CPU; }
  /// mma.sync m16n8k{8,16,32}, ldmatrix, cp.async: sm_80 and newer.
  bool hasMmaSync() const { return isNVIDIA() && version >= 80; }
  /// wgmma, TMA: sm_90a only.
  bool hasWgmma() const { return isNVIDIA() && chip == "sm_90a"; }
  /// MFMA: CDNA2 (gfx90a) and CDNA3 (gfx940-942).
  bool hasMfma() const { return isAMD() && version >= 908; }
};

/// The chip names parse() accepts, for diagnostics.
StringRef getKnownChips();

} // namespace mlir::tile

#endif // TILE_TARGET_TARGET_H
