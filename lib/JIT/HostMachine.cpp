//===- HostMachine.cpp - The CPU the JIT compiles host code for -----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/HostMachine.h"
#include "tile/Runtime/RuntimeSymbols.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <atomic>
#include <cstdlib>
#include <memory>

#include <dlfcn.h>

using namespace mlir::tile::jit;

// The builtins LLVM's code generators call where a CPU has no instruction
// for an operation tile's lowerings produce (compiler-rt's names; the
// builtins archive is linked into this library, lib/JIT/CMakeLists.txt):
// half and bfloat conversions, 128-bit integer arithmetic and conversions,
// integer powers.
#define TILE_HOST_BUILTINS(X)                                                  \
  X(__extendhfsf2)                                                             \
  X(__extendhfdf2)                                                             \
  X(__truncsfhf2)                                                              \
  X(__truncdfhf2)                                                              \
  X(__extendbfsf2)                                                             \
  X(__truncsfbf2)                                                              \
  X(__truncdfbf2)                                                              \
  X(__divti3)                                                                  \
  X(__udivti3)                                                                 \
  X(__modti3)                                                                  \
  X(__umodti3)                                                                 \
  X(__divmodti4)                                                               \
  X(__udivmodti4)                                                              \
  X(__multi3)                                                                  \
  X(__muloti4)                                                                 \
  X(__mulodi4)                                                                 \
  X(__fixsfti)                                                                 \
  X(__fixdfti)                                                                 \
  X(__fixunssfti)                                                              \
  X(__fixunsdfti)                                                              \
  X(__floattisf)                                                               \
  X(__floattidf)                                                               \
  X(__floatuntisf)                                                             \
  X(__floatuntidf)                                                             \
  X(__powisf2)                                                                 \
  X(__powidf2)

// Only their addresses are taken: the type does not matter.
#define TILE_DECLARE_BUILTIN(name) extern "C" void name(void);
TILE_HOST_BUILTINS(TILE_DECLARE_BUILTIN)
#undef TILE_DECLARE_BUILTIN

namespace {
std::atomic<int> cpuThreadOverride{0};
} // namespace

const std::string &mlir::tile::jit::getOpenMPRuntime() {
  static const std::string path = [] {
    // The libomp of tile's LLVM (Debian: libomp-22-dev, found at build
    // time), else whichever the system's loader finds.
    for (const char *candidate : {
#ifdef TILE_OPENMP_LIBRARY
             TILE_OPENMP_LIBRARY,
#endif
             "libomp.so.5", "libomp.so"}) {
      if (void *handle = ::dlopen(candidate, RTLD_NOW | RTLD_LOCAL)) {
        // Kept open for the process: kernels call into it.
        (void)handle;
        return std::string(candidate);
      }
    }
    return std::string();
  }();
  return path;
}

void mlir::tile::jit::setCpuThreadCount(int threads) {
  cpuThreadOverride = threads > 0 ? threads : 0;
}

int mlir::tile::jit::getCpuThreadCount() {
  if (int threads = cpuThreadOverride.load())
    return threads;
  if (const char *env = std::getenv("TILE_CPU_THREADS")) {
    int threads = std::atoi(env);
    if (threads > 0)
      return threads;
  }
  // OpenMP's default, asked of libomp (looked up once).
  static int (*const maxThreads)() = []() -> int (*)() {
    if (getOpenMPRuntime().empty())
      return nullptr;
    void *handle = ::dlopen(getOpenMPRuntime().c_str(), RTLD_NOW | RTLD_LOCAL);
    return handle ? reinterpret_cast<int (*)()>(
                        ::dlsym(handle, "omp_get_max_threads"))
                  : nullptr;
  }();
  return maxThreads ? maxThreads() : 1;
}

/// What the lowered kernels call (convert-tile-to-cpu with openmp).
extern "C" int32_t tileCpuThreadCount() {
  return mlir::tile::jit::getCpuThreadCount();
}

std::string mlir::tile::jit::resolveHostCpu(llvm::StringRef cpu) {
  if (!cpu.empty())
    return cpu.str();
  if (std::optional<std::string> fromEnv =
          llvm::sys::Process::GetEnv("TILE_CPU"))
    if (!fromEnv->empty())
      return *fromEnv;
  return "host";
}

llvm::Expected<llvm::orc::JITTargetMachineBuilder>
mlir::tile::jit::getHostMachineBuilder(llvm::StringRef cpu) {
  if (cpu == "host" || cpu == "native")
    return llvm::orc::JITTargetMachineBuilder::detectHost();
  llvm::InitializeNativeTarget();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError(error);
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(cpu))
    return llvm::createStringError(
        "unknown CPU '" + cpu.str() + "' for " + triple.str() +
        " (TILE_CPU or the cpu option: 'host', or an LLVM CPU name such as "
        "x86-64, x86-64-v3, skylake-avx512)");
  llvm::orc::JITTargetMachineBuilder builder(triple);
  builder.setCPU(cpu.str());
  return builder;
}

std::string mlir::tile::jit::describeHostMachine(
    const llvm::orc::JITTargetMachineBuilder &builder) {
  return builder.getTargetTriple().str() + " " + builder.getCPU() + " " +
         builder.getFeatures().getString();
}

const std::vector<std::pair<std::string, void *>> &
mlir::tile::jit::getHostBuiltins() {
  static const std::vector<std::pair<std::string, void *>> builtins = {
#define TILE_BUILTIN_ENTRY(name)                                               \
  {#name, reinterpret_cast<void *>(&name)},
      TILE_HOST_BUILTINS(TILE_BUILTIN_ENTRY)
#undef TILE_BUILTIN_ENTRY
      {mlir::tile::runtime::kCpuThreadCountSymbol,
       reinterpret_cast<void *>(&tileCpuThreadCount)},
  };
  return builtins;
}
