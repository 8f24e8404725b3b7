//===- RuntimeTest.cpp - the GPU runtimes without (or with) their GPU -----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Each runtime must offer every mgpu* function the lowered host code calls,
// and on a machine without its GPU (or driver) fail with a reason, with the
// lowered code's calls harmless: no crash, no abort.
//
//===----------------------------------------------------------------------===//

#ifdef TILE_HAS_CUDA_RUNTIME
#include "tile/Runtime/CudaRuntime.h"
#endif
#ifdef TILE_HAS_ROCM_RUNTIME
#include "tile/Runtime/RocmRuntime.h"
#endif

#include "gtest/gtest.h"

#include <set>

using namespace mlir::tile::runtime;

namespace {

using SymbolList = std::vector<std::pair<std::string, void *>>;
using LaunchFn = void (*)(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                          intptr_t, intptr_t, int32_t, void *, void **,
                          void **, size_t);
using LoadFn = void *(*)(void *, size_t);

void *lookup(const SymbolList &symbols, const char *name) {
  for (auto &[symbol, address] : symbols)
    if (symbol == name)
      return address;
  return nullptr;
}

void expectEveryMgpuFunctionOnce(const SymbolList &symbols) {
  std::set<std::string> names;
  for (auto &[name, address] : symbols) {
    EXPECT_NE(address, nullptr) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " listed twice";
  }
  for (const char *required :
       {"mgpuModuleLoad", "mgpuModuleUnload", "mgpuModuleGetFunction",
        "mgpuLaunchKernel", "mgpuStreamCreate", "mgpuStreamDestroy",
        "mgpuStreamSynchronize", "mgpuEventCreate", "mgpuEventRecord",
        "mgpuMemAlloc", "mgpuMemFree", "mgpuMemcpy", "mgpuSetDefaultDevice"})
    EXPECT_TRUE(names.count(required)) << required;
}

/// What the lowered host code calls does nothing without a device.
void expectHarmlessCalls(const SymbolList &symbols) {
  auto launch = reinterpret_cast<LaunchFn>(lookup(symbols, "mgpuLaunchKernel"));
  ASSERT_NE(launch, nullptr);
  launch(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  auto load = reinterpret_cast<LoadFn>(lookup(symbols, "mgpuModuleLoad"));
  ASSERT_NE(load, nullptr);
  char image[4] = {0};
  EXPECT_EQ(load(image, sizeof(image)), nullptr);
}

#ifdef TILE_HAS_CUDA_RUNTIME
TEST(CudaRuntime, ProvidesEveryMgpuFunctionOnce) {
  expectEveryMgpuFunctionOnce(cuda::getRuntimeSymbols());
  EXPECT_NE(lookup(cuda::getRuntimeSymbols(), "mgpuModuleLoadJIT"), nullptr);
}

TEST(CudaRuntime, WithoutADeviceFailsWithAReason) {
  std::string why;
  if (cuda::initialize(&why)) {
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
  expectHarmlessCalls(cuda::getRuntimeSymbols());
}
#endif

#ifdef TILE_HAS_ROCM_RUNTIME
TEST(RocmRuntime, ProvidesEveryMgpuFunctionOnce) {
  expectEveryMgpuFunctionOnce(rocm::getRuntimeSymbols());
}

TEST(RocmRuntime, WithoutADeviceFailsWithAReason) {
  std::string why;
  if (rocm::initialize(&why)) {
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
  expectHarmlessCalls(rocm::getRuntimeSymbols());
}
#endif

} // namespace
