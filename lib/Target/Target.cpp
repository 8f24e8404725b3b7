//===- Target.cpp - What a target chip can do -----------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/Target.h"

using namespace mlir;
using namespace mlir::tile;

FailureOr<TargetInfo> TargetInfo::parse(StringRef chip) {
  TargetInfo info;
  info.chip = chip.str();
  if (chip == "host" || chip == "cpu") {
    info.chip = "host";
    return info;
  }
  if (chip.consume_front("sm_")) {
    StringRef digits = chip;
    digits.consume_back("a");
    unsigned version;
    if (digits.getAsInteger(10, version) || version < 70 || version > 120)
      return failure();
    info.vendor = Vendor::NVIDIA;
    info.version = version;
    info.warpSize = 32;
    return info;
  }
  if (chip.consume_front("gfx")) {
    // gfx90a has letters: rank it between gfx908 and gfx940.
    unsigned version = 910;
    if (chip != "90a" && chip.getAsInteger(10, version))
      return failure();
    if (version < 900 || version > 1299)
      return failure();
    info.vendor = Vendor::AMD;
    info.version = version;
    info.warpSize = version >= 1000 ? 32 : 64;
    return info;
  }
  return failure();
}

StringRef mlir::tile::getKnownChips() {
  return "sm_70 .. sm_120 (sm_90a for Hopper features), gfx9xx (gfx90a, "
         "gfx942), gfx10xx-gfx12xx, host";
}
