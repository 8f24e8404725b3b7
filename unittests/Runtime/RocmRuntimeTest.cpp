//===- RocmRuntimeTest.cpp - the ROCm runtime without (or with) a GPU -----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/RocmRuntime.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir::tile::runtime;

namespace {

using LaunchFn = void (*)(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                          intptr_t, intptr_t, int32_t, void *, void **,
                          void **, size_t);

void *lookup(const char *name) {
  for (auto &[symbol, address] : rocm::getRuntimeSymbols())
    if (symbol == name)
      return address;
  return nullptr;
}

TEST(RocmRuntime, ProvidesEveryMgpuFunctionOnce) {
  std::set<std::string> names;
  for (auto &[name, address] : rocm::getRuntimeSymbols()) {
    EXPECT_NE(address, nullptr) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " listed twice";
  }
  for (const char *required :
       {"mgpuModuleLoad", "mgpuModuleGetFunction", "mgpuLaunchKernel",
        "mgpuStreamCreate", "mgpuStreamSynchronize", "mgpuMemAlloc",
        "mgpuMemFree", "mgpuMemcpy", "mgpuSetDefaultDevice"})
    EXPECT_TRUE(names.count(required)) << required;
}

TEST(RocmRuntime, WithoutADeviceFailsWithAReason) {
  std::string why;
  if (rocm::initialize(&why)) {
    // An AMD GPU is present: it must describe itself.
    rocm::DeviceInfo info = rocm::getDeviceInfo();
    EXPECT_FALSE(info.name.empty());
    EXPECT_EQ(info.chip.rfind("gfx", 0), 0u) << info.chip;
    return;
  }
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(rocm::allocate(16), nullptr);
  std::string error;
  EXPECT_FALSE(rocm::synchronize(&error));
  EXPECT_FALSE(error.empty());
  // The lowered host code's calls are harmless no-ops without a device.
  auto launch = reinterpret_cast<LaunchFn>(lookup("mgpuLaunchKernel"));
  ASSERT_NE(launch, nullptr);
  launch(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  auto load = reinterpret_cast<void *(*)(void *, size_t)>(
      lookup("mgpuModuleLoad"));
  ASSERT_NE(load, nullptr);
  char image[4] = {0};
  EXPECT_EQ(load(image, sizeof(image)), nullptr);
}

} // namespace
