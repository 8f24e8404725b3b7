//===- CudaRuntimeTest.cpp - the CUDA runtime without (or with) a GPU -----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/CudaRuntime.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir::tile::runtime;

namespace {

using LaunchFn = void (*)(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                          intptr_t, intptr_t, int32_t, void *, void **,
                          void **, size_t);

void *lookup(const char *name) {
  for (auto &[symbol, address] : cuda::getRuntimeSymbols())
    if (symbol == name)
      return address;
  return nullptr;
}

TEST(CudaRuntime, ProvidesEveryMgpuFunctionOnce) {
  std::set<std::string> names;
  for (auto &[name, address] : cuda::getRuntimeSymbols()) {
    EXPECT_NE(address, nullptr) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " listed twice";
  }
  for (const char *required :
       {"mgpuModuleLoad", "mgpuModuleGetFunction", "mgpuLaunchKernel",
        "mgpuStreamCreate", "mgpuStreamSynchronize", "mgpuMemAlloc",
        "mgpuMemFree", "mgpuMemcpy", "mgpuSetDefaultDevice"})
    EXPECT_TRUE(names.count(required)) << required;
}

TEST(CudaRuntime, WithoutADeviceFailsWithAReason) {
  std::string why;
  if (cuda::initialize(&why)) {
    // An NVIDIA GPU is present: it must describe itself.
    cuda::DeviceInfo info = cuda::getDeviceInfo();
    EXPECT_FALSE(info.name.empty());
    EXPECT_EQ(info.chip().rfind("sm_", 0), 0u) << info.chip();
    return;
  }
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(cuda::allocate(16), nullptr);
  std::string error;
  EXPECT_FALSE(cuda::synchronize(&error));
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
