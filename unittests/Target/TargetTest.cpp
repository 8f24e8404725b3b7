//===- TargetTest.cpp - What TargetInfo says of each chip -----------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The chip facts the lowerings read instead of version checks of their own:
// the warpgroup wgmma and setmaxnreg work on, the register file, the block
// size limit, and which MFMA variants a CDNA chip has.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/Target.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

TargetInfo parse(StringRef chip) {
  FailureOr<TargetInfo> info = TargetInfo::parse(chip);
  EXPECT_TRUE(succeeded(info)) << chip.str();
  return succeeded(info) ? *info : TargetInfo();
}

TEST(TargetTest, HopperHasWarpgroupsOfFourWarps) {
  TargetInfo hopper = parse("sm_90a");
  EXPECT_TRUE(hopper.hasWgmma());
  EXPECT_EQ(hopper.warpgroupSize, 4 * hopper.warpSize);
  EXPECT_EQ(hopper.registerFileSize, 65536);
  EXPECT_EQ(hopper.maxThreadsPerBlock, 1024);
  // No wgmma, no warpgroup: sm_90 without `a`, Ampere.
  EXPECT_EQ(parse("sm_90").warpgroupSize, 0);
  EXPECT_EQ(parse("sm_80").warpgroupSize, 0);
  EXPECT_EQ(parse("sm_80").registerFileSize, 65536);
}

TEST(TargetTest, MfmaVariantsFollowTheCdnaGeneration) {
  using Fp8 = TargetInfo::Fp8Format;
  TargetInfo cdna2 = parse("gfx90a"), cdna3 = parse("gfx942"),
             cdna4 = parse("gfx950");
  EXPECT_TRUE(cdna2.hasMfma() && cdna3.hasMfma() && cdna4.hasMfma());
  EXPECT_EQ(cdna2.mfmaFp8, Fp8::None);
  EXPECT_EQ(cdna3.mfmaFp8, Fp8::Fnuz);
  EXPECT_EQ(cdna4.mfmaFp8, Fp8::Ocp);
  EXPECT_FALSE(cdna2.mfmaI8K32);
  EXPECT_TRUE(cdna3.mfmaI8K32);
  EXPECT_TRUE(cdna4.mfmaI8K32);
  // RDNA has no MFMA.
  TargetInfo rdna = parse("gfx1100");
  EXPECT_FALSE(rdna.hasMfma());
  EXPECT_EQ(rdna.mfmaFp8, Fp8::None);
  EXPECT_FALSE(rdna.mfmaI8K32);
}

TEST(TargetTest, TheHostHasNoGpuFacts) {
  TargetInfo host = parse("host");
  EXPECT_TRUE(host.isCPU());
  EXPECT_EQ(host.warpgroupSize, 0);
  EXPECT_EQ(host.registerFileSize, 0);
}

} // namespace
