//===- Target.cpp - What a target chip can do -----------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/Target.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::tile;

StringRef mlir::tile::getFeatureName(Feature feature) {
  switch (feature) {
  case Feature::CpAsync:
    return "cp.async";
  case Feature::LdMatrix:
    return "ldmatrix";
  case Feature::MmaSync:
    return "mma.sync";
  case Feature::Tma:
    return "tma";
  case Feature::Wgmma:
    return "wgmma";
  case Feature::Mfma:
    return "mfma";
  }
  return "";
}

std::optional<Feature> mlir::tile::parseFeature(StringRef name) {
  for (unsigned bit = 0; bit < kNumFeatures; ++bit) {
    auto feature = static_cast<Feature>(1u << bit);
    if (getFeatureName(feature) == name)
      return feature;
  }
  return std::nullopt;
}

SmallVector<StringRef> TargetInfo::getFeatureNames() const {
  SmallVector<StringRef> names;
  for (unsigned bit = 0; bit < kNumFeatures; ++bit)
    if (features & (1u << bit))
      names.push_back(getFeatureName(static_cast<Feature>(1u << bit)));
  return names;
}

/// Largest dynamic shared memory per block of an NVIDIA compute capability
/// (CUDA programming guide, "Technical Specifications per Compute
/// Capability").
static int64_t getNvidiaSharedMemory(int64_t version) {
  switch (version) {
  case 80:
  case 87:
    return 163 * 1024;
  case 90:
  case 100:
  case 103:
    return 227 * 1024;
  case 75:
    return 64 * 1024;
  case 70:
  case 72:
    return 96 * 1024;
  default:
    return 99 * 1024; // sm_86, sm_89, sm_110, sm_120, ...
  }
}

FailureOr<TargetInfo> TargetInfo::parse(StringRef chip) {
  TargetInfo info;
  info.chip = chip.str();
  if (chip == "host" || chip == "cpu") {
    info.chip = "host";
    info.sharedMemoryBytes = int64_t(1) << 40;
    return info;
  }
  auto set = [&](Feature f) { info.features |= static_cast<uint32_t>(f); };
  if (chip.consume_front("sm_")) {
    StringRef digits = chip;
    bool archSpecific = digits.consume_back("a");
    unsigned version;
    if (digits.getAsInteger(10, version) || version < 70 || version > 120)
      return failure();
    info.vendor = Vendor::NVIDIA;
    info.version = version;
    info.warpSize = 32;
    info.sharedMemoryBytes = getNvidiaSharedMemory(version);
    info.registersPerThread = 255;
    info.registerFileSize = 65536;
    info.maxThreadsPerBlock = 1024;
    if (version >= 75)
      set(Feature::LdMatrix);
    if (version >= 80) {
      set(Feature::CpAsync);
      set(Feature::MmaSync);
    }
    // wgmma and setmaxnreg exist on sm_90a only (not sm_100a's successor).
    // TMA pipelines are on by default where they have run (sm_90a, with
    // wgmma consumers, on an H100); other sm_90+ targets may list `tma`.
    if (version == 90 && archSpecific) {
      info.warpgroupSize = 128;
      set(Feature::Wgmma);
      set(Feature::Tma);
    }
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
    // LDS per workgroup: 64 KiB, except CDNA4's (gfx950) 160 KiB.
    info.sharedMemoryBytes = (version == 950 ? 160 : 64) * 1024;
    // CDNA2-4 give a wave 512 VGPRs (256 arch + 256 accumulation).
    info.registersPerThread = version >= 908 && version < 1000 ? 512 : 256;
    info.maxThreadsPerBlock = 1024;
    if (version >= 908 && version < 1000) {
      set(Feature::Mfma);
      // CDNA3 replaced the i8 16x16x16 MFMA with 16x16x32 and brought the
      // FNUZ fp8 types; CDNA4 (gfx950) takes OCP's instead.
      info.mfmaI8K32 = version >= 940;
      info.mfmaFp8 = version == 942   ? Fp8Format::Fnuz
                     : version == 950 ? Fp8Format::Ocp
                                      : Fp8Format::None;
    }
    return info;
  }
  return failure();
}

FailureOr<TargetInfo>
TargetInfo::get(StringRef chip, std::optional<ArrayRef<StringRef>> featureNames,
                std::string &error) {
  FailureOr<TargetInfo> info = parse(chip);
  if (failed(info)) {
    error = ("unknown chip '" + chip + "'; expected one of " + getKnownChips())
                .str();
    return failure();
  }
  if (!featureNames)
    return info;
  uint32_t allowed = 0;
  for (StringRef name : *featureNames) {
    std::optional<Feature> feature = parseFeature(name);
    if (!feature) {
      if (name == "warp-specialize" || name == "tma-store" ||
          name == "tma-multicast")
        error = ("'" + name +
                 "' is not a feature of the chip but a code generation "
                 "option: convert-tile-to-gpu's (and tile-to-nvvm's) " +
                 name + "=true|false")
                    .str();
      else
        error = ("unknown feature '" + name +
                 "'; expected cp.async, ldmatrix, mma.sync, tma, wgmma or mfma")
                    .str();
      return failure();
    }
    // Opt-in: TMA on sm_90+.
    bool mayList =
        *feature == Feature::Tma && info->isNVIDIA() && info->version >= 90;
    if (!info->has(*feature) && !mayList) {
      error = ("feature '" + name + "' does not exist on " + info->chip).str();
      return failure();
    }
    allowed |= static_cast<uint32_t>(*feature);
  }
  info->features = allowed;
  return info;
}

StringRef mlir::tile::getKnownChips() {
  return "sm_70 .. sm_120 (sm_90a for Hopper features), gfx9xx (gfx90a, "
         "gfx942, gfx950), gfx10xx-gfx12xx, host";
}
